// storage PATH: sequential and random read throughput and IOPS on a test file of its own, with
// O_DIRECT where the file system supports it (else buffered reads with the cache dropped). The
// file is unlinked right after it is created, so nothing is left behind even when plumb is
// killed, and plumb refuses to touch any existing file.
#include "bench/storage.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <thread>

#include "bench/bench.h"
#include "bench/stats.h"
#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

std::string fs_type_name(std::uint64_t magic) {
  static const std::map<std::uint64_t, const char*> kNames = {
      {0xEF53, "ext4"},        {0x58465342, "xfs"},     {0x01021994, "tmpfs"},  {0x9123683E, "btrfs"},
      {0x6969, "nfs"},         {0x794c7630, "overlay"}, {0x2fc12fc1, "zfs"},    {0x65735546, "fuse"},
      {0x0BD00BD0, "lustre"},  {0x00C36400, "ceph"},    {0xFF534D42, "cifs"},   {0x47504653, "gpfs"},
      {0x5346414F, "afs"},     {0x858458f6, "ramfs"},   {0x73717368, "squashfs"}, {0x4d44, "vfat"},
      {0x5346544e, "ntfs"},    {0xF2F52010, "f2fs"},    {0x61756673, "aufs"},   {0x19830326, "beegfs"}};
  auto it = kNames.find(magic);
  if (it != kNames.end()) return it->second;
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(magic));
  return buf;
}

Result<StoragePlace> storage_place(const std::string& path) {
  if (path.empty()) return make_error(ErrorKind::invalid, "storage: a PATH is required (a directory on the file system to test)");
  struct stat st {};
  StoragePlace p;
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      return make_error(ErrorKind::invalid, "storage: refusing to overwrite existing " +
                                                std::string(S_ISREG(st.st_mode) ? "file " : "non-directory ") + path +
                                                " (give a directory or a path that does not exist)");
    }
    p.dir = path;
    p.is_dir = true;
    return p;
  }
  if (errno != ENOENT) return make_error(error_kind_from_errno(errno), "storage: " + path + ": " + errno_text(errno));
  auto slash = path.find_last_of('/');
  p.dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  p.file = path;
  if (::stat(p.dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return make_error(ErrorKind::invalid, "storage: " + p.dir + " is not an existing directory");
  }
  return p;
}

namespace {

constexpr std::uint64_t kStorageMiB = 1ull << 20;
constexpr std::size_t kAlign = 4096;

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

struct AlignedFree {
  void operator()(char* p) const { std::free(p); }  // NOLINT: aligned_alloc pairs with free
};
using Buffer = std::unique_ptr<char[], AlignedFree>;
Buffer aligned_buffer(std::size_t n) {
  return Buffer(static_cast<char*>(std::aligned_alloc(kAlign, (n + kAlign - 1) / kAlign * kAlign)));
}

// Creates the test file with no name left on disk: O_TMPFILE, else O_EXCL + immediate unlink.
Result<int> create_test_file(const StoragePlace& p, std::string& how) {
  if (p.is_dir) {
#ifdef O_TMPFILE
    int fd = ::open(p.dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) {
      how = "unnamed (O_TMPFILE) in " + p.dir;
      return fd;
    }
    if (errno == EACCES || errno == EPERM || errno == EROFS) {
      return make_error(error_kind_from_errno(errno), "storage: cannot create a file in " + p.dir + ": " + errno_text(errno));
    }
#endif
  }
  std::string name = p.file;
  if (name.empty()) {
    std::random_device rd;
    name = p.dir + "/.plumb-storage-" + std::to_string(::getpid()) + "-" + std::to_string(rd() % 1000000);
  }
  int fd = ::open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return make_error(ErrorKind::invalid, "storage: refusing to overwrite existing file " + name);
    return make_error(error_kind_from_errno(errno), "storage: cannot create " + name + ": " + errno_text(errno));
  }
  ::unlink(name.c_str());
  how = name + " (unlinked after creation)";
  return fd;
}

