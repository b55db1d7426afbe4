// End to end: `plumb check` against the fixture host trees for the storage, cgroup and kernel-log checks
// (block devices, mounts, /dev/shm, cgroup limits and OOM kills, kernel log): finding ids and statuses in JSON, words in both languages, bad input.
#include <gtest/gtest.h>

#include <map>

#include "core/json.h"
#include "../test_util.h"
#include "../scratch_root.h"

namespace plumb {
namespace {

const char* kOnly = "l3.storage,l3.memory.cgroup_limit,l3.memory.cgroup_oom_kills,l3.kernel";

struct Checked {
  RunOutput run;
  json doc;
  std::map<std::string, std::string> status;  // "id|subject" -> status
  [[nodiscard]] std::string at(const std::string& id, const std::string& subject = "host") const {
    auto it = status.find(id + "|" + subject);
    return it == status.end() ? "<none>" : it->second;
  }
  [[nodiscard]] bool has_mem_total() const {
    const auto& m = doc["facts"]["host"]["memory"]["mem_total_bytes"];
    return m.is_object() && m.contains("value");
  }
};

Checked storage_check(const std::string& host, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"check", "--root", test::host_fixture(host), "--format", "json", "--only", kOnly};
  args.insert(args.end(), extra.begin(), extra.end());
  Checked c;
  c.run = test::run_plumb(args);
  c.doc = json::parse(c.run.out, nullptr, false);
  if (c.doc.is_discarded()) {
    ADD_FAILURE() << "not JSON: " << c.run.out.substr(0, 200) << c.run.err;
    return c;
  }
  for (const auto& f : c.doc["findings"]) {
    c.status[f["id"].get<std::string>() + "|" + f["subject"].get<std::string>()] = f["status"].get<std::string>();
  }
  return c;
}

TEST(StorageCgroupKmsgE2E, Healthy) {
  auto c = storage_check("healthy", {"--data", "/data/imagenet"});
  EXPECT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.at("l3.storage.io_scheduler", "nvme0n1"), "pass");
  EXPECT_EQ(c.at("l3.storage.read_ahead", "nvme0n1"), "pass");
  EXPECT_EQ(c.at("l3.storage.read_ahead", "sda"), "pass");
  EXPECT_EQ(c.at("l3.storage.data_path", "/data/imagenet"), "pass");
  EXPECT_EQ(c.at("l3.storage.shm_size"), "pass");
  EXPECT_EQ(c.at("l3.memory.cgroup_limit"), "pass");  // unlimited
  EXPECT_EQ(c.at("l3.memory.cgroup_oom_kills"), "pass");
  EXPECT_EQ(c.at("l3.kernel.oom_kills"), "pass");
  EXPECT_EQ(c.at("l3.gpu.xid"), "pass");
  EXPECT_EQ(c.doc["facts"]["host"]["cgroup"]["effective_cpus"]["value"], 32.0);
  EXPECT_EQ(c.doc["facts"]["host"]["storage"]["data_paths"][0]["device"]["value"], "nvme0n1");
}

TEST(StorageCgroupKmsgE2E, NvmeMisconfigured) {
  auto c = storage_check("nvme-misconfigured", {"--data", "/data/imagenet"});
  EXPECT_EQ(c.run.exit_code, 1);
  EXPECT_EQ(c.at("l3.storage.io_scheduler", "nvme0n1"), "warn");  // mq-deadline
  EXPECT_EQ(c.at("l3.storage.io_scheduler", "nvme1n1"), "warn");  // bfq
  EXPECT_EQ(c.at("l3.storage.io_scheduler", "sda"), "<none>");    // spinning disk: not judged
  EXPECT_EQ(c.at("l3.storage.read_ahead", "nvme1n1"), "info");    // 16 KiB
  EXPECT_EQ(c.at("l3.memory.cgroup_oom_kills"), "fail");          // memory.events oom_kill 3
  // The limit (16 GiB on the Slurm job's cgroup) is judged against MemTotal, which the memory
  // collector reads; without it the rule must say why it could not judge.
  if (c.has_mem_total()) {
    EXPECT_EQ(c.at("l3.memory.cgroup_limit"), "warn");
    EXPECT_EQ(c.at("l3.storage.shm_size"), "pass");  // tmpfs default: half of RAM
  } else {
    EXPECT_EQ(c.at("l3.memory.cgroup_limit"), "skip");
    EXPECT_EQ(c.at("l3.storage.shm_size"), "info");
  }
  EXPECT_EQ(c.at("l3.kernel.oom_kills"), "skip");  // no /dev/kmsg in this tree
  EXPECT_EQ(c.doc["facts"]["host"]["cgroup"]["memory_limit_bytes"]["value"], 17179869184ull);
}

TEST(StorageCgroupKmsgE2E, DockerV1) {
  auto c = storage_check("docker-v1");
  EXPECT_EQ(c.run.exit_code, 1);
  EXPECT_EQ(c.at("l3.storage.shm_size"), "fail");  // Docker's 64 MB default
  EXPECT_EQ(c.at("l3.storage.io_scheduler", "nvme0n1"), "pass");
  EXPECT_EQ(c.at("l3.memory.cgroup_oom_kills"), "pass");
  EXPECT_EQ(c.at("l3.memory.cgroup_limit"), c.has_mem_total() ? "pass" : "skip");  // 64 GiB of 126 GiB
  EXPECT_EQ(c.at("l3.storage.data_path"), "skip");  // no --data given
  const auto& cg = c.doc["facts"]["host"]["cgroup"];
  EXPECT_EQ(cg["version"]["value"], 1);
  EXPECT_EQ(cg["effective_cpus"]["value"], 2.0);  // cfs_quota 200000 / period 100000
}

