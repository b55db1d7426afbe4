// GPU operating rules: expected GPU count, persistence mode, memory use, GPU busy while a process
// runs (L2), mixed models/VBIOS on one node, MIG. Healthy figures: busy > 85 %, memory < 95 %
// (5 % left free against OOM).
#include <set>

#include "core/catalog.h"
#include "core/thresholds.h"
#include "rules/gpu_common.h"
#include "rules/watch_next.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kUnderutilized = "l2.compute.gpu_underutilized";

using gpu_rules::Judged;
using gpu_rules::per_gpu;



std::vector<Finding> judge_count(const Facts& f, const Thresholds& th) {
  const GpuFacts& g = f.gpu;
  const std::string id = "l3.gpu.count";
  const int expected = static_cast<int>(th.get("gpu.expected_count"));
  if (!g.collected) return {skipped(id, "the GPU collector did not run")};
  int usable = 0;
  for (const auto& d : g.devices) usable += d.lost.empty() ? 1 : 0;
  Finding x;
  x.id = id;
  x.arg("count", std::to_string(usable));
  if (!g.unavailable.empty()) {
    if (expected <= 0) return {skipped(id, g.unavailable)};
    x.add("GPUs usable", "0", g.unavailable);
  } else {
    x.add("GPUs usable", std::to_string(usable), g.device_count.source.empty() ? "nvmlDeviceGetCount" : g.device_count.source);
    if (g.device_count.has() && *g.device_count != usable) {
      x.add("GPUs counted by NVML", std::to_string(*g.device_count), g.device_count.source);
    }
  }
  if (expected < 0) {
    x.status = Status::info;
    return {x};
  }
  x.arg("expected", std::to_string(expected));
  x.threshold = "== " + std::to_string(expected) + " (--expect-gpus)";
  x.status = usable == expected ? Status::pass : Status::fail;
  return {x};
}

std::vector<Finding> judge_persistence(const Facts& f, const Thresholds&) {
  const GpuFacts& g = f.gpu;
  return per_gpu("l3.gpu.persistence", g, [&](const GpuDevice& d) {
    if (!d.persistence_mode.has()) return Judged::skip(d.persistence_mode.why());
    if (*d.persistence_mode) return Judged::pass();
    // Persistence mode is legacy (NVIDIA's driver persistence docs); the daemon keeps the state loaded just as well.
    if (g.persistenced_running.has() && *g.persistenced_running) return Judged::pass();
    Judged j;
    j.kind = Judged::problem;
    j.finding.status = Status::warn;
    j.finding.add("persistence mode", "Disabled", d.persistence_mode.source);
    j.finding.add("nvidia-persistenced", g.persistenced_running.has() ? "not running" : g.persistenced_running.why(),
                  g.persistenced_running.source);
    j.finding.threshold = "mode enabled or daemon running";
    return j;
  }, "mode enabled or daemon running");
}

std::vector<Finding> judge_memory(const Facts& f, const Thresholds& th) {
  const double line = th.get("gpu.memory_used_warn_pct");
  return per_gpu("l2.gpu.memory_used", f.gpu, [&](const GpuDevice& d) {
    if (!d.memory_total.has()) return Judged::skip(d.memory_total.why());
    if (!d.memory_used.has()) return Judged::skip(d.memory_used.why());
    if (*d.memory_total == 0) return Judged::skip("NVML reports 0 bytes of memory");
    double pct = 100.0 * static_cast<double>(*d.memory_used) / static_cast<double>(*d.memory_total);
    if (pct < line) return Judged::pass(fmt_num(pct, 0) + " %");
    Judged j;
    j.kind = Judged::problem;
    j.finding.status = Status::warn;
    j.finding.arg("pct", fmt_num(pct, 1))
        .arg("used", gpu_rules::mib(*d.memory_used))
        .arg("total", gpu_rules::mib(*d.memory_total));
    j.finding.add("memory used", gpu_rules::mib(*d.memory_used), d.memory_used.source)
        .add("memory total", gpu_rules::mib(*d.memory_total), d.memory_total.source);
    j.finding.threshold = "< " + fmt_num(line, 0) + " %";
    return j;
  }, "< " + fmt_num(line, 0) + " %");
}

