// `plumb diagnose`'s reader and scan: the real failure logs of tests/fixtures/logs each match
// their signature with the values their thread discusses; healthy real logs (nccl-tests output
// with NCCL_DEBUG=INFO lines, collect_env reports) match nothing; CRLF, colours, rank prefixes,
// gzip, block boundaries and endless lines do not change what is found or where.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "analyze/log_scan.h"
#include "../../test_util.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;

LogScan scan_fixture(const std::string& rel) {
  auto s = scan_log_files({test::fixture("logs/" + rel)});
  EXPECT_TRUE(s.ok()) << rel << ": " << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : LogScan{};
}

const SignatureHits* hit(const LogScan& s, const std::string& id) {
  for (const auto& h : s.hits) {
    if (h.signature == id) return &h;
  }
  return nullptr;
}

std::set<std::string> ids(const LogScan& s) {
  std::set<std::string> out;
  for (const auto& h : s.hits) out.insert(h.signature);
  return out;
}

// Each sample and the signatures its thread's failure is (the confirmed cause is judged later).
const std::vector<std::pair<std::string, std::set<std::string>>> kCases = {
    {"shm-k8s-jupyterhub-64m-dev-shm.log", {"dataloader_shm"}},
    {"shm-docker-64m-no-space-left.log", {"dataloader_shm"}},
    {"oom-gpu-held-by-zombie-process-shared-node.log", {"cuda_oom"}},
    {"oom-with-free-memory-expandable-segments-avoids.log", {"cuda_oom"}},
    {"nccl-watchdog-timeout-broken-venv-multinode.log", {"nccl_watchdog_timeout"}},
    {"nccl-ib-err4-acs-gdr-h100.log", {"nccl_ib_completion_error"}},
    {"gloo-connect-127011-loopback-hostname.log", {"socket_connect_refused"}},
    {"driver-too-old-container-cuda121.log", {"cuda_driver_too_old"}},
    {"no-kernel-image-sm86-cu102-wheel.log", {"no_kernel_image"}},
    {"undefined-symbol-ncclcommregister-conflicting-nccl.log", {"undefined_symbol_nccl"}},
    {"xid79-pcie-surprise-down-gpu-burn.log", {"gpu_xid", "gpu_fault"}},  // the AER lines before it
    {"ecc-uncorrectable-tf-context-init.log", {"ecc_uncorrectable"}},
    {"host-oom-cgroup-colab-dataloader-killed.log", {"dataloader_killed", "kernel_oom_kill"}},
    {"slurm-cgroup-oom-kill-training.log", {"slurm_oom_kill", "exit_killed"}},
    {"ulimit-nofile-too-many-open-files-ddp.log", {"too_many_open_files"}},
    {"ort-setaffinity-failed-cpuset-session-init.log", {"ort_setaffinity_failed"}},
    {"ort-setaffinity-logged-cpuset-embeddings.log", {"ort_setaffinity_failed"}},
    {"nan-loss-illegal-instruction-multi-gpu-rig-hw.log", {"cuda_illegal_access"}},
    // No message at all: a silent hang and numbers that differ (symptoms, not signatures).
    {"nccl-allreduce-silent-spin-acs-amd-root-complex.log", {}},
    {"ort-cuda-output-mismatch-tf32-ampere.log", {}},
    // Minimal samples in the real message formats (tests/fixtures/SOURCES.md).
    {"minimal/cudnn-version-incompatibility.log", {"cudnn_version_mismatch"}},
    {"minimal/fallen-off-bus-no-xid.log", {"gpu_fallen_off_bus"}},
    {"minimal/nan-loss.log", {"nan_loss"}},
    {"minimal/nccl-ib-err12-roce-gid.log", {"nccl_ib_completion_error"}},
    {"minimal/ancdata-zero-items.log", {"too_many_open_files"}},
    {"minimal/torchrun-exitcode-9.log", {"exit_killed"}},
    {"minimal/insufficient-driver.log", {"cuda_driver_too_old"}},
    {"minimal/watchdog-seqnum1-first-collective.log", {"nccl_watchdog_timeout"}},
    {"minimal/gpu-busy-exclusive-process.log", {"gpu_busy"}},
    {"minimal/peer-access-unsupported.log", {"gpu_peer_access"}},
    {"minimal/cublas-not-initialized.log", {"cuda_library_status"}},
    {"minimal/k8s-pod-evicted-memory.log", {"k8s_evicted"}},
    {"minimal/dataloader-worker-exited.log", {"dataloader_exited"}},
};

