// Metric-by-metric comparison with a baseline, environment differences and regression pointers.
#include "bench/compare.h"

#include <algorithm>
#include <cmath>

#include "bench/stats.h"
#include "core/text.h"

namespace plumb {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::better: return "better";
    case Verdict::same: return "same";
    case Verdict::warn: return "warn";
    case Verdict::fail: return "fail";
    case Verdict::only_baseline: return "only_baseline";
    case Verdict::only_current: return "only_current";
  }
  return "?";
}

const MetricRuns* find_runs(const std::vector<MetricRuns>& earlier, const std::string& metric) {
  for (const auto& e : earlier) {
    if (e.metric == metric) return &e;
  }
  return nullptr;
}

std::vector<CompareRow> compare_metrics(const std::vector<BenchMetric>& baseline, const std::vector<BenchMetric>& current,
                                        const CompareLimits& limits, const std::vector<MetricRuns>* earlier) {
  std::vector<CompareRow> rows;
  auto find = [](const std::vector<BenchMetric>& v, const std::string& n) -> const BenchMetric* {
    for (const auto& m : v) {
      if (m.name == n) return &m;
    }
    return nullptr;
  };
  for (const auto& c : current) {
    CompareRow r;
    r.metric = c.name;
    r.unit = c.unit;
    r.higher_is_better = c.higher_is_better;
    r.current = c.median;
    const BenchMetric* b = find(baseline, c.name);
    if (b == nullptr) {
      r.verdict = Verdict::only_current;
      rows.push_back(r);
      continue;
    }
    r.baseline = b->median;
    r.change_pct = change_pct(b->median, c.median);
    r.noise_pct = 2.0 * std::max(b->cv_pct, c.cv_pct);
    if (r.change_pct) {
      r.worse_pct = c.higher_is_better ? -*r.change_pct : *r.change_pct;
      r.within_noise = std::fabs(*r.change_pct) <= r.noise_pct;
      auto e = earlier == nullptr ? nullptr : find_runs(*earlier, c.name);
      if (e != nullptr && e->medians.size() >= kMinRunsForSpread) {
        r.drift_pct = spread_pct_of(e->medians);
        r.drift_runs = static_cast<int>(e->medians.size());
        r.within_drift = std::fabs(*r.change_pct) <= r.drift_pct;
      }
      if (r.worse_pct > limits.fail_pct) r.verdict = Verdict::fail;
      else if (r.worse_pct > limits.warn_pct) r.verdict = Verdict::warn;
      else if (r.worse_pct < -limits.warn_pct) r.verdict = Verdict::better;
      else r.verdict = Verdict::same;
    }
    rows.push_back(r);
  }
  for (const auto& b : baseline) {
    if (find(current, b.name) != nullptr) continue;
    CompareRow r;
    r.metric = b.name;
    r.unit = b.unit;
    r.higher_is_better = b.higher_is_better;
    r.baseline = b.median;
    r.verdict = Verdict::only_baseline;
    rows.push_back(r);
  }
  return rows;
}

std::string compare_num(double v) { return fmt_num(v, std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 1 ? 2 : 4); }

std::string medians_text(const std::vector<double>& v, const std::string& unit) {
  std::string s;
  for (double x : v) s += (s.empty() ? "" : " ") + compare_num(x);
  return s + " " + unit;
}

std::string run_ids_text(const std::vector<std::int64_t>& ids) {
  std::string s;
  for (auto id : ids) s += (s.empty() ? "" : ", ") + std::to_string(id);
  return s;
}

std::string format_change(const std::optional<double>& pct) {
  if (!pct) return "n/a";
  double v = std::round(*pct * 10) / 10;
  return (v > 0 ? "+" : "") + fmt_num(v, 1) + (v == std::floor(v) ? ".0" : "") + " %";
}

std::vector<EnvDiff> environment_diff(const std::map<std::string, std::string>& baseline,
                                      const std::map<std::string, std::string>& current) {
  std::vector<EnvDiff> out;
  for (const auto& [k, v] : baseline) {
    auto it = current.find(k);
    if (it == current.end()) out.push_back({k, v, "-"});
    else if (it->second != v) out.push_back({k, v, it->second});
  }
  for (const auto& [k, v] : current) {
    if (!baseline.count(k)) out.push_back({k, "-", v});
  }
  std::sort(out.begin(), out.end(), [](const EnvDiff& a, const EnvDiff& b) { return a.key < b.key; });
  return out;
}

