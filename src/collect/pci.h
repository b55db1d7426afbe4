// PCI functions from sysfs: the device tree that GPU/NIC topology levels are derived from.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts/comm.h"
#include "core/host_root.h"

namespace plumb {

// "0000:3b:00.0" (domain:bus:device.function, hex).
bool is_pci_bus_id(std::string_view s);

// Where a function sits: its root bus and the chain of bus ids from the root port down to itself.
struct PciPlace {
  std::string host_bridge;          // "pci0000:3a"
  std::vector<std::string> chain;   // root port ... device (the device itself last)
};
// Parses the target of /sys/bus/pci/devices/<id> ("../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0").
std::optional<PciPlace> parse_pci_link(std::string_view target);

// sysfs numa_node: "-1" (no affinity) and garbage give nullopt.
std::optional<int> parse_numa_node(std::string_view text);
// Leading lane count of current/max_link_width ("16", "x16" tolerated).
std::optional<int> parse_link_width(std::string_view text);

bool is_gpu_class(std::string_view class_code);       // 0x0300xx VGA or 0x0302xx 3D controller
bool is_network_class(std::string_view class_code);   // 0x02xxxx
bool is_nvswitch(const PciFunction& f);               // NVIDIA 0x0680xx

// Reads every function, keeping GPUs, network controllers, NVSwitches and the bridges above them.
Result<std::vector<PciFunction>> read_pci_functions(const HostRoot& root);

}  // namespace plumb
