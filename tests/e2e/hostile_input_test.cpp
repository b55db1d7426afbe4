// Hostile input end to end: plumb runs as root on shared nodes and reads files users control. A
// FIFO given where a file is expected must be refused at once ("not a regular file", exit 2)
// instead of blocking in open(2) forever.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "../test_util.h"
#include "watch_spawn.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;

struct FifoDir {
  fs::path dir;
  fs::path fifo;
  FifoDir() : dir(fs::path(::testing::TempDir()) / ("plumb_hostile_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    fifo = dir / "pipe";
    EXPECT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  }
  ~FifoDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  FifoDir(const FifoDir&) = delete;
  FifoDir& operator=(const FifoDir&) = delete;
};

// Runs plumb with a short deadline: a hang shows up as timed_out, not as a stuck test run.
RunOutput run_briefly(const std::vector<std::string>& args) {
  std::vector<std::string> argv{PLUMB_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions o;
  o.timeout = std::chrono::milliseconds(20000);
  o.extra_env = {{"LANG", "C"}, {"LC_ALL", ""}, {"NO_COLOR", "1"},
                 {"PLUMB_DB", "/tmp/plumb-e2e-history-" + std::to_string(::getpid()) + ".db"}};
  auto r = run_program(argv, o);
  if (!r) {
    RunOutput bad;
    bad.timed_out = r.error().kind == ErrorKind::timed_out;
    bad.err = r.error().describe();
    return bad;
  }
  return *r;
}

void expect_refused(const std::vector<std::string>& args) {
  RunOutput r = run_briefly(args);
  EXPECT_FALSE(r.timed_out) << args[0] << " blocked on a FIFO";
  EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << args[0] << ": " << r.err;
}

TEST(HostileInput, FifoAsTraceFile) {
  FifoDir d;
  expect_refused({"trace", d.fifo.string()});
}

TEST(HostileInput, FifoAsHdf5File) {
  FifoDir d;
  RunOutput r = run_briefly({"h5", d.fifo.string()});
  EXPECT_FALSE(r.timed_out) << "h5 blocked on a FIFO";
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  if (r.err.find("needs libhdf5") != std::string::npos) GTEST_SKIP() << "no libhdf5 here: " << r.err;
  EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
}

TEST(HostileInput, FifoAsMemorySummary) {
  FifoDir d;
  expect_refused({"memory", d.fifo.string()});
}

TEST(HostileInput, FifoAsNcclTestsLog) {
  FifoDir d;
  expect_refused({"nccl-tests", d.fifo.string()});
}

TEST(HostileInput, FifoAsSnapshot) {
  FifoDir d;
  expect_refused({"report", d.fifo.string()});
  expect_refused({"diff", d.fifo.string(), d.fifo.string()});
}

// JSON nested a million levels deep parses without recursion, but the JSON library prints, copies
// and compares values recursively: such a file would overflow the stack there. Every command that
// reads a JSON file refuses it in one line, before parsing it.
TEST(HostileInput, DeeplyNestedJsonIsRefusedInOneLine) {
  FifoDir d;  // a private folder; its FIFO is not used here
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  auto write = [&](const std::string& name, const std::string& text) {
    const fs::path p = d.dir / name;
    std::FILE* f = std::fopen(p.c_str(), "wb");
    EXPECT_NE(f, nullptr) << p;
    if (f != nullptr) {
      EXPECT_EQ(std::fwrite(text.data(), 1, text.size(), f), text.size());
      std::fclose(f);
    }
    return p.string();
  };
  const std::string in_facts = write("in-facts.json", R"({"schema_version": 1, "facts": {"meta": )" + deep + "}}");
  const std::string as_version = write("as-version.json", R"({"facts": {}, "schema_version": )" + deep + "}");
  const std::string stats = write("memory-stats.json", R"({"allocated_bytes.all.current": )" + deep + "}");
  const std::string nccl = write("nccl-tests.json", R"({"results": )" + deep + "}");
  const std::string baseline = write("baseline.json", R"({"plumb_baseline": 1, "baselines": )" + deep + "}");
  const std::vector<std::vector<std::string>> commands = {
      {"report", in_facts},   {"report", as_version}, {"diff", in_facts, as_version},
      {"memory", stats},      {"nccl-tests", nccl},   {"baseline", "import", baseline}};
  for (const auto& args : commands) {
    RunOutput r = run_briefly(args);
    const std::string what = args[0] + " " + args.back();
    EXPECT_FALSE(r.timed_out) << what;
    EXPECT_EQ(r.exit_code, 2) << what << ": " << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << ": " << r.err;
    EXPECT_NE(r.err.find("nested deeper than 256 levels"), std::string::npos) << what << ": " << r.err;
  }
}

// A number a field cannot hold (a byte count of 1e30, -1 or 2.5, a count of 1e400) is refused in one
// line, never shown as "0 B" or "16384 PiB".
TEST(HostileInput, SnapshotNumbersOutOfTheirFieldsRangeAreRefused) {
  FifoDir d;  // a private folder; its FIFO is not used here
  const std::string good = (d.dir / "good.json").string();
  RunOutput saved = run_briefly({"check", "--root", test::host_fixture("healthy"), "--save", good});
  ASSERT_LE(saved.exit_code, 1) << saved.err;
  std::ifstream in(good);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string key = "\"mem_total_bytes\": {";
  const std::size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  const std::string marker = "\"value\": ";
  const std::size_t v = text.find(marker, at);
  ASSERT_NE(v, std::string::npos);
  const std::size_t from = v + marker.size();
  const std::size_t end = text.find_first_of(",}\n", from);
  RunOutput ok = run_briefly({"report", good});
  EXPECT_LE(ok.exit_code, 1) << ok.err;
  for (const std::string bad : {"1e30", "-1", "2.5", "1e400", "18446744073709551616"}) {
    std::string t = text;
    t.replace(from, end - from, bad);
    const std::string p = (d.dir / "bad.json").string();
    std::ofstream(p, std::ios::trunc) << t;
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{{"report", p}, {"diff", good, p}}) {
      RunOutput r = run_briefly(args);
      EXPECT_EQ(r.exit_code, 2) << bad << " " << args[0] << ": " << r.out << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad << ": " << r.err;
      // 1e400 is past what a double holds: the JSON reader already refuses it.
      const char* why = bad == "1e400" ? "not valid JSON" : "out of range for its field";
      EXPECT_NE(r.err.find(why), std::string::npos) << bad << ": " << r.err;
      EXPECT_NE(r.err.find(p), std::string::npos) << bad << ": " << r.err;
      EXPECT_EQ(r.out.find("PiB"), std::string::npos) << bad;
    }
  }
}

// A value from outside (here a snapshot's host name) that holds control sequences: an OSC 52
// clipboard write, an SGR conceal, a carriage return. The text reports show them as characters,
// whether printed to a pipe or written to a file; the JSON report keeps the value, escaped.
TEST(HostileInput, ControlSequencesInValuesAreShownNotObeyed) {
  FifoDir d;  // a private folder; its FIFO is not used here
  std::string snap = test::read_fixture("framework/snapshots/a.json");
  const std::string name = R"("hostname": "train-a")";
  ASSERT_NE(snap.find(name), std::string::npos);
  snap.replace(snap.find(name), name.size(), R"("hostname": "node\u001b]52;c;cm0gLXJmIH4K\u0007\u001b[8mhidden\r\u009b2J")");
  const fs::path file = d.dir / "snapshot.json";
  {
    std::FILE* f = std::fopen(file.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(std::fwrite(snap.data(), 1, snap.size(), f), snap.size());
    std::fclose(f);
  }
  const fs::path md = d.dir / "report.md";
  for (const auto& args : std::vector<std::vector<std::string>>{{"report", file.string()},
                                                                {"report", file.string(), "-f", "md", "-o", md.string()}}) {
    RunOutput r = run_briefly(args);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << r.err;
    std::string text = r.out;
    if (args.size() > 2) text = read_user_file(md.string()).value_or("");
    EXPECT_NE(text.find("node\u241b]52;c;cm0gLXJmIH4K\u2407\u241b[8mhidden\u240d\ufffd2J"), std::string::npos) << text;
    for (char c : {'\x1b', '\x07', '\r'}) EXPECT_EQ(text.find(c), std::string::npos) << int(c);
  }
  RunOutput js = run_briefly({"report", file.string(), "-f", "json"});
  EXPECT_NE(js.out.find(R"(node\u001b]52;c;cm0gLXJmIH4K\u0007\u001b[8mhidden\r)"), std::string::npos) << js.out.substr(0, 400);
}

// A file HDF5 never finishes reading (a damaged file can send the library into a loop; here a
// library whose H5Fopen never returns): `plumb h5` gives up at its --timeout with one line.
TEST(HostileInput, AnHdf5FileTheLibraryNeverFinishesEndsAtTheDeadline) {
  const std::string lib = std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-hdf5-hang.so";
  const auto start = std::chrono::steady_clock::now();
  RunOutput r = run_briefly({"h5", "--hdf5-lib", lib, "--timeout", "1s", test::fixture("framework/h5/small-gzip.h5")});
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_FALSE(r.timed_out);
  EXPECT_LT(took, std::chrono::seconds(15));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("HDF5 did not finish reading the file's layout within 1s"), std::string::npos) << r.err;
  // The deadline reads like every other duration.
  RunOutput bad = run_briefly({"h5", "--hdf5-lib", lib, "--timeout", "5y", test::fixture("framework/h5/small-gzip.h5")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--timeout"), std::string::npos) << bad.err;
}

TEST(HostileInput, FifoAsConfig) {
  FifoDir d;
  expect_refused({"check", "--root", test::host_fixture("healthy"), "--config", d.fifo.string()});
}

// --root is a jail, also for paths that come from the tree's own files: a process environment in
// the tree that points NCCL_TOPO_FILE above the root, or at an absolute symlink, reads the tree's
// file (or nothing), never the host's /etc/shadow or /etc/passwd.
TEST(HostileInput, NcclTopoFileFromTheTreeStaysInsideRoot) {
  FifoDir d;  // a private scratch directory
  fs::path root = d.dir / "root";
  fs::create_directories(root / "proc/4242");
  fs::create_directories(root / "etc");
  auto write = [](const fs::path& p, const std::string& text) {
    FILE* f = std::fopen(p.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  };
  write(root / "proc/4242/status", "Name:\tpython3\nPid:\t4242\n");
  auto judge = [&](const std::string& topo_file) {
    write(root / "proc/4242/environ", "NCCL_TOPO_FILE=" + topo_file + std::string(1, '\0') + "PATH=/usr/bin" + std::string(1, '\0'));
    RunOutput r = run_briefly({"check", "--root", root.string(), "--pid", "4242", "--only", "l3.comm.topo_file", "-f", "json"});
    EXPECT_FALSE(r.timed_out);
    return r;
  };
  // The tree has no /etc/shadow: climbing out finds nothing.
  RunOutput escape = judge("/../../../../etc/shadow");
  EXPECT_EQ(escape.exit_code, 1) << escape.err;
  EXPECT_NE(escape.out.find("absent: /../../../../etc/shadow"), std::string::npos) << escape.out;
  // The tree has its own /etc/shadow: that one is read (7 bytes of garbage), not the host's.
  write(root / "etc/shadow", "garbage");
  RunOutput own = judge("/../../../../etc/shadow");
  EXPECT_NE(own.out.find("at offset 7"), std::string::npos) << own.out;
  // An absolute symlink inside the tree resolves inside the tree.
  fs::create_symlink("/etc/passwd", root / "etc/topo.xml");
  RunOutput link = judge("/etc/topo.xml");
  EXPECT_NE(link.out.find("absent: /etc/topo.xml"), std::string::npos) << link.out;
  EXPECT_EQ(link.out.find("root:x:0:0"), std::string::npos);
}

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `watch --record` writes a file as it grows: it never writes through a symlink (the target
// stays as it was), never waits on a FIFO, and refuses a directory, each in one line.
TEST(HostileInput, WatchRecordWritesOnlyARegularFile) {
  FifoDir d;
  std::ofstream(d.dir / "victim") << "precious\n";
  fs::create_symlink(d.dir / "victim", d.dir / "link.csv");
  fs::create_directories(d.dir / "folder.csv");
  const std::vector<std::string> watch{"watch", "--duration", "200ms", "--interval", "100ms", "--root",
                                       test::fixture("watch/procfs-host"), "--gpu-script",
                                       test::fixture("watch/gpu-scripts/healthy.json"), "--record"};
  for (const auto& target : {d.dir / "link.csv", d.fifo, d.dir / "folder.csv"}) {
    auto args = watch;
    args.push_back(target.string());
    RunOutput r = run_briefly(args);
    EXPECT_FALSE(r.timed_out) << target;
    EXPECT_EQ(r.exit_code, 2) << target << ": " << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  }
  EXPECT_EQ(file_text(d.dir / "victim"), "precious\n");
  // A regular file is written from its start.
  auto args = watch;
  args.push_back((d.dir / "victim").string());
  RunOutput ok = run_briefly(args);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(file_text(d.dir / "victim").rfind("{\"plumb_watch\"", 0), 0u) << file_text(d.dir / "victim").substr(0, 80);
}

// --out and --save (or --record) naming one file would leave only the later write: refused before
// anything runs, also through another spelling of the path or a link.
TEST(HostileInput, OneFileForTwoOutputsIsRefused) {
  FifoDir d;
  const std::string out = (d.dir / "r.json").string();
  std::ofstream(out) << "{}";
  fs::create_symlink(out, d.dir / "same.json");
  for (const auto& save : {out, (d.dir / "." / "r.json").string(), (d.dir / "same.json").string()}) {
    RunOutput r = run_briefly({"check", "--root", test::fixture("watch/procfs-host"), "--no-history", "-f", "json",
                               "--out", out, "--save", save});
    EXPECT_EQ(r.exit_code, 2) << save << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("--out and --save name the same file"), std::string::npos) << r.err;
  }
  EXPECT_EQ(file_text(out), "{}");
}

// `bench serve --body` takes a regular file: a FIFO would block the start, a directory would
// send an empty body.
TEST(HostileInput, ServeBodyMustBeARegularFile) {
  FifoDir d;
  for (const auto& body : {d.fifo.string(), d.dir.string()}) {
    RunOutput r = run_briefly({"bench", "serve", "http://127.0.0.1:9/", "--body", body, "--concurrency", "1", "--duration", "1s", "--no-history"});
    EXPECT_FALSE(r.timed_out) << body;
    EXPECT_EQ(r.exit_code, 2) << body << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("--body"), std::string::npos) << r.err;
  }
}

// A sparse file of a terabyte in a dataset is read (1 MiB at a time), never allocated whole.
TEST(HostileInput, ASparseFileInADatasetIsReadNotAllocated) {
  FifoDir d;
  fs::create_directories(d.dir / "data");
  std::ofstream(d.dir / "data" / "small.bin") << std::string(4096, 'x');
  {
    int fd = ::open((d.dir / "data" / "huge.bin").c_str(), O_CREAT | O_WRONLY, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, off_t{1} << 40), 0);
    ::close(fd);
  }
  RunOutput r = run_briefly({"bench", "dataload", (d.dir / "data").string(), "--duration", "0.05", "--samples", "1",
                             "--threads", "1", "--no-history", "-f", "json"});
  EXPECT_FALSE(r.timed_out);
  EXPECT_LE(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.signal, 0) << r.err;
}

// SIGTERM (or Ctrl-C) to plumb takes its children with it: the framework probe's interpreter runs
// in a process group of its own, which the signal does not reach.
TEST(HostileInput, ATerminatedCheckLeavesNoProbeBehind) {
  FifoDir d;
  const fs::path py = d.dir / "python3";
  std::ofstream(py) << "#!/bin/sh\necho $$ > '" << (d.dir / "probe.pid").string() << "'\nexec sleep 60\n";
  fs::permissions(py, fs::perms::owner_all);
  test::Child c({"check", "--python", py.string(), "--only", "l3.framework", "--no-history", "--timeout", "60s"});
  ASSERT_TRUE(c.started());
  pid_t probe = 0;
  for (int i = 0; i < 200 && probe == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    std::ifstream(d.dir / "probe.pid") >> probe;
  }
  ASSERT_GT(probe, 0) << "the probe never started";
  c.signal(SIGTERM);
  auto rc = c.wait(std::chrono::milliseconds(5000));
  ASSERT_TRUE(rc.has_value()) << "plumb did not end on SIGTERM";
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    std::string stat = file_text("/proc/" + std::to_string(probe) + "/stat");
    auto close = stat.rfind(')');
    gone = stat.empty() || (close != std::string::npos && stat.size() > close + 2 && stat[close + 2] == 'Z');
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_TRUE(gone) << "probe " << probe << " outlived plumb";
  if (!gone) ::kill(probe, SIGKILL);
}

}  // namespace
}  // namespace plumb
