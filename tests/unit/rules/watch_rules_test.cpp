// L2 watch rules on scripted series: a passing and a failing case per rule, plus skips.
#include <gtest/gtest.h>

#include "core/catalog.h"
#include "core/registry.h"
#include "collect/gpu_sampler.h"

namespace plumb {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// n samples every 0.5 s; GPUs from a scripted sampler (the same path `plumb watch` takes).
Facts scripted(std::vector<watch::GpuScript> gpus, std::size_t n, int pid = 0) {
  Facts f;
  f.watch.collected = true;
  f.watch.interval_s = 0.5;
  f.watch.target_pid = pid;
  f.watch.gpu_source = "script:test";
  auto sampler = watch::make_scripted_sampler(std::move(gpus), "script:test");
  for (std::size_t i = 0; i < n; ++i) {
    WatchSample s;
    s.t_s = 0.5 * static_cast<double>(i);
    s.gpus = sampler->sample();
    if (pid > 0) s.proc_running = true;
    f.watch.samples.push_back(std::move(s));
  }
  return f;
}

watch::GpuScript gpu(const std::string& bus, std::vector<double> busy, std::vector<double> mem_gib = {40}) {
  watch::GpuScript g;
  g.bus_id = bus;
  g.uuid = "GPU-" + bus;
  g.mem_total_bytes = static_cast<std::uint64_t>(80 * kGiB);
  g.busy_pct = std::move(busy);
  for (double m : mem_gib) g.mem_used_bytes.push_back(m * kGiB);
  return g;
}

// The watch recording's rules only (`l2.watch` still names them through the old ids), findings of `id`.
std::vector<Finding> judge_watch(const Facts& f, const std::string& id) {
  Selection sel;
  sel.only = {"l2.watch"};
  std::vector<Finding> out;
  for (auto& x : judge(f, Thresholds{}, sel)) {
    if (x.id == id) out.push_back(std::move(x));
  }
  return out;
}

Status watch_status_of(const Facts& f, const std::string& id, const std::string& subject = "") {
  for (const auto& x : judge_watch(f, id)) {
    if (subject.empty() || x.subject == subject) return x.status;
  }
  ADD_FAILURE() << "no finding " << id << " " << subject;
  return Status::info;
}

TEST(WatchRules, NothingWithoutAWatch) {
  Facts f;
  Selection sel;
  sel.only = {"l2.watch"};
  EXPECT_TRUE(judge(f, Thresholds{}, sel).empty());
}

TEST(WatchRules, EveryRuleHasACatalogueRowInBothLanguages) {
  for (const char* id : {"l2.watch.summary", "l2.compute.gpu_underutilized", "l2.watch.vram_sawtooth", "l2.compute.cpu_saturated",
                         "l2.watch.io_bound", "l2.watch.pcie_imbalance", "l2.watch.throttling"}) {
    const CatalogEntry* e = find_entry(id);
    ASSERT_NE(e, nullptr) << id;
    EXPECT_EQ(e->layer, Layer::L2);
    for (const auto& [k, t] : e->messages) {
      EXPECT_FALSE(t.en.empty()) << id << " " << k;
      EXPECT_FALSE(t.zh.empty()) << id << " " << k;
    }
  }
}

TEST(GpuBusy, FailWarnPassAndStalls) {
  EXPECT_EQ(watch_status_of(scripted({gpu("0000:01:00.0", {10, 20, 15})}, 20), "l2.compute.gpu_underutilized"), Status::fail);
  EXPECT_EQ(watch_status_of(scripted({gpu("0000:01:00.0", {60, 70})}, 20), "l2.compute.gpu_underutilized"), Status::warn);
  EXPECT_EQ(watch_status_of(scripted({gpu("0000:01:00.0", {95, 97})}, 20), "l2.compute.gpu_underutilized"), Status::pass);
  // Average at 85 % but more than one sample in ten at zero: periodic stalls.
  std::vector<double> busy(17, 100.0);
  busy.insert(busy.end(), {0, 0, 0});
  auto out = judge_watch(scripted({gpu("0000:01:00.0", busy)}, 20), "l2.compute.gpu_underutilized");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::warn);
  EXPECT_EQ(out[0].variant, "stalls");
}

TEST(GpuBusy, IdleGpuAndDeadProcessAreNotJudged) {
  // Without --pid a GPU holding little VRAM runs no job.
  auto idle = judge_watch(scripted({gpu("0000:01:00.0", {0}, {0.3})}, 20), "l2.compute.gpu_underutilized");
  ASSERT_EQ(idle.size(), 1u);
  EXPECT_EQ(idle[0].status, Status::info);
  EXPECT_EQ(idle[0].variant, "idle");
  auto f = scripted({gpu("0000:01:00.0", {5})}, 20, 42);
  for (auto& s : f.watch.samples) s.proc_running = false;
  EXPECT_EQ(judge_watch(f, "l2.compute.gpu_underutilized")[0].variant, "idle");
}

TEST(GpuBusy, SkipsWithoutGpus) {
  Facts f;
  f.watch.collected = true;
  f.watch.gpu_unavailable = "libnvidia-ml.so.1 not found";
  f.watch.samples.resize(10);
  auto out = judge_watch(f, "l2.compute.gpu_underutilized");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::skip);
  EXPECT_EQ(out[0].args.at("reason"), "libnvidia-ml.so.1 not found");
}

