// Kernel-log parsing on real captures (leptonai/gpud testdata, a Colab dmesg paste) and the
// non-blocking reader.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "collect/kmsg.h"
#include "core/text.h"
#include "../../scratch_root.h"
#include "../../test_util.h"

namespace plumb {
namespace {

using test::ScratchRoot;

KernelLogFacts parse_file(const std::string& rel) { return parse_kernel_log(test::read_fixture("kmsg/" + rel)); }

const XidEvents* xid(const KernelLogFacts& k, const std::string& pci, int code) {
  for (const auto& g : k.xids) {
    if (g.pci == pci && g.code == code) return &g;
  }
  return nullptr;
}

TEST(KmsgLine, EveryPrefixFormat) {
  auto raw = parse_kernel_log_line("6,3964,206764307,-;nvidia-nvswitch2: open (major=510)");
  EXPECT_EQ(raw.message, "nvidia-nvswitch2: open (major=510)");
  EXPECT_EQ(raw.time, "[  206.764307]");
  EXPECT_EQ(raw.level, 6);
  EXPECT_TRUE(parse_kernel_log_line(" SUBSYSTEM=pci").continuation);
  auto raw_caller = parse_kernel_log_line("4,12,5000000,-,caller=T123;hello");
  EXPECT_EQ(raw_caller.message, "hello");

  auto dm = parse_kernel_log_line("[31609.615516] NVRM: Xid (PCI:0000:01:00): 32, Channel ID 00000052 intr 02000000");
  EXPECT_EQ(dm.time, "[31609.615516]");
  EXPECT_TRUE(starts_with(dm.message, "NVRM: Xid"));

  auto ct = parse_kernel_log_line("[Sun Feb 23 16:24:18 2025] NVRM: GPU Board Serial Number: 1650124014249");
  EXPECT_EQ(ct.time, "[Sun Feb 23 16:24:18 2025]");
  EXPECT_EQ(ct.message, "NVRM: GPU Board Serial Number: 1650124014249");

  auto iso = parse_kernel_log_line("kern  :warn  : 2025-01-21T03:16:32,154004+00:00 NVRM: Xid (PCI:0000:38:00): 13, x");
  EXPECT_EQ(iso.time, "2025-01-21T03:16:32,154004+00:00");
  EXPECT_EQ(iso.level, 4);
  EXPECT_EQ(iso.message, "NVRM: Xid (PCI:0000:38:00): 13, x");

  auto iso_bare = parse_kernel_log_line("2024-11-15T05:39:15,491363+00:00 nvidia-peermem nv_get_p2p_free_callback:127 ERROR");
  EXPECT_EQ(iso_bare.time, "2024-11-15T05:39:15,491363+00:00");
  EXPECT_TRUE(starts_with(iso_bare.message, "nvidia-peermem"));

  auto pstore = parse_kernel_log_line("<0>[ 3098.275469] Kernel panic - not syncing: Test panic triggered by crash_test module");
  EXPECT_EQ(pstore.level, 0);
  EXPECT_EQ(pstore.time, "[ 3098.275469]");
  EXPECT_TRUE(starts_with(pstore.message, "Kernel panic"));

  auto syslog = parse_kernel_log_line("Dec  2 10:43:35 worker4 kernel: [240314.528856] NVRM: Xid (PCI:0000:07:00): 48, x");
  EXPECT_EQ(syslog.time, "Dec  2 10:43:35");
  EXPECT_EQ(syslog.message, "NVRM: Xid (PCI:0000:07:00): 48, x");

  // A leading "[drm]" is a message, not a timestamp.
  EXPECT_EQ(parse_kernel_log_line("[drm] Initialized nvidia-drm").message, "[drm] Initialized nvidia-drm");
  EXPECT_EQ(parse_kernel_log_line("plain message").message, "plain message");
}

TEST(KmsgXid, FieldsOfTheDriverFormat) {
  auto x = parse_xid("NVRM: Xid (PCI:0000:3B:00): 79, pid=1234, name=python3, GPU has fallen off the bus.");
  ASSERT_TRUE(x);
  EXPECT_EQ(x->pci, "0000:3b:00");
  EXPECT_EQ(x->code, 79);
  EXPECT_EQ(x->pid, std::optional<std::int64_t>(1234));
  EXPECT_EQ(x->process, "python3");
  auto mig = parse_xid("NVRM: Xid (PCI:0000:3b:00 GPU-I:02 GPU-CI:01): 31, pid='<unknown>', name=<unknown>, MMU Fault");
  ASSERT_TRUE(mig);
  EXPECT_EQ(mig->pci, "0000:3b:00");
  EXPECT_EQ(mig->code, 31);
  EXPECT_FALSE(mig->pid);
  EXPECT_TRUE(mig->process.empty());
  auto old = parse_xid("NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->code, 79);
  EXPECT_TRUE(parse_xid("NVRM: Xid (PCI:0019:01:00): 149, NETIR Fatal XC0 i0 Link -1")->fatal_word);
  EXPECT_FALSE(parse_xid("NVRM: Xid (PCI:0018:01:00): 145, RLW_RXPIPE Nonfatal XC0 i0 Link 13")->fatal_word);
  EXPECT_FALSE(parse_xid("NVRM: Xid (PCI:zz): 13, x"));
  EXPECT_FALSE(parse_xid("NVRM: Xid (PCI:0000:01:00): , x"));
  EXPECT_FALSE(parse_xid("NVRM: Xid (PCI:0000:01:00"));
  EXPECT_FALSE(parse_xid("NVRM: GPU at PCI:0000:9b:00: GPU-509665ad"));
}

TEST(KmsgOom, KillLineVariants) {
  auto g = parse_oom_kill("Out of memory: Killed process 1440763 (perl) total-vm:87033376kB, anon-rss:60356340kB");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->scope, "global");
  EXPECT_EQ(*g->pid, 1440763);
  EXPECT_EQ(g->process, "perl");
  auto c = parse_oom_kill("Memory cgroup out of memory: Killed process 629 (onmt_train) total-vm:14119556kB");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->scope, "cgroup");
  auto old = parse_oom_kill("Memory cgroup out of memory: Kill process 24572 (java) score 0 or sacrifice child");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->process, "java");
  auto bare = parse_oom_kill("Killed process 28438 (java) total-vm:20255636kB, anon-rss:466160kB, file-rss:13684kB");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->scope, "unknown");
  auto uid = parse_oom_kill("Out of memory: Killed process 123, UID 48, (httpd).");
  ASSERT_TRUE(uid);
  EXPECT_EQ(uid->process, "httpd");
  EXPECT_EQ(*uid->pid, 123);
  EXPECT_FALSE(parse_oom_kill("oom_reaper: reaped process 345646 (vector), now anon-rss:0kB"));
  EXPECT_FALSE(parse_oom_kill("RuntimeError: DataLoader worker (pid 12) is killed by signal: Killed."));
  EXPECT_FALSE(parse_oom_kill("Out of memory: Killed process (x)"));
}

