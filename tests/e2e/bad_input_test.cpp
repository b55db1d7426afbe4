// Bad input end to end: plumb answers with one line on stderr and exit code 2 when it cannot run,
// degrades to skip findings (never a crash) on unreadable or garbage files, and never leaves a
// half-written --out file.
#include <algorithm>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/json.h"
#include "../test_util.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;
using test::run_plumb;

struct BadInputDir {
  fs::path dir;
  explicit BadInputDir(const std::string& name)
      : dir(fs::path(::testing::TempDir()) / ("plumb_bad_input_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~BadInputDir() {
    std::error_code ec;
    // Give back permissions first so removal works for files made unreadable.
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    }
    fs::remove_all(dir, ec);
  }
  BadInputDir(const BadInputDir&) = delete;
  BadInputDir& operator=(const BadInputDir&) = delete;
  // A private copy of a fixture host tree to damage.
  [[nodiscard]] std::string copy_of(const std::string& host) const {
    fs::path to = dir / host;
    fs::copy(test::host_fixture(host), to, fs::copy_options::recursive);
    return to.string();
  }
  void put(const std::string& rel, const std::string& text) const {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel, std::ios::binary) << text;
  }
};

// "plumb could not run": exit 2, nothing on stdout, exactly one line on stderr.
void expect_one_line_error(const RunOutput& r, const std::string& must_contain) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.signal, 0);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(must_contain), std::string::npos) << r.err;
}

json findings_by_id(const std::string& out) {
  json j = json::parse(out, nullptr, false);
  json by = json::object();
  if (j.is_discarded()) return by;
  for (const auto& f : j.at("findings")) by[f.at("id").get<std::string>()] = f;
  return by;
}

TEST(BadInput, NonexistentRoot) {
  expect_one_line_error(run_plumb({"check", "--root", "/nonexistent/plumb/root"}), "--root /nonexistent/plumb/root");
}

TEST(BadInput, RootIsAFile) {
  expect_one_line_error(run_plumb({"check", "--root", test::fixture("procfs/procfs-swaps.txt")}), "not a directory");
}

TEST(BadInput, NonexistentPid) {
  expect_one_line_error(run_plumb({"check", "--root", test::host_fixture("healthy"), "--pid", "999999"}), "--pid 999999");
}

TEST(BadInput, UnknownOptionGetsDidYouMeanAndStrayArgumentsAreNamed) {
  expect_one_line_error(run_plumb({"check", "--fromat", "json"}), "plumb check: unknown option '--fromat' (did you mean '--format'?)");
  expect_one_line_error(run_plumb({"trace", "x.json", "--lnag=zh"}), "unknown option '--lnag' (did you mean '--lang'?)");
  expect_one_line_error(run_plumb({"check", "stray"}), "plumb check: unexpected argument 'stray'");
  // An unknown option before the command is named, not the command's own options after it (only
  // the command a line names gets its options built).
  RunOutput before = run_plumb({"--fromat", "check", "--format", "json"});
  expect_one_line_error(before, "--fromat");
  EXPECT_EQ(before.err.find("'--format'"), std::string::npos) << before.err;
}

TEST(BadInput, VersionAndHelpBeforeACommand) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--version"}, {"--version", "check"}}) {
    RunOutput r = run_plumb(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("plumb ", 0), 0u) << r.out;
  }
  RunOutput top = run_plumb({"--help"});
  EXPECT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("check"), std::string::npos) << top.out;
  RunOutput sub = run_plumb({"-h", "check"});
  EXPECT_EQ(sub.exit_code, 0) << sub.err;
  EXPECT_NE(sub.out.find("--format"), std::string::npos) << sub.out;
}

