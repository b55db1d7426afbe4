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

// fn() when it returns within `deadline`; nullopt otherwise. The thread is then abandoned and keeps
// running, so fn must own everything it touches (captures by value or shared_ptr, never references
// to the caller's frame). An exception from fn is rethrown here.
template <class T, class F>
std::optional<T> run_with_deadline(F fn, std::chrono::milliseconds deadline) {
  auto promise = std::make_shared<std::promise<T>>();
  std::future<T> result = promise->get_future();
  std::thread([promise, fn = std::move(fn)]() mutable {
    try {
      promise->set_value(fn());
    } catch (...) {
      promise->set_exception(std::current_exception());
    }
  }).detach();
  if (result.wait_for(deadline) != std::future_status::ready) return std::nullopt;
  return result.get();
}

}  // namespace plumb
