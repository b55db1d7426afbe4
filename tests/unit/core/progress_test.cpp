// core/progress.h: the status line is drawn only after its delay, redrawn in place, erased at the
// end, and never drawn when standard error is not a terminal.
#include "core/progress.h"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <thread>

namespace plumb {
namespace {

using std::chrono::milliseconds;

TEST(ProgressLine, DrawsAfterTheDelayAndErasesAtTheEnd) {
  std::ostringstream out;
  {
    ProgressLine line("plumb trace", out, milliseconds(0));
    line.set("1 of 2 traces read");
    std::this_thread::sleep_for(milliseconds(600));
  }
  std::string s = out.str();
  const std::string drawn = "\rplumb trace: 1 of 2 traces read";
  ASSERT_NE(s.find(drawn), std::string::npos) << s;
  // Erased: spaces over the whole line, then back to its start.
  EXPECT_EQ(s.substr(s.size() - (drawn.size() + 1)), "\r" + std::string(drawn.size() - 1, ' ') + "\r");
}

TEST(ProgressLine, QuickWorkDrawsNothing) {
  std::ostringstream out;
  {
    ProgressLine line("plumb diagnose", out, milliseconds(2000));
    line.set("train.log: 1.0 MiB read");
  }
  EXPECT_EQ(out.str(), "");
}

TEST(ProgressLine, PollsTheTextAndPadsAShorterLine) {
  std::ostringstream out;
  std::atomic<int> calls{0};
  {
    ProgressLine line("p", out, milliseconds(0), [&] { return ++calls == 1 ? std::string("long text") : std::string("x"); });
    std::this_thread::sleep_for(milliseconds(700));
  }
  EXPECT_GE(calls.load(), 2);
  // The shorter text overwrites the longer one's tail with spaces.
  EXPECT_NE(out.str().find("\rp: x        "), std::string::npos) << out.str();
}

TEST(ProgressLine, SilentWhenStandardErrorIsNotATerminal) {
  // Under ctest standard error is a pipe or a file.
  if (ProgressLine::stderr_is_terminal()) GTEST_SKIP() << "standard error is a terminal here";
  ProgressLine line("plumb bench membw");
  EXPECT_FALSE(line.enabled());
  line.set("sample 1 of 5");
}

}  // namespace
}  // namespace plumb
