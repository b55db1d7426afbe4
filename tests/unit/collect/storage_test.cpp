// Storage parsers (scheduler, mountinfo, mounts, /dev/shm) and the storage collector on fixtures.
#include <gtest/gtest.h>

#include "collect/storage.h"
#include "../../scratch_root.h"
#include "../../test_util.h"

namespace plumb {
namespace {

using test::ScratchRoot;

TEST(StorageScheduler, ActiveOneInBrackets) {
  // Real file from prometheus/procfs: "mq-deadline kyber [bfq] none".
  auto s = parse_scheduler(test::read_fixture("storage/procfs-sys-block-sda-queue-scheduler.txt"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->active, "bfq");
  EXPECT_EQ(s->available, (std::vector<std::string>{"mq-deadline", "kyber", "bfq", "none"}));
  auto legacy = parse_scheduler("noop deadline [cfq]\n");
  ASSERT_TRUE(legacy.ok());
  EXPECT_EQ(legacy->active, "cfq");
  auto bare = parse_scheduler("none\n");  // devices without a choice
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->active, "none");
}

TEST(StorageScheduler, RejectsJunk) {
  EXPECT_FALSE(parse_scheduler("").ok());
  EXPECT_FALSE(parse_scheduler("mq-deadline kyber bfq").ok());  // no active one
  EXPECT_FALSE(parse_scheduler("[none] [bfq]").ok());
  EXPECT_FALSE(parse_scheduler("$$junk%% [none]").ok());
  EXPECT_FALSE(parse_scheduler(std::string("\xff\x00[x]", 5)).ok());
}

TEST(StorageMountinfo, ParsesTheProc5ExampleAndEscapes) {
  auto m = parse_mountinfo("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n"
                           "40 35 0:50 / /mnt/my\\040data rw shared:3 shared:4 - nfs4 srv:/export\\040x rw,vers=4.2\n"
                           "garbage line\n"
                           "41 35 0:51 / /no/separator rw ext4 /dev/x rw\n");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].major_minor, "98:0");
  EXPECT_EQ(m[0].root, "/mnt1");
  EXPECT_EQ(m[0].mount_point, "/mnt2");
  EXPECT_EQ(m[0].fs_type, "ext3");
  EXPECT_EQ(m[0].source, "/dev/root");
  EXPECT_EQ(m[0].super_options, "rw,errors=continue");
  EXPECT_EQ(m[1].mount_point, "/mnt/my data");
  EXPECT_EQ(m[1].source, "srv:/export x");
}

TEST(StorageMounts, ParsesFstabStyleLines) {
  auto m = parse_mounts(test::read_fixture("hosts/docker-v1/proc/mounts"));
  ASSERT_GT(m.size(), 10u);
  EXPECT_EQ(m[0].mount_point, "/");
  EXPECT_EQ(m[0].fs_type, "overlay");
  EXPECT_TRUE(parse_mounts("one two\n\n").empty());
}

TEST(StorageMounts, UnescapeIsTotal) {
  EXPECT_EQ(unescape_mount_field("a\\040b"), "a b");
  EXPECT_EQ(unescape_mount_field("a\\04"), "a\\04");
  EXPECT_EQ(unescape_mount_field("\\"), "\\");
  EXPECT_EQ(unescape_mount_field("a\\999"), "a\\999");
}

TEST(StorageFindMount, LongestPrefixOnComponentBoundaries) {
  std::vector<MountEntry> ms(4);
  ms[0].mount_point = "/";
  ms[1].mount_point = "/data";
  ms[2].mount_point = "/data/imagenet";
  ms[3].mount_point = "/data";  // mounted over the first /data
  ms[3].fs_type = "top";
  EXPECT_EQ(find_mount_for(ms, "/data/imagenet/train")->mount_point, "/data/imagenet");
  EXPECT_EQ(find_mount_for(ms, "/data/coco")->fs_type, "top");
  EXPECT_EQ(find_mount_for(ms, "/data2/x")->mount_point, "/");
  EXPECT_EQ(find_mount_for(ms, "/data/../etc")->mount_point, "/");
  EXPECT_EQ(find_mount_for({}, "/x"), nullptr);
}

TEST(StorageFindMount, NormalizesPaths) {
  EXPECT_EQ(normalize_path("/data//x/./y/../z/"), "/data/x/z");
  EXPECT_EQ(normalize_path("/.."), "/");
  EXPECT_EQ(normalize_path(""), "/");
}

TEST(StorageShm, SizeOptionDefaultAndPercent) {
  auto docker = shm_from_mounts(parse_mounts("shm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n"), "/proc/mounts");
  ASSERT_TRUE(docker.size_bytes.has());
  EXPECT_EQ(*docker.size_bytes, 64ull << 20);
  EXPECT_FALSE(docker.size_is_default);

  auto host = shm_from_mounts(parse_mounts("tmpfs /dev/shm tmpfs rw,nosuid,nodev,inode64 0 0\n"), "/proc/mounts");
  EXPECT_TRUE(host.size_is_default);
  EXPECT_FALSE(host.size_bytes.has());
  EXPECT_NE(host.size_bytes.why().find("half of RAM"), std::string::npos);
  EXPECT_DOUBLE_EQ(*host.size_percent_of_ram, 50.0);

  auto pct = shm_from_mounts(parse_mounts("tmpfs /dev/shm tmpfs rw,size=25% 0 0\n"), "/proc/mounts");
  EXPECT_DOUBLE_EQ(*pct.size_percent_of_ram, 25.0);
  EXPECT_FALSE(pct.size_is_default);

  auto bad = shm_from_mounts(parse_mounts("tmpfs /dev/shm tmpfs rw,size=lots 0 0\n"), "/proc/mounts");
  EXPECT_FALSE(bad.size_bytes.has());
  EXPECT_NE(bad.size_bytes.why().find("lots"), std::string::npos);

  auto none = shm_from_mounts(parse_mounts("/dev/sda1 / ext4 rw 0 0\n"), "/proc/mounts");
  EXPECT_FALSE(none.fs_type.has());
  EXPECT_NE(none.fs_type.why().find("not a mount point"), std::string::npos);
}

