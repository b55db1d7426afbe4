// A rule's `needs` names every collector whose facts it reads. `plumb check` judges the rules that
// name no slow collector (one registered with a deadline above the run's: the framework probe,
// the quick benchmarks) while that collector still runs, on facts without its results; a rule
// that read such facts without naming the collector would judge something else there than in
// `plumb report`. Checked on every fixture machine, with the facts as collected and with the
// framework probe's environment carrying what the job's environment lacks.
#include <gtest/gtest.h>

#include <set>

#include "core/registry.h"
#include "../../test_util.h"

namespace plumb {
namespace {

// Each slow collector and what it writes: these areas are what a rule judged early does not see.
void forget_slow_collectors(Facts& f) {
  f.framework = Facts{}.framework;
  f.bench = Facts{}.bench;
}
const std::set<std::string> kSlow = {"collect.python", "collect.bench_quick"};

Facts collect_host(const std::string& host) {
  Context ctx;
  ctx.root = HostRoot(test::host_fixture(host));
  ctx.python = test::fixture("framework/fake_python/gpu-h100");
  Facts f;
  collect(ctx, Selection{}, f);
  return f;
}

// The job's environment unreadable; the probe's (its interpreter's) names NCCL and device
// settings that most rules act on.
Facts with_probe_environment_only(Facts f) {
  f.host.process.environ = Fact<std::map<std::string, std::string>>::none("not readable (test)", "/proc/4242/environ");
  f.framework.env = Fact<std::map<std::string, std::string>>::of(
      {{"NCCL_SOCKET_IFNAME", "eth9"},
       {"NCCL_IB_DISABLE", "1"},
       {"NCCL_P2P_DISABLE", "1"},
       {"NCCL_DEBUG", "INFO"},
       {"NCCL_IB_HCA", "mlx5_9"},
       {"NCCL_ALGO", "bogus"},
       {"NCCL_TOPO_FILE", "/nonexistent/topo.xml"},
       {"NCCL_IB_GID_INDEX", "7"},
       {"CUDA_VISIBLE_DEVICES", "0,5"},
       {"CUDA_LAUNCH_BLOCKING", "1"},
       {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}},
      "python probe (test)");
  return f;
}

TEST(RuleNeeds, TheSlowCollectorsAreTheOnesThisTestForgets) {
  auto ids = slow_collector_ids(Context{});
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()), kSlow) << "a new slow collector: add what it writes to forget_slow_collectors";
  EXPECT_EQ(slow_collector_areas(Context{}), (std::set<std::string>{"framework", "bench"}))
      << "the slow collectors write other areas: reset them in forget_slow_collectors";
}

TEST(RuleNeeds, ARuleThatNamesNoSlowCollectorReadsNoneOfItsFacts) {
  for (const char* host : {"healthy", "dgx-8gpu-2socket", "noib-2gpu-eth", "docker-v1", "pcie-4gpu-2socket", "oom-xid",
                           "nvme-misconfigured"}) {
    Facts collected = collect_host(host);
    ASSERT_TRUE(collected.framework.collected) << host;
    for (const Facts& full : {collected, with_probe_environment_only(collected)}) {
      Facts early = full;
      forget_slow_collectors(early);
      for (const auto& r : rules()) {
        if (!r.judge || !r.source.empty()) continue;
        bool names_slow = std::any_of(r.needs.begin(), r.needs.end(), [](const auto& n) { return kSlow.count(n) > 0; });
        if (names_slow) continue;
        EXPECT_EQ(r.judge(full, Thresholds{}), r.judge(early, Thresholds{}))
            << r.id << " on " << host << " reads a slow collector's facts: name it in the rule's needs";
      }
    }
  }
}

TEST(RuleNeeds, JudgingInTwoStepsGivesWhatJudgingAtOnceGives) {
  const std::vector<std::string> slow(kSlow.begin(), kSlow.end());
  for (const char* host : {"healthy", "dgx-8gpu-2socket", "oom-xid"}) {
    Facts full = collect_host(host);
    Facts early = full;
    forget_slow_collectors(early);
    for (const Selection& sel : {Selection{}, Selection{{"l3.comm", "l3.framework"}, {}}, Selection{{}, {"l3.host"}}}) {
      SplitJudgement split;
      split.judge_early(early, Thresholds{}, sel, slow);
      std::vector<Finding> early_found = split.early();
      EXPECT_FALSE(early_found.empty()) << host;
      auto all = split.judge_rest(full, Thresholds{}, sel);
      EXPECT_EQ(all, judge(full, Thresholds{}, sel)) << host;
      ASSERT_EQ(split.early_positions().size(), early_found.size());
      for (std::size_t k = 0; k < early_found.size(); ++k) EXPECT_EQ(all[split.early_positions()[k]], early_found[k]);
    }
    // Without the early step, the second one judges every rule.
    SplitJudgement none;
    EXPECT_EQ(none.judge_rest(full, Thresholds{}, Selection{}), judge(full, Thresholds{}, Selection{}));
    EXPECT_TRUE(none.early_positions().empty());
  }
}

}  // namespace
}  // namespace plumb
