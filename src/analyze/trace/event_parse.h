// Parses batches of events with simdjson On-Demand, looking up only the keys the analysis uses and
// reading "args" only for the event kinds that need it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analyze/trace/event.h"
#include "analyze/trace/stream.h"

namespace plumb::trace {

class BatchParser {
 public:
  // fast: events are read by plumb's own strict scanner first, simdjson only for batches it refuses.
  // simdjson_batches (optional): counts the batches the scanner refused.
  explicit BatchParser(std::string name, bool fast = true, std::atomic<std::uint64_t>* simdjson_batches = nullptr);
  ~BatchParser();
  BatchParser(const BatchParser&) = delete;
  BatchParser& operator=(const BatchParser&) = delete;
  // json = "[ev,...]" followed by kBatchPadding readable bytes; offset = file offset of json[1];
  // index: what the splitter found (each event's start, the ends of the events' container values).
  Result<bool> parse(const char* json, std::size_t len, std::uint64_t offset, const BatchIndex& index,
                     EventConsumer& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace plumb::trace
