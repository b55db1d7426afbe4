// `plumb bench ort MODEL.onnx`: an ONNX Runtime thread sweep on this machine's CPU grant. For each
// setting (intra_op_num_threads 0 = ORT's default, 1, 2, 4 ... up to the CPUs the cgroup quota or
// cpuset grants; sequential and parallel execution; batch sizes for a dynamic first dimension):
// closed-loop latency and maximum throughput, open-loop latency at one fixed rate for every
// setting (measured from each request's intended start, so a stall is not hidden), CPU used
// (getrusage), memory (VmRSS), threads ORT started, and the cgroup's CFS throttling (cpu.stat
// nr_throttled / throttled_usec deltas). The best setting is the one with the lowest open-loop P99.
#include "bench/ort.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "analyze/npy.h"
#include "bench/bench.h"
#include "bench/context.h"
#include "bench/stats.h"
#include "collect/cgroup.h"
#include "core/atomic_file.h"
#include "core/deadline.h"
#include "core/text.h"
#include "vendor/onnxruntime.h"

namespace plumb {

namespace {

using Clock = std::chrono::steady_clock;

Result<std::vector<int>> int_list(const std::string& v, const char* ort_option, int lo, int hi) {
  std::vector<int> out;
  for (auto part : split(v, ',')) {
    auto t = trim(part);
    if (t.empty()) continue;
    auto n = parse_uint(std::string(t));
    if (!n || static_cast<long long>(*n) < lo || static_cast<long long>(*n) > hi) {
      return make_error(ErrorKind::invalid, std::string("--") + ort_option + " " + v + ": expected numbers from " + std::to_string(lo) + " to " + std::to_string(hi));
    }
    out.push_back(static_cast<int>(*n));
  }
  return out;
}

std::string ort_option(const BenchOptions& o, const char* key) {
  auto it = o.ort.find(key);
  return it == o.ort.end() ? std::string() : it->second;
}

}  // namespace

Result<OrtPlan> make_ort_plan(const BenchOptions& o, double cpus_granted) {
  OrtPlan p;
  auto intra = ort_option(o, "intra");
  if (intra.empty()) {
    p.intra = {0};
    for (int n = 1; n <= std::max(1, static_cast<int>(std::floor(cpus_granted))); n *= 2) p.intra.push_back(n);
    int top = static_cast<int>(std::floor(cpus_granted));
    if (top > 1 && p.intra.back() != top) p.intra.push_back(top);
  } else {
    auto l = int_list(intra, "intra", 0, 1024);
    if (!l) return l.error();
    p.intra = *l;
  }
  std::string modes = ort_option(o, "exec-mode");
  if (modes.empty()) modes = "sequential,parallel";
  for (auto m : split(modes, ',')) {
    auto t = std::string(trim(m));
    if (t.empty()) continue;
    if (t != "sequential" && t != "parallel") return make_error(ErrorKind::invalid, "--exec-mode " + modes + ": sequential and/or parallel");
    p.parallel.push_back(t == "parallel");
  }
  auto batch = ort_option(o, "batch");
  if (!batch.empty()) {
    auto l = int_list(batch, "batch", 1, 65536);
    if (!l) return l.error();
    p.batches = *l;
  }
  if (p.batches.empty()) p.batches = {1};
  auto rate = ort_option(o, "ort-rate");
  if (!rate.empty()) {
    auto r = parse_double(rate);
    if (!r || !(*r > 0) || *r > 1e6) return make_error(ErrorKind::invalid, "--ort-rate " + rate + ": expected requests per second above 0");
    p.rate = *r;
  }
  if (p.intra.empty() || p.parallel.empty()) return make_error(ErrorKind::invalid, "bench ort: nothing to sweep");
  p.duration_s = o.duration_s > 0 ? o.duration_s : (o.quick ? 0.5 : 2.0);
  if (p.duration_s > 3600) return make_error(ErrorKind::invalid, "--duration: at most 3600 s per setting");
  p.samples = o.samples > 0 ? o.samples : 5;
  p.warmup = std::max(o.warmup, 1);
  p.lib = ort_option(o, "ort-lib");
  p.input = ort_option(o, "input");
  p.save = ort_option(o, "save-outputs");
  return p;
}

double percentile_ms(std::vector<double> ns, double q) {
  if (ns.empty()) return 0;
  std::sort(ns.begin(), ns.end());
  // Nearest rank: the smallest value with at least q of the samples at or below it.
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(ns.size())));
  rank = std::clamp<std::size_t>(rank, 1, ns.size());
  return ns[rank - 1] / 1e6;
}

