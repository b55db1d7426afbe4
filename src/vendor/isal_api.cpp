#include "vendor/isal_api.h"

#include "vendor/dynlib.h"

namespace plumb {

Result<IsalApi> load_isal_api(std::initializer_list<std::string> names) {
  IsalApi api;
  auto lib = dynlib::open_first(names);
  if (!lib) return make_error(lib.error().kind, "ISA-L: " + lib.error().message + " (Debian package libisal2)");
#define PLUMB_ISAL_SYMBOL(fn)                                                                 \
  if (dynlib::resolve(*lib, api.fn, {"isal_" #fn}) < 0) {                                   \
    return make_error(ErrorKind::unsupported, "ISA-L: " + lib->name + " has no isal_" #fn); \
  }
  PLUMB_ISAL_FUNCTIONS(PLUMB_ISAL_SYMBOL)
#undef PLUMB_ISAL_SYMBOL
  return api;
}

Result<const IsalApi*> isal_api() {
  static const Result<IsalApi> loaded = load_isal_api({"libisal.so.2"});
  if (!loaded) return loaded.error();
  return &loaded.value();
}

std::string isal_inflate_error(int rc) {
  // The codes of isa-l/igzip_lib.h (2.30), worded as zlib's inflate.c words the same faults.
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "invalid block type or lengths";
    case ISAL_INVALID_SYMBOL:
      return "invalid code";
    case ISAL_INVALID_LOOKBACK:
      return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
      return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD:
      return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "incorrect data check";
    case ISAL_NEED_DICT:
      return "needs a preset dictionary";
    default:
      return "ISA-L inflate error " + std::to_string(rc);
  }
}

}  // namespace plumb