// The words other tools take for help and the version: `plumb` alone is `plumb --help`, `plumb
// help [CMD]`, `plumb version` and `-V`; a missing argument is named with what it wants.
TEST(BadInput, HelpAndVersionAsWordsAndMissingArgumentsNamed) {
  RunOutput top = run_plumb({"--help"});
  EXPECT_EQ(run_plumb({}).out, top.out);
  EXPECT_EQ(run_plumb({"help"}).out, top.out);
  EXPECT_NE(top.out.find("plumb help COMMAND"), std::string::npos) << top.out;
  EXPECT_EQ(run_plumb({"help", "check"}).out, run_plumb({"check", "--help"}).out);
  for (const char* v : {"version", "-V"}) {
    RunOutput r = run_plumb({v});
    EXPECT_EQ(r.exit_code, 0) << v << ": " << r.err;
    EXPECT_EQ(r.out, run_plumb({"--version"}).out) << v;
  }
  RunOutput action = run_plumb({"baseline"});
  expect_one_line_error(action, "missing action");
  EXPECT_NE(action.err.find("set [RUN] | show | export FILE | import FILE"), std::string::npos) << action.err;
  expect_one_line_error(run_plumb({"help", "nosuch"}), "unknown command 'nosuch'");
}

// An input of the wrong kind is refused in one line, as every other input is, instead of a report
// whose checks quietly could not read it.
TEST(BadInput, KmsgAndDataOfTheWrongKind) {
  expect_one_line_error(run_plumb({"check", "--kmsg", "/tmp", "--no-history"}), "--kmsg /tmp: not a file");
  expect_one_line_error(run_plumb({"check", "--kmsg", "/nonexistent.log", "--no-history"}), "--kmsg /nonexistent.log: cannot read");
  expect_one_line_error(run_plumb({"check", "--data", "/nonexistent", "--no-history"}), "--data /nonexistent: No such file or directory");
  expect_one_line_error(run_plumb({"check", "--data", "relative/dir", "--no-history"}), "--data relative/dir: give an absolute path");
}

TEST(BadInput, TimeoutTakesADurationOrBareSeconds) {
  const std::string root = test::host_fixture("healthy");
  for (const char* t : {"2s", "1500ms", "3000"}) {
    RunOutput r = run_plumb({"check", "--root", root, "--timeout", t, "--format", "json"});
    EXPECT_NE(r.exit_code, 2) << t << ": " << r.err;
  }
  expect_one_line_error(run_plumb({"check", "--root", root, "--timeout", "2x"}), "--timeout");
  expect_one_line_error(run_plumb({"check", "--root", root, "--timeout", "0"}), "--timeout");
}

TEST(BadInput, PlumbAloneListsTheCommands) {
  RunOutput r = run_plumb({});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Subcommands:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  check "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  trace "), std::string::npos) << r.out;
  EXPECT_LT(std::count(r.out.begin(), r.out.end(), '\n'), 40);
}

TEST(BadInput, UnknownFormatAndNoOutFile) {
  BadInputDir t("format");
  std::string out = (t.dir / "r.txt").string();
  RunOutput r = run_plumb({"check", "--root", test::host_fixture("healthy"), "--format", "jsn", "--out", out});
  expect_one_line_error(r, "did you mean 'json'");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(fs::is_empty(t.dir));
}

TEST(BadInput, InvalidTomlConfigNamesTheLine) {
  BadInputDir t("toml");
  t.put("bad.toml", "[thresholds\n\"cpu.thread_oversubscription_warn_ratio\" = 2\n");
  std::string out = (t.dir / "r.md").string();
  RunOutput r = run_plumb({"check", "--root", test::host_fixture("healthy"), "--config", (t.dir / "bad.toml").string(),
                           "--out", out});
  expect_one_line_error(r, "bad.toml:1:");
  EXPECT_FALSE(fs::exists(out));
}

TEST(BadInput, UnknownThresholdGetsDidYouMean) {
  BadInputDir t("toml_key");
  t.put("typo.toml", "[thresholds]\n\"process.memlock_min_mb\" = 128\n");
  RunOutput r = run_plumb({"check", "--root", test::host_fixture("healthy"), "--config", (t.dir / "typo.toml").string()});
  expect_one_line_error(r, "did you mean 'process.memlock_min_mib'");
  expect_one_line_error(r, "typo.toml:2:1: unknown threshold");  // file:line:column of the key
  t.put("top.toml", "skip = [\"l3.storage\"]\n\n[plumb]\nx = 1\n");
  expect_one_line_error(run_plumb({"check", "--root", test::host_fixture("healthy"), "--config", (t.dir / "top.toml").string()}),
                        "top.toml:3:2: unknown setting 'plumb'");
}

