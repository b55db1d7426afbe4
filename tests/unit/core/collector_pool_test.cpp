// The collection run: quick collectors share a few threads, a hung one neither blocks the others
// nor the run past its deadline, and results are applied in the order given.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/collect_timing.h"
#include "core/registry.h"

namespace plumb {
namespace {

using PoolClock = std::chrono::steady_clock;

std::size_t pool_test_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return static_cast<std::size_t>(CPU_COUNT(&set));
}

// A gate the hung collectors wait on; opened at the end of the test so that their threads end.
struct PoolGate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  void wait() {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [this] { return open; });
  }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mu);
      open = true;
    }
    cv.notify_all();
  }
};

CollectorInfo pool_test_collector(const std::string& id, std::function<void()> work) {
  CollectorInfo c;
  c.id = id;
  c.writes = {"host"};
  c.run = [work = std::move(work), id](const Context&) -> ApplyFacts {
    work();
    return [id](Facts& f) { f.meta.command += id + ","; };
  };
  return c;
}

std::vector<const CollectorInfo*> pointers(const std::vector<CollectorInfo>& v) {
  std::vector<const CollectorInfo*> out;
  out.reserve(v.size());
  for (const auto& c : v) out.push_back(&c);
  return out;
}

TEST(CollectorPool, ThreadsOnePerCpuAtLeastFourOrOneCpuLeftToASlowCollector) {
  EXPECT_EQ(quick_collector_threads(1, false), 4U);
  EXPECT_EQ(quick_collector_threads(2, false), 4U);
  EXPECT_EQ(quick_collector_threads(16, false), 16U);
  EXPECT_EQ(quick_collector_threads(1, true), 1U);
  EXPECT_EQ(quick_collector_threads(2, true), 1U);
  EXPECT_EQ(quick_collector_threads(4, true), 3U);
  EXPECT_EQ(quick_collector_threads(16, true), 15U);
}

TEST(CollectorPool, QuickCollectorsShareFewerThreadsThanThereAreCollectors) {
  const std::size_t workers = quick_collector_threads(pool_test_cpus(), false);
  const std::size_t n = 2 * workers + 8;
  std::vector<CollectorInfo> list;
  for (std::size_t i = 0; i < n; ++i) {
    list.push_back(pool_test_collector("test.quick." + std::to_string(i),
                                       [] { std::this_thread::sleep_for(std::chrono::milliseconds(1)); }));
  }
  Context ctx;
  ctx.deadline = std::chrono::milliseconds(10000);
  Facts facts;
  CollectionTimings t;
  run_collectors(pointers(list), ctx, facts, &t);
  ASSERT_EQ(facts.meta.collectors.size(), n);
  std::set<long> threads;
  for (const auto& c : t.collectors) {
    EXPECT_EQ(c.status, "ok") << c.id;
    threads.insert(c.thread);
  }
  EXPECT_NE(threads.count(static_cast<long>(::gettid())), 1U) << "collectors run off the calling thread";
  // A spare joins only after the queue waited 20 ms for a free worker: a few at most on a loaded machine.
  EXPECT_LE(threads.size(), workers + n / 4) << threads.size() << " threads for " << n << " collectors";
  // Applied in the order given, whatever order they finished in.
  std::string order;
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(facts.meta.collectors[i].id, list[i].id);
    order += list[i].id + ",";
  }
  EXPECT_EQ(facts.meta.command, order);
}

TEST(CollectorPool, HungCollectorsNeitherStarveTheOthersNorHoldTheRun) {
  auto gate = std::make_shared<PoolGate>();
  const std::size_t workers = quick_collector_threads(pool_test_cpus(), false);
  // More hung collectors than workers, ahead of the quick ones in the queue.
  std::vector<CollectorInfo> list;
  for (std::size_t i = 0; i < workers + 2; ++i) {
    list.push_back(pool_test_collector("test.hung." + std::to_string(i), [gate] { gate->wait(); }));
  }
  for (std::size_t i = 0; i < 6; ++i) list.push_back(pool_test_collector("test.fine." + std::to_string(i), [] {}));
  Context ctx;
  ctx.deadline = std::chrono::milliseconds(1500);
  Facts facts;
  CollectionTimings t;
  auto began = PoolClock::now();
  run_collectors(pointers(list), ctx, facts, &t);
  auto took = PoolClock::now() - began;
  gate->release();
  ASSERT_EQ(facts.meta.collectors.size(), list.size());
  for (const auto& run : facts.meta.collectors) {
    if (run.id.rfind("test.hung.", 0) == 0) {
      EXPECT_EQ(run.status, "timed out") << run.id;
      EXPECT_NE(run.error.find("no answer within 1500 ms"), std::string::npos) << run.error;
    } else {
      EXPECT_EQ(run.status, "ok") << run.id << ": " << run.error;
    }
  }
  // Every deadline counts from the start of the run: it ends once, not once per hung collector.
  EXPECT_LT(took, std::chrono::milliseconds(1500 + 2000));
  EXPECT_GE(took, std::chrono::milliseconds(1400));
}

