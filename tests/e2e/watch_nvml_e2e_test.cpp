// End-to-end: `plumb watch` through the project's NVML loader against the fake NVML library
// (tests/helpers/fake_nvml, scenarios in tests/fixtures/watch/nvml-scenarios): GPU samples land in
// the recording and the report, an idle GPU next to a pegged core gives the L2 verdict.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "../test_util.h"
#include "core/json.h"
#include "watch_spawn.h"

namespace plumb::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::string watch_fake_lib() {
  std::string path(PLUMB_BUILD_DIR);  // appended, not `+`: GCC 12 warns falsely on that (-Wstringop-overread)
  path += "/tests/helpers/libfake-nvml.so";
  return path;
}
std::string watch_scenario(const std::string& name) { return fixture("watch/nvml-scenarios/" + name + ".json"); }
std::string nvml_tmp(const std::string& name) { return ::testing::TempDir() + "/plumb-watch-nvml-" + name; }

std::vector<json> json_lines(const std::string& path) {
  std::vector<json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

std::map<std::string, json> findings_by_key(const std::string& json_text) {
  std::map<std::string, json> out;
  auto doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded()) return out;
  for (const auto& f : doc["findings"]) out[f["id"].get<std::string>() + " " + f["subject"].get<std::string>()] = f;
  return out;
}

