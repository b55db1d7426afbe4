// Plain and gzip byte sources for the streaming trace reader.
#include "analyze/trace/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
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
      return make_error(ErrorKind::io, name_ + ": read failed (" + std::strerror(errno) + ")");
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

class GzipSource : public ByteSource {
 public:
  GzipSource(std::unique_ptr<Raw> raw, std::string head, std::string name, std::uint64_t size)
      : raw_(std::move(raw)), name_(std::move(name)), size_(size), in_(1 << 18) {
    std::memcpy(in_.data(), head.data(), head.size());
    zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
    zs_.avail_in = static_cast<uInt>(head.size());
    consumed_ = head.size();
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
      if (zs_.avail_in == 0 && !raw_eof_) {
        auto r = raw_->read(in_.data(), in_.size());
        if (!r) return r.error();
        if (*r == 0) raw_eof_ = true;
        consumed_ += *r;
        zs_.next_in = reinterpret_cast<Bytef*>(in_.data());
        zs_.avail_in = static_cast<uInt>(*r);
      }
      if (zs_.avail_in == 0 && raw_eof_) {
        if (!member_ended_) {
          return make_error(ErrorKind::invalid, name_ + ": gzip stream truncated at compressed byte " +
                                                    std::to_string(consumed_));
        }
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
      if (rc != Z_OK) {
        std::uint64_t at = consumed_ - zs_.avail_in;
        return make_error(ErrorKind::invalid, name_ + ": gzip data error at compressed byte " + std::to_string(at) +
                                                  " (" + (zs_.msg != nullptr ? zs_.msg : "corrupt data") + ")");
      }
    }
    return static_cast<std::size_t>(want - zs_.avail_out);
  }
  [[nodiscard]] bool compressed() const override { return true; }
  [[nodiscard]] std::uint64_t compressed_size() const override { return size_; }

 private:
  std::unique_ptr<Raw> raw_;
  std::string name_;
  std::uint64_t size_;
  std::vector<char> in_;
  z_stream zs_{};
  bool ok_ = false;
  bool raw_eof_ = false;
  bool done_ = false;
  bool member_ended_ = false;
  std::uint64_t consumed_ = 0;
};

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
    return std::make_unique<GzipSource>(std::move(raw), head, name, size);
  }
  return std::make_unique<PlainSource>(std::move(raw), head, size);
}

}  // namespace

Result<std::unique_ptr<ByteSource>> open_trace_file(const std::string& path) {
  // A FIFO or device must not block the open: refused before any read.
  auto opened = open_user_file(path);
  if (!opened) return opened.error();
  int fd = *opened;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return make_error(ErrorKind::io, path + ": " + std::strerror(errno));
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  Result<std::string> err = std::string();
  auto src = wrap(std::make_unique<FdRaw>(fd, path), path, static_cast<std::uint64_t>(st.st_size), err);
  if (!src) return err.error();
  return src;
}

Result<std::unique_ptr<ByteSource>> open_fd_source(int fd, std::string name) {
  Result<std::string> err = std::string();
  auto src = wrap(std::make_unique<FdRaw>(fd, name), name, 0, err);
  if (!src) return err.error();
  return src;
}

std::unique_ptr<ByteSource> memory_source(std::string_view data, std::string name) {
  Result<std::string> err = std::string();
  auto src = wrap(std::make_unique<MemRaw>(data), name, data.size(), err);
  return src;  // memory reads cannot fail
}

}  // namespace plumb::trace
