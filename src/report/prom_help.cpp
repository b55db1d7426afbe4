// HELP texts of plumb's Prometheus metrics, in English and Chinese.
#include "core/i18n.h"
#include "core/tables.h"

namespace plumb {
namespace {

}  // namespace
void report_prom_help_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"prom.help.plumb_gpu_busy_ratio", {"Share of the last sample period a kernel ran on the GPU (NVML utilization.gpu).", "GPU利用率：上个采样周期内有内核运行的时间占比（NVML utilization.gpu）。"}},
    {"prom.help.plumb_gpu_memory_busy_ratio", {"Share of the sample period device memory was read or written.", "采样周期内显存被读写的时间占比。"}},
    {"prom.help.plumb_gpu_memory_used_bytes", {"Device memory in use, in bytes.", "已用显存（字节）。"}},
    {"prom.help.plumb_gpu_memory_total_bytes", {"Device memory, in bytes.", "显存总量（字节）。"}},
    {"prom.help.plumb_gpu_temperature_celsius", {"GPU core temperature in degrees Celsius.", "GPU 核心温度（摄氏度）。"}},
    {"prom.help.plumb_gpu_power_watts", {"GPU board power draw in watts.", "GPU 板卡功耗（瓦）。"}},
    {"prom.help.plumb_gpu_sm_clock_hertz", {"Current SM clock in hertz.", "当前 SM 频率（赫兹）。"}},
    {"prom.help.plumb_gpu_pcie_rx_bytes_per_second", {"PCIe bytes received by the GPU per second (NVML, 20 ms window).", "GPU 每秒经 PCIe 接收的字节数（NVML，20 毫秒窗口）。"}},
    {"prom.help.plumb_gpu_pcie_tx_bytes_per_second", {"PCIe bytes sent by the GPU per second (NVML, 20 ms window).", "GPU 每秒经 PCIe 发送的字节数（NVML，20 毫秒窗口）。"}},
    {"prom.help.plumb_gpu_nvlink_rx_bytes_per_second", {"NVLink data bytes received by the GPU per second, all links (NVML field counters).", "GPU 每秒经 NVLink 接收的数据字节数，所有链路合计（NVML 字段计数器）。"}},
    {"prom.help.plumb_gpu_nvlink_tx_bytes_per_second", {"NVLink data bytes sent by the GPU per second, all links (NVML field counters).", "GPU 每秒经 NVLink 发送的数据字节数，所有链路合计（NVML 字段计数器）。"}},
    {"prom.help.plumb_gpu_clock_event_reasons", {"NVML clocks event (throttle) reason bitmask.", "NVML 降频原因位掩码。"}},
    {"prom.help.plumb_gpu_throttled", {"1 while the GPU clocks are held down for this reason.", "因该原因降频时为 1。"}},
    {"prom.help.plumb_host_cpu_busy_ratio", {"Host CPU busy share (not idle, not iowait) over the last sample period.", "上个采样周期内主机CPU忙碌占比（不含空闲与 iowait）。"}},
    {"prom.help.plumb_host_cpu_iowait_ratio", {"Host CPU iowait share over the last sample period.", "上个采样周期内主机CPU的 iowait 占比。"}},
    {"prom.help.plumb_host_cpu_core_busy_ratio", {"Busy share of one logical CPU over the last sample period.", "上个采样周期内单个逻辑CPU的忙碌占比。"}},
    {"prom.help.plumb_host_memory_used_bytes", {"Host memory in use (MemTotal - MemAvailable), in bytes.", "主机已用内存（MemTotal - MemAvailable，字节）。"}},
    {"prom.help.plumb_host_memory_total_bytes", {"Host memory (MemTotal), in bytes.", "主机内存总量（MemTotal，字节）。"}},
    {"prom.help.plumb_host_pressure_stalled_ratio", {"Share of wall time tasks stalled on the resource (PSI total delta).", "任务因该资源停顿的时间占比（PSI total 增量）。"}},
    {"prom.help.plumb_host_disk_read_bytes_per_second", {"Bytes read from the block device per second.", "块设备每秒读取字节数。"}},
    {"prom.help.plumb_host_disk_written_bytes_per_second", {"Bytes written to the block device per second.", "块设备每秒写入字节数。"}},
    {"prom.help.plumb_host_network_receive_bytes_per_second", {"Bytes received on the interface per second.", "网卡每秒接收字节数。"}},
    {"prom.help.plumb_host_network_transmit_bytes_per_second", {"Bytes sent on the interface per second.", "网卡每秒发送字节数。"}},
    {"prom.help.plumb_process_running", {"1 while the watched process is alive.", "被观测进程存活时为 1。"}},
    {"prom.help.plumb_process_cpu_ratio", {"CPU used by the watched process (1 = one core).", "被观测进程的CPU占用（1 表示一个核心）。"}},
    {"prom.help.plumb_process_resident_memory_bytes", {"Resident memory of the watched process, in bytes.", "被观测进程的常驻内存（字节）。"}},
    {"prom.help.plumb_process_threads", {"Threads of the watched process.", "被观测进程的线程数。"}},
    {"prom.help.plumb_finding_status", {"1 for each finding of the last check, labelled with its id, layer, pillar, subject and status.", "上次检查的每条结论为 1，标签为其 id、层级、支柱、对象与状态。"}},
    {"prom.help.plumb_finding_subjects_dropped", {"Findings of one id beyond the 32 exported with plumb_finding_status (the report lists them all).", "同一 id 超出 plumb_finding_status 导出上限 32 条的结论数（报告中列出全部）。"}},
    {"prom.help.plumb_findings", {"Number of findings of the last check by status.", "上次检查各状态的结论数量。"}},
    {"prom.help.plumb_check_exit_code", {"Exit code of the last check: 0 no failure, 1 failures.", "上次检查的退出码：0 无失败，1 有失败。"}},
    {"prom.help.plumb_check_duration_seconds", {"Wall time of the last check, in seconds.", "上次检查耗时（秒）。"}},
    {"prom.help.plumb_check_timestamp_seconds", {"When the last check started, in seconds since the Unix epoch.", "上次检查开始时间（Unix 秒）。"}},
    {"prom.help.plumb_collector_success", {"1 when the collector of the last check read its source, 0 when it failed or timed out.", "上次检查中采集器读取成功为 1，失败或超时为 0。"}},
    {"prom.help.plumb_collector_duration_seconds", {"Time the collector took in the last check, in seconds.", "上次检查中采集器耗时（秒）。"}},
    {"prom.help.plumb_build_info", {"plumb version and host; always 1.", "plumb 版本与主机；恒为 1。"}},
    {"prom.help.plumb_exporter_scrapes_total", {"Scrapes of /metrics served since start.", "启动以来 /metrics 被抓取的次数。"}},
    {"prom.help.plumb_exporter_checks_total", {"Checks run since start.", "启动以来运行检查的次数。"}},
    {"prom.help.plumb_agent_events", {"Kernel events of this kind in the agent's state database (within the retention).",
                                      "agent 状态数据库中该类内核事件的数量（保留期内）。"}},
    {"prom.help.plumb_agent_cycles_total", {"Agent cycles (kernel log, counters, check) run since start.", "启动以来 agent 运行的轮数（内核日志、计数器、检查）。"}},
    {"prom.help.plumb_agent_update_timestamp_seconds", {"When the agent last updated these pages (Unix time).", "agent 上次更新这些页面的时间（Unix 时间）。"}},
    {"prom.help.plumb_exporter_sample_duration_seconds", {"Time the last telemetry sample took, in seconds.", "最近一次遥测采样耗时（秒）。"}},
    {"prom.help.plumb_exporter_sample_timestamp_seconds", {"When the last telemetry sample was taken (Unix seconds).", "最近一次遥测采样时间（Unix 秒）。"}},
    {"prom.help.plumb_exporter_gpu_available", {"1 when GPUs are sampled through NVML, 0 when unavailable.", "通过 NVML 采样到 GPU 时为 1，不可用时为 0。"}},
};
});
}

}  // namespace plumb