TEST(StorageCgroupKmsgE2E, OomXidWithKmsgFile) {
  auto c = storage_check("oom-xid", {"--kmsg", test::fixture("kmsg/oom-xid-dmesg.log"), "--data", "/mnt/datasets/coco"});
  EXPECT_EQ(c.run.exit_code, 1);
  EXPECT_EQ(c.at("l3.kernel.oom_kills"), "fail");
  EXPECT_EQ(c.at("l3.gpu.xid", "gpu 0000:3b:00"), "fail");  // 79 fallen off the bus
  EXPECT_EQ(c.at("l3.gpu.xid", "gpu 0000:38:00"), "warn");  // 13 application
  EXPECT_EQ(c.at("l3.storage.data_path", "/mnt/datasets/coco"), "info");  // nfs4
  EXPECT_EQ(c.at("l3.memory.cgroup_oom_kills"), "fail");
  int xid48 = 0;
  for (const auto& f : c.doc["findings"]) {
    if (f["id"] == "l3.gpu.xid" && f["args"]["code"] == "48") {
      ++xid48;
      EXPECT_EQ(f["status"], "fail");
      EXPECT_EQ(f["subject"], "gpu 0000:19:00");
    }
    if (f["id"] == "l3.kernel.oom_kills") {
      EXPECT_EQ(f["args"]["cgroup_count"], "1");
      EXPECT_EQ(f["args"]["global_count"], "1");
    }
  }
  EXPECT_EQ(xid48, 1);
}

TEST(StorageCgroupKmsgE2E, ReportsInBothLanguages) {
  std::vector<std::string> base{"check", "--root", test::host_fixture("oom-xid"), "--kmsg", test::fixture("kmsg/oom-xid-dmesg.log"),
                                "--only", kOnly, "--format", "md"};
  auto en = test::run_plumb(base);
  EXPECT_NE(en.out.find("GPU has fallen off the bus"), std::string::npos);
  EXPECT_NE(en.out.find("python3 (pid 15784, global)"), std::string::npos);
  base.insert(base.end(), {"--lang", "zh"});
  auto zh = test::run_plumb(base);
  EXPECT_NE(zh.out.find("内核日志中的 NVIDIA Xid 错误"), std::string::npos);
  EXPECT_NE(zh.out.find("GPU 已从总线上掉线"), std::string::npos);
  auto docker = test::run_plumb({"check", "--root", test::host_fixture("docker-v1"), "--only", "l3.storage.shm_size",
                                 "--lang", "zh", "--format", "md"});
  EXPECT_NE(docker.out.find("Docker 默认值"), std::string::npos);
}

TEST(StorageCgroupKmsgE2E, SnapshotRoundTripJudgesTheSame) {
  test::ScratchRoot r("e2e_snap");
  std::string snap = r.path() + "/snap.json";
  auto c = test::run_plumb({"check", "--root", test::host_fixture("nvme-misconfigured"), "--only", kOnly, "--data",
                            "/data/imagenet", "--save", snap, "--format", "json"});
  auto again = test::run_plumb({"report", snap, "--only", kOnly, "--format", "json"});
  EXPECT_EQ(again.exit_code, c.exit_code);
  EXPECT_EQ(json::parse(again.out)["findings"], json::parse(c.out)["findings"]);
}

TEST(StorageCgroupKmsgE2E, BadInput) {
  auto missing = test::run_plumb({"check", "--root", test::host_fixture("healthy"), "--kmsg", "/nonexistent/kmsg.log"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--kmsg"), std::string::npos);
  EXPECT_EQ(std::count(missing.err.begin(), missing.err.end(), '\n'), 1);

  // A truncated, partly binary kernel log: read what parses, no crash.
  auto trunc = storage_check("healthy", {"--kmsg", test::fixture("kmsg/truncated-raw.log")});
  EXPECT_EQ(trunc.run.exit_code, 0) << trunc.run.err;
  EXPECT_EQ(trunc.at("l3.kernel.oom_kills"), "pass");

  // Garbage in sysfs and cgroup files: skips that name the file, exit 0.
  test::ScratchRoot r("e2e_garbage");
  r.write("proc/self/cgroup", "0::/job\n");
  r.write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  r.write("sys/fs/cgroup/job/memory.max", "garbage\n");
  r.write("sys/fs/cgroup/job/memory.events", "\xff\xfe\n");
  r.write("sys/block/nvme0n1/queue/scheduler", "junk junk junk\n");
  r.write("sys/block/nvme0n1/queue/rotational", "0\n");
  r.write("sys/block/nvme0n1/queue/read_ahead_kb", "-5\n");
  r.write("proc/mounts", "garbage\n");
  auto g = test::run_plumb({"check", "--root", r.path(), "--only", kOnly, "--format", "json"});
  EXPECT_EQ(g.exit_code, 0) << g.err;
  auto doc = json::parse(g.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  std::map<std::string, std::string> reasons;
  for (const auto& f : doc["findings"]) {
    if (f["status"] == "skip") reasons[f["id"].get<std::string>() + "|" + f["subject"].get<std::string>()] = f["args"]["reason"];
  }
  EXPECT_NE(reasons["l3.storage.io_scheduler|nvme0n1"].find("/sys/block/nvme0n1/queue/scheduler"), std::string::npos);
  EXPECT_NE(reasons["l3.storage.read_ahead|nvme0n1"].find("read_ahead_kb"), std::string::npos);
  EXPECT_NE(reasons["l3.memory.cgroup_limit|host"].find("memory.max"), std::string::npos);
  EXPECT_NE(reasons["l3.memory.cgroup_oom_kills|host"].find("oom_kill"), std::string::npos);
  EXPECT_NE(reasons["l3.kernel.oom_kills|host"].find("/dev/kmsg"), std::string::npos);
}

}  // namespace
}  // namespace plumb
