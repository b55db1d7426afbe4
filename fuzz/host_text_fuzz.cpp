// Fuzzes the small readers of /proc, /sys, configuration files and command outputs that have no
// target of their own: a PCI device's sysfs link, NUMA node and link width, an InfiniBand port's
// rate, /proc/modules, the firewall's input policy as nft, iptables-save and ufw print it,
// /etc/nccl.conf, a cgroup's cpu.stat, /proc/cpuinfo as NCCL's topology reads it, and the
// load generator's --arrival word. The input is cut at its first NUL byte: the first piece is the
// one-line value, the whole the multi-line text.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "bench/ort.h"
#include "bench/serve_schedule.h"
#include "collect/nccl_env.h"
#include "collect/nccl_topo_xml.h"
#include "collect/network.h"
#include "collect/pci.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string_view value = text.substr(0, text.find('\0'));
  if (auto p = plumb::parse_pci_link(value)) {
    if (p->host_bridge.empty() || p->chain.empty()) throw std::logic_error("a PCI place without bridge or chain");
  }
  if (auto n = plumb::parse_numa_node(value); n && (*n < 0 || *n > 4096)) throw std::logic_error("numa node range");
  if (auto w = plumb::parse_link_width(value); w && (*w < 0 || *w > 64)) throw std::logic_error("link width range");
  (void)plumb::parse_ib_rate(value);
  plumb::Arrival arrival{};
  (void)plumb::parse_arrival(std::string(value), arrival);
  (void)plumb::parse_netfilter_modules(text);
  // nft's policy is one of its two words or none; iptables and ufw keep the word the file has.
  const std::string nft = plumb::parse_nft_input_policy(text);
  if (!nft.empty() && nft != "accept" && nft != "drop") throw std::logic_error("nft policy " + nft);
  (void)plumb::parse_iptables_input_policy(text);
  (void)plumb::parse_ufw_input_policy(text);
  (void)plumb::parse_nccl_conf(text);
  (void)plumb::parse_cpu_throttle(text);
  (void)plumb::parse_cpuinfo_for_nccl(text);
  return 0;
}
