// Kernel log reader and the OOM-killer / Xid extractors. Line formats follow
// Documentation/ABI/testing/dev-kmsg, mm/oom_kill.c and the NVIDIA driver's krcReportXid
// (NVIDIA/open-gpu-kernel-modules src/nvidia/src/kernel/gpu/rc/kernel_rc.c); each line is recognised on its own, so mixed files work.
#include "collect/kmsg.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "core/host_root.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr std::size_t kMaxStoredLine = 300;
constexpr std::size_t kMaxOomKept = 50;
constexpr std::size_t kMaxXidGroups = 256;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
std::string bounded(std::string_view s) { return std::string(s.substr(0, kMaxStoredLine)); }

// "[  123.456789]" or "[Sun Feb 23 16:24:18 2025]": a timestamp, not "[drm]".
bool looks_like_time(std::string_view inside) {
  std::string_view t = trim(inside);
  if (t.empty()) return false;
  auto dot = t.find('.');
  if (dot != std::string_view::npos && all_digits(t.substr(0, dot)) && all_digits(t.substr(dot + 1))) return true;
  int colons = static_cast<int>(std::count(t.begin(), t.end(), ':'));
  int digits = static_cast<int>(std::count_if(t.begin(), t.end(), is_digit));
  return colons >= 2 && digits >= 8 && std::isalpha(static_cast<unsigned char>(t.front())) != 0;
}

// "2025-01-21T03:16:32,154004+00:00" (dmesg --time-format iso) or RFC 3339 syslog stamps.
bool looks_like_iso(std::string_view tok) {
  return tok.size() >= 19 && all_digits(tok.substr(0, 4)) && tok[4] == '-' && all_digits(tok.substr(5, 2)) && tok[7] == '-' &&
         all_digits(tok.substr(8, 2)) && tok[10] == 'T' && all_digits(tok.substr(11, 2)) && tok[13] == ':';
}

int level_from_name(std::string_view n) {
  static constexpr std::string_view kLevels[] = {"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"};
  for (int i = 0; i < 8; ++i) {
    if (n == kLevels[i]) return i;
  }
  return -1;
}

// Syslog "Dec  2 10:43:35 host kernel: msg" (also journalctl -k short format).
bool strip_syslog(std::string_view& s, std::string& time) {
  static constexpr std::string_view kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (s.size() < 16 || s[3] != ' ') return false;
  if (std::find(std::begin(kMonths), std::end(kMonths), s.substr(0, 3)) == std::end(kMonths)) return false;
  auto k = s.find(" kernel: ");
  if (k == std::string_view::npos || k > 80) return false;
  time = std::string(s.substr(0, 15));
  s.remove_prefix(k + 9);
  return true;
}

}  // namespace

namespace {
// /dev/kmsg dictionary continuation (" SUBSYSTEM=pci"), not an indented dump line.
bool is_dict_continuation(std::string_view line) {
  if (line.empty() || (line.front() != ' ' && line.front() != '\t')) return false;
  std::string_view t = trim(line);
  auto eq = t.find('=');
  return eq != std::string_view::npos && eq > 0 && t.find(' ') == std::string_view::npos;
}
}  // namespace

