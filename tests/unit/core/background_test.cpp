#include "core/background.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
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

}  // namespace
}  // namespace plumb
