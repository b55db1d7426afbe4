// Plain and gzip byte sources for the streaming trace reader.
#include "analyze/trace/source.h"

#include <fcntl.h>
#ifdef PLUMB_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "core/host_root.h"

namespace plumb::trace {

namespace {

// Where the raw (possibly compressed) bytes come from.
class Raw {
 public:
  virtual ~Raw() = default;
  virtual Result<std::size_t> read(char* dst, std::size_t n) = 0;
};

class FdRaw : public Raw {
 public:
  FdRaw(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  ~FdRaw() override { ::close(fd_); }
  FdRaw(const FdRaw&) = delete;
  FdRaw& operator=(const FdRaw&) = delete;
  Result<std::size_t> read(char* dst, std::size_t n) override {
    while (true) {
      ssize_t r = ::read(fd_, dst, n);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == EINTR) continue;
      return make_error(ErrorKind::io, name_ + ": read failed (" + errno_text(errno) + ")");
    }
  }

 private:
  int fd_;
  std::string name_;
};

class MemRaw : public Raw {
 public:
  explicit MemRaw(std::string_view d) : d_(d) {}
  Result<std::size_t> read(char* dst, std::size_t n) override {
    std::size_t k = std::min(n, d_.size() - pos_);
    if (k > 0) std::memcpy(dst, d_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  std::string_view d_;
  std::size_t pos_ = 0;
};

class PlainSource : public ByteSource {
 public:
  PlainSource(std::unique_ptr<Raw> raw, std::string head, std::uint64_t size)
      : raw_(std::move(raw)), head_(std::move(head)), size_(size) {}
  Result<std::size_t> read(char* dst, std::size_t n) override {
    if (head_pos_ < head_.size()) {
      std::size_t k = std::min(n, head_.size() - head_pos_);
      std::memcpy(dst, head_.data() + head_pos_, k);
      head_pos_ += k;
      return k;
    }
    return raw_->read(dst, n);
  }
  [[nodiscard]] bool compressed() const override { return false; }
  [[nodiscard]] std::uint64_t compressed_size() const override { return size_; }

 private:
  std::unique_ptr<Raw> raw_;
  std::string head_;  // bytes already read to sniff the format
  std::size_t head_pos_ = 0;
  std::uint64_t size_;
};

// What both gzip sources share: the compressed input, read 256 KiB at a time into a buffer that is
// never zero-filled (a small trace would otherwise touch all 64 of its pages for a few hundred
// bytes), the count of compressed bytes read, and the words of their errors.
class GzipInput : public ByteSource {
 public:
  [[nodiscard]] bool compressed() const override { return true; }
  [[nodiscard]] std::uint64_t compressed_size() const override { return size_; }

 protected:
  // `room`: bytes the buffer holds beyond one read (ISA-L's read-ahead put back).
  GzipInput(std::unique_ptr<Raw> raw, const std::string& head, std::string name, std::uint64_t size, std::size_t room = 0)
      : raw_(std::move(raw)), name_(std::move(name)), size_(size),
        in_(std::make_unique_for_overwrite<std::uint8_t[]>(kInBytes + room)), consumed_(head.size()) {
    std::memcpy(in_.get(), head.data(), head.size());
  }
  // The next input, from the start of the buffer: its length, 0 (and eof_ set) at the end.
  Result<std::size_t> refill() {
    auto r = raw_->read(reinterpret_cast<char*>(in_.get()), kInBytes);
    if (!r) return r.error();
    if (*r == 0) eof_ = true;
    consumed_ += *r;
    return *r;
  }
  [[nodiscard]] Error truncated() const {
    return make_error(ErrorKind::invalid, name_ + ": gzip stream truncated at compressed byte " + std::to_string(consumed_));
  }
  // A fault `unread` bytes before the end of what was read.
  [[nodiscard]] Error data_error(std::size_t unread, const std::string& why) const {
    return make_error(ErrorKind::invalid, name_ + ": gzip data error at compressed byte " +
                                              std::to_string(consumed_ - unread) + " (" + why + ")");
  }

  static constexpr std::size_t kInBytes = std::size_t{1} << 18;
  std::unique_ptr<Raw> raw_;
  std::string name_;
  std::uint64_t size_;
  std::unique_ptr<std::uint8_t[]> in_;
  std::uint64_t consumed_;     // compressed bytes read so far, the sniffed head included
  bool eof_ = false;           // the raw input is at its end
  bool done_ = false;          // every member read
  bool member_ended_ = false;  // a member ended and no byte of another was inflated since
};

class GzipSource : public GzipInput {
 public:
  GzipSource(std::unique_ptr<Raw> raw, const std::string& head, std::string name, std::uint64_t size)
      : GzipInput(std::move(raw), head, std::move(name), size) {
    zs_.next_in = in_.get();
    zs_.avail_in = static_cast<uInt>(head.size());
    ok_ = inflateInit2(&zs_, 15 + 16) == Z_OK;  // gzip wrapper only
  }
  ~GzipSource() override { inflateEnd(&zs_); }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  Result<std::size_t> read(char* dst, std::size_t n) override {
    if (!ok_) return make_error(ErrorKind::internal, name_ + ": zlib initialisation failed");
    if (done_ || n == 0) return std::size_t{0};
    zs_.next_out = reinterpret_cast<Bytef*>(dst);
    zs_.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
    const uInt want = zs_.avail_out;
    while (zs_.avail_out == want) {
      if (zs_.avail_in == 0 && !eof_) {
        auto r = refill();
        if (!r) return r.error();
        zs_.next_in = in_.get();
        zs_.avail_in = static_cast<uInt>(*r);
      }
      if (zs_.avail_in == 0 && eof_) {
        if (!member_ended_) return truncated();
        done_ = true;
        break;
      }
      member_ended_ = false;
      int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        // Another gzip member may follow (concatenated .gz files are valid gzip).
        member_ended_ = true;
        if (inflateReset(&zs_) != Z_OK) return make_error(ErrorKind::internal, name_ + ": zlib reset failed");
        continue;
      }
      if (rc == Z_BUF_ERROR && zs_.avail_in == 0) continue;  // needs more input
      if (rc != Z_OK) return data_error(zs_.avail_in, zs_.msg != nullptr ? zs_.msg : "corrupt data");
    }
    return static_cast<std::size_t>(want - zs_.avail_out);
  }
  [[nodiscard]] const char* inflater() const override { return "zlib"; }

 private:
  z_stream zs_{};
  bool ok_ = false;
};

#ifdef PLUMB_ISAL
// What an isal_inflate return code means, in zlib's words where zlib has them ("invalid distance
// too far back"), so an error reads the same whichever library inflated.
std::string isal_inflate_error(int rc) {
  // The codes of isa-l/igzip_lib.h (2.30), worded as zlib's inflate.c words the same faults.
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "invalid block type or lengths";
    case ISAL_INVALID_SYMBOL:
      return "invalid code";
    case ISAL_INVALID_LOOKBACK:
      return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
      return "incorrect header check";
    case ISAL_UNSUPPORTED_METHOD:
      return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
      return "incorrect data check";
    case ISAL_NEED_DICT:
      return "needs a preset dictionary";
    default:
      return "ISA-L inflate error " + std::to_string(rc);
  }
}

// The same stream inflated by ISA-L (libisal2, linked): the same bytes, the same members, and an
// error at the same kind of fault (a truncated stream, a data error at a compressed byte offset).
// Each member's header is read by isal_read_gzip_header, which may stop anywhere in it and go on
// with the next input; isal_inflate's own header reading needs the whole header in one buffer
// (intel/isa-l#224: with FHCRC set, a header split between reads failed its check). The deflate
// data and the trailer (CRC-32 and length, both checked) are then inflated with ISAL_GZIP_NO_HDR_VER.
class IsalGzipSource : public GzipInput {
 public:
  IsalGzipSource(std::unique_ptr<Raw> raw, const std::string& head, std::string name, std::uint64_t size)
      : GzipInput(std::move(raw), head, std::move(name), size, kCarry), st_(std::make_unique_for_overwrite<inflate_state>()) {
    isal_inflate_init(st_.get());
    isal_gzip_header_init(&header_);
    st_->next_in = in_.get();
    st_->avail_in = static_cast<std::uint32_t>(head.size());
  }