Result<bool> fill_file(int fd, std::uint64_t size, const BenchOptions& o, Progress& prog) {
  std::size_t chunk = 4 * kStorageMiB;
  auto buf = aligned_buffer(chunk);
  if (!buf) return make_error(ErrorKind::io, "storage: out of memory");
  // Incompressible content: a file system that compresses or deduplicates zeros would read fast.
  std::mt19937_64 rng(0x706c756d62ull);
  auto* w = reinterpret_cast<std::uint64_t*>(buf.get());
  for (std::size_t i = 0; i < chunk / 8; ++i) w[i] = rng();
  std::uint64_t done = 0;
  while (done < size) {
    if (o.stop()) return make_error(ErrorKind::io, "storage: interrupted while writing the test file");
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, size - done));
    w[0] = done;  // every chunk differs
    ssize_t k = ::pwrite(fd, buf.get(), n, static_cast<off_t>(done));
    if (k < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      std::string what = e == ENOSPC ? "file system full" : e == EFBIG ? "file size limit reached" : e == EDQUOT ? "disk quota exceeded" : errno_text(e);
      return make_error(ErrorKind::io, "storage: writing the test file failed after " + human_bytes(done) + ": " + what);
    }
    done += static_cast<std::uint64_t>(k);
    if ((done & (64 * kStorageMiB - 1)) == 0) prog.update("writing test file " + human_bytes(done) + " / " + human_bytes(size));
  }
  if (::fsync(fd) != 0) return make_error(ErrorKind::io, std::string("storage: fsync failed: ") + errno_text(errno));
  return true;
}

std::uint64_t xorshift(std::uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

struct Sample {
  double seconds = 0;
  std::uint64_t bytes = 0;
  std::uint64_t ops = 0;
  int error = 0;
};

// One timed sample: `threads` readers, each on its own region (sequential) or anywhere in the
// file (random), until `duration` passes. Buffered sequential readers stop at their region's end
// so the page cache cannot serve a second lap.
Sample read_sample(int fd, std::uint64_t size, std::size_t block, int threads, bool random, bool direct,
                   double duration, std::uint64_t seed) {
  std::atomic<bool> go{false};
  std::atomic<std::uint64_t> bytes{0}, ops{0};
  std::atomic<int> err{0};
  // Measured concurrency: the benchmark starts and times its own threads, not a task group (core/parallel.h).
  std::vector<std::thread> ts;
  std::uint64_t blocks = std::max<std::uint64_t>(1, size / block);
  std::uint64_t region = std::max<std::uint64_t>(1, blocks / static_cast<std::uint64_t>(threads));
  auto deadline_holder = std::make_shared<std::chrono::steady_clock::time_point>();
  ts.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      auto buf = aligned_buffer(block);
      if (!buf) {
        err = ENOMEM;
        return;
      }
      std::uint64_t rs = seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(t) + 1;
      std::uint64_t first = region * static_cast<std::uint64_t>(t);
      std::uint64_t next = first;
      std::uint64_t my_bytes = 0, my_ops = 0;
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      auto end = *deadline_holder;
      for (;;) {
        // The clock is read every 16 operations: cheap enough not to disturb small blocks.
        if ((my_ops & 15) == 0 && std::chrono::steady_clock::now() >= end) break;
        std::uint64_t b;
        if (random) {
          b = xorshift(rs) % blocks;
        } else {
          if (next >= first + region || next >= blocks) {
            if (!direct) break;
            next = first;
          }
          b = next++;
        }
        ssize_t k = ::pread(fd, buf.get(), block, static_cast<off_t>(b * block));
        if (k < 0) {
          if (errno == EINTR) continue;
          err = errno;
          break;
        }
        if (k == 0) break;
        my_bytes += static_cast<std::uint64_t>(k);
        ++my_ops;
      }
      bytes += my_bytes;
      ops += my_ops;
    });
  }
  auto t0 = std::chrono::steady_clock::now();
  *deadline_holder = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(duration));
  go.store(true, std::memory_order_release);
  for (auto& t : ts) t.join();
  Sample s;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.bytes = bytes;
  s.ops = ops;
  s.error = err;
  return s;
}

