// `plumb watch`: its options and its pipeline (engine/watch.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/machine.h"
#include "engine/output.h"

namespace plumb {

struct WatchOptions {
  std::string root = "/";
  int pid = 0;
  std::string nvml_lib;
  std::string gpu_script;
  std::string config;
  std::string interval = "1s";
  std::string duration;
  std::string record;
  std::size_t keep = 3600;
  OutputOptions output;
};


int run_watch(const WatchOptions& a);

}  // namespace plumb
