// The storage, cgroup and kernel-log rules: a passing and a failing case each, skips with reasons, catalogue rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/catalog.h"
#include "core/registry.h"

namespace plumb {
namespace {

std::vector<Finding> judge_storage(const std::string& id, const Facts& f, const Thresholds& th = Thresholds()) {
  Selection sel;
  sel.only = {id};
  return judge(f, th, sel);
}

const Finding& one_subject(const std::vector<Finding>& v, const std::string& subject = "host") {
  for (const auto& f : v) {
    if (f.subject == subject) return f;
  }
  static Finding none;
  ADD_FAILURE() << "no finding for " << subject;
  return none;
}

BlockDevice disk(const std::string& name, bool rotational, const std::string& sched, std::uint64_t ra = 128) {
  BlockDevice d;
  d.name = name;
  d.kind = name.rfind("nvme", 0) == 0 ? "nvme" : name.rfind("loop", 0) == 0 ? "loop" : "sd";
  d.rotational = Fact<bool>::of(rotational, "/sys/block/" + name + "/queue/rotational");
  d.scheduler = Fact<std::string>::of(sched, "/sys/block/" + name + "/queue/scheduler");
  d.schedulers = {"none", "mq-deadline", "kyber", "bfq"};
  d.read_ahead_kb = Fact<std::uint64_t>::of(ra, "/sys/block/" + name + "/queue/read_ahead_kb");
  return d;
}

Facts with_disks(std::vector<BlockDevice> disks) {
  Facts f;
  f.host.storage.collected = true;
  f.host.storage.block_devices = Fact<std::vector<BlockDevice>>::of(std::move(disks), "/sys/block");
  return f;
}

TEST(IoSchedulerRule, NvmeWithNoneOrNot) {
  auto v = judge_storage("l3.storage.io_scheduler", with_disks({disk("nvme0n1", false, "none"), disk("nvme1n1", false, "mq-deadline"),
                                                     disk("sda", true, "bfq"), disk("loop0", false, "none")}));
  ASSERT_EQ(v.size(), 2u);  // the HDD and the loop device are not judged
  EXPECT_EQ(one_subject(v, "nvme0n1").status, Status::pass);
  const auto& bad = one_subject(v, "nvme1n1");
  EXPECT_EQ(bad.status, Status::warn);
  EXPECT_EQ(bad.threshold, "== none");
  EXPECT_EQ(bad.evidence[0].source, "/sys/block/nvme1n1/queue/scheduler");
  EXPECT_NE(finding_message(bad, Lang::en).find("mq-deadline"), std::string::npos);
  EXPECT_EQ(finding_verify(bad), "cat /sys/block/nvme1n1/queue/scheduler");
  EXPECT_NE(finding_gain(bad, Lang::en).find("22 % to 89 %"), std::string::npos);
  EXPECT_NE(finding_fix(bad, Lang::zh).find("udev"), std::string::npos);
}

TEST(IoSchedulerRule, LegacyCfqAndNoSsd) {
  auto v = judge_storage("l3.storage.io_scheduler", with_disks({disk("sdb", false, "cfq")}));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].variant, "legacy");
  EXPECT_NE(finding_message(v[0], Lang::en).find("mq-deadline, kyber and bfq"), std::string::npos);
  auto hdd = judge_storage("l3.storage.io_scheduler", with_disks({disk("sda", true, "mq-deadline")}));
  ASSERT_EQ(hdd.size(), 1u);
  EXPECT_EQ(hdd[0].status, Status::pass);
  EXPECT_EQ(hdd[0].variant, "no_ssd");
}

TEST(IoSchedulerRule, SkipsWithReasons) {
  Facts f;
  f.host.storage.block_devices = Fact<std::vector<BlockDevice>>::none("absent: /sys/block (No such file or directory)");
  auto v = judge_storage("l3.storage.io_scheduler", f);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, Status::skip);
  EXPECT_NE(v[0].args.at("reason").find("/sys/block"), std::string::npos);
  BlockDevice junk = disk("nvme0n1", false, "none");
  junk.scheduler = Fact<std::string>::none("/sys/block/nvme0n1/queue/scheduler: not a scheduler list: 'x'");
  auto j = judge_storage("l3.storage.io_scheduler", with_disks({junk}));
  ASSERT_EQ(j.size(), 1u);
  EXPECT_EQ(j[0].status, Status::skip);
  EXPECT_EQ(j[0].subject, "nvme0n1");
}

