// Core pieces: template filling, language detection, root-prefixed reads, suggestions, config.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/json.h"
#include "core/atomic_file.h"
#include "core/catalog.h"
#include "core/dir_names.h"
#include "core/facts.h"
#include "core/host_root.h"
#include "core/i18n.h"
#include "core/registry.h"
#include "core/subprocess.h"
#include "core/suggest.h"
#include "core/thresholds.h"
#include "../../test_util.h"

namespace plumb {
namespace {

TEST(Fill, ReplacesKnownAndKeepsUnknownPlaceholders) {
  EXPECT_EQ(fill("{a} and {b} {c", {{"a", "1"}, {"b", "2"}}), "1 and 2 {c");
  EXPECT_EQ(fill("{missing}", {}), "{missing}");
}

TEST(Lang, ParsesFlagsAndLocales) {
  Lang l = Lang::en;
  EXPECT_TRUE(parse_lang("zh", l));
  EXPECT_EQ(l, Lang::zh);
  EXPECT_TRUE(parse_lang("zh_CN.UTF-8", l));
  EXPECT_EQ(l, Lang::zh);
  EXPECT_TRUE(parse_lang("en", l));
  EXPECT_EQ(l, Lang::en);
  EXPECT_FALSE(parse_lang("fr", l));
  EXPECT_EQ(detect_lang("zh"), Lang::zh);
}

TEST(HostRoot, PrefixesEveryPathAndReportsMissingFiles) {
  HostRoot live;
  EXPECT_EQ(live.path("/proc/meminfo"), "/proc/meminfo");
  HostRoot fx("/tmp/x/");
  EXPECT_EQ(fx.path("/proc/meminfo"), "/tmp/x/proc/meminfo");
  auto r = HostRoot(test::fixture("")).read("/does/not/exist");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::absent);
  EXPECT_NE(r.error().describe().find("/does/not/exist"), std::string::npos);
  // The shown path never carries the root prefix.
  EXPECT_EQ(r.error().message.find(test::fixture("")), std::string::npos);
}

TEST(HostRoot, ReadsValuesAndDirectories) {
  std::string dir = ::testing::TempDir() + "/plumb_root_test";
  std::system(("mkdir -p " + dir + "/sys/x").c_str());  // NOLINT: test setup, fixed string
  { std::ofstream(dir + "/sys/x/v") << "  42 \nsecond\n"; }
  HostRoot root(dir);
  auto v = root.read_value("/sys/x/v");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "42");
  auto l = root.list("/sys/x");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->size(), 1u);
  auto d = root.read("/sys/x");
  EXPECT_FALSE(d.ok());
}

// Whole-file reads at every size around the limit, of regular files (read into a string sized from
// st_size) and of /proc files (st_size 0: the string grows as it fills).
TEST(HostRoot, ReadsWholeFilesUpToTheLimitAndRefusesLargerOnes) {
  const std::string dir = ::testing::TempDir() + "/plumb_root_sizes_test";
  std::filesystem::create_directories(dir + "/f");
  HostRoot root(dir);
  for (std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{4095}, std::size_t{4096}, std::size_t{4097},
                           std::size_t{65536}, std::size_t{200000}}) {
    std::string text(size, 'x');
    for (std::size_t i = 0; i < size; i += 97) text[i] = static_cast<char>('a' + i % 26);
    { std::ofstream(dir + "/f/t", std::ios::binary | std::ios::trunc) << text; }
    auto whole = root.read("/f/t", size);
    ASSERT_TRUE(whole.ok()) << size << ": " << whole.error().describe();
    EXPECT_EQ(*whole, text) << size;
    auto user = read_user_file(dir + "/f/t", size + 10);
    ASSERT_TRUE(user.ok()) << size;
    EXPECT_EQ(*user, text) << size;
    if (size == 0) continue;
    auto over = root.read("/f/t", size - 1);
    ASSERT_FALSE(over.ok()) << size;
    EXPECT_EQ(over.error().kind, ErrorKind::invalid);
    EXPECT_NE(over.error().message.find("is larger than " + std::to_string(size - 1) + " bytes"), std::string::npos)
        << over.error().message;
    EXPECT_FALSE(read_user_file(dir + "/f/t", size - 1).ok()) << size;
  }
  // A file of unknown size: /proc reports 0 and the whole text still comes back.
  HostRoot live;
  auto maps = live.read("/proc/self/maps", 16u << 20);
  ASSERT_TRUE(maps.ok()) << maps.error().describe();
  EXPECT_GT(maps->size(), 4096u);  // more than the first block
  EXPECT_EQ(maps->back(), '\n');
  auto small = live.read("/proc/self/maps", 100);
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.error().message.find("is larger than 100 bytes"), std::string::npos) << small.error().message;
  // A sparse file far over the limit is refused from its size, not read up to it.
  {
    std::ofstream f(dir + "/f/sparse", std::ios::binary | std::ios::trunc);
    f.seekp((std::streamoff{1} << 34) - 1);  // 16 GiB
    f.put('\0');
  }
  auto sparse = root.read("/f/sparse", 1u << 20);
  ASSERT_FALSE(sparse.ok());
  EXPECT_NE(sparse.error().message.find("is larger than"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(HostRoot, ListsOnlyTheNamesAFilterKeepsSorted) {
  std::string dir = ::testing::TempDir() + "/plumb_root_filter_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/lib");
  for (const char* n : {"libz.so.1", "libcudart.so.13", "libc.so.6", "libcudart.so.12"}) std::ofstream(dir + "/lib/" + n) << "x";
  HostRoot root(dir);
  std::vector<std::string> seen;
  auto l = list_names(root, "/lib", [&](std::string_view n) {
    seen.emplace_back(n);
    return n.rfind("libcudart", 0) == 0;
  });
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l, (std::vector<std::string>{"libcudart.so.12", "libcudart.so.13"}));
  EXPECT_EQ(seen.size(), 4U) << "every name but . and .. is offered once";
  auto missing = list_names(root, "/nope", [](std::string_view) { return true; });
  EXPECT_FALSE(missing.ok());
  std::filesystem::remove_all(dir);
}

