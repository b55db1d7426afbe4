// dataload DIR: reads the real files of a dataset with 1, 2, 4, ... 2 × allowed CPUs parallel
// readers (optionally decoding JPEGs), reports files/s and MB/s per level, finds the knee and
// recommends DataLoader settings next to the rule of thumb min(2 × cores, bandwidth ÷ file size).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "bench/bench.h"
#include "bench/context.h"
#include "bench/stats.h"
#include "vendor/turbojpeg.h"
#include "core/text.h"

namespace plumb {

namespace {

struct DataFile {
  std::string path;
  std::uint64_t size = 0;
};

Result<std::vector<DataFile>> list_dataset(const std::string& dir, std::size_t max_files) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return make_error(ErrorKind::invalid, "dataload: " + dir + " is not a directory");
  std::vector<DataFile> files;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) return make_error(error_kind_from_errno(ec.value()), "dataload: cannot list " + dir + ": " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (!it->is_regular_file(ec)) continue;
    auto sz = it->file_size(ec);
    if (ec || sz == 0) continue;
    files.push_back({it->path().string(), sz});
    if (files.size() >= max_files) break;
  }
  if (files.empty()) return make_error(ErrorKind::invalid, "dataload: no non-empty regular file under " + dir);
  // A fixed shuffle: directory order often groups files by class or by write time.
  std::shuffle(files.begin(), files.end(), std::mt19937(20240615));
  return files;
}

constexpr std::size_t kReadChunk = 1u << 20;
constexpr std::uint64_t kMaxDecoded = 64u << 20;