TEST(ReadAheadRule, SmallIsInfoAndThresholdsOverride) {
  auto v = judge_storage("l3.storage.read_ahead", with_disks({disk("nvme0n1", false, "none", 16), disk("nvme1n1", false, "none", 128),
                                                   disk("sda", true, "bfq", 128)}));
  EXPECT_EQ(one_subject(v, "nvme0n1").status, Status::info);
  EXPECT_EQ(one_subject(v, "nvme1n1").status, Status::pass);
  EXPECT_EQ(one_subject(v, "sda").status, Status::info);  // below the 1024 KiB for spinning disks
  Thresholds th;
  th.set("storage.read_ahead_rotational_min_kb", 64);
  EXPECT_EQ(one_subject(judge_storage("l3.storage.read_ahead", with_disks({disk("sda", true, "bfq", 128)}), th), "sda").status, Status::pass);
}

Facts with_data(const std::string& fs, bool network) {
  Facts f;
  f.host.storage.collected = true;
  DataPath dp;
  dp.path = "/data/x";
  dp.mount_point = Fact<std::string>::of("/data", "/proc/self/mountinfo");
  dp.fs_type = Fact<std::string>::of(fs, "/proc/self/mountinfo");
  dp.source = Fact<std::string>::of(network ? "srv:/e" : "/dev/nvme0n1p1", "/proc/self/mountinfo");
  dp.network = network;
  f.host.storage.data_paths.push_back(dp);
  return f;
}

TEST(DataPathRule, LocalNetworkOverlayAndNone) {
  EXPECT_EQ(judge_storage("l3.storage.data_path", with_data("xfs", false))[0].status, Status::pass);
  auto nfs = judge_storage("l3.storage.data_path", with_data("nfs4", true))[0];
  EXPECT_EQ(nfs.status, Status::info);
  EXPECT_EQ(nfs.variant, "network");
  EXPECT_EQ(judge_storage("l3.storage.data_path", with_data("overlay", false))[0].variant, "overlay");
  Facts none;
  none.host.storage.collected = true;
  auto s = judge_storage("l3.storage.data_path", none);
  EXPECT_EQ(s[0].status, Status::skip);
  EXPECT_NE(s[0].args.at("reason").find("--data"), std::string::npos);
}

Facts with_shm(const std::string& opts, std::optional<std::uint64_t> mem_total = std::nullopt) {
  Facts f;
  f.host.storage.collected = true;
  // What the collector records for a tmpfs /dev/shm with these options.
  f.host.storage.shm.fs_type = Fact<std::string>::of("tmpfs", "/proc/mounts");
  f.host.storage.shm.options = Fact<std::string>::of(opts, "/proc/mounts");
  if (opts.find("size=") != std::string::npos) {
    auto mib = std::stoull(opts.substr(opts.find("size=") + 5));
    f.host.storage.shm.size_bytes = Fact<std::uint64_t>::of(mib << 20, "/proc/mounts");
  } else {
    f.host.storage.shm.size_is_default = true;
    f.host.storage.shm.size_percent_of_ram = Fact<double>::of(50, "/proc/mounts");
    f.host.storage.shm.size_bytes = Fact<std::uint64_t>::none("no size= option: the tmpfs default, half of RAM");
  }
  if (mem_total) f.host.memory.mem_total_bytes = Fact<std::uint64_t>::of(*mem_total, "/proc/meminfo");
  return f;
}

