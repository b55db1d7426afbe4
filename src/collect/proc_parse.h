// Pure parsers of the /proc files `plumb watch` samples: stat, diskstats, net/dev, <pid>/stat;
// <pid>/status, meminfo and pressure use the collectors' parsers (collect/pid_status.h, memory.h,
// psi.h). Total on garbage: bad lines are skipped, never thrown on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/pid_status.h"

namespace plumb::watch {

// One "cpu" line of /proc/stat in clock ticks (proc(5)). guest and guest_nice are already
// counted in user and nice, so they are left out of the total.
struct CpuTimes {
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  [[nodiscard]] std::uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  [[nodiscard]] std::uint64_t busy() const { return total() - idle - iowait; }
  bool operator==(const CpuTimes&) const = default;
};

struct ProcStat {
  std::optional<CpuTimes> all;             // the aggregate "cpu" line
  std::vector<std::pair<int, CpuTimes>> cores;  // "cpuN" lines, in file order
};
ProcStat parse_proc_stat(std::string_view text);

// /proc/diskstats (Documentation/admin-guide/iostats.rst): sectors are always 512 bytes.
struct DiskCounters {
  std::string name;
  std::uint64_t sectors_read = 0;
  std::uint64_t sectors_written = 0;
};
std::vector<DiskCounters> parse_diskstats(std::string_view text);
// The whole disks among block device names: partitions (sda1, nvme0n1p2, mmcblk0p1 next to
// their disk) and ram/loop/fd/sr/zram devices are dropped, so throughput is not counted twice.
std::vector<std::string> whole_disks(const std::vector<std::string>& names);

// /proc/net/dev: "iface: rx_bytes rx_packets ... (8 receive fields) tx_bytes ...".
struct NetCounters {
  std::string name;
  std::uint64_t rx_bytes = 0;
  std::uint64_t tx_bytes = 0;
};
std::vector<NetCounters> parse_net_dev(std::string_view text);

// /proc/<pid>/stat: the fields after the last ')' (comm may hold spaces and parentheses).
struct PidStat {
  char state = '?';
  std::uint64_t utime_ticks = 0;
  std::uint64_t stime_ticks = 0;
  int num_threads = 0;
  std::uint64_t rss_pages = 0;
};
std::optional<PidStat> parse_pid_stat(std::string_view text);

// /proc/<pid>/status: the one parser (collect/pid_status.h), shared with the process collector.
using plumb::parse_pid_status;
using plumb::PidStatus;

}  // namespace plumb::watch