// Beside a slow collector (its deadline above the run's, as the framework probe's) the quick ones
// take one CPU fewer; hung ones among them still hold the others back by the spare delay only.
TEST(CollectorPool, BesideASlowCollectorTheQuickOnesLeaveItACpuAndStillFinish) {
  auto gate = std::make_shared<PoolGate>();
  const std::size_t workers = quick_collector_threads(pool_test_cpus(), true);
  std::vector<CollectorInfo> list;
  CollectorInfo probe = pool_test_collector("test.slow", [] { std::this_thread::sleep_for(std::chrono::milliseconds(300)); });
  probe.deadline = std::chrono::milliseconds(5000);
  list.push_back(probe);
  for (std::size_t i = 0; i < workers + 1; ++i) {
    list.push_back(pool_test_collector("test.hung." + std::to_string(i), [gate] { gate->wait(); }));
  }
  const std::size_t fine = 12;
  for (std::size_t i = 0; i < fine; ++i) {
    list.push_back(pool_test_collector("test.fine." + std::to_string(i),
                                       [] { std::this_thread::sleep_for(std::chrono::milliseconds(1)); }));
  }
  Context ctx;
  ctx.deadline = std::chrono::milliseconds(1500);
  Facts facts;
  CollectionTimings t;
  run_collectors(pointers(list), ctx, facts, &t);
  gate->release();
  ASSERT_EQ(facts.meta.collectors.size(), list.size());
  std::set<long> quick_threads;
  long slow_thread = 0;
  for (const auto& c : t.collectors) {
    if (c.id == "test.slow") {
      slow_thread = c.thread;
    } else if (c.id.rfind("test.fine.", 0) == 0) {
      quick_threads.insert(c.thread);
    }
  }
  for (const auto& run : facts.meta.collectors) {
    if (run.id.rfind("test.hung.", 0) == 0) {
      EXPECT_EQ(run.status, "timed out") << run.id;
    } else {
      EXPECT_EQ(run.status, "ok") << run.id << ": " << run.error;
    }
  }
  EXPECT_EQ(quick_threads.count(slow_thread), 0U) << "the slow collector has a thread of its own";
  // The fine ones ran on spares started one by one after the hung ones took the pool's threads.
  EXPECT_GE(quick_threads.size(), 1U);
  EXPECT_LE(quick_threads.size(), fine);
}

// A slow collector with nothing to do under the run's options needs no CPU left to it: the quick
// benchmarks are idle unless --bench quick was given; the framework probe always works.
TEST(CollectorPool, OnlyASlowCollectorThatWorksKeepsACpu) {
  const CollectorInfo* bench = nullptr;
  const CollectorInfo* probe = nullptr;
  for (const auto& c : collectors()) {
    if (c.id == "collect.bench_quick") bench = &c;
    if (c.id == "collect.python") probe = &c;
  }
  ASSERT_NE(bench, nullptr);
  ASSERT_NE(probe, nullptr);
  Context ctx;
  ASSERT_TRUE(collector_is_slow(*bench, ctx));
  ASSERT_TRUE(bench->idle);
  EXPECT_TRUE(bench->idle(ctx));
  ctx.bench = "quick";
  EXPECT_FALSE(bench->idle(ctx));
  EXPECT_TRUE(collector_is_slow(*probe, ctx));
  EXPECT_FALSE(probe->idle && probe->idle(ctx));
}

TEST(CollectorPool, AnExceptionIsTheCollectorsErrorNotTheRuns) {
  std::vector<CollectorInfo> list;
  list.push_back(pool_test_collector("test.throws", [] { throw std::runtime_error("sysfs went away"); }));
  list.push_back(pool_test_collector("test.after", [] {}));
  Context ctx;
  Facts facts;
  run_collectors(pointers(list), ctx, facts, nullptr);
  ASSERT_EQ(facts.meta.collectors.size(), 2U);
  EXPECT_EQ(facts.meta.collectors[0].status, "error");
  EXPECT_EQ(facts.meta.collectors[0].error, "sysfs went away");
  EXPECT_EQ(facts.meta.collectors[1].status, "ok");
}

}  // namespace
}  // namespace plumb
