// PCIe Access Control Services on the bridges above GPUs and NICs, read from each bridge's PCI
// configuration space in sysfs (/sys/bus/pci/devices/<id>/config).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/facts/sysconfig.h"

namespace plumb {

// Extended capability id and register bits (PCI Express Base Specification, "ACS Extended
// Capability"; the same values as Linux include/uapi/linux/pci_regs.h PCI_EXT_CAP_ID_ACS, PCI_ACS_*).
inline constexpr std::uint16_t kExtCapAcs = 0x000d;
inline constexpr std::uint16_t kAcsSourceValidation = 0x0001;
inline constexpr std::uint16_t kAcsTranslationBlocking = 0x0002;
inline constexpr std::uint16_t kAcsP2pRequestRedirect = 0x0004;
inline constexpr std::uint16_t kAcsP2pCompletionRedirect = 0x0008;
inline constexpr std::uint16_t kAcsUpstreamForwarding = 0x0010;
inline constexpr std::uint16_t kAcsP2pEgressControl = 0x0020;
inline constexpr std::uint16_t kAcsDirectTranslatedP2p = 0x0040;

// What plumb needs from one function's configuration space.
struct PciConfigInfo {
  int size = 0;                        // bytes given
  std::string port_type;               // from the PCI Express capability; "" when absent or unreadable
  std::optional<bool> has_acs;         // nullopt: fewer than 256 bytes, the extended space is not there
  int acs_offset = 0;
  std::optional<std::uint16_t> acs_cap;
  std::optional<std::uint16_t> acs_ctrl;
};

// Walks the capability list (from 0x34) and the extended capability list (from 0x100) of a raw
// config space dump; loops, out-of-range pointers and truncation end the walk, never the program.
PciConfigInfo parse_pci_config(std::string_view bytes);

// "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-": lspci's words.
std::string acs_flags_text(std::uint16_t bits);

// The PCI Express capability's Device/Port Type field (bits 7:4 of the capabilities register).
std::string pcie_port_type_name(unsigned type);

}  // namespace plumb
