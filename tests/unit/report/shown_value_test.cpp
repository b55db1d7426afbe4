// The text reports show a long evidence value cut, with its length; the JSON report keeps it whole.
#include <gtest/gtest.h>

#include "core/json.h"
#include "report/report.h"

namespace plumb {
namespace {

Report one_finding(const std::string& value) {
  Report r;
  Finding f;
  f.id = "l3.framework.cublas_workspace";
  f.status = Status::warn;
  f.variant = "invalid";
  f.add("CUBLAS_WORKSPACE_CONFIG", value, "/proc/42/environ");
  r.findings.push_back(f);
  return r;
}

TEST(ShownValue, ALongValueIsCutInTheTextReportsAndWholeInJson) {
  std::string value;
  for (int i = 0; i < 400; ++i) value += ":4096:8";  // 2,800 bytes
  const std::string head = value.substr(0, 100);
  for (Lang lang : {Lang::en, Lang::zh}) {
    RenderOptions o;
    o.lang = lang;
    for (const char* format : {"term", "md", "html"}) {
      const std::string text = find_renderer(format)->render(one_finding(value), o);
      EXPECT_NE(text.find(head), std::string::npos) << format;
      EXPECT_EQ(text.find(value), std::string::npos) << format << ": shown whole";
      EXPECT_NE(text.find("2800"), std::string::npos) << format << ": no length";
    }
    const std::string js = find_renderer("json")->render(one_finding(value), o);
    EXPECT_NE(js.find(value), std::string::npos);
  }
  // Up to the limit a value is shown whole, with no note.
  const std::string fits(kMaxShownValue, 'x');
  EXPECT_EQ(shown_value(fits), fits);
  EXPECT_EQ(shown_value_note(fits, Lang::en), "");
  // A cut never splits a UTF-8 character.
  std::string zh;
  for (int i = 0; i < 200; ++i) zh += "显存";
  const std::string cut = shown_value(zh);
  EXPECT_LE(cut.size(), kMaxShownValue);
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
  EXPECT_EQ((cut.size() - 3) % 3, 0U);
  EXPECT_EQ(shown_value_note(zh, Lang::en), " (1200 bytes in all; the JSON report has the whole value)");
}

}  // namespace
}  // namespace plumb
