// The agent's kernel-log events: each signature's kind, subject and code, and the cursor that reads
// a growing file once per boot (a replaced or shrunk file is read again from its start).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "collect/kernel_events.h"
#include "../../scratch_root.h"

namespace plumb {
namespace {

using test::ScratchRoot;

KernelEvent ev(const std::string& line) {
  auto e = parse_kernel_event(line);
  EXPECT_TRUE(e.has_value()) << line;
  return e.value_or(KernelEvent{});
}

TEST(KernelEvents, EachSignatureHasItsKindSubjectAndCode) {
  auto x = ev("NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus.");
  EXPECT_EQ(x.kind, "xid");
  EXPECT_EQ(x.subject, "0000:3b:00");
  EXPECT_EQ(x.code, "79");
  auto s = ev("nvidia-nvswitch3: SXid (PCI:0000:c6:00.0): 12028, Non-fatal, Link 51 egress non-posted PRIV error");
  EXPECT_EQ(s.kind, "sxid");
  EXPECT_EQ(s.subject, "0000:c6:00.0");
  EXPECT_EQ(s.code, "12028");
  auto l = ev("NVRM: GPU 0000:18:00.0: GPU has fallen off the bus.");
  EXPECT_EQ(l.kind, "gpu_lost");
  EXPECT_EQ(l.subject, "0000:18:00.0");
  auto a = ev("pcieport 0000:00:01.0: AER: Corrected error received: 0000:01:00.0");
  EXPECT_EQ(a.kind, "pcie_aer");
  EXPECT_EQ(a.subject, "0000:01:00.0");
  EXPECT_EQ(a.code, "corrected");
  auto a2 = ev("pcieport 0000:c0:03.1: AER: Uncorrectable (Non-Fatal) error message received from 0000:c1:00.0");
  EXPECT_EQ(a2.code, "nonfatal");
  EXPECT_EQ(a2.subject, "0000:c1:00.0");
  auto m = ev("EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x0)");
  EXPECT_EQ(m.kind, "ecc");
  EXPECT_EQ(m.subject, "MC0");
  EXPECT_EQ(m.code, "CE");
  auto o = ev("Out of memory: Killed process 15784 (python3) total-vm:1234kB, anon-rss:1000kB");
  EXPECT_EQ(o.kind, "oom_kill");
  EXPECT_EQ(o.subject, "python3:15784");
  auto d = ev("mlx5_core 0000:3b:00.0 ibp59s0: Link down");
  EXPECT_EQ(d.kind, "ib_link");
  EXPECT_EQ(d.subject, "0000:3b:00.0 ibp59s0");
  EXPECT_EQ(d.code, "down");
  EXPECT_EQ(ev("mlx5_core 0000:3b:00.0 ibp59s0: Link up").code, "up");
  auto h = ev("INFO: task python3:4242 blocked for more than 120 seconds.");
  EXPECT_EQ(h.kind, "hung_task");
  EXPECT_EQ(h.subject, "python3:4242");
  EXPECT_FALSE(parse_kernel_event("usb 1-1: new high-speed USB device number 2 using xhci_hcd").has_value());
  EXPECT_FALSE(parse_kernel_event("").has_value());
}

TEST(KernelEvents, DevKmsgRecordsAfterTheCursor) {
  std::uint64_t last = 0;
  auto lines = split_dev_kmsg("6,10,100,-;first\n6,11,200,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1\n SUBSYSTEM=pci\n", 10, last);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].pos, 11u);
  EXPECT_EQ(last, 11u);
}

TEST(KernelEvents, AGrowingFileIsReadOncePerCursor) {
  ScratchRoot root("kernel_events");
  std::string file = root.path() + "/kmsg.log";
  root.write("kmsg.log", "[1.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1\n[2.0] partial");
  HostRoot hr(root.path());
  auto r1 = read_kmsg_since(hr, file, {});
  ASSERT_TRUE(r1) << r1.error().message;
  ASSERT_EQ(r1->lines.size(), 1u);  // the unfinished line waits
  EXPECT_EQ(r1->lines[0].pos, 0u);
  auto r2 = read_kmsg_since(hr, file, r1->next);
  ASSERT_TRUE(r2);
  EXPECT_TRUE(r2->lines.empty());
  std::ofstream(file, std::ios::app) << " line\n[3.0] INFO: task a:1 blocked for more than 120 seconds.\n";
  auto r3 = read_kmsg_since(hr, file, r2->next);
  ASSERT_TRUE(r3);
  ASSERT_EQ(r3->lines.size(), 2u);
  EXPECT_EQ(r3->lines[1].message, "INFO: task a:1 blocked for more than 120 seconds.");
  // Replaced by a shorter file: read again from the start.
  root.write("kmsg.log", "[1.0] x\n");
  auto r4 = read_kmsg_since(hr, file, r3->next);
  ASSERT_TRUE(r4);
  ASSERT_EQ(r4->lines.size(), 1u);
  EXPECT_EQ(r4->lines[0].pos, 0u);
}

TEST(KernelEvents, BootIdUnderTheRoot) {
  ScratchRoot root("kernel_events_boot");
  HostRoot hr(root.path());
  EXPECT_FALSE(read_boot_id(hr));
  root.write("proc/sys/kernel/random/boot_id", "0f5e1c2a-9d55-4a8e-b5a1-3c1d2e3f4a5b\n");
  auto b = read_boot_id(hr);
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, "0f5e1c2a-9d55-4a8e-b5a1-3c1d2e3f4a5b");
  root.write("proc/sys/kernel/random/boot_id", "../../etc\n");
  EXPECT_FALSE(read_boot_id(hr));
}

}  // namespace
}  // namespace plumb
