// Catalogue rows of two L2 findings that host L3 defects explain. Other modules (trace analysis,
// process checks) produce them; the rows live here so the funnel links resolve from the start.
#include "core/catalog.h"

namespace plumb {
namespace {

const bool kRows = register_findings({
    {"l2.data.gpu_starved", Layer::L2, Pillar::data, Section::data,
     {"GPU waiting for input data (low GPU busy, high data-loader share)", "GPU 等待输入数据（GPU 利用率低、数据加载占比高）"},
     {{"pass", {"the GPU is not waiting for input data.", "GPU 没有在等待输入数据。"}},
      {"warn",
       {"the GPU waits for input data: GPU busy is low while data loading takes a large share of each step.",
        "GPU 在等待输入数据：GPU 利用率低，而数据加载占每步时间的比例高。"}},
      {"fail",
       {"the GPU is starved of input data: most of each step is spent waiting for the data loader.",
        "GPU 严重缺数据：每步的大部分时间都在等待数据加载。"}}},
     {"check the L3 causes linked to this finding: IO scheduler and read-ahead of the dataset disk, the dataset's file "
      "system, /dev/shm, the CPUs the cgroup grants; then DataLoader num_workers, pin_memory and prefetch_factor",
      "检查与此项关联的 L3 根因：数据集磁盘的 IO 调度器与预读、数据集所在文件系统、/dev/shm、cgroup 实际授予的 CPU；"
      "再检查 DataLoader 的 num_workers、pin_memory 与 prefetch_factor"},
     "nvidia-smi dmon -s u -d 1",
     {},
     {}},
    {"l2.memory.oom_killed_workers", Layer::L2, Pillar::memory, Section::data,
     {"workers killed / restarting", "worker 被杀 / 反复重启"},
     {{"pass", {"no worker was killed or restarted.", "没有 worker 被杀或重启。"}},
      {"warn",
       {"workers were killed or restarted (for example \"DataLoader worker (pid N) is killed by signal\").",
        "有 worker 被杀或重启（例如 \"DataLoader worker (pid N) is killed by signal\"）。"}},
      {"fail",
       {"workers keep being killed or restarting: the job loses progress at every kill.",
        "worker 不断被杀或重启：每次被杀作业都会丢失进度。"}}},
     {"check the L3 causes linked to this finding: OOM kills in the kernel log, the cgroup memory limit and its "
      "oom_kill count, the size of /dev/shm",
      "检查与此项关联的 L3 根因：内核日志中的 OOM kill、cgroup 内存上限及其 oom_kill 计数、/dev/shm 大小"},
     "dmesg -T | grep -iE 'killed process|oom-kill:'",
     {},
     {}},
});

}  // namespace
}  // namespace plumb