  Result<std::size_t> read(char* dst, std::size_t n) override {
    if (done_ || n == 0) return std::size_t{0};
    inflate_state& s = *st_;
    s.next_out = reinterpret_cast<std::uint8_t*>(dst);
    s.avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(n, 1u << 30));
    const std::uint32_t want = s.avail_out;
    while (s.avail_out == want) {
      if (!in_header_ && s.block_state == ISAL_BLOCK_FINISH) next_member();
      if (s.avail_in == 0 && !eof_) {
        auto r = refill();
        if (!r) return r.error();
        s.next_in = in_.get();
        s.avail_in = static_cast<std::uint32_t>(*r);
      }
      if (s.avail_in == 0 && eof_) {
        // The end of the input: after a whole member, the end of the stream; else a cut stream,
        // unless ISA-L still holds bits of input or decoded bytes (called until it gives nothing).
        if (member_ended_) {
          done_ = true;
          break;
        }
        if (in_header_ || stalled_) return truncated();
      }
      member_ended_ = false;
      if (in_header_) {
        const int rc = isal_read_gzip_header(&s, &header_);
        if (rc == ISAL_END_INPUT && s.avail_in == 0) continue;  // the header goes on in the next input
        if (rc != ISAL_DECOMP_OK) return data_error(s.avail_in, isal_inflate_error(rc));
        // FLG bits 5-7 are reserved (RFC 1952, 2.3.1): zlib and gzip refuse them, ISA-L does not.
        if ((header_.flags & 0xe0U) != 0) return data_error(s.avail_in, "unknown header flags set");
        in_header_ = false;
        s.crc_flag = ISAL_GZIP_NO_HDR_VER;
        continue;
      }
      const std::uint32_t in_before = s.avail_in, out_before = s.avail_out;
      const auto state_before = s.block_state;
      const int rc = isal_inflate(&s);
      if (rc != ISAL_DECOMP_OK) return data_error(s.avail_in, isal_inflate_error(rc));
      stalled_ = s.avail_in == in_before && s.avail_out == out_before && s.block_state == state_before;
      // With input left, a call that takes none, writes none and moves on to no other state would be
      // repeated for ever: refused instead (never seen; a guard against a library that would).
      if (stalled_ && s.avail_in > 0) {
        return make_error(ErrorKind::invalid, name_ + ": gzip: ISA-L made no progress at compressed byte " +
                                                  std::to_string(consumed_ - s.avail_in));
      }
    }
    return static_cast<std::size_t>(want - s.avail_out);
  }
  [[nodiscard]] const char* inflater() const override { return "ISA-L"; }

