// The version of plumb, as the build names it.
#include "core/version.h"

namespace plumb {

const char* plumb_version() { return PLUMB_VERSION; }

}  // namespace plumb
