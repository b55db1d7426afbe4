// Host side of `plumb watch`: reads /proc through HostRoot at each tick and turns counter deltas
// into rates (CPU per core, iowait, PSI, disk and network throughput, the target process).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/facts/watch.h"
#include "core/host_root.h"
#include "collect/psi.h"
#include "collect/proc_parse.h"

namespace plumb::watch {

class HostSampler {
 public:
  // pid 0: no target process. clk_tck: sysconf(_SC_CLK_TCK), the unit of /proc/<pid>/stat times.
  HostSampler(HostRoot host_root, int pid, long clk_tck);
  // Fills the host and process fields of `s`; `now` is the tick's time (rates divide by it).
  void sample(WatchSample& s, std::chrono::steady_clock::time_point now);
  // Sources that could not be read through the root, each once with the reason ("/proc/pressure/io: absent ...").
  [[nodiscard]] const std::vector<std::string>& unreadable() const { return unreadable_; }

  HostRoot root;  // every read goes through it

 private:
  // The text of a read, or nullopt with the reason recorded once in unreadable_.
  std::optional<std::string> got(Result<std::string> r);
  void sample_cpu(WatchSample& s);
  void sample_psi(WatchSample& s, double dt);
  void sample_disks(WatchSample& s, double dt);
  void sample_nets(WatchSample& s, double dt);
  void sample_process(WatchSample& s, double dt);

  int pid_;
  long clk_tck_;
  std::optional<std::chrono::steady_clock::time_point> prev_time_;
  ProcStat prev_stat_;
  std::map<std::string, Pressure> prev_psi_;
  std::optional<std::vector<std::string>> disk_names_;  // whole disks, fixed at the first read
  std::map<std::string, DiskCounters> prev_disks_;
  std::map<std::string, NetCounters> prev_nets_;
  std::optional<std::uint64_t> prev_proc_ticks_;
  std::vector<std::string> unreadable_;
  std::set<std::string> reported_;
};

// (now - prev) / dt when the counter moved forward; nullopt after a reset or with no time.
std::optional<double> counter_rate(std::uint64_t prev, std::uint64_t now, double dt_s, double scale = 1.0);

}  // namespace plumb::watch