std::vector<Finding> judge_underutilized(const Facts& f, const Thresholds& th) {
  const double busy = th.get("gpu.busy_min_pct");
  auto out = per_gpu(kUnderutilized, f.gpu, [&](const GpuDevice& d) {
    if (!d.processes.has()) return Judged::skip(d.processes.why());
    if (d.processes->empty()) return Judged::pass("no process");
    if (!d.util_gpu.has()) return Judged::skip(d.util_gpu.why());
    int u = *d.util_gpu;
    if (u >= busy) return Judged::pass(std::to_string(u) + " %");
    Judged j;
    j.kind = Judged::problem;
    j.finding.status = Status::warn;
    std::string pids;
    for (const auto& p : *d.processes) {
      pids += (pids.empty() ? "" : ", ") + std::to_string(p.pid) + (p.name.empty() ? "" : " " + p.name);
    }
    j.finding.arg("util", std::to_string(u)).arg("procs", std::to_string(d.processes->size()));
    j.finding.add("GPU utilisation", std::to_string(u) + " %", d.util_gpu.source)
        .add("processes", pids, d.processes.source);
    j.finding.threshold = ">= " + fmt_num(busy, 0) + " % while a process runs";
    return j;
  }, ">= " + fmt_num(busy, 0) + " % while a process runs");
  for (auto& x : out) x.arg("next", next_checks_command(kUnderutilized));
  return out;
}

