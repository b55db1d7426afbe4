// Options shared by `plumb check` and the subcommands that collect from a machine.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/context.h"
#include "core/iso_time.h"  // now_iso8601, for the subcommands that stamp their reports
#include "core/registry.h"
#include "core/thresholds.h"

namespace plumb {

struct MachineOptions {
  std::string root = "/";
  int pid = 0;
  std::string kmsg;
  std::vector<std::string> data;
  std::string nvml_lib;
  std::string python;
  std::string model_repo;
  std::string config;
  int timeout_ms = 5000;
};
void add_machine_options(CLI::App& app, MachineOptions& o);
// Validates the options (root exists, pid exists, config parses) and builds the Context.
// Throws UsageError with a one-line reason.
Context make_context(const MachineOptions& o);
Config load_config_or_throw(const std::string& path);
// Splits "a,b" items of repeated --only/--skip options and checks them against the registries.
Selection make_selection(const std::vector<std::string>& only, const std::vector<std::string>& skip,
                         const std::vector<std::string>& config_skip);
std::string host_name(const HostRoot& root);

}  // namespace plumb