TEST(KmsgCorpus, ColabMemcgOom) {
  auto k = parse_file("colab-memcg-oom-killed-onmt_train.log");
  EXPECT_EQ(*k.records, 1u);
  ASSERT_EQ(k.oom_kill_total, 1u);
  EXPECT_EQ(k.oom_kills[0].scope, "cgroup");
  EXPECT_EQ(k.oom_kills[0].process, "onmt_train");
  EXPECT_EQ(*k.oom_kills[0].pid, 629);
  EXPECT_TRUE(k.xids.empty());
}

TEST(KmsgCorpus, Xid13StormIsCountedPerGpuAndCode) {
  auto k = parse_file("gpud-dmesg-decode-iso-xid13-storm-122k.log");
  EXPECT_EQ(*k.records, 636u);
  ASSERT_EQ(k.xids.size(), 2u);
  EXPECT_EQ(xid(k, "0000:38:00", 13)->count, 629u);
  EXPECT_EQ(xid(k, "0000:38:00", 43)->count, 7u);
  EXPECT_EQ(xid(k, "0000:38:00", 13)->first_time, "2025-01-21T02:21:33,498559+00:00");
  EXPECT_EQ(k.oom_kill_total, 0u);
}

TEST(KmsgCorpus, EccChainXid48_63_94) {
  auto k = parse_file("gpud-dmesg-iso-xid48-dbe-xid63-rowremap-xid94.log");
  EXPECT_EQ(*k.records, 41u);
  EXPECT_EQ(xid(k, "0000:19:00", 48)->count, 1u);
  EXPECT_EQ(xid(k, "0000:19:00", 63)->count, 1u);
  EXPECT_EQ(xid(k, "0000:19:00", 94)->count, 9u);
  EXPECT_EQ(xid(k, "0000:19:00", 94)->process, "python3.10");
}

