// Fuzzes the torch.cuda.memory_stats() JSON and printed-OrderedDict parsers, `plumb memory`'s
// reader that tells the forms apart, and the l2.vram rules.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/memory_stats.h"
#include "core/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  plumb::Facts facts;
  facts.allocator.collected = true;
  if (auto j = plumb::parse_memory_stats_json(text)) facts.allocator.files.push_back(*j);
  if (auto r = plumb::parse_memory_stats_repr(text)) facts.allocator.files.push_back(*r);
  if (auto m = plumb::parse_memory_file(text)) facts.allocator.files.push_back(*m);
  plumb::Selection sel;
  sel.only = {"l2.vram"};
  (void)plumb::judge(facts, plumb::Thresholds(), sel);
  return 0;
}
