// The signature scan of `plumb diagnose`: every pattern of the signature table compiled once into
// one Hyperscan (Vectorscan) database and matched against the logs in a single pass, block by
// block; the values of a signature are read (log_values.h) only from the lines it matched.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analyze/log_reader.h"
#include "core/knowledge/log_signatures.h"
#include "core/result.h"

namespace plumb {

struct LogMatch {
  std::string file;
  std::uint64_t line = 0;  // 1-based
  std::string text;        // the line, cleaned (clean_line) and shortened to kMaxText bytes
};

struct SignatureHits {
  std::string signature;                      // table id
  std::uint64_t count = 0;                    // lines that matched
  std::vector<LogMatch> samples;              // the first kMaxSamples lines
  std::map<std::string, std::string> values;  // name -> first value read
  std::map<std::string, std::string> value_at;  // name -> "file:line" it was read from
  std::uint64_t last_line = 0;                // the last line that matched, in the last file it matched
  std::size_t last_file = 0;                  // index in LogScan::files of that line's file
};

struct LogScan {
  std::vector<std::string> files;
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
  std::vector<std::uint64_t> file_lines;  // lines of each file, in the order of `files`
  std::vector<SignatureHits> hits;  // matched signatures only, in table order
};

inline constexpr std::size_t kMaxSamples = 5;
inline constexpr std::size_t kMaxText = 400;
// Matched lines a signature reads values from (the rest are counted only).
inline constexpr std::size_t kMaxValueLines = 16;

class LogScanner {
 public:
  // Compiles the table's patterns; an error names the pattern Hyperscan refused.
  static Result<std::shared_ptr<LogScanner>> create(const std::vector<LogSignature>& table);
  ~LogScanner();
  LogScanner(const LogScanner&) = delete;
  LogScanner& operator=(const LogScanner&) = delete;

  // Scans one log to its end, adding to `into` (call finish() after the last one). `progress`,
  // when set, is called after each block (at most every LogReader::kBlock bytes) with the bytes read.
  Result<bool> scan(LogReader& reader, LogScan& into, const std::function<void(std::uint64_t)>& progress = {});
  // Orders the hits by the table and drops empty ones.
  void finish(LogScan& into) const;

  struct Impl;

 private:
  explicit LogScanner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The shared scanner of the built-in table (compiled on first use).
Result<std::shared_ptr<LogScanner>> default_log_scanner();
// Scans files ("-" is stdin) in one pass each; `progress` gets the file and its bytes read so far.
using LogScanProgress = std::function<void(const std::string& file, std::uint64_t bytes)>;
Result<LogScan> scan_log_files(const std::vector<std::string>& paths, const LogScanProgress& progress = {});
// Scans text in memory (tests, fuzzing).
Result<LogScan> scan_log_text(std::string_view text, const std::string& name);

}  // namespace plumb
