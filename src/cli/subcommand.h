// Subcommand registry: each cli/cmd_*.cpp registers its name, one-line help and a setup function
// that adds its options to CLI11 and returns the function to run after parsing.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/i18n.h"
#include "report/report.h"

namespace plumb {

struct SubcommandInfo {
  std::string name;
  std::string help;
  int order = 100;  // position in `plumb --help`
  std::function<std::function<int()>(CLI::App&)> setup;
};
bool register_subcommand(SubcommandInfo s);
const std::vector<SubcommandInfo>& subcommands();

// Thrown by subcommands for "plumb could not run" conditions: main prints one line, exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Options shared by every subcommand that prints a report.
struct OutputOptions {
  std::string format = "term";
  std::string lang;
  std::string out;  // write atomically to this file instead of stdout
};
void add_output_options(CLI::App& app, OutputOptions& o, const std::string& default_format = "term");
// Renders and writes (stdout or --out). Throws UsageError for an unknown format or unwritable file.
void emit(const Report& r, const OutputOptions& o);
// Writes text to --out atomically or to stdout.
void write_output(const std::string& text, const std::string& out);
RenderOptions render_options(const OutputOptions& o);

}  // namespace plumb
