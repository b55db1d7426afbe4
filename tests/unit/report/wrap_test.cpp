// The terminal report's wrapping: to the width, at spaces or between CJK characters, continuation
// lines under the text after the line's marker, colour escapes taking no column, long words whole.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/table.h"

namespace plumb {
namespace {

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> words_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(Wrap, BreaksAtSpacesUnderTheMarkersText) {
  const std::string line = "[FAIL] /dev/shm size for DataLoader workers is only 64 MiB, Docker's default, below 1 GiB  "
                           "l3.storage.shm_size";
  auto w = wrap_to_width(line, 40);
  auto ls = lines_of(w);
  ASSERT_GT(ls.size(), 2u);
  for (const auto& l : ls) EXPECT_LE(display_width(l), 40u) << l;
  for (std::size_t i = 1; i < ls.size(); ++i) EXPECT_TRUE(ls[i].starts_with("       ") && ls[i][7] != ' ') << ls[i];
  EXPECT_EQ(words_of(w), words_of(line));
  // An indented evidence line hangs two columns in; a fitting line and blank lines stay as they are.
  auto ev = lines_of(wrap_to_width("       Evidence: size = 64 MiB  (/proc/mounts) read from the target's mount table", 40));
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_TRUE(ev[1].starts_with("         ") && ev[1][9] != ' ') << ev[1];
  EXPECT_EQ(wrap_to_width("short\n\nlines\n", 40), "short\n\nlines\n");
  EXPECT_EQ(wrap_to_width("  L3 [refuted] a b c d e f g h i j k l m n o p q r s t u v w x y z", 30),
            "  L3 [refuted] a b c d e f g h\n     i j k l m n o p q r s t u\n     v w x y z");
}

TEST(Wrap, CjkTakesTwoColumnsAndBreaksBetweenCharacters) {
  const std::string zh = "[失败] /dev/shm 仅为 64 MiB，是 Docker 的默认值（低于 1 GiB）：多 worker 的 DataLoader 会因 bus error 退出。";
  auto ls = lines_of(wrap_to_width(zh, 30));
  ASSERT_GT(ls.size(), 2u);
  std::string joined;
  for (const auto& l : ls) {
    EXPECT_LE(display_width(l), 30u) << l;
    joined += l;
  }
  // Nothing but the break points' spaces is added or lost.
  std::string a, b;
  for (char c : zh) if (c != ' ') a += c;
  for (char c : joined) if (c != ' ') b += c;
  EXPECT_EQ(a, b);
}

TEST(Wrap, ColourEscapesTakeNoColumnAndLongWordsStayWhole) {
  const std::string red = "\x1b[31m[FAIL]\x1b[0m GPU 0000:3b:00.0 fell off the bus";
  EXPECT_EQ(wrap_to_width(red, 40), red) << "37 visible columns fit in 40";
  const std::string path = "  see /a/very/long/path/that/does/not/fit/in/the/width/at/all/anywhere.json now";
  auto ls = lines_of(wrap_to_width(path, 30));
  ASSERT_EQ(ls.size(), 3u);
  EXPECT_EQ(ls[1], "    /a/very/long/path/that/does/not/fit/in/the/width/at/all/anywhere.json");
  EXPECT_EQ(wrap_to_width(path, 10), path) << "below 20 columns nothing is wrapped";
  const std::string verify = "       Verify: grep oom_kill /sys/fs/cgroup/system.slice/job_4242/memory.events";
  EXPECT_EQ(wrap_to_width(verify, 40, {"Verify:"}), verify) << "a command to paste stays whole";
}

}  // namespace
}  // namespace plumb