TEST(StorageBlockKind, NamesAndNetworkFileSystems) {
  EXPECT_EQ(block_kind("nvme0n1"), "nvme");
  EXPECT_EQ(block_kind("sdb"), "sd");
  EXPECT_EQ(block_kind("vda"), "virtio");
  EXPECT_EQ(block_kind("dm-0"), "dm");
  EXPECT_EQ(block_kind("loop7"), "loop");
  EXPECT_EQ(block_kind("weird0"), "other");
  EXPECT_TRUE(is_network_fs("nfs4"));
  EXPECT_TRUE(is_network_fs("fuse.s3fs"));
  EXPECT_TRUE(is_network_fs("lustre"));
  EXPECT_FALSE(is_network_fs("xfs"));
  EXPECT_FALSE(is_network_fs("overlay"));
}

Context ctx_for(const std::string& root, std::vector<std::string> data = {}) {
  Context c;
  c.root = HostRoot(root);
  c.data_paths = std::move(data);
  return c;
}

const BlockDevice* find_dev(const StorageFacts& st, const std::string& name) {
  for (const auto& d : *st.block_devices) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

TEST(ReadStorage, NvmeMisconfiguredTree) {
  auto st = read_storage(ctx_for(test::host_fixture("nvme-misconfigured"), {"/data/imagenet", "/scratch/x", "/home/u"}));
  ASSERT_TRUE(st.block_devices.has());
  const auto* n1 = find_dev(st, "nvme1n1");
  ASSERT_NE(n1, nullptr);
  EXPECT_EQ(n1->kind, "nvme");
  EXPECT_EQ(*n1->scheduler, "bfq");
  EXPECT_FALSE(*n1->rotational);
  EXPECT_EQ(*n1->read_ahead_kb, 16u);
  EXPECT_EQ(*n1->model, "INTEL SSDPF2KX076TZ");
  EXPECT_EQ(n1->scheduler.source, "/sys/block/nvme1n1/queue/scheduler");
  ASSERT_EQ(st.data_paths.size(), 3u);
  EXPECT_EQ(*st.data_paths[0].device, "nvme1n1");  // whole-disk file system
  EXPECT_EQ(*st.data_paths[0].fs_type, "xfs");
  EXPECT_EQ(*st.data_paths[1].device, "nvme0n1");  // partition nvme0n1p1
  EXPECT_EQ(*st.data_paths[2].mount_point, "/");
  EXPECT_EQ(*st.data_paths[2].device, "sda");
  EXPECT_TRUE(st.shm.size_is_default);
}

TEST(ReadStorage, DockerAndNetworkDataPaths) {
  auto docker = read_storage(ctx_for(test::host_fixture("docker-v1"), {"/data/imagenet", "/workspace"}));
  EXPECT_EQ(*docker.data_paths[0].device, "nvme0n1");
  EXPECT_EQ(*docker.data_paths[1].fs_type, "overlay");
  EXPECT_EQ(*docker.shm.size_bytes, 64ull << 20);
  auto nfs = read_storage(ctx_for(test::host_fixture("oom-xid"), {"/mnt/datasets/coco"}));
  EXPECT_TRUE(nfs.data_paths[0].network);
  EXPECT_EQ(*nfs.data_paths[0].fs_type, "nfs4");
  EXPECT_FALSE(nfs.data_paths[0].device.has());
}

TEST(ReadStorage, GarbageSysfsValuesBecomeReasons) {
  ScratchRoot r("st_garbage");
  r.write("sys/block/nvme0n1/queue/scheduler", "%%garbage%%\n");
  r.write("sys/block/nvme0n1/queue/rotational", "yes\n");
  r.write("sys/block/nvme0n1/queue/read_ahead_kb", "lots\n");
  r.write("proc/mounts", "\x01\x02 nonsense\n");
  auto st = read_storage(ctx_for(r.path(), {"relative/path", "/data"}));
  const auto* d = find_dev(st, "nvme0n1");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->scheduler.has());
  EXPECT_NE(d->scheduler.why().find("not a scheduler list"), std::string::npos);
  EXPECT_FALSE(d->rotational.has());
  EXPECT_FALSE(d->read_ahead_kb.has());
  EXPECT_FALSE(d->model.has());
  EXPECT_NE(st.data_paths[0].fs_type.why().find("not an absolute path"), std::string::npos);
  EXPECT_NE(st.data_paths[1].fs_type.why().find("mountinfo"), std::string::npos);
  EXPECT_FALSE(st.shm.fs_type.has());
}

TEST(ReadStorage, MissingSysBlock) {
  ScratchRoot r("st_empty");
  auto st = read_storage(ctx_for(r.path()));
  EXPECT_TRUE(st.collected);
  EXPECT_FALSE(st.block_devices.has());
  EXPECT_NE(st.block_devices.why().find("/sys/block"), std::string::npos);
}

}  // namespace
}  // namespace plumb
