// Rules judging benchmark measurements (membw, storage, dataload, step, GPU copies, GEMM,
// all-reduce) and their reliability. All findings land in the report's baseline section.
#include <algorithm>
#include <cmath>
#include <map>

#include "bench/compare.h"
#include "bench/stats.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

const std::vector<std::string> kBenchMeasureNeeds = {"collect.bench_quick"};

std::vector<const BenchResult*> results_of(const Facts& f, const std::string& bench) {
  std::vector<const BenchResult*> v;
  for (const auto& r : f.bench.results) {
    if (r.bench == bench) v.push_back(&r);
  }
  return v;
}

const BenchMetric* metric(const BenchResult& r, const std::string& name) {
  for (const auto& m : r.metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string measured_num(double v) { return fmt_num(v, v >= 100 ? 0 : v >= 10 ? 1 : 2); }
std::string bench_source(const BenchResult& r) { return "plumb bench " + r.bench; }

// A finding per result of `bench`: skipped/error results become skip findings with the reason;
// ok results go to `judge`. No result at all: nothing (the benchmark was not asked for).
template <class F>
std::vector<Finding> per_result(const Facts& f, const std::string& id, const std::string& bench, F judge) {
  std::vector<Finding> out;
  for (const BenchResult* r : results_of(f, bench)) {
    if (r->status != "ok") {
      out.push_back(skipped(id, r->reason.empty() ? r->status : r->reason));
      continue;
    }
    out.push_back(judge(*r));
  }
  return out;
}

Finding membw(const BenchResult& r, const Thresholds& th) {
  Finding x;
  x.id = "l2.bench.membw";
  x.status = Status::info;
  const BenchMetric* c1 = metric(r, "membw.copy.1t");
  const BenchMetric* t1 = metric(r, "membw.triad.1t");
  const BenchMetric* ca = metric(r, "membw.copy.all");
  const BenchMetric* ta = metric(r, "membw.triad.all");
  std::string threads = r.params.count("threads_all") ? r.params.at("threads_all") : "1";
  x.arg("copy_1t", c1 ? measured_num(c1->median) : "n/a").arg("triad_1t", t1 ? measured_num(t1->median) : "n/a");
  x.arg("copy_all", ca ? measured_num(ca->median) : x.args["copy_1t"]).arg("triad_all", ta ? measured_num(ta->median) : x.args["triad_1t"]);
  x.arg("threads", threads);
  for (const auto* m : {c1, t1, ca, ta}) {
    if (m) x.add(m->name, measured_num(m->median) + " GB/s (min " + measured_num(m->min) + ", max " + measured_num(m->max) + ", CV " + fmt_num(m->cv_pct, 1) + " %)", bench_source(r));
  }
  double scaling_min = th.get("bench.membw_min_scaling");
  int n = parse_int(threads).value_or(1) > 0 ? static_cast<int>(parse_int(threads).value_or(1)) : 1;
  // Bandwidth that does not grow with cores on a machine with several of them points at memory
  // channels, NUMA placement or a governor holding the clocks down.
  if (ca && c1 && n >= 4 && c1->median > 0 && ca->median < scaling_min * c1->median) {
    x.status = Status::warn;
    x.variant = "no_scaling";
    x.arg("ratio", fmt_num(ca->median / c1->median, 2));
    x.threshold = "copy(all) >= " + fmt_num(scaling_min, 2) + " x copy(1 thread)";
  }
  if (r.context.governor.has()) x.add("scaling_governor", *r.context.governor, r.context.governor.source);
  return x;
}

Finding storage(const BenchResult& r, const Thresholds& th) {
  Finding x;
  x.id = "l2.bench.storage";
  x.status = Status::info;
  const BenchMetric* seq = metric(r, "storage.seq_read.mb_per_s");
  const BenchMetric* iops = metric(r, "storage.rand_read.iops");
  x.arg("path", r.params.count("path") ? r.params.at("path") : "?");
  x.arg("seq", seq ? measured_num(seq->median) : "n/a").arg("iops", iops ? fmt_num(iops->median, 0) : "n/a");
  x.arg("block", r.params.count("rand_block_bytes") ? human_bytes(parse_uint(r.params.at("rand_block_bytes")).value_or(0)) : "?");
  x.arg("threads", r.params.count("threads") ? r.params.at("threads") : "?");
  x.arg("fs", r.notes.count("filesystem") ? r.notes.at("filesystem") : "?");
  x.arg("direct", r.notes.count("direct_io") ? r.notes.at("direct_io") : "?");
  for (const auto& m : r.metrics) x.add(m.name, measured_num(m.median) + " " + m.unit + " (CV " + fmt_num(m.cv_pct, 1) + " %)", bench_source(r));
  x.add("direct_io", x.args["direct"], bench_source(r));
  double min_seq = th.get("bench.storage_seq_min_mbps");
  if (seq && seq->median < min_seq) {
    x.status = Status::warn;
    x.variant = "slow";
    x.arg("min", fmt_num(min_seq, 0));
    x.threshold = "sequential read >= " + fmt_num(min_seq, 0) + " MB/s";
  }
  return x;
}

Finding dataload(const BenchResult& r, const Thresholds&) {
  Finding x;
  x.id = "l2.bench.dataload";
  x.status = Status::info;
  auto d = [&](const char* k) { return r.derived.count(k) ? r.derived.at(k) : 0.0; };
  x.arg("dir", r.params.count("dir") ? r.params.at("dir") : "DIR");
  x.arg("knee", fmt_num(d("knee_readers"), 0)).arg("fps", measured_num(d("knee_files_per_s"))).arg("mbps", measured_num(d("knee_mb_per_s")));
  x.arg("num_workers", fmt_num(d("num_workers"), 0)).arg("prefetch", fmt_num(d("prefetch_factor"), 0));
  x.arg("pin", d("pin_memory") > 0 ? "True" : "False");
  x.arg("cores", fmt_num(d("cores"), 0)).arg("mean", human_bytes(static_cast<std::uint64_t>(d("mean_file_bytes"))));
  x.arg("bw", measured_num(d("storage_bytes_per_s") / 1e6));
  x.arg("rule", r.derived.count("rule_of_thumb_workers") ? fmt_num(d("rule_of_thumb_workers"), 0) : "n/a");
  for (const auto& row : r.rows) {
    x.add("readers=" + row.setting.at("readers"),
          measured_num(row.values.at("files_per_s")) + " files/s, " + measured_num(row.values.at("mb_per_s")) + " MB/s", bench_source(r));
  }
  if (d("still_scaling") > 0) {
    x.status = Status::warn;
    x.variant = "still_scaling";
  } else if (d("knee_readers") <= 1 && r.rows.size() > 1) {
    x.status = Status::warn;
    x.variant = "flat";
  } else if (d("rule_disagrees") > 0) {
    x.variant = "disagree";
  }
  if (d("decode_errors") > 0) x.add("decode_errors", fmt_num(d("decode_errors"), 0) + " files were not decodable JPEGs", bench_source(r));
  x.threshold = "knee: next level gains < 5 %";
  return x;
}

Finding step(const BenchResult& r, const Thresholds& th) {
  Finding x;
  x.id = "l2.bench.step";
  x.status = Status::info;
  auto d = [&](const char* k) { return r.derived.count(k) ? r.derived.at(k) : 0.0; };
  x.arg("best", fmt_num(d("best_s_per_step"), 4)).arg("nw", fmt_num(d("best_num_workers"), 0));
  x.arg("pin", d("best_pin_memory") > 0 ? "True" : "False").arg("pf", fmt_num(d("best_prefetch_factor"), 0));
  x.arg("device", r.notes.count("device") ? r.notes.at("device") : "?");
  x.arg("torch", r.notes.count("torch") ? r.notes.at("torch") : "?");
  for (const auto& row : r.rows) {
    x.add("num_workers=" + row.setting.at("num_workers") + " pin_memory=" + row.setting.at("pin_memory") +
              " prefetch_factor=" + row.setting.at("prefetch_factor"),
          fmt_num(row.values.at("s_per_step"), 4) + " s/step", bench_source(r));
  }
  if (r.derived.count("default_slower_pct")) {
    x.arg("default", fmt_num(d("default_s_per_step"), 4)).arg("slower", fmt_num(d("default_slower_pct"), 1));
    double warn = th.get("bench.step_loader_gain_warn_pct");
    if (d("default_slower_pct") > warn) {
      x.status = Status::warn;
      x.variant = "loader_matters";
      x.threshold = "num_workers=0 within " + fmt_num(warn, 0) + " % of the best setting";
    }
  }
  return x;
}

Finding h2d(const BenchResult& r, const Thresholds& th) {
  Finding x;
  x.id = "l2.bench.h2d";
  x.status = Status::info;
  double min_pinned = th.get("bench.h2d_pinned_min_gbps");
  std::string slow;
  for (const auto& m : r.metrics) {
    x.add(m.name, measured_num(m.median) + " GB/s (CV " + fmt_num(m.cv_pct, 1) + " %)", bench_source(r));
    if (m.name.rfind("h2d.pinned.h2d.", 0) == 0 && m.median < min_pinned) {
      slow += (slow.empty() ? "" : ", ") + m.name.substr(15) + " " + measured_num(m.median) + " GB/s";
    }
  }
  x.arg("gpus", std::to_string(std::count_if(r.notes.begin(), r.notes.end(), [](const auto& kv) { return kv.first.rfind("gpu", 0) == 0; })));
  if (!slow.empty()) {
    x.status = Status::warn;
    x.variant = "slow";
    x.arg("slow", slow).arg("min", fmt_num(min_pinned, 0));
    x.threshold = "pinned host-to-device >= " + fmt_num(min_pinned, 0) + " GB/s";
  }
  return x;
}

Finding gpu_info(const std::string& id, const BenchResult& r) {
  Finding x;
  x.id = id;
  x.status = Status::info;
  std::string best;
  double top = 0;
  for (const auto& m : r.metrics) {
    x.add(m.name, measured_num(m.median) + " " + m.unit + " (CV " + fmt_num(m.cv_pct, 1) + " %)", bench_source(r));
    if (m.median > top) {
      top = m.median;
      best = m.name + " " + measured_num(m.median) + " " + m.unit;
    }
  }
  x.arg("best", best.empty() ? "n/a" : best);
  return x;
}

// Reliability of every benchmark that ran: scattered samples or a busy host make numbers untrustworthy.
std::vector<Finding> noise(const Facts& f, const Thresholds& th) {
  std::vector<Finding> out;
  double cv_warn = th.get("bench.cv_warn_pct");
  for (const auto& r : f.bench.results) {
    if (r.status != "ok") continue;
    Finding x;
    x.id = "l2.bench.noise";
    x.subject = r.bench;
    x.status = Status::pass;
    const BenchMetric* worst = nullptr;
    for (const auto& m : r.metrics) {
      if (m.samples > 1 && (!worst || m.cv_pct > worst->cv_pct)) worst = &m;
    }
    x.arg("cmd", "plumb bench " + r.bench + (r.params.count("path") ? " " + r.params.at("path") : r.params.count("dir") ? " " + r.params.at("dir") : ""));
    x.arg("bench", r.bench).arg("cv", worst ? fmt_num(worst->cv_pct, 1) : "0").arg("metric", worst ? worst->name : "-");
    x.arg("max", fmt_num(cv_warn, 0));
    x.threshold = "CV <= " + fmt_num(cv_warn, 0) + " %";
    if (r.context.load_before.has()) {
      x.arg("load", fmt_num(*r.context.load_before, 2));
      x.add("load average (1 min) before", fmt_num(*r.context.load_before, 2), r.context.load_before.source);
    } else {
      x.arg("load", "n/a");
    }
    if (r.context.load_after.has()) x.add("load average (1 min) after", fmt_num(*r.context.load_after, 2), r.context.load_after.source);
    // A GPU benchmark beside another job measures what that job left it, and slows the job down.
    std::map<std::string, std::string> busy;  // bus id -> the other processes, before or after
    for (const auto* states : {&r.context.gpus_before, &r.context.gpus_after}) {
      for (const auto& g : *states) {
        if (!g.other_processes.has() || g.other_processes->empty() || busy.count(g.bus_id) != 0) continue;
        busy[g.bus_id] = join(*g.other_processes, ", ");
        x.add("other processes on gpu " + g.bus_id, busy[g.bus_id], g.other_processes.source);
      }
    }
    if (worst && worst->cv_pct > cv_warn) {
      x.status = Status::warn;
      std::string vals;
      for (double v : worst->values) vals += (vals.empty() ? "" : " ") + measured_num(v);
      x.add(worst->name + " samples", vals, bench_source(r));
    }
    // Between runs: this run's median beside the earlier runs' on this host with the same
    // settings. A spread inside one run cannot show a host that drifts between runs.
    double drift_warn = th.get("bench.drift_warn_pct");
    x.threshold += ", run-to-run spread <= " + fmt_num(drift_warn, 0) + " %";
    const BenchMetric* drifting = nullptr;
    const MetricRuns* drifting_runs = nullptr;
    double drift = 0;
    std::size_t fewest = 0;
    for (const auto& m : r.metrics) {
      const MetricRuns* e = f.bench.earlier.has() && m.samples > 0 ? find_runs(*f.bench.earlier, m.name) : nullptr;
      std::size_t n = e == nullptr ? 0 : e->medians.size();
      fewest = &m == &r.metrics.front() ? n : std::min(fewest, n);
      if (n + 1 < kMinRunsForSpread) continue;
      std::vector<double> all = e->medians;
      all.push_back(m.median);
      double s = spread_pct_of(all);
      if (drifting == nullptr || s > drift) {
        drifting = &m;
        drifting_runs = e;
        drift = s;
      }
    }
    if (drifting != nullptr) {
      x.add(drifting->name + " medians, earlier runs then this one",
            medians_text(drifting_runs->medians, drifting->unit) + " | " + measured_num(drifting->median) + " (spread " + fmt_num(drift, 1) + " %)",
            f.bench.earlier.source + ", runs " + run_ids_text(drifting_runs->run_ids));
      if (x.status == Status::pass && drift > drift_warn) {
        x.status = Status::warn;
        x.variant = "drift";
        x.arg("metric", drifting->name).arg("drift", fmt_num(drift, 1)).arg("runs", std::to_string(drifting_runs->medians.size() + 1));
        x.arg("drift_max", fmt_num(drift_warn, 0));
      }
    } else {
      x.add("run-to-run spread", "not judged: " + std::to_string(fewest) + " earlier runs with these settings on this host, " +
                                     std::to_string(kMinRunsForSpread - 1) + " needed",
            f.bench.earlier.has() ? f.bench.earlier.source : f.bench.earlier.why());
    }
    if (!busy.empty()) {
      std::vector<std::string> gpus;
      std::vector<std::string> who;
      for (const auto& [bus, w] : busy) {
        gpus.push_back(bus);
        who.push_back(concat(bus, ": ", w));
      }
      x.status = Status::warn;
      x.variant = "gpu_busy";
      x.arg("gpus", join(gpus, ", ")).arg("who", join(who, "; "));
      x.threshold += ", no other compute process on the GPUs benchmarked";
    }
    out.push_back(x);
  }
  return out;
}

// Clock-event reasons that mean the GPU slowed down during a benchmark (nvmlClocksEventReasons:
// SwPowerCap 0x4, HwSlowdown 0x8, SwThermal 0x20, HwThermal 0x40, HwPowerBrake 0x80).
std::vector<Finding> gpu_throttle(const Facts& f, const Thresholds&) {
  std::vector<Finding> out;
  constexpr std::uint64_t kBad = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;
  for (const auto& r : f.bench.results) {
    if (r.status != "ok" || r.context.gpus_after.empty()) continue;
    for (const auto& g : r.context.gpus_after) {
      Finding x;
      x.id = "l2.bench.gpu_throttle";
      x.subject = "gpu " + g.bus_id;
      x.arg("bench", r.bench);
      if (!g.throttle_reasons.has()) {
        out.push_back(skipped(x.id, g.throttle_reasons.why(), x.subject));
        continue;
      }
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(*g.throttle_reasons));
      x.arg("reasons", hex);
      x.add("clocks event reasons after " + r.bench, hex, g.throttle_reasons.source);
      if (g.sm_clock_mhz.has()) x.add("SM clock after", std::to_string(*g.sm_clock_mhz) + " MHz", g.sm_clock_mhz.source);
      x.threshold = "no power/thermal/slowdown reason (mask 0xec)";
      x.status = (*g.throttle_reasons & kBad) != 0 ? Status::warn : Status::pass;
      out.push_back(x);
    }
  }
  return out;
}


}  // namespace
void rules_bench_measure_tables(Tables& t) {
  t.add_rule({"l2.bench.membw", kBenchMeasureNeeds, [](const Facts& f, const Thresholds& th) {
                   return per_result(f, "l2.bench.membw", "membw", [&](const BenchResult& r) { return membw(r, th); });
                 }});
  t.add_rule({"l2.bench.storage", kBenchMeasureNeeds, [](const Facts& f, const Thresholds& th) {
                   return per_result(f, "l2.bench.storage", "storage", [&](const BenchResult& r) { return storage(r, th); });
                 }});
  t.add_rule({"l2.bench.dataload", kBenchMeasureNeeds, [](const Facts& f, const Thresholds& th) {
                   return per_result(f, "l2.bench.dataload", "dataload", [&](const BenchResult& r) { return dataload(r, th); });
                 }});
  t.add_rule({"l2.bench.step", kBenchMeasureNeeds, [](const Facts& f, const Thresholds& th) {
                   return per_result(f, "l2.bench.step", "step", [&](const BenchResult& r) { return step(r, th); });
                 }});
  t.add_rule({"l2.bench.h2d", kBenchMeasureNeeds, [](const Facts& f, const Thresholds& th) {
                   return per_result(f, "l2.bench.h2d", "h2d", [&](const BenchResult& r) { return h2d(r, th); });
                 }});
  t.add_rule({"l2.bench.d2d", kBenchMeasureNeeds, [](const Facts& f, const Thresholds&) {
                   return per_result(f, "l2.bench.d2d", "d2d", [&](const BenchResult& r) { return gpu_info("l2.bench.d2d", r); });
                 }});
  t.add_rule({"l2.bench.gemm", kBenchMeasureNeeds, [](const Facts& f, const Thresholds&) {
                   return per_result(f, "l2.bench.gemm", "gemm", [&](const BenchResult& r) { return gpu_info("l2.bench.gemm", r); });
                 }});
  t.add_rule({"l2.bench.allreduce", kBenchMeasureNeeds, [](const Facts& f, const Thresholds&) {
                   return per_result(f, "l2.bench.allreduce", "allreduce",
                                     [&](const BenchResult& r) { return gpu_info("l2.bench.allreduce", r); });
                 }});
  t.add_rule({"l2.bench.noise", kBenchMeasureNeeds, noise});
  t.add_rule({"l2.bench.gpu_throttle", kBenchMeasureNeeds, gpu_throttle});
}

}  // namespace plumb