Text regression_pointers(const std::string& metric) {
  auto family = metric.substr(0, metric.find('.'));
  if (family == "membw") {
    return {"CPU frequency governor and C-states, memory channels populated and their speed, NUMA placement, transparent hugepages, other jobs on the host (load average)",
            "CPU 调频策略与 C-state、内存通道插满与频率、NUMA 亲和、透明大页、主机上的其他任务（负载）"};
  }
  if (family == "storage") {
    return {"I/O scheduler and read-ahead of the device, file system and mount options, device health and thermal throttling, shared or network storage load",
            "块设备 I/O 调度器与预读、文件系统与挂载参数、磁盘健康与过热降速、共享/网络存储负载"};
  }
  if (family == "dataload") {
    return {"storage (scheduler, read-ahead, file system), CPUs granted by the cgroup, page cache pressure, DataLoader num_workers and prefetch_factor",
            "存储（调度器、预读、文件系统）、cgroup 分配的 CPU 数、页缓存压力、DataLoader 的 num_workers 与 prefetch_factor"};
  }
  if (family == "h2d") {
    return {"PCIe link generation and width of the GPU, NUMA affinity of the process to the GPU, IOMMU settings, pinned memory (pin_memory)",
            "GPU 的 PCIe 代数与链路宽度、进程与 GPU 的 NUMA 亲和、IOMMU 设置、锁页内存（pin_memory）"};
  }
  if (family == "d2d" || family == "allreduce") {
    return {"NVLink state and topology (nvidia-smi topo -m), NCCL variables (NCCL_P2P_DISABLE, NCCL_IB_DISABLE, NCCL_TOPO_FILE), driver and NCCL versions",
            "NVLink 状态与拓扑（nvidia-smi topo -m）、NCCL 环境变量（NCCL_P2P_DISABLE、NCCL_IB_DISABLE、NCCL_TOPO_FILE）、驱动与 NCCL 版本"};
  }
  if (family == "gemm") {
    return {"GPU clocks and throttle reasons (power cap, thermal), temperature, driver and CUDA/cuBLAS versions",
            "GPU 时钟与降频原因（功耗墙、温度）、温度、驱动与 CUDA/cuBLAS 版本"};
  }
  if (family == "step") {
    return {"DataLoader settings (num_workers, pin_memory, prefetch_factor), torch/CUDA versions, CPU governor, GPU clocks; then the data, memory and GPU layers of plumb check",
            "DataLoader 设置（num_workers、pin_memory、prefetch_factor）、torch/CUDA 版本、CPU 调频策略、GPU 时钟；再看 plumb check 的数据层、内存与 GPU 层"};
  }
  if (family == "ort") {
    return {"CPUs granted by the cgroup (quota, cpuset) and CFS throttling, ONNX Runtime version and its default thread pool, other jobs on the host (load average), CPU governor",
            "cgroup 分配的 CPU（配额、cpuset）与 CFS 限流、ONNX Runtime 版本及其默认线程池、主机上的其他任务（负载）、CPU 调频策略"};
  }
  return {"the environment differences listed below, then plumb check", "下方列出的环境差异，然后运行 plumb check"};
}

std::vector<std::string> regression_l3_ids(const std::string& metric) {
  auto family = metric.substr(0, metric.find('.'));
  if (family == "membw") return {"l3.compute.cpu_governor", "l3.compute.numa_balancing", "l3.compute.thread_oversubscription"};
  if (family == "storage") return {"l3.storage.io_scheduler", "l3.storage.read_ahead", "l3.storage.data_path"};
  if (family == "dataload") return {"l3.storage.io_scheduler", "l3.storage.read_ahead", "l3.storage.data_path", "l3.storage.shm_size"};
  if (family == "h2d") return {"l3.gpu.pcie_gen", "l3.gpu.pcie_width", "l3.memory.memlock_limit"};
  if (family == "d2d" || family == "allreduce") return {"l3.comm.p2p_disabled", "l3.comm.ib_disable", "l3.comm.topo_file", "l3.comm.pcie_link_width"};
  if (family == "gemm") return {"l3.gpu.throttle", "l3.gpu.temperature", "l3.gpu.toolkit_runtime"};
  if (family == "step") return {"l3.framework.cudnn_benchmark", "l3.compute.cpu_governor", "l3.gpu.throttle", "l3.storage.data_path"};
  if (family == "ort") return {"l3.serving.thread_demand", "l3.compute.thread_oversubscription", "l3.compute.cpu_governor"};
  return {};
}

std::map<std::string, std::string> run_environment(const Facts& f) {
  std::map<std::string, std::string> env;
  auto put = [&](const std::string& k, const std::string& v) {
    if (!v.empty()) env[k] = v;
  };
  put("hostname", f.meta.hostname);
  put("plumb", f.meta.tool_version);
  if (f.host.os.kernel.has()) put("kernel", *f.host.os.kernel);
  if (f.host.os.pretty_name.has()) put("os", *f.host.os.pretty_name);
  if (f.gpu.driver_version.has()) put("gpu.driver", *f.gpu.driver_version);
  if (f.gpu.cuda_driver_version.has()) put("gpu.cuda_driver", std::to_string(*f.gpu.cuda_driver_version));
  if (!f.gpu.devices.empty()) put("gpu.count", std::to_string(f.gpu.devices.size()));
  for (const auto& r : f.bench.results) {
    const auto& c = r.context;
    put("hostname", c.hostname);
    if (c.kernel.has()) put("kernel", *c.kernel);
    if (c.cpu_model.has()) put("cpu.model", *c.cpu_model);
    if (c.governor.has()) put("cpu.governor", *c.governor);
    if (c.allowed_cpus.has()) put("cpu.allowed", std::to_string(*c.allowed_cpus));
    if (c.numa_nodes.has()) put("numa.nodes", std::to_string(*c.numa_nodes));
    for (const auto& [k, v] : c.versions) put("version." + k, v);
    // What was asked shapes the numbers: sizes, threads, paths.
    for (const auto& [k, v] : r.params) put("setting." + r.bench + "." + k, v);
    for (const char* n : {"direct_io", "filesystem", "cuda_runtime", "cuda_driver", "nccl", "torch", "cuda", "device"}) {
      auto it = r.notes.find(n);
      if (it != r.notes.end()) put(r.bench + "." + n, it->second);
    }
  }
  return env;
}

}  // namespace plumb
