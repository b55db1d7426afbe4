// L2 rules from pressure stall information: CPU saturated, memory pressure, IO stalls over the last minute.
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "rules/watch_next.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kCpu = "l2.compute.cpu_saturated";
constexpr const char* kHostPressureMemory = "l2.memory.pressure";
constexpr const char* kIo = "l2.data.io_pressure";

// One PSI file judged on avg60 (smoother than avg10, fresher than avg300): `some` against
// info/warn thresholds, `full` (every task stalled) against its own warn threshold when present.
Finding judge_psi(const char* id, const char* res, const Fact<Pressure>& p, const Thresholds& th) {
  if (!p.has() || !p->some) return skipped(id, p.why());
  std::string base = std::string("psi.") + res;
  double info = th.get(base + "_some_avg60_info_pct");
  double warn = th.get(base + "_some_avg60_warn_pct");
  std::string full_key = base + "_full_avg60_warn_pct";
  bool has_full_threshold = threshold_defs().count(full_key) > 0;
  Finding out;
  out.id = id;
  const auto& s = *p->some;
  out.add("some avg10/avg60/avg300", fmt_num(s.avg10, 2) + " / " + fmt_num(s.avg60, 2) + " / " + fmt_num(s.avg300, 2) + " %",
          p.source);
  out.arg("some", fmt_num(s.avg60, 1));
  out.threshold = "some avg60 < " + fmt_num(info, 0) + " % (info), < " + fmt_num(warn, 0) + " % (warn)";
  Status st = s.avg60 >= warn ? Status::warn : s.avg60 >= info ? Status::info : Status::pass;
  if (p->full) {
    const auto& f = *p->full;
    out.add("full avg10/avg60/avg300", fmt_num(f.avg10, 2) + " / " + fmt_num(f.avg60, 2) + " / " + fmt_num(f.avg300, 2) + " %",
            p.source);
    out.arg("full", fmt_num(f.avg60, 1));
    if (has_full_threshold) {
      double fw = th.get(full_key);
      out.threshold += "; full avg60 < " + fmt_num(fw, 0) + " %";
      if (f.avg60 >= fw) st = Status::warn;
    }
  } else {
    out.arg("full", "-");
  }
  out.status = st;
  return out;
}




}  // namespace
void rules_host_pressure_tables(Tables& t) {
  t.add_thresholds([] {
  return std::vector<ThresholdDef>{
    {"psi.cpu_some_avg60_info_pct", 10, "%", {"note CPU pressure (PSI some avg60) from this share", "CPU 压力（PSI some avg60）达到该比例时提示"}},
    {"psi.cpu_some_avg60_warn_pct", 30, "%", {"warn on CPU pressure (PSI some avg60) from this share", "CPU 压力（PSI some avg60）达到该比例时警告"}},
    {"psi.memory_some_avg60_info_pct", 5, "%", {"note memory pressure (PSI some avg60) from this share", "内存压力（PSI some avg60）达到该比例时提示"}},
    {"psi.memory_some_avg60_warn_pct", 20, "%", {"warn on memory pressure (PSI some avg60) from this share", "内存压力（PSI some avg60）达到该比例时警告"}},
    {"psi.memory_full_avg60_warn_pct", 5, "%", {"warn when all tasks stall on memory (PSI full avg60) this share of the time", "所有任务因内存停顿（PSI full avg60）达到该比例时警告"}},
    {"psi.io_some_avg60_info_pct", 10, "%", {"note IO pressure (PSI some avg60) from this share", "IO 压力（PSI some avg60）达到该比例时提示"}},
    {"psi.io_some_avg60_warn_pct", 30, "%", {"warn on IO pressure (PSI some avg60) from this share", "IO 压力（PSI some avg60）达到该比例时警告"}},
    {"psi.io_full_avg60_warn_pct", 10, "%", {"warn when all tasks stall on IO (PSI full avg60) this share of the time", "所有任务因 IO 停顿（PSI full avg60）达到该比例时警告"}},
};
});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {kCpu, Layer::L2, Pillar::compute, Section::environment,
     {"CPU load against the CPUs granted", "CPU 负载与可用 CPU"},
     {
         {"pass", {"runnable tasks waited for a CPU {some} % of the last minute", "过去一分钟可运行任务等待 CPU 的时间占 {some}%"}},
         {"info", {"runnable tasks waited for a CPU {some} % of the last minute: the host is busy",
                   "过去一分钟可运行任务等待 CPU 的时间占 {some}%：主机较忙"}},
         {"warn", {"runnable tasks waited for a CPU {some} % of the last minute: CPUs are saturated, data loading "
                   "and kernel launches queue behind other threads",
                   "过去一分钟可运行任务等待 CPU 的时间占 {some}%：CPU 已饱和，数据加载与内核启动在其他线程后排队"}},
         // The same behaviour seen by `plumb watch` in /proc/stat samples.
         {"sampled_pass", {"Host CPU reached {pct} % in {share} % of {n} samples; no single core stayed pegged.",
                           "主机CPU在 {n} 个样本中有 {share}% 达到 {pct}%；没有单个核心持续打满。"}},
         {"sampled_fail", {"Host CPU was at or above {pct} % in {share} % of {n} samples: the CPU cannot keep up with the GPUs.",
                           "主机CPU在 {n} 个样本中有 {share}% 达到 {pct}% 以上：CPU占用率持续95%以上，喂不饱 GPU。"}},
         {"pegged_core", {"CPU {core} was pegged at or above {pct} % in {share} % of {n} samples{proc}: a single-threaded "
                          "stage (often the data-loader main process) is the bottleneck.",
                          "CPU {core} 在 {n} 个样本中有 {share}% 达到 {pct}% 以上{proc}：单线程环节（常见为数据加载主进程）成为瓶颈。"}},
     },
     {"run {next}; find who takes the CPUs (`top -H`, `pidstat -t 5`); raise DataLoader num_workers or move decoding "
      "off the main process; check thread-count variables (OMP_NUM_THREADS) against the CPUs the cgroup grants",
      "运行 {next}；找出占用 CPU 的进程（`top -H`、`pidstat -t 5`）；增加 DataLoader 的 num_workers 或把解码移出主进程；"
      "对照 cgroup 实际分配的 CPU 检查线程数变量（OMP_NUM_THREADS）"},
     "cat /proc/pressure/cpu",
     {},
     {}},
    {kHostPressureMemory, Layer::L2, Pillar::memory, Section::environment,
     {"Memory pressure (PSI)", "内存压力（PSI）"},
     {
         {"pass", {"tasks stalled on memory {some} % of the last minute (all tasks: {full} %)",
                   "过去一分钟任务因内存停顿的时间占 {some}%（全部任务同时停顿：{full}%）"}},
         {"info", {"tasks stalled on memory {some} % of the last minute (all tasks: {full} %): reclaim is active",
                   "过去一分钟任务因内存停顿的时间占 {some}%（全部任务同时停顿：{full}%）：内存回收活跃"}},
         {"warn", {"tasks stalled on memory {some} % of the last minute (all tasks: {full} %): the host is reclaiming "
                   "or swapping hard; OOM kills are likely next",
                   "过去一分钟任务因内存停顿的时间占 {some}%（全部任务同时停顿：{full}%）：主机正在大量回收或换页，接下来很可能触发 OOM"}},
     },
     {"reduce resident memory (fewer DataLoader workers, smaller prefetch, no dataset copies per worker) or give "
      "the job more memory; check swap and the cgroup memory limit",
      "降低常驻内存（减少 DataLoader worker、降低 prefetch、避免每个 worker 复制数据集）或为任务分配更多内存；检查交换分区与 cgroup 内存上限"},
     "cat /proc/pressure/memory",
     {},
     {}},
    {kIo, Layer::L2, Pillar::data, Section::data,
     {"IO stalls (PSI)", "IO 停顿（PSI）"},
     {
         {"pass", {"tasks stalled on IO {some} % of the last minute (all tasks: {full} %)",
                   "过去一分钟任务因 IO 停顿的时间占 {some}%（全部任务同时停顿：{full}%）"}},
         {"info", {"tasks stalled on IO {some} % of the last minute (all tasks: {full} %)",
                   "过去一分钟任务因 IO 停顿的时间占 {some}%（全部任务同时停顿：{full}%）"}},
         {"warn", {"tasks stalled on IO {some} % of the last minute (all tasks: {full} %): reads of the dataset "
                   "or checkpoints are a bottleneck",
                   "过去一分钟任务因 IO 停顿的时间占 {some}%（全部任务同时停顿：{full}%）：数据集或 checkpoint 读写成为瓶颈"}},
     },
     {"find the device and process (`iostat -x 5`, `iotop`); check the IO scheduler, read-ahead and the dataset's "
      "file system; cache or pre-shard the dataset on local NVMe",
      "定位设备与进程（`iostat -x 5`、`iotop`）；检查 IO 调度器、预读与数据集所在文件系统；将数据集缓存或预分片到本地 NVMe"},
     "cat /proc/pressure/io",
     {},
     {}},
};
});
  t.add_rule({kCpu, {"collect.psi"}, [](const Facts& f, const Thresholds& th) {
                                       Finding x = judge_psi(kCpu, "cpu", f.host.memory.pressure.cpu, th);
                                       x.arg("next", next_checks_command(kCpu));
                                       return std::vector<Finding>{x};
                                     }});
  t.add_rule({kHostPressureMemory, {"collect.psi"}, [](const Facts& f, const Thresholds& th) {
                                       return std::vector<Finding>{judge_psi(kHostPressureMemory, "memory", f.host.memory.pressure.memory, th)};
                                     }});
  t.add_rule({kIo, {"collect.psi"}, [](const Facts& f, const Thresholds& th) {
                                      return std::vector<Finding>{judge_psi(kIo, "io", f.host.memory.pressure.io, th)};
                                    }});
}

}  // namespace plumb
