// Helpers shared by the framework-layer rules.
#include "rules/framework_common.h"

#include <algorithm>

#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

std::optional<EnvValue> job_env(const Facts& f, const std::string& key) {
  const auto& proc = f.host.process.environ;
  if (proc.has()) {
    auto it = proc->find(key);
    if (it != proc->end()) return EnvValue{it->second, proc.source};
  }
  const auto& probe = f.framework.env;
  if (probe.has()) {
    auto it = probe->find(key);
    if (it != probe->end()) return EnvValue{it->second, probe.source};
  }
  return std::nullopt;
}

bool job_env_known(const Facts& f) { return f.host.process.environ.has() || f.framework.env.has(); }

std::string job_env_why(const Facts& f) {
  return "process environment: " + f.host.process.environ.why() + "; probe: " + f.framework.env.why();
}

std::optional<CudaVersion> parse_cuda_version(std::string_view s) {
  auto parts = split(trim(s), '.');
  if (parts.size() < 2) return std::nullopt;
  auto ma = parse_int(parts[0]), mi = parse_int(parts[1]);
  if (!ma || !mi || *ma < 1 || *ma > 99 || *mi < 0 || *mi > 99) return std::nullopt;
  return CudaVersion{static_cast<int>(*ma), static_cast<int>(*mi)};
}

CudaVersion decode_cuda_int(int v) { return {v / 1000, (v % 1000) / 10}; }

std::string to_string(const CudaVersion& v) { return std::to_string(v.major) + "." + std::to_string(v.minor); }

std::vector<LoadedLibrary> loaded_libraries(const Facts& f, std::string_view lib, std::string& why) {
  const auto& c = f.gpu.cuda;
  if (!c.collected) {
    why = "the CUDA library search (collect.cuda) did not run";
    return {};
  }
  if (!c.pid_maps_read) {
    why = c.pid_maps_why.empty() ? std::string("no --pid given") : c.pid_maps_why;
    return {};
  }
  const std::string maps = "/proc/" + std::to_string(c.pid) + "/maps";  // shown path; read under root by collect.cuda
  std::vector<LoadedLibrary> out;
  for (const auto& copy : c.copies) {
    if (copy.lib != lib || !copy.mapped) continue;
    LoadedLibrary l;
    l.path = copy.real_path;
    l.deleted = copy.origin == "process maps (deleted)";
    if (copy.version.has()) {
      l.version = *copy.version;
      l.source = maps + "; version: " + copy.version.source;
    } else {
      l.version_why = copy.version.why();
      l.source = maps;
    }
    out.push_back(std::move(l));
  }
  if (out.empty()) {
    why = "pid " + std::to_string(c.pid) + " maps no lib" + std::string(lib) +
          " (not loaded yet, or linked statically into the framework)";
  }
  return out;
}

std::vector<LoadedLibrary> probe_mapped_libraries(const Facts& f, std::string_view lib) {
  std::vector<LoadedLibrary> out;
  const auto& t = f.framework.torch;
  if (!t.has()) return out;
  for (const auto& m : t->mapped_libs) {
    if (m.lib != lib) continue;
    LoadedLibrary l;
    l.path = m.path;
    l.deleted = m.deleted;
    l.version = m.version;
    l.version_why = m.error;
    l.source = t.source + ": maps after import torch; version: " +
               (lib == "nccl" ? std::string("ncclGetVersion") : std::string("cudnnGetVersion"));
    out.push_back(std::move(l));
  }
  return out;
}

std::optional<bool> same_version(std::string_view a, std::string_view b, int depth) {
  auto pa = split(trim(a), '.'), pb = split(trim(b), '.');
  const std::size_t n = std::min({pa.size(), pb.size(), static_cast<std::size_t>(depth < 1 ? 1 : depth)});
  if (pa.empty() || pb.empty()) return std::nullopt;
  for (std::size_t i = 0; i < n; ++i) {
    auto x = parse_int(pa[i]), y = parse_int(pb[i]);
    if (!x || !y) return std::nullopt;
    if (*x != *y) return false;
  }
  return true;
}

}  // namespace plumb
