// Host sampling for `plumb watch`: thin reads through HostRoot, pure parsers, deltas to rates.
#include "collect/host_sampler.h"

#include <algorithm>

#include "collect/memory.h"

namespace plumb::watch {

std::optional<double> counter_rate(std::uint64_t prev, std::uint64_t now, double dt_s, double scale) {
  if (now < prev || !(dt_s > 0)) return std::nullopt;
  return static_cast<double>(now - prev) * scale / dt_s;
}

HostSampler::HostSampler(HostRoot host_root, int pid, long clk_tck) : root(std::move(host_root)), pid_(pid), clk_tck_(clk_tck) {}

std::optional<std::string> HostSampler::got(Result<std::string> r) {
  if (r) return std::move(r.value());
  std::string why = r.error().describe();
  if (reported_.insert(why).second) unreadable_.push_back(why);
  return std::nullopt;
}

void HostSampler::sample(WatchSample& s, std::chrono::steady_clock::time_point now) {
  double dt = prev_time_ ? std::chrono::duration<double>(now - *prev_time_).count() : 0.0;
  sample_cpu(s);
  if (auto m = got(root.read("/proc/meminfo"))) {
    auto kv = parse_meminfo(*m);
    auto total = kv.find("MemTotal");
    auto available = meminfo_available(kv);
    if (total != kv.end()) {
      s.mem_total_bytes = total->second;
      if (available && *available <= total->second) s.mem_used_bytes = total->second - *available;
    }
  }
  sample_psi(s, dt);
  sample_disks(s, dt);
  sample_nets(s, dt);
  if (pid_ > 0) sample_process(s, dt);
  prev_time_ = now;
}

void HostSampler::sample_cpu(WatchSample& s) {
  auto text = got(root.read("/proc/stat"));
  if (!text) return;
  ProcStat cur = parse_proc_stat(*text);
  auto pct = [](const CpuTimes& a, const CpuTimes& b, std::uint64_t CpuTimes::*field) -> std::optional<double> {
    if (b.total() <= a.total()) return std::nullopt;
    double dt = static_cast<double>(b.total() - a.total());
    std::uint64_t va = field == nullptr ? a.busy() : a.*field;
    std::uint64_t vb = field == nullptr ? b.busy() : b.*field;
    if (vb < va) return std::nullopt;
    return std::min(100.0, static_cast<double>(vb - va) * 100.0 / dt);
  };
  if (cur.all && prev_stat_.all) {
    s.cpu_busy_pct = pct(*prev_stat_.all, *cur.all, nullptr);
    s.cpu_iowait_pct = pct(*prev_stat_.all, *cur.all, &CpuTimes::iowait);
  }
  if (!prev_stat_.cores.empty()) {
    for (const auto& [n, t] : cur.cores) {
      auto it = std::find_if(prev_stat_.cores.begin(), prev_stat_.cores.end(), [n = n](const auto& p) { return p.first == n; });
      std::optional<double> v;
      if (it != prev_stat_.cores.end()) v = pct(it->second, t, nullptr);
      // A core with no ticks in between (or newly online) counts as idle, not as missing.
      s.core_busy_pct.push_back(v.value_or(0.0));
    }
  }
  prev_stat_ = std::move(cur);
}

void HostSampler::sample_psi(WatchSample& s, double dt) {
  struct Want {
    const char* resource;
    std::optional<double> WatchSample::*some;
    std::optional<double> WatchSample::*full;
  };
  for (const Want& w : {Want{"cpu", &WatchSample::psi_cpu_some_pct, nullptr},
                        Want{"memory", &WatchSample::psi_mem_some_pct, &WatchSample::psi_mem_full_pct},
                        Want{"io", &WatchSample::psi_io_some_pct, &WatchSample::psi_io_full_pct}}) {
    auto text = got(root.read(std::string("/proc/pressure/") + w.resource));
    if (!text) continue;
    // A file without a valid `some` line gives no share this tick (and no base for the next).
    Pressure cur = parse_pressure(*text).value_or(Pressure{});
    auto it = prev_psi_.find(w.resource);
    if (it != prev_psi_.end() && dt > 0) {
      // total is in microseconds; share of wall time stalled, in percent.
      auto share = [dt](const std::optional<PressureLine>& a,
                        const std::optional<PressureLine>& b) -> std::optional<double> {
        if (!a || !b) return std::nullopt;
        auto r = counter_rate(a->total_us, b->total_us, dt, 1e-6 * 100.0);
        if (r) r = std::min(100.0, *r);
        return r;
      };
      s.*(w.some) = share(it->second.some, cur.some);
      if (w.full != nullptr) s.*(w.full) = share(it->second.full, cur.full);
    }
    prev_psi_[w.resource] = cur;
  }
}

void HostSampler::sample_disks(WatchSample& s, double dt) {
  auto text = got(root.read("/proc/diskstats"));
  if (!text) return;
  auto all = parse_diskstats(*text);
  if (!disk_names_) {
    std::vector<std::string> names;
    names.reserve(all.size());
    for (const auto& d : all) names.push_back(d.name);
    disk_names_ = whole_disks(names);
  }
  for (const auto& d : all) {
    if (std::find(disk_names_->begin(), disk_names_->end(), d.name) == disk_names_->end()) continue;
    auto it = prev_disks_.find(d.name);
    if (it != prev_disks_.end()) {
      s.disks.push_back({d.name, counter_rate(it->second.sectors_read, d.sectors_read, dt, 512.0),
                         counter_rate(it->second.sectors_written, d.sectors_written, dt, 512.0)});
    }
    prev_disks_[d.name] = d;
  }
}

void HostSampler::sample_nets(WatchSample& s, double dt) {
  auto text = got(root.read("/proc/net/dev"));
  if (!text) return;
  for (const auto& n : parse_net_dev(*text)) {
    if (n.name == "lo") continue;
    auto it = prev_nets_.find(n.name);
    if (it != prev_nets_.end()) {
      s.nets.push_back({n.name, counter_rate(it->second.rx_bytes, n.rx_bytes, dt), counter_rate(it->second.tx_bytes, n.tx_bytes, dt)});
    }
    prev_nets_[n.name] = n;
  }
}

void HostSampler::sample_process(WatchSample& s, double dt) {
  std::string dir = "/proc/" + std::to_string(pid_);  // read through root below
  auto st = root.read(dir + "/stat");
  std::optional<PidStat> ps;
  if (st) ps = parse_pid_stat(*st);
  if (!ps || ps->state == 'Z' || ps->state == 'X') {
    s.proc_running = false;
    prev_proc_ticks_.reset();
    return;
  }
  s.proc_running = true;
  std::uint64_t ticks = ps->utime_ticks + ps->stime_ticks;
  if (prev_proc_ticks_ && clk_tck_ > 0) {
    s.proc_cpu_pct = counter_rate(*prev_proc_ticks_, ticks, dt, 100.0 / static_cast<double>(clk_tck_));
  }
  prev_proc_ticks_ = ticks;
  s.proc_threads = ps->num_threads;
  if (auto status = got(root.read(dir + "/status"))) {
    PidStatus pst = parse_pid_status(*status);
    s.proc_rss_bytes = pst.rss_bytes;
    if (pst.threads) s.proc_threads = pst.threads;
  }
}

}  // namespace plumb::watch
