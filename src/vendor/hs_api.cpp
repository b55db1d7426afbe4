#include "vendor/hs_api.h"

#include "vendor/dynlib.h"

namespace plumb {

Result<HsApi> load_hs_api(std::initializer_list<std::string> names) {
  HsApi api;
#ifdef PLUMB_LINKED_HS
  (void)names;
#define PLUMB_HS_LINKED(fn) api.fn = &::hs_##fn;
  PLUMB_HS_FUNCTIONS(PLUMB_HS_LINKED)
#undef PLUMB_HS_LINKED
#else
  auto lib = dynlib::open_first(names);
  if (!lib) return make_error(lib.error().kind, "Vectorscan: " + lib.error().message + " (Debian package libvectorscan5)");
#define PLUMB_HS_SYMBOL(fn)                                                                                 \
  if (dynlib::resolve(*lib, api.fn, {"hs_" #fn}) < 0) {                                                   \
    return make_error(ErrorKind::unsupported, "Vectorscan: " + lib->name + " has no hs_" #fn);               \
  }
  PLUMB_HS_FUNCTIONS(PLUMB_HS_SYMBOL)
#undef PLUMB_HS_SYMBOL
#endif
  return api;
}

Result<const HsApi*> hs_api() {
  static const Result<HsApi> loaded = load_hs_api({"libhs.so.5"});
  if (!loaded) return loaded.error();
  return &loaded.value();
}

}  // namespace plumb
