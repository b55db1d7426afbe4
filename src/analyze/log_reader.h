// Streamed reading of job logs for `plumb diagnose`: a plain or gzip file of any size, or stdin
// ("-"), handed out in blocks of whole lines; and the clean-up of one line for matching and
// display (ANSI colour sequences, CR, rank prefixes such as `[rank3]:` or `3: `, leading time stamps).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "analyze/trace/source.h"
#include "core/result.h"

namespace plumb {

class LogReader {
 public:
  // "-" reads standard input. Files go through open_user_file (a FIFO or device is refused).
  static Result<LogReader> open(const std::string& path);
  // The bytes must outlive the reader (tests, fuzzing).
  static LogReader from_memory(std::string_view data, const std::string& name);

  // The next block of whole lines (each ending in '\n', except the file's last line); an empty
  // view at the end. A line longer than the longest kept (kMaxLine) is cut there. The view stays
  // valid until the next call.
  Result<std::string_view> next_block();
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] std::uint64_t bytes_read() const { return bytes_; }

  static constexpr std::size_t kBlock = 1u << 20;
  static constexpr std::size_t kMaxLine = 8u << 20;

 private:
  LogReader(std::unique_ptr<trace::ByteSource> src, std::string name);
  std::unique_ptr<trace::ByteSource> src_;
  std::string name_;
  std::string buf_;
  std::size_t carry_ = 0;  // bytes of an unfinished line at the front of buf_
  std::size_t given_ = 0;  // bytes handed out by the last call, dropped by the next
  bool eof_ = false;
  std::uint64_t bytes_ = 0;
};

// True when the block holds an escape byte (the only case that needs strip_ansi).
bool has_escape(std::string_view block);
// Removes ANSI CSI (ESC [ ... final byte) and OSC (ESC ] ... BEL or ESC \) sequences; keeps every
// newline, so line numbers do not move.
std::string strip_ansi(std::string_view text);
// One line as a person reads it: no trailing CR/LF, no leading rank prefixes (`[rank3]:`, `3: `,
// `[1,0]<stderr>:`) or time stamps (`[74785.660366]`, `2024-06-17 15:17:35,519`, `2024-06-17T15:17:35Z`).
std::string_view clean_line(std::string_view line);

}  // namespace plumb
