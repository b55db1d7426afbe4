// The Chinese reports are Chinese: every fixture host's `check --lang zh -v` in term, md and html,
// the file subcommands' reports on their fixtures, and every `--help` with --lang zh must hold no
// run of English prose. A run is three or more English words (letters only, one space apart) that
// is not inside backticks, quotes or <code>, not glued to a path, flag or identifier, and not a
// phrase of tests/fixtures/zh_whitelist.txt (identifiers, product names, text quoted from the
// input). The words docs/glossary.md forbids (the other word for a concept) must not appear.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "../test_util.h"

namespace plumb::test {
namespace {

namespace fs = std::filesystem;

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Whitelist: one phrase a line, then two spaces, '#' and why it may stay English.
std::vector<std::string> whitelist() {
  std::vector<std::string> out;
  std::istringstream in(read_all(fixture("zh_whitelist.txt")));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto cut = line.find("  #");
    EXPECT_NE(cut, std::string::npos) << "whitelist entry without a comment: " << line;
    out.push_back(line.substr(0, cut));
  }
  return out;
}

// Replaces each span from `open` to the next `close` (both included) with a space.
void erase_spans(std::string& s, const std::string& open, const std::string& close, bool one_line) {
  for (auto p = s.find(open); p != std::string::npos; p = s.find(open, p)) {
    auto q = s.find(close, p + open.size());
    if (q == std::string::npos || (one_line && s.find('\n', p) < q)) {
      p += open.size();
      continue;
    }
    s.replace(p, q + close.size() - p, " ");
  }
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (auto p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
}

// The runs of English prose in a rendered text.
std::vector<std::string> english_runs(std::string text, bool html, const std::vector<std::string>& allowed) {
  if (html) {
    erase_spans(text, "<style", "</style>", false);
    erase_spans(text, "<script", "</script>", false);
    erase_spans(text, "<code>", "</code>", false);
    erase_spans(text, "<", ">", false);
    for (const auto& [ent, ch] : std::vector<std::pair<std::string, std::string>>{
             {"&quot;", "\""}, {"&#39;", "'"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}}) {
      replace_all(text, ent, ch);
    }
  }
  erase_spans(text, "`", "`", true);
  erase_spans(text, "\"", "\"", true);
  erase_spans(text, "“", "”", true);
  erase_spans(text, "'", "'", true);
  for (const auto& w : allowed) replace_all(text, w, " ");
  // Values quoted from the input: an evidence value (between " = " and its "  (source)" in the
  // terminal report; md and html put it in code), a job-log line after "日志 FILE:LINE: ", and
  // the verify command after "验证命令: " (a command, in code in md and html).
  static const std::regex evidence_value(R"((证据: .*? = ).*?(  \(|$))");
  static const std::regex log_line(R"(日志 \S+:[0-9]+: .*$|验证命令: .*$)");
  static const std::regex run(R"((^|[^\w./=$@#:-])([A-Za-z][a-z]+(?: [A-Za-z][a-z]+){2,})(?![\w/=.-]))");
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    line = std::regex_replace(line, evidence_value, "$1 $2");
    line = std::regex_replace(line, log_line, " ");
    for (std::sregex_iterator it(line.begin(), line.end(), run), end; it != end; ++it) out.push_back((*it)[2].str());
  }
  return out;
}

// The words the glossary forbids: the third column of its table rows.
std::vector<std::string> forbidden_words() {
  std::vector<std::string> out;
  std::istringstream in(read_all(test_dir() + "/../docs/glossary.md"));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cols;
    std::stringstream row(line.substr(1));
    for (std::string c; std::getline(row, c, '|');) cols.push_back(c);
    if (cols.size() < 4) continue;
    std::string f = cols[2];
    std::stringstream words(f);
    for (std::string w; std::getline(words, w, ',');) {
      auto b = w.find_first_not_of(' ');
      auto e = w.find_last_not_of(' ');
      if (b == std::string::npos) continue;
      w = w.substr(b, e - b + 1);
      if (w.size() > 1 && w.front() == '`' && w.back() == '`') out.push_back(w.substr(1, w.size() - 2));
    }
  }
  return out;
}

