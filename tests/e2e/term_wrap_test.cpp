// The terminal report fits the terminal: with COLUMNS=80 every line of a bad host's check (en and
// zh, -v included) is at most 80 columns unless it is one word that cannot break, and wrapping
// only moves words: the text is that of the unwrapped report, in order.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "../test_util.h"
#include "report/table.h"

namespace plumb {
namespace {

std::vector<std::string> words_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string without_blanks(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c != ' ' && c != '\n') out += c;
  }
  return out;
}

TEST(TermWrap, ABadHostsReportFitsEightyColumns) {
  for (const char* host : {"nvme-misconfigured", "oom-xid", "docker-v1"}) {
    for (const char* lang : {"en", "zh"}) {
      for (bool verbose : {false, true}) {
        std::vector<std::string> args{"check", "--root", test::host_fixture(host), "--lang", lang};
        if (verbose) args.emplace_back("-v");
        auto plain = test::run_plumb(args);
        auto wrapped = test::run_plumb(args, {{"COLUMNS", "80"}});
        ASSERT_LE(wrapped.exit_code, 1) << wrapped.err;
        // English breaks at spaces only; Chinese also between characters, so there only the
        // text without its blanks is compared.
        if (std::string(lang) == "en") {
          EXPECT_EQ(words_of(wrapped.out), words_of(plain.out)) << host;
        }
        EXPECT_EQ(without_blanks(wrapped.out), without_blanks(plain.out)) << host << " " << lang;
        std::size_t long_plain = 0;
        std::istringstream p(plain.out);
        for (std::string l; std::getline(p, l);) long_plain += display_width(l) > 80 ? 1 : 0;
        EXPECT_GT(long_plain, 0u) << host << ": the unwrapped report has no long line to wrap";
        std::istringstream in(wrapped.out);
        for (std::string l; std::getline(in, l);) {
          if (display_width(l) <= 80) continue;
          if (l.find("Verify: ") != std::string::npos || l.find("验证命令: ") != std::string::npos) continue;  // pasted whole
          EXPECT_EQ(words_of(l).size(), 1u) << host << " " << lang << ": " << l;
        }
      }
    }
  }
}

}  // namespace
}  // namespace plumb
