// Recordings of `plumb watch --record FILE`: JSON lines (.jsonl/.json/other) or long-format CSV
// (.csv: one row per value), written as samples arrive and read back by `plumb report FILE`.
#pragma once

#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "core/result.h"

namespace plumb::watch {

enum class RecordFormat { jsonl, csv };
RecordFormat record_format_for(const std::string& path);  // by extension: .csv -> csv, else jsonl

// Appends samples to a file as they arrive (flushed each tick, so a crash keeps what was sampled).
class Recorder {
 public:
  static Result<std::unique_ptr<Recorder>> open(const std::string& path, const WatchFacts& header,
                                                const std::string& hostname);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  Result<bool> write(const WatchSample& s);
  // The trailer (unreadable sources, dropped samples) and close.
  Result<bool> finish(const WatchFacts& w);

 private:
  Recorder(std::FILE* f, std::string path, RecordFormat fmt) : f_(f), path_(std::move(path)), fmt_(fmt) {}
  Result<bool> put(const std::string& text);
  std::FILE* f_;
  std::string path_;
  RecordFormat fmt_;
  std::set<std::string> gpus_seen_;
};

// One sample as JSON-lines text / CSV rows (without trailing newline handling by the caller).
std::string sample_to_jsonl(const WatchSample& s);
std::string sample_to_csv_rows(const WatchSample& s);

// Is this text a watch recording (either format)? Cheap: looks at the first line only.
bool looks_like_recording(std::string_view text);
// Reads a recording back into Facts (meta + watch). Malformed lines are errors naming the line.
Result<Facts> facts_from_recording(std::string_view text, const std::string& origin);

}  // namespace plumb::watch
