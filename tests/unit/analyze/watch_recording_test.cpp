// Recordings round-trip through both formats; malformed recordings give one-line errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "../../test_util.h"
#include "collect/gpu_sampler.h"
#include "analyze/watch_recording.h"

namespace plumb::watch {
namespace {

WatchFacts sample_facts() {
  WatchFacts w;
  w.collected = true;
  w.interval_s = 0.5;
  w.started_at = "2026-01-02T03:04:05Z";
  w.target_pid = 77;
  w.gpu_source = "nvml";
  for (int i = 0; i < 3; ++i) {
    WatchSample s;
    s.t_s = 0.5 * i;
    if (i > 0) {
      s.cpu_busy_pct = 10.5 * i;
      s.cpu_iowait_pct = 1.25;
      s.core_busy_pct = {99.5, 3};
      s.psi_io_some_pct = 4;
      s.disks.push_back({"nvme0n1", 1e6, 2e6});
      s.nets.push_back({"eth0", 3e6, 4e6});
      s.proc_cpu_pct = 101;
    }
    s.mem_used_bytes = 1000;
    s.mem_total_bytes = 4000;
    s.proc_running = true;
    s.proc_rss_bytes = 123456;
    s.proc_threads = 12;
    WatchGpu g;
    g.bus_id = "0000:3b:00.0";
    g.uuid = "GPU-abc";
    g.name = "NVIDIA H100, 80GB";  // a comma in the name must survive CSV
    g.busy_pct = 50 + i;
    g.mem_used_bytes = 1ull << 34;
    g.mem_total_bytes = 1ull << 36;
    g.temperature_c = 60;
    g.power_w = 300.5;
    g.sm_clock_mhz = 1980;
    g.clock_event_reasons = 0x48;
    g.pcie_rx_bytes_per_s = 1.5e9;
    s.gpus.push_back(g);
    w.samples.push_back(s);
  }
  w.unreadable = {"absent: /proc/pressure/io (No such file or directory)"};
  return w;
}

std::string record(const WatchFacts& w, const std::string& path) {
  auto r = Recorder::open(path, w, "node-1");
  EXPECT_TRUE(r.ok());
  for (const auto& s : w.samples) EXPECT_TRUE((*r)->write(s).ok());
  EXPECT_TRUE((*r)->finish(w).ok());
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::remove(path.c_str());
  return ss.str();
}

TEST(Recording, JsonLinesRoundTrip) {
  WatchFacts w = sample_facts();
  std::string text = record(w, ::testing::TempDir() + "/rec.jsonl");
  EXPECT_TRUE(looks_like_recording(text));
  auto f = facts_from_recording(text, "rec.jsonl");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->meta.hostname, "node-1");
  EXPECT_EQ(f->meta.command, "watch");
  EXPECT_EQ(f->watch, w);
}

TEST(Recording, CsvRoundTrip) {
  WatchFacts w = sample_facts();
  std::string text = record(w, ::testing::TempDir() + "/rec.csv");
  EXPECT_TRUE(looks_like_recording(text));
  EXPECT_NE(text.find("0.5,gpu_busy_pct,0000:3b:00.0,51\n"), std::string::npos);
  auto f = facts_from_recording(text, "rec.csv");
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->meta.hostname, "node-1");
  EXPECT_EQ(f->watch, w);
}

TEST(Recording, CrashCutLastLineIsTolerated) {
  WatchFacts w = sample_facts();
  std::string text = record(w, ::testing::TempDir() + "/cut.jsonl");
  auto pos = text.rfind("{\"plumb_watch_end");
  std::string cut = text.substr(0, pos) + "{\"t_s\": 1.5, \"gpus\": [";
  auto f = facts_from_recording(cut, "cut.jsonl");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->watch.samples.size(), 3u);
}

TEST(Recording, MalformedInputNamesTheLine) {
  auto bad = facts_from_recording("{\"plumb_watch\":1}\nnot json\n{\"t_s\":1}\n", "x.jsonl");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("x.jsonl:2"), std::string::npos);
  auto typed = facts_from_recording("{\"plumb_watch\":1}\n{\"t_s\":\"soon\"}\n{\"t_s\":1}\n", "y.jsonl");
  ASSERT_FALSE(typed.ok());
  auto csv = facts_from_recording("# plumb-watch 1\nt_s,metric,subject,value\n0,warp_speed,host,9\n", "z.csv");
  ASSERT_FALSE(csv.ok());
  EXPECT_NE(csv.error().message.find("unknown metric"), std::string::npos);
  EXPECT_FALSE(looks_like_recording("{\"schema_version\": 1, \"facts\": {}}"));
}

TEST(Recording, OutOfRangeNumbersAreErrorsNotCasts) {
  for (const char* line : {"{\"t_s\":0,\"proc_threads\":1e300}", "{\"t_s\":0,\"mem_used_bytes\":-1.5}",
                           "{\"t_s\":0,\"gpus\":[{\"bus_id\":\"x\",\"clock_event_reasons\":-3}]}"}) {
    auto r = facts_from_recording(std::string("{\"plumb_watch\":1,\"target_pid\":1e300}\n") + line + "\n{}\n", "r.jsonl");
    ASSERT_FALSE(r.ok()) << line;
    EXPECT_NE(r.error().message.find("r.jsonl:2"), std::string::npos) << r.error().message;
  }
  auto csv = facts_from_recording("# plumb-watch 1\n# target_pid,99999999999999\nt_s,metric,subject,value\n0,proc_threads,process,-1e300\n", "c.csv");
  ASSERT_TRUE(csv.ok());
  EXPECT_EQ(csv->watch.target_pid, 0);
  EXPECT_EQ(csv->watch.samples[0].proc_threads, 0);
}

TEST(GpuScript, WrongTypesAreOneLineErrors) {
  EXPECT_FALSE(parse_gpu_script("{\"gpus\":[{\"uuid\":5}]}", "s.json").ok());
  EXPECT_FALSE(parse_gpu_script("{\"gpus\":[{\"busy_pct\":\"high\"}]}", "s.json").ok());
  EXPECT_FALSE(parse_gpu_script("{\"gpus\":[{\"clock_event_reasons\":[-1]}]}", "s.json").ok());
  EXPECT_FALSE(parse_gpu_script("{\"gpus\":[]}", "s.json").ok());
  EXPECT_FALSE(parse_gpu_script("[]", "s.json").ok());
  auto ok = parse_gpu_script("{\"gpus\":[{\"busy_pct\":[1,2]}]}", "s.json");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->front().bus_id, "0000:00:00.0");
}

TEST(Recording, FormatByExtension) {
  EXPECT_EQ(record_format_for("a.csv"), RecordFormat::csv);
  EXPECT_EQ(record_format_for("a.CSV"), RecordFormat::csv);
  EXPECT_EQ(record_format_for("a.jsonl"), RecordFormat::jsonl);
  EXPECT_EQ(record_format_for("noext"), RecordFormat::jsonl);
}

TEST(Recording, UnwritablePathIsAnError) {
  auto r = Recorder::open("/nonexistent-dir/x.jsonl", sample_facts(), "h");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/nonexistent-dir/x.jsonl"), std::string::npos);
}

}  // namespace
}  // namespace plumb::watch