TEST(ShmRule, DockerDefaultFailsLargePasses) {
  auto docker = judge_storage("l3.storage.shm_size", with_shm("rw,size=64M"))[0];
  EXPECT_EQ(docker.status, Status::fail);
  EXPECT_EQ(docker.variant, "docker_default");
  EXPECT_NE(finding_message(docker, Lang::en).find("bus error"), std::string::npos);
  EXPECT_NE(finding_fix(docker, Lang::en).find("--shm-size"), std::string::npos);
  EXPECT_NE(finding_fix(docker, Lang::en).find("--ipc=host"), std::string::npos);
  EXPECT_EQ(judge_storage("l3.storage.shm_size", with_shm("rw,size=512M"))[0].status, Status::fail);
  EXPECT_EQ(judge_storage("l3.storage.shm_size", with_shm("rw,size=16384M"))[0].status, Status::pass);
}

TEST(ShmRule, TmpfsDefaultIsHalfOfRam) {
  auto big = judge_storage("l3.storage.shm_size", with_shm("rw,nosuid", 64ull << 30))[0];
  EXPECT_EQ(big.status, Status::pass);
  EXPECT_EQ(big.variant, "pass_default");
  EXPECT_NE(finding_message(big, Lang::en).find("half of RAM = 32 GiB"), std::string::npos);
  EXPECT_EQ(judge_storage("l3.storage.shm_size", with_shm("rw,nosuid", 1ull << 30))[0].status, Status::fail);  // 512 MiB
  auto unknown = judge_storage("l3.storage.shm_size", with_shm("rw,nosuid"))[0];
  EXPECT_EQ(unknown.status, Status::info);
  EXPECT_EQ(unknown.variant, "percent_unknown_ram");
}

FreeSpace fs_of(std::vector<std::string> paths, std::uint64_t avail_gib, std::uint64_t total_gib,
                std::uint64_t avail_inodes = 900, std::uint64_t total_inodes = 1000) {
  return FreeSpace{std::move(paths), avail_gib << 30, total_gib << 30, avail_inodes, total_inodes};
}

TEST(FreeSpaceRule, FullFileSystemsFailOnePerFileSystemWithItsPaths) {
  Facts f;
  f.host.storage.collected = true;
  f.host.storage.free_space = Fact<std::vector<FreeSpace>>::none("statvfs reads the running machine, not a --root tree", "statvfs(3)");
  auto none = judge_storage("l3.storage.free_space", f);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0].status, Status::skip);
  EXPECT_NE(none[0].args.at("reason").find("--root"), std::string::npos);

  f.host.storage.free_space = Fact<std::vector<FreeSpace>>::of({fs_of({"/tmp", "/"}, 400, 500), fs_of({"/dev/shm"}, 32, 32)}, "statvfs(3)");
  auto ok = judge_storage("l3.storage.free_space", f);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].status, Status::pass);
  EXPECT_NE(finding_message(ok[0], Lang::en).find("/tmp, / 400 GiB (80 %); /dev/shm 32 GiB (100 %)"), std::string::npos) << finding_message(ok[0], Lang::en);

  // 1 GiB of 500 left (0.2 %): a torch.save of a checkpoint fails; 30 of 500 (6 %) warns; a
  // file system with space but no inodes fails with its own sentence.
  f.host.storage.free_space = Fact<std::vector<FreeSpace>>::of(
      {fs_of({"/tmp", "/"}, 1, 500), fs_of({"/data"}, 30, 500), fs_of({"/var/tmp"}, 100, 500, 5, 1000),
       fs_of({"/btrfs"}, 100, 500, 0, 0)},
      "statvfs(3)");
  auto bad = judge_storage("l3.storage.free_space", f);
  ASSERT_EQ(bad.size(), 3u);
  EXPECT_EQ(bad[0].status, Status::fail);
  EXPECT_EQ(bad[0].args.at("paths"), "/tmp, /");
  EXPECT_NE(finding_message(bad[0], Lang::en).find("No space left on device"), std::string::npos);
  EXPECT_EQ(finding_verify(bad[0]), "df -h /tmp; df -i /tmp");
  EXPECT_EQ(bad[1].status, Status::warn);
  EXPECT_EQ(bad[2].status, Status::fail);
  EXPECT_EQ(bad[2].variant, "inodes");
  EXPECT_NE(finding_message(bad[2], Lang::zh).find("inode"), std::string::npos);
  Thresholds th;
  th.set("storage.free_warn_pct", 5);
  auto relaxed = judge_storage("l3.storage.free_space", f, th);
  EXPECT_EQ(relaxed.size(), 2u) << "6 % free passes with a 5 % warning threshold";
}

