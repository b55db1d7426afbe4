// TaskGroup, parallel_for and the process-wide background group.
#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <system_error>

namespace plumb {

TaskGroup::~TaskGroup() {
  try {
    wait();
  } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor does not throw; wait() reports
  }
}

void TaskGroup::run(std::function<void()> fn) {
  auto task = std::make_unique<Task>();
  // Copied into the thread, so that it is still whole here when no thread can be started.
  auto body = [this, fn = std::make_shared<std::function<void()>>(std::move(fn)), done = &task->done] {
    try {
      (*fn)();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
    *fn = nullptr;  // what the function owns is destroyed here, on this thread
    done->store(true, std::memory_order_release);
  };
  try {
    task->thread = std::thread(body);
  } catch (const std::system_error&) {
    body();  // no thread to be had (a task limit): the caller does it
    return;
  }
  std::vector<std::unique_ptr<Task>> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase_if(tasks_, [&](std::unique_ptr<Task>& t) {
      if (!t->done.load(std::memory_order_acquire)) return false;
      finished.push_back(std::move(t));
      return true;
    });
    tasks_.push_back(std::move(task));
  }
  for (auto& t : finished) t->thread.join();
}

void TaskGroup::wait() {
  while (true) {
    std::vector<std::unique_ptr<Task>> all;
    {
      std::lock_guard<std::mutex> lock(mu_);
      all.swap(tasks_);
      if (all.empty()) {
        if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
        return;
      }
    }
    for (auto& t : all) t->thread.join();
  }
}

void parallel_for(std::size_t n, std::size_t threads, const std::function<void(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  auto loop = [&] {
    try {
      for (std::size_t i = next++; i < n; i = next++) work(i);
    } catch (...) {
      next = n;  // the others stop at their next index
      throw;
    }
  };
  TaskGroup group;  // joined before `next` and `loop` go, also when this thread's share throws
  for (std::size_t t = 1; t < std::min(threads, n); ++t) group.run(loop);
  loop();
  group.wait();
}

namespace {
// A function-local static: joined at normal exit, after every object it may still be destroying
// was handed over (they are owned by the tasks themselves).
TaskGroup& background() {
  static TaskGroup g;
  return g;
}
}  // namespace

void run_in_background(std::function<void()> fn) { background().run(std::move(fn)); }

void wait_background() { background().wait(); }

}  // namespace plumb
