// A byte stream over a trace: a plain file, a gzip file (zlib, multi-member), or memory. Reads go
// into the caller's buffer in chunks, so memory stays bounded whatever the file size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"

namespace plumb::trace {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Fills up to n bytes of uncompressed JSON; 0 at the end. Errors name the file and, for gzip,
  // the compressed byte offset.
  virtual Result<std::size_t> read(char* dst, std::size_t n) = 0;
  [[nodiscard]] virtual bool compressed() const = 0;
  [[nodiscard]] virtual std::uint64_t compressed_size() const = 0;
};

// Opens a file; gzip is detected by its magic bytes, not the name.
Result<std::unique_ptr<ByteSource>> open_trace_file(const std::string& path);
// Reads an open descriptor (a pipe such as stdin too) and owns it; gzip detected the same way.
Result<std::unique_ptr<ByteSource>> open_fd_source(int fd, std::string name);
// Reads from memory (the bytes must outlive the source); gzip detected the same way.
std::unique_ptr<ByteSource> memory_source(std::string_view data, std::string name);

}  // namespace plumb::trace
