// The `step` benchmark's pure parts: the sweep of DataLoader settings and the parser of the
// script's JSON output (outside data: a fuzz target covers it).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace plumb {

struct StepSetting {
  int num_workers = 0;
  bool pin_memory = false;
  int prefetch_factor = 0;  // 0 when num_workers == 0 (PyTorch refuses it then)
  int warmup_steps = 0;      // untimed steps first (0: not reported by the script)
  int steps_per_sample = 1;  // each value of step_s is the mean over this many consecutive steps
  std::vector<double> step_s;
};

struct StepOutput {
  std::string torch, cuda, device, python;
  int image = 0, batch = 0, threads = 0;
  std::vector<StepSetting> results;
};

// num_workers values (given, or 0, 2, 4, ... up to the allowed CPUs) × pin_memory (both only when
// a GPU is used) × prefetch_factor {2, 4} for workers > 0.
std::vector<StepSetting> step_sweep(const std::vector<int>& workers, int cpus, bool gpu);
// The last line of stdout that parses as the script's JSON object. Errors name the problem.
Result<StepOutput> parse_step_output(std::string_view out);
// "nw2.pin1.pf4": the metric key of a setting.
std::string step_key(const StepSetting& s);

}  // namespace plumb
