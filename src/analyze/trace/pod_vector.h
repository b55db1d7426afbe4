// A growable array of trivially copyable records for the trace reader's hot path.
// Large arrays live in their own anonymous mapping with address space reserved well ahead: growing
// rarely moves it, and then moves page tables (mremap), never the bytes; the kernel is asked for
// transparent huge pages, and the pages are made present 256 KiB at a time (one system call
// instead of 64 page faults). With std::vector, a 1 GB trace spent
// about a quarter of its time in reallocation copies and page faults of the record arrays (perf,
// docs/performance-trace.md). Small arrays (most traces) stay on the heap. Under AddressSanitizer
// every array stays on the heap so the sanitizer checks its bounds.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#if defined(__SANITIZE_ADDRESS__)
#define PLUMB_POD_VECTOR_HEAP_ONLY 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define PLUMB_POD_VECTOR_HEAP_ONLY 1
#endif
#endif

namespace plumb::trace {

// Whether new PodVector mappings ask for transparent huge pages. `plumb trace` turns it off on a
// guest whose kernel reports free memory to its host, where a huge page can cost sixty times a
// small one to back (docs/performance-trace.md).
inline std::atomic<bool> pod_vector_huge_pages{true};

// Makes the pages of a heap block that is about to be filled present in one system call
// (MADV_POPULATE_WRITE, Linux 5.14) instead of a page fault per 4 KiB page, which costs twice as
// much on a paravirtualised VM. Only the whole pages inside the block, only for blocks of 64 KiB
// and more; contents are kept (pages already present are left as they are). Advice only: on an
// older kernel the pages fault in on first use.
inline void populate_block(void* p, std::size_t bytes) {
#if defined(MADV_POPULATE_WRITE) && !defined(PLUMB_POD_VECTOR_HEAP_ONLY)
  if (p == nullptr || bytes < (std::size_t{64} << 10)) return;
  const std::size_t head = (4096 - reinterpret_cast<std::uintptr_t>(p) % 4096) % 4096;  // to the first page
  if (bytes <= head) return;
  const std::size_t whole = (bytes - head) / 4096 * 4096;
  if (whole > 0) ::madvise(static_cast<char*>(p) + head, whole, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}

// Room for n elements in a std::vector (or PodVector), the block's pages made present in one call:
// for the analysis' lists, whose sizes are known from the counts kept while reading.
template <class V>
void reserve_present(V& v, std::size_t n) {
  v.reserve(n);
  populate_block(v.data(), v.capacity() * sizeof(typename V::value_type));
}

template <class T>
class PodVector {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "PodVector moves its elements as bytes");
  static_assert(alignof(T) <= alignof(std::max_align_t), "PodVector's heap blocks are max_align_t aligned");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  PodVector() = default;
  ~PodVector() { release(); }
  PodVector(const PodVector& o) { assign(o.p_, o.n_); }
  PodVector& operator=(const PodVector& o) {
    if (this != &o) {
      clear();
      assign(o.p_, o.n_);
    }
    return *this;
  }
  PodVector(PodVector&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)), cap_(std::exchange(o.cap_, 0)),
        block_(std::exchange(o.block_, 0)), mapped_bytes_(std::exchange(o.mapped_bytes_, 0)), huge_pages_(o.huge_pages_) {}
  PodVector& operator=(PodVector&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
      cap_ = std::exchange(o.cap_, 0);
      block_ = std::exchange(o.block_, 0);
      mapped_bytes_ = std::exchange(o.mapped_bytes_, 0);
      huge_pages_ = o.huge_pages_;
    }
    return *this;
  }

  void push_back(const T& v) {
    if (n_ == cap_) grow(n_ + 1);
    p_[n_++] = v;
  }
  template <class... A>
  T& emplace_back(A&&... a) {
    if (n_ == cap_) grow(n_ + 1);
    p_[n_] = T{std::forward<A>(a)...};
    return p_[n_++];
  }
  void reserve(std::size_t n) {
    if (n > cap_) grow(n);
  }
  void clear() { n_ = 0; }
  // Mappings made from now on get the kernel's default pages instead of asking for huge ones: for
  // an array that is written once, read once and freed (a part's records until the merge), whose
  // accesses gain little from huge pages. Where free memory is reported to a hypervisor, a huge
  // page can cost sixty times a small one to back (docs/performance-trace.md).
  void small_pages() { huge_pages_ = false; }
  [[nodiscard]] bool huge_pages() const { return huge_pages_; }
  void append(const T* src, std::size_t n) {
    if (n == 0) return;
    if (n_ + n > cap_) grow(n_ + n);
    std::memcpy(static_cast<void*>(p_ + n_), src, n * sizeof(T));
    n_ += n;
  }

  [[nodiscard]] std::size_t size() const { return n_; }
  [[nodiscard]] bool empty() const { return n_ == 0; }
  [[nodiscard]] std::size_t capacity() const { return cap_; }
  T* data() { return p_; }
  const T* data() const { return p_; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }
  const T* begin() const { return p_; }
  const T* end() const { return p_ + n_; }
  T& operator[](std::size_t i) { return p_[i]; }
  const T& operator[](std::size_t i) const { return p_[i]; }
  T& back() { return p_[n_ - 1]; }
  const T& back() const { return p_[n_ - 1]; }

 private:
  static constexpr std::size_t kMapBytes = std::size_t{1} << 20;   // from here on: own mapping
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;   // mapping granularity
  static constexpr std::size_t kPageBytes = 4096;
  static constexpr std::size_t kPopulateBytes = std::size_t{256} << 10;
  static constexpr std::size_t kHeapStepBytes = std::size_t{64} << 10;
  static constexpr std::size_t kReserve = 8;                          // address space ahead
  static constexpr std::size_t kMaxReserved = std::size_t{1} << 40;   // of at most 1 TiB

  void assign(const T* src, std::size_t n) {
    reserve(n);
    if (n > 0) std::memcpy(static_cast<void*>(p_), src, n * sizeof(T));
    n_ = n;
  }

  void grow(std::size_t need) {
#if !defined(PLUMB_POD_VECTOR_HEAP_ONLY)
    // A mapping is filled a step at a time: cap_ is where its pages are known to be present.
    if (mapped_bytes_ > 0 && need * sizeof(T) <= mapped_bytes_) {
      populate(need * sizeof(T));
      return;
    }
#endif
    // A heap block is also filled a step at a time (populate_heap): cap_ is where its pages are
    // present, block_ its size.
    if (mapped_bytes_ == 0 && need <= block_) {
      populate_heap(need);
      return;
    }
    const std::size_t have = std::max(cap_, block_);
    std::size_t cap = have < 16 ? 16 : have * 2;
    if (cap < need) cap = need;
    if (cap > static_cast<std::size_t>(-1) / 2 / sizeof(T)) throw std::bad_alloc();
    std::size_t bytes = cap * sizeof(T);
#if !defined(PLUMB_POD_VECTOR_HEAP_ONLY)
    if (bytes >= kMapBytes) {
      // Address space kReserve times what is needed, pages only as they are filled: each time a
      // mapping grows into addresses already taken, mremap moves its page tables, and on a VM with
      // shadow page tables every moved page then costs the hypervisor a fault when next touched
      // (3-13 % of a 300 MB trace's time, docs/performance-trace.md). Where the address space is
      // limited (RLIMIT_AS, strict overcommit), what is needed alone.
      const bool fresh = mapped_bytes_ == 0;
      void* q = MAP_FAILED;
      for (std::size_t want : {bytes <= kMaxReserved / kReserve ? bytes * kReserve : bytes, bytes}) {
        want = (want + kHugePage - 1) / kHugePage * kHugePage;
        q = fresh ? ::mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                  : ::mremap(p_, mapped_bytes_, want, MREMAP_MAYMOVE);
        bytes = want;
        if (q != MAP_FAILED) break;
      }
      if (q == MAP_FAILED) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
      if (huge_pages_) ::madvise(q, bytes, MADV_HUGEPAGE);  // advice only: without THP the pages stay 4 KiB
#endif
      T* old = p_;
      p_ = static_cast<T*>(q);
      mapped_bytes_ = bytes;
      block_ = 0;
      if (fresh) {  // the heap block moves into the new mapping, whose pages are made present first
        cap_ = 0;
        populate(std::max(need, n_) * sizeof(T));
        if (n_ > 0) std::memcpy(static_cast<void*>(p_), static_cast<const void*>(old), n_ * sizeof(T));
        std::free(old);
        return;
      }
      populate(need * sizeof(T));
      return;
    }
#endif
    void* q = std::realloc(static_cast<void*>(p_), bytes);
    if (q == nullptr) throw std::bad_alloc();
    p_ = static_cast<T*>(q);
    block_ = cap;
    cap_ = n_;  // realloc wrote these; the rest of the block is made present as it is filled
    populate_heap(need);
  }

  // Makes the heap block's pages present from cap_ up to at least `need` elements, kHeapStepBytes at
  // a time (populate_block), and sets cap_ there: a block that doubled is filled half at most, and
  // pages made present ahead of what is written are fresh memory a VM charges for (the records of a
  // trace read in many parts are many such blocks).
  void populate_heap(std::size_t need) {
    const std::size_t from = cap_ * sizeof(T);
    const std::size_t to = std::min(block_ * sizeof(T), std::max(need * sizeof(T), from + kHeapStepBytes));
#if defined(MADV_POPULATE_WRITE) && !defined(PLUMB_POD_VECTOR_HEAP_ONLY)
    if (to - from >= kHeapStepBytes) {
      // From the page that holds the first byte (present already, or the step before left it out).
      char* base = reinterpret_cast<char*>(p_);
      char* first = base + from - reinterpret_cast<std::uintptr_t>(base + from) % kPageBytes;
      char* last = base + to - reinterpret_cast<std::uintptr_t>(base + to) % kPageBytes;
      if (last > first) ::madvise(first, static_cast<std::size_t>(last - first), MADV_POPULATE_WRITE);
    }
#endif
    cap_ = std::max(need, to / sizeof(T));
  }

