// A byte stream over a trace: a plain file, a gzip file (multi-member; inflated by ISA-L in the
// builds that link it, else by zlib), or memory. Reads go into the caller's buffer in chunks, so
// memory stays bounded whatever the file size.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"

namespace plumb::trace {

// Which library inflates the gzip sources opened from now on: ISA-L (3-4 times zlib's speed) where
// the build links it (PLUMB_ISAL: the Debian build, libisal2), else zlib; or zlib always (tests and
// the trace reader benchmark compare the two). The portable build has no ISA-L (Debian ships no
// static archive of it): `isal` inflates with zlib there.
enum class Inflater { isal, zlib };
inline std::atomic<Inflater> gzip_inflater{Inflater::isal};

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Fills up to n bytes of uncompressed JSON; 0 at the end. Errors name the file and, for gzip,
  // the compressed byte offset.
  virtual Result<std::size_t> read(char* dst, std::size_t n) = 0;
  [[nodiscard]] virtual bool compressed() const = 0;
  [[nodiscard]] virtual std::uint64_t compressed_size() const = 0;
  // The library that inflates a gzip source ("ISA-L", "zlib"); nullptr for plain bytes.
  [[nodiscard]] virtual const char* inflater() const { return nullptr; }
};

// Opens a file; gzip is detected by its magic bytes, not the name.
Result<std::unique_ptr<ByteSource>> open_trace_file(const std::string& path);
// Reads an open descriptor (a pipe such as stdin too) and owns it; gzip detected the same way.
Result<std::unique_ptr<ByteSource>> open_fd_source(int fd, const std::string& name);
// Reads from memory (the bytes must outlive the source); gzip detected the same way.
std::unique_ptr<ByteSource> memory_source(std::string_view data, const std::string& name);

// Reads `inner` on a thread of its own, up to `depth` chunks of `chunk` bytes ahead of the caller:
// for gzip, inflating runs while the caller parses. Errors arrive in order, after the bytes before them.
std::unique_ptr<ByteSource> read_ahead(std::unique_ptr<ByteSource> inner, std::size_t chunk = std::size_t{1} << 20,
                                       std::size_t depth = 3);

// Random access to an uncompressed trace (a regular plain file, or memory), so that parts of one
// trace can be read by several threads at once.
class RandomAccess {
 public:
  virtual ~RandomAccess() = default;
  // Up to n bytes from `offset` (fewer only at the end); safe to call from several threads.
  virtual Result<std::size_t> read_at(std::uint64_t offset, char* dst, std::size_t n) const = 0;
  [[nodiscard]] virtual std::uint64_t size() const = 0;
};

// A regular plain file; nullptr (and no error) for a gzip file or anything but a regular file.
Result<std::unique_ptr<RandomAccess>> open_random_access(const std::string& path);
// Bytes in memory (they must outlive it); nullptr for gzip data.
std::unique_ptr<RandomAccess> memory_random_access(std::string_view data);
// Reads `ra` from `start` to its end (the RandomAccess must outlive the source).
std::unique_ptr<ByteSource> range_source(const RandomAccess& ra, std::uint64_t start);

}  // namespace plumb::trace
