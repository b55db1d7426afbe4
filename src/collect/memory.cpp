// Memory facts: meminfo totals, swap devices, transparent hugepages (THP) mode and defrag.
#include "collect/memory.h"

#include <algorithm>

#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

std::map<std::string, std::uint64_t> parse_meminfo(std::string_view text) {
  std::map<std::string, std::uint64_t> out;
  for (auto line : split_lines(text)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    std::string key(trim(line.substr(0, colon)));
    auto fields = split_ws(line.substr(colon + 1));
    if (fields.empty() || fields.size() > 2) continue;
    auto v = parse_uint(fields[0]);
    if (!v) continue;
    if (fields.size() == 2) {
      if (fields[1] != "kB") continue;  // the kernel prints only kB; anything else is not meminfo
      if (*v > UINT64_MAX / 1024) continue;
      *v *= 1024;
    }
    out[key] = *v;
  }
  return out;
}

std::optional<std::uint64_t> meminfo_available(const std::map<std::string, std::uint64_t>& kv) {
  if (auto it = kv.find("MemAvailable"); it != kv.end()) return it->second;
  auto free = kv.find("MemFree"), buffers = kv.find("Buffers"), cached = kv.find("Cached");
  if (free == kv.end() || buffers == kv.end() || cached == kv.end()) return std::nullopt;
  return free->second + buffers->second + cached->second;
}

std::vector<SwapDevice> parse_swaps(std::string_view text) {
  std::vector<SwapDevice> out;
  for (auto line : split_lines(text)) {
    auto f = split_ws(line);
    if (f.size() < 5 || f[0] == "Filename") continue;
    // The file name may contain spaces (escaped as \040 by the kernel), so count fields from the right.
    std::size_t n = f.size();
    auto size = parse_uint(f[n - 3]);
    auto used = parse_uint(f[n - 2]);
    auto prio = parse_int(f[n - 1]);
    if (!size || !used || !prio || *size > UINT64_MAX / 1024 || *used > UINT64_MAX / 1024) continue;
    if (*prio < INT32_MIN || *prio > INT32_MAX) continue;
    SwapDevice d;
    for (std::size_t i = 0; i + 4 < n; ++i) {
      if (i > 0) d.filename += ' ';
      d.filename.append(f[i]);
    }
    d.type = std::string(f[n - 4]);
    d.size_bytes = *size * 1024;
    d.used_bytes = *used * 1024;
    d.priority = static_cast<int>(*prio);
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<std::string> parse_bracketed_choice(std::string_view text) {
  auto open = text.find('[');
  if (open == std::string_view::npos) return std::nullopt;
  auto close = text.find(']', open);
  if (close == std::string_view::npos || close == open + 1) return std::nullopt;
  return std::string(trim(text.substr(open + 1, close - open - 1)));
}

MemoryFacts read_memory(const HostRoot& root) {
  MemoryFacts m;
  m.collected = true;
  const std::string src = "/proc/meminfo";  // read through root
  auto text = root.read(src);
  using U = Fact<std::uint64_t>;
  if (text) {
    auto kv = parse_meminfo(*text);
    auto get = [&](const char* k) {
      auto it = kv.find(k);
      if (it != kv.end()) return U::of(it->second, src);
      // Present but dropped by the parser: a value past 2^64 bytes, or not a number of kB.
      for (auto line : split_lines(*text)) {
        auto colon = line.find(':');
        if (colon == std::string_view::npos || trim(line.substr(0, colon)) != k) continue;
        auto fields = split_ws(line.substr(colon + 1));
        bool digits = !fields.empty() && std::all_of(fields[0].begin(), fields[0].end(), [](char c) { return c >= '0' && c <= '9'; });
        return U::none(std::string(k) + " in meminfo is " + (digits ? "out of range" : "not a number of kB") + ": " +
                           std::string(trim(line.substr(colon + 1))),
                       src);
      }
      return U::none(std::string(k) + " not in meminfo", src);
    };
    m.mem_total_bytes = get("MemTotal");
    m.mem_available_bytes = get("MemAvailable");
    if (auto est = meminfo_available(kv); !m.mem_available_bytes.has() && est) {
      m.mem_available_bytes = U::of(*est, src + " (MemFree+Buffers+Cached)");
    }
    m.swap_total_bytes = get("SwapTotal");
    m.swap_free_bytes = get("SwapFree");
    m.hugepages_total = get("HugePages_Total");
    m.hugepages_free = get("HugePages_Free");
    m.hugepage_size_bytes = get("Hugepagesize");
    m.anon_hugepages_bytes = get("AnonHugePages");
  } else {
    U none = U::none(text.error().describe(), src);
    m.mem_total_bytes = m.mem_available_bytes = m.swap_total_bytes = m.swap_free_bytes = none;
    m.hugepages_total = m.hugepages_free = m.hugepage_size_bytes = m.anon_hugepages_bytes = none;
  }

  const std::string swaps_src = "/proc/swaps";  // read through root
  auto swaps = root.read(swaps_src);
  m.swaps = swaps ? Fact<std::vector<SwapDevice>>::of(parse_swaps(*swaps), swaps_src)
                  : Fact<std::vector<SwapDevice>>::none(swaps.error().describe(), swaps_src);

  auto thp = [&](const std::string& file) {
    std::string p = "/sys/kernel/mm/transparent_hugepage/" + file;  // read through root
    auto v = root.read_value(p);
    if (!v) return Fact<std::string>::none(v.error().describe(), p);
    auto c = parse_bracketed_choice(*v);
    return c ? Fact<std::string>::of(*c, p) : Fact<std::string>::none("no [selected] value in '" + *v + "'", p);
  };
  m.thp_enabled = thp("enabled");
  m.thp_defrag = thp("defrag");
  return m;
}

std::optional<std::string> free_page_reporting_device(const HostRoot& root) {
  const std::string dir = "/sys/bus/virtio/devices/";
  auto names = root.list(dir);
  if (!names) return std::nullopt;
  constexpr std::size_t kReportingBit = 5;  // VIRTIO_BALLOON_F_REPORTING (Linux include/uapi/linux/virtio_balloon.h)
  for (const auto& n : *names) {
    const std::string dev = dir + n;
    auto id = root.read_value(dev + "/device");
    if (!id || *id != "0x0005") continue;  // the memory balloon device
    auto features = root.read_value(dev + "/features");
    if (features && features->size() > kReportingBit && (*features)[kReportingBit] == '1') return n;
  }
  return std::nullopt;
}

namespace {




}  // namespace

void collect_memory_tables(Tables& t) {
  t.add_collector({"collect.memory",
                                            {"Memory: meminfo, swap devices, transparent hugepages",
                                             "内存：meminfo、交换分区、透明大页"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              MemoryFacts m = read_memory(ctx.root);
                                              return [m](Facts& f) {
                                                // PSI and swappiness come from their own collectors: keep them.
                                                auto psi = f.host.memory.pressure;
                                                auto swappiness = f.host.memory.swappiness;
                                                f.host.memory = m;
                                                f.host.memory.pressure = psi;
                                                f.host.memory.swappiness = swappiness;
                                              };
                                            }});
}

}  // namespace plumb