void expect_chinese(const std::string& what, const std::string& text, bool html) {
  static const std::vector<std::string> allowed = whitelist();
  static const std::vector<std::string> forbidden = forbidden_words();
  auto runs = english_runs(text, html, allowed);
  std::set<std::string> uniq(runs.begin(), runs.end());
  std::string list;
  for (const auto& r : uniq) list += "\n  «" + r + "»";
  EXPECT_TRUE(uniq.empty()) << what << ": English left in the zh output (translate it, or whitelist it with a reason):" << list;
  for (const auto& w : forbidden) EXPECT_EQ(text.find(w), std::string::npos) << what << ": forbidden word «" << w << "» (docs/glossary.md)";
}

// The detector itself: a planted sentence is caught, identifiers and quoted input are not.
TEST(ZhComplete, DetectorCatchesPlantedEnglish) {
  const std::vector<std::string> none;
  EXPECT_EQ(english_runs("证据: GPUs in the file = 8", false, none), std::vector<std::string>{"in the file"});
  EXPECT_EQ(english_runs("修复建议: the device was not found\n", false, none), std::vector<std::string>{"the device was not found"});
  EXPECT_EQ(english_runs("<dd>no benchmark measured anything</dd>", true, none).size(), 1u);
  EXPECT_TRUE(english_runs("运行 `plumb check --only l3.compute` 与 'No space left on device'", false, none).empty());
  EXPECT_TRUE(english_runs("<code>all reduce perf</code> /usr/lib/x86_64-linux-gnu NCCL_IB_HCA=mlx5_0", true, none).empty());
  EXPECT_TRUE(english_runs("CUDA 运行时 12.4，GPU 0000:18:00.0", false, none).empty());
  EXPECT_TRUE(english_runs("日志：Too many open files", false, {"Too many open files"}).empty());
  EXPECT_TRUE(english_runs("  证据: OOM 消息 = CUDA out of memory. Tried to allocate  (x.log)", false, none).empty());
  EXPECT_EQ(english_runs("  证据: the planted label = 1  (x.log)", false, none), std::vector<std::string>{"the planted label"});
  EXPECT_TRUE(english_runs("日志 a.log:13: RuntimeError: unable to write to file", false, none).empty());
  EXPECT_FALSE(forbidden_words().empty()) << "docs/glossary.md lists no forbidden word";
  EXPECT_FALSE(whitelist().empty());
}

const char* ext_of(const std::string& fmt) { return fmt == "term" ? "txt" : fmt.c_str(); }

TEST(ZhComplete, EveryFixtureHostCheckIsChinese) {
  int hosts = 0;
  for (const auto& e : fs::directory_iterator(fixture("hosts"))) {
    if (!e.is_directory()) continue;
    const std::string host = e.path().filename().string();
    ++hosts;
    for (const std::string fmt : {"term", "md", "html"}) {
      auto r = run_plumb({"check", "--root", e.path().string(), "--nvml-lib", e.path().string() + "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1",
                          "--no-history", "--lang", "zh", "-v", "--format", fmt});
      ASSERT_LE(r.exit_code, 1) << host << " " << fmt << ": " << r.err;
      expect_chinese("check " + host + "." + ext_of(fmt), r.out, fmt == "html");
    }
  }
  EXPECT_GE(hosts, 7);
}

