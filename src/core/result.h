// Result<T>: a value or an Error, passed between pipeline stages instead of exceptions.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace plumb {

// Why something could not be read or computed. Kinds are stable strings so they can be
// shown in reports ("permission denied") and serialised.
enum class ErrorKind { absent, denied, timed_out, unsupported, invalid, io, internal };

const char* error_kind_name(ErrorKind k);

struct Error {
  ErrorKind kind = ErrorKind::internal;
  std::string message;  // one line, already says what and where

  // "permission denied: /dev/kmsg (Operation not permitted)" style text for reports.
  [[nodiscard]] std::string describe() const;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  [[nodiscard]] const Error& error() const { return std::get<1>(v_); }
  T value_or(T fallback) const& { return ok() ? value() : std::move(fallback); }
  T value_or(T fallback) && { return ok() ? std::get<0>(std::move(v_)) : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(ErrorKind kind, std::string message) { return Error{kind, std::move(message)}; }

// Thrown for "plumb could not run" conditions (bad arguments, unreadable input): main prints the
// one line and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace plumb