TEST(KmsgCorpus, CtimeXid119) {
  auto k = parse_file("gpud-dmesg-ctime-xid119-gsp-rpc-timeout.log");
  ASSERT_EQ(k.xids.size(), 1u);
  EXPECT_EQ(k.xids[0].code, 119);
  EXPECT_EQ(k.xids[0].count, 5u);
  EXPECT_EQ(k.xids[0].first_time, "[Sun Feb 23 16:24:18 2025]");
  EXPECT_EQ(k.xids[0].process, "nvidia-smi");
}

TEST(KmsgCorpus, OomVariantsFile) {
  auto k = parse_file("gpud-dmesg-iso-xid13-xid43-oom-variants.log");
  EXPECT_EQ(xid(k, "0000:38:00", 13)->count, 16u);
  EXPECT_EQ(xid(k, "0000:38:00", 43)->count, 1u);
  // httpd (global), python "Kill process" (global), httpd again, and the CONSTRAINT_MEMCG summary
  // naming task=node whose kill line the test file left out.
  ASSERT_EQ(k.oom_kill_total, 4u);
  EXPECT_EQ(k.oom_kills[0].process, "httpd");
  EXPECT_EQ(k.oom_kills[0].scope, "global");
  EXPECT_EQ(k.oom_kills[1].process, "python");
  EXPECT_EQ(k.oom_kills[3].process, "node");
  EXPECT_EQ(k.oom_kills[3].scope, "cgroup");
  EXPECT_EQ(*k.oom_kills[3].pid, 863987);
  EXPECT_TRUE(starts_with(k.oom_kills[3].memcg, "/lxc.payload.ny2g2r5hh3-lxc/kubepods.slice"));
}

TEST(KmsgCorpus, RawRecordsAndPstoreWithoutEvents) {
  for (const char* f : {"gpud-dev-kmsg-raw-nvswitch-k8s.log", "gpud-dev-kmsg-raw-nvidia-peermem-errors.log",
                        "gpud-pstore-dmesg-prio-prefix-kernel-panic.txt", "gpud-dmesg-iso-libnccl-segfault.log"}) {
    auto k = parse_file(f);
    EXPECT_GT(*k.records, 0u) << f;
    EXPECT_EQ(k.oom_kill_total, 0u) << f;
    EXPECT_TRUE(k.xids.empty()) << f;
  }
  EXPECT_EQ(*parse_file("gpud-dev-kmsg-raw-nvswitch-k8s.log").records, 47u);
}

TEST(KmsgCorpus, MixedFormatsFile) {
  auto k = parse_file("mixed-formats.log");
  EXPECT_EQ(xid(k, "0000:3b:00", 79)->first_time, "[14032.118876]");
  EXPECT_EQ(xid(k, "0000:01:00", 32)->count, 1u);
  EXPECT_EQ(xid(k, "0000:9b:00", 119)->count, 1u);
  EXPECT_EQ(xid(k, "0000:38:00", 13)->count, 1u);
  EXPECT_EQ(xid(k, "0000:19:00", 48)->count, 1u);
  EXPECT_EQ(xid(k, "0000:07:00", 48)->first_time, "Dec  2 10:43:35");
  EXPECT_FALSE(xid(k, "0018:01:00", 145)->fatal_word);
  EXPECT_TRUE(xid(k, "0019:01:00", 149)->fatal_word);
  // "Kill process 24572 (java) ... sacrifice child" + "Killed process 24572 (java)" is one kill.
  ASSERT_EQ(k.oom_kill_total, 3u);
  EXPECT_EQ(k.oom_kills[0].process, "java");
  EXPECT_EQ(k.oom_kills[0].scope, "cgroup");
  EXPECT_TRUE(starts_with(k.oom_kills[0].line, "Killed process 24572"));
  EXPECT_EQ(k.oom_kills[1].scope, "global");
  EXPECT_EQ(k.oom_kills[2].process, "perl");
}

TEST(KmsgCorpus, OomXidFixtureLog) {
  auto k = parse_file("oom-xid-dmesg.log");
  ASSERT_EQ(k.oom_kill_total, 2u);
  EXPECT_EQ(k.oom_kills[0].scope, "cgroup");
  EXPECT_EQ(k.oom_kills[0].process, "python3");
  EXPECT_TRUE(starts_with(k.oom_kills[0].memcg, "/kubepods.slice/"));
  EXPECT_EQ(k.oom_kills[1].scope, "global");
  EXPECT_EQ(*k.oom_kills[1].pid, 15784);
  EXPECT_EQ(k.xids.size(), 5u);
  EXPECT_EQ(xid(k, "0000:3b:00", 79)->count, 1u);  // the "fallen off the bus" notice is not a second Xid
}

