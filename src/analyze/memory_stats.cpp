// Parsers for the caching allocator's statistics and the analysis of `plumb memory`.
// Formats follow torch/cuda/memory.py (memory_stats keys, memory_summary's _format_size: binary
// units labelled B/KB/MB/GB before PyTorch 2.1 and B/KiB/MiB/GiB after) and the OOM messages of
// c10/cuda/CUDACachingAllocator.cpp. Real samples: tests/fixtures/framework/memory/.
#include "analyze/memory_stats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "core/catalog.h"
#include "core/host_root.h"
#include "core/json.h"
#include "core/registry.h"
#include "core/text.h"

namespace plumb {

namespace {

std::optional<std::uint64_t> unit_factor(std::string_view u) {
  static const std::map<std::string_view, std::uint64_t> k{
      {"B", 1ull},          {"KB", 1ull << 10}, {"KiB", 1ull << 10}, {"MB", 1ull << 20}, {"MiB", 1ull << 20},
      {"GB", 1ull << 30},   {"GiB", 1ull << 30}, {"TB", 1ull << 40}, {"TiB", 1ull << 40}, {"PB", 1ull << 50},
      {"PiB", 1ull << 50}};
  auto it = k.find(u);
  return it == k.end() ? std::nullopt : std::optional<std::uint64_t>(it->second);
}

std::optional<std::uint64_t> scaled(double v, std::uint64_t factor) {
  double b = v * static_cast<double>(factor);
  if (!std::isfinite(b) || b < 0 || b > 1.8e19) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(b));
}

// "14935 MB", "267624 KiB", "0 B", "3" (a count) -> value.
std::optional<std::uint64_t> parse_cell(std::string_view cell, bool bytes) {
  auto parts = split_ws(trim(cell));
  if (parts.empty() || parts.size() > 2) return std::nullopt;
  auto v = parse_double(parts[0]);
  if (!v || *v < 0) return std::nullopt;
  if (!bytes) return parts.size() == 1 ? scaled(*v, 1) : std::nullopt;
  auto f = parts.size() == 2 ? unit_factor(parts[1]) : std::optional<std::uint64_t>(1);
  if (!f) return std::nullopt;
  return scaled(*v, *f);
}

bool is_space(char c) { return c == ' ' || c == '\t'; }

// "<number> <unit>" ending right before `end` in s (spaces allowed), e.g. "15.90 GiB" before " total".
std::optional<std::uint64_t> size_before(std::string_view s, std::size_t end) {
  std::size_t i = end;
  while (i > 0 && is_space(s[i - 1])) --i;
  std::size_t ue = i;
  while (i > 0 && std::isalpha(static_cast<unsigned char>(s[i - 1])) != 0) --i;
  std::string_view unit = s.substr(i, ue - i);
  while (i > 0 && is_space(s[i - 1])) --i;
  std::size_t ne = i;
  while (i > 0 && (std::isdigit(static_cast<unsigned char>(s[i - 1])) != 0 || s[i - 1] == '.')) --i;
  if (ne == i || ne - i > 24) return std::nullopt;
  auto v = parse_double(s.substr(i, ne - i));
  auto f = unit_factor(unit);
  if (!v || !f) return std::nullopt;
  return scaled(*v, *f);
}

// "<number> <unit>" starting at `pos` (after spaces).
std::optional<std::uint64_t> size_after(std::string_view s, std::size_t pos) {
  std::size_t i = pos;
  while (i < s.size() && is_space(s[i])) ++i;
  std::size_t nb = i;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) != 0 || s[i] == '.')) ++i;
  if (i == nb || i - nb > 24) return std::nullopt;
  auto v = parse_double(s.substr(nb, i - nb));
  while (i < s.size() && is_space(s[i])) ++i;
  std::size_t ub = i;
  while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i])) != 0) ++i;
  auto f = unit_factor(s.substr(ub, i - ub));
  if (!v || !f) return std::nullopt;
  return scaled(*v, *f);
}

std::optional<std::uint64_t> before_phrase(std::string_view s, std::string_view phrase) {
  auto p = s.find(phrase);
  return p == std::string_view::npos ? std::nullopt : size_before(s, p);
}
std::optional<std::uint64_t> after_phrase(std::string_view s, std::string_view phrase) {
  auto p = s.find(phrase);
  return p == std::string_view::npos ? std::nullopt : size_after(s, p + phrase.size());
}

