// Parsers of outside data in the bench area, on real samples: /proc/cpuinfo, /proc/loadavg,
// cpu lists, the step script's output and the baseline exchange file.
#include <gtest/gtest.h>

#include "bench/context.h"
#include "bench/step.h"
#include "collect/cpu.h"
#include "bench/storage.h"
#include "core/text.h"
#include "store/baseline_file.h"
#include "../../test_util.h"

namespace plumb {
namespace {

TEST(BenchContextParsers, RealCpuinfoAndLoadavg) {
  // prometheus/procfs fixture, an i7-8650U laptop.
  auto m = parse_cpuinfo(test::read_fixture("bench/proc-cpuinfo.txt")).model;
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(*m, "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz");
  auto l = parse_loadavg(test::read_fixture("bench/proc-loadavg.txt"));
  ASSERT_TRUE(l.has_value());
  EXPECT_DOUBLE_EQ(*l, 0.02);
  EXPECT_FALSE(parse_loadavg("").has_value());
  EXPECT_FALSE(parse_cpuinfo("garbage\n:::").model.has_value());
}

TEST(BenchStepParser, ReadsTheLastResultLineAfterNoise) {
  std::string out =
      "Warning: something from torch\n"
      "{\"not\": \"ours\"}\n"
      "{\"plumb_step\": 1, \"torch\": \"1.13.1\", \"cuda\": null, \"device\": \"cpu\", \"image\": 64, \"batch\": 16, \"threads\": 2,"
      " \"python\": \"3.11.2\", \"results\": [{\"num_workers\": 0, \"pin_memory\": false, \"prefetch_factor\": 0, \"step_s\": [0.1, 0.2]},"
      " {\"num_workers\": 2, \"pin_memory\": true, \"prefetch_factor\": 4, \"warmup_steps\": 9, \"steps_per_sample\": 2,"
      " \"step_s\": [0.05]}]}\n";
  auto r = parse_step_output(out);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->torch, "1.13.1");
  EXPECT_EQ(r->cuda, "");
  ASSERT_EQ(r->results.size(), 2u);
  EXPECT_EQ(r->results[1].num_workers, 2);
  EXPECT_TRUE(r->results[1].pin_memory);
  EXPECT_EQ(r->results[0].step_s.size(), 2u);
  // Older scripts did not say how they sampled: one step per sample, warm-up unknown.
  EXPECT_EQ(r->results[0].warmup_steps, 0);
  EXPECT_EQ(r->results[0].steps_per_sample, 1);
  EXPECT_EQ(r->results[1].warmup_steps, 9);
  EXPECT_EQ(r->results[1].steps_per_sample, 2);
}

TEST(BenchStepParser, ErrorsNameTheProblem) {
  auto imp = parse_step_output("{\"plumb_step\": 1, \"error\": \"import failed: No module named 'torch'\"}\n");
  ASSERT_FALSE(imp.ok());
  EXPECT_EQ(imp.error().kind, ErrorKind::unsupported);
  EXPECT_NE(imp.error().message.find("torch"), std::string::npos);
  EXPECT_FALSE(parse_step_output("").ok());
  EXPECT_FALSE(parse_step_output("{\"plumb_step\": 1, \"results\": []}").ok());
  EXPECT_FALSE(parse_step_output("{\"plumb_step\": 1, \"results\": [{\"num_workers\": 1e300, \"step_s\": [-1]}]}").ok());
  EXPECT_FALSE(parse_step_output("{\"plumb_step\": 1, \"results\": [7]}").ok());
}

TEST(BaselineFile, RealExportParsesAndRoundTrips) {
  auto f = parse_baseline_file(test::read_fixture("bench/baseline-v1.json"));
  ASSERT_TRUE(f.ok()) << f.error().message;
  ASSERT_EQ(f->metrics.size(), 4u);
  EXPECT_EQ(f->metrics[0].name, "membw.copy.1t");
  EXPECT_GT(f->metrics[0].median, 0);
  EXPECT_EQ(f->environment.at("numa.nodes"), "1");
  auto again = parse_baseline_file(baseline_file_json(*f));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->metrics, f->metrics);
  EXPECT_EQ(again->environment, f->environment);
}

TEST(BaselineFile, RejectsWhatIsNotABaseline) {
  EXPECT_FALSE(parse_baseline_file("").ok());
  EXPECT_FALSE(parse_baseline_file("[1,2]").ok());
  EXPECT_FALSE(parse_baseline_file("{\"plumb_baseline\": 2, \"metrics\": []}").ok());
  EXPECT_FALSE(parse_baseline_file("{\"plumb_baseline\": 1}").ok());
  auto noname = parse_baseline_file("{\"plumb_baseline\": 1, \"metrics\": [{\"median\": 1}]}");
  ASSERT_FALSE(noname.ok());
  EXPECT_NE(noname.error().message.find("metric 1"), std::string::npos);
  EXPECT_FALSE(parse_baseline_file("{\"plumb_baseline\": 1, \"metrics\": [{\"name\": \"x\"}]}").ok());
  auto lower = parse_baseline_file("{\"plumb_baseline\": 1, \"metrics\": [{\"name\": \"s\", \"median\": 0.2, \"higher_is_better\": false}]}");
  ASSERT_TRUE(lower.ok());
  EXPECT_FALSE(lower->metrics[0].higher_is_better);
}

TEST(BenchStorage, PlaceRefusesExistingFilesAndNamesFileSystems) {
  std::string dir = ::testing::TempDir();
  auto d = storage_place(dir);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->is_dir);
  auto f = storage_place(test::fixture("bench/proc-loadavg.txt"));
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message.find("refusing to overwrite"), std::string::npos);
  auto fresh = storage_place(dir + "/plumb-new-file-that-does-not-exist");
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(fresh->is_dir);
  EXPECT_FALSE(storage_place("/nonexistent-plumb-dir/x").ok());
  EXPECT_FALSE(storage_place("").ok());
  EXPECT_EQ(fs_type_name(0xEF53), "ext4");
  EXPECT_EQ(fs_type_name(0x01021994), "tmpfs");
  EXPECT_EQ(fs_type_name(0x1234), "0x1234");
}

}  // namespace
}  // namespace plumb
