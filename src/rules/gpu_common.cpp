// Folding of per-GPU verdicts into findings (see gpu_common.h).
#include "rules/gpu_common.h"

#include <map>

namespace plumb::gpu_rules {

std::string subject_of(const GpuDevice& d) {
  if (!d.bus_id.empty()) return "gpu " + d.bus_id;
  if (!d.uuid.empty()) return "gpu " + d.uuid;
  return "gpu #" + std::to_string(d.nvml_index) + " (NVML index)";
}

std::string layer_missing(const GpuFacts& g) {
  if (!g.collected) return "the GPU collector did not run";
  if (!g.unavailable.empty()) return g.unavailable;
  return {};
}

std::vector<Finding> per_gpu(const std::string& id, const GpuFacts& g,
                             const std::function<Judged(const GpuDevice&)>& fn, const std::string& threshold) {
  std::string why = layer_missing(g);
  if (!why.empty()) return {skipped(id, why)};
  std::vector<Finding> out;
  std::vector<std::pair<std::string, std::string>> missing;  // subject, reason
  int ok = 0, usable = 0;
  std::string details;
  for (const auto& d : g.devices) {
    if (!d.lost.empty()) continue;  // reported once by l3.gpu.device_lost
    ++usable;
    Judged j = fn(d);
    switch (j.kind) {
      case Judged::ok:
        ++ok;
        // Distinct values only: "36 °C, 39 °C" rather than one entry per GPU.
        if (!j.detail.empty() && (", " + details + ", ").find(", " + j.detail + ", ") == std::string::npos) {
          details += (details.empty() ? "" : ", ") + j.detail;
        }
        break;
      case Judged::missing: missing.emplace_back(subject_of(d), j.why); break;
      case Judged::problem: {
        Finding f = std::move(j.finding);
        f.id = id;
        f.subject = subject_of(d);
        if (f.threshold.empty()) f.threshold = threshold;
        f.args.emplace("gpu", d.bus_id.empty() ? subject_of(d) : d.bus_id);
        out.push_back(std::move(f));
        break;
      }
    }
  }
  if (usable == 0) {
    return {skipped(id, g.devices.empty() ? "NVML reports no GPU" : "no GPU could be queried (see l3.gpu.device_lost)")};
  }
  std::map<std::string, int> reasons;
  for (const auto& [s, r] : missing) ++reasons[r];
  if (!missing.empty() && reasons.size() == 1 && static_cast<int>(missing.size()) == usable) {
    out.push_back(skipped(id, missing.front().second));
  } else {
    for (const auto& [s, r] : missing) out.push_back(skipped(id, r, s));
  }
  if (ok > 0) {
    Finding p;
    p.id = id;
    p.status = Status::pass;
    p.threshold = threshold;
    p.arg("count", std::to_string(ok));
    p.arg("detail", details.empty() ? "-" : details);
    out.push_back(std::move(p));
  }
  return out;
}

std::string mib(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

}  // namespace plumb::gpu_rules