TEST(ShmRule, NotMountedWarns) {
  Facts f;
  f.host.storage.collected = true;
  f.host.storage.shm.fs_type = Fact<std::string>::none("/dev/shm is not a mount point in /proc/mounts", "/proc/mounts");
  auto v = judge_storage("l3.storage.shm_size", f)[0];
  EXPECT_EQ(v.status, Status::warn);
  EXPECT_EQ(v.variant, "not_mounted");
}

Facts with_cgroup(std::optional<std::uint64_t> limit, std::optional<std::uint64_t> total, std::uint64_t oom_kills = 0) {
  Facts f;
  auto& cg = f.host.cgroup;
  cg.collected = true;
  cg.version = Fact<int>::of(2, "/proc/self/cgroup");
  cg.path = Fact<std::string>::of("/job", "/proc/self/cgroup");
  cg.memory_limit_raw = Fact<std::string>::of(limit ? std::to_string(*limit) : "max", "/sys/fs/cgroup/job/memory.max");
  cg.memory_limit_bytes = limit ? Fact<std::uint64_t>::of(*limit, "/sys/fs/cgroup/job/memory.max")
                                : Fact<std::uint64_t>::none("unlimited (memory.max = max)");
  cg.oom_kill_events = Fact<std::uint64_t>::of(oom_kills, "/sys/fs/cgroup/job/memory.events");
  if (total) f.host.memory.mem_total_bytes = Fact<std::uint64_t>::of(*total, "/proc/meminfo");
  return f;
}

TEST(CgroupLimitRule, FarBelowHostMemoryWarns) {
  auto low = judge_storage("l3.memory.cgroup_limit", with_cgroup(16ull << 30, 256ull << 30))[0];
  EXPECT_EQ(low.status, Status::warn);
  EXPECT_EQ(low.args.at("pct"), "6.2");
  EXPECT_EQ(finding_verify(low), "cat /sys/fs/cgroup/job/memory.max");
  EXPECT_EQ(judge_storage("l3.memory.cgroup_limit", with_cgroup(128ull << 30, 256ull << 30))[0].status, Status::pass);
  auto unl = judge_storage("l3.memory.cgroup_limit", with_cgroup(std::nullopt, std::nullopt))[0];
  EXPECT_EQ(unl.status, Status::pass);
  EXPECT_EQ(unl.variant, "unlimited");
  auto no_total = judge_storage("l3.memory.cgroup_limit", with_cgroup(16ull << 30, std::nullopt))[0];
  EXPECT_EQ(no_total.status, Status::skip);
  EXPECT_NE(no_total.args.at("reason").find("MemTotal"), std::string::npos);
  Facts unread;
  unread.host.cgroup.collected = true;
  unread.host.cgroup.memory_limit_raw = Fact<std::string>::none("/sys/fs/cgroup/job/memory.max: not a byte count or 'max': 'garbage'");
  EXPECT_EQ(judge_storage("l3.memory.cgroup_limit", unread)[0].status, Status::skip);
}

TEST(CgroupOomRule, KillsFail) {
  auto bad = judge_storage("l3.memory.cgroup_oom_kills", with_cgroup(16ull << 30, 256ull << 30, 3))[0];
  EXPECT_EQ(bad.status, Status::fail);
  EXPECT_NE(finding_message(bad, Lang::en).find("3 OOM kill"), std::string::npos);
  EXPECT_NE(finding_message(bad, Lang::zh).find("3 次 OOM kill"), std::string::npos);
  EXPECT_EQ(judge_storage("l3.memory.cgroup_oom_kills", with_cgroup(16ull << 30, 256ull << 30, 0))[0].status, Status::pass);
  Facts missing;
  missing.host.cgroup.collected = true;
  missing.host.cgroup.oom_kill_events = Fact<std::uint64_t>::none("absent: /sys/fs/cgroup/memory.events");
  EXPECT_EQ(judge_storage("l3.memory.cgroup_oom_kills", missing)[0].status, Status::skip);
}

