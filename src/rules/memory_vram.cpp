// Rules of the caching allocator (`plumb memory`): per device of each file, the snapshot summary,
// CUDA OOMs (pressure or fragmentation), cudaMalloc retries, fragmentation and memory pressure,
// judged on facts.allocator that analyze/memory_stats.cpp parsed.
#include <algorithm>

#include "analyze/memory_stats.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {
namespace {

constexpr const char* kSummary = "l2.vram.summary";
constexpr const char* kOom = "l2.vram.oom";
constexpr const char* kRetries = "l2.vram.alloc_retries";
constexpr const char* kFrag = "l2.vram.fragmentation";
constexpr const char* kPressure = "l2.vram.pressure";

std::string hb(const std::optional<std::uint64_t>& v) { return v ? memory_bytes_text(*v) : std::string("n/a"); }
std::string count_text(const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : std::string("n/a"); }
std::string ratio_pct(double r) { return fmt_num(r * 100.0, 1) + " %"; }

// One device of one file, as each rule sees it.
struct Subject {
  const MemoryInput& file;
  const MemoryDeviceView& view;
  [[nodiscard]] std::string name() const { return "cuda:" + view.stats.device; }
  [[nodiscard]] Finding base(const char* id) const {
    Finding f;
    f.id = id;
    f.subject = name();
    f.arg("device", name());
    return f;
  }
};

// Runs `fn` on every device of every file `plumb memory` read.
template <class Fn>
std::vector<Finding> each_device(const Facts& facts, Fn fn) {
  std::vector<Finding> out;
  if (!facts.allocator.collected) return out;  // only `plumb memory` feeds these rules
  for (const auto& file : facts.allocator.files) {
    for (const auto& v : memory_devices(file, facts.allocator.gpu_memory_bytes)) out.push_back(fn(Subject{file, v}));
  }
  return out;
}

// Summary: what the numbers say, and how much to trust them.
Finding summary(const Subject& s) {
  const auto& d = s.view.stats;
  const auto& A = d.allocated_bytes;
  const auto& R = d.reserved_bytes;
  const std::string& src = s.file.file;
  Finding f = s.base(kSummary);
  f.status = Status::info;
  f.arg("alloc", hb(A.current)).arg("alloc_peak", hb(A.peak)).arg("reserved", hb(R.current))
      .arg("reserved_peak", hb(R.peak)).arg("nonrel", hb(d.inactive_split_bytes.current))
      .arg("allocs", count_text(d.allocations.current)).arg("segments", count_text(d.segments.current))
      .arg("total_alloc", hb(A.allocated)).arg("total_freed", hb(A.freed));
  f.add("allocated (current / peak)", hb(A.current) + " / " + hb(A.peak), src);
  f.add("reserved (current / peak)", hb(R.current) + " / " + hb(R.peak), src);
  if (d.inactive_split_bytes.current) f.add("non-releasable", hb(d.inactive_split_bytes.current), src);
  if (s.view.capacity) f.add("GPU capacity", hb(s.view.capacity), s.view.capacity_source);
  if (!A.any() && !R.any()) f.variant = "oom_only";
  else if (d.truncated) f.variant = "truncated";
  else if (A.freed && *A.freed == 0) f.variant = "early";
  return f;
}

// OOMs: from the table's counter, else the messages; the variant says where the memory went.
Finding ooms(const Subject& s, const Thresholds& th) {
  const auto& d = s.view.stats;
  const auto& last = s.view.last_oom;
  std::optional<std::uint64_t> n = d.num_ooms;
  if (!n && s.view.oom_messages > 0) n = s.view.oom_messages;
  if (!n) return skipped(kOom, "no OOM counter or message in " + s.file.file, s.name());
  Finding f = s.base(kOom);
  f.add("CUDA OOMs", std::to_string(*n), s.file.file);
  if (d.num_alloc_retries) f.add("cudaMalloc retries", std::to_string(*d.num_alloc_retries), s.file.file);
  if (last) f.add("OOM message", last->text, s.file.file);
  f.arg("ooms", std::to_string(*n)).arg("retries", count_text(d.num_alloc_retries));
  f.threshold = "== 0";
  if (*n == 0) {
    f.status = Status::pass;
    return f;
  }
  f.status = Status::fail;
  // Where did the memory go: used by tensors (pressure) or cached but unusable (fragmentation)?
  std::optional<std::uint64_t> alloc = d.allocated_bytes.current, res = d.reserved_bytes.current;
  if ((!alloc || !res) && last) alloc = last->allocated_by_torch, res = last->reserved_by_torch;
  if (alloc && res && *res > 0) {
    std::uint64_t gap = *res > *alloc ? *res - *alloc : 0;
    double ratio = static_cast<double>(gap) / static_cast<double>(*res);
    const auto frag_min = static_cast<std::uint64_t>(th.get("vram.fragmentation_min_mib") * 1048576.0);
    f.arg("alloc", memory_bytes_text(*alloc)).arg("reserved", memory_bytes_text(*res)).arg("gap", memory_bytes_text(gap))
        .arg("gap_pct", ratio_pct(ratio)).arg("capacity", hb(s.view.capacity));
    f.variant = ratio > th.get("vram.fragmentation_ratio_warn") && gap >= frag_min ? "fragmented" : "pressure";
  }
  return f;
}

Finding retries(const Subject& s) {
  const auto& r = s.view.stats.num_alloc_retries;
  if (!r) return skipped(kRetries, "no cudaMalloc retry counter in " + s.file.file, s.name());
  Finding f = s.base(kRetries);
  f.add("cudaMalloc retries", std::to_string(*r), s.file.file);
  f.arg("retries", std::to_string(*r));
  f.threshold = "== 0";
  f.status = *r == 0 ? Status::pass : Status::warn;
  return f;
}

// Fragmentation: reserved by the cache but not allocated to tensors.
Finding fragmentation(const Subject& s, const Thresholds& th) {
  const auto& d = s.view.stats;
  const auto& last = s.view.last_oom;
  const double frag_ratio = th.get("vram.fragmentation_ratio_warn");
  const auto frag_min = static_cast<std::uint64_t>(th.get("vram.fragmentation_min_mib") * 1048576.0);
  std::optional<std::uint64_t> fa = d.allocated_bytes.current, fr = d.reserved_bytes.current;
  std::string src = s.file.file;
  if ((!fa || !fr) && last && last->allocated_by_torch && last->reserved_by_torch) {
    fa = last->allocated_by_torch, fr = last->reserved_by_torch, src = s.file.file + " (OOM message)";
  }
  if (!fa || !fr || *fr == 0) {
    return skipped(kFrag, d.truncated ? "the summary stops before the reserved-memory section" : "reserved memory not reported",
                   s.name());
  }
  Finding f = s.base(kFrag);
  std::uint64_t gap = *fr > *fa ? *fr - *fa : 0;
  double ratio = static_cast<double>(gap) / static_cast<double>(*fr);
  f.add("allocated", memory_bytes_text(*fa), src);
  f.add("reserved", memory_bytes_text(*fr), src);
  if (d.inactive_split_bytes.current) f.add("non-releasable (inactive split blocks)", hb(d.inactive_split_bytes.current), src);
  f.arg("gap", memory_bytes_text(gap)).arg("ratio", ratio_pct(ratio)).arg("alloc", memory_bytes_text(*fa))
      .arg("reserved", memory_bytes_text(*fr));
  f.threshold = "(reserved - allocated) / reserved <= " + ratio_pct(frag_ratio) + " or < " + memory_bytes_text(frag_min);
  f.status = ratio > frag_ratio && gap >= frag_min ? Status::warn : Status::pass;
  return f;
}

// Pressure: the peak the cache reached against the card's capacity.
Finding pressure(const Subject& s, const Thresholds& th) {
  const auto& R = s.view.stats.reserved_bytes;
  const double peak_frac = th.get("vram.peak_fraction_warn");
  std::optional<std::uint64_t> peak = R.peak ? R.peak : R.current;
  if (!peak && s.view.last_oom) peak = s.view.last_oom->reserved_by_torch;
  const auto& capacity = s.view.capacity;
  if (!capacity) return skipped(kPressure, "GPU capacity unknown (no OOM message): pass --gpu-memory SIZE", s.name());
  if (!peak) return skipped(kPressure, "peak reserved memory not reported", s.name());
  Finding f = s.base(kPressure);
  double frac = static_cast<double>(*peak) / static_cast<double>(*capacity);
  f.add("peak reserved", memory_bytes_text(*peak), s.file.file);
  f.add("GPU capacity", memory_bytes_text(*capacity), s.view.capacity_source);
  f.arg("peak", memory_bytes_text(*peak)).arg("capacity", memory_bytes_text(*capacity)).arg("frac", ratio_pct(frac));
  f.threshold = "peak reserved < " + ratio_pct(peak_frac) + " of capacity";
  f.status = frac >= peak_frac ? Status::warn : Status::pass;
  return f;
}



const Text kOomFix{
    "Make the step fit: smaller per-GPU batch (keep the global batch with gradient accumulation), gradient "
    "checkpointing (torch.utils.checkpoint: about 20 % more time for about half the activation memory), mixed "
    "precision. If reserved is far above allocated, set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch >= "
    "2.1) or max_split_size_mb:128. A loss that turns NaN after some steps can be this memory pressure in disguise: "
    "rerun with CUDA_LAUNCH_BLOCKING=1 to see the real error.",
    "让每一步装得下：减小单卡 batch（用梯度累积保持全局 batch）、启用梯度检查点（torch.utils.checkpoint：约多 20% "
    "时间，省约一半激活显存）、混合精度。若 reserved 远大于 allocated，设置 "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True（PyTorch >= 2.1）或 max_split_size_mb:128。训练若干步后 loss "
    "变成 NaN 可能正是显存压力的伪装：用 CUDA_LAUNCH_BLOCKING=1 重跑以看到真实错误。"};


}  // namespace
void rules_memory_vram_tables(Tables& t) {
  t.add_rule({kSummary, {}, [](const Facts& f, const Thresholds&) { return each_device(f, summary); }});
  t.add_rule({kOom, {}, [](const Facts& f, const Thresholds& th) {
                     return each_device(f, [&](const Subject& s) { return ooms(s, th); });
                   }});
  t.add_rule({kRetries, {}, [](const Facts& f, const Thresholds&) { return each_device(f, retries); }});
  t.add_rule({kFrag, {}, [](const Facts& f, const Thresholds& th) {
                     return each_device(f, [&](const Subject& s) { return fragmentation(s, th); });
                   }});
  t.add_rule({kPressure, {}, [](const Facts& f, const Thresholds& th) {
                     return each_device(f, [&](const Subject& s) { return pressure(s, th); });
                   }});
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"vram.fragmentation_ratio_warn", 0.2, "ratio",
     {"caching allocator: (reserved - allocated) / reserved above this is fragmentation",
      "缓存分配器：(reserved - allocated) / reserved 超过该值视为显存碎片"}},
    {"vram.fragmentation_min_mib", 512, "MiB",
     {"caching allocator: reserved-but-unallocated memory below this is never called fragmentation",
      "缓存分配器：已保留但未分配的显存低于该值时不视为碎片"}},
    {"vram.peak_fraction_warn", 0.95, "ratio",
     {"peak reserved GPU memory at or above this fraction of the capacity is memory pressure (healthy: < 95 %, 5 % left against OOM)",
      "峰值保留显存达到容量的该比例即为显存压力（健康：< 95%，留 5% 余量防 OOM）"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {kSummary, Layer::L2, Pillar::memory, Section::gpu,
     {"Caching allocator snapshot", "缓存分配器快照"},
     {{"info",
       {"{device}: allocated {alloc} (peak {alloc_peak}), reserved {reserved} (peak {reserved_peak}), non-releasable "
        "{nonrel}; {allocs} allocations in {segments} segments.",
        "{device}：已分配 {alloc}（峰值 {alloc_peak}），已保留 {reserved}（峰值 {reserved_peak}），不可释放 {nonrel}；"
        "{segments} 个段中共 {allocs} 次分配。"}},
      {"early",
       {"{device}: allocated {alloc}, reserved {reserved}, nothing freed yet (Tot Freed 0): the snapshot was taken "
        "before any step released memory (right after loading), so training peaks will be higher.",
        "{device}：已分配 {alloc}，已保留 {reserved}，尚未释放任何显存（Tot Freed 为 0）：快照取自第一次释放之前（刚加载完），"
        "训练时的峰值会更高。"}},
      {"truncated",
       {"{device}: allocated {alloc} (peak {alloc_peak}); the table stops before the reserved-memory rows, so "
        "fragmentation cannot be judged from it.",
        "{device}：已分配 {alloc}（峰值 {alloc_peak}）；表格在保留显存各行之前被截断，无法据此判断碎片。"}},
      {"oom_only",
       {"{device}: only out-of-memory messages, no allocator table.", "{device}：只有显存溢出报错，没有分配器统计表。"}}},
     {},
     "python -c \"import torch; print(torch.cuda.memory_summary())\"",
     {},
     {}},
    {kOom, Layer::L2, Pillar::memory, Section::gpu,
     {"CUDA out-of-memory errors", "CUDA 显存溢出（OOM）"},
     {{"pass", {"{device}: no CUDA out-of-memory error recorded.", "{device}：没有记录到 CUDA 显存溢出。"}},
      {"fail", {"{device}: {ooms} CUDA out-of-memory errors ({retries} cudaMalloc retries).",
                "{device}：{ooms} 次 CUDA 显存溢出（cudaMalloc 重试 {retries} 次）。"}},
      {"pressure",
       {"{device}: {ooms} CUDA out-of-memory errors and {retries} cudaMalloc retries. Tensors really use the memory: "
        "{alloc} allocated of {reserved} reserved (only {gap}, {gap_pct}, cached but unused; capacity {capacity}). "
        "This is memory pressure, not fragmentation: the step does not fit.",
        "{device}：{ooms} 次 CUDA 显存溢出，cudaMalloc 重试 {retries} 次。显存确实被张量占用：已保留 {reserved} 中已分配 "
        "{alloc}（仅 {gap}，即 {gap_pct} 被缓存而未使用；容量 {capacity}）。这是显存压力而非碎片：这一步装不下。"}},
      {"fragmented",
       {"{device}: {ooms} CUDA out-of-memory errors and {retries} cudaMalloc retries while {gap} ({gap_pct}) of the "
        "{reserved} reserved is cached but not allocated: fragmentation makes large blocks unavailable.",
        "{device}：{ooms} 次 CUDA 显存溢出，cudaMalloc 重试 {retries} 次，而已保留的 {reserved} 中有 {gap}（{gap_pct}）"
        "被缓存却未分配：碎片导致无法得到大块显存。"}}},
     kOomFix,
     "python -c \"import torch; print(torch.cuda.memory_summary())\"",
     {"training runs without skipped steps or crashes", "训练不再跳步或崩溃"},
     {}},
    {kRetries, Layer::L2, Pillar::memory, Section::gpu,
     {"cudaMalloc retries", "cudaMalloc 重试"},
     {{"pass", {"{device}: no cudaMalloc retry: the cache always had room.", "{device}：没有 cudaMalloc 重试：缓存始终够用。"}},
      {"warn",
       {"{device}: {retries} cudaMalloc retries: the allocator had to free its whole cache and retry, which "
        "synchronises the device each time; the job runs at the edge of memory.",
        "{device}：cudaMalloc 重试 {retries} 次：分配器不得不释放整个缓存后重试，每次都会同步设备；任务运行在显存边缘。"}}},
     kOomFix,
     "python -c \"import torch; print(torch.cuda.memory_stats()['num_alloc_retries'])\"",
     {"no allocator stalls", "消除分配器停顿"},
     {}},
    {kFrag, Layer::L2, Pillar::memory, Section::gpu,
     {"Caching-allocator fragmentation", "缓存分配器碎片"},
     {{"pass", {"{device}: {gap} ({ratio}) of {reserved} reserved is cached but unallocated: no fragmentation problem.",
                "{device}：已保留 {reserved} 中有 {gap}（{ratio}）已缓存未分配：没有碎片问题。"}},
      {"warn",
       {"{device}: reserved {reserved} is far above allocated {alloc}: {gap} ({ratio}) is cached but unusable for "
        "large blocks (fragmentation).",
        "{device}：已保留 {reserved} 远大于已分配 {alloc}：{gap}（{ratio}）被缓存却无法用于大块分配（碎片）。"}},
      // The same behaviour seen in a profiler trace's [memory] events (`plumb trace`).
      {"trace_pass",
       {"{device}: peak reserved {reserved}, peak allocated {allocated} (ratio {ratio})",
        "{device}：reserved 峰值 {reserved}，allocated 峰值 {allocated}（比值 {ratio}）"}},
      {"trace_warn",
       {"{device}: the caching allocator reserved {reserved} at peak but tensors used only {allocated} ({gap} "
        "held in cached blocks, ratio {ratio})",
        "{device}：缓存分配器峰值 reserved {reserved}，张量只用了 {allocated}（{gap} 停留在缓存块中，比值 {ratio}），"
        "存在显存碎片"}}},
     {"Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch >= 2.1) so segments grow instead of splitting, "
      "or max_split_size_mb:128 on older versions; avoid many differently sized temporary tensors and do not call "
      "torch.cuda.empty_cache() in the loop.",
      "设置 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True（PyTorch >= 2.1），让段扩展而不是切分；旧版本用 "
      "max_split_size_mb:128；避免大量尺寸各异的临时张量，不要在循环中调用 torch.cuda.empty_cache()。"},
     "python -c \"import torch; s=torch.cuda.memory_stats(); print(s['reserved_bytes.all.current']-s['allocated_bytes.all.current'])\"",
     {"the cached memory becomes usable again", "缓存的显存重新可用"},
     {}},
    {kPressure, Layer::L2, Pillar::memory, Section::gpu,
     {"GPU memory pressure", "显存压力"},
     {{"pass", {"{device}: peak reserved {peak} is {frac} of the {capacity} capacity.",
                "{device}：峰值保留显存 {peak}，占容量 {capacity} 的 {frac}。"}},
      {"warn",
       {"{device}: peak reserved {peak} is {frac} of the {capacity} capacity: no headroom for a longer sequence or a "
        "fragmentation spike.",
        "{device}：峰值保留显存 {peak}，占容量 {capacity} 的 {frac}：没有余量应对更长序列或碎片波动。"}}},
     kOomFix,
     "nvidia-smi --query-gpu=memory.used,memory.total --format=csv",
     {"headroom against OOM", "为避免 OOM 留出余量"},
     {}},
};
});
}

}  // namespace plumb
