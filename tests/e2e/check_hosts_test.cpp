// End-to-end: `plumb check --root tests/fixtures/hosts/<case>` per fixture host, asserted finding by
// finding from the JSON; snapshots, --out, --only/--skip, --list. The golden reports of the same
// runs (md, json, html) are in golden_test.cpp.
#include <gtest/gtest.h>

#include <set>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/catalog.h"
#include "core/json.h"
#include "golden.h"
#include "../test_util.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;
using test::run_plumb;

using golden::cases;
using golden::check_args;

json parse_json(const RunOutput& r) {
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.out.substr(0, 300) << r.err;
  return j;
}

// Worst status of each finding id in a JSON report.
std::map<std::string, std::string> host_statuses(const json& report) {
  static const std::map<std::string, int> rank{{"fail", 0}, {"warn", 1}, {"skip", 2}, {"info", 3}, {"pass", 4}};
  std::map<std::string, std::string> out;
  if (!report.contains("findings")) return out;
  for (const auto& f : report.at("findings")) {
    std::string id = f.at("id").get<std::string>();
    std::string st = f.at("status").get<std::string>();
    auto it = out.find(id);
    if (it == out.end() || rank.at(st) < rank.at(it->second)) out[id] = st;
  }
  return out;
}

class CheckHost : public ::testing::TestWithParam<std::string> {};

// What each case must show, finding by finding. Ids from other areas are checked only when their
// rule is registered in this build, so this table can list them before they are merged.
struct Expect {
  std::string id;
  std::string status;
};
const std::map<std::string, std::vector<Expect>>& expectations() {
  static const std::map<std::string, std::vector<Expect>> e{
      {"healthy",
       {{"l3.compute.cpu_governor", "pass"},
        {"l3.compute.thread_oversubscription", "pass"},
        {"l3.compute.numa_balancing", "pass"},
        {"l3.memory.memlock_limit", "pass"},
        {"l3.memory.swap_active", "pass"},
        {"l2.compute.cpu_saturated", "pass"},
        {"l2.memory.pressure", "pass"},
        {"l2.data.io_pressure", "pass"},
        {"l3.storage.io_scheduler", "pass"},
        {"l3.storage.shm_size", "pass"},
        {"l3.memory.cgroup_limit", "pass"},
        {"l3.memory.cgroup_oom_kills", "pass"},
        {"l3.gpu.xid", "pass"}}},
      {"nvme-misconfigured",
       {{"l3.compute.cpu_governor", "warn"},
        {"l3.memory.memlock_limit", "warn"},
        {"l3.memory.swap_active", "warn"},
        {"l3.compute.numa_balancing", "info"},
        {"l2.memory.pressure", "info"},
        {"l2.data.io_pressure", "warn"},
        {"l3.compute.thread_oversubscription", "pass"},
        {"l3.storage.io_scheduler", "warn"},
        {"l3.memory.cgroup_oom_kills", "fail"}}},
      {"docker-v1",
       {{"l3.compute.thread_oversubscription", "fail"},
        {"l3.compute.cpu_governor", "skip"},
        {"l2.compute.cpu_saturated", "skip"},
        {"l2.memory.pressure", "skip"},
        {"l2.data.io_pressure", "skip"},
        {"l3.memory.memlock_limit", "pass"},
        {"l3.memory.swap_active", "pass"},
        {"l3.compute.numa_balancing", "pass"},
        {"l3.storage.shm_size", "fail"}}},
      {"oom-xid",
       {{"l2.memory.pressure", "warn"},
        {"l3.compute.cpu_governor", "pass"},
        {"l3.compute.thread_oversubscription", "pass"},
        {"l3.memory.memlock_limit", "pass"},
        {"l3.memory.swap_active", "pass"},
        {"l3.kernel.oom_kills", "fail"},
        {"l3.gpu.xid", "fail"},
        {"l3.memory.cgroup_oom_kills", "fail"}}},
  };
  return e;
}

