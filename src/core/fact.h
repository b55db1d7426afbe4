// Fact<T>: a value read from the system together with where it was read, or why it is missing.
// Unknown is never confused with zero: renderers print the reason, rules return skip.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "core/result.h"

namespace plumb {

template <class T>
struct Fact {
  std::optional<T> value;
  std::string source;   // "/proc/meminfo", "nvmlDeviceGetTemperature(gpu 0000:3b:00.0)"
  std::string missing;  // why there is no value; empty with no value means "not collected"

  [[nodiscard]] bool has() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
  // Why there is no value, for skip reasons ("not collected" when nobody tried).
  [[nodiscard]] std::string why() const { return missing.empty() ? std::string("not collected") : missing; }

  static Fact of(T v, std::string src) { return Fact{std::move(v), std::move(src), {}}; }
  static Fact none(std::string why, std::string src = {}) { return Fact{std::nullopt, std::move(src), std::move(why)}; }
  static Fact from(Result<T> r, std::string src) {
    if (r) return of(std::move(r.value()), std::move(src));
    return none(r.error().describe(), std::move(src));
  }
  bool operator==(const Fact&) const = default;
};

}  // namespace plumb
