// `plumb fleet`: offline reports of saved snapshots, and the MPI path under Open MPI's mpirun on
// loopback (an MPMD launch, each rank with its own fixture root).
#include <unistd.h>

#include <filesystem>
#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/json.h"
#include "core/text.h"
#include "../fleet_roots.h"
#include "../test_util.h"

namespace plumb::test {

namespace {

namespace fs = std::filesystem;

struct FleetDir {
  fs::path dir;
  explicit FleetDir(const std::string& name) : dir(fs::temp_directory_path() / ("plumb-fleet-e2e-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir / "roots");
    fs::create_directories(dir / "snaps");
  }
  ~FleetDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  FleetDir(const FleetDir&) = delete;
  FleetDir& operator=(const FleetDir&) = delete;

  std::string root(const NodeVariant& v) {
    fs::path p = dir / "roots" / v.hostname;
    make_fleet_node(host_fixture("healthy"), p, v);
    return p.string();
  }
  void snapshot(const NodeVariant& v) {
    std::string out = (dir / "snaps" / (v.hostname + ".json")).string();
    RunOutput r = run_plumb({"check", "--root", root(v), "--save", out, "--format", "json", "--no-history"});
    ASSERT_LE(r.exit_code, 1) << r.err;
  }
  [[nodiscard]] std::string snaps() const { return (dir / "snaps").string(); }
};

NodeVariant node(int i) { return {"gpu-node-0" + std::to_string(i), "", "", 0}; }
NodeVariant odd_node(int i) { return {"gpu-node-0" + std::to_string(i), "5.15.0-91-generic", "powersave", 263979008}; }

json parse_out(const RunOutput& r) {
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out.substr(0, 400) << r.err;
  return j;
}

std::set<std::string> mismatch_keys(const json& j) {
  std::set<std::string> keys;
  for (const auto& m : j["facts"]["fleet"]["mismatches"]) keys.insert(m["key"].get<std::string>());
  return keys;
}

}  // namespace

TEST(FleetReport, OddNodeIsNamedWithBothValues) {
  FleetDir d("odd");
  for (int i = 1; i <= 5; ++i) d.snapshot(i == 4 ? odd_node(i) : node(i));
  RunOutput md = run_plumb({"fleet", "report", d.snaps(), "--format", "md"});
  EXPECT_EQ(md.exit_code, 1) << md.err;
  EXPECT_NE(md.out.find("Verdict: drain 1 of 5 nodes: gpu-node-04"), std::string::npos) << md.out.substr(0, 3000);
  EXPECT_NE(md.out.find("5.15.0-91-generic"), std::string::npos);

  RunOutput js = run_plumb({"fleet", "report", d.snaps(), "--format", "json"});
  json j = parse_out(js);
  const json& f = j["facts"]["fleet"];
  ASSERT_EQ(f["drain"].size(), 1u);
  EXPECT_EQ(f["drain"][0]["host"], "gpu-node-04");
  auto keys = mismatch_keys(j);
  for (const char* k : {"os.kernel", "cpu.governor", "memory.total"}) EXPECT_EQ(keys.count(k), 1u) << k;
  for (const auto& m : f["mismatches"]) {
    ASSERT_EQ(m["odd"].size(), 1u);
    EXPECT_EQ(m["odd"][0]["host"], "gpu-node-04");
    EXPECT_EQ(m["majority_nodes"], 4);
  }
  bool inconsistent = false;
  for (const auto& x : j["findings"]) inconsistent |= x["id"] == "l3.fleet.inconsistent" && x["status"] == "fail";
  EXPECT_TRUE(inconsistent);
}

TEST(FleetReport, BenchOutlierIsNamedAndTheRuleStated) {
  FleetDir d("outlier");
  d.snapshot(node(1));
  auto text = read_user_file(d.snaps() + "/gpu-node-01.json");
  ASSERT_TRUE(text);
  json base = json::parse(*text);
  fs::remove(d.snaps() + "/gpu-node-01.json");
  // Six nodes measured host memory bandwidth; node 6 is 30 % below the others.
  const double bw[] = {101.0, 99.0, 100.0, 100.0, 100.5, 70.0};
  for (int i = 1; i <= 6; ++i) {
    json j = base;
    j["facts"]["meta"]["hostname"] = "gpu-node-0" + std::to_string(i);
    j["facts"]["bench"]["results"] = json::array({{{"bench", "membw"}, {"status", "ok"},
                                                   {"metrics", json::array({{{"name", "membw.copy.all"}, {"unit", "GB/s"},
                                                                             {"higher_is_better", true}, {"median", bw[i - 1]}}})}}});
    write_text(d.dir / "snaps" / ("n" + std::to_string(i) + ".json"), j.dump());
  }
  RunOutput r = run_plumb({"fleet", "report", d.snaps(), "--format", "md"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("Outlier rule: a node fails when it is worse than the fleet median by more than 10 %"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpu-node-06: membw.copy.all 70 GB/s is 30 % worse than the fleet median 100 GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Verdict: drain 1 of 6 nodes: gpu-node-06"), std::string::npos) << r.out;
}

TEST(FleetReport, ConsistentFleetPasses) {
  FleetDir d("ok");
  for (int i = 1; i <= 3; ++i) d.snapshot(node(i));
  RunOutput r = run_plumb({"fleet", "report", d.snaps()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("no node to drain"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("agrees on the"), std::string::npos) << r.out;
}

TEST(FleetReport, ChineseHtmlWithTables) {
  FleetDir d("zh");
  for (int i = 1; i <= 2; ++i) d.snapshot(i == 2 ? odd_node(i) : node(i));
  RunOutput r = run_plumb({"fleet", "report", d.snaps(), "--format", "html", "--lang", "zh"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("集群"), std::string::npos);
  EXPECT_NE(r.out.find("<table"), std::string::npos);
  EXPECT_NE(r.out.find("gpu-node-02"), std::string::npos);
}

TEST(FleetReport, BadInput) {
  FleetDir d("bad");
  RunOutput missing = run_plumb({"fleet", "report", (d.dir / "nothing-here").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1) << missing.err;
  RunOutput empty = run_plumb({"fleet", "report", d.snaps()});
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  write_text(d.dir / "snaps" / "junk.json", "{not json");
  RunOutput junk = run_plumb({"fleet", "report", d.snaps()});
  EXPECT_EQ(junk.exit_code, 2) << junk.err;
  // Among readable snapshots, an unreadable one is a node without a result.
  d.snapshot(node(1));
  d.snapshot(node(2));
  RunOutput mixed = run_plumb({"fleet", "report", d.snaps()});
  EXPECT_EQ(mixed.exit_code, 1) << mixed.err;
  EXPECT_NE(mixed.out.find("unreadable snapshot"), std::string::npos) << mixed.out;
  EXPECT_NE(mixed.out.find("junk"), std::string::npos) << mixed.out;
  RunOutput outside = run_plumb({"fleet"});
  EXPECT_EQ(outside.exit_code, 2);
  EXPECT_NE(outside.err.find("mpirun"), std::string::npos) << outside.err;
}

// ---- the MPI path -------------------------------------------------------------------------

namespace {

std::string companion() { return (fs::path(PLUMB_BINARY).parent_path() / "plumb-fleet").string(); }

bool have_mpi() { return fs::exists("/usr/bin/mpirun") && fs::exists(companion()); }

std::string helper_lib(const std::string& name) { return std::string(PLUMB_BUILD_DIR) + "/tests/helpers/lib" + name + ".so"; }

// One app context per rank: {extra env ("" or "VAR=value", several separated by spaces), plumb fleet arguments}.
struct Rank {
  std::string env;
  std::vector<std::string> args;
};

RunOutput mpirun(const std::vector<Rank>& ranks) {
  std::vector<std::string> argv{"/usr/bin/mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "btl", "tcp,self", "--mca",
                                "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo", "--mca", "pml", "ob1"};
  if (::geteuid() == 0) argv.emplace_back("--allow-run-as-root");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) argv.emplace_back(":");
    argv.insert(argv.end(), {"-np", "1"});
    if (!ranks[i].env.empty()) {
      argv.emplace_back("/usr/bin/env");
      for (auto v : split_ws(ranks[i].env)) argv.emplace_back(v);
    }
    argv.insert(argv.end(), {PLUMB_BINARY, "fleet"});
    argv.insert(argv.end(), ranks[i].args.begin(), ranks[i].args.end());
  }
  RunOptions o;
  o.timeout = std::chrono::seconds(150);
  o.extra_env = {{"LANG", "C"}, {"NO_COLOR", "1"}, {"PLUMB_DB", "/tmp/plumb-e2e-history-" + std::to_string(::getpid()) + ".db"}};
  // Open MPI keeps allocations until exit by design (its own FAQ on memory checkers): under the
  // sanitizer build, leak reports from the MPI ranks would be Open MPI's, not plumb's. The rank
  // whose NVML library crashes on purpose must die of its SIGSEGV at once: the sanitizer's own
  // report (symbolising a stack) can outlast the rank's 4 s deadline on a slow machine, and the
  // crash would read as a time-out. Other sanitizer checks stay on; plumb's own leaks and
  // crashes are checked by every other test.
  o.extra_env.emplace("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1:handle_segv=0:symbolize=0");
  auto r = run_program(argv, o);
  if (!r) {
    RunOutput bad;
    bad.timed_out = r.error().kind == ErrorKind::timed_out;
    bad.err = r.error().describe();
    return bad;
  }
  return *r;
}

std::vector<std::string> rank_args(const std::string& root, std::vector<std::string> extra = {}, const std::string& deadline = "20") {
  std::vector<std::string> a{"--root", root, "--deadline", deadline, "--p2p-bytes", "1048576", "--p2p-iters", "8", "--format", "json"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

}  // namespace

TEST(FleetMpi, MpmdLaunchNamesTheOddNode) {
  if (!have_mpi()) GTEST_SKIP() << "no mpirun or no plumb-fleet (built only when CMake finds MPI)";
  FleetDir d("mpi-odd");
  std::vector<Rank> ranks;
  for (int i = 1; i <= 4; ++i) ranks.push_back({"", rank_args(d.root(i == 3 ? odd_node(i) : node(i)))});
  RunOutput r = mpirun(ranks);
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json j = parse_out(r);
  const json& f = j["facts"]["fleet"];
  EXPECT_EQ(f["mode"], "mpi");
  ASSERT_EQ(f["nodes"].size(), 4u);
  ASSERT_GE(f["drain"].size(), 1u) << r.out.substr(0, 2000);
  EXPECT_EQ(f["drain"][0]["host"], "gpu-node-03");
  EXPECT_EQ(mismatch_keys(j).count("os.kernel"), 1u);
  EXPECT_EQ(f["network"]["status"], "measured");
  EXPECT_TRUE(f["network"]["loopback"].get<bool>());
  EXPECT_GE(f["network"]["pairs"].size(), 4u);  // the ring (plus a second pass if loopback noise made a pair slow)
  EXPECT_EQ(f["nccl_status"], "skipped");
  EXPECT_EQ(f["nccl"].get<std::string>().rfind("no GPUs on any node (gpu-node-01: ", 0), 0u) << f["nccl"];
}

TEST(FleetMpi, ConsistentFleetPasses) {
  if (!have_mpi()) GTEST_SKIP() << "no mpirun or no plumb-fleet";
  FleetDir d("mpi-ok");
  std::vector<Rank> ranks;
  for (int i = 1; i <= 2; ++i) ranks.push_back({"", rank_args(d.root(node(i)))});
  RunOutput r = mpirun(ranks);
  EXPECT_EQ(r.exit_code, 0) << r.out.substr(0, 3000) << r.err;
  json j = parse_out(r);
  EXPECT_TRUE(j["facts"]["fleet"]["drain"].empty());
}

// A node's own text (here its kernel release, with a title-setting escape and a bell) reaches the
// terminal that launched the job: the report shows the control characters, the terminal never
// receives them.
TEST(FleetMpi, ANodesControlCharactersAreShownNotObeyed) {
  if (!have_mpi()) GTEST_SKIP() << "no mpirun or no plumb-fleet";
  FleetDir d("mpi-escape");
  NodeVariant odd{"gpu-node-02", "5.15.0\x1b]0;owned\x07-91", "", 0};
  std::vector<Rank> ranks;
  for (const NodeVariant& v : {node(1), odd}) {
    ranks.push_back({"", {"--root", d.root(v), "--deadline", "20", "--p2p-bytes", "1048576", "--p2p-iters", "8", "--format", "term"}});
  }
  RunOutput r = mpirun(ranks);
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.out.substr(0, 3000) << r.err;
  EXPECT_NE(r.out.find("5.15.0\u241b]0;owned\u2407-91"), std::string::npos) << r.out.substr(0, 3000);
  for (char c : {'\x1b', '\x07'}) EXPECT_EQ(r.out.find(c), std::string::npos) << int(c);
}

TEST(FleetMpi, HungAndCrashedChecksAreReportedNotFatal) {
  if (!have_mpi()) GTEST_SKIP() << "no mpirun or no plumb-fleet";
  FleetDir d("mpi-broken");
  std::vector<Rank> ranks{
      // A healthy node keeps the default deadline: a slow machine must not turn it into a time-out.
      {"", rank_args(d.root(node(1)))},
      // Its NVML init sleeps: the check is killed at the rank's deadline.
      {"", rank_args(d.root(node(2)), {"--timeout", "60s", "--nvml-lib", helper_lib("fleet-nvml-hang")}, "4")},
      // Its NVML init dies with SIGSEGV, and the check with it.
      {"", rank_args(d.root(node(3)), {"--nvml-lib", helper_lib("fleet-nvml-crash")})},
  };
  auto t0 = std::chrono::steady_clock::now();
  RunOutput r = mpirun(ranks);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_LT(s, 60) << "a broken rank held the job";
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json j = parse_out(r);
  std::map<std::string, std::string> why;
  for (const auto& x : j["findings"]) {
    if (x["id"] == "l3.fleet.no_result" && x["status"] == "fail") why[x["args"]["host"]] = x["args"]["why"];
  }
  ASSERT_EQ(why.size(), 2u) << r.out.substr(0, 3000);
  bool timed = false, crashed = false;
  for (const auto& [host, w] : why) {
    timed |= w == "timed out after 4 s";
    // SIGSEGV, or SIGABRT in the sanitizer build (AddressSanitizer reports the SEGV, then aborts).
    crashed |= w == "crashed (signal 11)" || w == "crashed (signal 6)";
  }
  EXPECT_TRUE(timed) << r.out.substr(0, 3000);
  EXPECT_TRUE(crashed) << r.out.substr(0, 3000);
}

TEST(FleetMpi, SlowedRankIsNamedAsTheBadEnd) {
  if (!have_mpi()) GTEST_SKIP() << "no mpirun or no plumb-fleet";
  FleetDir d("mpi-slow");
  // Over loopback the healthy pairs of five ranks on two loaded cores (a sanitizer build, a compiler
  // and other tests beside it) spread over 30x, one seen 28x below the median pair (0.14 against
  // 4 GB/s), and the median itself fell to 117 MB/s once (two of the five pairs are the slowed
  // rank's, so the median is the slowest healthy pair). The slowed rank (1 s before each 1 MiB
  // message: at most 1.05 MB/s) stays below a fiftieth of any median above 52 MB/s (loopback pairs
  // run at 1-4 GB/s), and the healthy ones above it.
  std::string cfg = (d.dir / "fleet.toml").string();
  ASSERT_TRUE(write_file_atomic(cfg, "[thresholds]\n\"fleet.p2p_median_min_percent\" = 2\n"));
  std::vector<Rank> ranks;
  for (int i = 1; i <= 5; ++i) {
    ranks.push_back({i == 2 ? "PLUMB_FLEET_P2P_DELAY_MS=1000" : "", rank_args(d.root(node(i)), {"--config", cfg})});
  }
  RunOutput r = mpirun(ranks);
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.out.substr(0, 3000) << r.err;
  json j = parse_out(r);
  std::vector<std::string> bad;
  for (const auto& x : j["findings"]) {
    if (x["id"] == "l2.fleet.p2p_slow" && x["status"] == "fail") bad.push_back(x["subject"]);
  }
  ASSERT_EQ(bad.size(), 1u) << j["facts"]["fleet"]["network"].dump(1);
  EXPECT_EQ(bad[0], "gpu-node-02");
  bool second_pass = false;
  for (const auto& p : j["facts"]["fleet"]["network"]["pairs"]) second_pass |= p["pass"] == 2;
  EXPECT_TRUE(second_pass);
}

// The multi-node all-reduce, on the fake GPU runtime and NCCL (tests/helpers/fake_cuda): the unique
// id taken by rank 0 reaches every rank over MPI, every rank joins with its own NCCL rank, rank 0's
// sweep becomes an nccl-tests run judged by the busbw rule (not judged here: one host, no network).
namespace {

std::string fake_gpu_env(const std::string& dir, const std::string& extra = "") {
  std::string e = "PLUMB_CUDART_LIB=" + helper_lib("fake-cudart-gpu") + " PLUMB_NCCL_LIB=" + helper_lib("fake-nccl-world") +
                  " FAKE_NCCL_DIR=" + dir + " FAKE_NCCL_BUSBW=4";
  return extra.empty() ? e : e + " " + extra;
}

}  // namespace

TEST(FleetMpi, AllReduceJoinsEveryGpuOfEveryNode) {
  if (!have_mpi()) GTEST_SKIP() << "no mpirun or no plumb-fleet";
  FleetDir d("mpi-nccl");
  std::string world_dir = (d.dir / "nccl").string();
  fs::create_directories(world_dir);
  std::vector<Rank> ranks;
  for (int i = 1; i <= 3; ++i) {
    // Node 2 has two GPUs: its process joins with two NCCL ranks.
    ranks.push_back({fake_gpu_env(world_dir, i == 2 ? "FAKE_CUDA_DEVICES=2" : ""),
                     rank_args(d.root(node(i)), {"--no-p2p", "--nccl-bytes", "4194304"})});
  }
  RunOutput r = mpirun(ranks);
  ASSERT_FALSE(r.timed_out) << r.err;
  json j = parse_out(r);
  const json& f = j["facts"]["fleet"];
  EXPECT_EQ(f["nccl_status"], "measured") << f["nccl"] << r.err;
  EXPECT_EQ(f["nccl"].get<std::string>().rfind("4 GPUs on 3 nodes, NCCL 2.21.5, peak busbw ", 0), 0u) << f["nccl"];
  // One rendezvous, four distinct NCCL ranks of a world of four.
  std::vector<fs::path> worlds;
  for (const auto& e : fs::directory_iterator(world_dir)) worlds.push_back(e.path());
  ASSERT_EQ(worlds.size(), 1u);
  for (int k = 0; k < 4; ++k) {
    auto got = read_user_file((worlds[0] / ("rank-" + std::to_string(k))).string());
    std::string text = got ? *got : std::string("<missing>");
    EXPECT_EQ(text.substr(0, 2), "4 ") << k;
  }
  EXPECT_FALSE(fs::exists(worlds[0] / "rank-4"));
  // rank 0's sweep, as an nccl-tests run: 1, 4 MiB; busbw near the fake link's 4 GB/s.
  ASSERT_EQ(j["facts"]["comm"]["nccl_tests"].size(), 1u);
  const json& run = j["facts"]["comm"]["nccl_tests"][0];
  EXPECT_EQ(run["ranks"], 4);
  EXPECT_EQ(run["hosts"], 3);
  ASSERT_EQ(run["rows"].size(), 2u);
  EXPECT_EQ(run["rows"][1]["size"], 4194304);
  double busbw = run["rows"][1]["oop_busbw"].get<double>();
  EXPECT_GT(busbw, 0.5) << run.dump(1);
  EXPECT_LT(busbw, 4.5) << run.dump(1);
  bool pass = false, judged = false;
  for (const auto& x : j["findings"]) {
    if (x["id"] == "l2.fleet.nccl_allreduce") pass = x["status"] == "pass";
    if (x["id"] == "l2.comm.allreduce_slow") {
      judged = true;
      EXPECT_EQ(x["status"], "skip");
      EXPECT_NE(x["args"]["reason"].get<std::string>().find("crossed no network link"), std::string::npos) << x.dump(1);
    }
  }
  EXPECT_TRUE(pass) << r.out.substr(0, 3000);
  EXPECT_TRUE(judged);
}

TEST(FleetMpi, AllReduceWithARankThatNeverJoinsEndsAtTheDeadline) {
  if (!have_mpi()) GTEST_SKIP() << "no mpirun or no plumb-fleet";
  FleetDir d("mpi-nccl-hang");
  std::string world_dir = (d.dir / "nccl").string();
  fs::create_directories(world_dir);
  std::vector<Rank> ranks;
  for (int i = 1; i <= 2; ++i) {
    ranks.push_back({fake_gpu_env(world_dir, i == 2 ? "FAKE_NCCL_HANG=1" : ""),
                     rank_args(d.root(node(i)), {"--no-p2p", "--nccl-bytes", "1048576"}, "8")});
  }
  auto t0 = std::chrono::steady_clock::now();
  RunOutput r = mpirun(ranks);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_FALSE(r.timed_out) << r.err;
  EXPECT_LT(s, 90) << "a rank that never joins held the job";
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json j = parse_out(r);
  EXPECT_EQ(j["facts"]["fleet"]["nccl_status"], "failed");
  std::string why = j["facts"]["fleet"]["nccl"];
  EXPECT_NE(why.find("gpu-node-02: the NCCL all-reduce timed out after 8 s"), std::string::npos) << why;
  bool failed = false;
  for (const auto& x : j["findings"]) failed |= x["id"] == "l2.fleet.nccl_allreduce" && x["status"] == "fail";
  EXPECT_TRUE(failed);
}

}  // namespace plumb::test
