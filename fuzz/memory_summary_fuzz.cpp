// Fuzzes the torch.cuda.memory_summary() table and CUDA OOM message parsers, and the l2.vram rules.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/memory_stats.h"
#include "core/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  plumb::Facts facts;
  facts.allocator.collected = true;
  facts.allocator.gpu_memory_bytes = 1ull << 34;
  facts.allocator.files.push_back(plumb::parse_memory_summary(std::string_view(reinterpret_cast<const char*>(data), size)));
  plumb::Selection sel;
  sel.only = {"l2.vram"};
  (void)plumb::judge(facts, plumb::Thresholds(), sel);
  return 0;
}