std::vector<Finding> judge_mixed(const Facts& f, const Thresholds&) {
  const GpuFacts& g = f.gpu;
  const std::string id = "l3.gpu.mixed";
  std::string why = gpu_rules::layer_missing(g);
  if (!why.empty()) return {skipped(id, why)};
  std::set<std::string> names, vbios;
  int n = 0;
  for (const auto& d : g.devices) {
    if (!d.lost.empty()) continue;
    ++n;
    if (!d.name.empty()) names.insert(d.name);
    if (d.vbios.has()) vbios.insert(*d.vbios);
  }
  if (n == 0) return {skipped(id, "no GPU could be queried")};
  auto join = [](const std::set<std::string>& s) {
    std::string o;
    for (const auto& x : s) o += (o.empty() ? "" : " | ") + x;
    return o;
  };
  std::vector<Finding> out;
  auto emit = [&](const std::set<std::string>& values, const char* what, const char* source) {
    Finding x;
    x.id = id;
    x.status = Status::warn;
    x.arg("what", what).arg("values", join(values));
    for (const auto& d : g.devices) {
      if (!d.lost.empty()) continue;
      std::string v = std::string(what) == "model" ? d.name : (d.vbios.has() ? *d.vbios : d.vbios.why());
      x.add(gpu_rules::subject_of(d), v, std::string(source) + "(gpu " + d.bus_id + ")");
    }
    x.threshold = "one value per node";
    out.push_back(std::move(x));
  };
  if (names.size() > 1) emit(names, "model", "nvmlDeviceGetName");
  if (vbios.size() > 1) emit(vbios, "VBIOS", "nvmlDeviceGetVbiosVersion");
  if (out.empty()) {
    Finding p;
    p.id = id;
    p.status = Status::pass;
    p.arg("count", std::to_string(n)).arg("detail", join(names));
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<Finding> judge_mig(const Facts& f, const Thresholds&) {
  return per_gpu("l3.gpu.mig", f.gpu, [&](const GpuDevice& d) {
    if (!d.mig_enabled.has()) return Judged::skip(d.mig_enabled.why());
    if (!*d.mig_enabled) return Judged::pass();
    Judged j;
    j.kind = Judged::problem;
    j.finding.status = Status::info;
    j.finding.add("MIG mode", "Enabled", d.mig_enabled.source);
    return j;
  });
}


}  // namespace
void rules_gpu_ops_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"gpu.expected_count", -1, "count",
     {"GPUs this node must have (plumb check --expect-gpus N); -1: not checked", "本节点应有的 GPU 数（--expect-gpus N）；-1 表示不检查"}},
    {"gpu.memory_used_warn_pct", 95, "%", {"GPU memory use warning line", "显存占用告警线"}},
    {"gpu.busy_min_pct", 85, "%",
     {"GPU busy share expected while a process runs (a healthy GPU is busy above 85 %)",
      "有进程运行时 GPU 利用率应达到的比例（85% 以上为健康）"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l3.gpu.count", Layer::L3, Pillar::platform, Section::gpu,
     {"GPU count", "GPU 数量"},
     {{"pass", {"{count} GPUs usable, as expected", "{count} 块 GPU 可用，符合预期"}},
      {"fail", {"{count} GPUs usable, {expected} expected", "可用 GPU {count} 块，预期 {expected} 块"}},
      {"info", {"{count} GPUs usable (pass --expect-gpus N to check the count)", "{count} 块 GPU 可用（用 --expect-gpus N 检查数量）"}}},
     {"A missing GPU is usually lost (Xid 79), disabled in the BIOS, or hidden by CUDA_VISIBLE_DEVICES/cgroups; "
      "compare `nvidia-smi -L` with `lspci -d 10de:`.",
      "GPU 缺失通常是掉卡（Xid 79）、BIOS 中被禁用，或被 CUDA_VISIBLE_DEVICES/cgroup 隐藏；对比 `nvidia-smi -L` 与 `lspci -d 10de:`。"},
     "nvidia-smi -L; lspci -d 10de: | grep -ci nvidia",
     {},
     {}},
    {"l3.gpu.persistence", Layer::L3, Pillar::platform, Section::gpu,
     {"Persistence mode or nvidia-persistenced", "持久模式或 nvidia-persistenced"},
     {{"pass", {"driver state stays loaded on {count} GPUs", "{count} 块 GPU 的驱动状态常驻"}},
      {"warn", {"persistence mode off and no nvidia-persistenced: each CUDA start re-initialises the GPU",
                "持久模式关闭且无 nvidia-persistenced：每次启动 CUDA 都要重新初始化 GPU"}}},
     {"Run the nvidia-persistenced daemon (systemctl enable --now nvidia-persistenced), or `nvidia-smi -pm 1`.",
      "启用 nvidia-persistenced 守护进程（systemctl enable --now nvidia-persistenced），或执行 `nvidia-smi -pm 1`。"},
     "nvidia-smi --query-gpu=pci.bus_id,persistence_mode --format=csv; pgrep -a nvidia-persistenced",
     {"seconds saved on every CUDA start; no driver teardown between jobs", "每次启动 CUDA 省去数秒初始化；任务之间驱动不再卸载"},
     {}},
    {"l2.gpu.memory_used", Layer::L2, Pillar::memory, Section::gpu,
     {"GPU memory use", "显存占用"},
     {{"pass", {"{count} GPUs below the line ({detail})", "{count} 块 GPU 显存占用低于告警线（{detail}）"}},
      {"warn", {"GPU memory {pct} % used ({used} of {total}): little room before out-of-memory",
                "显存已用 {pct} %（{used} / {total}）：离 OOM 只剩很小余量"}}},
     {"Leave headroom: smaller micro-batch, activation checkpointing, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; "
      "check for a stray process holding memory.",
      "保留余量：减小 micro-batch、启用激活重计算、设置 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True；检查是否有残留进程占用显存。"},
     "nvidia-smi -q -d MEMORY",
     {},
     {}},
    {"l2.compute.gpu_underutilized", Layer::L2, Pillar::compute, Section::gpu,
     {"GPU busy while a job runs", "作业运行时 GPU 利用率"},
     {{"pass", {"{count} GPUs checked ({detail})", "已检查 {count} 块 GPU（{detail}）"}},
      {"warn", {"GPU only {util} % busy while {procs} process(es) run on it", "有 {procs} 个进程运行，但 GPU 利用率仅 {util} %"}},
      // The same behaviour seen by `plumb watch` over time (nvmlDeviceGetUtilizationRates samples).
      {"sampled_pass", {"GPU busy averaged {avg} % (p10 {p10} %) over {n} samples while the job ran.",
                        "任务运行期间GPU利用率平均 {avg}%（p10 为 {p10}%），共 {n} 个样本。"}},
      {"sampled_fail", {"GPU busy averaged only {avg} % (p10 {p10} %) over {n} samples while the job ran: the GPU mostly waits.",
                        "任务运行期间GPU利用率平均仅 {avg}%（p10 为 {p10}%），共 {n} 个样本：GPU 大部分时间在等待。"}},
      {"sampled_warn", {"GPU busy averaged {avg} % (p10 {p10} %) over {n} samples: below the healthy {warn} %.",
                        "GPU利用率平均 {avg}%（p10 为 {p10}%），共 {n} 个样本：低于健康线 {warn}%。"}},
      {"stalls", {"GPU busy averaged {avg} % but p10 is {p10} %: the GPU stalls periodically (data or sync waits).",
                  "GPU利用率平均 {avg}%，但 p10 仅 {p10}%：GPU 周期性空转（等数据或同步）。"}},
      {"idle", {"No job ran on this GPU during the watch ({reason}).", "观测期间该 GPU 上没有任务运行（{reason}）。"}}},
     {"Find what the GPU waits for: run {next}; one sample (plumb check) is confirmed over time with `plumb watch`; look "
      "at data loading (num_workers, pin_memory, prefetch), storage, CPU limits, host-device copies and synchronisation.",
      "先找出 GPU 在等什么：运行 {next}；单次采样（plumb check）需用 `plumb watch` 持续观察确认；重点检查数据加载"
      "（num_workers、pin_memory、prefetch）、存储、CPU 配额、主机与显卡间拷贝和同步。"},
     "nvidia-smi dmon -s u -d 1 -c 10",
     {"GPU busy above 85 % turns directly into shorter epochs.", "GPU利用率提升到85%以上可直接缩短每个 epoch 的时间。"},
     {}},
    {"l3.gpu.mixed", Layer::L3, Pillar::platform, Section::gpu,
     {"Same GPU model and VBIOS across the node", "同一节点 GPU 型号与 VBIOS 一致"},
     {{"pass", {"{count} GPUs of one model and VBIOS ({detail})", "{count} 块 GPU 型号与 VBIOS 一致（{detail}）"}},
      {"warn", {"GPUs differ in {what}: {values}", "GPU 的{what}不一致：{values}"}}},
     {"Mixed models make data-parallel jobs run at the slowest GPU's pace and differing VBIOS can change clocks and "
      "power limits: keep one model per node and flash the same VBIOS.",
      "混插型号会让数据并行任务按最慢的卡运行，VBIOS 不同会改变频率与功耗上限：一个节点只用一种型号并刷写相同 VBIOS。"},
     "nvidia-smi --query-gpu=pci.bus_id,name,vbios_version --format=csv",
     {},
     {}},
    {"l3.gpu.mig", Layer::L3, Pillar::compute, Section::gpu,
     {"MIG mode", "MIG 模式"},
     {{"pass", {"MIG off on {count} GPUs", "{count} 块 GPU 未启用 MIG"}},
      {"info", {"MIG is enabled: jobs see GPU instances, not the whole GPU; NVML utilisation is not reported",
                "已启用 MIG：作业看到的是 GPU 实例而非整卡；NVML 不报告利用率"}}},
     {"Intended for sharing; for one large training job disable it (nvidia-smi -i N -mig 0, then reset the GPU).",
      "适合多任务共享；单个大训练任务请关闭（nvidia-smi -i N -mig 0，然后重置 GPU）。"},
     "nvidia-smi --query-gpu=pci.bus_id,mig.mode.current,mig.mode.pending --format=csv",
     {},
     {"l2.watch.vram_sawtooth"}},
};
});
  t.add_rule({"l3.gpu.count", {"collect.gpu"}, judge_count});
  t.add_rule({"l3.gpu.persistence", {"collect.gpu"}, judge_persistence});
  t.add_rule({"l2.gpu.memory_used", {"collect.gpu"}, judge_memory});
  t.add_rule({kUnderutilized, {"collect.gpu"}, judge_underutilized});
  t.add_rule({"l3.gpu.mixed", {"collect.gpu"}, judge_mixed});
  t.add_rule({"l3.gpu.mig", {"collect.gpu"}, judge_mig});
}

}  // namespace plumb