TEST(LogScan, EachRealSampleMatchesExactlyItsSignatures) {
  for (const auto& [file, want] : kCases) EXPECT_EQ(ids(scan_fixture(file)), want) << file;
}

TEST(LogScan, EverySignatureHasASample) {
  std::set<std::string> seen;
  for (const auto& [file, want] : kCases) seen.insert(want.begin(), want.end());
  // The real-log corpus (tests/fixtures/logs/corpus, diagnosed end to end by its own test).
  for (const auto& e : fs::directory_iterator(test::fixture("logs/corpus"))) {
    if (e.path().extension() != ".log") continue;
    auto s = scan_log_files({e.path().string()});
    ASSERT_TRUE(s.ok()) << e.path();
    for (const auto& h : s->hits) seen.insert(h.signature);
  }
  // NCCL's set-up lines (a progress row, read to tell a hang from a log cut short) are in every
  // healthy nccl-tests log.
  for (const auto& e : fs::directory_iterator(test::fixture("comm/nccl-tests"))) {
    auto s = scan_log_files({e.path().string()});
    ASSERT_TRUE(s.ok()) << e.path();
    for (const auto& h : s->hits) seen.insert(h.signature);
  }
  for (const auto& s : log_signatures()) EXPECT_TRUE(seen.count(s.id)) << s.id << " has no real sample in tests/fixtures/logs";
}

TEST(LogScan, HealthyRealLogsRaiseNoAlarm) {
  int files = 0;
  for (const char* dir : {"comm/nccl-tests", "logs/healthy"}) {
    for (const auto& e : fs::directory_iterator(test::fixture(dir))) {
      auto s = scan_log_files({e.path().string()});
      ASSERT_TRUE(s.ok()) << e.path();
      // Progress rows (NCCL finished its set-up) are what a healthy log shows; anything else is an alarm.
      std::erase_if(s->hits, [](const SignatureHits& h) {
        const auto& t = log_signatures();
        auto it = std::find_if(t.begin(), t.end(), [&](const LogSignature& x) { return x.id == h.signature; });
        return it != t.end() && it->kind == SignatureKind::progress;
      });
      EXPECT_TRUE(s->hits.empty()) << e.path() << " matched " << s->hits.front().signature << ": "
                                   << s->hits.front().samples.front().text;
      EXPECT_GT(s->lines, 5u) << e.path();
      ++files;
    }
  }
  EXPECT_GE(files, 10);
}

// The values a signature read from a sample, compared with what its thread shows.
void expect_values(const SignatureHits* h, const std::map<std::string, std::string>& want) {
  ASSERT_NE(h, nullptr);
  for (const auto& [k, v] : want) {
    auto it = h->values.find(k);
    ASSERT_NE(it, h->values.end()) << h->signature << " has no " << k;
    EXPECT_EQ(it->second, v) << h->signature << " " << k;
  }
}

TEST(LogScan, OomValuesOldAndNewFormat) {
  auto old = scan_fixture("oom-gpu-held-by-zombie-process-shared-node.log");
  expect_values(hit(old, "cuda_oom"), {{"request", "216.00 MiB"}, {"capacity", "7.92 GiB"}, {"free", "24.56 MiB"},
                                       {"reserved", "86.00 MiB"}, {"allocated", "69.17 MiB"}, {"gpu", "0"}});
  auto now = scan_fixture("oom-with-free-memory-expandable-segments-avoids.log");
  const auto* h = hit(now, "cuda_oom");
  ASSERT_NE(h, nullptr);
  expect_values(h, {{"request", "20.00 MiB"}, {"capacity", "4.00 GiB"}, {"free", "2.35 GiB"}, {"unallocated", "24.85 MiB"}});
  EXPECT_EQ(h->count, 1u) << "three patterns on one line count once";
}

