// One trace event as the reader sees it: only the fields the analysis uses. String views point
// into the parser's buffers and live until the consumer returns.
#pragma once

#include <cstdint>
#include <string_view>

#include "analyze/trace/classify.h"
#include "core/result.h"

namespace plumb::trace {

// pid/tid: a number, or a string ("CPU functions", "stream 7", "Spans").
struct TraceId {
  std::int64_t num = 0;
  std::string_view str;
  bool is_str = false;
};

struct RawEvent {
  char ph = 0;
  Cat cat = Cat::none;
  std::string_view name;
  bool has_name = false;
  double ts = 0, dur = 0;
  bool has_ts = false, has_dur = false;
  bool ts_fractional = false;  // ts written with a fraction (HTA rounds such traces)
  TraceId pid, tid;
  // args subset (-1: absent)
  std::int64_t stream = -1;
  std::int64_t correlation = -1;
  std::int64_t device = -1;
  double bytes = -1;
  std::int64_t mem_device_type = -1;
  std::int64_t mem_device_id = -1;
  double total_allocated = -1;
  double total_reserved = -1;
  std::uint64_t offset = 0;  // file byte offset of the event
};

class EventConsumer {
 public:
  virtual ~EventConsumer() = default;
  virtual Result<bool> on_event(const RawEvent& e) = 0;
};

}  // namespace plumb::trace
