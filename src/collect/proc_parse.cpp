// Pure /proc parsers for `plumb watch`; formats per proc(5), iostats.rst and psi.rst.
#include "collect/proc_parse.h"

#include <algorithm>
#include <set>

#include "core/host_root.h"
#include "core/text.h"

namespace plumb::watch {

namespace {

std::uint64_t field_u64(const std::vector<std::string_view>& f, std::size_t i) {
  if (i >= f.size()) return 0;
  return parse_uint(f[i]).value_or(0);
}

}  // namespace

ProcStat parse_proc_stat(std::string_view text) {
  ProcStat out;
  for (auto line : split_lines(text)) {
    if (!starts_with(line, "cpu")) continue;
    auto f = split_ws(line);
    // user nice system idle at least; older kernels stop before iowait/steal.
    if (f.size() < 5) continue;
    CpuTimes t;
    auto u = parse_uint(f[1]);
    auto i = parse_uint(f[4]);
    if (!u || !i) continue;
    t.user = *u;
    t.nice = field_u64(f, 2);
    t.system = field_u64(f, 3);
    t.idle = *i;
    t.iowait = field_u64(f, 5);
    t.irq = field_u64(f, 6);
    t.softirq = field_u64(f, 7);
    t.steal = field_u64(f, 8);
    std::string_view name = f[0];
    if (name == "cpu") {
      out.all = t;
    } else {
      auto n = parse_int(name.substr(3));
      if (n && *n >= 0 && *n < 1 << 20 && all_digits(name.substr(3))) out.cores.emplace_back(static_cast<int>(*n), t);
    }
  }
  return out;
}

std::vector<DiskCounters> parse_diskstats(std::string_view text) {
  std::vector<DiskCounters> out;
  for (auto line : split_lines(text)) {
    auto f = split_ws(line);
    // major minor name + 11 fields at least (4.18 adds discard fields, 5.5 flush fields).
    if (f.size() < 14 || !parse_uint(f[0]) || !parse_uint(f[1])) continue;
    auto rd = parse_uint(f[5]);
    auto wr = parse_uint(f[9]);
    if (!rd || !wr) continue;
    out.push_back({std::string(f[2]), *rd, *wr});
  }
  return out;
}

std::vector<std::string> whole_disks(const std::vector<std::string>& names) {
  std::set<std::string> all(names.begin(), names.end());
  std::vector<std::string> out;
  for (const auto& n : names) {
    bool skip = false;
    for (const char* virt : {"ram", "loop", "fd", "sr", "zram"}) {
      std::string_view p(virt);
      if (n.size() > p.size() && n.compare(0, p.size(), p) == 0 && all_digits(std::string_view(n).substr(p.size()))) skip = true;
    }
    // A partition: another device's name followed by digits, or by 'p' and digits (nvme, mmcblk).
    for (std::size_t cut = n.size(); cut > 0 && !skip; --cut) {
      std::string_view rest = std::string_view(n).substr(cut);
      std::string_view head = std::string_view(n).substr(0, cut);
      if (rest.empty()) continue;
      bool part = all_digits(rest) || (rest.size() > 1 && rest[0] == 'p' && all_digits(rest.substr(1)));
      if (part && all.count(std::string(head)) > 0) skip = true;
    }
    if (!skip) out.push_back(n);
  }
  return out;
}

std::vector<NetCounters> parse_net_dev(std::string_view text) {
  std::vector<NetCounters> out;
  for (auto line : split_lines(text)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view name = trim(line.substr(0, colon));
    if (name.empty() || name.find('|') != std::string_view::npos) continue;
    auto f = split_ws(line.substr(colon + 1));
    if (f.size() < 16) continue;
    auto rx = parse_uint(f[0]);
    auto tx = parse_uint(f[8]);
    if (!rx || !tx) continue;
    out.push_back({std::string(name), *rx, *tx});
  }
  return out;
}

std::optional<PidStat> parse_pid_stat(std::string_view text) {
  auto close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(close + 1);
  rest = rest.substr(0, rest.find('\n'));
  auto f = split_ws(rest);
  // After ')': state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14)
  // stime(15) cutime cstime priority nice num_threads(20) itrealvalue starttime vsize rss(24).
  if (f.size() < 22 || f[0].size() != 1) return std::nullopt;
  auto ut = parse_uint(f[11]);
  auto st = parse_uint(f[12]);
  auto th = parse_int(f[17]);
  auto rss = parse_int(f[21]);
  if (!ut || !st || !th || !rss || *th < 0 || *th > 1 << 24) return std::nullopt;
  PidStat p;
  p.state = f[0][0];
  p.utime_ticks = *ut;
  p.stime_ticks = *st;
  p.num_threads = static_cast<int>(*th);
  p.rss_pages = *rss > 0 ? static_cast<std::uint64_t>(*rss) : 0;
  return p;
}

}  // namespace plumb::watch