TEST(KmsgXid, FallenOffTheBusNoticeWithoutAnXidLine) {
  // Notice wording from NVIDIA/NVSentinel#155 and the driver's one-line form.
  auto k = parse_kernel_log("[  5.1] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
                            "[  5.1] NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
                            "[  5.1] NVRM: fallen off the bus and is not responding to commands.\n"
                            "[  6.2] NVRM: GPU 0000:05:00.0: GPU has fallen off the bus.\n"
                            "[  6.3] NVRM: Xid (PCI:0000:05:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n");
  ASSERT_EQ(k.xids.size(), 2u);
  EXPECT_EQ(xid(k, "0000:b3:00", 79)->count, 1u);
  EXPECT_EQ(xid(k, "0000:05:00", 79)->count, 1u);  // notice then Xid line: one event
  EXPECT_TRUE(starts_with(xid(k, "0000:05:00", 79)->first_line, "NVRM: Xid"));
  auto again = parse_kernel_log("NVRM: GPU at PCI:0000:05:00: GPU has fallen off the bus.\n"
                                "NVRM: GPU at PCI:0000:05:00: GPU has fallen off the bus.\n");
  EXPECT_EQ(xid(again, "0000:05:00", 79)->count, 1u);
  EXPECT_TRUE(parse_kernel_log("NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.144.03\n").xids.empty());
}

TEST(KmsgCorpus, TruncatedAndBinaryInputDoesNotCrash) {
  auto k = parse_file("truncated-raw.log");
  EXPECT_GT(*k.records, 10u);
  EXPECT_TRUE(k.xids.empty());
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk += static_cast<char>((i * 131) % 256);
  EXPECT_TRUE(parse_kernel_log(junk).collected);
  EXPECT_EQ(*parse_kernel_log("").records, 0u);
  EXPECT_EQ(parse_kernel_log("NVRM: Xid (PCI:0000:01:00): 99999999999999, x\n").xids.size(), 0u);
}

TEST(KmsgRead, RegularFileTailAndFifoNeverBlocks) {
  ScratchRoot r("kmsg_read");
  std::string text;
  for (int i = 0; i < 100; ++i) text += "line " + std::to_string(i) + "\n";
  r.write("log", text);
  bool truncated = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  auto all = read_kmsg_source(r.path() + "/log", "log", deadline, 1 << 20, truncated);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, text);
  EXPECT_FALSE(truncated);
  auto tail = read_kmsg_source(r.path() + "/log", "log", deadline, 30, truncated);
  ASSERT_TRUE(tail.ok());
  EXPECT_TRUE(truncated);
  EXPECT_EQ(tail->substr(tail->size() - 8), "line 99\n");
  EXPECT_EQ(tail->find("line 9\n"), std::string::npos);  // the partial first line is dropped
  EXPECT_TRUE(starts_with(*tail, "line "));

  std::string fifo = r.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto empty = read_kmsg_source(fifo, "fifo", deadline, 1 << 20, truncated);  // no writer: returns at once
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());

  auto missing = read_kmsg_source(r.path() + "/nope", "/dev/kmsg", deadline, 1 << 20, truncated);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::absent);
  EXPECT_NE(missing.error().describe().find("/dev/kmsg"), std::string::npos);
}

TEST(KmsgRead, KmsgFileOptionAndFixtureRoot) {
  Context c;
  c.root = HostRoot(test::host_fixture("healthy"));
  auto k = read_kernel_log(c);
  ASSERT_TRUE(k.records.has());
  EXPECT_EQ(k.records.source, "/dev/kmsg");
  EXPECT_EQ(*k.records, 47u);
  c.kmsg_file = test::fixture("kmsg/oom-xid-dmesg.log");
  k = read_kernel_log(c);
  EXPECT_EQ(k.oom_kill_total, 2u);
  EXPECT_EQ(k.records.source, c.kmsg_file);
  Context none;
  none.root = HostRoot(test::host_fixture("docker-v1"));
  auto absent = read_kernel_log(none);
  EXPECT_FALSE(absent.records.has());
  EXPECT_NE(absent.records.why().find("/dev/kmsg"), std::string::npos);
}

}  // namespace
}  // namespace plumb