TEST(LogScan, WatchdogValuesAndWhereTheyWereRead) {
  auto s = scan_fixture("nccl-watchdog-timeout-broken-venv-multinode.log");
  const auto* h = hit(s, "nccl_watchdog_timeout");
  ASSERT_NE(h, nullptr);
  expect_values(h, {{"seq", "52"}, {"op", "ALLREDUCE"}, {"timeout_ms", "240000"}, {"ran_ms", "240077"}, {"rank", "11"}});
  EXPECT_TRUE(h->value_at.at("seq").ends_with("nccl-watchdog-timeout-broken-venv-multinode.log:3"));
  ASSERT_FALSE(h->samples.empty());
  EXPECT_EQ(h->samples[0].line, 1u) << "\"Some NCCL operations have failed or timed out\" opens the watchdog's report";
  EXPECT_TRUE(h->samples[0].text.starts_with("[E617 15:17:35")) << "the '11: [rank11]:' prefixes are stripped: " << h->samples[0].text;
  auto first = scan_fixture("minimal/watchdog-seqnum1-first-collective.log");
  h = hit(first, "nccl_watchdog_timeout");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->values.at("seq"), "1");
  EXPECT_EQ(h->values.at("last_completed"), "-1");
  EXPECT_EQ(h->count, 2u);
}

TEST(LogScan, OtherValues) {
  // Each sample, its signature, the values its thread discusses and how many lines match.
  struct Case {
    const char* file;
    const char* signature;
    std::map<std::string, std::string> values;
    std::uint64_t count;
  };
  const std::vector<Case> cases = {
      {"nccl-ib-err4-acs-gdr-h100.log", "nccl_ib_completion_error", {{"error", "4"}, {"vendor_err", "81"}}, 2},
      {"gloo-connect-127011-loopback-hostname.log", "socket_connect_refused", {{"address", "127.0.1.1"}, {"port", "3210"}}, 1},
      {"driver-too-old-container-cuda121.log", "cuda_driver_too_old", {{"found_version", "11000"}}, 1},
      {"xid79-pcie-surprise-down-gpu-burn.log", "gpu_xid", {{"xid", "79"}, {"pci", "0000:02:00"}}, 1},
      {"no-kernel-image-sm86-cu102-wheel.log", "no_kernel_image",
       {{"capability", "sm_86"}, {"supported", "sm_37 sm_50 sm_60 sm_70"}}, 3},
      {"undefined-symbol-ncclcommregister-conflicting-nccl.log", "undefined_symbol_nccl", {{"symbol", "ncclCommRegister"}}, 1},
      {"host-oom-cgroup-colab-dataloader-killed.log", "kernel_oom_kill", {{"process", "onmt_train"}, {"anon_rss", "6538204kB"}}, 1},
      {"minimal/nan-loss.log", "nan_loss", {{"value", "nan"}}, 2},
      // Newer ONNX Runtime logs one line per thread it could not pin (the first CPU outside the cpuset).
      {"ort-setaffinity-logged-cpuset-embeddings.log", "ort_setaffinity_failed", {{"mask", "30"}, {"errno", "22"}}, 3},
  };
  for (const auto& c : cases) {
    auto s = scan_fixture(c.file);
    const auto* h = hit(s, c.signature);
    ASSERT_NE(h, nullptr) << c.file;
    expect_values(h, c.values);
    EXPECT_EQ(h->count, c.count) << c.file;
  }
  auto xid = scan_fixture("xid79-pcie-surprise-down-gpu-burn.log");
  EXPECT_EQ(hit(xid, "gpu_xid")->samples.at(0).line, 13u);
}

TEST(LogScan, CrlfColoursPrefixesAndTimestampsAreTolerated) {
  std::string text =
      "2024-06-17T15:17:35.519Z INFO start\r\n"
      "\x1b[31m[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
      "capacity of 79.15 GiB of which 1.02 GiB is free.\x1b[0m\r\n"
      "3: [74785.660366] NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, DBE\r\n";
  auto s = scan_log_text(text, "job.log");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(ids(*s), (std::set<std::string>{"cuda_oom", "gpu_xid"}));
  const auto* oom = hit(*s, "cuda_oom");
  ASSERT_NE(oom, nullptr);
  EXPECT_EQ(oom->samples.at(0).line, 2u);
  EXPECT_TRUE(oom->samples.at(0).text.starts_with("torch.OutOfMemoryError")) << oom->samples.at(0).text;
  EXPECT_EQ(oom->samples.at(0).text.find('\r'), std::string::npos);
  EXPECT_EQ(oom->values.at("request"), "2.00 GiB");
  EXPECT_EQ(oom->values.at("gpu"), "3");
  const auto* xid = hit(*s, "gpu_xid");
  EXPECT_EQ(xid->samples.at(0).line, 3u);
  EXPECT_TRUE(xid->samples.at(0).text.starts_with("NVRM: Xid")) << xid->samples.at(0).text;
  EXPECT_EQ(s->lines, 3u);
}