KernelLogLine parse_kernel_log_line(std::string_view line) {
  KernelLogLine out;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (is_dict_continuation(line)) {
    out.continuation = true;
    return out;
  }
  std::string_view s = line;
  // Raw /dev/kmsg record: "prio,seq,usec,flags[,more];message".
  if (auto semi = s.find(';'); semi != std::string_view::npos && semi < 64 && !s.empty() && is_digit(s.front())) {
    auto f = split(s.substr(0, semi), ',');
    if (f.size() >= 4 && all_digits(f[0]) && all_digits(f[1]) && all_digits(f[2]) && f[0].size() <= 4 && f[2].size() <= 20) {
      auto prio = parse_uint(f[0]);
      auto usec = parse_uint(f[2]);
      if (prio && usec) {
        out.level = static_cast<int>(*prio & 7);
        char buf[48];
        std::snprintf(buf, sizeof buf, "[%5llu.%06llu]", static_cast<unsigned long long>(*usec / 1000000),
                      static_cast<unsigned long long>(*usec % 1000000));
        out.time = buf;
        out.message = std::string(s.substr(semi + 1));
        return out;
      }
    }
  }
  // "<N>" priority prefix (pstore, syslog-style capture).
  if (s.size() >= 3 && s.front() == '<') {
    auto gt = s.find('>');
    if (gt != std::string_view::npos && gt > 1 && gt <= 4 && all_digits(s.substr(1, gt - 1))) {
      out.level = static_cast<int>(*parse_uint(s.substr(1, gt - 1)) & 7);
      s.remove_prefix(gt + 1);
    }
  }
  // "kern  :warn  : " facility and level (dmesg --decode).
  {
    auto c1 = s.find(':');
    if (c1 != std::string_view::npos && c1 > 0 && c1 <= 10) {
      std::string_view fac = trim(s.substr(0, c1));
      auto c2 = s.find(':', c1 + 1);
      if (c2 != std::string_view::npos && c2 - c1 <= 10 && !fac.empty() &&
          std::all_of(fac.begin(), fac.end(), [](char c) { return (c >= 'a' && c <= 'z') || is_digit(c); })) {
        int lv = level_from_name(trim(s.substr(c1 + 1, c2 - c1 - 1)));
        if (lv >= 0) {
          out.level = lv;
          s.remove_prefix(c2 + 1);
          while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        }
      }
    }
  }
  // ISO timestamp, possibly followed by "host kernel: " (RFC 3339 syslog).
  if (auto sp = s.find(' '); sp != std::string_view::npos && looks_like_iso(s.substr(0, sp))) {
    out.time = std::string(s.substr(0, sp));
    s.remove_prefix(sp + 1);
    auto k = s.find(" kernel: ");
    if (k != std::string_view::npos && k < 64 && s.substr(0, k).find(' ') == std::string_view::npos) s.remove_prefix(k + 9);
  } else if (std::string t; strip_syslog(s, t)) {
    out.time = t;
  }
  // "[  123.456789] " or "[Sun Feb 23 16:24:18 2025] ".
  if (!s.empty() && s.front() == '[') {
    auto rb = s.find(']');
    if (rb != std::string_view::npos && rb < 40 && looks_like_time(s.substr(1, rb - 1))) {
      if (out.time.empty()) out.time = std::string(s.substr(0, rb + 1));
      s.remove_prefix(rb + 1);
      if (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    }
  }
  out.message = std::string(s);
  return out;
}

std::optional<OomKill> parse_oom_kill(std::string_view msg) {
  std::size_t at = std::string_view::npos;
  std::size_t skip = 0;
  for (std::string_view key : {std::string_view("Killed process "), std::string_view("Kill process ")}) {
    auto p = msg.find(key);
    if (p != std::string_view::npos && (at == std::string_view::npos || p < at)) {
      at = p;
      skip = key.size();
    }
  }
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view before = msg.substr(0, at);
  // Only the kernel's own words: "<prefix>: Kill(ed) process" or the line starting with it.
  if (!before.empty() && before.find(": ") == std::string_view::npos) return std::nullopt;
  OomKill k;
  if (before.find("Memory cgroup out of memory") != std::string_view::npos) {
    k.scope = "cgroup";
  } else if (before.find("Out of memory") != std::string_view::npos) {
    k.scope = "global";
  } else if (before.empty()) {
    k.scope = "unknown";  // old kernels print the kill line alone; the lines before it tell
  } else {
    return std::nullopt;  // "oom_reaper: reaped process", a user-space message
  }
  std::string_view rest = msg.substr(at + skip);
  std::size_t i = 0;
  while (i < rest.size() && is_digit(rest[i])) ++i;
  if (i == 0 || i > 12) return std::nullopt;
  k.pid = parse_int(rest.substr(0, i));
  // "(name)" right after the pid, or after ", UID 48, " in a vendor variant.
  auto lp = rest.find('(', i);
  if (lp != std::string_view::npos && lp - i <= 24) {
    for (std::size_t rp = rest.find(')', lp + 1); rp != std::string_view::npos; rp = rest.find(')', rp + 1)) {
      char next = rp + 1 < rest.size() ? rest[rp + 1] : ' ';
      if (next == ' ' || next == ',' || next == '.') {
        k.process = std::string(rest.substr(lp + 1, std::min<std::size_t>(rp - lp - 1, 64)));
        break;
      }
    }
  }
  k.line = bounded(msg);
  return k;
}

std::optional<XidLine> parse_xid(std::string_view msg) {
  auto at = msg.find("NVRM: Xid (");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = msg.substr(at + 11);
  auto rp = rest.find(')');
  if (rp == std::string_view::npos || rp > 64) return std::nullopt;
  std::string_view inside = rest.substr(0, rp);
  auto toks = split_ws(inside);
  if (toks.empty()) return std::nullopt;
  std::string_view pci = toks.front();
  if (starts_with(pci, "PCI:")) pci.remove_prefix(4);
  if (pci.empty() || !std::all_of(pci.begin(), pci.end(), [](char c) {
        return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
      })) {
    return std::nullopt;
  }
  XidLine x;
  x.pci = std::string(pci);
  std::transform(x.pci.begin(), x.pci.end(), x.pci.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  rest.remove_prefix(rp + 1);
  while (!rest.empty() && (rest.front() == ':' || rest.front() == ' ')) rest.remove_prefix(1);
  std::size_t i = 0;
  while (i < rest.size() && is_digit(rest[i])) ++i;
  if (i == 0 || i > 5) return std::nullopt;
  x.code = static_cast<int>(*parse_uint(rest.substr(0, i)));
  rest.remove_prefix(i);
  if (auto p = rest.find("pid="); p != std::string_view::npos && p < 8) {
    std::string_view v = rest.substr(p + 4);
    std::size_t j = 0;
    while (j < v.size() && is_digit(v[j])) ++j;
    if (j > 0 && j <= 12) x.pid = parse_int(v.substr(0, j));
  }
  if (auto p = rest.find("name="); p != std::string_view::npos && p < 40) {
    std::string_view v = rest.substr(p + 5);
    v = v.substr(0, std::min(v.find(','), std::size_t{64}));
    if (v != "<unknown>") x.process = std::string(trim(v));
  }
  for (auto t : split_ws(rest)) {
    if (t == "Fatal" || t == "Fatal," || t == "Fatal:") x.fatal_word = true;
  }
  return x;
}

namespace {

// The "oom-kill:constraint=...,task=x,pid=N,..." summary that precedes a kill (kernels >= 4.19).
struct OomSummary {
  std::string constraint;
  std::string memcg;
  std::string task;
  std::optional<std::int64_t> pid;
  std::string time;
  std::string line;
  bool used = false;
};

std::optional<OomSummary> parse_oom_summary(std::string_view msg) {
  auto at = msg.find("oom-kill:");
  if (at == std::string_view::npos) return std::nullopt;
  OomSummary s;
  std::string task_memcg;
  for (auto kv : split(msg.substr(at + 9), ',')) {
    auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view k = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (k == "constraint") s.constraint = std::string(v);
    if (k == "oom_memcg") s.memcg = std::string(v);
    if (k == "task_memcg") task_memcg = std::string(v);
    if (k == "task") s.task = std::string(v.substr(0, 64));
    if (k == "pid" && all_digits(v) && v.size() <= 12) s.pid = parse_int(v);
  }
  if (s.memcg.empty()) s.memcg = task_memcg;
  s.line = bounded(msg);
  return s;
}

std::string scope_of(const OomSummary& s) {
  if (s.constraint == "CONSTRAINT_MEMCG") return "cgroup";
  if (s.constraint.empty()) return "unknown";
  return "global";
}

struct LogScan {
  KernelLogFacts facts;
  std::optional<OomSummary> pending;
  std::string last_context;  // "cgroup"/"global" from a header line seen just before an old-style kill
  std::uint64_t last_kill_record = 0;
  std::uint64_t record = 0;
  std::vector<std::string> inferred_79;  // GPUs whose Xid 79 so far comes only from the notice text
  std::string notice_pci;                // "NVRM: The NVIDIA GPU <pci>" of a multi-line notice

  void add_kill(OomKill k) {
    ++facts.oom_kill_total;
    if (facts.oom_kills.size() < kMaxOomKept) facts.oom_kills.push_back(std::move(k));
  }

  // A summary never followed by its kill line (a truncated log) still names a killed task.
  void flush_pending() {
    if (pending && !pending->used && (pending->pid || !pending->task.empty())) {
      OomKill k;
      k.scope = scope_of(*pending);
      k.pid = pending->pid;
      k.process = pending->task;
      k.memcg = pending->memcg;
      k.time = pending->time;
      k.line = pending->line;
      add_kill(std::move(k));
    }
    pending.reset();
  }

  void on_kill(OomKill k, const std::string& time) {
    k.time = time;
    if (pending && (!pending->pid || !k.pid || *pending->pid == *k.pid)) {
      if (k.scope == "unknown") k.scope = scope_of(*pending);
      k.memcg = pending->memcg;
      pending->used = true;
    }
    if (k.scope == "unknown" && !last_context.empty()) k.scope = last_context;
    // Old kernels print "Kill process N (x) score ... or sacrifice child" then "Killed process N (x)":
    // one kill, told twice.
    if (facts.oom_kill_total > 0 && !facts.oom_kills.empty() && record - last_kill_record <= 8) {
      OomKill& prev = facts.oom_kills.back();
      if (prev.pid == k.pid && prev.process == k.process) {
        if (prev.scope == "unknown") prev.scope = k.scope;
        if (prev.memcg.empty()) prev.memcg = k.memcg;
        if (k.line.find("Killed process") != std::string::npos) prev.line = k.line;
        last_kill_record = record;
        return;
      }
    }
    add_kill(std::move(k));
    last_kill_record = record;
  }

  void on_xid(const XidLine& x, const std::string& time, std::string_view msg) {
    auto inferred = std::find(inferred_79.begin(), inferred_79.end(), x.pci);
    for (auto& g : facts.xids) {
      if (g.pci == x.pci && g.code == x.code) {
        if (x.code == 79 && inferred != inferred_79.end()) {
          // The Xid line of a GPU already reported by its notice: the same event, now with its line.
          inferred_79.erase(inferred);
          g.first_line = bounded(msg.substr(msg.find("NVRM: Xid")));
          if (g.process.empty()) g.process = x.process;
          return;
        }
        ++g.count;
        g.last_time = time;
        g.fatal_word |= x.fatal_word;
        if (g.process.empty()) g.process = x.process;
        return;
      }
    }
    if (facts.xids.size() >= kMaxXidGroups) return;
    XidEvents g;
    g.pci = x.pci;
    g.code = x.code;
    g.count = 1;
    g.fatal_word = x.fatal_word;
    g.first_time = g.last_time = time;
    g.first_line = bounded(msg.substr(msg.find("NVRM: Xid")));
    g.process = x.process;
    facts.xids.push_back(std::move(g));
  }

  // Drivers that print no Xid line for it still say "GPU has fallen off the bus"
  // ("NVRM: GPU 0000:05:00.0: GPU has fallen off the bus." or the three-line
  // "NVRM: The NVIDIA GPU 0000:b3:00.0 / (PCI ID: ...) installed in this system has / fallen off the bus ...").
  void on_bus_notice(std::string_view msg, const std::string& time) {
    std::string pci;
    for (std::string_view key : {std::string_view("NVRM: The NVIDIA GPU "), std::string_view("NVRM: GPU at "),
                                 std::string_view("NVRM: GPU ")}) {
      auto p = msg.find(key);
      if (p == std::string_view::npos) continue;
      std::string_view tok = msg.substr(p + key.size());
      tok = tok.substr(0, tok.find(' '));
      if (starts_with(tok, "PCI:")) tok.remove_prefix(4);
      while (!tok.empty() && (tok.back() == ':' || tok.back() == ',')) tok.remove_suffix(1);
      auto dot = tok.find('.');
      if (dot != std::string_view::npos) tok = tok.substr(0, dot);  // drop the PCI function
      if (tok.size() >= 7 && std::all_of(tok.begin(), tok.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == ':'; })) {
        pci = std::string(tok);
        std::transform(pci.begin(), pci.end(), pci.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      }
      break;
    }
    if (msg.find("NVRM: The NVIDIA GPU ") != std::string_view::npos) notice_pci = pci;
    if (msg.find("fallen off the bus") == std::string_view::npos) return;
    if (pci.empty()) pci = notice_pci;
    if (pci.empty()) return;
    for (const auto& g : facts.xids) {
      if (g.pci == pci && g.code == 79) return;  // the Xid line (or an earlier notice) already counted it
    }
    if (facts.xids.size() >= kMaxXidGroups) return;
    XidEvents g;
    g.pci = pci;
    g.code = 79;
    g.count = 1;
    g.first_time = g.last_time = time;
    g.first_line = bounded(msg);
    facts.xids.push_back(std::move(g));
    inferred_79.push_back(pci);
  }

  void on_line(std::string_view raw) {
    // Most lines mention neither an OOM kill nor an Xid: count them without taking them apart
    // (a live ring buffer holds many megabytes).
    static constexpr std::string_view kKeys[] = {"Xid",      "process ",       "oom",          "Out of memory",
                                                 "Task in ", "memory: usage ", "NVRM: The NVIDIA GPU ", "off the bus"};
    bool interesting = false;
    for (auto k : kKeys) interesting = interesting || raw.find(k) != std::string_view::npos;
    if (!interesting) {
      if (!trim(raw).empty() && !is_dict_continuation(raw)) ++record;
      return;
    }
    KernelLogLine l = parse_kernel_log_line(raw);
    if (l.continuation || trim(l.message).empty()) return;
    ++record;
    std::string_view msg = l.message;
    if (auto x = parse_xid(msg)) {
      on_xid(*x, l.time, msg);
      return;
    }
    if (msg.find("NVRM: ") != std::string_view::npos) {
      on_bus_notice(msg, l.time);
      return;
    }
    if (auto s = parse_oom_summary(msg)) {
      flush_pending();
      s->time = l.time;
      pending = std::move(*s);
      return;
    }
    if (auto k = parse_oom_kill(msg)) {
      on_kill(std::move(*k), l.time);
      return;
    }
    // Header lines of an OOM report tell old-style kill lines which kind they are.
    if (msg.find("invoked oom-killer:") != std::string_view::npos) {
      flush_pending();
      last_context.clear();
    } else if (starts_with(msg, "Memory cgroup out of memory") || starts_with(msg, "Task in ") ||
               starts_with(msg, "memory: usage ")) {
      last_context = "cgroup";
    } else if (starts_with(msg, "Out of memory")) {
      last_context = "global";
    }
  }
};

}  // namespace

KernelLogFacts parse_kernel_log(std::string_view text) {
  LogScan scan;
  for (auto line : split_lines(text)) scan.on_line(line);
  scan.flush_pending();
  scan.facts.collected = true;
  scan.facts.records = Fact<std::uint64_t>::of(scan.record, {});
  return std::move(scan.facts);
}

Result<std::string> read_kmsg_source(const std::string& real_path, const std::string& shown,
                                     std::chrono::steady_clock::time_point deadline, std::size_t max_bytes,
                                     bool& truncated) {
  truncated = false;
  int fd = ::open(real_path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == EPERM || e == EACCES) {
      return make_error(ErrorKind::denied, shown + " (" + errno_text(e) + "): needs CAP_SYSLOG (or kernel.dmesg_restrict=0)");
    }
    return make_error(error_kind_from_errno(e), shown + " (" + errno_text(e) + ")");
  }
  struct stat st {};
  bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  bool skip_partial = false;
  if (regular && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    // Keep the newest lines: start max_bytes before the end, at the next line.
    ::lseek(fd, st.st_size - static_cast<off_t>(max_bytes), SEEK_SET);
    skip_partial = true;
    truncated = true;
  }
  std::string out;
  // One /dev/kmsg record per read(); a buffer smaller than a record gives EINVAL.
  std::string buf(16384, '\0');
  for (;;) {
    if (std::chrono::steady_clock::now() >= deadline) {
      truncated = true;
      break;
    }
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      int e = errno;
      if (e == EINTR) continue;
      if (e == EPIPE) continue;  // records were overwritten while we read: go on with the next one
      if (e == EAGAIN) break;    // end of the ring buffer
      ::close(fd);
      if ((e == EPERM || e == EACCES)) {
        return make_error(ErrorKind::denied, shown + " (" + errno_text(e) + "): needs CAP_SYSLOG (or kernel.dmesg_restrict=0)");
      }
      if (!out.empty()) {
        truncated = true;
        return out;
      }
      return make_error(error_kind_from_errno(e), shown + " (" + errno_text(e) + ")");
    }
    if (n == 0) break;
    out.append(buf.data(), static_cast<std::size_t>(n));
    if (out.size() >= max_bytes) {
      truncated = true;
      break;
    }
  }
  ::close(fd);
  if (skip_partial) {
    auto nl = out.find('\n');
    out.erase(0, nl == std::string::npos ? out.size() : nl + 1);
  }
  return out;
}

