// Error counters that only mean something over time, read for `plumb agent`: InfiniBand/RoCE port
// counters (Linux Documentation/ABI/stable/sysfs-class-infiniband: symbol_error, link_downed,
// link_error_recovery, port_rcv_errors, ...) and the PCIe AER totals of every PCI function
// (Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats: TOTAL_ERR_COR, TOTAL_ERR_FATAL,
// TOTAL_ERR_NONFATAL). One reading says little (a port that came up with 3 symbol errors is fine);
// the agent stores the readings and rules/history.cpp judges how fast they rise.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/facts/gpu.h"
#include "core/facts/node_events.h"
#include "core/host_root.h"

namespace plumb {

// Every counter readable under the root (time left empty: the caller stamps it). A missing
// /sys/class/infiniband or a function without AER statistics gives no reading, not an error.
std::vector<CounterSample> read_error_counters(const HostRoot& root);

// The GPUs' cumulative memory error counters as NVML reported them in this check (volatile ECC
// counts, retired pages, remapped rows); a value NVML could not read gives no sample.
std::vector<CounterSample> gpu_error_counters(const GpuFacts& gpu);

// The value of `key` ("TOTAL_ERR_COR") in the text of an aer_dev_* file ("RxErr 0\nTOTAL_ERR_COR 5").
std::optional<std::uint64_t> aer_total(std::string_view text, std::string_view key);

// True for a counter whose every increase is a fault (a link that went down, an uncorrectable or
// fatal error); false for the correctable ones, judged by how many in a window.
bool is_hard_counter(const std::string& counter);

}  // namespace plumb
