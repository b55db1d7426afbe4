// Work a caller need not wait for: destroying large objects (a trace's record arrays, tens of
// megabytes whose unmapping is milliseconds of system time) on another thread while the caller
// goes on to report. Every thread started here is joined by wait_background() or when the
// process exits.
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace plumb {

// Runs fn on a thread of its own; if no thread can be started, runs it here.
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