 private:
  // Another gzip member may follow the one that ended (concatenated .gz files are valid gzip). Input
  // ISA-L read ahead into its bit buffer is put back in front of the input left: 2.30 hands it back
  // itself (read_in_length is 0 here), versions that keep it are described in intel/isa-l#182.
  void next_member() {
    inflate_state& s = *st_;
    const auto carry = static_cast<std::size_t>(std::max(s.read_in_length, 0) / 8);
    std::uint8_t bytes[kCarry] = {};
    for (std::size_t i = 0; i < carry && i < kCarry; ++i) bytes[i] = static_cast<std::uint8_t>(s.read_in >> (8 * i));
    const std::size_t k = std::min(carry, kCarry);
    std::memmove(in_.get() + k, s.next_in, s.avail_in);
    std::memcpy(in_.get(), bytes, k);
    const std::uint32_t avail_in = s.avail_in + static_cast<std::uint32_t>(k);
    std::uint8_t* next_out = s.next_out;
    const std::uint32_t avail_out = s.avail_out;
    isal_inflate_reset(&s);
    isal_gzip_header_init(&header_);
    s.crc_flag = 0;
    s.total_out = 0;  // distances reach back into this member only, as with zlib (2.30's reset does it too)
    s.next_in = in_.get();
    s.avail_in = avail_in;
    s.next_out = next_out;
    s.avail_out = avail_out;
    in_header_ = true;
    member_ended_ = true;
    stalled_ = false;
  }