CpuThrottle parse_cpu_throttle(std::string_view cpu_stat) {
  auto kv = parse_flat_keyed(cpu_stat);
  CpuThrottle t;
  if (auto it = kv.find("nr_throttled"); it != kv.end()) t.nr_throttled = it->second;
  if (auto it = kv.find("throttled_usec"); it != kv.end()) t.throttled_us = it->second;             // cgroup v2
  else if (auto it2 = kv.find("throttled_time"); it2 != kv.end()) t.throttled_us = it2->second / 1000;  // v1: ns
  if (auto it = kv.find("nr_periods"); it != kv.end()) t.nr_periods = it->second;
  t.ok = kv.count("nr_throttled") != 0;
  return t;
}

CpuThrottle read_cpu_throttle(const Context& ctx) {
  auto text = ctx.root.read(ctx.proc_dir() + "/cgroup", 65536);
  if (!text) return {};
  std::vector<std::string> candidates;
  for (const auto& m : parse_proc_cgroup(*text)) {
    std::string rel = m.path == "/" ? "" : m.path;
    if (m.hierarchy == "0" && m.controllers.empty()) {
      candidates.push_back("/sys/fs/cgroup" + rel + "/cpu.stat");
      candidates.emplace_back("/sys/fs/cgroup/cpu.stat");  // inside a container the mount is the cgroup
    } else if (std::find(m.controllers.begin(), m.controllers.end(), "cpu") != m.controllers.end()) {
      for (const char* mount : {"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"}) {
        candidates.push_back(std::string(mount) + rel + "/cpu.stat");
        candidates.push_back(std::string(mount) + "/cpu.stat");
      }
    }
  }
  for (const auto& c : candidates) {
    if (c.find("/../") != std::string::npos) continue;
    auto s = ctx.root.read(c, 65536);
    if (!s) continue;
    auto t = parse_cpu_throttle(*s);
    if (t.ok) {
      t.source = c;
      return t;
    }
  }
  return {};
}

namespace {

double cpu_seconds() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

std::optional<double> rss_mb(const Context& ctx) {
  auto s = ctx.root.read("/proc/self/status", 65536);
  if (!s) return std::nullopt;
  for (auto line : split(*s, '\n')) {
    if (line.starts_with("VmRSS:")) {
      auto rest = trim(line.substr(6));  // "123456 kB"
      auto v = parse_uint(std::string(rest.substr(0, rest.find(' '))));
      if (v) return static_cast<double>(*v) / 1024.0;
    }
  }
  return std::nullopt;
}

int task_count(const Context& ctx) {
  auto l = ctx.root.list("/proc/self/task");
  return l ? static_cast<int>(l->size()) : 0;
}

// The thread count once threads that are finishing (the deadline helper's worker, a released
// session's pool) are gone: two equal readings 10 ms apart, at most `at_most` (or 1 s) waited.
int settled_task_count(const Context& ctx, int at_most = -1) {
  int last = task_count(ctx);
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    int now = task_count(ctx);
    if (now == last && (at_most < 0 || now <= at_most)) return now;
    last = now;
  }
  return last;
}

// Random inputs of the model's types and shapes: a dynamic first dimension is the batch size,
// any other dynamic dimension is 1.
Result<std::vector<ort::Tensor>> random_inputs(const std::vector<ort::TensorInfo>& in, int batch, std::mt19937_64& rng) {
  std::vector<ort::Tensor> out;
  for (const auto& i : in) {
    if (!i.is_tensor) return make_error(ErrorKind::unsupported, "input " + i.name + " is not a tensor");
    int size = ort::element_size(i.type);
    if (size == 0 || i.type == ort::kString) return make_error(ErrorKind::unsupported, "input " + i.name + " of type " + ort::element_name(i.type));
    ort::Tensor t;
    t.type = i.type;
    std::uint64_t count = 1;
    for (std::size_t k = 0; k < i.dims.size(); ++k) {
      std::int64_t d = i.dims[k] > 0 ? i.dims[k] : (k == 0 ? batch : 1);
      t.shape.push_back(d);
      count *= static_cast<std::uint64_t>(d);
      if (count > (256ull << 20) / static_cast<std::uint64_t>(size)) return make_error(ErrorKind::invalid, "input " + i.name + " is larger than 256 MiB");
    }
    t.bytes.resize(count * static_cast<std::uint64_t>(size));
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    if (i.type == ort::kFloat) {
      for (std::uint64_t k = 0; k < count; ++k) {
        float v = uni(rng);
        std::memcpy(t.bytes.data() + k * 4, &v, 4);
      }
    } else if (i.type == ort::kDouble) {
      for (std::uint64_t k = 0; k < count; ++k) {
        double v = uni(rng);
        std::memcpy(t.bytes.data() + k * 8, &v, 8);
      }
    }
    // Integer, boolean and half inputs stay zero: a valid index for embeddings and masks.
    out.push_back(std::move(t));
  }
  return out;
}

