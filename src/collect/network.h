// RDMA ports (/sys/class/infiniband), network interfaces (/sys/class/net) and what can be read
// about a firewall without root (loaded netfilter modules, configuration files).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/topology.h"
#include "core/facts/comm.h"
#include "core/host_root.h"

namespace plumb {

// "200 Gb/sec (4X HDR)", "10 Gb/sec (4X)" -> 200, 10.
std::optional<double> parse_ib_rate(std::string_view text);
bool ib_port_active(const IbPort& p);  // state 4: ACTIVE and phys_state 5: LinkUp (or unknown phys)

// Names of the loaded netfilter modules in /proc/modules text.
std::vector<std::string> parse_netfilter_modules(std::string_view proc_modules);
// Default policy of the input chain: nftables ("policy drop;" inside a chain hooked to input),
// iptables-save (":INPUT DROP [0:0]"), ufw (/etc/default/ufw DEFAULT_INPUT_POLICY="DROP").
std::string parse_nft_input_policy(std::string_view text);
std::string parse_iptables_input_policy(std::string_view text);
std::string parse_ufw_input_policy(std::string_view text);

Result<std::vector<IbPort>> read_ib_ports(const HostRoot& root);
Result<std::vector<NetIface>> read_interfaces(const HostRoot& root);
FirewallFacts read_firewall(const HostRoot& root);

// The NICs of the topology: every RDMA device, then physical interfaces not behind one.
std::vector<NicRef> nic_refs(const std::vector<IbPort>& ports, const std::vector<NetIface>& ifaces);

}  // namespace plumb