std::string digits_after(std::string_view s, std::string_view phrase) {
  auto p = s.find(phrase);
  if (p == std::string_view::npos) return {};
  std::size_t i = p + phrase.size(), b = i;
  while (i < s.size() && i - b < 6 && std::isdigit(static_cast<unsigned char>(s[i])) != 0) ++i;
  return std::string(s.substr(b, i - b));
}

// memory_stats() key -> the field it fills.
bool apply_stat(DeviceMemoryStats& d, std::string_view key, std::uint64_t v) {
  if (key == "num_ooms") return d.num_ooms = v, true;
  if (key == "num_alloc_retries") return d.num_alloc_retries = v, true;
  if (key == "oversize_allocations.current") return d.oversize_allocations = v, true;
  if (key == "oversize_segments.current") return d.oversize_segments = v, true;
  static const std::map<std::string_view, AllocStat DeviceMemoryStats::*> groups{
      {"allocated_bytes", &DeviceMemoryStats::allocated_bytes},
      {"active_bytes", &DeviceMemoryStats::active_bytes},
      {"requested_bytes", &DeviceMemoryStats::requested_bytes},
      {"reserved_bytes", &DeviceMemoryStats::reserved_bytes},
      {"inactive_split_bytes", &DeviceMemoryStats::inactive_split_bytes},
      {"allocation", &DeviceMemoryStats::allocations},
      {"segment", &DeviceMemoryStats::segments},
      {"inactive_split", &DeviceMemoryStats::inactive_splits}};
  auto parts = split(key, '.');
  if (parts.size() != 3 || parts[1] != "all") return false;
  auto g = groups.find(parts[0]);
  if (g == groups.end()) return false;
  AllocStat& s = d.*(g->second);
  if (parts[2] == "current") return s.current = v, true;
  if (parts[2] == "peak") return s.peak = v, true;
  if (parts[2] == "allocated") return s.allocated = v, true;
  if (parts[2] == "freed") return s.freed = v, true;
  return false;
}

// A flat memory_stats object; false when none of its keys is a known statistic.
bool device_from_object(const json& o, const std::string& device, DeviceMemoryStats& d) {
  d.device = device;
  bool any = false;
  for (const auto& [k, v] : o.items()) {
    if (v.is_number_unsigned()) any |= apply_stat(d, k, v.get<std::uint64_t>());
    else if (v.is_number_integer() && v.get<long long>() >= 0) any |= apply_stat(d, k, static_cast<std::uint64_t>(v.get<long long>()));
  }
  return any;
}

std::string device_name(std::string k) {
  if (k.rfind("cuda:", 0) == 0) k = k.substr(5);
  return k;
}

}  // namespace

Result<MemoryInput> parse_memory_stats_json(std::string_view text) {
  json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) return make_error(ErrorKind::invalid, "not valid JSON");
  MemoryInput in;
  in.format = "memory_stats json";
  DeviceMemoryStats d;
  if (doc.is_object() && device_from_object(doc, "0", d)) {
    in.devices.push_back(d);
  } else if (doc.is_object()) {
    for (const auto& [k, v] : doc.items()) {
      DeviceMemoryStats e;
      if (v.is_object() && device_from_object(v, device_name(k), e)) in.devices.push_back(e);
    }
  } else if (doc.is_array()) {
    std::size_t i = 0;
    for (const auto& v : doc) {
      DeviceMemoryStats e;
      if (v.is_object() && device_from_object(v, std::to_string(i), e)) in.devices.push_back(e);
      ++i;
    }
  }
  if (in.devices.empty()) return make_error(ErrorKind::invalid, "JSON without torch.cuda.memory_stats() keys");
  return in;
}

