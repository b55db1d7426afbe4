// The subcommand table (cli/commands.cpp): each command's name, one-line help and a setup function
// that adds its options to CLI11 and returns the function to run after parsing.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/options.h"

namespace plumb {

// What a command's setup returns: the function that runs it once its options are parsed.
using CommandRun = std::function<int()>;

struct SubcommandInfo {
  std::string name;
  std::string help;
  CommandRun (*setup)(CLI::App&);
  bool reads_every_command = false;  // its runner walks every command's options (man, completion)
};
// Every command, in the order `plumb --help` lists them.
const std::vector<SubcommandInfo>& subcommands();

}  // namespace plumb