TEST(ZhComplete, FileSubcommandReportsAreChinese) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
      {"trace", {"trace", fixture("traces/generated/cpu-mlp-num-workers-0.json")}},
      {"topo", {"topo", "--root", host_fixture("dgx-8gpu-2socket"), "--group", "4"}},
      {"nccl-tests", {"nccl-tests", fixture("comm/nccl-tests/leonardo-4x-a100-sxm-64gb-sendrecv_perf-nccl-info-interleaved.txt"),
                      "--root", host_fixture("noib-2gpu-eth")}},
      {"memory", {"memory", fixture("framework/memory/fairseq-v100-16gb-oom-58-ooms-66-retries.txt")}},
      {"h5", {"h5", fixture("framework/h5/small-gzip.h5")}},
      {"diff", {"diff", fixture("framework/snapshots/a.json"), fixture("framework/snapshots/b.json")}},
      {"diagnose", {"diagnose", fixture("logs/shm-docker-64m-no-space-left.log"), "--root", host_fixture("docker-v1")}},
  };
  for (const auto& [name, args] : cases) {
    for (const std::string fmt : {"term", "md", "html"}) {
      auto a = args;
      a.insert(a.end(), {"--lang", "zh", "--format", fmt});
      auto r = run_plumb(a);
      ASSERT_LE(r.exit_code, 1) << name << " " << fmt << ": " << r.err;
      expect_chinese(name + "." + ext_of(fmt), r.out, fmt == "html");
    }
  }
  // Every job log of the diagnose fixtures, in the terminal report.
  for (const auto& e : fs::directory_iterator(fixture("logs"))) {
    if (!e.is_regular_file()) continue;
    auto r = run_plumb({"diagnose", e.path().string(), "--root", host_fixture("healthy"), "--lang", "zh"});
    ASSERT_LE(r.exit_code, 1) << e.path() << ": " << r.err;
    expect_chinese("diagnose " + e.path().filename().string(), r.out, false);
  }
}

TEST(ZhComplete, FleetReportIsChinese) {
  const fs::path dir = fs::temp_directory_path() / ("plumb-zh-fleet-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const std::string host : {"healthy", "docker-v1", "nvme-misconfigured"}) {
    auto r = run_plumb({"check", "--root", host_fixture(host), "--save", (dir / (host + ".json")).string(), "--format", "json",
                        "--no-history"});
    ASSERT_LE(r.exit_code, 1) << r.err;
  }
  for (const std::string fmt : {"term", "md", "html"}) {
    auto r = run_plumb({"fleet", "report", dir.string(), "--lang", "zh", "--format", fmt});
    EXPECT_LE(r.exit_code, 1) << fmt << ": " << r.err;
    expect_chinese(std::string("fleet report.") + ext_of(fmt), r.out, fmt == "html");
  }
  fs::remove_all(dir);
}

TEST(ZhComplete, PrintConfigIsChinese) {
  auto r = run_plumb({"check", "--print-config", "--lang", "zh"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The keys and values are TOML that the config reader takes in either language.
  std::string comments;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# ", 0) == 0) comments += line + "\n";
  }
  EXPECT_GT(comments.size(), 1000u) << r.out;
  expect_chinese("plumb check --print-config --lang zh", comments, false);
  auto en = run_plumb({"check", "--print-config"});
  EXPECT_NE(en.out, r.out);
}

TEST(ZhComplete, EveryHelpIsChinese) {
  auto top = run_plumb({"--help", "--lang", "zh"});
  expect_chinese("plumb --help", top.out, false);
  auto bare = run_plumb({}, {{"LC_ALL", "zh_CN.UTF-8"}});
  expect_chinese("plumb (LC_ALL=zh_CN.UTF-8)", bare.out, false);
  // The command names from the bare listing: two spaces, a name, two spaces.
  std::vector<std::string> names;
  std::istringstream in(bare.out);
  static const std::regex cmd(R"(^  ([a-z0-9-]+)  )");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, cmd)) names.push_back(m[1].str());
  }
  EXPECT_GE(names.size(), 15u) << bare.out;
  for (const auto& n : names) {
    auto env = run_plumb({n, "--help"}, {{"LANG", "zh_CN.UTF-8"}, {"LC_ALL", ""}});
    EXPECT_EQ(env.exit_code, 0) << n << ": " << env.err;
    expect_chinese("LANG=zh_CN.UTF-8 plumb " + n + " --help", env.out, false);
    if (env.out.find("--lang") == std::string::npos) continue;  // a command without --lang
    auto r = run_plumb({n, "--help", "--lang", "zh"}, {{"LANG", "C"}, {"LC_ALL", ""}});
    EXPECT_EQ(r.exit_code, 0) << n << ": " << r.err;
    expect_chinese("plumb " + n + " --help --lang zh", r.out, false);
  }
  auto fleet_report = run_plumb({"fleet", "report", "--help"}, {{"LC_ALL", "zh_CN.UTF-8"}});
  expect_chinese("plumb fleet report --help", fleet_report.out, false);
}

}  // namespace
}  // namespace plumb::test
