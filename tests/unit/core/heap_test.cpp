// grow_heap_populated: the heap a short command will fill is faulted in by one call.
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

#include "core/heap.h"

namespace plumb {
namespace {

[[maybe_unused]] long minor_faults() {
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

// Allocates `total` bytes in 2 KiB blocks, writes them, keeps them; returns the page faults taken
// and adds a byte of each block to `sum` (so that the writes are kept).
[[maybe_unused]] long fill_blocks(std::size_t total, std::vector<void*>& keep, unsigned& sum) {
  constexpr std::size_t kBlock = 2048;
  keep.reserve(keep.size() + total / kBlock);
  const long before = minor_faults();
  for (std::size_t done = 0; done < total; done += kBlock) {
    auto* p = static_cast<unsigned char*>(std::malloc(kBlock));  // NOLINT(cppcoreguidelines-no-malloc)
    if (p == nullptr) break;
    std::memset(p, static_cast<int>(done & 0xff), kBlock);
    sum += p[kBlock - 1];
    keep.push_back(p);
  }
  return minor_faults() - before;
}

}  // namespace

TEST(Heap, TheGrownHeapIsFaultedInByOneCall) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's allocator is not glibc's brk heap: nothing to populate (the release build runs this test)";
#else
  if (!kernel_populates_pages()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14): nothing is populated";
  std::vector<void*> keep;
  unsigned sum = 0;
  // Without it, 400 KiB of fresh heap is a page fault per page (100 pages).
  const long plain = fill_blocks(400u << 10, keep, sum);
  const std::size_t populated = grow_heap_populated(std::size_t{1} << 20);
  const long after = fill_blocks(400u << 10, keep, sum);
  for (void* p : keep) std::free(p);  // NOLINT(cppcoreguidelines-no-malloc)
  EXPECT_GE(populated, std::size_t{900} << 10);
  EXPECT_GE(plain, 50) << "the control: fresh heap pages fault one by one";
  EXPECT_LE(after, plain / 4) << "populated: " << populated << " bytes, sum " << sum;
#endif
}

TEST(Heap, NothingToGrowIsRefused) {
  EXPECT_EQ(grow_heap_populated(0), 0u);
  EXPECT_EQ(grow_heap_populated(std::size_t{1} << 40), 0u);
}

}  // namespace plumb
