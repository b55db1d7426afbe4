// node-problem-detector plugin verdicts: exit code and the one status line.
#include <gtest/gtest.h>

#include "engine/node_health.h"
#include "core/text.h"
#include "engine/npd_plugin.h"
#include "core/catalog.h"

namespace plumb {
namespace {

// A finding of a real catalogue row of the given section, so section_of() places it there.
std::string id_in(Section s) {
  for (const auto& [id, e] : catalog()) {
    if (e.section == s && id.rfind("l3.", 0) == 0) return id;
  }
  return {};
}

Finding finding(const std::string& id, Status st, const std::string& what = "", const std::string& value = "") {
  Finding f;
  f.id = id;
  f.status = st;
  if (!what.empty()) f.add(what, value, "/proc/x");
  if (st == Status::skip) f.args["reason"] = "absent: /dev/nvidiactl";
  return f;
}

TEST(NpdPlugin, LayersMapToReportSections) {
  EXPECT_EQ(parse_npd_layer("gpu"), Section::gpu);
  EXPECT_EQ(parse_npd_layer("host"), Section::environment);
  EXPECT_EQ(parse_npd_layer("distributed"), Section::distributed);
  EXPECT_FALSE(parse_npd_layer("GPU"));
  EXPECT_FALSE(parse_npd_layer(""));
  EXPECT_STREQ(npd_layer_name(Section::environment), "host");
  for (const auto& n : npd_layer_names()) EXPECT_FALSE(rule_ids_of_section(*parse_npd_layer(n)).empty()) << n;
  for (const auto& id : rule_ids_of_section(Section::gpu)) EXPECT_EQ(find_entry(id)->section, Section::gpu) << id;
}

TEST(NpdPlugin, AFailureIsAProblemNamingTheFinding) {
  std::string gpu = id_in(Section::gpu);
  std::string host = id_in(Section::environment);
  ASSERT_FALSE(gpu.empty());
  std::vector<Finding> fs{finding(host, Status::pass), finding(gpu, Status::fail, "xid", "79")};
  auto v = npd_verdict(fs, Section::gpu, Lang::en);
  EXPECT_EQ(v.exit_code, kNpdProblem);
  EXPECT_EQ(v.line, "plumb gpu: 1 failed: " + gpu + ": xid 79");
  // The host layer does not see the GPU failure.
  auto h = npd_verdict(fs, Section::environment, Lang::en);
  EXPECT_EQ(h.exit_code, kNpdOk) << h.line;
  EXPECT_EQ(h.line, "plumb host: ok, 1 passed, 0 warnings, 0 not checked");
  // Without a layer, every finding counts.
  EXPECT_EQ(npd_verdict(fs, std::nullopt, Lang::en).exit_code, kNpdProblem);
}

TEST(NpdPlugin, OnlySkipsIsUnknownWithTheReason) {
  std::string gpu = id_in(Section::gpu);
  auto v = npd_verdict({finding(gpu, Status::skip)}, Section::gpu, Lang::en);
  EXPECT_EQ(v.exit_code, kNpdUnknown);
  EXPECT_NE(v.line.find("not checked"), std::string::npos) << v.line;
  auto none = npd_verdict({}, Section::data, Lang::en);
  EXPECT_EQ(none.exit_code, kNpdUnknown);
  EXPECT_EQ(none.line, "plumb data: not checked: no check of this layer ran");
  // Warnings alone keep the node healthy.
  EXPECT_EQ(npd_verdict({finding(gpu, Status::warn)}, Section::gpu, Lang::en).exit_code, kNpdOk);
}

TEST(NpdPlugin, ACheckWhoseCollectorTimedOutIsUnknownNotOk) {
  std::string gpu = id_in(Section::gpu);
  Finding late = finding(gpu, Status::skip);
  late.args = {{"reason", "collect.gpu timed out (no answer within 2 ms)"}, {"timed_out", "collect.gpu"}};
  auto v = npd_verdict({finding(gpu, Status::pass), late}, Section::gpu, Lang::en);
  EXPECT_EQ(v.exit_code, kNpdUnknown) << v.line;
  EXPECT_NE(v.line.find("timed out"), std::string::npos) << v.line;
  // A failure still wins: the node has a problem whatever else could not look.
  EXPECT_EQ(npd_verdict({finding(gpu, Status::fail, "xid", "79"), late}, Section::gpu, Lang::en).exit_code, kNpdProblem);
}

TEST(NpdPlugin, TheLineIsOneLineOfAtMost80BytesInBothLanguages) {
  std::string gpu = id_in(Section::gpu);
  std::vector<Finding> fs;
  fs.reserve(5);
  for (int i = 0; i < 5; ++i) fs.push_back(finding(gpu, Status::fail, "evidence\nwith newline", std::string(200, 'x')));
  for (Lang l : {Lang::en, Lang::zh}) {
    auto v = npd_verdict(fs, Section::gpu, l);
    EXPECT_EQ(v.exit_code, kNpdProblem);
    EXPECT_LE(v.line.size(), kNpdMaxLine);
    EXPECT_EQ(v.line.find('\n'), std::string::npos);
    EXPECT_EQ(v.line.substr(v.line.size() - 3), "...");
  }
  auto u = npd_unknown(std::string(100, 'e') + "\n" + "second line", Lang::en);
  EXPECT_EQ(u.exit_code, kNpdUnknown);
  EXPECT_LE(u.line.size(), kNpdMaxLine);
  EXPECT_EQ(u.line.find('\n'), std::string::npos);
}

TEST(NodeHealthText, CutsOnUtf8BoundariesAndFlattensLines) {
  std::string zh = "检查失败检查失败";  // 3 bytes per character
  for (std::size_t n = 0; n <= zh.size(); ++n) {
    auto c = cut_utf8(zh, n);
    EXPECT_LE(c.size(), n);
    std::size_t body = c.size() >= 3 && c.substr(c.size() - 3) == "..." ? c.size() - 3 : c.size();
    EXPECT_EQ(body % 3, 0u) << n << ": " << c;
  }
  EXPECT_EQ(cut_utf8("short", 80), "short");
  EXPECT_EQ(cut_utf8("abcdefgh", 6), "abc...");
  EXPECT_EQ(one_line("a\n\tb\r\n  c  "), "a b c");
  EXPECT_EQ(one_line(std::string("x\0y", 3)), "x y");
}

}  // namespace
}  // namespace plumb