Result<MemoryInput> parse_memory_stats_repr(std::string_view text) {
  // ('key', 123) pairs; several OrderedDicts are several devices in order.
  MemoryInput in;
  in.format = "memory_stats repr";
  DeviceMemoryStats cur;
  bool any = false;
  std::size_t pos = 0;
  std::size_t dict_count = 0;
  while (pos < text.size()) {
    auto od = text.find("OrderedDict(", pos);
    auto pair = text.find("('", pos);
    if (pair == std::string_view::npos) break;
    if (od != std::string_view::npos && od < pair) {
      if (any) {
        in.devices.push_back(cur);
        cur = DeviceMemoryStats{};
        any = false;
      }
      cur.device = std::to_string(dict_count++);
      pos = od + 12;
      continue;
    }
    auto kend = text.find('\'', pair + 2);
    if (kend == std::string_view::npos || kend - pair > 80) {
      pos = pair + 2;
      continue;
    }
    std::string_view key = text.substr(pair + 2, kend - pair - 2);
    auto close = text.find(')', kend);
    if (close == std::string_view::npos || close - kend > 40) {
      pos = kend + 1;
      continue;
    }
    std::string_view val = text.substr(kend + 1, close - kend - 1);
    auto comma = val.find(',');
    if (comma != std::string_view::npos) {
      if (auto v = parse_uint(val.substr(comma + 1))) any |= apply_stat(cur, key, *v);
    }
    pos = close + 1;
  }
  if (any) in.devices.push_back(cur);
  if (in.devices.empty()) return make_error(ErrorKind::invalid, "no memory_stats() pairs found");
  return in;
}

std::vector<OomMessage> parse_oom_messages(std::string_view text) {
  std::vector<OomMessage> out;
  constexpr std::string_view kOom = "CUDA out of memory.";
  for (std::size_t p = text.find(kOom); p != std::string_view::npos && out.size() < 10000;
       p = text.find(kOom, p + kOom.size())) {
    std::size_t eol = text.find('\n', p);
    std::string_view m = text.substr(p, std::min<std::size_t>(eol == std::string_view::npos ? text.size() - p : eol - p, 1200));
    OomMessage o;
    o.text = std::string(m.substr(0, 400));
    o.tried = after_phrase(m, "Tried to allocate");
    std::string dev = digits_after(m, "(GPU ");
    if (dev.empty()) dev = digits_after(m, "GPU ");
    o.device = dev.empty() ? "0" : dev;
    // Old format: (GPU 0; 15.90 GiB total capacity; 14.59 GiB already allocated; 9.88 MiB free; 15.19 GiB reserved in total by PyTorch)
    o.capacity = before_phrase(m, "total capacity;");
    if (!o.capacity) o.capacity = after_phrase(m, "has a total capacity of");  // PyTorch >= 2.1
    o.allocated_by_torch = before_phrase(m, "already allocated");
    if (!o.allocated_by_torch) o.allocated_by_torch = after_phrase(m, "Of the allocated memory");
    o.free = before_phrase(m, "free;");
    if (!o.free) o.free = after_phrase(m, "of which");
    o.reserved_by_torch = before_phrase(m, "reserved in total by PyTorch");
    o.reserved_unallocated = before_phrase(m, "is reserved by PyTorch but unallocated");
    if (!o.reserved_by_torch && o.allocated_by_torch && o.reserved_unallocated) {
      o.reserved_by_torch = *o.allocated_by_torch + *o.reserved_unallocated;
    }
    if (!o.reserved_unallocated && o.reserved_by_torch && o.allocated_by_torch &&
        *o.reserved_by_torch >= *o.allocated_by_torch) {
      o.reserved_unallocated = *o.reserved_by_torch - *o.allocated_by_torch;
    }
    out.push_back(std::move(o));
  }
  return out;
}

