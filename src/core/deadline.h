// Runs a call that may never return (a stuck driver library) on its own thread, waiting for it at
// most a deadline, the way the registry runs collectors.
#pragma once

#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

namespace plumb {

// A thread left running past its deadline cannot be joined, and the static tables it may still
// read must outlive it: main ends such a run with exit_past_deadline, the one place plumb leaves
// without returning (after flushing its streams, without static destructors). The --budget
// watchdog of the scheduler modes leaves the same way.
void note_abandoned_thread();
bool threads_abandoned();
[[noreturn]] void exit_past_deadline(int rc);

// fn() when it returns within `deadline`; nullopt otherwise. The thread is then abandoned and keeps
// running, so fn must own everything it touches (captures by value or shared_ptr, never references
// to the caller's frame). An exception from fn is rethrown here.
template <class T, class F>
std::optional<T> run_with_deadline(F fn, std::chrono::milliseconds deadline) {
  auto promise = std::make_shared<std::promise<T>>();
  std::future<T> result = promise->get_future();
  // Detached, not a task group (core/parallel.h): work past its deadline is abandoned, never joined.
  std::thread([promise, fn = std::move(fn)]() mutable {
    try {
      promise->set_value(fn());
    } catch (...) {
      promise->set_exception(std::current_exception());
    }
  }).detach();
  if (result.wait_for(deadline) != std::future_status::ready) {
    note_abandoned_thread();
    return std::nullopt;
  }
  return result.get();
}

}  // namespace plumb
