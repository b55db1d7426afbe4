// The serving load rules (l2.serving.*) on results built by bench serve's own translation of a
// load run: a passing and a warning or failing case each, skips, and both languages.
#include <gtest/gtest.h>

#include "bench/serve.h"
#include "core/catalog.h"
#include "core/registry.h"

namespace plumb {
namespace {

std::vector<Finding> judge_serving_load(const std::string& id, const Facts& f) {
  Selection sel;
  sel.only = {id};
  auto out = judge(f, Thresholds(), sel);
  for (const auto& x : out) {
    EXPECT_NE(find_entry(x.id), nullptr) << x.id;
    EXPECT_FALSE(finding_message(x, Lang::en).empty());
    EXPECT_EQ(finding_message(x, Lang::zh).find('{'), std::string::npos) << finding_message(x, Lang::zh);
    EXPECT_EQ(finding_message(x, Lang::en).find('{'), std::string::npos) << finding_message(x, Lang::en);
  }
  return out;
}

// `n` replies: most at `fast_ms` from both send times; `slow` of them at `slow_ms` from the
// intended send only (they waited for a connection), or from both when `server_slow`.
LoadResult load(std::uint64_t n, double fast_ms, std::uint64_t slow, double slow_ms, bool server_slow = false) {
  LoadResult lr;
  for (std::uint64_t i = 0; i < n; ++i) {
    bool s = i < slow;
    auto f = static_cast<std::uint64_t>(fast_ms * 1e6);
    auto sl = static_cast<std::uint64_t>(slow_ms * 1e6);
    lr.from_intended.record(s ? sl : f);
    lr.from_sent.record(s && server_slow ? sl : f);
  }
  lr.scheduled = lr.sent = lr.ok = n;
  lr.measured_s = 10;
  lr.windows.assign(10, LoadWindow{n / 10, fast_ms, fast_ms});
  return lr;
}

Facts facts_of(const LoadResult& lr, bool closed = false) {
  LoadPlan plan;
  plan.rate = closed ? 0 : 100;
  plan.closed_loop = closed;
  plan.concurrency = closed ? 4 : 0;
  BenchResult r;
  r.bench = "serve";
  r.params["url"] = "http://127.0.0.1:8000/";
  r.params["rate"] = "100";
  r.params["connections_max"] = "256";
  fill_serve_result(r, lr, plan);
  Facts f;
  f.bench.results.push_back(r);
  return f;
}

TEST(ServingLoadRules, TailInfoWhenHealthyAndStallsWhenRequestsWaited) {
  auto ok = judge_serving_load("l2.serving.tail_latency", facts_of(load(2000, 2, 0, 0)));
  ASSERT_EQ(ok.size(), 1U);
  EXPECT_EQ(ok[0].status, Status::info);
  EXPECT_EQ(ok[0].subject, "http://127.0.0.1:8000/");

  LoadResult waited = load(2000, 2, 100, 300);  // 5 % waited 300 ms before being sent
  waited.hit_connection_cap = true;
  auto st = judge_serving_load("l2.serving.tail_latency", facts_of(waited));
  ASSERT_EQ(st.size(), 1U);
  EXPECT_EQ(st[0].status, Status::warn);
  EXPECT_EQ(st[0].variant, "stalls");
  EXPECT_NE(finding_message(st[0], Lang::en).find("closed-loop tool"), std::string::npos);

  waited.hit_connection_cap = false;  // connections to spare: the client fell behind
  auto cl = judge_serving_load("l2.serving.tail_latency", facts_of(waited));
  EXPECT_EQ(cl[0].variant, "client_late");

  auto slow = judge_serving_load("l2.serving.tail_latency", facts_of(load(2000, 2, 100, 300, true)));  // the server itself
  EXPECT_EQ(slow[0].variant, "long_tail");
}

TEST(ServingLoadRules, TailFailsOverTheBoundSkipsWithFewSamplesWarnsOnErrors) {
  Facts f = facts_of(load(2000, 2, 100, 300, true));
  f.bench.results[0].derived["p99_bound_ms"] = 50;
  auto over = judge_serving_load("l2.serving.tail_latency", f);
  EXPECT_EQ(over[0].status, Status::fail);
  EXPECT_EQ(over[0].variant, "over_bound");

  auto few = judge_serving_load("l2.serving.tail_latency", facts_of(load(500, 2, 0, 0)));
  EXPECT_EQ(few[0].status, Status::skip);
  EXPECT_NE(finding_message(few[0], Lang::en).find("662"), std::string::npos) << finding_message(few[0], Lang::en);

  LoadResult bad = load(2000, 2, 0, 0);
  bad.err_5xx = 100;
  bad.scheduled += 100;
  auto err = judge_serving_load("l2.serving.tail_latency", facts_of(bad));
  EXPECT_EQ(err[0].variant, "errors");
  EXPECT_EQ(err[0].status, Status::warn);
}

TEST(ServingLoadRules, StabilityAndLateSends) {
  LoadResult lr = load(2000, 2, 0, 0);
  EXPECT_EQ(judge_serving_load("l2.serving.unstable", facts_of(lr))[0].status, Status::pass);
  lr.windows[9].p50_ms = 40;
  EXPECT_EQ(judge_serving_load("l2.serving.unstable", facts_of(lr))[0].status, Status::warn);
  lr.windows[9].ok = 2;
  EXPECT_EQ(judge_serving_load("l2.serving.unstable", facts_of(lr))[0].status, Status::skip);

  LoadResult late = load(2000, 2, 0, 0);
  EXPECT_EQ(judge_serving_load("l2.serving.late_sends", facts_of(late))[0].status, Status::pass);
  late.late = 300;
  auto w = judge_serving_load("l2.serving.late_sends", facts_of(late));
  EXPECT_EQ(w[0].status, Status::warn);
  EXPECT_NE(finding_message(w[0], Lang::en).find("300 of 2000"), std::string::npos) << finding_message(w[0], Lang::en);
  EXPECT_EQ(judge_serving_load("l2.serving.late_sends", facts_of(late, true))[0].status, Status::skip);
}

TEST(ServingLoadRules, FixesPointDownTheFunnel) {
  const CatalogEntry* e = find_entry("l2.serving.tail_latency");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->pillar, Pillar::serving);
  EXPECT_NE(e->fix.en.find("l3.serving.thread_demand"), std::string::npos);
  EXPECT_NE(e->fix.zh.find("l3.compute.thread_oversubscription"), std::string::npos);
  EXPECT_NE(e->fix.en.find("l3.memory.cgroup_limit"), std::string::npos);
}

}  // namespace
}  // namespace plumb
