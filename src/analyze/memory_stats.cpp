// Parsers for the caching allocator's statistics and the analysis of `plumb memory`.
// Formats follow torch/cuda/memory.py (memory_stats keys, memory_summary's _format_size: binary
// units labelled B/KB/MB/GB before PyTorch 2.1 and B/KiB/MiB/GiB after) and the OOM messages of
// c10/cuda/CUDACachingAllocator.cpp. Real samples: tests/fixtures/framework/memory/. The
// judgement of these numbers is in rules/memory_vram.cpp.
#include "analyze/memory_stats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "core/host_root.h"
#include "core/json.h"
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
  auto parsed = parse_outside_json(text);
  if (!parsed) return parsed.error();
  json& doc = *parsed;
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
    // JSON too deep to read is said as such, not as "no memory_stats() JSON found".
    if (json_nests_deeper_than(t, kMaxOutsideJsonDepth)) return j.error();
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

std::string memory_bytes_text(std::uint64_t b) {
  const double v = static_cast<double>(b);
  if (b >= (1ull << 30)) return fmt_num(v / 1073741824.0, 2) + " GiB";
  if (b >= (1ull << 20)) return fmt_num(v / 1048576.0, 1) + " MiB";
  if (b >= 1024) return fmt_num(v / 1024.0, 1) + " KiB";
  return std::to_string(b) + " B";
}

std::vector<MemoryDeviceView> memory_devices(const MemoryInput& in, std::optional<std::uint64_t> gpu_memory) {
  std::vector<MemoryDeviceView> out;
  for (const auto& d : in.devices) out.push_back({d, std::nullopt, 0, std::nullopt, {}});
  // OOM messages without a table still describe their device.
  for (const auto& m : in.ooms) {
    bool known = std::any_of(out.begin(), out.end(), [&](const auto& v) { return v.stats.device == m.device; });
    if (!known) {
      DeviceMemoryStats d;
      d.device = m.device;
      d.truncated = true;
      out.push_back({d, std::nullopt, 0, std::nullopt, {}});
    }
  }
  for (auto& v : out) {
    for (const auto& m : in.ooms) {
      if (m.device != v.stats.device) continue;
      v.last_oom = m;
      ++v.oom_messages;
    }
    if (v.last_oom && v.last_oom->capacity) {
      v.capacity = v.last_oom->capacity;
      v.capacity_source = in.file + " (OOM message)";
    } else if (gpu_memory) {
      v.capacity = gpu_memory;
      v.capacity_source = "--gpu-memory";
    }
  }
  return out;
}

}  // namespace plumb
