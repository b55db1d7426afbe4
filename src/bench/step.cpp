// step: runs the embedded training-step script with the user's Python (argv, deadline, no shell)
// over a sweep of DataLoader settings and reports s/step per setting and the best one.
#include "bench/step.h"

#include <algorithm>
#include <cmath>

#include "bench/bench.h"
#include "bench/context.h"
#include "bench/stats.h"
#include "bench/step_script.h"
#include "core/json.h"
#include "core/subprocess.h"
#include "core/text.h"

namespace plumb {

namespace {
StepSetting step_setting(int num_workers, bool pin_memory, int prefetch_factor) {
  StepSetting s;
  s.num_workers = num_workers;
  s.pin_memory = pin_memory;
  s.prefetch_factor = prefetch_factor;
  return s;
}
}  // namespace

std::vector<StepSetting> step_sweep(const std::vector<int>& workers, int cpus, bool gpu) {
  std::vector<int> w = workers;
  if (w.empty()) {
    w.push_back(0);
    for (int n = 2; n <= std::max(2, cpus); n *= 2) w.push_back(n);
  }
  std::vector<StepSetting> out;
  for (int n : w) {
    if (n < 0) continue;
    for (bool pin : gpu ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
      if (n == 0) {
        out.push_back(step_setting(0, pin, 0));
        continue;
      }
      for (int pf : {2, 4}) out.push_back(step_setting(n, pin, pf));
    }
  }
  return out;
}

std::string step_key(const StepSetting& s) {
  return "nw" + std::to_string(s.num_workers) + ".pin" + (s.pin_memory ? "1" : "0") + ".pf" + std::to_string(s.prefetch_factor);
}

Result<StepOutput> parse_step_output(std::string_view out) {
  auto lines = split_lines(out);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    auto line = trim(*it);
    if (line.empty() || line.front() != '{') continue;
    json j = parse_outside_json(line).value_or(json());
    if (!j.is_object() || !j.contains("plumb_step")) continue;
    if (j.contains("error") && j["error"].is_string()) {
      return make_error(ErrorKind::unsupported, "step script: " + j["error"].get<std::string>());
    }
    StepOutput o;
    auto str = [&](const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string(); };
    // Clamped: a garbage number must not overflow the int it is cast to.
    auto num = [&](const json& x, const char* k) {
      double v = x.contains(k) && x[k].is_number() ? x[k].get<double>() : 0.0;
      return std::isfinite(v) ? std::clamp(v, -1e9, 1e9) : 0.0;
    };
    o.torch = str("torch");
    o.cuda = str("cuda");
    o.device = str("device");
    o.python = str("python");
    o.image = static_cast<int>(num(j, "image"));
    o.batch = static_cast<int>(num(j, "batch"));
    o.threads = static_cast<int>(num(j, "threads"));
    if (!j.contains("results") || !j["results"].is_array()) return make_error(ErrorKind::invalid, "step script: no results array");
    for (const auto& r : j["results"]) {
      if (!r.is_object()) return make_error(ErrorKind::invalid, "step script: a result is not an object");
      StepSetting s;
      s.num_workers = static_cast<int>(num(r, "num_workers"));
      s.pin_memory = r.contains("pin_memory") && r["pin_memory"].is_boolean() && r["pin_memory"].get<bool>();
      s.prefetch_factor = static_cast<int>(num(r, "prefetch_factor"));
      s.warmup_steps = static_cast<int>(std::max(0.0, num(r, "warmup_steps")));
      s.steps_per_sample = static_cast<int>(std::max(1.0, num(r, "steps_per_sample")));
      if (r.contains("step_s") && r["step_s"].is_array()) {
        for (const auto& v : r["step_s"]) {
          if (v.is_number() && v.get<double>() > 0 && std::isfinite(v.get<double>())) s.step_s.push_back(v.get<double>());
        }
      }
      if (s.step_s.empty()) return make_error(ErrorKind::invalid, "step script: setting " + step_key(s) + " has no step times");
      o.results.push_back(std::move(s));
    }
    if (o.results.empty()) return make_error(ErrorKind::invalid, "step script: empty results");
    return o;
  }
  return make_error(ErrorKind::invalid, "step script printed no result line");
}