  static constexpr std::size_t kCarry = 8;  // ISA-L's bit buffer: 64 bits
  std::unique_ptr<inflate_state> st_;
  isal_gzip_header header_{};
  bool in_header_ = true;
  bool stalled_ = false;  // the last inflate call took no input, wrote nothing and did not move on
};
#endif  // PLUMB_ISAL

std::unique_ptr<ByteSource> wrap(std::unique_ptr<Raw> raw, const std::string& name, std::uint64_t size,
                                 Result<std::string>& head_or_error) {
  std::string head;
  char b[2];
  std::size_t got = 0;
  while (got < 2) {
    auto r = raw->read(b + got, 2 - got);
    if (!r) {
      head_or_error = r.error();
      return nullptr;
    }
    if (*r == 0) break;
    got += *r;
  }
  head.assign(b, got);
  bool gz = got == 2 && static_cast<unsigned char>(b[0]) == 0x1f && static_cast<unsigned char>(b[1]) == 0x8b;
  if (gz) {
#ifdef PLUMB_ISAL
    if (gzip_inflater.load(std::memory_order_relaxed) == Inflater::isal) {
      return std::make_unique<IsalGzipSource>(std::move(raw), head, name, size);
    }
#endif
    return std::make_unique<GzipSource>(std::move(raw), head, name, size);
  }
  return std::make_unique<PlainSource>(std::move(raw), head, size);
}

bool gzip_magic(const char* b, std::size_t n) {
  return n >= 2 && static_cast<unsigned char>(b[0]) == 0x1f && static_cast<unsigned char>(b[1]) == 0x8b;
}

class FileAccess : public RandomAccess {
 public:
  FileAccess(int fd, std::string name, std::uint64_t size) : fd_(fd), name_(std::move(name)), size_(size) {}
  ~FileAccess() override { ::close(fd_); }
  FileAccess(const FileAccess&) = delete;
  FileAccess& operator=(const FileAccess&) = delete;
  Result<std::size_t> read_at(std::uint64_t offset, char* dst, std::size_t n) const override {
    return pread_full(fd_, offset, dst, n, name_);
  }
  [[nodiscard]] std::uint64_t size() const override { return size_; }

 private:
  int fd_;
  std::string name_;
  std::uint64_t size_;
};

class MemoryAccess : public RandomAccess {
 public:
  explicit MemoryAccess(std::string_view d) : d_(d) {}
  Result<std::size_t> read_at(std::uint64_t offset, char* dst, std::size_t n) const override {
    if (offset >= d_.size()) return std::size_t{0};
    std::size_t k = std::min<std::size_t>(n, d_.size() - offset);
    std::memcpy(dst, d_.data() + offset, k);
    return k;
  }
  [[nodiscard]] std::uint64_t size() const override { return d_.size(); }

 private:
  std::string_view d_;
};

class RangeSource : public ByteSource {
 public:
  RangeSource(const RandomAccess& ra, std::uint64_t start) : ra_(ra), pos_(start) {}
  Result<std::size_t> read(char* dst, std::size_t n) override {
    auto r = ra_.read_at(pos_, dst, n);
    if (r) pos_ += *r;
    return r;
  }
  [[nodiscard]] bool compressed() const override { return false; }
  [[nodiscard]] std::uint64_t compressed_size() const override { return ra_.size(); }