MemoryInput parse_memory_summary(std::string_view text) {
  MemoryInput in;
  in.format = "memory_summary text";
  DeviceMemoryStats* cur = nullptr;
  std::map<std::string, int> seen_sections;  // per current device
  auto finish = [&] {
    if (cur == nullptr) return;
    // A table without the reserved section was cut short by whoever pasted it.
    cur->truncated = !cur->reserved_bytes.any();
  };
  struct Row {
    std::string_view label;
    AllocStat DeviceMemoryStats::*field;
    bool bytes;
  };
  static const Row kRows[] = {{"Allocated memory", &DeviceMemoryStats::allocated_bytes, true},
                              {"Active memory", &DeviceMemoryStats::active_bytes, true},
                              {"Requested memory", &DeviceMemoryStats::requested_bytes, true},
                              {"GPU reserved memory", &DeviceMemoryStats::reserved_bytes, true},
                              {"Non-releasable memory", &DeviceMemoryStats::inactive_split_bytes, true},
                              {"Allocations", &DeviceMemoryStats::allocations, false},
                              {"GPU reserved segments", &DeviceMemoryStats::segments, false},
                              {"Non-releasable allocs", &DeviceMemoryStats::inactive_splits, false}};
  for (auto line : split_lines(text)) {
    constexpr std::string_view kHeader = "memory summary, device ID";
    if (auto h = line.find(kHeader); h != std::string_view::npos) {
      finish();
      in.devices.emplace_back();
      cur = &in.devices.back();
      std::string id;
      for (char c : line.substr(h + kHeader.size())) {
        if (std::isdigit(static_cast<unsigned char>(c)) != 0 && id.size() < 6) id += c;
        else if (!id.empty()) break;
      }
      cur->device = id.empty() ? std::to_string(in.devices.size() - 1) : id;
      continue;
    }
    if (cur == nullptr) continue;
    if (auto p = line.find("CUDA OOMs:"); p != std::string_view::npos) {
      cur->num_ooms = parse_uint(digits_after(line, "CUDA OOMs: "));
      cur->num_alloc_retries = parse_uint(digits_after(line, "cudaMalloc retries: "));
      continue;
    }
    auto cells = split(line, '|');
    if (cells.size() < 3) continue;
    std::string_view label = trim(cells[1]);
    auto at = [&](std::size_t i) { return i < cells.size() ? cells[i] : std::string_view(); };
    if (label == "Oversize allocations" || label == "Oversize GPU segments") {
      auto v = parse_cell(at(2), false);
      (label == "Oversize allocations" ? cur->oversize_allocations : cur->oversize_segments) = v;
      continue;
    }
    for (const auto& r : kRows) {
      if (label != r.label) continue;
      AllocStat& s = (*cur).*(r.field);
      s.current = parse_cell(at(2), r.bytes);
      s.peak = parse_cell(at(3), r.bytes);
      s.allocated = parse_cell(at(4), r.bytes);
      s.freed = parse_cell(at(5), r.bytes);
    }
  }
  finish();
  // Devices with a header but no numbers at all say nothing.
  in.devices.erase(std::remove_if(in.devices.begin(), in.devices.end(),
                                  [](const DeviceMemoryStats& d) {
                                    return !d.num_ooms && !d.allocated_bytes.any() && !d.reserved_bytes.any();
                                  }),
                   in.devices.end());
  in.ooms = parse_oom_messages(text);
  if (in.devices.empty() && !in.ooms.empty()) in.format = "oom messages";
  return in;
}

Result<MemoryInput> parse_memory_file(std::string_view text) {
  std::string_view t = trim(text);
  if (!t.empty() && (t.front() == '{' || t.front() == '[')) {
    auto j = parse_memory_stats_json(t);
    if (j) return j;
  }
  if (t.find("OrderedDict(") != std::string_view::npos || t.find("{'") != std::string_view::npos) {
    auto r = parse_memory_stats_repr(t);
    if (r) return r;
  }
  MemoryInput s = parse_memory_summary(text);
  if (s.devices.empty() && s.ooms.empty()) {
    return make_error(ErrorKind::invalid,
                      "no torch.cuda.memory_stats() JSON, memory_summary() table or CUDA out-of-memory message found");
  }
  return s;
}

namespace {

constexpr const char* kSummary = "l2.vram.summary";
constexpr const char* kOom = "l2.vram.oom";
constexpr const char* kRetries = "l2.vram.alloc_retries";
constexpr const char* kFrag = "l2.vram.fragmentation";
constexpr const char* kPressure = "l2.vram.pressure";

// Two decimals in GiB: "14.58 GiB" tells 14935 MB from 15552 MB where human_bytes would not.
std::string bytes_text(std::uint64_t b) {
  const double v = static_cast<double>(b);
  if (b >= (1ull << 30)) return fmt_num(v / 1073741824.0, 2) + " GiB";
  if (b >= (1ull << 20)) return fmt_num(v / 1048576.0, 1) + " MiB";
  if (b >= 1024) return fmt_num(v / 1024.0, 1) + " KiB";
  return std::to_string(b) + " B";
}
std::string hb(const std::optional<std::uint64_t>& v) { return v ? bytes_text(*v) : std::string("n/a"); }
std::string num(const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : std::string("n/a"); }
std::string pct(double r) { return fmt_num(r * 100.0, 1) + " %"; }

}  // namespace

