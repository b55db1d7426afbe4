// Names of error kinds as they appear in reports and JSON.
#include "core/result.h"

namespace plumb {

const char* error_kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::absent: return "absent";
    case ErrorKind::denied: return "permission denied";
    case ErrorKind::timed_out: return "timed out";
    case ErrorKind::unsupported: return "not supported";
    case ErrorKind::invalid: return "invalid";
    case ErrorKind::io: return "I/O error";
    case ErrorKind::internal: return "internal error";
  }
  return "error";
}

std::string Error::describe() const {
  std::string s = error_kind_name(kind);
  if (!message.empty()) {
    s += ": ";
    s += message;
  }
  return s;
}

}  // namespace plumb
