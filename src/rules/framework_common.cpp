// Helpers shared by the framework-layer rules.
#include "rules/framework_common.h"

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

std::optional<LoadedLibrary> loaded_library(const Facts& /*f*/, std::string_view /*name*/, std::string& why) {
  // Wiring point: the GPU layer (issue 3) is adding the cuDNN/NCCL copies a process maps
  // (/proc/N/maps) to core/facts/gpu.h; read them here once their field names are merged.
  why = "library facts not collected";
  return std::nullopt;
}

}  // namespace plumb