std::vector<Finding> analyze_memory(const MemoryInput& in, const Thresholds& th, const MemoryAnalysisOptions& o) {
  std::vector<Finding> out;
  const double frag_ratio = th.get("vram.fragmentation_ratio_warn");
  const auto frag_min = static_cast<std::uint64_t>(th.get("vram.fragmentation_min_mib") * 1048576.0);
  const double peak_frac = th.get("vram.peak_fraction_warn");
  std::vector<DeviceMemoryStats> devices = in.devices;
  // OOM messages without a table still describe their device.
  for (const auto& m : in.ooms) {
    bool known = std::any_of(devices.begin(), devices.end(), [&](const auto& d) { return d.device == m.device; });
    if (!known) {
      DeviceMemoryStats d;
      d.device = m.device;
      d.truncated = true;
      devices.push_back(d);
    }
  }
  for (const auto& d : devices) {
    std::string subject = "cuda:" + d.device;
    const OomMessage* last_oom = nullptr;
    std::uint64_t oom_lines = 0;
    for (const auto& m : in.ooms) {
      if (m.device == d.device) last_oom = &m, ++oom_lines;
    }
    std::optional<std::uint64_t> capacity = last_oom != nullptr && last_oom->capacity ? last_oom->capacity : o.gpu_memory_bytes;
    std::string cap_src = last_oom != nullptr && last_oom->capacity ? o.source + " (OOM message)" : "--gpu-memory";
    const auto& A = d.allocated_bytes;
    const auto& R = d.reserved_bytes;
    auto base = [&](const char* id) {
      Finding f;
      f.id = id;
      f.subject = subject;
      f.arg("device", subject);
      return f;
    };

    // Summary: what the numbers say, and how much to trust them.
    Finding s = base(kSummary);
    s.status = Status::info;
    s.arg("alloc", hb(A.current)).arg("alloc_peak", hb(A.peak)).arg("reserved", hb(R.current))
        .arg("reserved_peak", hb(R.peak)).arg("nonrel", hb(d.inactive_split_bytes.current))
        .arg("allocs", num(d.allocations.current)).arg("segments", num(d.segments.current))
        .arg("total_alloc", hb(A.allocated)).arg("total_freed", hb(A.freed));
    s.add("allocated (current / peak)", hb(A.current) + " / " + hb(A.peak), o.source);
    s.add("reserved (current / peak)", hb(R.current) + " / " + hb(R.peak), o.source);
    if (d.inactive_split_bytes.current) s.add("non-releasable", hb(d.inactive_split_bytes.current), o.source);
    if (capacity) s.add("GPU capacity", hb(capacity), cap_src);
    if (!A.any() && !R.any()) s.variant = "oom_only";
    else if (d.truncated) s.variant = "truncated";
    else if (A.freed && *A.freed == 0) s.variant = "early";
    out.push_back(s);

    // OOMs: from the table's counter, else the messages.
    std::optional<std::uint64_t> ooms = d.num_ooms;
    if (!ooms && oom_lines > 0) ooms = oom_lines;
    if (!ooms) {
      out.push_back(skipped(kOom, "no OOM counter or message in " + o.source, subject));
    } else {
      Finding f = base(kOom);
      f.add("CUDA OOMs", std::to_string(*ooms), o.source);
      if (d.num_alloc_retries) f.add("cudaMalloc retries", std::to_string(*d.num_alloc_retries), o.source);
      if (last_oom != nullptr) f.add("OOM message", last_oom->text, o.source);
      f.arg("ooms", std::to_string(*ooms)).arg("retries", num(d.num_alloc_retries));
      f.threshold = "== 0";
      if (*ooms == 0) {
        f.status = Status::pass;
      } else {
        f.status = Status::fail;
        // Where did the memory go: used by tensors (pressure) or cached but unusable (fragmentation)?
        std::optional<std::uint64_t> alloc = A.current, res = R.current;
        if ((!alloc || !res) && last_oom != nullptr) alloc = last_oom->allocated_by_torch, res = last_oom->reserved_by_torch;
        if (alloc && res && *res > 0) {
          std::uint64_t gap = *res > *alloc ? *res - *alloc : 0;
          double ratio = static_cast<double>(gap) / static_cast<double>(*res);
          f.arg("alloc", bytes_text(*alloc)).arg("reserved", bytes_text(*res)).arg("gap", bytes_text(gap)).arg("gap_pct", pct(ratio));
          f.arg("capacity", hb(capacity));
          f.variant = ratio > frag_ratio && gap >= frag_min ? "fragmented" : "pressure";
        }
      }
      out.push_back(f);
    }

    if (!d.num_alloc_retries) {
      out.push_back(skipped(kRetries, "no cudaMalloc retry counter in " + o.source, subject));
    } else {
      Finding f = base(kRetries);
      f.add("cudaMalloc retries", std::to_string(*d.num_alloc_retries), o.source);
      f.arg("retries", std::to_string(*d.num_alloc_retries));
      f.threshold = "== 0";
      f.status = *d.num_alloc_retries == 0 ? Status::pass : Status::warn;
      out.push_back(f);
    }

    // Fragmentation: reserved by the cache but not allocated to tensors.
    std::optional<std::uint64_t> fa = A.current, fr = R.current;
    std::string fsrc = o.source;
    if ((!fa || !fr) && last_oom != nullptr && last_oom->allocated_by_torch && last_oom->reserved_by_torch) {
      fa = last_oom->allocated_by_torch, fr = last_oom->reserved_by_torch, fsrc = o.source + " (OOM message)";
    }
    if (!fa || !fr || *fr == 0) {
      out.push_back(skipped(kFrag, d.truncated ? "the summary stops before the reserved-memory section" : "reserved memory not reported", subject));
    } else {
      Finding f = base(kFrag);
      std::uint64_t gap = *fr > *fa ? *fr - *fa : 0;
      double ratio = static_cast<double>(gap) / static_cast<double>(*fr);
      f.add("allocated", bytes_text(*fa), fsrc);
      f.add("reserved", bytes_text(*fr), fsrc);
      if (d.inactive_split_bytes.current) f.add("non-releasable (inactive split blocks)", hb(d.inactive_split_bytes.current), fsrc);
      f.arg("gap", bytes_text(gap)).arg("ratio", pct(ratio)).arg("alloc", bytes_text(*fa)).arg("reserved", bytes_text(*fr));
      f.threshold = "(reserved - allocated) / reserved <= " + pct(frag_ratio) + " or < " + bytes_text(frag_min);
      f.status = ratio > frag_ratio && gap >= frag_min ? Status::warn : Status::pass;
      out.push_back(f);
    }

    // Pressure: the peak the cache reached against the card's capacity.
    std::optional<std::uint64_t> peak = R.peak ? R.peak : R.current;
    if (!peak && last_oom != nullptr) peak = last_oom->reserved_by_torch;
    if (!capacity) {
      out.push_back(skipped(kPressure, "GPU capacity unknown (no OOM message): pass --gpu-memory SIZE", subject));
    } else if (!peak) {
      out.push_back(skipped(kPressure, "peak reserved memory not reported", subject));
    } else {
      Finding f = base(kPressure);
      double frac = static_cast<double>(*peak) / static_cast<double>(*capacity);
      f.add("peak reserved", bytes_text(*peak), o.source);
      f.add("GPU capacity", bytes_text(*capacity), cap_src);
      f.arg("peak", bytes_text(*peak)).arg("capacity", bytes_text(*capacity)).arg("frac", pct(frac));
      f.threshold = "peak reserved < " + pct(peak_frac) + " of capacity";
      f.status = frac >= peak_frac ? Status::warn : Status::pass;
      out.push_back(f);
    }
  }
  return out;
}