TEST(Suggest, FindsCloseNames) {
  EXPECT_EQ(closest("chek", {"check", "trace", "topo"}), "check");
  EXPECT_EQ(closest("zzzzzz", {"check", "trace"}), "");
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Subprocess, CapturesOutputAndExitCode) {
  auto r = run_program({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
}

TEST(Subprocess, KillsAtTheDeadline) {
  RunOptions o;
  o.timeout = std::chrono::milliseconds(200);
  auto start = std::chrono::steady_clock::now();
  auto r = run_program({"sleep", "30"}, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(Subprocess, SpawnThenFinishIsRunProgram) {
  auto child = spawn_program({"sh", "-c", "read line; echo \"got $line\"; echo err >&2; exit 4"}, [] {
    RunOptions o;
    o.stdin_data = "hello\n";
    return o;
  }());
  ASSERT_TRUE(child.ok()) << child.error().message;
  EXPECT_GT(child->pid(), 0);
  auto r = finish_program(*child);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->out, "got hello\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_EQ(r->exit_code, 4);
  EXPECT_EQ(child->pid(), -1);  // reaped
  EXPECT_FALSE(finish_program(*child).ok());  // once only
}

TEST(Subprocess, ADroppedChildIsKilledAndReaped) {
  int pid = -1;
  {
    auto child = spawn_program({"sleep", "30"});
    ASSERT_TRUE(child.ok());
    pid = child->pid();
    ASSERT_EQ(::kill(pid, 0), 0);
  }
  // Killed and reaped by the destructor: not even a zombie is left under that pid.
  errno = 0;
  EXPECT_EQ(::kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

TEST(Subprocess, TheDeadlineCountsFromTheStart) {
  auto child = spawn_program({"sleep", "30"});
  ASSERT_TRUE(child.ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  RunOptions o;
  o.timeout = std::chrono::milliseconds(200);  // already past when finish_program is called
  auto before = std::chrono::steady_clock::now();
  auto r = finish_program(*child, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(2));
}

TEST(Subprocess, ExitIsSeenWithoutWaitingForAPollTick) {
  // The child closes its output and lingers 300 ms before exiting: the exit is awaited (on a
  // pidfd where the kernel has them), neither missed nor cut at the deadline.
  RunOptions o;
  o.timeout = std::chrono::milliseconds(10000);
  auto r = run_program({"sh", "-c", "exec >/dev/null 2>&1; sleep 0.3; exit 7"}, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 7);
}

TEST(Subprocess, SelfExecutableIsThisTestBinary) {
  std::string self = self_executable();
  ASSERT_FALSE(self.empty());
  EXPECT_EQ(std::filesystem::path(self).filename(), "plumb_unit_tests");
}

TEST(Subprocess, MissingProgramIsAbsent) {
  auto r = run_program({"/nonexistent/program"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::absent);
}

TEST(Subprocess, PassesArgumentsWithoutAShell) {
  auto r = run_program({"printf", "%s", "$(echo injected); rm -rf /"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out, "$(echo injected); rm -rf /");
}

TEST(AtomicFile, WritesWholeFileOrReportsError) {
  std::string p = ::testing::TempDir() + "/plumb_atomic.txt";
  ASSERT_TRUE(write_file_atomic(p, "hello").ok());
  auto r = read_user_file(p);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "hello");
  auto bad = write_file_atomic("/nonexistent-dir/x.txt", "x");
  EXPECT_FALSE(bad.ok());
}

// Real thresholds of the rules: watch.min_samples (5, a count), trace.dataloader_share_fail (40 %),
// framework.require_determinism (0|1).
TEST(Config, OverridesThresholdsAndRejectsUnknownKeys) {
  auto c = parse_config("[thresholds]\n\"watch.min_samples\" = 9\n", "x.toml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->thresholds.get("watch.min_samples"), 9);
  auto nested = parse_config("[thresholds.watch]\nmin_samples = 11\n", "x.toml");
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested->thresholds.get("watch.min_samples"), 11);
  auto bad = parse_config("[thresholds]\n\"watch.min_sampels\" = 1\n", "x.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("did you mean 'watch.min_samples'"), std::string::npos);
  auto syntax = parse_config("[thresholds\n", "x.toml");
  ASSERT_FALSE(syntax.ok());
  EXPECT_NE(syntax.error().message.find("x.toml:1"), std::string::npos);
  auto type = parse_config("[thresholds]\n\"watch.min_samples\" = \"high\"\n", "x.toml");
  EXPECT_FALSE(type.ok());
  // A table name that starts with a control character (found by the fuzzer): an error, in every
  // build (toml++'s own assertion aborted on it where assertions are on).
  auto control = parse_config(std::string("[\x01\0\0\0\0\0\0<ds\nx = 1\n", 18), "x.toml");
  ASSERT_FALSE(control.ok());
  EXPECT_NE(control.error().message.find("x.toml:1:2"), std::string::npos) << control.error().message;
  EXPECT_EQ(Thresholds().get("watch.min_samples"), 5);
}

std::string utf8(char32_t cp) {
  std::string s;
  if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
  } else {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  }
  s += static_cast<char>(0x80 | (cp & 0x3F));
  return s;
}

// Every non-ASCII code point where the parser looks for whitespace is an error, and none reaches
// toml++ 3.3.0's unreachable branch (undefined behaviour, a runtime error under the sanitizers):
// U+FB06..U+FEFE all did. Inside strings and comments the same code points are text.
TEST(Config, NonAsciiCodePointsWhereWhitespaceMayStandAreErrors) {
  for (char32_t cp = 0xA0; cp <= 0xFFFD; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    bool dense = cp >= 0xFB00 || (cp >= 0x2000 && cp <= 0x2060) || cp < 0x200;
    if (!dense && cp % 61 != 0) continue;
    std::string c = utf8(cp);
    for (const std::string& text : {"[thresholds" + c + "]\n", "skip =" + c + "[]\n", "skip = []" + c + "\n"}) {
      auto r = parse_config(text, "x.toml");
      ASSERT_FALSE(r.ok()) << "U+" << std::hex << static_cast<unsigned>(cp);
      EXPECT_NE(r.error().message.find("x.toml:1"), std::string::npos) << r.error().message;
    }
  }
  auto text = parse_config("# \xe9\x98\x88\xe5\x80\xbc \xef\xb9\xbf\nskip = [\"l2\"] # \xef\xb9\xbf\xef\xbb\xbf\n",
                           "x.toml");
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(text->skip, std::vector<std::string>{"l2"});
}

TEST(Selection, MatchesIdsAndPrefixes) {
  Selection s;
  s.only = {"l3.storage"};
  EXPECT_TRUE(s.selects("l3.storage.io_scheduler"));
  EXPECT_FALSE(s.selects("l3.storagex"));
  EXPECT_FALSE(s.selects("l3.memory.swap"));
  s.skip = {"l3.storage.io_scheduler"};
  EXPECT_FALSE(s.selects("l3.storage.io_scheduler"));
  // A prefix selects whole dot-separated parts, with or without its last dot; empty selects all.
  Selection dotted;
  dotted.only = {"l3.storage."};
  EXPECT_TRUE(dotted.selects("l3.storage.io_scheduler"));
  EXPECT_FALSE(dotted.selects("l3.storagex.a"));
  EXPECT_FALSE(dotted.selects("l3"));
  Selection longer;
  longer.only = {"l3.storage.io_scheduler.x"};
  EXPECT_FALSE(longer.selects("l3.storage.io_scheduler"));
  Selection empty;
  empty.only = {""};
  EXPECT_TRUE(empty.selects("l3.storage.io_scheduler"));
}

TEST(Selection, AnOldIdSelectsWhatItNowNames) {
  ASSERT_FALSE(aliases().empty());
  for (const auto& a : aliases()) {
    const std::string now = canonical_id(a.from);
    Selection s;
    s.only = {a.from};
    EXPECT_TRUE(s.selects(now)) << a.from << " -> " << now;
    // Its prefix at a dot selects it too, and the old id does not select what it does not name.
    s.only = {a.from.substr(0, a.from.rfind('.'))};
    EXPECT_TRUE(s.selects(now)) << s.only.front() << " -> " << now;
    s.only = {a.from};
    EXPECT_FALSE(s.selects(now + "x")) << a.from;
    s.skip = {a.from};
    EXPECT_FALSE(s.selects(now)) << a.from;
    // A rule of the new id that reads another source than the alias names is not selected by it.
    if (!a.source.empty()) {
      RuleInfo r;
      r.id = now;
      r.source = a.source + "-other";
      Selection by_old;
      by_old.only = {a.from};
      EXPECT_FALSE(by_old.selects(r)) << a.from;
      r.source = a.source;
      EXPECT_TRUE(by_old.selects(r)) << a.from;
    }
  }
}

TEST(Catalog, EveryRowHasBothLanguagesAndEveryRuleHasARow) {
  for (const auto& [id, e] : catalog()) {
    EXPECT_FALSE(e.title.en.empty()) << id;
    EXPECT_FALSE(e.title.zh.empty()) << id;
    for (const auto& [variant, text] : e.messages) {
      EXPECT_FALSE(text.en.empty()) << id << " " << variant;
      EXPECT_FALSE(text.zh.empty()) << id << " " << variant;
    }
    if (!e.fix.en.empty()) {
      EXPECT_FALSE(e.fix.zh.empty()) << id;
    }
    for (const auto& l2 : e.explains) {
      const auto* target = find_entry(l2);
      ASSERT_NE(target, nullptr) << id << " explains unknown " << l2;
      EXPECT_EQ(target->layer, Layer::L2) << id << " explains " << l2;
    }
  }
  for (const auto& r : rules()) EXPECT_NE(find_entry(r.id), nullptr) << "rule without catalogue row: " << r.id;
  for (const auto& [k, t] : ui_strings()) {
    EXPECT_FALSE(t.en.empty()) << k;
    EXPECT_FALSE(t.zh.empty()) << k;
  }
  for (const auto& [k, d] : threshold_defs()) EXPECT_FALSE(d.doc.zh.empty()) << k;
}

// The ids of the rows that explain `l2`, by walking every row.
std::vector<std::string> causes_by_walking(const std::string& l2) {
  std::vector<std::string> out;
  for (const auto& [id, e] : catalog()) {
    for (const auto& x : e.explains) {
      if (x == l2) out.push_back(id);
    }
  }
  return out;
}

TEST(Catalog, TheCausesOfAnL2FindingAreTheRowsThatExplainIt) {
  std::size_t linked = 0;
  for (const auto& [id, e] : catalog()) {
    if (e.layer != Layer::L2) continue;
    EXPECT_EQ(l3_causes_of(id), causes_by_walking(id)) << id;
    linked += causes_by_walking(id).empty() ? 0 : 1;
  }
  EXPECT_GT(linked, 10U);
  EXPECT_TRUE(l3_causes_of("l2.no.such.finding").empty());
  // The rows arrive in registration order, not sorted: several causes of one finding come back in
  // id order all the same. An old id asks for what it now names.
  EXPECT_GE(l3_causes_of("l2.memory.pressure").size(), 2U);
  for (const auto& a : aliases()) {
    if (!a.source.empty()) continue;
    EXPECT_EQ(l3_causes_of(a.from), l3_causes_of(canonical_id(a.from))) << a.from;
  }
}

}  // namespace
}  // namespace plumb

namespace plumb {
namespace {

TEST(Snapshot, FactsRoundTripExactly) {
  Facts f;
  f.meta.hostname = "node-1";
  f.meta.started_at = "2026-11-29T10:00:00Z";
  f.meta.collectors.push_back({"collect.os", "ok", 1.25, ""});
  f.host.os.kernel = Fact<std::string>::of("6.1.0-18-amd64", "/proc/sys/kernel/osrelease");
  f.host.os.pretty_name = Fact<std::string>::none("absent: /etc/os-release (No such file or directory)", "/etc/os-release");
  f.host.memory.mem_total_bytes = Fact<std::uint64_t>::of(17179869184ULL, "/proc/meminfo");
  f.host.cgroup.effective_cpus = Fact<double>::of(2.5, "/sys/fs/cgroup/cpu.max");
  json j = f;
  Facts back = j.get<Facts>();
  EXPECT_EQ(back, f);
  EXPECT_EQ(json(back).dump(), j.dump());
  // Missing and not-collected stay distinct from zero.
  EXPECT_TRUE(j["host"]["os"]["version_id"].is_null());
  EXPECT_EQ(j["host"]["os"]["pretty_name"]["missing"], "absent: /etc/os-release (No such file or directory)");
}

}  // namespace
}  // namespace plumb

namespace plumb {
namespace {
std::string fresh_dir(const std::string& name) {
  std::string d = ::testing::TempDir() + "/plumb_atomic_" + name + "_" + std::to_string(::getpid());
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}
std::size_t entries(const std::string& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}
}  // namespace

TEST(AtomicFile, RefusesToReplaceAnythingButARegularFile) {
  std::string d = fresh_dir("kinds");
  std::string fifo = d + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = write_file_atomic(fifo, "x");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("a FIFO, not a regular file"), std::string::npos) << r.error().message;
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));

  std::string target = d + "/target";
  ASSERT_TRUE(write_file_atomic(target, "keep").ok());
  std::string link = d + "/link";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  r = write_file_atomic(link, "x");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("symbolic link"), std::string::npos);
  EXPECT_EQ(*read_user_file(target), "keep");

  r = write_file_atomic(d, "x");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("a directory"), std::string::npos);
  EXPECT_EQ(entries(d), 3u);  // fifo, target, link: no temporary left behind
}

TEST(AtomicFile, KeepsTheModeOfAnExistingFileAndHonoursTheUmask) {
  std::string d = fresh_dir("mode");
  std::string p = d + "/private.json";
  ASSERT_TRUE(write_file_atomic(p, "one").ok());
  ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
  ASSERT_TRUE(write_file_atomic(p, "two").ok());
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(*read_user_file(p), "two");

  mode_t old = ::umask(077);
  std::string q = d + "/new.json";
  auto w = write_file_atomic(q, "new");
  ::umask(old);
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(::stat(q.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(entries(d), 2u);
}

}  // namespace plumb

namespace plumb {
namespace {

TEST(Config, RejectsWrongTypesNonFiniteAndOutOfRangeValuesWithLineAndColumn) {
  auto b = parse_config("[thresholds]\n\"watch.min_samples\" = true\n", "c.toml");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("c.toml:2:"), std::string::npos) << b.error().message;
  EXPECT_NE(b.error().message.find("not a boolean"), std::string::npos) << b.error().message;
  for (const char* bad : {"nan", "inf", "-inf", "-3"}) {
    auto r = parse_config(std::string("[thresholds]\n\"watch.min_samples\" = ") + bad + "\n", "c.toml");
    EXPECT_FALSE(r.ok()) << bad;
  }
  auto pct = parse_config("[thresholds]\n\"trace.dataloader_share_fail\" = 140\n", "c.toml");
  ASSERT_FALSE(pct.ok());
  EXPECT_NE(pct.error().message.find("from 0 to 100"), std::string::npos) << pct.error().message;
  auto flag = parse_config("[thresholds]\n\"framework.require_determinism\" = true\n", "c.toml");
  ASSERT_TRUE(flag.ok()) << flag.error().message;
  EXPECT_EQ(flag->thresholds.get("framework.require_determinism"), 1);
  EXPECT_FALSE(parse_config("[thresholds]\n\"framework.require_determinism\" = 2\n", "c.toml").ok());
  auto ok = parse_config("[thresholds]\n\"trace.dataloader_share_fail\" = 12.5\n", "c.toml");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->thresholds.get("trace.dataloader_share_fail"), 12.5);
}

TEST(Config, RefusesNestingThatWouldExhaustTheParsersStack) {
  // A 40,000-level dotted table header used to overflow the stack inside the TOML parser.
  std::string deep = "[";
  for (int i = 0; i < 40000; ++i) deep += i ? ".a" : "a";
  deep += "]\n";
  auto r = parse_config("# config\n" + deep, "deep.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("deep.toml:2: nesting deeper than"), std::string::npos) << r.error().message;
  std::string arrays(30000, '[');
  EXPECT_FALSE(parse_config("x = " + arrays, "deep.toml").ok());
  // Dots inside strings and comments do not count.
  EXPECT_TRUE(parse_config("# " + std::string(200, '.') + "\nskip = [\"" + std::string(100, '.') + "\"]\n", "c.toml").ok());
}

}  // namespace
}  // namespace plumb