// The input given with --input (one .npy per model input is not supported: one input only).
Result<std::vector<ort::Tensor>> file_inputs(const std::string& path, const std::vector<ort::TensorInfo>& in) {
  if (in.size() != 1) return make_error(ErrorKind::invalid, "--input feeds a model with one input; this one has " + std::to_string(in.size()));
  auto m = read_array_file(path);
  if (!m) return m.error();
  if (m->size() != 1 || !m->front().array) return make_error(ErrorKind::invalid, path + ": expected one array");
  const NpyArray& a = *m->front().array;
  std::string want = ort::element_descr(in[0].type);
  auto norm = [](std::string d) { return d.size() > 1 && d[0] == '|' ? "<" + d.substr(1) : d; };
  if (a.fortran || a.swap || norm(a.descr) != norm(want)) {
    return make_error(ErrorKind::invalid, path + ": " + a.descr + (a.fortran ? " Fortran-order" : "") + " array, the model's input " + in[0].name +
                                              " wants C-order " + want);
  }
  ort::Tensor t;
  t.type = in[0].type;
  for (auto d : a.shape) t.shape.push_back(static_cast<std::int64_t>(d));
  t.bytes = a.data;
  return std::vector<ort::Tensor>{std::move(t)};
}

struct SettingResult {
  std::string error;
  std::vector<double> closed_ns;      // per run
  std::vector<double> window_tput;    // inferences/s per window
  std::vector<double> window_p99;     // ms per window
  double closed_tput = 0;             // inferences/s over the whole closed loop
  std::vector<double> open_ns;        // from intended start
  std::vector<double> open_service_ns;  // from actual start
  double open_late_share = 0;
  double cpu_used = 0;                // CPUs busy on average during the closed loop
  int threads_started = 0;
  std::optional<double> rss;
  CpuThrottle throttle_before, throttle_after;
};

}  // namespace

