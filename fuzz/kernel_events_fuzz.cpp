// Fuzzes what the agent reads from the node: the kernel-log event classifier, the /dev/kmsg
// record splitter and the PCIe AER statistics files.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/error_counters.h"
#include "collect/kernel_events.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)plumb::parse_kernel_event(text);
  std::uint64_t last = 0;
  (void)plumb::split_dev_kmsg(text, 3, last);
  (void)plumb::aer_total(text, "TOTAL_ERR_COR");
  return 0;
}
