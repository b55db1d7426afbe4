// Every report-producing subcommand accepts the same --format list through the shared renderers:
// `--format json` is the documented document (docs/json-schema.md: schema_version, tool, lang,
// summary, facts, findings; `history` has its own "history" object), `--format html` is one
// complete page, an unknown format gets the "did you mean" of an unknown subcommand, and each
// `--help` lists exactly the formats the command accepts.
#include <algorithm>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../test_util.h"
#include "core/json.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;
using test::fixture;
using test::host_fixture;

struct Case {
  std::string name;
  std::vector<std::string> args;  // without --format
};

class FormatsE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = ::testing::TempDir() + "/plumb-formats-e2e-" + std::to_string(::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = dir_ + "/history.db";
    // Two measured runs, the first the baseline: history and compare have something to show.
    const std::vector<std::string> membw{"bench", "membw", "--size", "1M", "--samples", "2", "--threads", "2", "--db", db_};
    ASSERT_EQ(test::run_plumb(membw).exit_code, 0);
    ASSERT_EQ(test::run_plumb(membw).exit_code, 0);
    ASSERT_EQ(test::run_plumb({"baseline", "set", "1", "--db", db_}).exit_code, 0);
    snapshot_ = dir_ + "/snap.json";
    auto c = test::run_plumb({"check", "--root", host_fixture("healthy"), "--save", snapshot_, "--format", "json"});
    ASSERT_TRUE(c.exit_code == 0 || c.exit_code == 1) << c.err;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static std::vector<Case> cases() {
    return {
        {"check", {"check", "--root", host_fixture("healthy")}},
        {"report", {"report", snapshot_}},
        {"trace", {"trace", fixture("traces/generated/cpu-mlp-num-workers-0.json")}},
        {"topo", {"topo", "--root", host_fixture("dgx-8gpu-2socket"), "--group", "4"}},
        {"nccl-tests",
         {"nccl-tests", fixture("comm/nccl-tests/leonardo-4x-a100-sxm-64gb-sendrecv_perf-nccl-info-interleaved.txt"),
          "--root", host_fixture("noib-2gpu-eth")}},
        {"bench", {"bench", "membw", "--size", "1M", "--samples", "2", "--threads", "2", "--no-history"}},
        {"compare", {"compare", "--db", db_, "--warn-pct", "10000", "--fail-pct", "10000"}},
        {"diff", {"diff", fixture("framework/snapshots/a.json"), fixture("framework/snapshots/b.json")}},
        {"memory", {"memory", fixture("framework/memory/fairseq-v100-16gb-oom-58-ooms-66-retries.txt")}},
        {"h5", {"h5", fixture("framework/h5/small-gzip.h5")}},
        {"watch", {"watch", "--duration", "500ms", "--interval", "100ms", "--root", fixture("watch/procfs-host"), "--pid",
                   "26231", "--gpu-script", fixture("watch/gpu-scripts/healthy.json"), "--quiet"}},
        {"history", {"history", "--db", db_}},
    };
  }

  static RunOutput run(std::vector<std::string> args, const std::string& format) {
    args.insert(args.end(), {"--format", format});
    return test::run_plumb(args);
  }

  static inline std::string dir_, db_, snapshot_;
};

// A result of the command itself (0 or 1), not "could not run" (2) or a crash.
void expect_ran(const Case& c, const RunOutput& r, const std::string& format) {
  EXPECT_EQ(r.signal, 0) << c.name << " " << format;
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << c.name << " --format " << format << ": exit " << r.exit_code << "\n"
                                                    << r.err;
}

TEST_F(FormatsE2E, JsonIsTheDocumentedDocument) {
  for (const auto& c : cases()) {
    auto r = run(c.args, "json");
    expect_ran(c, r, "json");
    json doc = json::parse(r.out, nullptr, false);
    ASSERT_TRUE(doc.is_object()) << c.name << ": not JSON\n" << r.out.substr(0, 400);
    EXPECT_EQ(doc["schema_version"], 1) << c.name;
    EXPECT_EQ(doc["tool"]["name"], "plumb") << c.name;
    EXPECT_TRUE(doc.contains("lang")) << c.name;
    if (c.name == "history") {
      ASSERT_TRUE(doc["history"]["runs"].is_array()) << r.out;
      EXPECT_EQ(doc["history"]["runs"].size(), 2u) << r.out;
      continue;
    }
    for (const char* key : {"summary", "facts", "findings"}) EXPECT_TRUE(doc.contains(key)) << c.name << " lacks " << key;
    EXPECT_EQ(doc["summary"]["exit_code"], r.exit_code) << c.name;
    EXPECT_TRUE(doc["findings"].is_array()) << c.name;
  }
}

TEST_F(FormatsE2E, HtmlIsACompletePage) {
  for (const auto& c : cases()) {
    auto r = run(c.args, "html");
    expect_ran(c, r, "html");
    EXPECT_EQ(r.out.rfind("<!DOCTYPE html>\n<html lang=\"en\">", 0), 0u) << c.name << "\n" << r.out.substr(0, 200);
    EXPECT_NE(r.out.find("<title>"), std::string::npos) << c.name;
    EXPECT_NE(r.out.find("Content-Security-Policy"), std::string::npos) << c.name;
    EXPECT_TRUE(r.out.ends_with("</body>\n</html>\n")) << c.name;
  }
}

