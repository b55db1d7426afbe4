// Runs a program with an argument vector (never a shell) under a deadline, capturing output.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace plumb {

struct RunOptions {
  std::chrono::milliseconds timeout{10000};
  std::size_t max_output = 16u << 20;              // per stream; more is cut and flagged
  std::optional<std::map<std::string, std::string>> env;  // replaces the environment when set
  std::map<std::string, std::string> extra_env;    // added to the inherited environment
  std::string stdin_data;
};

struct RunOutput {
  int exit_code = -1;     // -1 when killed by a signal
  int signal = 0;
  bool timed_out = false;
  bool truncated = false;
  std::string out;
  std::string err;
};

// Errors: absent (program not found), timed_out (killed at the deadline; partial output kept
// in the message), io (pipe/spawn failures).
Result<RunOutput> run_program(const std::vector<std::string>& argv, const RunOptions& opts = {});

// First line of the program's stderr (or stdout), for one-line error messages.
std::string first_line(const std::string& s);

// The path of the running executable (/proc/self/exe, the process's own, not under --root); empty
// when it cannot be read.
std::string self_executable();

}  // namespace plumb
