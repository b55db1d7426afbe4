// The streaming splitter: reads a trace in fixed-size chunks and hands complete events to a sink in
// batches, so memory is bounded by one chunk plus the largest single event, never by the file.
// Accepts {"traceEvents": [...], ...} (Kineto) and a top-level array of events (legacy export).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/trace/source.h"
#include "core/result.h"

namespace plumb::trace {

// Bytes after every batch the sink may read (simdjson's SIMDJSON_PADDING).
inline constexpr std::size_t kBatchPadding = 64;

// What the splitter learnt about a batch while cutting it out of the file.
struct BatchIndex {
  // Each event's position in the batch (for error messages that name the failing event).
  std::vector<std::uint32_t> starts;
  // In file order, the position in the batch of the closing bracket of every object or array that
  // is the value of an event's own field ("args": {...}), so a scanner can skip such a value in one
  // step: its brackets were already matched outside strings here.
  std::vector<std::uint32_t> value_ends;
  // No control character (below 0x20) was seen inside a string of this batch, nor of any batch
  // before it. JSON wants them escaped (RFC 8259, section 7) and simdjson's first stage rejects them,
  // so a value skipped by value_ends needs no other check.
  bool strings_clean = true;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // A top-level key the analysis wants (distributedInfo, deviceProperties, ...) with its raw JSON value.
  virtual Result<bool> header(std::string_view key, std::string_view value) = 0;
  // A batch "[ev,ev,...]" of complete events; at least kBatchPadding readable bytes follow json+len.
  // `offset` is the file byte offset of json[1] (the first event).
  virtual Result<bool> events(const char* json, std::size_t len, std::uint64_t offset, const BatchIndex& index) = 0;
};

struct StreamStats {
  std::uint64_t bytes = 0;   // uncompressed bytes read
  bool legacy_array = false; // the top level was an array of events
  std::uint64_t batches = 0;
  bool stopped = false;          // ended at StreamRange::stop_at (not at the end of the document)
  std::uint64_t stopped_at = 0;  // then: the file offset of the first event not read
};

// Lets another thread take over the rest of a part while it is being read (parallel reading): a
// thread done with its own part offers the part's reader an earlier stop (an event start), and the
// reader takes it at its next read if it has not scanned that far yet. Thread-safe; one offer at a
// time.
class PartControl {
 public:
  explicit PartControl(std::uint64_t start = 0) : progress_(start) {}
  // Reader: before each read, with the offset of the first byte not scanned yet and its current
  // stop; answers a pending offer and returns the stop to use from now on. `can_stop`: the reader is
  // inside the events array (only there does it stop at an event).
  std::uint64_t answer(std::uint64_t unscanned, std::uint64_t stop, bool can_stop);
  // Reader: called once when it has stopped (however it ended); refuses a pending offer, and every
  // later one.
  void finish();
  // Anyone: the offset up to which the reader has scanned (a lower bound).
  [[nodiscard]] std::uint64_t progress() const { return progress_.load(std::memory_order_relaxed); }
  // Thief: offers `cut` as the reader's new stop and waits for the answer (the reader's next read,
  // or its end); true when the reader will stop there.
  bool offer(std::uint64_t cut);
  // True while an offer waits for the reader's answer.
  [[nodiscard]] bool offer_pending() const { return pending(state_.load(std::memory_order_acquire)); }

 private:
  static constexpr std::uint64_t kNone = ~std::uint64_t{0};
  static constexpr std::uint64_t kAccepted = std::uint64_t{1} << 62;
  static constexpr std::uint64_t kRefused = std::uint64_t{1} << 61;
  static bool pending(std::uint64_t s) { return (s & (kAccepted | kRefused)) == 0; }
  std::atomic<std::uint64_t> state_{kNone};  // kNone, an offered cut, or the cut with its answer
  std::atomic<std::uint64_t> progress_;
  std::atomic<bool> done_{false};
};

// Where the source starts in the file, for reading one part of a trace (parallel reading). The
// default is the whole document.
struct StreamRange {
  std::uint64_t start = 0;  // file offset of the source's first byte
  bool in_events = false;   // the source starts at an event inside the events array
  bool legacy = false;      // (with in_events) the events array is the top level
  // Stop before the first event that starts at or after this file offset.
  std::uint64_t stop_at = ~std::uint64_t{0};
  // When set: offers of an earlier stop are answered here (and finish() is left to the caller).
  PartControl* control = nullptr;
};

struct StreamLimits {
  std::size_t chunk = std::size_t{256} << 10;      // bytes read per refill
  std::size_t batch = std::size_t{256} << 10;    // events handed over once a batch is this large
  std::size_t max_event = std::size_t{256} << 20; // one event larger than this is an error
  std::size_t max_header_value = std::size_t{16} << 20;
  // The widest vector instructions the splitter may use: 0 SSE2 (or plain C++), 1 AVX2, 2 AVX-512BW.
  // The default takes what the CPU has; every level gives the same result (tests compare them).
  int simd = 2;
};

// The level the splitter uses for `wanted` on this CPU: at most `wanted`, 0 where nothing wider is
// there (or off x86-64).
int splitter_simd_level(int wanted = 2);

// Reads the whole source. Errors are one line naming `name` and a byte offset.
Result<StreamStats> stream_trace(ByteSource& src, const std::string& name, TraceSink& sink,
                                 const StreamLimits& limits = {}, const StreamRange& range = {});
// The same on `len` bytes at `data` (the whole source from range.start), read in place: the byte
// before `data` and kStreamSlack bytes after data + len must be writable too (a batch handed to the
// sink is framed there, the bytes put back after it). Events are not checked against
// limits.max_event: the caller keeps `len` within it.
inline constexpr std::size_t kStreamSlack = kBatchPadding + 2;
Result<StreamStats> stream_trace_in_place(char* data, std::size_t len, const std::string& name, TraceSink& sink,
                                          const StreamLimits& limits = {}, const StreamRange& range = {});

}  // namespace plumb::trace