TEST(VramSawtooth, WarnsOnRepeatedDropsAndPassesOnAFlatLine) {
  auto saw = scripted({gpu("0000:01:00.0", {90}, {20, 30, 40, 50, 60})}, 30);
  auto out = judge_watch(saw, "l2.watch.vram_sawtooth");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::warn);
  EXPECT_EQ(out[0].args.at("amplitude"), "40 GiB");
  EXPECT_EQ(out[0].args.at("period"), "2.5");
  EXPECT_EQ(watch_status_of(scripted({gpu("0000:01:00.0", {90}, {60, 60.5, 59.8})}, 30), "l2.watch.vram_sawtooth"), Status::pass);
  // Two drops are not yet a sawtooth (threshold: 3).
  EXPECT_EQ(watch_status_of(scripted({gpu("0000:01:00.0", {90}, {20, 30, 40, 50, 60})}, 12), "l2.watch.vram_sawtooth"), Status::pass);
}

Facts host_cpu(std::vector<double> busy, std::vector<std::vector<double>> cores) {
  Facts f;
  f.watch.collected = true;
  f.watch.interval_s = 1;
  for (std::size_t i = 0; i < busy.size(); ++i) {
    WatchSample s;
    s.t_s = static_cast<double>(i);
    s.cpu_busy_pct = busy[i];
    s.core_busy_pct = cores[i % cores.size()];
    f.watch.samples.push_back(s);
  }
  return f;
}

TEST(CpuSaturated, HostSaturatedPeggedCoreAndHealthy) {
  EXPECT_EQ(watch_status_of(host_cpu({99, 98, 97, 99, 96, 50}, {{99, 99}}), "l2.compute.cpu_saturated"), Status::fail);
  auto pegged = judge_watch(host_cpu({55, 52, 51, 53, 50, 54}, {{100, 5, 3, 2}}), "l2.compute.cpu_saturated");
  ASSERT_EQ(pegged.size(), 1u);
  EXPECT_EQ(pegged[0].status, Status::warn);
  EXPECT_EQ(pegged[0].variant, "pegged_core");
  EXPECT_EQ(pegged[0].args.at("core"), "0");
  EXPECT_EQ(watch_status_of(host_cpu({40, 42, 41, 39, 45, 40}, {{40, 42, 38, 41}}), "l2.compute.cpu_saturated"), Status::pass);
  EXPECT_EQ(watch_status_of(host_cpu({99, 99}, {{99}}), "l2.compute.cpu_saturated"), Status::skip);  // too few samples
}

Facts io_run(double io_pct, double busy_pct, std::size_t n) {
  Facts f = scripted({gpu("0000:01:00.0", {busy_pct})}, n);
  for (auto& s : f.watch.samples) s.psi_io_some_pct = io_pct;
  return f;
}

TEST(IoBound, HighIoPressureWhileGpuIdleFails) {
  EXPECT_EQ(watch_status_of(io_run(45, 20, 20), "l2.watch.io_bound"), Status::fail);
  EXPECT_EQ(watch_status_of(io_run(45, 95, 20), "l2.watch.io_bound"), Status::pass);  // busy GPU: IO keeps up
  EXPECT_EQ(watch_status_of(io_run(2, 20, 20), "l2.watch.io_bound"), Status::pass);   // idle GPU, quiet IO: not IO
  EXPECT_EQ(watch_status_of(scripted({gpu("0000:01:00.0", {20})}, 20), "l2.watch.io_bound"), Status::skip);  // no PSI
}

watch::GpuScript pcie(const std::string& bus, double bytes_per_s) {
  auto g = gpu(bus, {90});
  g.pcie_rx_bytes_per_s = {bytes_per_s};
  g.pcie_tx_bytes_per_s = {0};
  return g;
}

TEST(PcieImbalance, OneGpuCarriesTheTraffic) {
  auto out = judge_watch(scripted({pcie("0000:01:00.0", 4e9), pcie("0000:02:00.0", 1e9), pcie("0000:03:00.0", 1.1e9)}, 10),
                 "l2.watch.pcie_imbalance");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].status, Status::warn);
  EXPECT_EQ(out[0].subject, "gpu 0000:01:00.0");
  EXPECT_EQ(watch_status_of(scripted({pcie("0000:01:00.0", 1e9), pcie("0000:02:00.0", 1.2e9)}, 10), "l2.watch.pcie_imbalance"),
            Status::pass);
  EXPECT_EQ(watch_status_of(scripted({pcie("0000:01:00.0", 1e9)}, 10), "l2.watch.pcie_imbalance"), Status::skip);
}

watch::GpuScript reasons(std::vector<std::uint64_t> bits) {
  auto g = gpu("0000:01:00.0", {90});
  g.clock_event_reasons = std::move(bits);
  return g;
}

TEST(Throttling, HardwareFailsThermalWarnsPowerCapInforms) {
  auto hw = judge_watch(scripted({reasons({0, 0x8, 0x8, 0, 0})}, 10), "l2.watch.throttling");
  ASSERT_EQ(hw.size(), 1u);
  EXPECT_EQ(hw[0].status, Status::fail);
  EXPECT_EQ(hw[0].args.at("episodes"), "2");
  EXPECT_EQ(hw[0].args.at("reasons"), "hw_slowdown");
  EXPECT_EQ(watch_status_of(scripted({reasons({0, 0x20})}, 10), "l2.watch.throttling"), Status::warn);
  EXPECT_EQ(watch_status_of(scripted({reasons({0x4})}, 10), "l2.watch.throttling"), Status::info);
  EXPECT_EQ(watch_status_of(scripted({reasons({0, 0x1})}, 10), "l2.watch.throttling"), Status::pass);  // idle is normal
  EXPECT_EQ(watch_status_of(scripted({gpu("0000:01:00.0", {90})}, 10), "l2.watch.throttling"), Status::skip);
}

}  // namespace
}  // namespace plumb