 private:
  const RandomAccess& ra_;
  std::uint64_t pos_;
};

class ReadAhead : public ByteSource {
 public:
  ReadAhead(std::unique_ptr<ByteSource> inner, std::size_t chunk, std::size_t depth)
      : inner_(std::move(inner)), chunk_(chunk), slots_(std::max<std::size_t>(depth, 2)) {
    for (auto& s : slots_) s.data = std::make_unique_for_overwrite<char[]>(chunk);
    // Its own thread, not a task group (core/parallel.h): a producer feeding a bounded queue
    // must run beside its consumer, never inline.
    producer_ = std::thread([this] { produce(); });
  }
  ~ReadAhead() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    producer_.join();
  }
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  Result<std::size_t> read(char* dst, std::size_t n) override {
    while (true) {
      Slot& s = slots_[head_ % slots_.size()];
      if (taking_) {
        if (s.pos < s.len) {
          std::size_t k = std::min(n, s.len - s.pos);
          std::memcpy(dst, s.data.get() + s.pos, k);
          s.pos += k;
          return k;
        }
        if (s.error) return *s.error;
        if (s.len == 0) return std::size_t{0};  // the end
        {
          std::lock_guard<std::mutex> lock(mu_);
          ++head_;
          taking_ = false;
        }
        cv_.notify_all();
        continue;
      }
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return filled_ > head_; });
      taking_ = true;
    }
  }
  [[nodiscard]] bool compressed() const override { return inner_->compressed(); }
  [[nodiscard]] std::uint64_t compressed_size() const override { return inner_->compressed_size(); }
  [[nodiscard]] const char* inflater() const override { return inner_->inflater(); }

 private:
  // A slot's bytes are written by the inflating thread before they are read, so they are never
  // zero-filled: a trace of a few kilobytes touches a few pages, not the slots' 3 MiB.
  struct Slot {
    std::unique_ptr<char[]> data;
    std::size_t len = 0, pos = 0;
    std::optional<Error> error;
  };

  void produce() {
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || filled_ < head_ + slots_.size(); });
        if (stop_) return;
      }
      Slot& s = slots_[filled_ % slots_.size()];
      s.len = s.pos = 0;
      s.error.reset();
      bool end = false;
      while (s.len < chunk_) {
        auto r = inner_->read(s.data.get() + s.len, chunk_ - s.len);
        if (!r) {
          s.error = r.error();
          end = true;
          break;
        }
        if (*r == 0) {
          end = true;
          break;
        }
        s.len += *r;
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++filled_;
      }
      cv_.notify_all();
      if (end && s.len > 0 && !s.error) continue;  // the next slot says "end" (len 0)
      if (end) return;
    }
  }

  std::unique_ptr<ByteSource> inner_;
  std::size_t chunk_ = 0;
  std::vector<Slot> slots_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t filled_ = 0;  // slots filled so far (producer)
  std::size_t head_ = 0;    // slots consumed so far (consumer)
  bool taking_ = false;     // the consumer reads slots_[head_]
  bool stop_ = false;
  std::thread producer_;
};

}  // namespace

std::unique_ptr<ByteSource> read_ahead(std::unique_ptr<ByteSource> inner, std::size_t chunk, std::size_t depth) {
  return std::make_unique<ReadAhead>(std::move(inner), chunk, depth);
}

Result<std::unique_ptr<RandomAccess>> open_random_access(const std::string& path) {
  auto opened = open_user_file(path);
  if (!opened) return opened.error();
  int fd = *opened;
  struct stat st {};
  char head[2];
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || ::pread(fd, head, 2, 0) != 2 || gzip_magic(head, 2)) {
    ::close(fd);
    return std::unique_ptr<RandomAccess>();
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<RandomAccess>(std::make_unique<FileAccess>(fd, path, static_cast<std::uint64_t>(st.st_size)));
}

std::unique_ptr<RandomAccess> memory_random_access(std::string_view data) {
  if (gzip_magic(data.data(), data.size())) return nullptr;
  return std::make_unique<MemoryAccess>(data);
}

std::unique_ptr<ByteSource> range_source(const RandomAccess& ra, std::uint64_t start) {
  return std::make_unique<RangeSource>(ra, start);
}

Result<std::unique_ptr<ByteSource>> open_trace_file(const std::string& path) {
  // A FIFO or device must not block the open: refused before any read.
  auto opened = open_user_file(path);
  if (!opened) return opened.error();
  int fd = *opened;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return make_error(ErrorKind::io, path + ": " + errno_text(errno));
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  Result<std::string> err = std::string();
  auto src = wrap(std::make_unique<FdRaw>(fd, path), path, static_cast<std::uint64_t>(st.st_size), err);
  if (!src) return err.error();
  return src;
}

Result<std::unique_ptr<ByteSource>> open_fd_source(int fd, const std::string& name) {
  Result<std::string> err = std::string();
  auto src = wrap(std::make_unique<FdRaw>(fd, name), name, 0, err);
  if (!src) return err.error();
  return src;
}

std::unique_ptr<ByteSource> memory_source(std::string_view data, const std::string& name) {
  Result<std::string> err = std::string();
  auto src = wrap(std::make_unique<MemRaw>(data), name, data.size(), err);
  return src;  // memory reads cannot fail
}

}  // namespace plumb::trace
