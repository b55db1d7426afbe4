// `plumb exporter`: its options and its pipeline (engine/exporter.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/machine.h"

namespace plumb {

struct ExporterOptions {
  MachineOptions machine;
  std::string listen = "127.0.0.1:9464";
  std::string interval = "5s";
  std::string check_interval = "10m";
  std::string gpu_script;
  bool no_check = false;
  std::size_t max_connections = 64;
  std::string lang;
};


int run_exporter(const ExporterOptions& a);

}  // namespace plumb
