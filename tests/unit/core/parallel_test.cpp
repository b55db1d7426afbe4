// The task group, parallel_for and the background group.
#include "core/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace plumb {
namespace {

// Records where and whether it was destroyed.
struct Tracked {
  std::shared_ptr<std::atomic<bool>> destroyed;
  std::shared_ptr<std::thread::id> on;
  Tracked(std::shared_ptr<std::atomic<bool>> d, std::shared_ptr<std::thread::id> t) : destroyed(std::move(d)), on(std::move(t)) {}
  Tracked(Tracked&&) = default;
  Tracked& operator=(Tracked&&) = default;
  Tracked(const Tracked&) = delete;
  Tracked& operator=(const Tracked&) = delete;
  ~Tracked() {
    if (!destroyed) return;  // moved from
    *on = std::this_thread::get_id();
    destroyed->store(true);
  }
};

TEST(Background, ReleasedObjectIsDestroyedOnAnotherThreadByTheWait) {
  auto destroyed = std::make_shared<std::atomic<bool>>(false);
  auto on = std::make_shared<std::thread::id>();
  release_in_background(Tracked(destroyed, on));
  wait_background();
  EXPECT_TRUE(destroyed->load());
  EXPECT_NE(*on, std::this_thread::get_id());
}

TEST(Background, WaitCoversEveryJobStartedBeforeIt) {
  std::atomic<int> ran{0};
  for (int i = 0; i < 20; ++i) {
    run_in_background([&ran] {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      ran.fetch_add(1);
    });
  }
  wait_background();
  EXPECT_EQ(ran.load(), 20);
}

TEST(ParallelFor, RunsEveryIndexOnceOnSeveralThreads) {
  std::vector<std::atomic<int>> hits(1000);
  std::mutex mu;
  std::set<std::thread::id> threads;
  parallel_for(hits.size(), 4, [&](std::size_t i) {
    hits[i].fetch_add(1);
    std::lock_guard<std::mutex> lock(mu);
    threads.insert(std::this_thread::get_id());
  });
  for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_LE(threads.size(), 4u);
}

TEST(ParallelFor, OneThreadIsTheCallers) {
  std::set<std::thread::id> threads;
  parallel_for(10, 1, [&](std::size_t) { threads.insert(std::this_thread::get_id()); });
  parallel_for(10, 0, [&](std::size_t) { threads.insert(std::this_thread::get_id()); });
  EXPECT_EQ(threads, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(ParallelFor, RethrowsATasksExceptionAfterEveryThreadIsDone) {
  std::atomic<int> ran{0};
  EXPECT_THROW(parallel_for(100, 3,
                            [&](std::size_t i) {
                              ran.fetch_add(1);
                              if (i == 7) throw std::runtime_error("seven");
                            }),
               std::runtime_error);
  EXPECT_GE(ran.load(), 8);
  EXPECT_LE(ran.load(), 100);
}

TEST(TaskGroup, WaitCoversTasksStartedByTasksAndRethrows) {
  TaskGroup g;
  std::atomic<int> ran{0};
  g.run([&] {
    ran.fetch_add(1);
    g.run([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      ran.fetch_add(1);
      throw std::runtime_error("inner");
    });
  });
  EXPECT_THROW(g.wait(), std::runtime_error);
  EXPECT_EQ(ran.load(), 2);
  g.wait();  // the exception was taken
}

}  // namespace
}  // namespace plumb
