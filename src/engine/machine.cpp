// Building a Context from command-line options, with one-line errors for bad input.
#include "engine/machine.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>

#include "engine/output.h"
#include "core/duration.h"

namespace plumb {

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
  if (!o.kmsg.empty()) {
    if (::stat(o.kmsg.c_str(), &st) != 0 || ::access(o.kmsg.c_str(), R_OK) != 0) {
      throw UsageError("--kmsg " + o.kmsg + ": cannot read (" + errno_text(errno) + ")");
    }
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
      throw UsageError("--kmsg " + o.kmsg + ": not a file: give a saved kernel log (dmesg output) or /dev/kmsg");
    }
  }
  ctx.kmsg_file = o.kmsg;
  for (const auto& d : o.data) {
    if (d.empty() || d.front() != '/') throw UsageError("--data " + d + ": give an absolute path");
    // On this machine, in plumb's own mount namespace, a path the job would read exists; a --pid
    // process or a --root tree sees paths of its own, judged by the data checks.
    if (ctx.root.is_live() && ctx.pid == 0 && ::stat(d.c_str(), &st) != 0) {
      throw UsageError("--data " + d + ": " + errno_text(errno));
    }
  }
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
