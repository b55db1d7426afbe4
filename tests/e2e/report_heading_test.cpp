// A report about a file is titled by the file it judges, not as a health report of this host.
#include <gtest/gtest.h>

#include <string>

#include "../test_util.h"

namespace plumb {
namespace {

using test::run_plumb;

void expect_heading(const std::vector<std::string>& args, const std::string& md_start, const std::string& zh_start) {
  auto en = run_plumb([&] { auto a = args; a.insert(a.end(), {"--format", "md", "--lang", "en"}); return a; }());
  EXPECT_EQ(en.out.rfind(md_start, 0), 0u) << en.out.substr(0, 200) << en.err;
  EXPECT_EQ(en.out.find("Infrastructure health report"), std::string::npos) << en.out.substr(0, 200);
  auto zh = run_plumb([&] { auto a = args; a.insert(a.end(), {"--format", "md", "--lang", "zh"}); return a; }());
  EXPECT_EQ(zh.out.rfind(zh_start, 0), 0u) << zh.out.substr(0, 200) << zh.err;
  auto term = run_plumb([&] { auto a = args; a.insert(a.end(), {"--format", "term", "--lang", "en"}); return a; }());
  EXPECT_EQ(term.out.find("health report"), std::string::npos) << term.out.substr(0, 200);
}

TEST(ReportHeading, TraceAndNcclTestsReportsNameTheirFile) {
  const std::string trace = test::fixture("traces/corpus/hta-a100-triton-kernels.json.gz");
  expect_heading({"trace", trace}, "## Trace report (`hta-a100-triton-kernels.json.gz`, ", "## Trace 分析报告 (`hta-a100-triton-kernels.json.gz`, ");
  const std::string log = test::fixture("comm/nccl-tests/gcp-a3mega-2node-16x-h100-all_reduce_perf.txt");
  expect_heading({"nccl-tests", log}, "## nccl-tests report (`gcp-a3mega-2node-16x-h100-all_reduce_perf.txt`, ",
                 "## nccl-tests 结果报告 (`gcp-a3mega-2node-16x-h100-all_reduce_perf.txt`, ");
}

TEST(ReportHeading, AHostCheckIsAHealthReportOfTheHost) {
  auto r = run_plumb({"check", "--root", test::host_fixture("healthy"), "--no-history", "--format", "md", "--lang", "en", "--only", "l3.storage"});
  EXPECT_EQ(r.out.rfind("## Infrastructure health report (", 0), 0u) << r.out.substr(0, 200) << r.err;
}

}  // namespace
}  // namespace plumb
