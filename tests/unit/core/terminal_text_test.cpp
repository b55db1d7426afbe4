// core/terminal_text.h: outside values reach a terminal as text, never as control sequences.
#include "core/terminal_text.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <iostream>
#include <string>

namespace plumb {
namespace {

TEST(TerminalText, PlainTextAndUtf8PassAsTheyAre) {
  const std::string text = "plumb 体检报告 — GPU 0: NVIDIA H100 80GB HBM3\n\tevidence: 64 MiB ✅\n";
  EXPECT_EQ(terminal_text(text), text);
  EXPECT_EQ(terminal_text(text, true), text);
  EXPECT_EQ(terminal_text(""), "");
}

TEST(TerminalText, ControlsAreShownAsTheirPictures) {
  // ESC, BEL, CR, backspace, NUL and DEL: U+241B, U+2407, U+240D, U+2408, U+2400, U+2421.
  EXPECT_EQ(terminal_text("a\x1b]52;c;cGx1bWI=\x07z"), "a\u241b]52;c;cGx1bWI=\u2407z");
  EXPECT_EQ(terminal_text("ok\rFAIL"), "ok\u240dFAIL");
  EXPECT_EQ(terminal_text(std::string("x\by\0z\x7f", 6)), "x\u2408y\u2400z\u2421");
}

TEST(TerminalText, OnlyPlainColoursAndTheLiveViewsClearAreKept) {
  const std::string red = "\x1b[1;31mFAIL\x1b[0m";
  EXPECT_EQ(terminal_text(red, true), red);
  EXPECT_EQ(terminal_text(red, false), "\u241b[1;31mFAIL\u241b[0m");
  EXPECT_EQ(terminal_text("\x1b[H\x1b[2J", true), "\x1b[H\x1b[2J");
  EXPECT_EQ(terminal_text("\x1b[m", true), "\x1b[m");
  // Conceal, blink, a background colour, 256 colours, cursor movement, erase, an OSC title.
  for (const char* shown : {"\x1b[8m", "\x1b[5m", "\x1b[41m", "\x1b[38;5;1m", "\x1b[1A", "\x1b[2K", "\x1b[3J",
                            "\x1b]0;title\x07", "\x1b[1;8m", "\x1b[0001m", "\x1b\x63"}) {
    const std::string out = terminal_text(shown, true);
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
    EXPECT_EQ(out.rfind("\u241b", 0), 0U) << out;
  }
  // Parameters past the longest sequence plumb prints are not held waiting for an end.
  const std::string long_params = "\x1b[" + std::string(40, '1') + "m";
  EXPECT_EQ(terminal_text(long_params, true).find('\x1b'), std::string::npos);
}

TEST(TerminalText, C1ControlsAndBytesThatAreNotUtf8AreReplaced) {
  // U+009B is CSI for a terminal that reads C1 controls; lone continuation, overlong, surrogate,
  // past U+10FFFF, cut short.
  EXPECT_EQ(terminal_text("a\xc2\x9b" "31mb"), "a\ufffd31mb");
  EXPECT_EQ(terminal_text("\xc2\xa0"), "\xc2\xa0");  // U+00A0 is printable
  EXPECT_EQ(terminal_text("\x80"), "\ufffd");
  EXPECT_EQ(terminal_text("\xc0\xaf"), "\ufffd\ufffd");
  EXPECT_EQ(terminal_text("\xed\xa0\x80"), "\ufffd\ufffd\ufffd");
  EXPECT_EQ(terminal_text("\xf4\x90\x80\x80"), "\ufffd\ufffd\ufffd\ufffd");
  EXPECT_EQ(terminal_text("ab\xe4\xbd"), "ab\ufffd\ufffd");
  EXPECT_EQ(terminal_text("\xf0\x9f\x92\xa1"), "\xf0\x9f\x92\xa1");
}

TEST(TerminalText, AnyCutIntoChunksGivesTheWholeTextsResult) {
  const std::string text = "GPU \x1b[1;31mFAIL\x1b[0m 体检 \x1b]52;c;x\x07 \xc2\x9b \xe4\xbd\xa0\x1b[H\x1b[2J\x1b[8m end\x1b";
  for (bool colour : {false, true}) {
    const std::string whole = terminal_text(text, colour);
    for (std::size_t step = 1; step <= 5; ++step) {
      TerminalFilter f(colour);
      std::string out;
      for (std::size_t i = 0; i < text.size(); i += step) f.feed(std::string_view(text).substr(i, step), out);
      f.finish(out);
      EXPECT_EQ(out, whole) << "chunks of " << step << (colour ? ", colour" : "");
    }
    // What comes out is safe already: a second pass changes nothing.
    EXPECT_EQ(terminal_text(whole, colour), whole);
  }
}

TEST(TerminalText, TheStreamsFilterOnlyATerminal) {
  // Under the test runner neither stream is normally a terminal: nothing is installed, and the
  // unfiltered standard error is std::cerr itself.
  std::streambuf* out = std::cout.rdbuf();
  {
    TerminalStreams streams;
    if (::isatty(1) == 0) {
      EXPECT_EQ(std::cout.rdbuf(), out);
    }
    if (::isatty(2) == 0) {
      EXPECT_EQ(&unfiltered_stderr(), &std::cerr);
    }
  }
  EXPECT_EQ(std::cout.rdbuf(), out);
}

}  // namespace
}  // namespace plumb
