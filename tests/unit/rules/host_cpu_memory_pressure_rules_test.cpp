// Rules on CPU, memory and pressure (governor, memlock, NUMA balancing, swap, PSI, thread count): a passing and a failing case each, skips with reasons, thresholds from config.
#include <gtest/gtest.h>

#include "core/catalog.h"
#include "core/registry.h"
#include "core/thresholds.h"

namespace plumb {
namespace {

// Runs one rule by id on the facts.
std::vector<Finding> judge_host(const std::string& id, const Facts& f, const Thresholds& th = Thresholds()) {
  Selection sel;
  sel.only = {id};
  return judge(f, th, sel);
}

Finding one_finding(const std::string& id, const Facts& f, const Thresholds& th = Thresholds()) {
  auto v = judge_host(id, f, th);
  EXPECT_EQ(v.size(), 1u) << id;
  return v.empty() ? Finding{} : v.front();
}

Facts with_env(std::map<std::string, std::string> env, int logical = 32) {
  Facts f;
  f.host.process.environ = Fact<std::map<std::string, std::string>>::of(std::move(env), "/proc/self/environ");
  f.host.cpu.logical_cpus = Fact<int>::of(logical, "/sys/devices/system/cpu/online");
  return f;
}

TEST(ThreadRule, FailsWhenThreadsFarExceedCgroupCpus) {
  Facts f = with_env({{"OMP_NUM_THREADS", "32"}, {"MKL_NUM_THREADS", "16"}});
  f.host.cgroup.effective_cpus = Fact<double>::of(2.0, "/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
  Finding x = one_finding("l3.compute.thread_oversubscription", f);
  EXPECT_EQ(x.status, Status::fail);
  EXPECT_EQ(x.args.at("var"), "OMP_NUM_THREADS");
  EXPECT_EQ(x.args.at("ratio"), "16");
  EXPECT_EQ(x.args.at("cpus"), "2");
  ASSERT_GE(x.evidence.size(), 3u);
  EXPECT_EQ(x.evidence.back().source, "/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
  EXPECT_NE(finding_message(x, Lang::en).find("OMP_NUM_THREADS=32"), std::string::npos);
  EXPECT_NE(finding_message(x, Lang::zh).find("超额订阅"), std::string::npos);
  EXPECT_NE(finding_fix(x, Lang::en).find("at most 2"), std::string::npos);
}

TEST(ThreadRule, WarnsJustAboveAndPassesWithin) {
  Facts f = with_env({{"OPENBLAS_NUM_THREADS", "6"}});
  f.host.cgroup.effective_cpus = Fact<double>::of(4.0, "cgroup");
  EXPECT_EQ(one_finding("l3.compute.thread_oversubscription", f).status, Status::warn);  // 1.5x
  Facts ok = with_env({{"OMP_NUM_THREADS", "4"}});
  ok.host.cgroup.effective_cpus = Fact<double>::of(4.0, "cgroup");
  EXPECT_EQ(one_finding("l3.compute.thread_oversubscription", ok).status, Status::pass);
}

TEST(ThreadRule, FallsBackToLogicalCpusAndHandlesNestedLists) {
  Facts f = with_env({{"OMP_NUM_THREADS", "64,2"}}, 32);
  Finding x = one_finding("l3.compute.thread_oversubscription", f);
  EXPECT_EQ(x.status, Status::fail);
  EXPECT_EQ(x.evidence.back().what, "logical CPUs");
}

TEST(ThreadRule, UnsetVariablesUnderAQuotaWarnAboutDefaults) {
  Facts f = with_env({{"PATH", "/usr/bin"}});
  f.host.process.cpus_allowed = Fact<int>::of(64, "/proc/self/status");
  f.host.process.cpus_allowed_list = Fact<std::string>::of("0-63", "/proc/self/status");
  f.host.cgroup.effective_cpus = Fact<double>::of(8.0, "cgroup");
  Finding x = one_finding("l3.compute.thread_oversubscription", f);
  EXPECT_EQ(x.status, Status::fail);
  EXPECT_EQ(x.variant, "default_over");
  Facts free = with_env({{"PATH", "/usr/bin"}});
  Finding y = one_finding("l3.compute.thread_oversubscription", free);
  EXPECT_EQ(y.status, Status::pass);
  EXPECT_EQ(y.variant, "unset");
}

TEST(ThreadRule, SkipsWithoutEnviron) {
  Facts f;
  f.host.process.environ = Fact<std::map<std::string, std::string>>::none("permission denied: /proc/1/environ");
  Finding x = one_finding("l3.compute.thread_oversubscription", f);
  EXPECT_EQ(x.status, Status::skip);
  EXPECT_EQ(x.args.at("reason"), "permission denied: /proc/1/environ");
}

TEST(ThreadRule, ThresholdsComeFromConfig) {
  auto cfg = parse_config("[thresholds]\n\"cpu.thread_oversubscription_fail_ratio\" = 100\n", "test.toml");
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  Facts f = with_env({{"OMP_NUM_THREADS", "32"}});
  f.host.cgroup.effective_cpus = Fact<double>::of(2.0, "cgroup");
  EXPECT_EQ(one_finding("l3.compute.thread_oversubscription", f, cfg->thresholds).status, Status::warn);
}

Facts with_governors(const std::vector<std::string>& govs) {
  Facts f;
  std::vector<CpuGovernor> g;
  for (std::size_t i = 0; i < govs.size(); ++i) g.push_back({static_cast<int>(i), govs[i]});
  f.host.cpu.governors = Fact<std::vector<CpuGovernor>>::of(g, "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor");
  return f;
}

TEST(GovernorRule, PerformancePassesOthersWarn) {
  EXPECT_EQ(one_finding("l3.compute.cpu_governor", with_governors({"performance", "performance"})).status, Status::pass);
  Finding x = one_finding("l3.compute.cpu_governor", with_governors({"performance", "powersave", "schedutil"}));
  EXPECT_EQ(x.status, Status::warn);
  EXPECT_EQ(x.args.at("slow"), "2");
  EXPECT_EQ(x.args.at("governors"), "powersave, schedutil");
  EXPECT_EQ(x.threshold, "== performance");
}

TEST(GovernorRule, SkipsInVms) {
  Facts f;
  f.host.cpu.governors = Fact<std::vector<CpuGovernor>>::none("no cpufreq interface in sysfs");
  Finding x = one_finding("l3.compute.cpu_governor", f);
  EXPECT_EQ(x.status, Status::skip);
  EXPECT_NE(finding_message(x, Lang::en).find("no cpufreq"), std::string::npos);
}

Facts with_numa(int balancing, int nodes) {
  Facts f;
  f.host.cpu.numa_balancing = Fact<int>::of(balancing, "/proc/sys/kernel/numa_balancing");
  std::vector<NumaNode> n;
  for (int i = 0; i < nodes; ++i) n.push_back({i, "", 0});
  f.host.cpu.numa_nodes = Fact<std::vector<NumaNode>>::of(n, "/sys/devices/system/node/node*/cpulist");
  return f;
}

TEST(NumaRule, InfoOnlyWithBalancingAndSeveralNodes) {
  EXPECT_EQ(one_finding("l3.compute.numa_balancing", with_numa(1, 2)).status, Status::info);
  EXPECT_EQ(one_finding("l3.compute.numa_balancing", with_numa(0, 2)).status, Status::pass);
  Finding single = one_finding("l3.compute.numa_balancing", with_numa(1, 1));
  EXPECT_EQ(single.status, Status::pass);
  EXPECT_EQ(single.variant, "single_node");
  Facts missing;
  EXPECT_EQ(one_finding("l3.compute.numa_balancing", missing).status, Status::skip);
}

Facts with_memlock(std::optional<std::uint64_t> soft) {
  Facts f;
  f.host.process.memlock = Fact<ResourceLimit>::of({soft, soft, "bytes"}, "/proc/self/limits");
  return f;
}

TEST(MemlockRule, LowWarnsUnlimitedPasses) {
  Finding low = one_finding("l3.memory.memlock_limit", with_memlock(65536));
  EXPECT_EQ(low.status, Status::warn);
  EXPECT_EQ(low.args.at("soft"), "64 KiB");
  Finding unl = one_finding("l3.memory.memlock_limit", with_memlock(std::nullopt));
  EXPECT_EQ(unl.status, Status::pass);
  EXPECT_EQ(unl.variant, "unlimited");
  EXPECT_EQ(one_finding("l3.memory.memlock_limit", with_memlock(1ull << 30)).status, Status::pass);
  EXPECT_EQ(one_finding("l3.memory.memlock_limit", Facts{}).status, Status::skip);
}

Facts with_swap(std::uint64_t total, std::uint64_t free) {
  Facts f;
  f.host.memory.swap_total_bytes = Fact<std::uint64_t>::of(total, "/proc/meminfo");
  f.host.memory.swap_free_bytes = Fact<std::uint64_t>::of(free, "/proc/meminfo");
  f.host.memory.swappiness = Fact<int>::of(60, "/proc/sys/vm/swappiness");
  return f;
}

TEST(SwapRule, UsedSwapWarnsNoSwapPasses) {
  Finding used = one_finding("l3.memory.swap_active", with_swap(8ull << 30, 7ull << 30));
  EXPECT_EQ(used.status, Status::warn);
  EXPECT_EQ(used.args.at("used"), "1 GiB");
  EXPECT_EQ(used.args.at("swappiness"), "60");
  EXPECT_EQ(one_finding("l3.memory.swap_active", with_swap(0, 0)).status, Status::pass);
  Finding idle = one_finding("l3.memory.swap_active", with_swap(8ull << 30, 8ull << 30));
  EXPECT_EQ(idle.status, Status::info);
  EXPECT_EQ(idle.variant, "configured");
  EXPECT_EQ(one_finding("l3.memory.swap_active", Facts{}).status, Status::skip);
}

Facts with_psi(double some60, std::optional<double> full60) {
  Facts f;
  Pressure p;
  p.some = PressureLine{some60, some60, some60, 1000};
  if (full60) p.full = PressureLine{*full60, *full60, *full60, 500};
  auto fact = Fact<Pressure>::of(p, "/proc/pressure/x");
  f.host.memory.pressure.cpu = f.host.memory.pressure.memory = f.host.memory.pressure.io = fact;
  return f;
}

TEST(PressureRules, LevelsFollowThresholds) {
  EXPECT_EQ(one_finding("l2.memory.pressure", with_psi(1, 0.0)).status, Status::pass);
  EXPECT_EQ(one_finding("l2.memory.pressure", with_psi(8, 0.0)).status, Status::info);
  EXPECT_EQ(one_finding("l2.memory.pressure", with_psi(25, 0.0)).status, Status::warn);
  EXPECT_EQ(one_finding("l2.memory.pressure", with_psi(1, 6.0)).status, Status::warn);  // full stalls alone
  EXPECT_EQ(one_finding("l2.compute.cpu_saturated", with_psi(50, std::nullopt)).status, Status::warn);
  EXPECT_EQ(one_finding("l2.compute.cpu_saturated", with_psi(2, std::nullopt)).status, Status::pass);
  EXPECT_EQ(one_finding("l2.data.io_pressure", with_psi(35, 0.0)).status, Status::warn);
  EXPECT_EQ(one_finding("l2.data.io_pressure", with_psi(0.5, 0.0)).status, Status::pass);
  Facts none;
  none.host.memory.pressure.io = Fact<Pressure>::none("no /proc/pressure/io");
  Finding s = one_finding("l2.data.io_pressure", none);
  EXPECT_EQ(s.status, Status::skip);
  EXPECT_EQ(s.args.at("reason"), "no /proc/pressure/io");
}

TEST(CpuMemoryPressureCatalogue, RowsHaveBothLanguagesFixVerifyAndL2Links) {
  for (const char* id : {"l3.compute.thread_oversubscription", "l3.compute.cpu_governor", "l3.compute.numa_balancing",
                         "l3.memory.memlock_limit", "l3.memory.swap_active", "l2.compute.cpu_saturated",
                         "l2.memory.pressure", "l2.data.io_pressure"}) {
    const CatalogEntry* e = find_entry(id);
    ASSERT_NE(e, nullptr) << id;
    EXPECT_FALSE(e->title.en.empty() || e->title.zh.empty()) << id;
    EXPECT_FALSE(e->fix.en.empty() || e->fix.zh.empty()) << id;
    EXPECT_FALSE(e->verify.empty()) << id;
    for (const auto& [k, m] : e->messages) EXPECT_FALSE(m.en.empty() || m.zh.empty()) << id << " " << k;
    if (e->layer == Layer::L3) {
      EXPECT_FALSE(e->explains.empty()) << id;
    }
  }
  EXPECT_FALSE(l3_causes_of("l2.compute.cpu_saturated").empty());
  EXPECT_FALSE(l3_causes_of("l2.memory.pressure").empty());
}

}  // namespace
}  // namespace plumb