namespace {

const bool kThresholds = register_thresholds({
    {"vram.fragmentation_ratio_warn", 0.2, "ratio",
     {"caching allocator: (reserved - allocated) / reserved above this is fragmentation",
      "缓存分配器：(reserved - allocated) / reserved 超过该值视为显存碎片"}},
    {"vram.fragmentation_min_mib", 512, "MiB",
     {"caching allocator: reserved-but-unallocated memory below this is never called fragmentation",
      "缓存分配器：已保留但未分配的显存低于该值时不视为碎片"}},
    {"vram.peak_fraction_warn", 0.95, "ratio",
     {"peak reserved GPU memory at or above this fraction of the capacity is memory pressure (the seed: < 95 %)",
      "峰值保留显存达到容量的该比例即为显存压力（参考：< 95%）"}},
});

const Text kOomFix{
    "Make the step fit: smaller per-GPU batch (keep the global batch with gradient accumulation), gradient "
    "checkpointing (torch.utils.checkpoint: about 20 % more time for about half the activation memory), mixed "
    "precision. If reserved is far above allocated, set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch >= "
    "2.1) or max_split_size_mb:128. A loss that turns NaN after some steps can be this memory pressure in disguise: "
    "rerun with CUDA_LAUNCH_BLOCKING=1 to see the real error.",
    "让每一步装得下：减小单卡 batch（用梯度累积保持全局 batch）、启用梯度检查点（torch.utils.checkpoint：约多 20% "
    "时间，省约一半激活显存）、混合精度。若 reserved 远大于 allocated，设置 "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True（PyTorch >= 2.1）或 max_split_size_mb:128。训练若干步后 loss "
    "变成 NaN 可能正是显存压力的伪装：用 CUDA_LAUNCH_BLOCKING=1 重跑以看到真实错误。"};

const bool kRows = register_findings({
    {kSummary, Layer::L2, Pillar::memory, Section::gpu,
     {"Caching allocator snapshot", "缓存分配器快照"},
     {{"info",
       {"{device}: allocated {alloc} (peak {alloc_peak}), reserved {reserved} (peak {reserved_peak}), non-releasable "
        "{nonrel}; {allocs} allocations in {segments} segments.",
        "{device}：已分配 {alloc}（峰值 {alloc_peak}），已保留 {reserved}（峰值 {reserved_peak}），不可释放 {nonrel}；"
        "{segments} 个段中共 {allocs} 次分配。"}},
      {"early",
       {"{device}: allocated {alloc}, reserved {reserved}, nothing freed yet (Tot Freed 0): the snapshot was taken "
        "before any step released memory (right after loading), so training peaks will be higher.",
        "{device}：已分配 {alloc}，已保留 {reserved}，尚未释放任何显存（Tot Freed 为 0）：快照取自第一次释放之前（刚加载完），"
        "训练时的峰值会更高。"}},
      {"truncated",
       {"{device}: allocated {alloc} (peak {alloc_peak}); the table stops before the reserved-memory rows, so "
        "fragmentation cannot be judged from it.",
        "{device}：已分配 {alloc}（峰值 {alloc_peak}）；表格在保留显存各行之前被截断，无法据此判断碎片。"}},
      {"oom_only",
       {"{device}: only out-of-memory messages, no allocator table.", "{device}：只有显存溢出报错，没有分配器统计表。"}}},
     {},
     "python -c \"import torch; print(torch.cuda.memory_summary())\"",
     {},
     {}},
    {kOom, Layer::L2, Pillar::memory, Section::gpu,
     {"CUDA out-of-memory errors", "CUDA 显存溢出（OOM）"},
     {{"pass", {"{device}: no CUDA out-of-memory error recorded.", "{device}：没有记录到 CUDA 显存溢出。"}},
      {"fail", {"{device}: {ooms} CUDA out-of-memory errors ({retries} cudaMalloc retries).",
                "{device}：{ooms} 次 CUDA 显存溢出（cudaMalloc 重试 {retries} 次）。"}},
      {"pressure",
       {"{device}: {ooms} CUDA out-of-memory errors and {retries} cudaMalloc retries. Tensors really use the memory: "
        "{alloc} allocated of {reserved} reserved (only {gap}, {gap_pct}, cached but unused; capacity {capacity}). "
        "This is memory pressure, not fragmentation: the step does not fit.",
        "{device}：{ooms} 次 CUDA 显存溢出，cudaMalloc 重试 {retries} 次。显存确实被张量占用：已保留 {reserved} 中已分配 "
        "{alloc}（仅 {gap}，即 {gap_pct} 被缓存而未使用；容量 {capacity}）。这是显存压力而非碎片：这一步装不下。"}},
      {"fragmented",
       {"{device}: {ooms} CUDA out-of-memory errors and {retries} cudaMalloc retries while {gap} ({gap_pct}) of the "
        "{reserved} reserved is cached but not allocated: fragmentation makes large blocks unavailable.",
        "{device}：{ooms} 次 CUDA 显存溢出，cudaMalloc 重试 {retries} 次，而已保留的 {reserved} 中有 {gap}（{gap_pct}）"
        "被缓存却未分配：碎片导致无法得到大块显存。"}}},
     kOomFix,
     "python -c \"import torch; print(torch.cuda.memory_summary())\"",
     {"training runs without skipped steps or crashes", "训练不再跳步或崩溃"},
     {}},
    {kRetries, Layer::L2, Pillar::memory, Section::gpu,
     {"cudaMalloc retries", "cudaMalloc 重试"},
     {{"pass", {"{device}: no cudaMalloc retry: the cache always had room.", "{device}：没有 cudaMalloc 重试：缓存始终够用。"}},
      {"warn",
       {"{device}: {retries} cudaMalloc retries: the allocator had to free its whole cache and retry, which "
        "synchronises the device each time; the job runs at the edge of memory.",
        "{device}：cudaMalloc 重试 {retries} 次：分配器不得不释放整个缓存后重试，每次都会同步设备；任务运行在显存边缘。"}}},
     kOomFix,
     "python -c \"import torch; print(torch.cuda.memory_stats()['num_alloc_retries'])\"",
     {"no allocator stalls", "消除分配器停顿"},
     {}},
    {kFrag, Layer::L2, Pillar::memory, Section::gpu,
     {"Caching-allocator fragmentation", "缓存分配器碎片"},
     {{"pass", {"{device}: {gap} ({ratio}) of {reserved} reserved is cached but unallocated: no fragmentation problem.",
                "{device}：已保留 {reserved} 中有 {gap}（{ratio}）已缓存未分配：没有碎片问题。"}},
      {"warn",
       {"{device}: reserved {reserved} is far above allocated {alloc}: {gap} ({ratio}) is cached but unusable for "
        "large blocks (fragmentation).",
        "{device}：已保留 {reserved} 远大于已分配 {alloc}：{gap}（{ratio}）被缓存却无法用于大块分配（碎片）。"}}},
     {"Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (PyTorch >= 2.1) so segments grow instead of splitting, "
      "or max_split_size_mb:128 on older versions; avoid many differently sized temporary tensors.",
      "设置 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True（PyTorch >= 2.1），让段扩展而不是切分；旧版本用 "
      "max_split_size_mb:128；避免大量尺寸各异的临时张量。"},
     "python -c \"import torch; s=torch.cuda.memory_stats(); print(s['reserved_bytes.all.current']-s['allocated_bytes.all.current'])\"",
     {"the cached memory becomes usable again", "缓存的显存重新可用"},
     {}},
    {kPressure, Layer::L2, Pillar::memory, Section::gpu,
     {"GPU memory pressure", "显存压力"},
     {{"pass", {"{device}: peak reserved {peak} is {frac} of the {capacity} capacity.",
                "{device}：峰值保留显存 {peak}，占容量 {capacity} 的 {frac}。"}},
      {"warn",
       {"{device}: peak reserved {peak} is {frac} of the {capacity} capacity: no headroom for a longer sequence or a "
        "fragmentation spike.",
        "{device}：峰值保留显存 {peak}，占容量 {capacity} 的 {frac}：没有余量应对更长序列或碎片波动。"}}},
     kOomFix,
     "nvidia-smi --query-gpu=memory.used,memory.total --format=csv",
     {"headroom against OOM", "为避免 OOM 留出余量"},
     {}},
});

}  // namespace
}  // namespace plumb
