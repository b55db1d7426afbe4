// Reads the error counters of collect/error_counters.h.
#include "collect/error_counters.h"

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <string_view>
#include <type_traits>

#include "core/text.h"

namespace plumb {

namespace {

// The InfiniBand port counters a link problem shows in (sysfs-class-infiniband; `perfquery`).
constexpr std::array<std::string_view, 7> kIbCounters{
    "symbol_error",       "link_downed",           "link_error_recovery",          "port_rcv_errors",
    "port_xmit_discards", "local_link_integrity_errors", "excessive_buffer_overrun_errors"};

std::int64_t clamp_i64(std::uint64_t v) {
  return v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ? std::numeric_limits<std::int64_t>::max()
                                                                                   : static_cast<std::int64_t>(v);
}

void read_ib(const HostRoot& root, std::vector<CounterSample>& out) {
  const std::string base = "/sys/class/infiniband";
  auto devs = root.list(base);
  if (!devs) return;
  for (const auto& d : *devs) {
    auto ports = root.list(concat(base, "/", d, "/ports"));
    if (!ports) continue;
    for (const auto& p : *ports) {
      if (!parse_int(p)) continue;
      for (std::string_view c : kIbCounters) {
        std::string path = concat(base, "/", d, "/ports/", p, "/counters/", c);
        auto v = root.read_value(path);
        if (!v) continue;
        auto n = parse_uint(*v);
        if (!n) continue;
        out.push_back({"", concat("ib.", c), concat(d, " port ", p), clamp_i64(*n), path});
      }
    }
  }
}

}  // namespace

std::optional<std::uint64_t> aer_total(std::string_view text, std::string_view key) {
  for (const auto& line : split_lines(text)) {
    auto t = trim(line);
    if (t.size() > key.size() && t.substr(0, key.size()) == key && (t[key.size()] == ' ' || t[key.size()] == '\t')) {
      return parse_uint(trim(t.substr(key.size())));
    }
  }
  return std::nullopt;
}

namespace {

void read_aer(const HostRoot& root, std::vector<CounterSample>& out) {
  const std::string base = "/sys/bus/pci/devices";
  auto fns = root.list(base);
  if (!fns) return;
  struct File {
    std::string_view name, key, counter;
  };
  constexpr std::array<File, 3> files{{{"aer_dev_correctable", "TOTAL_ERR_COR", "pcie.aer_correctable"},
                                       {"aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", "pcie.aer_nonfatal"},
                                       {"aer_dev_fatal", "TOTAL_ERR_FATAL", "pcie.aer_fatal"}}};
  for (const auto& fn : *fns) {
    for (const auto& f : files) {
      std::string path = concat(base, "/", fn, "/", f.name);
      auto text = root.read(path, 64u << 10);
      if (!text) continue;
      auto n = aer_total(*text, f.key);
      if (!n) continue;
      out.push_back({"", std::string(f.counter), fn, clamp_i64(*n), path});
    }
  }
}

template <class T>
void add_fact(std::vector<CounterSample>& out, const Fact<T>& fact, std::string_view counter, const std::string& bus) {
  if (!fact.has()) return;
  if constexpr (std::is_signed_v<T>) {
    if (*fact < 0) return;
  }
  out.push_back({"", std::string(counter), bus, clamp_i64(static_cast<std::uint64_t>(*fact)), fact.source.empty() ? "NVML" : fact.source});
}

}  // namespace

std::vector<CounterSample> read_error_counters(const HostRoot& root) {
  std::vector<CounterSample> out;
  read_ib(root, out);
  read_aer(root, out);
  return out;
}

std::vector<CounterSample> gpu_error_counters(const GpuFacts& gpu) {
  std::vector<CounterSample> out;
  for (const auto& d : gpu.devices) {
    add_fact(out, d.ecc.volatile_corrected, "gpu.ecc_corrected", d.bus_id);
    add_fact(out, d.ecc.volatile_uncorrected, "gpu.ecc_uncorrected", d.bus_id);
    add_fact(out, d.mem_health.retired_single_bit, "gpu.retired_single_bit", d.bus_id);
    add_fact(out, d.mem_health.retired_double_bit, "gpu.retired_double_bit", d.bus_id);
    add_fact(out, d.mem_health.remapped_correctable, "gpu.remapped_correctable", d.bus_id);
    add_fact(out, d.mem_health.remapped_uncorrectable, "gpu.remapped_uncorrectable", d.bus_id);
  }
  return out;
}

bool is_hard_counter(const std::string& counter) {
  static const std::set<std::string, std::less<>> hard{"ib.link_downed",      "pcie.aer_nonfatal",        "pcie.aer_fatal",
                                                       "gpu.ecc_uncorrected", "gpu.retired_double_bit",   "gpu.remapped_uncorrectable",
                                                       "ib.local_link_integrity_errors"};
  return hard.count(counter) != 0;
}

}  // namespace plumb
