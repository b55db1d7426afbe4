// NVML's device list for every reader of NVML; see vendor/nvml_devices.h.
#include "vendor/nvml_devices.h"

#include <cstdio>
#include <cstring>

#include "core/host_root.h"  // trim
#include "core/text.h"

namespace plumb {

std::optional<std::string> normalise_bus_id(std::string_view s) {
  s = trim(s);
  auto parts = split(s, ':');
  if (parts.size() != 3) return std::nullopt;
  auto dot = parts[2].find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto dom = parse_hex(parts[0]);
  auto bus = parse_hex(parts[1]);
  auto dev = parse_hex(parts[2].substr(0, dot));
  auto fn = parse_hex(parts[2].substr(dot + 1));
  if (!dom || !bus || !dev || !fn || parts[0].empty() || parts[0].size() > 8 || parts[1].empty() ||
      parts[1].size() > 2 || *dev > 0x1f || *fn > 7) {
    return std::nullopt;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04llx:%02llx:%02llx.%llx", static_cast<unsigned long long>(*dom),
                static_cast<unsigned long long>(*bus), static_cast<unsigned long long>(*dev),
                static_cast<unsigned long long>(*fn));
  return std::string(buf);
}

Result<NvmlDeviceList> nvml_devices(const NvmlLibrary& lib, const NvmlCallHook& on_call) {
  const NvmlApi& a = lib.api();
  auto before = [&](const char* name) {
    if (on_call) on_call(name);
  };
  if (a.init == nullptr || a.device_count == nullptr || a.handle_by_index == nullptr) {
    return make_error(ErrorKind::unsupported, lib.path() + " lacks nvmlInit, nvmlDeviceGetCount or nvmlDeviceGetHandleByIndex");
  }
  before("nvmlInit");
  nvml::Return rc = a.init();
  if (rc != nvml::kSuccess) return make_error(ErrorKind::unsupported, "nvmlInit failed: " + lib.describe(rc));
  NvmlDeviceList out;
  before("nvmlDeviceGetCount");
  rc = a.device_count(&out.count);
  if (rc != nvml::kSuccess) {
    out.count = 0;
    out.count_error = "nvmlDeviceGetCount failed: " + lib.describe(rc);
    return out;
  }
  for (unsigned i = 0; i < out.count && i < kMaxNvmlDevices; ++i) {
    NvmlDevice d;
    d.index = i;
    before("nvmlDeviceGetHandleByIndex");
    rc = a.handle_by_index(i, &d.handle);
    if (rc != nvml::kSuccess || d.handle == nullptr) {
      d.handle = nullptr;
      d.error = "nvmlDeviceGetHandleByIndex(" + std::to_string(i) + "): " +
                lib.describe(rc == nvml::kSuccess ? nvml::kErrorUnknown : rc);
    } else if (a.pci_info != nullptr) {
      nvml::PciInfo pci{};
      before("nvmlDeviceGetPciInfo");
      rc = a.pci_info(d.handle, &pci);
      if (rc == nvml::kSuccess) {
        std::string raw(pci.busId, strnlen(pci.busId, sizeof pci.busId));
        d.bus_id = normalise_bus_id(raw).value_or(raw);
      } else {
        d.error = "nvmlDeviceGetPciInfo: " + lib.describe(rc);
      }
    }
    out.devices.push_back(std::move(d));
  }
  return out;
}

}  // namespace plumb
