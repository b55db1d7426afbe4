// The one way plumb runs data-parallel work on several threads: a task group (each task on a
// thread of its own, joined by wait(), the first exception rethrown there) and parallel_for on
// top of it; thread counts come from the CPU budget (usable_cpus, collect/cgroup.h) or an option.
// Threads that are not data-parallel work (collectors under deadlines, the spinner, the exporter's
// loops, a read-ahead producer, the benchmarks' timed workers) say where they start why not.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace plumb {

class TaskGroup {
 public:
  TaskGroup() = default;
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;
  ~TaskGroup();  // joins what is still running; an exception not taken by wait() is dropped

  // Runs fn on a thread of its own (any thread may call this, a task too); when no thread can be
  // started (a task limit), runs it here. Threads that are done are joined here, so a group that
  // lives as long as the process keeps no list of them.
  void run(std::function<void()> fn);
  // Joins every task started so far, those started meanwhile by tasks included, and rethrows the
  // first exception a task threw.
  void wait();

 private:
  struct Task {
    std::thread thread;
    std::atomic<bool> done{false};
  };
  std::mutex mu_;
  std::vector<std::unique_ptr<Task>> tasks_;
  std::exception_ptr error_;
};

// Runs work(i) for every i in [0, n) on up to `threads` threads, the caller's included; each takes
// the next index when done with one. Returns when all are done; rethrows the first exception.
void parallel_for(std::size_t n, std::size_t threads, const std::function<void(std::size_t)>& work);

// Runs fn on a thread of one process-wide group, for work the caller need not wait for:
// destroying large objects (a trace's record arrays, tens of megabytes whose unmapping is
// milliseconds of system time) while the caller goes on to report.
void run_in_background(std::function<void()> fn);
// Waits for everything started by run_in_background so far.
void wait_background();
// Takes `obj` and destroys it on a background thread.
template <class T>
void release_in_background(T&& obj) {
  auto held = std::make_shared<std::decay_t<T>>(std::forward<T>(obj));
  run_in_background([held = std::move(held)]() mutable { held.reset(); });
}

}  // namespace plumb