Facts with_log(std::vector<OomKill> kills, std::vector<XidEvents> xids = {}) {
  Facts f;
  f.host.kmsg.collected = true;
  f.host.kmsg.records = Fact<std::uint64_t>::of(100, "/dev/kmsg");
  f.host.kmsg.oom_kill_total = kills.size();
  f.host.kmsg.oom_kills = std::move(kills);
  f.host.kmsg.xids = std::move(xids);
  return f;
}

OomKill kill(const std::string& scope, std::int64_t pid, const std::string& name) {
  OomKill k;
  k.scope = scope;
  k.pid = pid;
  k.process = name;
  k.line = "Out of memory: Killed process " + std::to_string(pid) + " (" + name + ")";
  return k;
}

TEST(OomKillsRule, VictimsNamedByScope) {
  auto cg = judge_storage("l3.kernel.oom_kills", with_log({kill("cgroup", 629, "onmt_train")}))[0];
  EXPECT_EQ(cg.status, Status::fail);
  EXPECT_EQ(cg.variant, "fail_cgroup");
  EXPECT_NE(finding_message(cg, Lang::en).find("onmt_train (pid 629, memcg)"), std::string::npos);
  auto gl = judge_storage("l3.kernel.oom_kills", with_log({kill("global", 15784, "python3")}))[0];
  EXPECT_EQ(gl.variant, "fail_global");
  auto mixed = judge_storage("l3.kernel.oom_kills", with_log({kill("global", 1, "a"), kill("cgroup", 2, "b")}))[0];
  EXPECT_EQ(mixed.variant, "fail");
  EXPECT_EQ(judge_storage("l3.kernel.oom_kills", with_log({}))[0].status, Status::pass);
}

TEST(OomKillsRule, UnreadableLogSkipsNamingCapSyslog) {
  Facts f;
  f.host.kmsg.collected = true;
  f.host.kmsg.records = Fact<std::uint64_t>::none(
      "permission denied: /dev/kmsg (Operation not permitted): needs CAP_SYSLOG (or kernel.dmesg_restrict=0)", "/dev/kmsg");
  for (const char* id : {"l3.kernel.oom_kills", "l3.gpu.xid"}) {
    auto v = judge_storage(id, f);
    ASSERT_EQ(v.size(), 1u);
    EXPECT_EQ(v[0].status, Status::skip);
    EXPECT_NE(finding_message(v[0], Lang::en).find("CAP_SYSLOG"), std::string::npos);
  }
}

TEST(StorageCgroupKmsgCatalogue, RowsHaveBothLanguagesAndKnownFunnelLinks) {
  for (const char* id : {"l3.storage.io_scheduler", "l3.storage.read_ahead", "l3.storage.data_path", "l3.storage.shm_size",
                         "l3.memory.cgroup_limit", "l3.memory.cgroup_oom_kills", "l3.kernel.oom_kills"}) {
    const CatalogEntry* e = find_entry(id);
    ASSERT_NE(e, nullptr) << id;
    EXPECT_FALSE(e->title.en.empty() || e->title.zh.empty()) << id;
    EXPECT_FALSE(e->fix.en.empty() || e->fix.zh.empty()) << id;
    EXPECT_FALSE(e->verify.empty()) << id;
    EXPECT_TRUE(e->messages.count("pass")) << id;
    for (const auto& [variant, text] : e->messages) EXPECT_FALSE(text.en.empty() || text.zh.empty()) << id << " " << variant;
    for (const auto& l2 : e->explains) EXPECT_NE(find_entry(l2), nullptr) << id << " explains " << l2;
  }
  const auto& sched = find_entry("l3.storage.io_scheduler")->explains;  // other areas' L2 ids join the list
  EXPECT_NE(std::find(sched.begin(), sched.end(), "l2.trace.dataloader_share"), sched.end());
  auto causes = l3_causes_of("l2.memory.pressure");
  EXPECT_GE(causes.size(), 4u);
}

}  // namespace
}  // namespace plumb