Result<BenchResult> run_ort(const Context& ctx, const BenchOptions& o) {
  BenchResult res;
  res.bench = "ort";
  auto cg = read_cgroup(ctx);
  double granted = 0;
  std::string granted_src;
  if (cg.effective_cpus.has() && *cg.effective_cpus > 0) {
    granted = *cg.effective_cpus;
    granted_src = "cgroup (" + cg.effective_cpus.source + ")";
  } else {
    granted = static_cast<double>(affinity_cpus().size());
    granted_src = "sched_getaffinity";
  }
  auto plan = make_ort_plan(o, granted);
  if (!plan) return plan.error();
  auto rt = ort::Runtime::load(plan->lib);
  if (!rt) return skipped_result("ort", "ONNX Runtime not loadable: " + rt.error().message + " (set PLUMB_ORT_LIB or --ort-lib; scripts/fetch-ort downloads one)");
  // A FIFO, a directory or a missing file is refused before ORT opens it.
  auto fd = open_user_file(o.target);
  if (!fd) return fd.error();
  ::close(*fd);

  res.context.versions["onnxruntime"] = (*rt)->version();
  res.notes["library"] = (*rt)->library();
  res.notes["ort_version"] = (*rt)->version();
  res.notes["cpus_granted"] = fmt_num(granted, 2) + " from " + granted_src;
  res.notes["latency"] = "closed loop: one caller back to back (maximum throughput); open loop: one caller at a fixed rate, "
                         "latency from each request's intended start (includes queueing behind late requests)";
  res.notes["percentiles"] = "nearest rank over all requests of the setting";
  res.notes["inputs"] = plan->input.empty() ? "uniform random in [-1, 1) for floating inputs, zeros otherwise; dynamic first dimension = batch, other dynamic dimensions = 1"
                                            : "from " + plan->input;
  res.params["model"] = o.target;
  res.params["duration_s"] = fmt_num(plan->duration_s, 2);
  res.params["warmup_runs"] = std::to_string(plan->warmup);
  res.derived["cpus_granted"] = granted;
  std::mt19937_64 rng(1);
  auto deadline = std::chrono::milliseconds(static_cast<long long>((plan->duration_s * 2 + 120) * 1000));
  double rate = plan->rate;
  std::string rate_src = rate > 0 ? "--ort-rate" : "";
  Progress progress(o.progress, "ort");

  struct Row {
    ort::SessionSettings s;
    int batch = 1;
    SettingResult r;
  };
  std::vector<Row> rows;
  // intra 0 (ORT's default) and sequential first: its closed-loop throughput sets the open-loop rate.
  for (int batch : plan->batches) {
    for (bool par : plan->parallel) {
      for (int intra : plan->intra) {
        Row row;
        row.s.intra_op_threads = intra;
        row.s.parallel = par;
        row.batch = batch;
        rows.push_back(row);
      }
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::make_tuple(a.batch, a.s.parallel, a.s.intra_op_threads != 0) < std::make_tuple(b.batch, b.s.parallel, b.s.intra_op_threads != 0);
  });
  bool saved = false;
  const int base_tasks = settled_task_count(ctx);
  for (auto& row : rows) {
    if (o.stop()) break;
    std::string label = "intra " + std::to_string(row.s.intra_op_threads) + (row.s.parallel ? " parallel" : " sequential") + " batch " +
                        std::to_string(row.batch);
    progress.update(label);
    int tasks_before = settled_task_count(ctx, base_tasks);
    std::string model = o.target;
    auto runtime = *rt;
    auto settings = row.s;
    auto opened = run_with_deadline<Result<std::shared_ptr<ort::Session>>>(
        [runtime, model, settings] { return runtime->open(model, settings); }, std::chrono::milliseconds(120000));
    if (!opened) {
      row.r.error = "session creation did not finish within 120 s";
      break;
    }
    if (!*opened) {
      // A model ORT cannot open is bad input, not a measurement.
      if (&row == &rows.front()) return make_error(ErrorKind::invalid, opened->error().message);
      row.r.error = opened->error().message;
      continue;
    }
    auto session = opened->value();
    row.r.threads_started = settled_task_count(ctx) - tasks_before;
    Result<std::vector<ort::Tensor>> inputs =
        plan->input.empty() ? random_inputs(session->inputs(), row.batch, rng) : file_inputs(plan->input, session->inputs());
    if (!inputs) return inputs.error();
    if (!saved && !plan->save.empty()) {
      auto outs = session->run(*inputs, true);
      if (!outs) return outs.error();
      for (std::size_t k = 0; k < outs->size() && k < session->outputs().size(); ++k) {
        const auto& t = (*outs)[k];
        std::string descr = ort::element_descr(t.type);
        if (descr.empty()) return make_error(ErrorKind::unsupported, "output " + session->outputs()[k].name + " of type " + ort::element_name(t.type) + " has no .npy dtype");
        std::vector<std::uint64_t> shape;
        for (auto d : t.shape) shape.push_back(static_cast<std::uint64_t>(std::max<std::int64_t>(d, 0)));
        std::string name = session->outputs()[k].name;
        for (char& c : name) {
          if (c == '/' || c == '\0') c = '_';
        }
        auto w = write_file_atomic(plan->save + "/" + name + ".npy", npy_image(descr, shape, t.bytes));
        if (!w) return w.error();
      }
      res.notes["saved_outputs"] = plan->save;
      saved = true;
    }
    auto p = session->prepare(*inputs);
    if (!p) return p.error();
    double duration = plan->duration_s;
    int warmup = plan->warmup, windows = plan->samples, batch = row.batch;
    double open_rate = rate;
    auto measured = run_with_deadline<SettingResult>(
        [session, duration, warmup, windows, batch, open_rate, root = ctx.root] {
          Context c;  // plumb itself: the cgroup whose throttling counts is the one ORT runs in
          c.root = root;
          SettingResult r;
          for (int i = 0; i < warmup; ++i) {
            auto ok = session->run_prepared();
            if (!ok) {
              r.error = ok.error().message;
              return r;
            }
          }
          r.throttle_before = read_cpu_throttle(c);
          double cpu0 = cpu_seconds();
          auto t0 = Clock::now();
          auto end = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(duration));
          auto window_len = (end - t0) / std::max(windows, 1);
          auto window_end = t0 + window_len;
          std::vector<double> in_window;
          auto w0 = t0;
          while (true) {
            auto s = Clock::now();
            if (s >= end && !r.closed_ns.empty()) break;
            auto ok = session->run_prepared();
            auto e = Clock::now();
            if (!ok) {
              r.error = ok.error().message;
              return r;
            }
            double ns = std::chrono::duration<double, std::nano>(e - s).count();
            r.closed_ns.push_back(ns);
            in_window.push_back(ns);
            if (e >= window_end) {
              double secs = std::chrono::duration<double>(e - w0).count();
              r.window_tput.push_back(static_cast<double>(in_window.size()) * batch / secs);
              r.window_p99.push_back(percentile_ms(in_window, 0.99));
              in_window.clear();
              w0 = e;
              window_end = e + window_len;
            }
          }
          double secs = std::chrono::duration<double>(Clock::now() - t0).count();
          r.closed_tput = static_cast<double>(r.closed_ns.size()) * batch / secs;
          r.cpu_used = (cpu_seconds() - cpu0) / secs;
          r.throttle_after = read_cpu_throttle(c);
          // Open loop at the fixed rate (requests per second, each of `batch` items).
          double per_s = open_rate > 0 ? open_rate : 0.5 * r.closed_tput / batch;
          if (per_s <= 0) return r;
          auto gap = std::chrono::duration<double>(1.0 / per_s);
          auto o0 = Clock::now();
          auto oend = o0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(duration));
          std::uint64_t late = 0;
          for (std::uint64_t k = 0;; ++k) {
            auto intended = o0 + std::chrono::duration_cast<Clock::duration>(gap * static_cast<double>(k));
            if (intended >= oend) break;
            auto now = Clock::now();
            if (now < intended) {
              std::this_thread::sleep_until(intended);
              now = Clock::now();
            } else if (now - intended > std::chrono::milliseconds(1)) {
              ++late;
            }
            auto ok = session->run_prepared();
            auto e = Clock::now();
            if (!ok) {
              r.error = ok.error().message;
              return r;
            }
            r.open_ns.push_back(std::chrono::duration<double, std::nano>(e - intended).count());
            r.open_service_ns.push_back(std::chrono::duration<double, std::nano>(e - now).count());
          }
          if (!r.open_ns.empty()) r.open_late_share = static_cast<double>(late) / static_cast<double>(r.open_ns.size());
          return r;
        },
        deadline);
    if (!measured) {
      row.r.error = "the measurement did not finish within " + std::to_string(deadline.count() / 1000) + " s (ONNX Runtime stuck?)";
      break;
    }
    int threads = row.r.threads_started;
    row.r = std::move(*measured);
    row.r.threads_started = threads;
    row.r.rss = rss_mb(ctx);
    if (rate <= 0 && row.r.error.empty() && row.r.closed_tput > 0) {
      rate = 0.5 * row.r.closed_tput / row.batch;
      rate_src = "half the closed-loop throughput of the first setting (" + label + ")";
    }
  }

  // Rows, metrics, the best setting.
  const Row* best = nullptr;
  double best_open = 0;
  for (const auto& row : rows) {
    BenchRow br;
    br.setting["intra_op_threads"] = row.s.intra_op_threads == 0 ? "0 (default)" : std::to_string(row.s.intra_op_threads);
    br.setting["execution_mode"] = row.s.parallel ? "parallel" : "sequential";
    br.setting["batch"] = std::to_string(row.batch);
    const auto& r = row.r;
    if (!r.error.empty() || r.closed_ns.empty()) {
      br.setting["error"] = r.error.empty() ? "not run" : r.error;
      res.rows.push_back(std::move(br));
      continue;
    }
    br.values["p50_ms"] = percentile_ms(r.closed_ns, 0.50);
    br.values["p90_ms"] = percentile_ms(r.closed_ns, 0.90);
    br.values["p99_ms"] = percentile_ms(r.closed_ns, 0.99);
    br.values["throughput_per_s"] = r.closed_tput;
    br.values["open_p50_ms"] = percentile_ms(r.open_ns, 0.50);
    br.values["open_p99_ms"] = percentile_ms(r.open_ns, 0.99);
    br.values["open_service_p99_ms"] = percentile_ms(r.open_service_ns, 0.99);
    br.values["open_late_share"] = r.open_late_share;
    br.values["cpu_used"] = r.cpu_used;
    br.values["threads_started"] = r.threads_started;
    if (r.rss) br.values["rss_mb"] = *r.rss;
    if (r.throttle_before.ok && r.throttle_after.ok) {
      br.values["throttled_periods"] = static_cast<double>(r.throttle_after.nr_throttled - std::min(r.throttle_after.nr_throttled, r.throttle_before.nr_throttled));
      br.values["throttled_ms"] = static_cast<double>(r.throttle_after.throttled_us - std::min(r.throttle_after.throttled_us, r.throttle_before.throttled_us)) / 1000.0;
      res.notes["throttling"] = r.throttle_after.source + " (nr_throttled, throttled_usec deltas over the closed loop)";
    }
    std::string key = std::string("ort.") + (row.s.parallel ? "parallel" : "sequential") + ".intra" + std::to_string(row.s.intra_op_threads) +
                      ".batch" + std::to_string(row.batch);
    res.metrics.push_back(make_metric(key + ".p99", "ms", false, r.window_p99));
    res.metrics.push_back(make_metric(key + ".throughput", "inferences/s", true, r.window_tput));
    if (row.s.intra_op_threads == 0 && !row.s.parallel && row.batch == plan->batches.front() && r.threads_started >= 0 &&
        task_count(ctx) > 0 && !res.derived.count("ort_default_intra_threads")) {
      // ORT's intra-op pool uses the calling thread as one of its workers and starts the rest (none
      // where ONNX Runtime counts one physical core).
      res.derived["ort_default_intra_threads"] = r.threads_started + 1;
    }
    double open = br.values["open_p99_ms"];
    if (row.batch == plan->batches.front() && (best == nullptr || open < best_open ||
                                               (open == best_open && r.closed_tput > best->r.closed_tput))) {
      best = &row;
      best_open = open;
    }
    res.rows.push_back(std::move(br));
  }
  if (rate > 0) {
    res.params["open_loop_rate_per_s"] = fmt_num(rate, 2);
    res.notes["open_loop_rate"] = rate_src;
  }
  if (best == nullptr) {
    res.status = "error";
    res.reason = rows.empty() || rows.front().r.error.empty() ? "no setting could be measured" : rows.front().r.error;
    return res;
  }
  std::string best_label = "intra_op_num_threads=" + std::to_string(best->s.intra_op_threads) + " " +
                           (best->s.parallel ? "ORT_PARALLEL" : "ORT_SEQUENTIAL") + " batch " + std::to_string(best->batch);
  res.notes["best"] = best_label + " (lowest open-loop P99 at the common rate)";
  res.derived["best_intra_threads"] = best->s.intra_op_threads;
  res.derived["best_parallel"] = best->s.parallel ? 1 : 0;
  res.derived["best_open_p99_ms"] = best_open;
  res.metrics.push_back(make_metric("ort.best.p99", "ms", false, best->r.window_p99));
  res.metrics.push_back(make_metric("ort.best.throughput", "inferences/s", true, best->r.window_tput));
  return res;
}

namespace {


}  // namespace
void bench_ort_tables(BenchTables& b) {
  b.add_bench({"ort",
                                  {"ONNX Runtime thread sweep: intra-op threads, execution mode, batch; P99, throughput, CPU, throttling",
                                   "ONNX Runtime 线程扫描：intra-op 线程数、执行模式、批大小；P99、吞吐、CPU、限流"},
                                  {"MODEL.onnx [--intra 0,1,2,4] [--exec-mode sequential,parallel] [--batch 1,8] [--ort-rate R]",
                                   "MODEL.onnx [--intra 0,1,2,4] [--exec-mode sequential,parallel] [--batch 1,8] [--ort-rate R]"},
                                  false, true, false, run_ort});
}

}  // namespace plumb
