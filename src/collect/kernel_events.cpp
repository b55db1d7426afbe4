// Kernel log signatures as node events, and the cursor that reads the log once per boot. Message
// formats: NVIDIA Xid (open-gpu-kernel-modules kernel_rc.c, as collect/kmsg.cpp), NVSwitch SXid
// (NVIDIA Fabric Manager user guide, "NVSwitch errors"), the GPU-lost message of the NVIDIA driver
// ("GPU has fallen off the bus", nv.c), PCIe AER (drivers/pci/pcie/aer.c: "Corrected error
// received" before Linux 6.3, "Correctable error message received from" since), EDAC
// (drivers/edac/edac_mc.c: "EDAC MC0: 1 CE ..."), the OOM killer (mm/oom_kill.c), mlx5 link state
// (drivers/net/ethernet/mellanox/mlx5/core/en_main.c: "Link up"/"Link down") and hung tasks
// (kernel/hung_task.c: "INFO: task %s:%d blocked for more than %ld seconds.").
#include "collect/kernel_events.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>

#include "collect/kmsg.h"
#include "core/text.h"

namespace plumb {

namespace {

constexpr std::size_t kEventTextMax = 300;

std::string event_text(std::string_view s) { return cut_utf8(s, kEventTextMax); }

bool has(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

// "0000:3b:00.0" or "0000:3b:00" at the start of `s` (PCI domain:bus:device[.function]).
std::string leading_bdf(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && n < 16 && (std::isxdigit(static_cast<unsigned char>(s[n])) != 0 || s[n] == ':' || s[n] == '.')) ++n;
  std::string_view b = s.substr(0, n);
  while (!b.empty() && (b.back() == ':' || b.back() == '.')) b.remove_suffix(1);
  if (std::count(b.begin(), b.end(), ':') < 2) return {};
  return std::string(b);
}

// The bus id after "(PCI:" in an NVRM or SXid line.
std::string pci_in_parens(std::string_view s) {
  auto p = s.find("(PCI:");
  if (p == std::string_view::npos) return {};
  return leading_bdf(s.substr(p + 5));
}

std::optional<KernelEvent> sxid_event(std::string_view m) {
  auto p = m.find("SXid (PCI:");
  if (p == std::string_view::npos) return std::nullopt;
  KernelEvent e;
  e.kind = "sxid";
  e.subject = pci_in_parens(m);
  auto c = m.find("): ", p);
  if (c == std::string_view::npos) return std::nullopt;
  std::string_view rest = m.substr(c + 3);
  std::size_t n = 0;
  while (n < rest.size() && n < 8 && std::isdigit(static_cast<unsigned char>(rest[n])) != 0) ++n;
  if (n == 0) return std::nullopt;
  e.code = std::string(rest.substr(0, n));
  if (e.subject.empty()) e.subject = "nvswitch";
  e.evidence = event_text(m);
  return e;
}

std::optional<KernelEvent> aer_event(std::string_view m) {
  auto a = m.find("AER: ");
  if (a == std::string_view::npos) return std::nullopt;
  std::string_view rest = m.substr(a + 5);
  std::string_view dev;
  if (auto r = rest.find("error received: "); r != std::string_view::npos) {
    dev = rest.substr(r + 16);
  } else if (auto q = rest.find("error message received from "); q != std::string_view::npos) {
    dev = rest.substr(q + 28);
  } else {
    return std::nullopt;
  }
  KernelEvent e;
  e.kind = "pcie_aer";
  if (has(rest, "Non-Fatal") || has(rest, "NonFatal")) {
    e.code = "nonfatal";
  } else if (has(rest, "Fatal")) {
    e.code = "fatal";
  } else if (has(rest, "Correct")) {
    e.code = "corrected";
  } else {
    e.code = "unknown";
  }
  e.subject = leading_bdf(dev);
  if (e.subject.empty()) {
    // "pcieport 0000:00:01.0: AER: Multiple Corrected error received: 0000:00:01.0" names it; else the reporter.
    auto sp = m.find(' ');
    e.subject = sp == std::string_view::npos ? std::string() : leading_bdf(m.substr(sp + 1));
  }
  if (e.subject.empty()) e.subject = "pcie";
  e.evidence = event_text(m);
  return e;
}

std::optional<KernelEvent> edac_event(std::string_view m) {
  if (!starts_with(m, "EDAC MC")) return std::nullopt;
  auto colon = m.find(": ");
  if (colon == std::string_view::npos || colon > 16) return std::nullopt;
  std::string_view rest = m.substr(colon + 2);
  auto words = split_ws(rest.substr(0, 40));
  if (words.size() < 2 || !all_digits(words[0]) || (words[1] != "CE" && words[1] != "UE")) return std::nullopt;
  KernelEvent e;
  e.kind = "ecc";
  e.subject = std::string(m.substr(5, colon - 5));  // "MC0"
  e.code = std::string(words[1]);
  e.evidence = event_text(m);
  return e;
}

std::optional<KernelEvent> gpu_lost_event(std::string_view m) {
  if (!has(m, "NVRM:") || !has(m, "fallen off the bus")) return std::nullopt;
  KernelEvent e;
  e.kind = "gpu_lost";
  e.code = "79";
  if (auto g = m.find("GPU "); g != std::string_view::npos) e.subject = leading_bdf(m.substr(g + 4));
  if (e.subject.empty()) e.subject = pci_in_parens(m);
  if (e.subject.empty()) e.subject = "gpu";
  e.evidence = event_text(m);
  return e;
}

std::optional<KernelEvent> nvlink_event(std::string_view m) {
  if (!has(m, "NVLink") && !has(m, "nvlink")) return std::nullopt;
  std::string low = to_lower(m.substr(0, 400));
  if (!has(low, "error") && !has(low, "fatal") && !has(low, "down") && !has(low, "fail")) return std::nullopt;
  KernelEvent e;
  e.kind = "nvlink";
  e.subject = pci_in_parens(m);
  if (e.subject.empty()) {
    if (auto g = m.find("GPU "); g != std::string_view::npos) e.subject = leading_bdf(m.substr(g + 4));
  }
  if (e.subject.empty()) e.subject = "nvlink";
  e.code = has(low, "fatal") ? "fatal" : (has(low, "down") ? "down" : "error");
  e.evidence = event_text(m);
  return e;
}

// "mlx5_core 0000:3b:00.0 ibp59s0: Link down"; IPoIB and RDMA drivers the same way.
std::optional<KernelEvent> ib_link_event(std::string_view m) {
  static constexpr std::string_view kDrivers[] = {"mlx5_core", "mlx4_core", "mlx4_en", "mlx5_ib", "mlx4_ib", "ib_ipoib", "irdma", "bnxt_re"};
  bool rdma = std::any_of(std::begin(kDrivers), std::end(kDrivers), [&](std::string_view d) { return starts_with(m, d); }) ||
              starts_with(m, "ib") || starts_with(m, "IPoIB");
  if (!rdma) return std::nullopt;
  std::string_view state;
  std::size_t at = std::string_view::npos;
  for (std::string_view s : {std::string_view(": Link down"), std::string_view(": Link up"), std::string_view(": link down"),
                             std::string_view(": link up"), std::string_view(": Link is Down"), std::string_view(": Link is Up")}) {
    if (auto p = m.find(s); p != std::string_view::npos) {
      at = p;
      state = s;
      break;
    }
  }
  if (at == std::string_view::npos) return std::nullopt;
  KernelEvent e;
  e.kind = "ib_link";
  e.code = has(to_lower(state), "down") ? "down" : "up";
  // The subject: what precedes ": Link" after the driver name ("0000:3b:00.0 ibp59s0").
  std::string_view who = m.substr(0, at);
  auto sp = who.find(' ');
  e.subject = std::string(trim(sp == std::string_view::npos ? who : who.substr(sp + 1)).substr(0, 64));
  if (e.subject.empty()) e.subject = std::string(who.substr(0, 64));
  e.evidence = event_text(m);
  return e;
}

std::optional<KernelEvent> hung_task_event(std::string_view m) {
  auto p = m.find("INFO: task ");
  if (p == std::string_view::npos) return std::nullopt;
  std::string_view rest = m.substr(p + 11);
  auto b = rest.find(" blocked for more than ");
  if (b == std::string_view::npos || b == 0 || b > 64) return std::nullopt;
  KernelEvent e;
  e.kind = "hung_task";
  e.subject = std::string(rest.substr(0, b));
  e.code = "blocked";
  e.evidence = event_text(m);
  return e;
}

}  // namespace

std::optional<KernelEvent> parse_kernel_event(std::string_view m) {
  if (m.empty()) return std::nullopt;
  if (m.size() > 4096) m = m.substr(0, 4096);
  if (auto x = parse_xid(m)) {
    KernelEvent e;
    e.kind = "xid";
    e.subject = x->pci.empty() ? "gpu" : x->pci;
    e.code = std::to_string(x->code);
    e.evidence = event_text(m);
    return e;
  }
  if (auto e = sxid_event(m)) return e;
  if (auto e = gpu_lost_event(m)) return e;
  if (auto e = aer_event(m)) return e;
  if (auto e = edac_event(m)) return e;
  if (auto k = parse_oom_kill(m)) {
    KernelEvent e;
    e.kind = "oom_kill";
    e.subject = (k->process.empty() ? std::string("process") : k->process) + (k->pid ? ":" + std::to_string(*k->pid) : "");
    e.code = k->scope;
    e.evidence = event_text(m);
    return e;
  }
  if (auto e = ib_link_event(m)) return e;
  if (auto e = hung_task_event(m)) return e;
  if (auto e = nvlink_event(m)) return e;
  return std::nullopt;
}

std::vector<KmsgLine> split_dev_kmsg(std::string_view text, std::uint64_t after_seq, std::uint64_t& last_seq) {
  std::vector<KmsgLine> out;
  for (std::string_view line : split_lines(text)) {
    // "prio,seq,usec,flags;message" (Documentation/ABI/testing/dev-kmsg); continuation lines have no seq.
    auto semi = line.find(';');
    if (semi == std::string_view::npos || semi > 64) continue;
    auto f = split(line.substr(0, semi), ',');
    if (f.size() < 3) continue;
    auto seq = parse_uint(f[1]);
    if (!seq) continue;
    if (*seq > last_seq) last_seq = *seq;
    if (*seq <= after_seq) continue;
    KernelLogLine l = parse_kernel_log_line(line);
    out.push_back({*seq, l.time, l.message});
  }
  return out;
}

Result<KmsgRead> read_kmsg_since(const HostRoot& root, const std::string& file, const KmsgCursor& from, std::size_t max_bytes) {
  KmsgRead r;
  if (file.empty()) {
    r.source = "/dev/kmsg";
    std::string real = root.path("/dev/kmsg");
    int jailed = -1;
    if (!root.is_live()) {
      auto fd = root.open("/dev/kmsg", O_PATH);
      if (!fd) return make_error(ErrorKind::absent, "/dev/kmsg: not in the root tree (use --kmsg FILE)");
      jailed = *fd;
      real = "/proc/self/fd/" + std::to_string(jailed);
    }
    bool truncated = false;
    auto text = read_kmsg_source(real, r.source, std::chrono::steady_clock::now() + std::chrono::seconds(2), max_bytes, truncated);
    if (jailed >= 0) ::close(jailed);
    if (!text) return text.error();
    std::uint64_t last = from.seq;
    r.lines = split_dev_kmsg(*text, from.seq, last);
    r.next = from;
    r.next.seq = last;
    r.truncated = truncated;
    return r;
  }
  r.source = file;
  auto fd = open_user_file(file);
  if (!fd) return fd.error();
  struct stat st {};
  if (::fstat(*fd, &st) != 0) {
    int e = errno;
    ::close(*fd);
    return make_error(error_kind_from_errno(e), file + ": " + errno_text(e));
  }
  std::uint64_t offset = from.offset;
  auto inode = static_cast<std::uint64_t>(st.st_ino);
  // A new file (rotated, replaced) or one that shrank (truncated): read it from its start.
  if (from.inode != inode || static_cast<std::uint64_t>(st.st_size) < offset) offset = 0;
  std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
  std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(size - offset, max_bytes));
  std::string buf(want, '\0');
  auto got = pread_full(*fd, offset, buf.data(), want, file);
  ::close(*fd);
  if (!got) return got.error();
  buf.resize(*got);
  // Whole lines only: a line still being written is read next time.
  auto last_nl = buf.rfind('\n');
  std::size_t used = last_nl == std::string::npos ? 0 : last_nl + 1;
  if (used == 0 && buf.size() == max_bytes) used = buf.size();  // one line longer than a read: taken as it is
  r.truncated = offset + used < size && want == max_bytes;
  std::size_t start = 0;
  while (start < used) {
    std::size_t nl = buf.find('\n', start);
    std::size_t end = nl == std::string::npos || nl >= used ? used : nl;
    std::string_view line(buf.data() + start, end - start);
    KernelLogLine l = parse_kernel_log_line(line);
    if (!l.continuation && !trim(l.message).empty()) r.lines.push_back({offset + start, l.time, l.message});
    start = end + 1;
  }
  r.next.inode = inode;
  r.next.offset = offset + used;
  return r;
}

Result<std::string> read_boot_id(const HostRoot& root) {
  auto v = root.read_value("/proc/sys/kernel/random/boot_id");
  if (!v) return v.error();
  const std::string& s = *v;
  bool ok = s.size() == 36 && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == '-'; });
  if (!ok) return make_error(ErrorKind::invalid, "/proc/sys/kernel/random/boot_id: not a boot id");
  return s;
}

}  // namespace plumb
