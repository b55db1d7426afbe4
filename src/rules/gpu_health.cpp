// GPU hardware health rules: NVML answering, lost GPUs, temperature, throttling, PCIe link, ECC,
// retired pages and remapped rows. Thresholds: a 75 °C safe line (A100 is rated for 85 °C), DCGM's
// memory-error limits.
#include <cstdio>

#include "collect/gpu_nvml.h"
#include "core/catalog.h"
#include "core/thresholds.h"
#include "vendor/nvml.h"
#include "rules/gpu_common.h"
#include "core/tables.h"

namespace plumb {

namespace {

using gpu_rules::Judged;
using gpu_rules::per_gpu;



std::vector<Finding> judge_responsive(const Facts& f, const Thresholds&) {
  const GpuFacts& g = f.gpu;
  const std::string id = "l3.gpu.nvml_responsive";
  if (!g.collected) return {skipped(id, "the GPU collector did not run")};
  if (!g.stalled_call.empty()) {
    Finding x;
    x.id = id;
    x.status = Status::fail;
    x.arg("call", g.stalled_call).add("stalled call", g.stalled_call, g.nvml_library);
    x.threshold = "every call returns before the deadline";
    return {x};
  }
  if (!g.unavailable.empty()) return {skipped(id, g.unavailable)};
  Finding p;
  p.id = id;
  p.status = Status::pass;
  return {p};
}

std::vector<Finding> judge_lost(const Facts& f, const Thresholds&) {
  const GpuFacts& g = f.gpu;
  const std::string id = "l3.gpu.device_lost";
  std::string why = gpu_rules::layer_missing(g);
  if (!why.empty()) return {skipped(id, why)};
  std::vector<Finding> out;
  int ok = 0;
  for (const auto& d : g.devices) {
    if (d.lost.empty()) {
      ++ok;
      continue;
    }
    Finding x;
    x.id = id;
    x.status = Status::fail;
    x.subject = gpu_rules::subject_of(d);
    x.arg("reason", d.lost).add("NVML", d.lost, "nvmlDeviceGetHandleByIndex(" + std::to_string(d.nvml_index) + ")");
    x.threshold = "every GPU answers";
    out.push_back(std::move(x));
  }
  if (ok > 0 && out.empty()) {
    Finding p;
    p.id = id;
    p.status = Status::pass;
    p.arg("count", std::to_string(ok));
    out.push_back(std::move(p));
  }
  if (g.devices.empty()) out.push_back(skipped(id, "NVML reports no GPU"));
  return out;
}

std::vector<Finding> judge_temperature(const Facts& f, const Thresholds& th) {
  const double warn = th.get("gpu.temperature_warn_c");
  const double margin = th.get("gpu.slowdown_margin_c");
  return per_gpu("l3.gpu.temperature", f.gpu, [&](const GpuDevice& d) {
    if (!d.temperature_c.has()) return Judged::skip(d.temperature_c.why());
    int t = *d.temperature_c;
    Judged j;
    j.kind = Judged::problem;
    Finding& x = j.finding;
    x.arg("temp", std::to_string(t)).add("temperature", std::to_string(t) + " °C", d.temperature_c.source);
    if (d.temp_slowdown_c.has() && t >= *d.temp_slowdown_c - margin) {
      x.status = Status::fail;
      x.arg("slowdown", std::to_string(*d.temp_slowdown_c))
          .add("slowdown temperature", std::to_string(*d.temp_slowdown_c) + " °C", d.temp_slowdown_c.source);
      x.threshold = "< slowdown " + std::to_string(*d.temp_slowdown_c) + " °C";
      return j;
    }
    if (t >= warn) {
      x.status = Status::warn;
      x.arg("limit", fmt_num(warn, 0));
      x.threshold = "< " + fmt_num(warn, 0) + " °C";
      return j;
    }
    return Judged::pass(std::to_string(t) + " °C");
  }, "< " + fmt_num(warn, 0) + " °C");
}

std::vector<Finding> judge_throttle(const Facts& f, const Thresholds& th) {
  const double load = th.get("gpu.load_pct");
  constexpr std::uint64_t kHard =
      nvml::kReasonHwSlowdown | nvml::kReasonHwThermal | nvml::kReasonSwThermal | nvml::kReasonHwPowerBrake;
  return per_gpu("l3.gpu.throttle", f.gpu, [&](const GpuDevice& d) {
    if (!d.clocks_event_reasons.has()) return Judged::skip(d.clocks_event_reasons.why());
    std::uint64_t m = *d.clocks_event_reasons;
    bool busy = d.util_gpu.has() && *d.util_gpu >= load;
    Judged j;
    j.kind = Judged::problem;
    Finding& x = j.finding;
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(m));
    x.add("clocks event reasons", std::string(hex) + " (" + describe_event_reasons(m) + ")", d.clocks_event_reasons.source);
    if (d.clock_sm_mhz.has() && d.clock_sm_max_mhz.has()) {
      x.add("SM clock", std::to_string(*d.clock_sm_mhz) + " of " + std::to_string(*d.clock_sm_max_mhz) + " MHz",
            d.clock_sm_mhz.source);
    }
    if ((m & kHard) != 0) {
      x.status = Status::fail;
      x.arg("reasons", describe_event_reasons(m & kHard));
      x.threshold = "no HW slowdown, HW/SW thermal or power brake";
      return j;
    }
    if ((m & nvml::kReasonSwPowerCap) != 0 && busy) {
      x.status = Status::warn;
      x.arg("reasons", describe_event_reasons(nvml::kReasonSwPowerCap));
      x.add("GPU utilisation", std::to_string(*d.util_gpu) + " %", d.util_gpu.source);
      x.threshold = "no SW power cap at >= " + fmt_num(load, 0) + " % utilisation";
      return j;
    }
    return Judged::pass();
  }, "no HW slowdown, thermal or power brake");
}

std::vector<Finding> judge_pcie_width(const Facts& f, const Thresholds&) {
  return per_gpu("l3.gpu.pcie_width", f.gpu, [&](const GpuDevice& d) {
    if (!d.pcie.width_current.has()) return Judged::skip(d.pcie.width_current.why());
    if (!d.pcie.width_max.has()) return Judged::skip(d.pcie.width_max.why());
    int w = *d.pcie.width_current, m = *d.pcie.width_max;
    if (w >= m) return Judged::pass("x" + std::to_string(w));
    Judged j;
    j.kind = Judged::problem;
    j.finding.status = Status::fail;
    j.finding.arg("width", std::to_string(w)).arg("max", std::to_string(m));
    j.finding.add("link width", "x" + std::to_string(w), d.pcie.width_current.source)
        .add("max link width", "x" + std::to_string(m), d.pcie.width_max.source);
    j.finding.threshold = "== max width";
    return j;
  }, "== max width");
}

std::vector<Finding> judge_pcie_gen(const Facts& f, const Thresholds& th) {
  const double load = th.get("gpu.load_pct");
  return per_gpu("l3.gpu.pcie_gen", f.gpu, [&](const GpuDevice& d) {
    if (!d.pcie.gen_current.has()) return Judged::skip(d.pcie.gen_current.why());
    if (!d.pcie.gen_max.has()) return Judged::skip(d.pcie.gen_max.why());
    if (!d.util_gpu.has()) return Judged::skip("utilisation unknown (" + d.util_gpu.why() + "): cannot tell idle from busy");
    int gen = *d.pcie.gen_current, max = *d.pcie.gen_max;
    bool busy = *d.util_gpu >= load;
    // Idle links downshift for power saving (open-gpu-kernel-modules#731): only a busy GPU is judged.
    if (!busy) return Judged::pass("idle, gen " + std::to_string(gen));
    if (gen >= max) return Judged::pass("gen " + std::to_string(gen));
    Judged j;
    j.kind = Judged::problem;
    j.finding.status = Status::warn;
    j.finding.arg("gen", std::to_string(gen)).arg("max", std::to_string(max));
    j.finding.add("link generation", "gen " + std::to_string(gen), d.pcie.gen_current.source)
        .add("max generation", "gen " + std::to_string(max), d.pcie.gen_max.source)
        .add("GPU utilisation", std::to_string(*d.util_gpu) + " %", d.util_gpu.source);
    j.finding.threshold = "== max generation while >= " + fmt_num(load, 0) + " % busy";
    return j;
  }, "== max generation under load");
}

std::vector<Finding> judge_ecc(const Facts& f, const Thresholds&) {
  return per_gpu("l3.gpu.ecc_errors", f.gpu, [&](const GpuDevice& d) {
    if (d.ecc.enabled.has() && !*d.ecc.enabled) return Judged::skip("ECC is disabled on this GPU");
    if (!d.ecc.volatile_uncorrected.has()) return Judged::skip(d.ecc.volatile_uncorrected.why());
    std::uint64_t vol = *d.ecc.volatile_uncorrected;
    std::uint64_t agg = d.ecc.aggregate_uncorrected.has() ? *d.ecc.aggregate_uncorrected : 0;
    if (vol == 0 && agg == 0) return Judged::pass();
    Judged j;
    j.kind = Judged::problem;
    j.finding.status = vol > 0 ? Status::fail : Status::warn;
    j.finding.arg("count", std::to_string(vol > 0 ? vol : agg));
    j.finding.add("volatile uncorrectable", std::to_string(vol), d.ecc.volatile_uncorrected.source);
    if (d.ecc.aggregate_uncorrected.has()) {
      j.finding.add("aggregate uncorrectable", std::to_string(agg), d.ecc.aggregate_uncorrected.source);
    }
    j.finding.threshold = "== 0";
    return j;
  }, "== 0");
}

// NVML answers NOT_SUPPORTED for page retirement on the GPUs that repair memory by remapping rows
// instead (A100, H100, H200 and later: NVIDIA's "GPU Memory Error Management", supported GPUs);
// there the remapper's counters, read, say so, and l3.gpu.remapped_rows judges them.
bool remaps_rows_instead(const GpuDevice& d) {
  const auto& h = d.mem_health;
  return !h.retired_pending.has() && !h.retired_double_bit.has() && h.remap_pending.has() &&
         h.retired_pending.why().find("NOT_SUPPORTED") != std::string::npos;
}

std::vector<Finding> judge_retired(const Facts& f, const Thresholds& th) {
  const double limit = th.get("gpu.retired_pages_fail");
  int remapping = 0;
  const GpuDevice* example = nullptr;
  auto out = per_gpu("l3.gpu.retired_pages", f.gpu, [&](const GpuDevice& d) {
    const auto& h = d.mem_health;
    if (remaps_rows_instead(d)) {
      ++remapping;
      if (example == nullptr) example = &d;
      return Judged::pass();
    }
    if (!h.retired_pending.has() && !h.retired_double_bit.has()) return Judged::skip(h.retired_pending.why());
    int sbe = h.retired_single_bit.has() ? *h.retired_single_bit : 0;
    int dbe = h.retired_double_bit.has() ? *h.retired_double_bit : 0;
    bool pending = h.retired_pending.has() && *h.retired_pending;
    Judged j;
    j.kind = Judged::problem;
    Finding& x = j.finding;
    x.status = Status::fail;
    x.arg("sbe", std::to_string(sbe)).arg("dbe", std::to_string(dbe)).arg("total", std::to_string(sbe + dbe));
    x.arg("limit", fmt_num(limit, 0));
    x.add("retired pages (single-bit)", std::to_string(sbe), h.retired_single_bit.source)
        .add("retired pages (double-bit)", std::to_string(dbe), h.retired_double_bit.source);
    if (h.retired_pending.has()) x.add("pending", pending ? "yes" : "no", h.retired_pending.source);
    if (sbe + dbe >= limit) {
      x.threshold = "< " + fmt_num(limit, 0) + " pages";
      return j;
    }
    if (pending) {
      x.variant = "pending";
      x.threshold = "no pending retirement";
      return j;
    }
    return Judged::pass();
  }, "no pending retirement, < " + fmt_num(limit, 0) + " pages");
  for (auto& x : out) {
    // Every passing GPU remaps rows: say that, not "no pending page retirement".
    if (x.status != Status::pass || example == nullptr || x.args["count"] != std::to_string(remapping)) continue;
    x.variant = "remapping";
    const auto& h = example->mem_health;
    x.add("page retirement", h.retired_pending.why(), h.retired_pending.source)
        .add("row remapping pending", *h.remap_pending ? "yes" : "no", h.remap_pending.source);
    x.threshold = "row remapping GPUs: see l3.gpu.remapped_rows";
  }
  return out;
}

std::vector<Finding> judge_remapped(const Facts& f, const Thresholds& th) {
  const double limit = th.get("gpu.remapped_uncorrectable_fail");
  return per_gpu("l3.gpu.remapped_rows", f.gpu, [&](const GpuDevice& d) {
    const auto& h = d.mem_health;
    if (!h.remap_pending.has()) return Judged::skip(h.remap_pending.why());
    int unc = h.remapped_uncorrectable.has() ? *h.remapped_uncorrectable : 0;
    int corr = h.remapped_correctable.has() ? *h.remapped_correctable : 0;
    Judged j;
    j.kind = Judged::problem;
    Finding& x = j.finding;
    x.status = Status::fail;
    x.arg("unc", std::to_string(unc)).arg("limit", fmt_num(limit, 0));
    x.add("remapped rows (uncorrectable)", std::to_string(unc), h.remapped_uncorrectable.source)
        .add("remapped rows (correctable)", std::to_string(corr), h.remapped_correctable.source)
        .add("pending", *h.remap_pending ? "yes" : "no", h.remap_pending.source)
        .add("failure occurred", (h.remap_failure.has() && *h.remap_failure) ? "yes" : "no", h.remap_failure.source);
    if (h.remap_failure.has() && *h.remap_failure) {
      x.variant = "failure";
      x.threshold = "no remap failure";
      return j;
    }
    if (unc >= limit) {
      x.threshold = "< " + fmt_num(limit, 0) + " uncorrectable remaps";
      return j;
    }
    if (*h.remap_pending) {
      x.variant = "pending";
      x.threshold = "no pending remap";
      return j;
    }
    return Judged::pass();
  }, "no pending or failed remap");
}


}  // namespace
void rules_gpu_health_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"gpu.temperature_warn_c", 75, "°C",
     {"GPU temperature warning line (a safe margin below the rated maximum, e.g. 85 °C on A100)",
      "GPU 温度告警线（低于标称上限的安全线，如 A100 标称 85°C）"}},
    {"gpu.slowdown_margin_c", 0, "°C",
     {"fail when the GPU is this close to its slowdown temperature", "距降频温度不足该值即判定失败"}},
    {"gpu.load_pct", 50, "%",
     {"GPU utilisation from which a GPU counts as under load (PCIe generation, SW power cap)",
      "GPU 利用率达到该值即视为负载中（用于 PCIe 代数、软件功耗墙判断）"}},
    {"gpu.retired_pages_fail", 63, "count", {"retired pages at which a GPU fails (DCGM's limit)", "退役页数达到该值判定失败（DCGM 限值）"}},
    {"gpu.remapped_uncorrectable_fail", 512, "count",
     {"uncorrectable remapped rows at which a GPU fails (DCGM's limit)", "不可纠正错误重映射行数达到该值判定失败（DCGM 限值）"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l3.gpu.nvml_responsive", Layer::L3, Pillar::platform, Section::gpu,
     {"NVML answers within the deadline", "NVML 在时限内响应"},
     {{"pass", {"every NVML call returned in time", "所有 NVML 调用均按时返回"}},
      {"fail", {"an NVML call hung: {call}", "NVML 调用卡住：{call}"}}},
     {"A hung NVML call usually means a GPU fell off the bus or its GSP firmware stopped answering: read "
      "`dmesg | grep -i xid`, drain the node and reset the GPU (nvidia-smi -r) or reboot.",
      "NVML 调用卡住通常说明某块 GPU 掉卡或 GSP 固件无响应：查看 `dmesg | grep -i xid`，排空节点后重置 GPU（nvidia-smi -r）或重启。"},
     "timeout 20 nvidia-smi -q -d PERFORMANCE",
     {},
     {}},
    {"l3.gpu.device_lost", Layer::L3, Pillar::platform, Section::gpu,
     {"Every GPU answers NVML", "所有 GPU 均可被 NVML 访问"},
     {{"pass", {"all {count} GPUs answer", "全部 {count} 块 GPU 可访问"}},
      {"fail", {"GPU cannot be queried: {reason}", "无法访问该 GPU：{reason}"}}},
     {"A GPU that is lost (Xid 79, fallen off the bus) needs the node drained and rebooted; check the PCIe riser, "
      "power cables and the kernel log. NO_PERMISSION: run plumb as root or fix the /dev/nvidia* permissions.",
      "GPU 丢失（Xid 79，掉卡）需排空节点并重启；检查 PCIe 转接卡、供电线与内核日志。NO_PERMISSION：以 root 运行或修正 /dev/nvidia* 权限。"},
     "nvidia-smi -L && dmesg | grep -iE 'xid|fallen off'",
     {},
     {}},
    {"l3.gpu.temperature", Layer::L3, Pillar::compute, Section::gpu,
     {"GPU temperature", "GPU 温度"},
     {{"pass", {"{count} GPUs below the line ({detail})", "{count} 块 GPU 温度低于告警线（{detail}）"}},
      {"warn", {"GPU at {temp} °C, over the {limit} °C safe line", "GPU 温度 {temp} °C，超过 {limit} °C 安全线"}},
      {"fail", {"GPU at {temp} °C, at its slowdown temperature {slowdown} °C: clocks are being cut",
                "GPU 温度 {temp} °C，已达降频温度 {slowdown} °C：频率正在被压低"}}},
     {"Check airflow and fan/cooling (blocked intake, failed fan, liquid-cooling loop), the inlet temperature of the "
      "rack and the GPU's power limit.",
      "检查风道与散热（进风口堵塞、风扇故障、液冷回路）、机柜进风温度以及 GPU 功耗上限。"},
     "nvidia-smi -q -d TEMPERATURE",
     {"clocks back to full speed: up to the throttled share of step time", "恢复满频：最多挽回被降频吃掉的那部分单步时间"},
     {"l2.watch.throttling", "l2.bench.gpu_throttle", "l2.bench.gemm"}},
    {"l3.gpu.throttle", Layer::L3, Pillar::compute, Section::gpu,
     {"GPU clock slowdown (clocks event reasons)", "GPU 降频原因（clocks event reasons）"},
     {{"pass", {"no slowdown reason active on {count} GPUs", "{count} 块 GPU 无降频原因"}},
      {"fail", {"clocks cut by: {reasons}", "频率被压低，原因：{reasons}"}},
      {"warn", {"clocks capped by the software power limit under load: {reasons}", "负载下受软件功耗墙限制：{reasons}"}}},
     {"HW slowdown / power brake: check the PSUs, power cables and the BMC's power-brake signal. Thermal slowdown: "
      "fix cooling. SW power cap under load: check `nvidia-smi -q -d POWER` for a lowered power limit.",
      "硬件降频/功耗刹车：检查电源、供电线与 BMC 的 power brake 信号；温度降频：改善散热；负载下软件功耗墙：用 "
      "`nvidia-smi -q -d POWER` 检查功耗上限是否被调低。"},
     "nvidia-smi -q -d PERFORMANCE",
     {"full clocks: the throttled share of step time", "恢复满频：挽回降频损失的单步时间"},
     {"l2.watch.throttling", "l2.bench.gpu_throttle", "l2.bench.gemm"}},
    {"l3.gpu.pcie_width", Layer::L3, Pillar::data, Section::gpu,
     {"PCIe link width", "PCIe 链路宽度"},
     {{"pass", {"{count} GPUs at full link width ({detail})", "{count} 块 GPU 链路宽度正常（{detail}）"}},
      {"fail", {"PCIe link at x{width} of x{max}", "PCIe 链路仅 x{width}（最大 x{max}）"}}},
     {"Reseat the GPU or its riser, check the slot's lane wiring (BIOS bifurcation settings) and the PCIe retimer; "
      "a narrower link halves host-device copy bandwidth.",
      "重新插拔 GPU 或转接卡，检查插槽通道配置（BIOS bifurcation）与 PCIe retimer；链路变窄会使主机与显卡间拷贝带宽减半。"},
     "nvidia-smi --query-gpu=pci.bus_id,pcie.link.width.current,pcie.link.width.max --format=csv",
     {"host-device copies at full bandwidth (x16 is twice x8)", "主机与显卡间拷贝带宽恢复（x16 是 x8 的两倍）"},
     {"l2.bench.h2d"}},
    {"l3.gpu.pcie_gen", Layer::L3, Pillar::data, Section::gpu,
     {"PCIe link generation under load", "负载下的 PCIe 链路代数"},
     {{"pass", {"{count} GPUs checked ({detail})", "已检查 {count} 块 GPU（{detail}）"}},
      {"warn", {"busy GPU running PCIe gen {gen} of gen {max}", "GPU 忙碌时 PCIe 仅 Gen{gen}（最大 Gen{max}）"}}},
     {"Idle GPUs downshift the link; a busy GPU below its maximum generation points at the slot, riser, BIOS "
      "PCIe speed setting or signal integrity.",
      "空闲 GPU 会自动降低链路代数；忙碌时仍低于最大代数说明插槽、转接卡、BIOS PCIe 速率设置或信号质量有问题。"},
     "nvidia-smi --query-gpu=pci.bus_id,utilization.gpu,pcie.link.gen.current,pcie.link.gen.max --format=csv",
     {},
     {"l2.bench.h2d"}},
    {"l3.gpu.ecc_errors", Layer::L3, Pillar::memory, Section::gpu,
     {"Uncorrectable ECC errors", "不可纠正 ECC 错误"},
     {{"pass", {"no uncorrectable ECC error on {count} GPUs", "{count} 块 GPU 无不可纠正 ECC 错误"}},
      {"fail", {"{count} uncorrectable ECC errors since the driver loaded", "驱动加载以来 {count} 个不可纠正 ECC 错误"}},
      {"warn", {"{count} uncorrectable ECC errors in the GPU's lifetime", "GPU 生命周期内累计 {count} 个不可纠正 ECC 错误"}},
      {"off", {"ECC is disabled", "ECC 已关闭"}}},
     {"Drain the GPU and reset it (nvidia-smi -r) so retirement/remapping takes effect; if errors recur, RMA the card.",
      "排空该 GPU 的任务并重置（nvidia-smi -r）使页退役/行重映射生效；若错误反复出现，返修该卡。"},
     "nvidia-smi -q -d ECC",
     {},
     {}},
    {"l3.gpu.retired_pages", Layer::L3, Pillar::memory, Section::gpu,
     {"Retired GPU memory pages", "GPU 显存退役页"},
     {{"pass", {"no pending page retirement on {count} GPUs", "{count} 块 GPU 无待生效的退役页"}},
      {"pending", {"page retirement pending ({sbe} single-bit, {dbe} double-bit pages): reset needed",
                   "有待生效的页退役（单比特 {sbe} 页、双比特 {dbe} 页）：需要重置"}},
      {"fail", {"{total} pages retired, at DCGM's limit {limit}", "已退役 {total} 页，达到 DCGM 限值 {limit}"}},
      {"remapping", {"{count} GPUs repair memory by remapping rows, not by retiring pages: judged by l3.gpu.remapped_rows",
                     "{count} 块 GPU 以行重映射而非页退役修复显存：由 l3.gpu.remapped_rows 判定"}}},
     {"Reset the GPU or reload the driver so pending retirements apply; at the limit, RMA the card.",
      "重置 GPU 或重新加载驱动使退役生效；达到限值则返修该卡。"},
     "nvidia-smi -q -d PAGE_RETIREMENT",
     {},
     {}},
    {"l3.gpu.remapped_rows", Layer::L3, Pillar::memory, Section::gpu,
     {"Remapped memory rows", "显存行重映射"},
     {{"pass", {"no pending or failed row remap on {count} GPUs", "{count} 块 GPU 无待生效或失败的行重映射"}},
      {"pending", {"row remap pending ({unc} uncorrectable rows): reset the GPU to activate",
                   "行重映射待生效（{unc} 行不可纠正错误）：需重置 GPU 生效"}},
      {"failure", {"row remapping failed: the GPU ran out of spare rows", "行重映射失败：备用行已耗尽"}},
      {"fail", {"{unc} rows remapped for uncorrectable errors, at DCGM's limit {limit}",
                "{unc} 行因不可纠正错误被重映射，达到 DCGM 限值 {limit}"}}},
     {"Pending: drain and reset the GPU. Failure or at the limit: take the GPU out of service and RMA it.",
      "待生效：排空并重置 GPU；失败或达到限值：停用该 GPU 并返修。"},
     "nvidia-smi -q -d ROW_REMAPPER",
     {},
     {}},
};
});
  t.add_rule({"l3.gpu.nvml_responsive", {"collect.gpu"}, judge_responsive});
  t.add_rule({"l3.gpu.device_lost", {"collect.gpu"}, judge_lost});
  t.add_rule({"l3.gpu.temperature", {"collect.gpu"}, judge_temperature});
  t.add_rule({"l3.gpu.throttle", {"collect.gpu"}, judge_throttle});
  t.add_rule({"l3.gpu.pcie_width", {"collect.gpu"}, judge_pcie_width});
  t.add_rule({"l3.gpu.pcie_gen", {"collect.gpu"}, judge_pcie_gen});
  t.add_rule({"l3.gpu.ecc_errors", {"collect.gpu"}, judge_ecc});
  t.add_rule({"l3.gpu.retired_pages", {"collect.gpu"}, judge_retired});
  t.add_rule({"l3.gpu.remapped_rows", {"collect.gpu"}, judge_remapped});
}

}  // namespace plumb
