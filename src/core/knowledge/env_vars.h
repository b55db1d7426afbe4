// Environment variables that steer the GPU, communication and thread stack: the ones reports show
// and snapshots compare. Secrets and the rest of the environment are never shown.
#pragma once

#include <string>

namespace plumb {

bool relevant_env_var(const std::string& name);

}  // namespace plumb