namespace {

Result<BenchResult> run_step(const Context& ctx, const BenchOptions& o) {
  std::string python = !o.python.empty() ? o.python : (!ctx.python.empty() ? ctx.python : "python3");
  int cpus = usable_cpus(ctx.root);
  bool gpu = ctx.root.exists("/proc/driver/nvidia/gpus") || ctx.root.exists("/dev/nvidia0");
  auto sweep = step_sweep(o.workers, cpus, gpu);
  json cfg;
  cfg["steps"] = o.steps > 0 ? o.steps : (o.quick ? 5 : 20);
  cfg["warmup"] = std::max(1, o.warmup);
  if (o.size_bytes > 0) cfg["image"] = std::min<std::uint64_t>(o.size_bytes, 512);
  cfg["settings"] = json::array();
  for (const auto& s : sweep) {
    cfg["settings"].push_back({{"num_workers", s.num_workers}, {"pin_memory", s.pin_memory}, {"prefetch_factor", s.prefetch_factor}});
  }
  RunOptions ro;
  ro.timeout = std::chrono::seconds(o.timeout_s > 0 ? o.timeout_s : 600);
  Progress prog(o.progress, "step");
  prog.update("running " + python + " (" + std::to_string(sweep.size()) + " settings)");
  auto run = run_program({python, "-c", kStepScript, cfg.dump()}, ro);
  if (!run) {
    if (run.error().kind == ErrorKind::absent) return skipped_result("step", "Python interpreter not found: " + python);
    return make_error(run.error().kind, "step: " + run.error().message);
  }
  auto parsed = parse_step_output(run->out);
  if (!parsed) {
    if (parsed.error().kind == ErrorKind::unsupported) return skipped_result("step", parsed.error().message + " (" + python + ")");
    std::string err = first_line(run->err);
    return make_error(ErrorKind::io, "step: " + python + " exited with " + std::to_string(run->exit_code) + ": " +
                                         (err.empty() ? parsed.error().message : err));
  }
  BenchResult r;
  r.params["python"] = python;
  r.params["steps"] = std::to_string(cfg["steps"].get<int>());
  r.params["image"] = std::to_string(parsed->image);
  r.params["batch"] = std::to_string(parsed->batch);
  r.notes["torch"] = parsed->torch;
  r.notes["cuda"] = parsed->cuda.empty() ? "none (CPU build)" : parsed->cuda;
  r.notes["device"] = parsed->device;
  r.notes["torch_threads"] = std::to_string(parsed->threads);
  r.notes["model"] = "3 conv layers + BN + ReLU, global pool, linear; SGD; synthetic images (CPU work per item)";
  r.notes["sampling"] =
      "a sample is the mean step time over num_workers consecutive steps (at least 1), after "
      "max(--warmup, num_workers x prefetch_factor + 1) untimed steps";
  r.context.versions["torch"] = parsed->torch;
  r.context.versions["python"] = parsed->python;
  std::size_t best = 0;
  std::vector<double> medians;
  for (std::size_t i = 0; i < parsed->results.size(); ++i) {
    const auto& s = parsed->results[i];
    BenchMetric m = make_metric("step." + step_key(s), "s/step", false, s.step_s);
    BenchRow row;
    row.setting = {{"num_workers", std::to_string(s.num_workers)},
                   {"pin_memory", s.pin_memory ? "true" : "false"},
                   {"prefetch_factor", s.prefetch_factor > 0 ? std::to_string(s.prefetch_factor) : "-"}};
    row.values = {{"s_per_step", m.median},
                  {"cv_pct", m.cv_pct},
                  {"warmup_steps", static_cast<double>(s.warmup_steps)},
                  {"steps_per_sample", static_cast<double>(s.steps_per_sample)}};
    r.rows.push_back(row);
    medians.push_back(m.median);
    if (m.median < medians[best]) best = i;
    r.metrics.push_back(std::move(m));
  }
  BenchMetric b = r.metrics[best];
  b.name = "step.best";
  r.metrics.insert(r.metrics.begin(), b);
  const auto& bs = parsed->results[best];
  r.derived["best_num_workers"] = bs.num_workers;
  r.derived["best_pin_memory"] = bs.pin_memory ? 1 : 0;
  r.derived["best_prefetch_factor"] = bs.prefetch_factor;
  r.derived["best_s_per_step"] = medians[best];
  // The PyTorch default (num_workers=0) against the best: what tuning the loader is worth.
  for (std::size_t i = 0; i < parsed->results.size(); ++i) {
    if (parsed->results[i].num_workers == 0 && !parsed->results[i].pin_memory) {
      r.derived["default_s_per_step"] = medians[i];
      if (medians[i] > 0) r.derived["default_slower_pct"] = 100.0 * (medians[i] - medians[best]) / medians[best];
    }
  }
  return r;
}


}  // namespace
void bench_step_tables(BenchTables& b) {
  b.add_bench({"step",
                                   {"training-step time of a small conv model over DataLoader settings (PyTorch)",
                                    "小型卷积模型在不同 DataLoader 设置下的单步训练耗时（PyTorch）"},
                                   {"[--python PATH] [--workers 0,2,4] [--steps N] [--timeout S]",
                                    "[--python 路径] [--workers 0,2,4] [--steps N] [--timeout 秒]"},
                                   false, false, false, run_step});
}

}  // namespace plumb
