#include "core/background.h"

#include <atomic>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace plumb {

namespace {

struct Job {
  std::thread thread;
  std::shared_ptr<std::atomic<bool>> done;
};

// The threads started and not yet joined. A function-local static: joined at normal exit, after
// every object it may still be destroying was handed over (they are owned by the jobs themselves).
class Jobs {
 public:
  Jobs() = default;
  Jobs(const Jobs&) = delete;
  Jobs& operator=(const Jobs&) = delete;
  ~Jobs() { wait(); }

  void start(std::function<void()> fn) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    auto task = std::make_shared<std::function<void()>>(std::move(fn));
    std::thread t;
    try {
      t = std::thread([task, done]() {
        (*task)();
        *task = nullptr;  // what the function owns is destroyed here, on this thread
        done->store(true, std::memory_order_release);
      });
    } catch (const std::system_error&) {
      (*task)();  // no thread to be had (a task limit): the caller does it
      return;
    }
    std::vector<std::thread> finished;
    {
      std::lock_guard<std::mutex> lock(mu_);
      // Threads that are done are joined here, so a long-running process keeps no list of them.
      for (auto it = jobs_.begin(); it != jobs_.end();) {
        if (it->done->load(std::memory_order_acquire)) {
          finished.push_back(std::move(it->thread));
          it = jobs_.erase(it);
        } else {
          ++it;
        }
      }
      jobs_.push_back(Job{std::move(t), std::move(done)});
    }
    for (auto& f : finished) f.join();
  }

  void wait() {
    std::vector<Job> all;
    {
      std::lock_guard<std::mutex> lock(mu_);
      all.swap(jobs_);
    }
    for (auto& j : all) j.thread.join();
  }

 private:
  std::mutex mu_;
  std::vector<Job> jobs_;
};

Jobs& jobs() {
  static Jobs j;
  return j;
}

}  // namespace

void run_in_background(std::function<void()> fn) { jobs().start(std::move(fn)); }

void wait_background() { jobs().wait(); }

}  // namespace plumb