#if !defined(PLUMB_POD_VECTOR_HEAP_ONLY)
  // Makes the mapping's pages present up to at least `bytes` (in steps of kPopulateBytes) and sets
  // cap_ there. One madvise(MADV_POPULATE_WRITE) (Linux 5.14) per step instead of a page fault per
  // 4 KiB page: half the kernel time per page measured on a paravirtualised VM (12 -> 6 us). On an
  // older kernel the call fails and the pages fault in on first use as before.
  void populate(std::size_t bytes) {
    std::size_t from = cap_ * sizeof(T) / kPageBytes * kPageBytes;
    std::size_t to = std::min(mapped_bytes_, std::max(bytes, from + kPopulateBytes));
#if defined(MADV_POPULATE_WRITE)
    ::madvise(reinterpret_cast<char*>(p_) + from, to - from, MADV_POPULATE_WRITE);
#endif
    cap_ = to / sizeof(T);
  }
#endif

  void release() {
    if (mapped_bytes_ > 0) {
      ::munmap(p_, mapped_bytes_);
    } else {
      std::free(p_);
    }
    p_ = nullptr;
    n_ = cap_ = block_ = mapped_bytes_ = 0;
  }

  T* p_ = nullptr;
  std::size_t n_ = 0, cap_ = 0;
  std::size_t block_ = 0;         // a heap block's size in elements (cap_ <= block_); 0 for a mapping
  std::size_t mapped_bytes_ = 0;  // > 0: p_ is an anonymous mapping of this size
  bool huge_pages_ = pod_vector_huge_pages.load(std::memory_order_relaxed);  // new mappings ask for huge pages
};

}  // namespace plumb::trace
