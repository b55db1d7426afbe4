// End to end: `plumb diagnose` on every log of the real-log corpus (tests/fixtures/logs/corpus,
// cases.jsonl) on the healthy fixture host, with floors per split and verdict. On a healthy host no
// cause can be confirmed, so an infrastructure log counts when it is named (inconclusive, or
// infrastructure), a code bug when it reads not-infrastructure, a healthy log when it reads
// no-failure; no code-bug or healthy log may read infrastructure.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "core/json.h"
#include "../test_util.h"

namespace plumb {
namespace {

using namespace plumb::test;

TEST(DiagnoseCorpus, FloorsPerSplitAndVerdict) {
  std::ifstream in(fixture("logs/corpus/cases.jsonl"));
  ASSERT_TRUE(in.good());
  std::map<std::string, int> ok, all;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    json c = json::parse(line);
    const std::string id = c["id"], want = c["verdict"], split = c["split"];
    auto r = run_plumb({"diagnose", fixture("logs/corpus/" + id + ".log"), "--root", host_fixture("healthy"), "--format",
                        "json"});
    ASSERT_LE(r.exit_code, 1) << id << ": " << r.err;
    json doc = json::parse(r.out);
    ASSERT_TRUE(doc["summary"].contains("verdict")) << id;
    const std::string got = doc["summary"]["verdict"];
    if (want != "infrastructure") {
      EXPECT_NE(got, "infrastructure") << id;
    }
    bool good = want == "infrastructure" ? (got == "infrastructure" || got == "inconclusive") : got == want;
    const std::string key = split + "/" + want;
    ++all[key];
    if (good) ++ok[key];
  }
  // Measured 2026-12-07 (docs/diagnose.md): tune 50/68, 13/25, 6/7; heldout 23/35, 8/10, 4/4.
  EXPECT_GE(ok["tune/infrastructure"], 48) << all["tune/infrastructure"];
  EXPECT_GE(ok["tune/not-infrastructure"], 12) << all["tune/not-infrastructure"];
  EXPECT_GE(ok["tune/no-failure"], 6) << all["tune/no-failure"];
  EXPECT_GE(ok["heldout/infrastructure"], 22) << all["heldout/infrastructure"];
  EXPECT_GE(ok["heldout/not-infrastructure"], 7) << all["heldout/not-infrastructure"];
  EXPECT_GE(ok["heldout/no-failure"], 4) << all["heldout/no-failure"];
}

}  // namespace
}  // namespace plumb