KernelLogFacts read_kernel_log(const Context& ctx) {
  constexpr std::size_t kMaxBytes = 64u << 20;
  auto budget = std::min<std::chrono::milliseconds>(ctx.deadline / 2, std::chrono::milliseconds(3000));
  auto deadline = std::chrono::steady_clock::now() + budget;
  bool truncated = false;
  std::string shown = ctx.kmsg_file.empty() ? std::string("/dev/kmsg") : ctx.kmsg_file;
  std::string real = ctx.kmsg_file.empty() ? ctx.root.path("/dev/kmsg") : ctx.kmsg_file;
  // Under a fixture root /dev/kmsg resolves inside the tree (a link to the host's is not followed
  // out); the reader then opens that very file through /proc/self/fd.
  int jailed = -1;
  if (ctx.kmsg_file.empty() && !ctx.root.is_live()) {
    auto fd = ctx.root.open("/dev/kmsg", O_PATH);
    if (fd) {
      jailed = *fd;
      real = "/proc/self/fd/" + std::to_string(jailed);
    } else {
      real.clear();  // not in the tree: reads as absent, never as the path outside it
    }
  }
  auto text = read_kmsg_source(real, shown, deadline, kMaxBytes, truncated);
  if (jailed >= 0) ::close(jailed);
  KernelLogFacts k;
  if (!text) {
    k.collected = true;
    std::string why = text.error().describe();
    if (text.error().kind == ErrorKind::denied) {
      if (auto r = ctx.root.read_value("/proc/sys/kernel/dmesg_restrict")) why += " [kernel.dmesg_restrict = " + *r + "]";  // via root
    }
    k.records = Fact<std::uint64_t>::none(why, shown);
    return k;
  }
  k = parse_kernel_log(*text);
  k.records.source = shown;
  k.truncated = truncated;
  return k;
}

namespace {


}  // namespace

void collect_kmsg_tables(Tables& t) {
  t.add_collector({"collect.kmsg",
                                            {"kernel log: OOM-killer events and NVIDIA Xid errors (/dev/kmsg or --kmsg FILE)",
                                             "内核日志：OOM Killer 事件与 NVIDIA Xid 错误（/dev/kmsg 或 --kmsg 文件）"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              KernelLogFacts k = read_kernel_log(ctx);
                                              return [k](Facts& f) { f.host.kmsg = k; };
                                            }});
}

}  // namespace plumb
