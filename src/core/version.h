// The version of plumb, as the build names it (PLUMB_VERSION from CMake).
#pragma once

namespace plumb {

const char* plumb_version();

}  // namespace plumb
