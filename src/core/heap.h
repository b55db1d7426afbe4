// The process heap, grown ahead of a short command and faulted in at once.
#pragma once

#include <cstddef>

namespace plumb {

// Grows glibc's main heap by `bytes`, keeps that much free at its top from then on (M_TOP_PAD,
// which also fixes the mmap threshold: set to 4 MiB) and populates those pages with one
// madvise(MADV_POPULATE_WRITE) instead of a page fault per page. Returns the bytes populated: 0
// where the heap is not glibc's brk heap (a sanitizer's allocator), the heap did not grow, or the
// kernel lacks MADV_POPULATE_WRITE (before Linux 5.14). Call before starting threads: mallopt(3)
// changes apply process-wide.
std::size_t grow_heap_populated(std::size_t bytes);

// Whether this kernel's madvise knows MADV_POPULATE_WRITE (EINVAL before Linux 5.14).
bool kernel_populates_pages();

}  // namespace plumb
