// Each collector writes only the Facts areas it declares (`writes`). `plumb check` prints the areas
// no slow collector writes while the slow ones still run; an undeclared write by a slow collector
// would leave the report and the history database with the area as it was before. Each collector
// runs alone on every fixture machine (the framework probe with a fake interpreter).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/facts_text.h"
#include "core/json.h"
#include "core/registry.h"
#include "../../test_util.h"

namespace plumb {
namespace {

const char* const kHosts[] = {"healthy", "dgx-8gpu-2socket", "noib-2gpu-eth", "docker-v1", "pcie-4gpu-2socket", "oom-xid",
                              "nvme-misconfigured"};

TEST(CollectorWrites, EachCollectorWritesOnlyTheAreasItDeclares) {
  const json empty = Facts{};
  std::map<std::string, std::set<std::string>> written;
  for (const char* host : kHosts) {
    Context ctx;
    ctx.root = HostRoot(test::host_fixture(host));
    ctx.python = test::fixture("framework/fake_python/gpu-h100");
    for (const auto& c : collectors()) {
      if (!c.in_check) continue;
      Facts f;
      ASSERT_TRUE(collect_one(ctx, c.id, f));
      const json j = f;
      for (const auto& area : facts_areas()) {
        if (area == "meta" || j[area] == empty[area]) continue;  // meta: every run's outcome
        written[c.id].insert(area);
        EXPECT_NE(std::find(c.writes.begin(), c.writes.end(), area), c.writes.end())
            << c.id << " on " << host << " writes facts." << area << ": add it to the collector's `writes`";
      }
    }
  }
  // And declares nothing it never writes (a stale declaration would make `plumb check` print an
  // area late for nothing). The quick benchmarks write only with --bench quick, which the
  // end-to-end tests run.
  for (const auto& c : collectors()) {
    if (!c.in_check || c.id == "collect.bench_quick") continue;
    EXPECT_EQ(written[c.id], std::set<std::string>(c.writes.begin(), c.writes.end())) << c.id;
  }
}

}  // namespace
}  // namespace plumb
