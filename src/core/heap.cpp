#include "core/heap.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace plumb {

namespace {
#if defined(MADV_POPULATE_WRITE)
constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#else
constexpr int kPopulateWrite = 23;  // linux/mman.h, Linux 5.14
#endif
}  // namespace

bool kernel_populates_pages() {
  void* p = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  const bool ok = ::madvise(p, 4096, kPopulateWrite) == 0;
  ::munmap(p, 4096);
  return ok;
}

std::size_t grow_heap_populated(std::size_t bytes) {
#if defined(M_TOP_PAD) && defined(M_MMAP_THRESHOLD)
  constexpr int kMmapThreshold = 4 << 20;
  if (bytes == 0 || bytes > (std::size_t{64} << 20)) return 0;
  // M_TOP_PAD also sets what a trim leaves at the top (mallopt(3)): the grown part stays.
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);  // NOLINT(concurrency-mt-unsafe)
  mallopt(M_TOP_PAD, static_cast<int>(bytes));  // NOLINT(concurrency-mt-unsafe)
  char* const before = static_cast<char*>(::sbrk(0));
  // A block of the padding's size, written (so that the compiler keeps it) and freed: the heap
  // grows by about twice the padding and the free trims it back to the padding.
  void* grow = std::malloc(bytes);  // NOLINT(cppcoreguidelines-no-malloc)
  if (grow == nullptr) return 0;
  static_cast<volatile char*>(grow)[0] = 1;
  std::free(grow);  // NOLINT(cppcoreguidelines-no-malloc)
  char* const after = static_cast<char*>(::sbrk(0));
  if (before == reinterpret_cast<char*>(-1) || after <= before) return 0;  // NOLINT(performance-no-int-to-ptr)
  if (static_cast<std::size_t>(after - before) > 4 * bytes) return 0;  // not this block's growth
  // The whole free top of the heap, which also holds the part below the old break that earlier
  // growth left untouched: mallinfo2's keepcost is that top chunk's size (mallinfo(3)).
  const std::size_t top = mallinfo2().keepcost;
  char* const low = top < static_cast<std::size_t>(after - before) ? before : after - top;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  // The first whole page at or above it.
  const auto skip = static_cast<std::size_t>((page - reinterpret_cast<std::uintptr_t>(low) % page) % page);
  if (static_cast<std::size_t>(after - low) <= skip) return 0;
  char* const from = low + skip;
  const auto n = static_cast<std::size_t>(after - from);
  return ::madvise(from, n, kPopulateWrite) == 0 ? n : 0;
#else
  (void)bytes;
  return 0;
#endif
}

}  // namespace plumb