TEST(BadInput, ConfigThatIsNotANumber) {
  BadInputDir t("toml_type");
  t.put("type.toml", "[thresholds]\n\"process.memlock_min_mib\" = \"lots\"\n");
  RunOutput r = run_plumb({"check", "--root", test::host_fixture("healthy"), "--config", (t.dir / "type.toml").string()});
  expect_one_line_error(r, "type.toml:2:29: threshold 'process.memlock_min_mib' must be a finite number >= 0 (MiB), not a string");
}

TEST(BadInput, OutIntoMissingDirectory) {
  RunOutput r = run_plumb({"check", "--root", test::host_fixture("healthy"), "--format", "md", "--out",
                           "/nonexistent/plumb/dir/report.md"});
  expect_one_line_error(r, "cannot write /nonexistent/plumb/dir/report.md");
}

TEST(BadInput, UnreadableFilesBecomeSkipsWithTheReason) {
  BadInputDir t("unreadable");
  std::string root = t.copy_of("healthy");
  for (const char* rel : {"/proc/self/limits", "/proc/meminfo", "/proc/pressure/memory", "/proc/self/environ"}) {
    ASSERT_EQ(::chmod((root + rel).c_str(), 0), 0) << rel;
  }
  if (::access((root + "/proc/self/limits").c_str(), R_OK) == 0) {
    GTEST_SKIP() << "running with CAP_DAC_OVERRIDE (root): chmod 000 does not deny reads, so 'permission denied' "
                    "cannot be produced here";
  }
  RunOutput r = run_plumb({"check", "--root", root, "--format", "json"});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  json by = findings_by_id(r.out);
  for (const char* id : {"l3.memory.memlock_limit", "l3.memory.swap_active", "l2.memory.pressure",
                         "l3.compute.thread_oversubscription"}) {
    ASSERT_TRUE(by.contains(id)) << id;
    EXPECT_EQ(by[id].at("status"), "skip") << id;
    EXPECT_NE(by[id].at("args").at("reason").get<std::string>().find("permission denied"), std::string::npos) << id;
  }
}

// Works as root too: a directory (EISDIR) or a dangling link where a file should be cannot be read by anyone.
TEST(BadInput, FilesThatAreDirectoriesOrDanglingLinks) {
  BadInputDir t("eisdir");
  std::string root = t.copy_of("healthy");
  for (const char* rel : {"/proc/self/limits", "/proc/meminfo"}) {
    fs::remove(root + rel);
    fs::create_directory(root + rel);
  }
  fs::remove(root + "/proc/self/environ");
  fs::create_symlink(root + "/nowhere/environ", root + "/proc/self/environ");
  RunOutput r = run_plumb({"check", "--root", root, "--format", "json"});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  json by = findings_by_id(r.out);
  for (const char* id : {"l3.memory.memlock_limit", "l3.memory.swap_active", "l3.compute.thread_oversubscription"}) {
    ASSERT_TRUE(by.contains(id)) << id;
    EXPECT_EQ(by[id].at("status"), "skip") << id;
  }
  EXPECT_NE(by["l3.memory.memlock_limit"].at("args").at("reason").get<std::string>().find("/proc/self/limits"), std::string::npos);
  EXPECT_NE(by["l3.compute.thread_oversubscription"].at("args").at("reason").get<std::string>().find("/proc/self/environ"),
            std::string::npos);
}

TEST(BadInput, GarbageInSysfsAndProcValues) {
  BadInputDir t("garbage");
  std::string root = t.copy_of("healthy");
  auto put = [&](const std::string& rel, const std::string& text) { std::ofstream(root + rel, std::ios::binary) << text; };
  put("/sys/devices/system/cpu/online", "all of them\n");
  put("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", std::string("\0\xff\xfe", 3));
  put("/sys/devices/system/node/node0/cpulist", "0-99999999999\n");
  put("/proc/meminfo", "MemTotal: many kB\nSwapTotal: -1 kB\n");
  put("/proc/pressure/io", "some avg10=NaN avg60=inf avg300=1 total=x\n");
  put("/proc/sys/kernel/numa_balancing", "yes please\n");
  put("/proc/self/limits", "Limit Soft Hard Units\nMax locked memory lots lots bytes\n");
  put("/proc/self/status", "Threads:\t-5\nCpus_allowed_list:\t7-3\n");
  put("/proc/cpuinfo", std::string(100000, 'x'));
  RunOutput r = run_plumb({"check", "--root", root, "--format", "json"});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_EQ(r.signal, 0);
  json by = findings_by_id(r.out);
  for (const char* id : {"l3.memory.swap_active", "l3.memory.memlock_limit", "l2.data.io_pressure", "l3.compute.numa_balancing"}) {
    ASSERT_TRUE(by.contains(id)) << id;
    EXPECT_EQ(by[id].at("status"), "skip") << id;
    EXPECT_FALSE(by[id].at("args").at("reason").get<std::string>().empty()) << id;
  }
  // Governors: the other 31 CPUs still read fine; the damaged one is simply not counted.
  EXPECT_EQ(by["l3.compute.cpu_governor"].at("status"), "pass");
  // Markdown of the same tree renders too.
  RunOutput md = run_plumb({"check", "--root", root, "--format", "md", "--lang", "zh"});
  EXPECT_TRUE(md.exit_code == 0 || md.exit_code == 1) << md.err;
  EXPECT_NE(md.out.find("未检查的项"), std::string::npos);  // the section of checks that could not run
}

