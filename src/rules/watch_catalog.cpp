// Catalogue rows and thresholds of the L2 watch findings: GPU busy, VRAM sawtooth, CPU saturation,
// IO-bound, PCIe imbalance, throttling. Words follow the L2 symptoms of the health-check method.
#include "core/catalog.h"
#include "core/thresholds.h"
#include "core/tables.h"

namespace plumb {
namespace {


const char* kVerifyWatch = "plumb watch --duration 2m --pid <PID>";


}  // namespace
void rules_watch_catalog_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"watch.min_samples", 5, "count", {"samples needed before a watch finding is judged", "判定一项观测结论所需的最少采样数"}},
    {"watch.gpu_job_memory_mib", 1024, "MiB",
     {"without --pid, a GPU counts as running a job while this much VRAM is in use",
      "未指定 --pid 时，显存占用达到该值即视为该 GPU 上有任务在运行"}},
    {"watch.gpu_busy_fail_pct", 30, "%",
     {"average GPU busy below this fails (GPU busy below 30 % for long is an L2 symptom)",
      "GPU利用率平均值低于该值判为失败（长期低于30%属于L2运行时异常）"}},
    {"watch.gpu_busy_warn_pct", 85, "%", {"average GPU busy below this warns (healthy above 85 %)", "GPU利用率平均值低于该值给出警告（85%以上为健康）"}},
    {"watch.sawtooth_min_amplitude_pct", 10, "%",
     {"a VRAM rise and drop counts as a sawtooth cycle when it spans this share of total VRAM",
      "显存涨落幅度达到显存总量的该比例才计为一次锯齿"}},
    {"watch.sawtooth_min_cycles", 3, "count", {"VRAM drops needed to call the series a sawtooth", "判定显存锯齿所需的最少回落次数"}},
    {"watch.cpu_saturated_pct", 95, "%", {"host CPU (or one core) at or above this is saturated", "主机CPU（或单个核心）占用率达到该值视为饱和"}},
    {"watch.cpu_saturated_share", 50, "%",
     {"share of samples that must be saturated (\"most samples\")", "判定饱和所需的饱和采样占比（“大多数采样”）"}},
    {"watch.io_pressure_pct", 20, "%", {"IO pressure (PSI some) at or above this is high", "IO压力（PSI some）达到该值视为偏高"}},
    {"watch.io_bound_gpu_busy_pct", 50, "%", {"GPU busy below this while IO pressure is high means waiting for data", "IO压力偏高且GPU利用率低于该值，视为在等数据"}},
    {"watch.io_bound_share", 25, "%", {"share of samples that must be IO-bound to fail", "判定数据IO瓶颈所需的采样占比"}},
    {"watch.pcie_imbalance_ratio", 3, "x", {"a GPU moving this many times the PCIe traffic of its peers is unbalanced", "单卡PCIe流量达到其余卡中位数的该倍数视为不均衡"}},
    {"watch.pcie_imbalance_floor_mbps", 100, "MB/s",
     {"PCIe traffic below this is too small to call unbalanced", "PCIe流量低于该值时不判定不均衡"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l2.watch.summary", Layer::L2, Pillar::platform, Section::environment,
     {"Runtime sampling (plumb watch)", "运行时采样（plumb watch）"},
     {{"info", {"Watched {duration} s: {samples} samples every {interval} s, {gpus} GPUs ({gpu_source}){unreadable}.",
                "观测 {duration} 秒：每 {interval} 秒采样一次，共 {samples} 个样本，{gpus} 块 GPU（{gpu_source}）{unreadable}。"}}},
     {"", ""},
     "plumb watch --duration 60s",
     {"", ""},
     {}},
    {"l2.watch.vram_sawtooth", Layer::L2, Pillar::memory, Section::gpu,
     {"VRAM usage over time", "显存占用随时间的变化"},
     {{"pass", {"VRAM usage has no sawtooth: {drops} large drops (amplitude threshold {min_amp}).",
                "显存占用没有锯齿：大幅回落 {drops} 次（幅度阈值 {min_amp}）。"}},
      {"warn", {"VRAM rises and drops in a sawtooth: {drops} drops of about {amplitude} ({amp_pct} % of VRAM) every {period} s.",
                "显存占用呈锯齿状剧烈波动：回落 {drops} 次，每次约 {amplitude}（显存的 {amp_pct}%），周期约 {period} 秒。"}}},
     {"Repeated allocate/free cycles fragment the caching allocator: run {next}; avoid torch.cuda.empty_cache() in the loop, "
      "keep tensor shapes stable, try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
      "反复分配/释放会造成显存碎片：运行 {next}；不要在训练循环里调用 torch.cuda.empty_cache()，保持张量形状稳定，"
      "可尝试 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True。"},
     kVerifyWatch,
     {"A flat VRAM line avoids allocator stalls and out-of-memory at the peaks.", "显存曲线平稳可避免分配器停顿和峰值处的显存溢出。"},
     {}},
    {"l2.watch.io_bound", Layer::L2, Pillar::data, Section::data,
     {"IO pressure while the GPUs wait (data-bound)", "GPU 等待期间的IO压力（数据瓶颈）"},
     {{"pass", {"IO pressure stayed low while GPUs were idle: {share} % of {n} samples were IO-bound.",
                "GPU 空闲时IO压力不高：{n} 个样本中 {share}% 为IO瓶颈。"}},
      {"fail", {"In {share} % of {n} samples IO pressure was at or above {io} % while GPU busy was below {busy} %: "
                "the job is data-bound (peak IO pressure {io_max} %).",
                "{n} 个样本中有 {share}% 的IO压力达到 {io}% 以上而 GPU利用率低于 {busy}%：任务受数据IO瓶颈限制（IO压力峰值 {io_max}%）。"}}},
     {"Storage cannot feed the GPUs: run {next}; check the IO scheduler and read-ahead, stage the dataset on local NVMe, "
      "raise num_workers and prefetch_factor.",
      "存储喂不饱 GPU：运行 {next}；检查IO调度器和预读，把数据集放到本地 NVMe，增加 num_workers 和 prefetch_factor。"},
     kVerifyWatch,
     {"Removing the IO wait lets GPU busy rise to the compute limit.", "消除IO等待后GPU利用率可提升到算力上限。"},
     {}},
    {"l2.watch.pcie_imbalance", Layer::L2, Pillar::comm, Section::distributed,
     {"PCIe traffic balance across GPUs", "各 GPU 之间的PCIe流量均衡"},
     {{"pass", {"PCIe traffic is balanced across {gpus} GPUs (largest {max_ratio}x the peers' median).",
                "{gpus} 块 GPU 的PCIe流量均衡（最大为其余卡中位数的 {max_ratio} 倍）。"}},
      {"warn", {"This GPU moved {value}/s over PCIe, {ratio}x the median of its {peers} peers ({peer_median}/s).",
                "该 GPU 的PCIe流量为 {value}/s，是其余 {peers} 块卡中位数（{peer_median}/s）的 {ratio} 倍。"}}},
     {"One GPU carries the host traffic of the job (rank 0 data loading, parameter server, a shared NIC or PCIe switch): "
      "run {next}; spread data loading across ranks and check the GPU/NIC topology.",
      "单卡承担了任务的主机流量（rank 0 加载数据、参数服务器、共享网卡或 PCIe 交换机）：运行 {next}；让各 rank 分担数据加载，并检查 GPU/网卡拓扑。"},
     kVerifyWatch,
     {"", ""},
     {}},
    {"l2.watch.throttling", Layer::L2, Pillar::compute, Section::gpu,
     {"GPU clock throttling episodes", "GPU 降频事件"},
     {{"pass", {"No clock throttling during {n} samples.", "{n} 个样本期间没有降频。"}},
      {"fail", {"Hardware throttling in {episodes} episodes ({seconds} s in total): {reasons}.",
                "出现 {episodes} 次硬件降频（共 {seconds} 秒）：{reasons}。"}},
      {"warn", {"Thermal throttling in {episodes} episodes ({seconds} s in total): {reasons}.",
                "出现 {episodes} 次过热降频（共 {seconds} 秒）：{reasons}。"}},
      {"info", {"Clocks held at the power cap in {episodes} episodes ({seconds} s in total): normal under full load.",
                "有 {episodes} 次受功耗上限限制（共 {seconds} 秒）：满载时属正常现象。"}}},
     {"Check cooling, power cables and the power limit: run {next}; `nvidia-smi -q -d PERFORMANCE` shows the active reasons.",
      "检查散热、供电线缆和功耗上限：运行 {next}；`nvidia-smi -q -d PERFORMANCE` 可查看当前降频原因。"},
     "nvidia-smi -q -d PERFORMANCE",
     {"Full clocks restore the expected step time.", "恢复满频后单步耗时回到预期。"},
     {}},
};
});
}

}  // namespace plumb