TEST_F(FormatsE2E, AreaBlocksAppearInEveryTextFormat) {
  struct Want {
    std::string name, text;
  };
  // What each area's block shows, whatever the format.
  const std::vector<Want> wants{{"memory", "cudaMalloc retries"}, {"h5", "/train/features"},
                                {"topo", "CUDA_VISIBLE_DEVICES=0,1,2,3"}, {"diff", "gpu.driver_version"},
                                {"bench", "membw.copy.1t"}, {"compare", "membw.copy.1t"}, {"history", "bench membw"}};
  for (const auto& w : wants) {
    for (const auto& c : cases()) {
      if (c.name != w.name) continue;
      for (const char* format : {"term", "md", "html"}) {
        auto r = run(c.args, format);
        expect_ran(c, r, format);
        EXPECT_NE(r.out.find(w.text), std::string::npos) << c.name << " --format " << format << "\n" << r.out.substr(0, 600);
      }
    }
  }
}

TEST_F(FormatsE2E, UnknownFormatGetsTheHintAndHelpListsTheFormats) {
  for (const auto& c : cases()) {
    auto r = run(c.args, "htm");
    EXPECT_EQ(r.exit_code, 2) << c.name;
    EXPECT_TRUE(r.out.empty()) << c.name;
    EXPECT_NE(r.err.find("unknown format 'htm' (did you mean 'html'?)"), std::string::npos) << c.name << ": " << r.err;
    auto help = test::run_plumb({c.args.front(), "--help"});
    bool prom = c.name == "check" || c.name == "report" || c.name == "watch";
    std::string list = prom ? "term|md|json|html|prom" : "term|md|json|html";
    EXPECT_NE(help.out.find("output format: " + list + "\n"), std::string::npos) << c.name << "\n" << help.out;
    if (!prom) {
      auto p = run(c.args, "prom");
      EXPECT_EQ(p.exit_code, 2) << c.name;
      EXPECT_NE(p.err.find("use term|md|json|html"), std::string::npos) << c.name << ": " << p.err;
    }
  }
}

}  // namespace
}  // namespace plumb

namespace plumb {
namespace {

TEST(TerminalReport, DefaultIsShortVerboseListsEverythingQuietIsTheVerdict) {
  const std::string root = test::host_fixture("nvme-misconfigured");
  auto brief = test::run_plumb({"check", "--root", root});
  auto all = test::run_plumb({"check", "--root", root, "-v"});
  auto quiet = test::run_plumb({"check", "--root", root, "-q"});
  ASSERT_EQ(brief.exit_code, 1) << brief.err;
  EXPECT_EQ(all.exit_code, 1);
  EXPECT_EQ(quiet.exit_code, 1);
  auto lines = [](const std::string& s) { return std::count(s.begin(), s.end(), '\n'); };
  EXPECT_LT(lines(brief.out), lines(all.out) / 2) << brief.out;
  // The header: the title and at most six lines before the first blank line.
  EXPECT_LE(lines(brief.out.substr(0, brief.out.find("\n\n"))), 6) << brief.out;
  EXPECT_EQ(brief.out.find("[pass]"), std::string::npos) << brief.out;
  EXPECT_EQ(brief.out.find("[skip]"), std::string::npos) << brief.out;
  EXPECT_NE(brief.out.find("[FAIL]"), std::string::npos) << brief.out;
  EXPECT_NE(brief.out.find("Fix: "), std::string::npos) << brief.out;
  // Identical skip reasons are grouped on the layer line.
  EXPECT_NE(brief.out.find("GPU layer: "), std::string::npos) << brief.out;
  EXPECT_NE(brief.out.find("not checked: libnvidia-ml.so.1 not found"), std::string::npos) << brief.out;
  EXPECT_NE(all.out.find("[pass]"), std::string::npos);
  EXPECT_NE(all.out.find("[skip]"), std::string::npos);
  EXPECT_EQ(lines(quiet.out), 1) << quiet.out;
  EXPECT_NE(quiet.out.find("Infrastructure defects found"), std::string::npos) << quiet.out;
  EXPECT_EQ(brief.out.find("1 warnings"), std::string::npos);
  EXPECT_EQ(brief.out.find("1 notes"), std::string::npos);
  auto both = test::run_plumb({"check", "--root", root, "-v", "-q"});
  EXPECT_EQ(both.exit_code, 2);
}

}  // namespace
}  // namespace plumb

namespace plumb {
namespace {

// A flag a command ignores is not offered: topo reads the topology, the GPUs and the job's NCCL
// variables (--pid), nccl-tests the topology and the RDMA ports; neither reads a kernel log, a
// dataset, a Python interpreter or a model repository. check offers them all.
TEST(CommandFlags, OnlyTheMachineOptionsACommandReads) {
  auto topo = test::run_plumb({"topo", "--help"});
  auto nccl = test::run_plumb({"nccl-tests", "--help"});
  auto check = test::run_plumb({"check", "--help"});
  for (const std::string flag : {"--kmsg", "--data", "--python", "--model-repo"}) {
    EXPECT_EQ(topo.out.find(flag + " "), std::string::npos) << "topo offers " << flag;
    EXPECT_EQ(nccl.out.find(flag + " "), std::string::npos) << "nccl-tests offers " << flag;
    EXPECT_NE(check.out.find(flag + " "), std::string::npos) << "check lost " << flag;
  }
  EXPECT_NE(topo.out.find("--pid "), std::string::npos);
  EXPECT_EQ(nccl.out.find("--pid "), std::string::npos);
  for (const std::string flag : {"--root ", "--config ", "--timeout "}) {
    EXPECT_NE(topo.out.find(flag), std::string::npos) << flag;
    EXPECT_NE(nccl.out.find(flag), std::string::npos) << flag;
  }
  auto refused = test::run_plumb({"nccl-tests", "--kmsg", "x", "log.txt"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("--kmsg"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace plumb