void drop_cache(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return;
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

struct LevelSample {
  double seconds = 0;
  std::uint64_t files = 0, bytes = 0, decode_errors = 0, read_errors = 0;
};

LevelSample run_level(const std::vector<DataFile>& files, int readers, double seconds, bool decode, bool cached,
                      std::atomic<std::size_t>& cursor) {
  std::atomic<std::uint64_t> nfiles{0}, nbytes{0}, derr{0}, rerr{0};
  std::atomic<bool> go{false};
  auto end_holder = std::make_shared<std::chrono::steady_clock::time_point>();
  // Measured concurrency: the benchmark starts and times its own threads, not a task group (core/parallel.h).
  std::vector<std::thread> ts;
  ts.reserve(static_cast<std::size_t>(readers));
  for (int r = 0; r < readers; ++r) {
    ts.emplace_back([&] {
      std::vector<unsigned char> buf;
      std::unique_ptr<JpegDecoder> dec;
      if (decode) dec = std::make_unique<JpegDecoder>();
      std::uint64_t f = 0, b = 0, de = 0, re = 0;
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      auto end = *end_holder;
      while (std::chrono::steady_clock::now() < end) {
        const DataFile& df = files[cursor.fetch_add(1) % files.size()];
        // O_NONBLOCK: a file swapped for a FIFO since the listing is refused, not waited on.
        int fd = ::open(df.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        struct stat st {};
        if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
          ::close(fd);
          fd = -1;
        }
        if (fd < 0) {
          ++re;
          continue;
        }
        // Read the whole file like a Dataset's __getitem__ does: into one buffer when it is decoded
        // (a JPEG up to kMaxDecoded), else 1 MiB at a time until the level's end, so a sparse file
        // of any size is read, never allocated.
        const bool whole = dec && static_cast<std::uint64_t>(st.st_size) <= kMaxDecoded;
        if (buf.size() < kReadChunk) buf.resize(kReadChunk);
        std::size_t got = 0;
        std::uint64_t total = 0;
        for (;;) {
          if (whole && got == buf.size()) {
            if (buf.size() > kMaxDecoded) break;  // grew past the limit since fstat
            buf.resize(buf.size() * 2);
          }
          if (!whole) got = 0;
          ssize_t k = ::read(fd, buf.data() + got, buf.size() - got);
          if (k < 0 && errno == EINTR) continue;
          if (k <= 0) {
            if (k < 0) ++re;
            break;
          }
          got += static_cast<std::size_t>(k);
          total += static_cast<std::uint64_t>(k);
          if (!whole && std::chrono::steady_clock::now() >= end) break;  // a huge file ends with the level
        }
        if (!cached) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        ::close(fd);
        if (dec && (!whole || !dec->decode(buf.data(), got))) ++de;
        ++f;
        b += total;
      }
      nfiles += f;
      nbytes += b;
      derr += de;
      rerr += re;
    });
  }
  auto t0 = std::chrono::steady_clock::now();
  *end_holder = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  go.store(true, std::memory_order_release);
  for (auto& t : ts) t.join();
  LevelSample s;
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.files = nfiles;
  s.bytes = nbytes;
  s.decode_errors = derr;
  s.read_errors = rerr;
  return s;
}

Result<BenchResult> run_dataload(const Context& ctx, const BenchOptions& o) {
  if (o.target.empty()) return make_error(ErrorKind::invalid, "dataload: a dataset directory is required");
  if (o.decode) {
    auto ok = JpegDecoder::available();
    if (!ok) return make_error(ErrorKind::absent, "dataload --decode: " + ok.error().message);
  }
  std::size_t max_files = o.max_files > 0 ? static_cast<std::size_t>(o.max_files) : 20000;
  auto listed = list_dataset(o.target, max_files);
  if (!listed) return listed.error();
  const auto& files = *listed;
  double total = 0;
  for (const auto& f : files) total += static_cast<double>(f.size);
  double mean_size = total / static_cast<double>(files.size());

  int cores = usable_cpus(ctx.root);
  std::vector<int> levels = reader_levels(cores);
  if (o.threads > 0) {  // --threads caps the sweep (tests and small machines)
    levels.erase(std::remove_if(levels.begin(), levels.end(), [&](int l) { return l > o.threads; }), levels.end());
    if (levels.empty()) levels.push_back(1);
  }
  double per_level = o.duration_s > 0 ? o.duration_s : (o.quick ? 0.5 : 3.0);
  int samples = o.samples > 0 ? o.samples : 3;
  BenchResult r;
  r.params["dir"] = o.target;
  r.params["files"] = std::to_string(files.size());
  r.params["seconds_per_level"] = fmt_num(per_level, 3);
  r.params["samples_per_level"] = std::to_string(samples);
  r.params["decode"] = o.decode ? "jpeg (libjpeg-turbo)" : "no";
  r.notes["cache"] = o.cached ? "page cache kept (warm reads)" : "each file dropped from the page cache after reading (posix_fadvise DONTNEED)";
  r.notes["method"] = "threads open, read whole file, close; files drawn round-robin from a fixed shuffle";
  Progress prog(o.progress, "dataload");
  if (!o.cached) {
    for (const auto& f : files) drop_cache(f.path);
  }
  std::atomic<std::size_t> cursor{0};
  // Warm-up: the directory entries and the decoder library, not the file data.
  if (o.warmup > 0) run_level(files, 1, std::min(0.2, per_level), o.decode, o.cached, cursor);
  std::vector<double> fps_median;
  std::uint64_t decode_errors = 0, read_errors = 0;
  for (int level : levels) {
    if (o.stop()) break;
    std::vector<double> fps, mbps;
    for (int s = 0; s < samples && !o.stop(); ++s) {
      prog.update(std::to_string(level) + " readers, sample " + std::to_string(s + 1) + "/" + std::to_string(samples));
      LevelSample ls = run_level(files, level, per_level / samples, o.decode, o.cached, cursor);
      decode_errors += ls.decode_errors;
      read_errors += ls.read_errors;
      if (ls.seconds <= 0) continue;
      fps.push_back(static_cast<double>(ls.files) / ls.seconds);
      mbps.push_back(static_cast<double>(ls.bytes) / ls.seconds / 1e6);
    }
    if (fps.empty()) break;
    BenchRow row;
    row.setting["readers"] = std::to_string(level);
    row.values["files_per_s"] = median_of(fps);
    row.values["mb_per_s"] = median_of(mbps);
    row.values["cv_pct"] = cv_pct_of(fps);
    r.rows.push_back(row);
    fps_median.push_back(median_of(fps));
    r.metrics.push_back(make_metric("dataload.files_per_s.r" + std::to_string(level), "files/s", true, fps));
  }
  if (r.rows.empty()) return make_error(ErrorKind::io, "dataload: interrupted before any level");
  std::vector<int> done(levels.begin(), levels.begin() + static_cast<std::ptrdiff_t>(r.rows.size()));
  double best_mbps = 0;
  for (const auto& row : r.rows) best_mbps = std::max(best_mbps, row.values.at("mb_per_s"));
  bool gpu = ctx.root.exists("/proc/driver/nvidia/gpus") || ctx.root.exists("/dev/nvidia0");
  std::optional<double> storage_bw = o.storage_bytes_per_s > 0 ? o.storage_bytes_per_s : best_mbps * 1e6;
  DataloaderAdvice adv = advise_dataloader(done, fps_median, cores, storage_bw, mean_size, gpu);
  Knee k = find_knee(fps_median);
  r.derived["knee_readers"] = done[k.index];
  r.derived["knee_files_per_s"] = fps_median[k.index];
  r.derived["knee_mb_per_s"] = r.rows[k.index].values["mb_per_s"];
  r.derived["still_scaling"] = adv.still_scaling ? 1 : 0;
  r.derived["mean_file_bytes"] = mean_size;
  r.derived["cores"] = cores;
  r.derived["num_workers"] = adv.num_workers;
  r.derived["prefetch_factor"] = adv.prefetch_factor;
  r.derived["pin_memory"] = adv.pin_memory ? 1 : 0;
  r.derived["storage_bytes_per_s"] = *storage_bw;
  if (adv.rule_of_thumb) r.derived["rule_of_thumb_workers"] = *adv.rule_of_thumb;
  r.derived["rule_disagrees"] = adv.disagrees ? 1 : 0;
  r.derived["decode_errors"] = static_cast<double>(decode_errors);
  r.derived["read_errors"] = static_cast<double>(read_errors);
  r.notes["storage_bandwidth"] = o.storage_bytes_per_s > 0 ? "given with --storage-bw" : "best MB/s of this sweep";
  // The metrics a baseline compares: throughput at the knee and with one reader.
  std::vector<double> knee_samples = r.metrics[k.index].values;
  BenchMetric km = make_metric("dataload.files_per_s.knee", "files/s", true, knee_samples);
  r.metrics.insert(r.metrics.begin(), km);
  return r;
}


}  // namespace
void bench_dataload_tables(BenchTables& b) {
  b.add_bench({"dataload",
                                       {"dataset read scaling: files/s and MB/s per number of parallel readers, knee and DataLoader advice",
                                        "数据集读取扩展性：不同并行读取数下的 files/s 与 MB/s、拐点与 DataLoader 建议"},
                                       {"DIR [--decode] [--duration S] [--max-files N] [--cached] [--storage-bw BYTES/S]",
                                        "DIR [--decode] [--duration 秒] [--max-files N] [--cached] [--storage-bw 字节/秒]"},
                                       false, true, false, run_dataload});
}

}  // namespace plumb
