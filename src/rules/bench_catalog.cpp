// Catalogue rows and thresholds of the benchmark and baseline rules (both languages).
#include "core/catalog.h"
#include "core/thresholds.h"
#include "rules/bench_row.h"
#include "core/tables.h"

namespace plumb {

namespace {


CatalogEntry bench_catalog_row(std::string id, Pillar p, Text title, std::map<std::string, Text> msgs, Text fix, std::string verify, Text gain = {}) {
  return bench_row(std::move(id), p, std::move(title), std::move(msgs), std::move(fix), std::move(verify), std::move(gain));
}


}  // namespace
void rules_bench_catalog_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"baseline.warn_pct", 10, "%", {"a metric worse than the baseline by more than this warns", "指标比基线差超过该值时告警"}},
    {"baseline.fail_pct", 25, "%", {"a metric worse than the baseline by more than this fails", "指标比基线差超过该值时判为失败"}},
    {"bench.cv_warn_pct", 5, "%", {"coefficient of variation above which a benchmark's samples are too scattered to trust",
                                   "基准测试样本变异系数超过该值即视为不可信"}},
    {"bench.drift_warn_pct", 10, "%", {"spread of a metric's median over this run and the earlier ones with the same settings on this host above which a change against a baseline cannot be told from the machine's own drift",
                                       "同一主机、同样设置下本次与之前各次运行的中位数极差超过该值时，与基线的差异无法与机器自身漂移区分"}},
    {"bench.membw_min_scaling", 1.5, "x", {"all-CPU copy bandwidth must be at least this multiple of one thread's (4+ CPUs)",
                                           "全部 CPU 的 copy 带宽至少应为单线程的该倍数（4 个以上 CPU 时）"}},
    {"bench.storage_seq_min_mbps", 500, "MB/s", {"sequential read below this is too slow to feed GPU training",
                                                 "顺序读低于该值不足以喂饱 GPU 训练"}},
    {"bench.step_loader_gain_warn_pct", 20, "%", {"PyTorch's default DataLoader (num_workers=0) slower than the best setting by more than this warns",
                                                  "PyTorch 默认 DataLoader（num_workers=0）比最佳设置慢超过该值时告警"}},
    {"bench.h2d_pinned_min_gbps", 10, "GB/s", {"pinned host-to-device copies below this point at a degraded PCIe link or a cross-NUMA path",
                                               "锁页内存主机到设备拷贝低于该值说明 PCIe 链路降级或跨 NUMA"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    bench_catalog_row("l2.bench.membw", Pillar::memory, {"Host memory bandwidth", "主机内存带宽"},
        {{"info", {"copy {copy_1t} GB/s with 1 thread, {copy_all} GB/s with {threads} CPUs; triad {triad_1t} / {triad_all} GB/s",
                   "copy 单线程 {copy_1t} GB/s，{threads} 个 CPU {copy_all} GB/s；triad {triad_1t} / {triad_all} GB/s"}},
         {"no_scaling", {"memory bandwidth does not scale: {copy_all} GB/s on {threads} CPUs is only {ratio}x one thread's {copy_1t} GB/s",
                         "内存带宽不随 CPU 数扩展：{threads} 个 CPU 仅 {copy_all} GB/s，只有单线程 {copy_1t} GB/s 的 {ratio} 倍"}}},
        {"check the populated memory channels (dmidecode -t memory), NUMA placement (numactl --hardware) and the CPU governor (performance)",
         "检查内存通道是否插满（dmidecode -t memory）、NUMA 亲和（numactl --hardware）与 CPU 调频策略（performance）"},
        "plumb bench membw"),
    bench_catalog_row("l2.bench.storage", Pillar::data, {"Storage read throughput", "存储读取吞吐"},
        {{"info", {"{path} ({fs}): sequential {seq} MB/s, random {iops} IOPS at {block} with {threads} readers; direct I/O {direct}",
                   "{path}（{fs}）：顺序读 {seq} MB/s，随机读 {iops} IOPS（块 {block}，{threads} 个并发）；直接 I/O {direct}"}},
         {"slow", {"{path} ({fs}) reads only {seq} MB/s sequentially (below {min} MB/s): storage is slower than GPU training needs",
                   "{path}（{fs}）顺序读仅 {seq} MB/s（低于 {min} MB/s）：存储速度跟不上 GPU 训练"}}},
        {"move the dataset to local NVMe or /dev/shm, check the I/O scheduler (none for NVMe) and read-ahead, cache the dataset (tf.data cache(filename) / a local copy)",
         "把数据集放到本地 NVMe 或 /dev/shm，检查 I/O 调度器（NVMe 用 none）与预读，缓存数据集（cache(filename) 或本地拷贝）"},
        "plumb bench storage {path}"),
    bench_catalog_row("l2.bench.dataload", Pillar::data, {"Dataset loading scaling", "数据集加载扩展性"},
        {{"info", {"knee at {knee} readers ({fps} files/s, {mbps} MB/s): use num_workers={num_workers}, prefetch_factor={prefetch}, pin_memory={pin}; rule of thumb min(2 x {cores} cores, {bw} MB/s / {mean}) = {rule}",
                   "拐点在 {knee} 个读取线程（{fps} files/s，{mbps} MB/s）：建议 num_workers={num_workers}、prefetch_factor={prefetch}、pin_memory={pin}；经验公式 min(2 × {cores} 核, {bw} MB/s ÷ {mean}) = {rule}"}},
         {"disagree", {"knee at {knee} readers ({fps} files/s): use num_workers={num_workers}, prefetch_factor={prefetch}, pin_memory={pin}. The rule of thumb min(2 x {cores} cores, {bw} MB/s / {mean}) says {rule}: measurement and rule disagree, trust the measurement (the rule ignores per-file latency and decode cost)",
                       "拐点在 {knee} 个读取线程（{fps} files/s）：建议 num_workers={num_workers}、prefetch_factor={prefetch}、pin_memory={pin}。经验公式 min(2 × {cores} 核, {bw} MB/s ÷ {mean}) 给出 {rule}：实测与经验公式不一致，以实测为准（公式未计入单文件延迟与解码开销）"}},
         {"still_scaling", {"throughput still rises at {knee} readers ({fps} files/s): loading is CPU-bound here; use num_workers={num_workers}, prefetch_factor={prefetch}, pin_memory={pin} and give the job more CPUs or cheaper decoding (rule of thumb: {rule})",
                            "{knee} 个读取线程时吞吐仍在上升（{fps} files/s）：数据加载受 CPU 限制；建议 num_workers={num_workers}、prefetch_factor={prefetch}、pin_memory={pin}，并给任务更多 CPU 或更廉价的解码（经验公式：{rule}）"}},
         {"flat", {"adding readers does not help: one reader already gets {fps} files/s ({mbps} MB/s), the storage is the limit; num_workers above 1-2 will not speed loading (rule of thumb: {rule})",
                   "增加读取线程无收益：单线程已达 {fps} files/s（{mbps} MB/s），瓶颈在存储；num_workers 超过 1-2 不会加快加载（经验公式：{rule}）"}}},
        {"set DataLoader(num_workers={num_workers}, prefetch_factor={prefetch}, pin_memory={pin}); if loading is still over 40 % of a step, move data closer (local NVMe, /dev/shm) or decode on the GPU",
         "设置 DataLoader(num_workers={num_workers}, prefetch_factor={prefetch}, pin_memory={pin})；若数据加载仍超过单步 40%，把数据放得更近（本地 NVMe、/dev/shm）或改用 GPU 解码"},
        "plumb bench dataload {dir}"),
    bench_catalog_row("l2.bench.step", Pillar::compute, {"Training step baseline", "训练单步基线"},
        {{"info", {"best {best} s/step with num_workers={nw}, pin_memory={pin}, prefetch_factor={pf} on {device} (torch {torch})",
                   "最佳 {best} s/step：num_workers={nw}、pin_memory={pin}、prefetch_factor={pf}，设备 {device}（torch {torch}）"}},
         {"loader_matters", {"best {best} s/step with num_workers={nw}, pin_memory={pin}, prefetch_factor={pf}; PyTorch's default num_workers=0 takes {default} s/step ({slower} % slower)",
                             "最佳 {best} s/step（num_workers={nw}、pin_memory={pin}、prefetch_factor={pf}）；PyTorch 默认 num_workers=0 需 {default} s/step（慢 {slower}%）"}}},
        {"use DataLoader(num_workers={nw}, pin_memory={pin}, prefetch_factor={pf}) and record this run as the baseline (plumb baseline set)",
         "使用 DataLoader(num_workers={nw}, pin_memory={pin}, prefetch_factor={pf})，并把本次运行设为基线（plumb baseline set）"},
        "plumb bench step --python /usr/bin/python3", {"up to {slower} % shorter steps", "单步耗时最多缩短 {slower}%"}),
    bench_catalog_row("l2.bench.h2d", Pillar::compute, {"Host-device copy bandwidth", "主机-设备拷贝带宽"},
        {{"info", {"host<->device copies measured on {gpus} GPU(s); see the evidence for pinned and pageable rates",
                   "已测量 {gpus} 块 GPU 的主机<->设备拷贝；锁页与可分页速率见证据"}},
         {"slow", {"pinned host-to-device copies are slow: {slow} (below {min} GB/s)", "锁页内存主机到设备拷贝偏慢：{slow}（低于 {min} GB/s）"}}},
        {"check the PCIe link generation and width under load (nvidia-smi -q -d PCIE) and bind the process to the GPU's NUMA node (numactl --cpunodebind)",
         "在负载下检查 PCIe 代数与链路宽度（nvidia-smi -q -d PCIE），并把进程绑定到 GPU 所在 NUMA 节点（numactl --cpunodebind）"},
        "plumb bench h2d"),
    bench_catalog_row("l2.bench.d2d", Pillar::comm, {"Device and peer copy bandwidth", "显存与 GPU 间拷贝带宽"},
        {{"info", {"best: {best}", "最佳：{best}"}}},
        {"check NVLink state (nvidia-smi nvlink --status) and the topology (nvidia-smi topo -m)", "检查 NVLink 状态（nvidia-smi nvlink --status）与拓扑（nvidia-smi topo -m）"},
        "plumb bench d2d"),
    bench_catalog_row("l2.bench.gemm", Pillar::compute, {"GEMM throughput", "矩阵乘吞吐"},
        {{"info", {"best: {best}", "最佳：{best}"}}},
        {"check GPU clocks and throttle reasons (nvidia-smi -q -d PERFORMANCE), power cap and temperature", "检查 GPU 时钟与降频原因（nvidia-smi -q -d PERFORMANCE）、功耗墙与温度"},
        "plumb bench gemm"),
    bench_catalog_row("l2.bench.allreduce", Pillar::comm, {"All-reduce bus bandwidth", "All-reduce 总线带宽"},
        {{"info", {"best: {best} (busbw = algbw x 2(n-1)/n, as nccl-tests)", "最佳：{best}（busbw = algbw × 2(n-1)/n，与 nccl-tests 一致）"}}},
        {"compare with the link (all-reduce busbw should exceed 80 % of it); check NCCL_P2P_DISABLE, NCCL_IB_DISABLE and the topology file",
         "与链路带宽对比（all-reduce busbw 应超过其 80%）；检查 NCCL_P2P_DISABLE、NCCL_IB_DISABLE 与拓扑文件"},
        "plumb bench allreduce"),
    bench_catalog_row("l2.bench.noise", Pillar::platform, {"Benchmark reliability", "基准测试可信度"},
        {{"pass", {"{bench}: samples agree (largest CV {cv} %), load {load}", "{bench}：样本一致（最大变异系数 {cv}%），负载 {load}"}},
         {"warn", {"{bench}: {metric} varies by {cv} % between samples (over {max} %), load {load}: the host was busy or throttling, numbers are unreliable",
                   "{bench}：{metric} 样本间变异系数 {cv}%（超过 {max}%），负载 {load}：主机繁忙或在降频，结果不可信"}},
         {"drift", {"{bench}: {metric} moved by {drift} % between the last {runs} runs on this host (over {drift_max} %) while each run's samples agreed: the machine itself drifts (other tenants of a cloud host, a shared memory bus or disk), so a change smaller than that against a baseline proves nothing",
                    "{bench}：{metric} 在本机最近 {runs} 次运行之间相差 {drift}%（超过 {drift_max}%），而每次运行内样本一致：机器自身在漂移（云主机上的其他租户、共享的内存总线或磁盘），与基线相差小于该值不能说明问题"}},
         {"gpu_busy", {"{bench}: other processes computed on {gpus} while it ran ({who}): the figures measure what those jobs left, and the benchmark slowed them down",
                       "{bench}：运行期间其他进程正在 {gpus} 上计算（{who}）：结果只反映这些任务剩下的资源，且基准测试拖慢了它们"}}},
        {"rerun on an idle machine (no other jobs, governor performance) with more samples (--samples 10); when runs drift apart while each run's samples agree, keep baselines on a dedicated machine or set baseline.warn_pct above the measured spread",
         "在空闲机器上重跑（无其他任务、调频策略 performance），并增加样本数（--samples 10）；若每次运行内样本一致而各次运行之间漂移，请在独占机器上记录基线，或将 baseline.warn_pct 设为高于实测极差"},
        "{cmd} --samples 10"),
    bench_catalog_row("l2.bench.gpu_throttle", Pillar::compute, {"GPU throttling during benchmarks", "基准测试期间 GPU 降频"},
        {{"pass", {"no power or thermal clock reduction after {bench} (reasons {reasons})", "{bench} 之后无功耗或温度降频（原因位 {reasons}）"}},
         {"warn", {"the GPU reduced its clocks during {bench} (clocks event reasons {reasons}): power cap, thermal or hardware slowdown",
                   "{bench} 期间 GPU 降频（时钟事件原因 {reasons}）：功耗墙、过热或硬件降速"}}},
        {"check cooling, power limits (nvidia-smi -q -d POWER) and rerun", "检查散热与功耗上限（nvidia-smi -q -d POWER）后重跑"},
        "nvidia-smi -q -d PERFORMANCE"),
    bench_catalog_row("l2.baseline.regression", Pillar::platform, {"Baseline comparison", "基线对比"},
        {{"pass", {"all {n} metrics within {warn} % of the baseline ({origin})", "全部 {n} 项指标与基线（{origin}）相差不超过 {warn}%"}},
         {"fail", {"{metric}: baseline {baseline} {unit}, now {current} {unit}, {change}: the infrastructure is the suspect, look here: {pointers_en} (plumb check: {checks})",
                   "{metric}：基线 {baseline} {unit}，当前 {current} {unit}，{change}：基础架构是嫌疑对象，请排查：{pointers_zh}（plumb check：{checks}）"}},
         {"drift", {"{metric}: baseline {baseline} {unit}, now {current} {unit} ({change}), within the {drift} % this metric moved between the last {runs} runs on this host: rerun before blaming the infrastructure; then look here: {pointers_en} (plumb check: {checks})",
                    "{metric}：基线 {baseline} {unit}，当前 {current} {unit}（{change}），未超出该指标在本机最近 {runs} 次运行之间 {drift}% 的漂移：先重跑确认，再排查：{pointers_zh}（plumb check：{checks}）"}},
         {"not_comparable", {"{bench} ({metrics}): not comparable with the baseline ({origin}): measured with other settings ({settings}); take a baseline with these settings, or rerun with the baseline's",
                             "{bench}（{metrics}）：与基线（{origin}）不可比：测量设置不同（{settings}）；请用当前设置重新建立基线，或按基线的设置重跑"}},
         {"noisy", {"{metric}: baseline {baseline} {unit}, now {current} {unit} ({change}), but the samples scatter by {noise} %: rerun before blaming the infrastructure; then look here: {pointers_en} (plumb check: {checks})",
                    "{metric}：基线 {baseline} {unit}，当前 {current} {unit}（{change}），但样本离散达 {noise}%：先重跑确认，再排查：{pointers_zh}（plumb check：{checks}）"}}},
        {"look at the environment differences below, then run plumb check on this machine; fix what it finds and compare again",
         "先看下方的环境差异，再在本机运行 plumb check；修复其发现后重新对比"},
        "plumb compare"),
    bench_catalog_row("l2.baseline.environment", Pillar::platform, {"Environment differences from the baseline", "与基线的环境差异"},
        {{"pass", {"same environment as the baseline ({origin})", "环境与基线（{origin}）一致"}},
         {"info", {"{n} environment differences from the baseline ({origin}) that could explain a change", "与基线（{origin}）有 {n} 处环境差异，可能解释性能变化"}}},
        {"align driver, CUDA, kernel and settings with the baseline machine, or record a new baseline after an intended change",
         "将驱动、CUDA、内核与设置与基线机器对齐，或在有意变更后重新记录基线"},
        "plumb compare"),
};
});
}

}  // namespace plumb
