// L2 watch rules: judge the time series in Facts::watch with the detectors of watch/analysis.h.
// Without a watch (plain `plumb check`) they return nothing: runtime behaviour was not observed.
#include <algorithm>
#include <map>
#include <set>

#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "analyze/series.h"
#include "core/knowledge/throttle.h"
#include "rules/watch_next.h"
#include "core/tables.h"

namespace plumb {
namespace {

using watch::mean;

// Evidence sources as shown in reports (the reads themselves went through the root in the sampler).
constexpr const char* kProcStat = "/proc/stat";            // shown path; read via root by HostSampler
constexpr const char* kProcPressureIo = "/proc/pressure/io";  // shown path; read via root by HostSampler
std::string proc_stat_of(int pid) { return "/proc/" + std::to_string(pid) + "/stat"; }  // shown; read via root
using watch::percentile;

std::string pct_text(double v) { return fmt_num(v, 1); }

// The samples of one GPU, in time order, keyed by bus id.
struct GpuSeries {
  std::string bus_id, uuid, name;
  std::vector<const WatchSample*> samples;
  std::vector<const WatchGpu*> gpu;
};

std::vector<GpuSeries> gpu_series(const WatchFacts& w) {
  std::vector<GpuSeries> out;
  std::map<std::string, std::size_t> index;
  for (const auto& s : w.samples) {
    for (const auto& g : s.gpus) {
      auto [it, fresh] = index.emplace(g.bus_id, out.size());
      if (fresh) out.push_back({g.bus_id, g.uuid, g.name, {}, {}});
      out[it->second].samples.push_back(&s);
      out[it->second].gpu.push_back(&g);
    }
  }
  return out;
}

std::string series_subject(const GpuSeries& s) { return "gpu " + s.bus_id; }

// Is a job running on this GPU at this sample? With --pid: the process is alive. Without: the
// GPU holds at least watch.gpu_job_memory_mib of VRAM (a CUDA context alone holds less).
bool job_running(const WatchFacts& w, const WatchSample& s, const WatchGpu& g, const Thresholds& th) {
  if (w.target_pid > 0) return s.proc_running.value_or(false);
  return g.mem_used_bytes && static_cast<double>(*g.mem_used_bytes) >= th.get("watch.gpu_job_memory_mib") * 1048576.0;
}

std::string nvml_source(const WatchFacts& w, const char* call, const std::string& bus) {
  if (w.gpu_source.rfind("script", 0) == 0) return w.gpu_source + " (" + bus + ")";
  return std::string(call) + "(gpu " + bus + ")";
}

Finding base(const char* id, Status st, std::string subject) {
  Finding f;
  f.id = id;
  f.status = st;
  f.subject = std::move(subject);
  f.arg("next", next_checks_command(id));
  return f;
}

// No GPU data at all: one skip naming why.
std::vector<Finding> no_gpu(const char* id, const WatchFacts& w) {
  return {skipped(id, w.gpu_unavailable.empty() ? std::string("no GPU was sampled") : w.gpu_unavailable)};
}

std::vector<Finding> judge_summary(const Facts& f, const Thresholds&) {
  const auto& w = f.watch;
  if (!w.collected) return {};
  Finding r = base("l2.watch.summary", Status::info, "host");
  double dur = w.samples.size() >= 2 ? w.samples.back().t_s - w.samples.front().t_s : 0;
  std::set<std::string> gpus;
  for (const auto& s : w.samples) for (const auto& g : s.gpus) gpus.insert(g.bus_id);
  r.arg("duration", fmt_num(dur, 1));
  r.arg("samples", std::to_string(w.samples.size()));
  r.arg("interval", fmt_num(w.interval_s, 3));
  r.arg("gpus", std::to_string(gpus.size()));
  r.arg("gpu_source", w.gpu_source.empty() ? (w.gpu_unavailable.empty() ? "none" : w.gpu_unavailable) : w.gpu_source);
  std::string unreadable;
  for (const auto& u : w.unreadable) unreadable += "; " + u;
  r.arg("unreadable", unreadable);
  if (w.samples_dropped > 0) r.add("samples dropped (ring full)", std::to_string(w.samples_dropped), "plumb watch");
  return {r};
}

std::vector<Finding> judge_gpu_busy(const Facts& f, const Thresholds& th) {
  const char* id = "l2.compute.gpu_underutilized";
  const auto& w = f.watch;
  if (!w.collected) return {};
  auto series = gpu_series(w);
  if (series.empty()) return no_gpu(id, w);
  std::vector<Finding> out;
  double fail_at = th.get("watch.gpu_busy_fail_pct"), warn_at = th.get("watch.gpu_busy_warn_pct");
  auto min_n = static_cast<std::size_t>(th.get("watch.min_samples"));
  for (const auto& gs : series) {
    std::vector<double> busy;
    bool any_busy = false;
    for (std::size_t i = 0; i < gs.gpu.size(); ++i) {
      if (!gs.gpu[i]->busy_pct) continue;
      any_busy = true;
      if (job_running(w, *gs.samples[i], *gs.gpu[i], th)) busy.push_back(*gs.gpu[i]->busy_pct);
    }
    if (!any_busy) {
      out.push_back(skipped(id, "nvmlDeviceGetUtilizationRates not supported (MIG mode?)", series_subject(gs)));
      continue;
    }
    if (busy.size() < min_n) {
      Finding r = base(id, Status::info, series_subject(gs));
      r.variant = "idle";
      r.arg("reason", w.target_pid > 0 ? "process " + std::to_string(w.target_pid) + " was not running"
                                       : "VRAM in use stayed below " + fmt_num(th.get("watch.gpu_job_memory_mib"), 0) + " MiB");
      out.push_back(r);
      continue;
    }
    double avg = mean(busy), p10 = percentile(busy, 10);
    Status st = avg < fail_at ? Status::fail : (avg < warn_at || p10 < fail_at) ? Status::warn : Status::pass;
    Finding r = base(id, st, series_subject(gs));
    r.variant = std::string("sampled_") + status_name(st);
    if (st == Status::warn && avg >= warn_at) r.variant = "stalls";
    r.arg("avg", pct_text(avg)).arg("p10", pct_text(p10)).arg("n", std::to_string(busy.size())).arg("warn", pct_text(warn_at));
    std::string src = nvml_source(w, "nvmlDeviceGetUtilizationRates", gs.bus_id);
    r.add("average GPU busy", pct_text(avg) + " %", src);
    r.add("p10 GPU busy", pct_text(p10) + " %", src);
    r.add("samples while the job ran", std::to_string(busy.size()), "plumb watch");
    r.threshold = "average >= " + pct_text(warn_at) + " % (fail < " + pct_text(fail_at) + " %), p10 >= " + pct_text(fail_at) + " %";
    out.push_back(r);
  }
  return out;
}

std::vector<Finding> judge_vram_sawtooth(const Facts& f, const Thresholds& th) {
  const char* id = "l2.watch.vram_sawtooth";
  const auto& w = f.watch;
  if (!w.collected) return {};
  auto series = gpu_series(w);
  if (series.empty()) return no_gpu(id, w);
  std::vector<Finding> out;
  auto min_n = static_cast<std::size_t>(th.get("watch.min_samples"));
  for (const auto& gs : series) {
    std::vector<double> t, used;
    std::optional<std::uint64_t> total;
    for (std::size_t i = 0; i < gs.gpu.size(); ++i) {
      if (!gs.gpu[i]->mem_used_bytes) continue;
      t.push_back(gs.samples[i]->t_s);
      used.push_back(static_cast<double>(*gs.gpu[i]->mem_used_bytes));
      if (gs.gpu[i]->mem_total_bytes) total = gs.gpu[i]->mem_total_bytes;
    }
    if (used.size() < min_n) {
      out.push_back(skipped(id, used.empty() ? "nvmlDeviceGetMemoryInfo not supported" : "too few samples (" + std::to_string(used.size()) + ")",
                            series_subject(gs)));
      continue;
    }
    if (!total || *total == 0) {
      out.push_back(skipped(id, "total VRAM unknown", series_subject(gs)));
      continue;
    }
    double min_amp = th.get("watch.sawtooth_min_amplitude_pct") / 100.0 * static_cast<double>(*total);
    auto saw = watch::find_sawtooth(t, used, min_amp);
    bool hit = saw.drops >= static_cast<int>(th.get("watch.sawtooth_min_cycles"));
    Finding r = base(id, hit ? Status::warn : Status::pass, series_subject(gs));
    r.arg("drops", std::to_string(saw.drops)).arg("min_amp", human_bytes(static_cast<std::uint64_t>(min_amp)));
    r.arg("amplitude", human_bytes(static_cast<std::uint64_t>(saw.amplitude)));
    r.arg("amp_pct", pct_text(saw.amplitude * 100.0 / static_cast<double>(*total)));
    r.arg("period", fmt_num(saw.period_s, 1));
    std::string src = nvml_source(w, "nvmlDeviceGetMemoryInfo", gs.bus_id);
    r.add("large VRAM drops", std::to_string(saw.drops), src);
    if (hit) {
      r.add("median drop", human_bytes(static_cast<std::uint64_t>(saw.amplitude)), src);
      r.add("period", fmt_num(saw.period_s, 1) + " s", src);
    }
    r.threshold = "< " + fmt_num(th.get("watch.sawtooth_min_cycles"), 0) + " drops of >= " +
                  fmt_num(th.get("watch.sawtooth_min_amplitude_pct"), 0) + " % of VRAM";
    out.push_back(r);
  }
  return out;
}

std::vector<Finding> judge_cpu_saturated(const Facts& f, const Thresholds& th) {
  const char* id = "l2.compute.cpu_saturated";
  const auto& w = f.watch;
  if (!w.collected) return {};
  std::vector<double> busy;
  std::map<std::size_t, std::vector<double>> cores;
  std::vector<double> proc;
  for (const auto& s : w.samples) {
    if (s.cpu_busy_pct) busy.push_back(*s.cpu_busy_pct);
    for (std::size_t c = 0; c < s.core_busy_pct.size(); ++c) cores[c].push_back(s.core_busy_pct[c]);
    if (s.proc_cpu_pct) proc.push_back(*s.proc_cpu_pct);
  }
  if (busy.size() < static_cast<std::size_t>(th.get("watch.min_samples"))) {
    bool unreadable = std::any_of(w.unreadable.begin(), w.unreadable.end(),
                                  [](const std::string& u) { return u.find(kProcStat) != std::string::npos; });
    return {skipped(id, unreadable ? std::string(kProcStat) + " was not readable"
                                   : "too few samples with CPU time passing (" + std::to_string(busy.size()) + ")")};
  }
  double at = th.get("watch.cpu_saturated_pct"), need = th.get("watch.cpu_saturated_share") / 100.0;
  double share = watch::share_at_least(busy, at);
  Finding r = base(id, Status::pass, "host");
  r.variant = "sampled_pass";
  r.arg("pct", pct_text(at)).arg("n", std::to_string(busy.size())).arg("proc", "");
  r.add("average host CPU busy", pct_text(mean(busy)) + " %", kProcStat);
  r.threshold = "< " + pct_text(at) + " % in less than " + pct_text(need * 100) + " % of samples (host and each core)";
  if (share >= need) {
    r.status = Status::fail;
    r.variant = "sampled_fail";
    r.arg("share", pct_text(share * 100));
    r.add("samples at or above " + pct_text(at) + " %", pct_text(share * 100) + " %", kProcStat);
    return {r};
  }
  // One core pegged while the host is not: a single-threaded stage.
  std::size_t worst = 0;
  double worst_share = -1;
  for (const auto& [c, v] : cores) {
    double s = watch::share_at_least(v, at);
    if (s > worst_share) { worst_share = s; worst = c; }
  }
  if (worst_share >= need) {
    r.status = Status::warn;
    r.variant = "pegged_core";
    r.arg("core", std::to_string(worst)).arg("share", pct_text(worst_share * 100));
    r.add("cpu" + std::to_string(worst) + " samples at or above " + pct_text(at) + " %", pct_text(worst_share * 100) + " %", kProcStat);
    if (!proc.empty()) {
      r.arg("proc", "; process " + std::to_string(w.target_pid) + " averaged " + pct_text(mean(proc)) + " % CPU");
      r.add("process CPU (100 % = one core)", pct_text(mean(proc)) + " %", proc_stat_of(w.target_pid));
    }
    return {r};
  }
  r.arg("share", pct_text(share * 100));
  return {r};
}

std::vector<Finding> judge_io_bound(const Facts& f, const Thresholds& th) {
  const char* id = "l2.watch.io_bound";
  const auto& w = f.watch;
  if (!w.collected) return {};
  double io_at = th.get("watch.io_pressure_pct"), busy_below = th.get("watch.io_bound_gpu_busy_pct");
  std::size_t n = 0, hits = 0, with_gpu = 0;
  double io_max = 0;
  bool any_psi = false;
  for (const auto& s : w.samples) {
    if (!s.psi_io_some_pct) continue;
    any_psi = true;
    std::vector<double> busy;
    for (const auto& g : s.gpus) {
      if (g.busy_pct) busy.push_back(*g.busy_pct);
    }
    if (busy.empty()) continue;
    ++with_gpu;
    ++n;
    io_max = std::max(io_max, *s.psi_io_some_pct);
    if (*s.psi_io_some_pct >= io_at && mean(busy) < busy_below) ++hits;
  }
  if (!any_psi) return {skipped(id, std::string(kProcPressureIo) + " not available (kernel without PSI, or psi=0)")};
  if (with_gpu == 0) return no_gpu(id, w);
  if (n < static_cast<std::size_t>(th.get("watch.min_samples"))) return {skipped(id, "too few samples (" + std::to_string(n) + ")")};
  double share = static_cast<double>(hits) / static_cast<double>(n);
  Finding r = base(id, share >= th.get("watch.io_bound_share") / 100.0 ? Status::fail : Status::pass, "host");
  r.arg("share", pct_text(share * 100)).arg("n", std::to_string(n)).arg("io", pct_text(io_at)).arg("busy", pct_text(busy_below));
  r.arg("io_max", pct_text(io_max));
  r.add("IO-bound samples", pct_text(share * 100) + " %", std::string(kProcPressureIo) + " + GPU busy");
  r.add("peak IO pressure (some)", pct_text(io_max) + " %", kProcPressureIo);
  r.threshold = "< " + fmt_num(th.get("watch.io_bound_share"), 0) + " % of samples with IO pressure >= " + pct_text(io_at) +
                " % and GPU busy < " + pct_text(busy_below) + " %";
  return {r};
}

std::vector<Finding> judge_pcie_imbalance(const Facts& f, const Thresholds& th) {
  const char* id = "l2.watch.pcie_imbalance";
  const auto& w = f.watch;
  if (!w.collected) return {};
  auto series = gpu_series(w);
  if (series.empty()) return no_gpu(id, w);
  std::vector<double> traffic;
  std::vector<const GpuSeries*> who;
  for (const auto& gs : series) {
    std::vector<double> active, all;
    for (std::size_t i = 0; i < gs.gpu.size(); ++i) {
      const auto* g = gs.gpu[i];
      if (!g->pcie_rx_bytes_per_s && !g->pcie_tx_bytes_per_s) continue;
      double v = g->pcie_rx_bytes_per_s.value_or(0) + g->pcie_tx_bytes_per_s.value_or(0);
      all.push_back(v);
      if (job_running(w, *gs.samples[i], *g, th)) active.push_back(v);
    }
    if (all.empty()) continue;
    traffic.push_back(mean(active.empty() ? all : active));
    who.push_back(&gs);
  }
  if (traffic.size() < 2) {
    return {skipped(id, traffic.empty() ? "nvmlDeviceGetPcieThroughput not supported" : "needs two or more GPUs with PCIe counters")};
  }
  double ratio = th.get("watch.pcie_imbalance_ratio");
  double floor = th.get("watch.pcie_imbalance_floor_mbps") * 1e6;
  auto o = watch::find_outlier(traffic, ratio, floor);
  std::string thr = "< " + fmt_num(ratio, 1) + "x the peers' median (ignored below " +
                    fmt_num(th.get("watch.pcie_imbalance_floor_mbps"), 0) + " MB/s)";
  if (!o) {
    Finding r = base(id, Status::pass, "host");
    double max_ratio = 0;
    for (std::size_t i = 0; i < traffic.size(); ++i) {
      std::vector<double> peers;
      for (std::size_t j = 0; j < traffic.size(); ++j) if (j != i) peers.push_back(traffic[j]);
      double m = watch::median(peers);
      if (m > 0) max_ratio = std::max(max_ratio, traffic[i] / m);
    }
    r.arg("gpus", std::to_string(traffic.size())).arg("max_ratio", fmt_num(max_ratio, 1));
    r.threshold = thr;
    return {r};
  }
  const GpuSeries& gs = *who[o->index];
  Finding r = base(id, Status::warn, series_subject(gs));
  r.arg("value", human_bytes(static_cast<std::uint64_t>(o->value))).arg("ratio", fmt_num(o->ratio, 1));
  r.arg("peers", std::to_string(traffic.size() - 1)).arg("peer_median", human_bytes(static_cast<std::uint64_t>(o->peers_median)));
  std::string src = nvml_source(w, "nvmlDeviceGetPcieThroughput", gs.bus_id);
  r.add("PCIe rx+tx (mean)", human_bytes(static_cast<std::uint64_t>(o->value)) + "/s", src);
  r.add("peers' median", human_bytes(static_cast<std::uint64_t>(o->peers_median)) + "/s", "nvmlDeviceGetPcieThroughput (other GPUs)");
  r.threshold = thr;
  return {r};
}

std::vector<Finding> judge_throttling(const Facts& f, const Thresholds&) {
  const char* id = "l2.watch.throttling";
  const auto& w = f.watch;
  if (!w.collected) return {};
  auto series = gpu_series(w);
  if (series.empty()) return no_gpu(id, w);
  std::vector<Finding> out;
  for (const auto& gs : series) {
    std::vector<double> t;
    std::vector<std::uint64_t> hw, sw_thermal, power;
    for (std::size_t i = 0; i < gs.gpu.size(); ++i) {
      if (!gs.gpu[i]->clock_event_reasons) continue;
      std::uint64_t b = *gs.gpu[i]->clock_event_reasons;
      t.push_back(gs.samples[i]->t_s);
      hw.push_back(b & watch::kHardwareThrottle);
      sw_thermal.push_back(b & watch::kSoftwareThermal);
      power.push_back(b & watch::kPowerCap);
    }
    if (t.empty()) {
      out.push_back(skipped(id, "clock event reasons not supported by this driver", series_subject(gs)));
      continue;
    }
    double step = w.interval_s > 0 ? w.interval_s : 0;
    auto describe = [&](const std::vector<watch::Episode>& eps, Finding& r) {
      double secs = 0;
      std::uint64_t bits = 0;
      for (const auto& e : eps) {
        secs += e.end_s - e.start_s + step;
        bits |= e.reasons;
      }
      r.arg("episodes", std::to_string(eps.size())).arg("seconds", fmt_num(secs, 1)).arg("reasons", watch::throttle_reason_names(bits));
      r.add("throttling episodes", std::to_string(eps.size()), nvml_source(w, "nvmlDeviceGetCurrentClocksEventReasons", gs.bus_id));
      r.add("reasons", watch::throttle_reason_names(bits), nvml_source(w, "nvmlDeviceGetCurrentClocksEventReasons", gs.bus_id));
    };
    auto hw_eps = watch::find_episodes(t, hw);
    auto th_eps = watch::find_episodes(t, sw_thermal);
    auto pw_eps = watch::find_episodes(t, power);
    Finding r = base(id, Status::pass, series_subject(gs));
    r.arg("n", std::to_string(t.size()));
    r.threshold = "no HW slowdown / thermal / power-brake episode";
    if (!hw_eps.empty()) {
      r.status = Status::fail;
      describe(hw_eps, r);
    } else if (!th_eps.empty()) {
      r.status = Status::warn;
      describe(th_eps, r);
    } else if (!pw_eps.empty()) {
      r.status = Status::info;
      describe(pw_eps, r);
    }
    out.push_back(r);
  }
  return out;
}


}  // namespace
void rules_watch_rules_tables(Tables& t) {
  t.add_rule({"l2.watch.summary", {}, judge_summary});
  t.add_rule({"l2.compute.gpu_underutilized", {}, judge_gpu_busy, "watch"});
  t.add_alias("l2.watch.gpu_busy_low", "l2.compute.gpu_underutilized", "watch");
  t.add_rule({"l2.watch.vram_sawtooth", {}, judge_vram_sawtooth});
  t.add_rule({"l2.compute.cpu_saturated", {}, judge_cpu_saturated, "watch"});
  t.add_alias("l2.watch.cpu_saturated", "l2.compute.cpu_saturated", "watch");
  t.add_rule({"l2.watch.io_bound", {}, judge_io_bound});
  t.add_rule({"l2.watch.pcie_imbalance", {}, judge_pcie_imbalance});
  t.add_rule({"l2.watch.throttling", {}, judge_throttling});
}

}  // namespace plumb
