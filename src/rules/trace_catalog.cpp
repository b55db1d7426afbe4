// Catalogue rows, thresholds and interface words of the trace (L2) findings: the data and
// compute layers as a PyTorch profiler trace shows them. L3 rows link here through `explains`.
#include "core/catalog.h"
#include "core/i18n.h"
#include "core/thresholds.h"
#include "core/tables.h"

namespace plumb {
namespace {

const std::string kVerify = "plumb trace {file}";




}  // namespace
void rules_trace_catalog_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"trace.dataloader_share_warn", 30, "%",
     {"data-loader wait above this share of the step time warns (the health report's target is < 30 %)",
      "DataLoader 等待超过单步训练时间的该比例时警告（体检报告目标 < 30%）"}},
    {"trace.dataloader_share_fail", 40, "%",
     {"data-loader wait above this share of the step time fails: the GPU is starving for data",
      "DataLoader 等待超过单步训练时间的该比例时判定失败：GPU 在等数据"}},
    {"trace.copy_share_warn", 20, "%",
     {"host-device copies above this share of the step time warn (pin_memory / non_blocking missing)",
      "主机与设备间拷贝超过单步训练时间的该比例时警告（未启用 pin_memory / non_blocking）"}},
    {"trace.pageable_h2d_warn", 1, "count",
     {"this many pageable (non-pinned) host-to-device copies inside the steps warn",
      "步内出现该数量的可分页（非锁页）主机到设备拷贝时警告"}},
    {"trace.gpu_idle_warn", 15, "%", {"GPU idle above this share of the step warns", "GPU 空闲超过单步时间的该比例时警告"}},
    {"trace.gpu_idle_fail", 50, "%", {"GPU idle above this share of the step fails", "GPU 空闲超过单步时间的该比例时判定失败"}},
    {"trace.comm_overlap_warn", 50, "%",
     {"communication kernels overlapped with computation less than this share warn",
      "通信 kernel 与计算重叠低于该比例时警告"}},
    {"trace.sync_calls_warn", 1, "count",
     {"this many synchronising runtime calls inside the steps warn", "步内同步类运行时调用达到该次数时警告"}},
    {"trace.launch_bound_steps_warn", 50, "%",
     {"launch-bound steps above this share of the steps warn", "受内核启动开销限制的 step 超过该比例时警告"}},
    {"trace.memory_reserved_ratio_warn", 1.5, "ratio",
     {"peak reserved / peak allocated GPU memory above this ratio warns (fragmentation)",
      "显存峰值 reserved / allocated 超过该比值时警告（显存碎片）"}},
    {"trace.memory_gap_min_mib", 1024, "MiB",
     {"the reserved - allocated gap must also be at least this large to warn", "reserved 与 allocated 的差值至少达到该值才警告"}},
    {"trace.min_window_us", 1000, "µs",
     {"shares (GPU idle, data wait, copies, overlap) of a window shorter than this are not judged",
      "短于该时长的窗口不评估其占比（GPU 空闲、数据等待、拷贝、重叠）"}},
    {"trace.straggler_warn", 10, "%",
     {"a rank whose median step time exceeds the median of all ranks by more than this warns",
      "某 rank 的单步时间中位数比所有 rank 的中位数慢超过该比例时警告"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l2.trace.step_time",
     Layer::L2,
     Pillar::compute,
     Section::framework,
     {"Training step time (profiler trace)", "单步训练耗时（Profiler 追踪）"},
     {{"info",
       {"step time median {median} (min {min}, max {max}) over {window}",
        "单步耗时中位数 {median}（最短 {min}，最长 {max}），统计范围：{window}"}},
      {"no_steps",
       {"no ProfilerStep#N spans: the whole trace ({duration}) is judged as one window; call prof.step() each "
        "iteration for per-step numbers",
        "没有 ProfilerStep#N 区间：整个追踪（{duration}）作为一个窗口评估；每次迭代调用 prof.step() 可得到逐步数据"}}},
     {"", ""},
     kVerify,
     {"", ""},
     {}},
    {"l2.trace.dataloader_share",
     Layer::L2,
     Pillar::data,
     Section::data,
     {"Data-loader wait share of the step", "DataLoader 耗时占比"},
     {{"pass", {"data loading takes {share} of the step time ({window})", "数据加载占单步训练时间的 {share}（{window}）"}},
      {"fail",
       {"data loading takes {share} of the step time ({window}): the GPU waits for data",
        "数据加载占单步训练时间的 {share}（{window}）：GPU 在等数据"}}},
     {"Feed the GPU faster: raise DataLoader(num_workers=...) towards the CPUs the job may use, prefetch_factor >= 2, "
      "pin_memory=True, persistent_workers=True; move decoding/augmentation off the main process. On the host, check "
      "with `plumb check`: /dev/shm size (l3.storage.shm_size), the cgroup CPU quota and thread oversubscription "
      "(l3.compute.thread_oversubscription), the dataset disk's IO scheduler (l3.storage.io_scheduler).",
      "让数据跟上 GPU：把 DataLoader 的 num_workers 调到作业可用的 CPU 数附近，prefetch_factor >= 2，pin_memory=True，"
      "persistent_workers=True；把解码与数据增强移出主进程。主机层用 `plumb check` 检查：/dev/shm 大小"
      "（l3.storage.shm_size）、cgroup CPU 配额与线程超订（l3.compute.thread_oversubscription）、数据盘的 IO 调度器"
      "（l3.storage.io_scheduler）。"},
     kVerify,
     {"up to {share} of each step back for computation", "每步最多可节省 {share} 的时间用于计算"},
     {}},
    {"l2.trace.copy_share",
     Layer::L2,
     Pillar::data,
     Section::data,
     {"Host-device copy share of the step", "内存拷贝耗时占比"},
     {{"pass", {"copies take {share} of the step time ({source})", "拷贝占单步训练时间的 {share}（{source}）"}},
      {"fail", {"copies take {share} of the step time ({source})", "拷贝占单步训练时间的 {share}（{source}）"}},
      {"pageable",
       {"{count} pageable (non-pinned) host-to-device copies in the steps ({bytes}, {time}); copies take {share} of the "
        "step time",
        "步内有 {count} 次可分页（非锁页）主机到设备拷贝（{bytes}，{time}）；拷贝占单步训练时间的 {share}"}}},
     {"Use DataLoader(pin_memory=True) and tensor.to(device, non_blocking=True) so copies run asynchronously from "
      "pinned memory and overlap computation; avoid .cpu()/.item() and dtype conversions inside the loop. If pinning "
      "fails, check the memlock limit (`plumb check`, l3.memory.memlock_limit).",
      "使用 DataLoader(pin_memory=True) 与 tensor.to(device, non_blocking=True)，让拷贝从锁页内存异步进行并与计算重叠；"
      "避免在循环内调用 .cpu()/.item() 和做 dtype 转换。若锁页失败，用 `plumb check` 检查 memlock 限制（l3.memory.memlock_limit）。"},
     kVerify,
     {"up to {share} of each step", "每步最多可节省 {share}"},
     {}},
    {"l2.trace.gpu_idle",
     Layer::L2,
     Pillar::compute,
     Section::gpu,
     {"GPU idle share of the step", "GPU 空闲占比"},
     {{"pass", {"the GPU is idle for {share} of the step time ({window})", "GPU 在单步时间中空闲 {share}（{window}）"}},
      {"fail",
       {"the GPU is idle for {share} of the step time ({window}): busy {busy} of {total}",
        "GPU 在单步时间中空闲 {share}（{window}）：忙碌 {busy} / 总计 {total}"}}},
     {"Find what the GPU waits for in this report: data loading (l2.trace.dataloader_share), copies "
      "(l2.trace.copy_share), synchronisations (l2.trace.sync_stalls) or kernel launches (l2.trace.launch_bound). "
      "Larger batches, torch.compile / CUDA graphs and asynchronous input pipelines keep the GPU fed.",
      "在本报告中找出 GPU 在等什么：数据加载（l2.trace.dataloader_share）、拷贝（l2.trace.copy_share）、同步"
      "（l2.trace.sync_stalls）或内核启动（l2.trace.launch_bound）。增大 batch、使用 torch.compile / CUDA Graph、"
      "异步数据管道可让 GPU 忙起来。"},
     kVerify,
     {"up to {share} of GPU time", "最多可回收 {share} 的 GPU 时间"},
     {}},
    {"l2.trace.comm_overlap",
     Layer::L2,
     Pillar::comm,
     Section::distributed,
     {"Communication overlapped with computation", "通信与计算重叠"},
     {{"pass",
       {"{share} of communication kernel time overlaps computation ({comm} of NCCL kernels)",
        "{share} 的通信 kernel 时间与计算重叠（NCCL kernel 共 {comm}）"}},
      {"fail",
       {"only {share} of communication kernel time overlaps computation ({comm} of NCCL kernels, {exposed} exposed)",
        "只有 {share} 的通信 kernel 时间与计算重叠（NCCL kernel 共 {comm}，其中 {exposed} 未被掩盖）"}}},
     {"Let DDP/FSDP overlap gradient all-reduce with backward: keep gradient bucketing on (bucket_cap_mb 25-100), "
      "avoid find_unused_parameters=True, do not synchronise inside backward; for FSDP enable backward_prefetch. "
      "Slow links make exposed communication longer: check the NCCL transport and topology with `plumb check` "
      "(distributed layer) and `plumb topo`.",
      "让 DDP/FSDP 的梯度 AllReduce 与反向计算重叠：保持梯度分桶（bucket_cap_mb 25-100），避免 "
      "find_unused_parameters=True，不要在 backward 中同步；FSDP 开启 backward_prefetch。链路慢会拉长未被掩盖的通信：用 "
      "`plumb check`（分布式层）和 `plumb topo` 检查 NCCL 传输与拓扑。"},
     kVerify,
     {"up to {exposed} per window", "每个窗口最多可节省 {exposed}"},
     {}},
    {"l2.trace.sync_stalls",
     Layer::L2,
     Pillar::compute,
     Section::framework,
     {"Synchronising calls inside the training loop", "训练循环内的同步调用"},
     {{"pass", {"no synchronising runtime call inside the steps", "步内没有同步类运行时调用"}},
      {"fail",
       {"{count} synchronising runtime calls inside the steps ({time}, {share} of the step time): {names}",
        "步内有 {count} 次同步类运行时调用（{time}，占单步时间 {share}）：{names}"}}},
     {"Each synchronisation drains the GPU queue and stalls the CPU. Remove .item(), .cpu(), print(tensor), "
      "torch.cuda.synchronize() and blocking cudaMemcpy from the step loop (log every N steps, keep metrics on the "
      "GPU); use non_blocking=True copies from pinned memory.",
      "每次同步都会清空 GPU 队列并阻塞 CPU。从训练循环中移除 .item()、.cpu()、print(tensor)、torch.cuda.synchronize() "
      "和阻塞式 cudaMemcpy（每 N 步记录一次日志，把指标留在 GPU 上）；从锁页内存做 non_blocking=True 拷贝。"},
     kVerify,
     {"", ""},
     {}},
    {"l2.trace.launch_bound",
     Layer::L2,
     Pillar::compute,
     Section::framework,
     {"Kernel-launch-bound steps", "受内核启动开销限制的 step"},
     {{"pass",
       {"{bound} of {steps} steps are launch-bound ({launches} kernel launches per step on average)",
        "{steps} 步中有 {bound} 步受启动开销限制（平均每步启动 {launches} 个 kernel）"}},
      {"fail",
       {"{bound} of {steps} steps are launch-bound: {short_share} of their kernels ran shorter than their launch call "
        "and the GPU idled ({launches} launches per step)",
        "{steps} 步中有 {bound} 步受启动开销限制：{short_share} 的 kernel 运行时间短于其启动调用，GPU 处于空闲（平均每步 "
        "{launches} 次启动）"}}},
     {"Too many tiny kernels: capture the step with CUDA graphs (torch.compile(mode=\"reduce-overhead\")), fuse "
      "elementwise ops (torch.compile, fused optimizers: foreach=True / fused=True), or raise the batch size so "
      "each kernel does more work.",
      "kernel 太多太小：用 CUDA Graph 捕获整步（torch.compile(mode=\"reduce-overhead\")），融合逐元素算子（torch.compile，"
      "融合优化器 foreach=True / fused=True），或增大 batch 让每个 kernel 做更多工作。"},
     kVerify,
     {"", ""},
     {}},
    {"l2.trace.straggler",
     Layer::L2,
     Pillar::comm,
     Section::distributed,
     {"Slowest rank (straggler)", "慢节点（最慢的 rank）"},
     {{"pass",
       {"{ranks} ranks: median step {median}, slowest {slowest} at {slowest_time} (+{excess}), spread {spread}",
        "{ranks} 个 rank：单步中位数 {median}，最慢的 {slowest} 为 {slowest_time}（+{excess}），离散度 {spread}"}},
      {"fail",
       {"{slowest} is {excess} slower than the median rank ({slowest_time} vs {median} per step); every other rank "
        "waits for it at each collective",
        "{slowest} 比中位 rank 慢 {excess}（每步 {slowest_time}，中位数 {median}）；其他 rank 在每次集合通信时都要等它"}}},
     {"Compare the slow rank's breakdown with the others in this report (data loading, GPU idle, copies); on its "
      "host run `plumb check` (thermal/clock throttling, Xid errors, CPU governor, NUMA binding) and `plumb bench "
      "gemm` to rule out a slow GPU.",
      "在本报告中对比慢 rank 与其他 rank 的分解（数据加载、GPU 空闲、拷贝）；在其主机上运行 `plumb check`（温度/降频、"
      "Xid 错误、CPU 调频策略、NUMA 绑定）和 `plumb bench gemm` 排除 GPU 本身慢。"},
     "plumb trace {files}",
     {"up to {excess} per step for every rank", "所有 rank 每步最多可节省 {excess}"},
     {}},
};
});
  t.add_ui([] {
  return std::vector<UiString>{
    {"trace.title", {"Profiler trace", "Profiler 追踪"}},
    {"trace.col.step", {"step", "步"}},
    {"trace.col.time", {"time", "耗时"}},
    {"trace.col.dataloader", {"data wait", "数据等待"}},
    {"trace.col.copy", {"H2D copy", "H2D拷贝"}},
    {"trace.col.cpu_copy", {"CPU copy", "CPU拷贝"}},
    {"trace.col.gpu_busy", {"GPU busy", "GPU忙碌"}},
    {"trace.col.gpu_idle", {"GPU idle", "GPU空闲"}},
    {"trace.col.comm", {"comm", "通信"}},
    {"trace.col.sync", {"syncs", "同步"}},
    {"trace.col.launches", {"launches", "启动"}},
    {"trace.col.optimizer", {"optimizer", "优化器"}},
    {"trace.total", {"complete steps", "完整步合计"}},
    {"trace.partial", {"(partial, not counted)", "（不完整，未计入）"}},
    {"trace.launch_bound_mark", {"launch-bound", "启动受限"}},
    {"trace.file", {"file", "文件"}},
    {"trace.format", {"format", "格式"}},
    {"trace.devices", {"devices", "设备"}},
    {"trace.read", {"read {mb} MB, {events} events in {ms} ms", "读取 {mb} MB、{events} 个事件，用时 {ms} ms"}},
    {"trace.top_ops", {"Top operators by self time", "自身耗时最多的算子"}},
    {"trace.hta", {"HTA temporal breakdown (whole trace, HTA's definitions)", "HTA 时间分解（整个追踪，HTA 定义）"}},
    {"trace.hta_line",
     {"GPU span {span}: idle {idle} %, compute {compute} %, non-compute {noncompute} %, comm/comp overlap {overlap}",
      "GPU 区间 {span}：空闲 {idle}%，计算 {compute}%，非计算 {noncompute}%，通信/计算重叠 {overlap}"}},
    {"trace.hta_na", {"n/a ({why})", "不适用（{why}）"}},
    {"trace.memory", {"Memory (peak per device)", "显存/内存峰值（按设备）"}},
    {"trace.memcpy",
     {"H2D {h2d_bytes} at {h2d_bw}, D2H {d2h_bytes} at {d2h_bw}; pageable H2D: {pageable}",
      "H2D {h2d_bytes}，带宽 {h2d_bw}；D2H {d2h_bytes}，带宽 {d2h_bw}；可分页 H2D：{pageable}"}},
    {"trace.cross_rank", {"Across ranks", "跨 rank 对比"}},
    {"trace.note.no_profiler_steps",
     {"no ProfilerStep#N spans: the whole trace is one window", "没有 ProfilerStep#N 区间：整个追踪作为一个窗口"}},
    {"trace.note.last_step_partial",
     {"the last step was cut short by the end of profiling and is not counted",
      "最后一步被 Profiler 结束截断，未计入合计"}},
    {"trace.note.no_gpu_events", {"CPU-only trace: no GPU activity recorded", "仅 CPU 的追踪：没有记录 GPU 活动"}},
    {"trace.note.mtia_not_analysed",
     {"MTIA accelerator events are not analysed as GPU time", "MTIA 加速器事件不按 GPU 时间分析"}},
    {"trace.note.cupti_range_not_analysed",
     {"CUPTI profiler ranges instead of kernels: GPU time not analysed", "追踪中是 CUPTI profiler 区间而非 kernel：不分析 GPU 时间"}},
    {"trace.note.steps_filtered", {"steps restricted by --steps", "已按 --steps 限定步范围"}},
    {"trace.note.legacy_format",
     {"legacy autograd-profiler export (no GPU activity, no categories)", "旧版 autograd profiler 导出格式（无 GPU 活动、无类别）"}},
    {"trace.na", {"n/a", "无"}},
};
});
}

}  // namespace plumb