TEST(LogScan, LineNumbersHoldAcrossBlocksAndForAnEndlessLine) {
  std::string noise;
  const std::string filler = "x:1:2 [0] NCCL INFO Channel 00/32 :    0   1   2   3   4   5   6   7\n";
  while (noise.size() < 3 * LogReader::kBlock) noise += filler;
  std::uint64_t noise_lines = noise.size() / filler.size();
  std::string text = noise + "RuntimeError: unable to write to file </torch_1_2>\n" + noise +
                     std::string(LogReader::kMaxLine + 100, 'a') + " Too many open files\n" + "OSError: [Errno 24] Too many open files";
  auto s = scan_log_text(text, "big.log");
  ASSERT_TRUE(s.ok());
  const auto* shm = hit(*s, "dataloader_shm");
  ASSERT_NE(shm, nullptr);
  EXPECT_EQ(shm->samples.at(0).line, noise_lines + 1);
  const auto* files = hit(*s, "too_many_open_files");
  ASSERT_NE(files, nullptr);
  // The endless line is cut at kMaxLine: its tail (with the words) becomes the next line.
  EXPECT_EQ(files->count, 2u);
  EXPECT_EQ(files->samples.back().line, 2 * noise_lines + 3);
  EXPECT_LE(files->samples.at(0).text.size(), kMaxText);
}

TEST(LogScan, GzipAndManyFilesInOnePass) {
  const std::string path = ::testing::TempDir() + "/plumb_log_scan_test.log.gz";
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  std::string body = "hello\nRuntimeError: CUDA error: no kernel image is available for execution on the device\n";
  ASSERT_EQ(gzwrite(gz, body.data(), static_cast<unsigned>(body.size())), static_cast<int>(body.size()));
  gzclose(gz);
  auto s = scan_log_files({path, test::fixture("logs/ecc-uncorrectable-tf-context-init.log")});
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(ids(*s), (std::set<std::string>{"no_kernel_image", "ecc_uncorrectable"}));
  EXPECT_EQ(hit(*s, "no_kernel_image")->samples.at(0).file, path);
  EXPECT_EQ(hit(*s, "no_kernel_image")->samples.at(0).line, 2u);
  EXPECT_EQ(s->files.size(), 2u);
  fs::remove(path);
}

TEST(LogScan, BadInputIsAnErrorNotACrash) {
  EXPECT_FALSE(scan_log_files({"/nonexistent/job.log"}).ok());
  EXPECT_FALSE(scan_log_files({test::fixture("logs")}).ok());  // a directory
  const std::string path = ::testing::TempDir() + "/plumb_log_scan_truncated.gz";
  std::string gz("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
  std::ofstream(path, std::ios::binary) << gz << "garbage";
  auto s = scan_log_files({path});
  EXPECT_FALSE(s.ok());
  fs::remove(path);
  auto empty = scan_log_text("", "empty.log");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->hits.empty());
  EXPECT_EQ(empty->lines, 0u);
}

TEST(LogReader, CleanLineAndStripAnsi) {
  EXPECT_EQ(clean_line("[rank3]: hello\r\n"), "hello");
  EXPECT_EQ(clean_line("11: [rank11]:[E617 x] y"), "[E617 x] y");
  EXPECT_EQ(clean_line("[1,0]<stdout>: NCCL WARN"), "NCCL WARN");
  EXPECT_EQ(clean_line("[74785.660366] NVRM: Xid"), "NVRM: Xid");
  EXPECT_EQ(clean_line("2024-06-17 15:17:35,519 ERROR boom"), "ERROR boom");
  EXPECT_EQ(clean_line("[E617 15:17:35] kept"), "[E617 15:17:35] kept");
  EXPECT_EQ(clean_line("123456: not a rank"), "123456: not a rank");
  EXPECT_EQ(strip_ansi("\x1b[1;31mred\x1b[0m \x1b]0;title\a ok\n\x1b"), "red  ok\n");
  EXPECT_TRUE(has_escape("a\x1b[0m"));
  EXPECT_FALSE(has_escape("plain"));
}

}  // namespace
}  // namespace plumb
