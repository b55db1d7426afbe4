// Shared shape of the per-GPU rules: problems one finding per GPU, healthy GPUs folded into one
// pass, missing inputs a skip with the reason (one for the node when every GPU lacks it alike).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/facts.h"
#include "core/finding.h"
#include "core/registry.h"
#include "core/text.h"

namespace plumb::gpu_rules {

// "gpu 0000:3b:00.0", or the NVML index when the bus id could not be read.
std::string subject_of(const GpuDevice& d);

// Why the GPU layer cannot be judged at all ("" when it can).
std::string layer_missing(const GpuFacts& g);

struct Judged {
  enum Kind { ok, problem, missing } kind = ok;
  Finding finding;    // for problem: status, variant, args, evidence, threshold (id/subject filled in)
  std::string why;    // for missing
  std::string detail; // for ok: a short value for the pass line ("39 °C")
  static Judged pass(std::string detail = {}) { return {ok, {}, {}, std::move(detail)}; }
  static Judged skip(std::string why) { return {missing, {}, std::move(why), {}}; }
};

// Runs `fn` on every GPU that can be queried and folds the results as described above.
std::vector<Finding> per_gpu(const std::string& id, const GpuFacts& g,
                             const std::function<Judged(const GpuDevice&)>& fn, const std::string& threshold = {});

// Formatting helpers for evidence values.
std::string mib(std::uint64_t bytes);
std::string cuda_version_text(int v);  // 12020 -> "12.2"

}  // namespace plumb::gpu_rules