TEST(BadInput, EmptyRootDirectoryRunsAndSkipsEverything) {
  BadInputDir t("empty");
  RunOutput r = run_plumb({"check", "--root", t.dir.string(), "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json by = findings_by_id(r.out);
  for (const char* id : {"l3.compute.cpu_governor", "l3.memory.memlock_limit", "l3.memory.swap_active",
                         "l2.memory.pressure", "l3.compute.thread_oversubscription"}) {
    ASSERT_TRUE(by.contains(id)) << id;
    EXPECT_EQ(by[id].at("status"), "skip") << id;
  }
}

TEST(BadInput, ReportOfGarbageSnapshot) {
  BadInputDir t("snap");
  t.put("snap.json", "{\"schema_version\": 1, \"facts\": {\"host\": {\"cpu\": {\"logical_cpus\": {\"value\": \"many\"}}}}}");
  RunOutput r = run_plumb({"report", (t.dir / "snap.json").string()});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  RunOutput missing = run_plumb({"report", (t.dir / "none.json").string()});
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
}  // namespace plumb

namespace plumb {
namespace {

TEST(ConfigLocations, UserConfigIsReadThenConfigOverridesIt) {
  BadInputDir t("xdg");
  fs::create_directories(t.dir / "plumb");
  {
    std::ofstream(t.dir / "plumb/plumb.toml") << "skip = [\"l3.storage\"]\n";
  }
  const std::string root = test::host_fixture("nvme-misconfigured");
  auto with_user = run_plumb({"check", "--root", root, "-f", "json"}, {{"XDG_CONFIG_HOME", t.dir.string()}});
  ASSERT_NE(with_user.exit_code, 2) << with_user.err;
  auto by = findings_by_id(with_user.out);
  EXPECT_FALSE(by.contains("l3.storage.io_scheduler")) << "the user's config was not read";
  EXPECT_TRUE(by.contains("l3.memory.cgroup_oom_kills"));
  // --config adds to it.
  std::string extra = (t.dir / "extra.toml").string();
  {
    std::ofstream(extra) << "skip = [\"l3.memory\"]\n";
  }
  auto both = run_plumb({"check", "--root", root, "-f", "json", "--config", extra}, {{"XDG_CONFIG_HOME", t.dir.string()}});
  by = findings_by_id(both.out);
  EXPECT_FALSE(by.contains("l3.storage.io_scheduler"));
  EXPECT_FALSE(by.contains("l3.memory.cgroup_oom_kills"));
  // PLUMB_NO_DEFAULT_CONFIG=1: only --config.
  auto none = run_plumb({"check", "--root", root, "-f", "json"},
                        {{"XDG_CONFIG_HOME", t.dir.string()}, {"PLUMB_NO_DEFAULT_CONFIG", "1"}});
  EXPECT_TRUE(findings_by_id(none.out).contains("l3.storage.io_scheduler"));
  // A broken user config is an error naming its file and line, not ignored.
  {
    std::ofstream(t.dir / "plumb/plumb.toml") << "[thresholds]\n\"gpu.temperature_warn_c\" = true\n";
  }
  auto bad = run_plumb({"check", "--root", root}, {{"XDG_CONFIG_HOME", t.dir.string()}});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find((t.dir / "plumb/plumb.toml").string() + ":2"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace plumb