TEST_P(CheckHost, JsonFindingsAndExitCode) {
  const std::string name = GetParam();
  RunOutput r = run_plumb(check_args(name, {"--format", "json"}));
  json j = parse_json(r);
  auto st = host_statuses(j);
  for (const auto& e : expectations().at(name)) {
    ASSERT_NE(find_entry(e.id), nullptr) << name << ": " << e.id << " is no catalogue id";
    ASSERT_EQ(canonical_id(e.id), e.id) << name << ": " << e.id << " is an old id; expect " << canonical_id(e.id);
    ASSERT_TRUE(st.count(e.id)) << name << ": no finding " << e.id;
    EXPECT_EQ(st.at(e.id), e.status) << name << ": " << e.id;
  }
  bool any_fail = std::any_of(st.begin(), st.end(), [](const auto& kv) { return kv.second == "fail"; });
  EXPECT_EQ(r.exit_code, any_fail ? 1 : 0) << name << ": " << r.err;
  if (name == "healthy") {
    EXPECT_EQ(r.exit_code, 0) << "the healthy host must not fail: " << r.out.substr(0, 2000);
  }
  if (name == "docker-v1") {
    EXPECT_EQ(r.exit_code, 1);
  }
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

// The facts behind the findings: the numbers the fixtures were built with.
TEST_P(CheckHost, JsonFactsOfCpuMemoryProcess) {
  const std::string name = GetParam();
  RunOutput r = run_plumb(check_args(name, {"--format", "json", "--only", "collect.cpu,collect.memory,collect.process,collect.sysctl,collect.psi"}));
  json j = parse_json(r);
  const json& host = j.at("facts").at("host");
  int logical = name == "docker-v1" ? 16 : 32;
  EXPECT_EQ(host.at("cpu").at("logical_cpus").at("value"), logical);
  EXPECT_EQ(host.at("cpu").at("sockets").at("value"), name == "docker-v1" ? 1 : 2);
  EXPECT_TRUE(host.at("memory").at("mem_total_bytes").contains("value"));
  EXPECT_TRUE(host.at("process").at("environ").at("value").contains("PATH"));
  if (name == "docker-v1") {
    EXPECT_EQ(host.at("cpu").at("governors").at("missing").get<std::string>().find("cpufreq") != std::string::npos, true);
    EXPECT_EQ(host.at("process").at("environ").at("value").at("OMP_NUM_THREADS"), "32");
  }
  if (name == "nvme-misconfigured") {
    EXPECT_EQ(host.at("process").at("memlock").at("value").at("soft"), 65536);
    EXPECT_EQ(host.at("memory").at("swappiness").at("value"), 60);
  }
}

INSTANTIATE_TEST_SUITE_P(Hosts, CheckHost, ::testing::ValuesIn(cases()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// Once the cgroup collector fills effective_cpus, the thread rule must judge against the quota.
TEST(CheckHostDockerV1, ThreadRuleUsesTheCgroupQuotaWhenKnown) {
  RunOutput r = run_plumb(check_args("docker-v1", {"--format", "json"}));
  json j = parse_json(r);
  const json& cg = j.at("facts").at("host").at("cgroup");
  for (const auto& f : j.at("findings")) {
    if (f.at("id") != "l3.compute.thread_oversubscription") continue;
    EXPECT_EQ(f.at("status"), "fail");
    EXPECT_EQ(f.at("args").at("var"), "OMP_NUM_THREADS");
    if (cg.contains("effective_cpus") && cg.at("effective_cpus").is_object() && cg.at("effective_cpus").contains("value")) {
      EXPECT_EQ(f.at("args").at("cpus"), "2");
      EXPECT_EQ(f.at("args").at("ratio"), "16");
    } else {
      EXPECT_EQ(f.at("args").at("cpus"), "16");  // affinity mask until the cgroup collector is present
    }
  }
}

// A collector whose every dependent rule is skipped does not run; the others still do.
TEST(CheckSelection, SkippingAllRulesOfACollectorSkipsTheCollector) {
  auto ids = [](const json& j) {
    std::set<std::string> out;
    for (const auto& c : j.at("facts").at("meta").at("collectors")) out.insert(c.at("id").get<std::string>());
    return out;
  };
  json all = parse_json(run_plumb(check_args("healthy", {"--format", "json"})));
  json some = parse_json(run_plumb(check_args("healthy", {"--format", "json", "--skip", "l3.framework"})));
  EXPECT_TRUE(ids(all).count("collect.python"));
  EXPECT_FALSE(ids(some).count("collect.python"));
  EXPECT_TRUE(ids(some).count("collect.os"));  // no rule needs it, it feeds the environment block
  for (const auto& f : some.at("findings")) EXPECT_NE(f.at("id").get<std::string>().rfind("l3.framework", 0), 0u);
}

struct HostsTempDir {
  fs::path dir;
  explicit HostsTempDir(const std::string& name) : dir(fs::path(::testing::TempDir()) / ("plumb_check_e2e_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~HostsTempDir() { fs::remove_all(dir); }
  HostsTempDir(const HostsTempDir&) = delete;
  HostsTempDir& operator=(const HostsTempDir&) = delete;
};

TEST(CheckSnapshot, SaveThenReportGivesIdenticalFindings) {
  HostsTempDir t("snap");
  std::string snap = (t.dir / "snap.json").string();
  RunOutput c = run_plumb(check_args("nvme-misconfigured", {"--format", "json", "--save", snap}));
  ASSERT_TRUE(fs::is_regular_file(snap)) << c.err;
  RunOutput r = run_plumb({"report", snap, "--format", "json"});
  EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
  json a = parse_json(c);
  json b = parse_json(r);
  EXPECT_EQ(a.at("findings"), b.at("findings"));
  EXPECT_EQ(a.at("facts").at("host"), b.at("facts").at("host"));
  // The saved file is the same document check printed.
  auto saved = read_user_file(snap);
  ASSERT_TRUE(saved.ok());
  EXPECT_EQ(json::parse(*saved).at("findings"), a.at("findings"));
  // And Markdown from the snapshot reads the same in both languages.
  RunOutput md = run_plumb({"report", snap, "--format", "md", "--lang", "zh"});
  EXPECT_NE(md.out.find("交换分区"), std::string::npos);
}

TEST(CheckOut, WritesAtomicallyAndLeavesNoTemporaries) {
  HostsTempDir t("out");
  std::string out = (t.dir / "report.md").string();
  RunOutput r = run_plumb(check_args("healthy", {"--format", "md", "--out", out}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  auto text = read_user_file(out);
  ASSERT_TRUE(text.ok());
  RunOutput direct = run_plumb(check_args("healthy", {"--format", "md"}));
  EXPECT_EQ(golden::normalise_text(*text), golden::normalise_text(direct.out));
  int files = 0;
  for (const auto& e : fs::directory_iterator(t.dir)) {
    ++files;
    EXPECT_EQ(e.path().filename(), "report.md");
  }
  EXPECT_EQ(files, 1);
}

TEST(CheckSelection, OnlyAndSkipTakePrefixes) {
  RunOutput only = run_plumb(check_args("nvme-misconfigured", {"--format", "json", "--only", "l3.memory"}));
  auto st = host_statuses(parse_json(only));
  ASSERT_FALSE(st.empty());
  for (const auto& [id, s] : st) EXPECT_EQ(id.rfind("l3.memory.", 0), 0u) << id;
  EXPECT_TRUE(st.count("l3.memory.swap_active"));
  RunOutput skip = run_plumb(check_args("nvme-misconfigured", {"--format", "json", "--skip", "l2,l3.compute.cpu_governor"}));
  auto st2 = host_statuses(parse_json(skip));
  for (const auto& [id, s] : st2) {
    EXPECT_NE(id.rfind("l2.", 0), 0u) << id;
    EXPECT_NE(id, "l3.compute.cpu_governor");
  }
  EXPECT_TRUE(st2.count("l3.memory.memlock_limit"));
}

TEST(CheckSelection, UnknownIdGetsDidYouMean) {
  RunOutput r = run_plumb(check_args("healthy", {"--only", "l3.compute.cpu_govenor"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("did you mean 'l3.compute.cpu_governor'"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(CheckList, ListsEveryCpuMemoryProcessCheckInBothLanguages) {
  RunOutput en = run_plumb({"check", "--list"});
  EXPECT_EQ(en.exit_code, 0) << en.err;
  RunOutput zh = run_plumb({"check", "--list", "--lang", "zh"});
  for (const char* id : {"l3.compute.thread_oversubscription", "l3.compute.cpu_governor", "l3.compute.numa_balancing",
                         "l3.memory.memlock_limit", "l3.memory.swap_active", "l2.compute.cpu_saturated",
                         "l2.memory.pressure", "l2.data.io_pressure", "collect.cpu", "collect.memory", "collect.psi",
                         "collect.process", "collect.sysctl"}) {
    EXPECT_NE(en.out.find(id), std::string::npos) << id;
    EXPECT_NE(zh.out.find(id), std::string::npos) << id;
  }
  EXPECT_NE(zh.out.find("CPU 调频策略"), std::string::npos);
}

}  // namespace
}  // namespace plumb
