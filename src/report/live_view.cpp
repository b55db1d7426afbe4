// Live view of `plumb watch`: terminal screen and plain lines, words from the UI strings.
#include "report/live_view.h"

#include <algorithm>
#include <sstream>

#include "core/text.h"
#include "core/knowledge/throttle.h"
#include "core/tables.h"

namespace plumb::watch {

namespace {


std::string dash() { return "-"; }
std::string p(const std::optional<double>& v) { return v ? fmt_num(*v, 1) + "%" : dash(); }
std::string b(const std::optional<std::uint64_t>& v) { return v ? human_bytes(*v) : dash(); }
std::string rate(const std::optional<double>& v) { return v ? human_bytes(static_cast<std::uint64_t>(std::max(0.0, *v))) + "/s" : dash(); }

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

}  // namespace

std::string live_screen(const WatchFacts& h, const WatchSample& s, Lang lang) {
  std::ostringstream os;
  os << tr(lang, "watch.live.title") << "  t=" << fmt_num(s.t_s, 1) << "s  (" << tr(lang, "watch.live.hint") << ")\n\n";
  if (!s.cpu_busy_pct) os << "  " << tr(lang, "watch.live.warming") << "\n\n";
  os << tr(lang, "watch.live.cpu") << "  " << tr(lang, "watch.live.busy") << " " << p(s.cpu_busy_pct) << "  "
     << tr(lang, "watch.live.iowait") << " " << p(s.cpu_iowait_pct) << "  " << tr(lang, "watch.live.memory") << " "
     << b(s.mem_used_bytes) << " / " << b(s.mem_total_bytes) << "\n";
  os << tr(lang, "watch.live.pressure") << "  cpu " << p(s.psi_cpu_some_pct) << "  mem " << p(s.psi_mem_some_pct) << "  io "
     << p(s.psi_io_some_pct) << "\n";
  if (!s.core_busy_pct.empty()) {
    std::vector<std::pair<double, std::size_t>> cores;
    for (std::size_t i = 0; i < s.core_busy_pct.size(); ++i) cores.emplace_back(s.core_busy_pct[i], i);
    std::sort(cores.rbegin(), cores.rend());
    os << tr(lang, "watch.live.cores") << " ";
    for (std::size_t i = 0; i < cores.size() && i < 8; ++i) os << " cpu" << cores[i].second << " " << fmt_num(cores[i].first, 0) << "%";
    os << "\n";
  }
  if (h.target_pid > 0) {
    os << tr(lang, "watch.live.process") << " " << h.target_pid << "  ";
    if (s.proc_running && !*s.proc_running) {
      os << tr(lang, "watch.live.exited") << "\n";
    } else {
      os << "cpu " << p(s.proc_cpu_pct) << "  rss " << b(s.proc_rss_bytes) << "  " << tr(lang, "watch.live.threads") << " "
         << (s.proc_threads ? std::to_string(*s.proc_threads) : dash()) << "\n";
    }
  }
  os << "\n";
  if (s.gpus.empty()) {
    os << fill(tr(lang, "watch.live.no_gpu"), {{"reason", h.gpu_unavailable.empty() ? "-" : h.gpu_unavailable}}) << "\n";
  } else {
    os << pad(tr(lang, "watch.live.gpu"), 14) << pad(tr(lang, "watch.live.busy"), 8) << pad(tr(lang, "watch.live.vram"), 22)
       << pad(tr(lang, "watch.live.temp"), 7) << pad(tr(lang, "watch.live.power"), 8) << pad(tr(lang, "watch.live.clock"), 11)
       << pad(tr(lang, "watch.live.pcie"), 26);
    // The NVLink column only where some GPU reports NVLink traffic (PCIe-only machines stay narrow).
    bool nvlink = std::any_of(s.gpus.begin(), s.gpus.end(),
                              [](const WatchGpu& g) { return g.nvlink_rx_bytes_per_s || g.nvlink_tx_bytes_per_s; });
    if (nvlink) os << pad(tr(lang, "watch.live.nvlink"), 26);
    os << tr(lang, "watch.live.throttle") << "\n";
    for (const auto& g : s.gpus) {
      os << pad(g.bus_id, 14) << pad(p(g.busy_pct), 8) << pad(b(g.mem_used_bytes) + " / " + b(g.mem_total_bytes), 22)
         << pad(g.temperature_c ? fmt_num(*g.temperature_c, 0) + "C" : dash(), 7)
         << pad(g.power_w ? fmt_num(*g.power_w, 0) + "W" : dash(), 8)
         << pad(g.sm_clock_mhz ? fmt_num(*g.sm_clock_mhz, 0) + "MHz" : dash(), 11)
         << pad(rate(g.pcie_rx_bytes_per_s) + " / " + rate(g.pcie_tx_bytes_per_s), 26);
      if (nvlink) os << pad(rate(g.nvlink_rx_bytes_per_s) + " / " + rate(g.nvlink_tx_bytes_per_s), 26);
      os << (g.clock_event_reasons ? clock_event_reason_names(*g.clock_event_reasons & ~clock_event::kGpuIdle, ReasonNames::key) : dash()) << "\n";
    }
  }
  if (!s.disks.empty()) {
    os << "\n" << tr(lang, "watch.live.disk") << "\n";
    for (const auto& d : s.disks) os << "  " << pad(d.name, 12) << "r " << pad(rate(d.read_bytes_per_s), 14) << "w " << rate(d.write_bytes_per_s) << "\n";
  }
  if (!s.nets.empty()) {
    os << "\n" << tr(lang, "watch.live.net") << "\n";
    for (const auto& n : s.nets) os << "  " << pad(n.name, 12) << "rx " << pad(rate(n.rx_bytes_per_s), 14) << "tx " << rate(n.tx_bytes_per_s) << "\n";
  }
  return os.str();
}

std::string live_line(const WatchSample& s, Lang lang) {
  std::ostringstream os;
  os << "t=" << fmt_num(s.t_s, 2) << "s " << tr(lang, "watch.live.cpu") << " " << p(s.cpu_busy_pct) << " "
     << tr(lang, "watch.live.iowait") << " " << p(s.cpu_iowait_pct) << " " << tr(lang, "watch.live.memory") << " "
     << b(s.mem_used_bytes) << " io-psi " << p(s.psi_io_some_pct);
  if (s.proc_running) {
    os << " | " << tr(lang, "watch.live.process") << " ";
    if (!*s.proc_running) os << tr(lang, "watch.live.exited");
    else os << p(s.proc_cpu_pct) << " " << b(s.proc_rss_bytes) << " " << (s.proc_threads ? std::to_string(*s.proc_threads) : dash());
  }
  for (const auto& g : s.gpus) {
    os << " | " << g.bus_id << " " << p(g.busy_pct) << " " << b(g.mem_used_bytes);
    if (g.temperature_c) os << " " << fmt_num(*g.temperature_c, 0) << "C";
    if (g.power_w) os << " " << fmt_num(*g.power_w, 0) << "W";
  }
  os << "\n";
  return os.str();
}

void report_live_view_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"watch.live.title", {"plumb watch", "plumb watch 运行时观测"}},
    {"watch.live.hint", {"Ctrl-C: stop and summarise", "Ctrl-C：停止并输出总结"}},
    {"watch.live.cpu", {"CPU", "CPU"}},
    {"watch.live.busy", {"busy", "占用"}},
    {"watch.live.iowait", {"iowait", "iowait"}},
    {"watch.live.memory", {"memory", "内存"}},
    {"watch.live.pressure", {"pressure", "压力"}},
    {"watch.live.cores", {"busiest cores", "最忙的核心"}},
    {"watch.live.process", {"process", "进程"}},
    {"watch.live.exited", {"not running", "未运行"}},
    {"watch.live.threads", {"threads", "线程"}},
    {"watch.live.gpu", {"GPU", "GPU"}},
    {"watch.live.vram", {"VRAM", "显存"}},
    {"watch.live.temp", {"temp", "温度"}},
    {"watch.live.power", {"power", "功耗"}},
    {"watch.live.clock", {"SM clock", "SM 频率"}},
    {"watch.live.pcie", {"PCIe rx/tx", "PCIe 收/发"}},
    {"watch.live.nvlink", {"NVLink rx/tx", "NVLink 收/发"}},
    {"watch.live.throttle", {"throttle", "降频"}},
    {"watch.live.disk", {"disk", "磁盘"}},
    {"watch.live.net", {"network", "网络"}},
    {"watch.live.no_gpu", {"no GPU sampled: {reason}", "未采样 GPU：{reason}"}},
    {"watch.live.warming", {"first sample: rates appear from the next one", "首个样本：速率从下一个样本开始显示"}},
    {"watch.live.stopping", {"stopping: computing the summary", "正在停止：计算总结"}},
};
});
}

}  // namespace plumb::watch