TEST(WatchNvmlE2E, BusyGpusAreSampledIntoTheRecordingAndTheReport) {
  std::string rec = nvml_tmp("busy.jsonl");
  std::remove(rec.c_str());
  auto r = run_plumb({"watch", "--duration", "1500ms", "--interval", "100ms", "--root", fixture("watch/procfs-host"),
                      "--nvml-lib", watch_fake_lib(), "--record", rec, "--format", "json", "--quiet"},
                     {{"PLUMB_FAKE_NVML_SCENARIO", watch_scenario("two-gpus-busy")}});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  auto lines = json_lines(rec);
  ASSERT_GE(lines.size(), 7u) << "header, samples, trailer";
  EXPECT_EQ(lines.front()["gpu_source"], "nvml");
  // The fake serves utilisation one value per read: the recording holds exactly that sequence.
  const std::vector<double> want0 = {91, 97, 99, 95, 93, 98, 96, 94, 97, 99, 95, 96};
  std::size_t samples = 0;
  for (const auto& l : lines) {
    if (!l.contains("gpus")) continue;
    ASSERT_EQ(l["gpus"].size(), 2u) << l.dump();
    const auto& g0 = l["gpus"][0];
    EXPECT_EQ(g0["bus_id"], "0000:1b:00.0");
    EXPECT_EQ(g0["uuid"], "GPU-2f3c6d5e-0000-4000-8000-000000000001");
    EXPECT_EQ(g0["name"], "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(g0["busy_pct"].get<double>(), want0[std::min(samples, want0.size() - 1)]) << "sample " << samples;
    EXPECT_EQ(g0["mem_used_bytes"].get<std::uint64_t>(), 61440ull << 20);
    EXPECT_EQ(g0["mem_total_bytes"].get<std::uint64_t>(), 81559ull << 20);
    EXPECT_EQ(g0["temperature_c"].get<double>(), 61);
    EXPECT_EQ(g0["power_w"].get<double>(), 612);
    EXPECT_EQ(g0["sm_clock_mhz"].get<double>(), 1980);
    EXPECT_EQ(g0["pcie_rx_bytes_per_s"].get<double>(), 2000000.0 * 1024);  // KB/s from NVML
    EXPECT_EQ(l["gpus"][1]["bus_id"], "0000:43:00.0");
    ++samples;
  }
  EXPECT_GE(samples, 5u);

  auto found = findings_by_key(r.out);
  EXPECT_EQ(found["l2.compute.gpu_underutilized gpu 0000:1b:00.0"]["status"], "pass");
  EXPECT_EQ(found["l2.compute.gpu_underutilized gpu 0000:43:00.0"]["status"], "pass");
  EXPECT_EQ(found["l2.watch.throttling gpu 0000:1b:00.0"]["status"], "pass");
  EXPECT_EQ(found["l2.watch.summary host"]["args"]["gpu_source"], "nvml");
  auto doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  EXPECT_EQ(doc["facts"]["watch"]["gpu_source"], "nvml");
  EXPECT_FALSE(doc["facts"]["watch"]["samples"].empty());

  // The recording replays to the same verdict.
  auto again = run_plumb({"report", rec, "--format", "json"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(findings_by_key(again.out)["l2.compute.gpu_underutilized gpu 0000:1b:00.0"]["status"], "pass");
  std::remove(rec.c_str());
}

TEST(WatchNvmlE2E, NvmlInitFailureKeepsWatchingTheHost) {
  auto r = run_plumb({"watch", "--duration", "300ms", "--interval", "100ms", "--root", fixture("watch/procfs-host"),
                      "--nvml-lib", watch_fake_lib(), "--format", "json", "--quiet"},
                     {{"PLUMB_FAKE_NVML_SCENARIO", nvml_tmp("no-such-scenario.json")}});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_NE(doc["facts"]["watch"]["gpu_unavailable"].get<std::string>().find("nvmlInit failed"), std::string::npos);
  EXPECT_EQ(findings_by_key(r.out)["l2.compute.gpu_underutilized host"]["status"], "skip");
}

// A /proc tree whose /proc/stat the test advances after every sample plumb prints: cpu0 runs flat
// out, cpu1-3 idle, so the host is 25 % busy with one pegged core (a data-loader main process).
class PeggedCoreRoot {
 public:
  PeggedCoreRoot() : dir_(nvml_tmp("pegged-root")) {
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/proc");
    fs::copy_file(fixture("watch/procfs-host/proc/meminfo"), dir_ + "/proc/meminfo");
    advance();
  }
  ~PeggedCoreRoot() { fs::remove_all(dir_); }
  PeggedCoreRoot(const PeggedCoreRoot&) = delete;
  PeggedCoreRoot& operator=(const PeggedCoreRoot&) = delete;
  [[nodiscard]] const std::string& dir() const { return dir_; }

  // One more step of 100 ticks per core, written atomically (rename) so a read never sees half.
  void advance() {
    unsigned long long busy = 1000 + 100 * step_, idle = 5000 + 100 * step_;
    std::string text = "cpu  " + std::to_string(busy) + " 0 0 " + std::to_string(3 * idle) + " 0 0 0 0 0 0\n" +
                       "cpu0 " + std::to_string(busy) + " 0 0 5000 0 0 0 0 0 0\n";
    for (int c = 1; c < 4; ++c)
      text += "cpu" + std::to_string(c) + " 1000 0 0 " + std::to_string(idle) + " 0 0 0 0 0 0\n";
    text += "intr 0\nctxt 0\nbtime 1700000000\n";
    {
      std::ofstream out(dir_ + "/proc/stat.tmp", std::ios::trunc);
      out << text;
    }
    fs::rename(dir_ + "/proc/stat.tmp", dir_ + "/proc/stat");
    ++step_;
  }

 private:
  std::string dir_;
  unsigned long long step_ = 0;
};

TEST(WatchNvmlE2E, IdleGpuNextToAPeggedCoreFailsGpuBusyAndPointsAtTheCpuChecks) {
  PeggedCoreRoot root;
  std::string report = nvml_tmp("idle.json");
  std::remove(report.c_str());
  ::setenv("PLUMB_FAKE_NVML_SCENARIO", watch_scenario("idle-gpu-job").c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  Child c({"watch", "--duration", "1500ms", "--interval", "100ms", "--root", root.dir(), "--nvml-lib", watch_fake_lib(),
           "--format", "json", "--out", report});
  ::unsetenv("PLUMB_FAKE_NVML_SCENARIO");  // NOLINT(concurrency-mt-unsafe)
  ASSERT_TRUE(c.started());
  // Lockstep: after sample k is printed, the next tick must see one more step of CPU time.
  for (std::size_t k = 1; c.read_until_count("t=", k, 10s); ++k) root.advance();
  auto rc = c.wait(20s);
  ASSERT_TRUE(rc.has_value());
  EXPECT_EQ(*rc, 1) << c.output();

  auto text = read_user_file(report);
  ASSERT_TRUE(text) << c.output();
  auto found = findings_by_key(*text);
  const json& busy = found["l2.compute.gpu_underutilized gpu 0000:3b:00.0"];
  EXPECT_EQ(busy["status"], "fail") << busy.dump();
  // Average of the scripted 4,2,7,0,5,3,... : a handful of percent, never a made-up zero.
  EXPECT_LT(std::stod(busy["args"]["avg"].get<std::string>()), 10.0) << busy.dump();
  const json& cpu = found["l2.compute.cpu_saturated host"];
  EXPECT_EQ(cpu["status"], "warn") << cpu.dump();
  EXPECT_EQ(cpu["variant"], "pegged_core") << cpu.dump();
  EXPECT_EQ(cpu["args"]["core"], "0") << cpu.dump();
  // The verdict names the L3 checks to run next: CPU and storage areas, through the funnel.
  std::string fix = busy.dump();
  EXPECT_NE(fix.find("plumb check --only"), std::string::npos) << fix;
  EXPECT_NE(fix.find("l3.compute"), std::string::npos) << fix;
  EXPECT_NE(fix.find("l3.storage"), std::string::npos) << fix;
  bool names_compute = false;
  for (const auto& id : busy["check_next"]) names_compute |= id.get<std::string>().rfind("l3.compute.", 0) == 0;
  EXPECT_TRUE(names_compute) << busy.dump();
  std::remove(report.c_str());
}

TEST(WatchNvmlE2E, NvLinkCountersBecomeRatesInTheRecording) {
  std::string rec = nvml_tmp("nvlink.csv");
  std::remove(rec.c_str());
  auto r = run_plumb({"watch", "--duration", "1s", "--interval", "100ms", "--root", fixture("watch/procfs-host"),
                      "--nvml-lib", watch_fake_lib(), "--record", rec, "--format", "json", "--quiet"},
                     {{"PLUMB_FAKE_NVML_SCENARIO", watch_scenario("nvlink-3gpu")}});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  const auto& samples = doc["facts"]["watch"]["samples"];
  ASSERT_GE(samples.size(), 3u);
  // The counters are cumulative: the first sample has nothing to subtract from, never a zero.
  EXPECT_TRUE(samples[0]["gpus"][0]["nvlink_rx_bytes_per_s"].is_null()) << samples[0].dump();
  for (std::size_t i = 1; i < samples.size(); ++i) {
    const auto& g = samples[i]["gpus"];
    ASSERT_EQ(g.size(), 3u);
    ASSERT_TRUE(g[0]["nvlink_rx_bytes_per_s"].is_number()) << g.dump();
    // GPU 1b receives 4 GiB per read, GPU 43 1 GiB, over the same interval: four times the rate.
    double rx0 = g[0]["nvlink_rx_bytes_per_s"], rx1 = g[1]["nvlink_rx_bytes_per_s"];
    double tx0 = g[0]["nvlink_tx_bytes_per_s"];
    EXPECT_GT(rx0, 0);
    EXPECT_NEAR(rx0 / rx1, 4.0, 0.5) << g.dump();
    EXPECT_NEAR(rx0 / tx0, 2.0, 0.01) << g.dump();  // same read, same interval: exact ratio
    EXPECT_TRUE(g[2]["nvlink_rx_bytes_per_s"].is_null()) << "links down: no counters, no rate";
  }
  // The CSV recording carries the same metric and replays it.
  auto text = read_user_file(rec);
  ASSERT_TRUE(text);
  EXPECT_NE(text->find(",gpu_nvlink_rx_bytes_per_s,0000:1b:00.0,"), std::string::npos);
  EXPECT_NE(text->find(",gpu_nvlink_tx_bytes_per_s,0000:43:00.0,"), std::string::npos);
  EXPECT_EQ(text->find(",gpu_nvlink_rx_bytes_per_s,0000:52:00.0,"), std::string::npos);
  auto again = run_plumb({"report", rec, "--format", "json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  auto replayed = json::parse(again.out, nullptr, false);
  ASSERT_FALSE(replayed.is_discarded());
  EXPECT_TRUE(replayed["facts"]["watch"]["samples"][1]["gpus"][0]["nvlink_rx_bytes_per_s"].is_number());
  std::remove(rec.c_str());
}

TEST(WatchNvmlE2E, ExporterServesNvLinkThroughput) {
  ::setenv("PLUMB_FAKE_NVML_SCENARIO", watch_scenario("nvlink-3gpu").c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  Child c({"exporter", "--listen", "127.0.0.1:0", "--interval", "100ms", "--no-check", "--root",
           fixture("watch/procfs-host"), "--nvml-lib", watch_fake_lib()});
  ::unsetenv("PLUMB_FAKE_NVML_SCENARIO");  // NOLINT(concurrency-mt-unsafe)
  ASSERT_TRUE(c.read_until("/metrics", 20s)) << c.output();
  std::smatch m;
  std::string out = c.output();
  ASSERT_TRUE(std::regex_search(out, m, std::regex("http://127\\.0\\.0\\.1:([0-9]+)/metrics"))) << out;
  int port = std::stoi(m[1]);
  const std::string want = "plumb_gpu_nvlink_rx_bytes_per_second{gpu=\"0000:1b:00.0\"";
  std::string body;
  for (int i = 0; i < 200 && body.find(want) == std::string::npos; ++i) {
    body = body_of(http_get(port, "/metrics"));
    if (body.find(want) == std::string::npos) c.read_until("\x01never", 50ms);  // bounded wait, drains output
  }
  EXPECT_NE(body.find(want), std::string::npos) << body;
  EXPECT_NE(body.find("# TYPE plumb_gpu_nvlink_tx_bytes_per_second gauge"), std::string::npos) << body;
  EXPECT_EQ(body.find("plumb_gpu_nvlink_rx_bytes_per_second{gpu=\"0000:52:00.0\""), std::string::npos) << body;
  c.signal(SIGTERM);
  auto rc = c.wait(20s);
  ASSERT_TRUE(rc.has_value());
  EXPECT_EQ(*rc, 0) << c.output();
}

}  // namespace
}  // namespace plumb::test
