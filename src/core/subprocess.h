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

// A child started by spawn_program whose output finish_program reads. One dropped unfinished is
// killed (its whole process group) and reaped, so an abandoned start leaves no process behind.
class Spawned {
 public:
  Spawned(Spawned&& o) noexcept;
  Spawned& operator=(Spawned&& o) noexcept;
  Spawned(const Spawned&) = delete;
  Spawned& operator=(const Spawned&) = delete;
  ~Spawned();
  [[nodiscard]] std::chrono::steady_clock::time_point started_at() const { return started_; }
  [[nodiscard]] int pid() const { return pid_; }  // -1 once reaped

 private:
  Spawned() = default;
  void release();
  friend Result<Spawned> spawn_program(const std::vector<std::string>& argv, const RunOptions& opts);
  friend Result<RunOutput> finish_program(Spawned& child, const RunOptions& opts);
  int pid_ = -1;
  int out_ = -1, err_ = -1;
  int pidfd_ = -1;  // -1 where pidfd_open is unavailable: the exit is then polled
  std::string name_;
  std::chrono::steady_clock::time_point started_{};
};

// run_program in two halves: start the program now (stdin fed, opts.env/extra_env applied), read
// its output later. finish_program's deadline is opts.timeout after the start, not after its own
// call; it may be called once.
Result<Spawned> spawn_program(const std::vector<std::string>& argv, const RunOptions& opts = {});
Result<RunOutput> finish_program(Spawned& child, const RunOptions& opts = {});

// Kills the process group of every child started by spawn_program and not yet reaped. Async-signal
// safe: plumb's handler of SIGTERM, SIGINT and SIGHUP calls it before it dies of the signal (a
// child runs in a process group of its own, so the signal does not reach it), and so does the way
// out past a deadline.
void kill_live_children();

// First line of the program's stderr (or stdout), for one-line error messages.
std::string first_line(const std::string& s);

// The path of the running executable (/proc/self/exe, the process's own, not under --root); empty
// when it cannot be read.
std::string self_executable();

}  // namespace plumb