Result<BenchResult> run_storage(const Context& /*ctx*/, const BenchOptions& o) {
  auto place = storage_place(o.target);
  if (!place) return place.error();
  std::uint64_t size = o.size_bytes > 0 ? o.size_bytes : (o.quick ? 64 * kStorageMiB : 1024 * kStorageMiB);
  std::size_t rand_block = o.block_bytes > 0 ? static_cast<std::size_t>(o.block_bytes) : 4096;
  std::size_t seq_block = static_cast<std::size_t>(std::max<std::uint64_t>(kStorageMiB, rand_block));
  int threads = o.threads > 0 ? o.threads : 4;
  double duration = o.duration_s > 0 ? o.duration_s : (o.quick ? 0.5 : 3.0);
  int samples = o.samples > 0 ? o.samples : 3;
  if (rand_block % kAlign != 0 || rand_block > 64 * kStorageMiB) {
    return make_error(ErrorKind::invalid, "storage: --block must be a multiple of 4096 bytes and at most 64 MiB");
  }
  if (threads > 1024) return make_error(ErrorKind::invalid, "storage: --threads must be at most 1024");
  size = std::max<std::uint64_t>(size / seq_block * seq_block, seq_block);

  struct statvfs vfs {};
  if (::statvfs(place->dir.c_str(), &vfs) == 0) {
    std::uint64_t avail = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    if (avail < size + size / 20) {
      return make_error(ErrorKind::io, "storage: not enough free space in " + place->dir + ": the test needs " +
                                           human_bytes(size) + ", " + human_bytes(avail) + " available (use --size)");
    }
  }
  BenchResult r;
  struct statfs sfs {};
  std::string fs = ::statfs(place->dir.c_str(), &sfs) == 0 ? fs_type_name(static_cast<std::uint64_t>(sfs.f_type)) : "unknown";
  r.params["path"] = o.target;
  r.params["file_bytes"] = std::to_string(size);
  r.params["seq_block_bytes"] = std::to_string(seq_block);
  r.params["rand_block_bytes"] = std::to_string(rand_block);
  r.params["threads"] = std::to_string(threads);
  r.params["seconds_per_sample"] = fmt_num(duration, 3);
  r.params["samples"] = std::to_string(samples);
  r.notes["filesystem"] = fs;
  r.notes["engine"] = "pread (psync), queue depth 1 per thread";

  Progress prog(o.progress, "storage");
  std::string how;
  auto fdr = create_test_file(*place, how);
  if (!fdr) return fdr.error();
  Fd f{*fdr};
  r.notes["test_file"] = how;
  auto filled = fill_file(f.fd, size, o, prog);
  if (!filled) return filled.error();
  ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);

  // O_DIRECT bypasses the page cache; tmpfs and some network file systems refuse it.
  bool direct = false;
  int flags = ::fcntl(f.fd, F_GETFL);
  if (flags >= 0 && ::fcntl(f.fd, F_SETFL, flags | O_DIRECT) == 0) {
    auto probe = aligned_buffer(kAlign);
    if (probe && ::pread(f.fd, probe.get(), kAlign, 0) == static_cast<ssize_t>(kAlign)) {
      direct = true;
    } else {
      r.notes["direct_io"] = std::string("no (") + errno_text(errno) + " on " + fs + "): buffered reads, cache dropped before each sample";
      ::fcntl(f.fd, F_SETFL, flags);
    }
  } else {
    r.notes["direct_io"] = std::string("no (") + errno_text(errno) + " on " + fs + "): buffered reads, cache dropped before each sample";
  }
  if (direct) r.notes["direct_io"] = "yes (O_DIRECT)";

  auto measure = [&](bool random, std::size_t block, const std::string& label, std::vector<double>& mbps,
                     std::vector<double>& iops) -> Result<bool> {
    for (int i = -std::max(0, o.warmup); i < samples && !o.stop(); ++i) {
      prog.update(label + (i < 0 ? " warm-up" : " " + std::to_string(i + 1) + "/" + std::to_string(samples)));
      if (!direct) ::posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
      // Warm-up like fio's ramp_time: lets the device (or a VM host) settle after the file was written.
      double d = i < 0 ? std::min(duration, 1.0) : duration;
      Sample s = read_sample(f.fd, size, block, threads, random, direct, d, static_cast<std::uint64_t>(i) + 7);
      if (s.error != 0) return make_error(ErrorKind::io, "storage: read failed: " + errno_text(s.error));
      if (i < 0 || s.seconds <= 0) continue;
      mbps.push_back(static_cast<double>(s.bytes) / s.seconds / 1e6);
      iops.push_back(static_cast<double>(s.ops) / s.seconds);
    }
    return true;
  };
  std::vector<double> seq_mb, seq_iops, rnd_mb, rnd_iops;
  auto a = measure(false, seq_block, "sequential read", seq_mb, seq_iops);
  if (!a) return a.error();
  auto b = measure(true, rand_block, "random read", rnd_mb, rnd_iops);
  if (!b) return b.error();
  if (seq_mb.empty() || rnd_iops.empty()) return make_error(ErrorKind::io, "storage: interrupted before any sample");
  r.metrics.push_back(make_metric("storage.seq_read.mb_per_s", "MB/s", true, seq_mb));
  r.metrics.push_back(make_metric("storage.rand_read.iops", "IOPS", true, rnd_iops));
  r.metrics.push_back(make_metric("storage.rand_read.mb_per_s", "MB/s", true, rnd_mb));
  r.derived["direct_io"] = direct ? 1 : 0;
  return r;
}


}  // namespace
void bench_storage_tables(BenchTables& b) {
  b.add_bench({"storage",
                                      {"storage read throughput and IOPS (sequential and random) on PATH's file system",
                                       "PATH 所在文件系统的读吞吐与 IOPS（顺序与随机）"},
                                      {"PATH [--size BYTES] [--block BYTES] [--threads N] [--duration S]",
                                       "PATH [--size 字节] [--block 字节] [--threads N] [--duration 秒]"},
                                      false, true, true, run_storage});
}

}  // namespace plumb
