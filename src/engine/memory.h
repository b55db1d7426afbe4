// `plumb memory`: its options and its pipeline (engine/memory.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/artefact.h"

namespace plumb {

struct MemoryOptions {
  std::vector<std::string> files;
  std::string gpu_memory;
  ArtefactOptions common;
};


int run_memory(const MemoryOptions& a);

}  // namespace plumb
