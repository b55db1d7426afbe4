// Building a Context from command-line options, with one-line errors for bad input.
#include "cli/check_options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>

#include "cli/subcommand.h"
#include "core/duration.h"

namespace plumb {

void add_machine_options(CLI::App& app, MachineOptions& o, unsigned flags) {
  app.add_option("--root", o.root, "read /proc, /sys, /dev, /etc, /run under DIR (a fixture tree)")->capture_default_str();
  if ((flags & kPidFlag) != 0) {
    app.add_option("--pid", o.pid, "inspect running process N (environ, cgroup, limits, libraries) instead of plumb");
  }
  if ((flags & kKmsgFlag) != 0) app.add_option("--kmsg", o.kmsg, "read kernel log lines from FILE instead of /dev/kmsg");
  if ((flags & kDataFlag) != 0) app.add_option("--data", o.data, "dataset path to check (file system type, device); repeatable");
  app.add_option("--nvml-lib", o.nvml_lib, "NVML library to load (default: PLUMB_NVML_LIB or libnvidia-ml.so.1)");
  if ((flags & kPythonFlag) != 0) {
    app.add_option("--python", o.python, "Python interpreter for the framework probe (default: python3 on PATH)");
  }
  if ((flags & kModelRepoFlag) != 0) {
    app.add_option("--model-repo", o.model_repo, "Triton model repository DIR to lint (config.pbtxt of each model)");
  }
  if ((flags & kCudaContextFlag) != 0) {
    app.add_option("--cuda-context", o.cuda_context,
                   "where the CUDA device query creates a context and copies 1 MiB: idle (GPUs no other process "
                   "computes on), always, never")
        ->check(CLI::IsMember({"idle", "always", "never"}))
        ->capture_default_str();
  }
  app.add_option("--config", o.config, "TOML file overriding thresholds (see --print-config)");
  // Durations take a unit like everywhere else (500ms, 2s, 1m); a bare number keeps its old unit,
  // milliseconds, so existing scripts and `plumb fleet`'s ranks read the same.
  app.add_option("--timeout", o.timeout_ms, "deadline per collector: 500ms, 2s, 1m (a bare number is milliseconds)")
      ->capture_default_str()
      ->transform(
          [](std::string s) {
            if (!s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) return s;
            auto d = watch::parse_duration(s);
            if (!d) throw CLI::ValidationError("--timeout", d.error().message);
            return std::to_string(d->count());
          },
          "DURATION");
}

Config load_config_or_throw(const std::string& path) {
  // PLUMB_NO_DEFAULT_CONFIG=1 reads only --config (tests, and runs that must not depend on the host).
  const char* off = std::getenv("PLUMB_NO_DEFAULT_CONFIG");  // NOLINT(concurrency-mt-unsafe)
  Config cfg;
  if (off == nullptr || std::string(off) != "1") {
    for (const auto& p : default_config_paths()) {
      struct stat st {};
      if (::stat(p.c_str(), &st) != 0) continue;  // absent: nothing to read
      auto c = load_config(p, cfg);
      if (!c) throw UsageError(c.error().message);
      cfg = std::move(c.value());
    }
  }
  if (path.empty()) return cfg;
  auto c = load_config(path, cfg);
  if (!c) throw UsageError(c.error().message);
  return std::move(c.value());
}

Context make_context(const MachineOptions& o) {
  Context ctx;
  struct stat st {};
  if (::stat(o.root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw UsageError("--root " + o.root + ": not a directory");
  }
  ctx.root = HostRoot(o.root);
  if (o.pid < 0) throw UsageError("--pid must be a positive process id");
  if (o.pid > 0 && !ctx.root.exists("/proc/" + std::to_string(o.pid))) {
    throw UsageError("--pid " + std::to_string(o.pid) + ": no such process under " + o.root + "/proc");
  }
  ctx.pid = o.pid;
  if (!o.kmsg.empty() && ::access(o.kmsg.c_str(), R_OK) != 0) throw UsageError("--kmsg " + o.kmsg + ": cannot read");
  ctx.kmsg_file = o.kmsg;
  ctx.data_paths = o.data;
  if (!o.model_repo.empty() && (::stat(o.model_repo.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))) {
    throw UsageError("--model-repo " + o.model_repo + ": not a directory");
  }
  ctx.model_repo = o.model_repo;
  ctx.nvml_lib = o.nvml_lib;
  if (ctx.nvml_lib.empty()) {
    const char* env = std::getenv("PLUMB_NVML_LIB");  // NOLINT(concurrency-mt-unsafe)
    if (env != nullptr) ctx.nvml_lib = env;
  }
  ctx.python = o.python;
  ctx.cuda_context = o.cuda_context;
  if (o.timeout_ms <= 0) throw UsageError("--timeout must be positive");
  ctx.deadline = std::chrono::milliseconds(o.timeout_ms);
  return ctx;
}

Selection make_selection(const std::vector<std::string>& only, const std::vector<std::string>& skip,
                         const std::vector<std::string>& config_skip) {
  Selection sel;
  auto split = [](const std::vector<std::string>& in, std::vector<std::string>& out) {
    for (const auto& item : in) {
      std::size_t b = 0;
      while (b <= item.size()) {
        auto e = item.find(',', b);
        std::string part = item.substr(b, e == std::string::npos ? std::string::npos : e - b);
        if (!part.empty()) out.push_back(part);
        if (e == std::string::npos) break;
        b = e + 1;
      }
    }
  };
  split(only, sel.only);
  split(skip, sel.skip);
  split(config_skip, sel.skip);
  auto bad = unknown_selectors(sel);
  if (!bad.empty()) throw UsageError(bad.front());
  return sel;
}

std::string host_name(const HostRoot& root) {
  auto h = root.read_value("/proc/sys/kernel/hostname");
  if (h && !h->empty()) return *h;
  auto e = root.read_value("/etc/hostname");
  if (e && !e->empty()) return *e;
  return "unknown";
}

}  // namespace plumb
