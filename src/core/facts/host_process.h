// Host facts: the target process: environment variables, resource limits, status (owner: host helper B).
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include <map>

#include "core/json.h"

namespace plumb {

struct ProcessFacts {
  bool collected = false;  // set by the collector
  // Contract used by many rules: the target process's environment (all variables; renderers
  // show only the relevant ones). Missing with the reason when /proc/<pid>/environ is unreadable.
  Fact<std::map<std::string, std::string>> environ;
  bool operator==(const ProcessFacts&) const = default;
};
PLUMB_JSON(ProcessFacts, collected, environ)

}  // namespace plumb
