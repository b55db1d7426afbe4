// Fuzzes the log reader and the signature scan of `plumb diagnose` (block splitting, gzip
// detection, ANSI stripping, prefix removal, value extraction on matched lines, the findings).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/log_scan.h"
#include "rules/diagnose.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto scan = plumb::scan_log_text(text, "fuzz.log");
  if (scan) {
    auto l1 = plumb::log_findings(*scan);
    (void)plumb::judge_causes(l1, {});
  }
  (void)plumb::clean_line(text);
  (void)plumb::strip_ansi(text);
  return 0;
}
