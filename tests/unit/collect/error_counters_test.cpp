// The agent's error counters: the AER statistics format (the kernel's
// Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats), InfiniBand port counters under a
// scratch root, NVML's counters taken from the GPU facts, and which counters are hard faults.
#include <gtest/gtest.h>

#include "collect/error_counters.h"
#include "../../scratch_root.h"

namespace plumb {
namespace {

// The layout the kernel documents for aer_dev_correctable (one "name count" pair per line).
const char* kCorrectable =
    "RxErr 0\nBadTLP 3\nBadDLLP 1\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 4\n";

TEST(ErrorCounters, AerTotalsAreReadByTheirKey) {
  EXPECT_EQ(aer_total(kCorrectable, "TOTAL_ERR_COR"), 4U);
  EXPECT_FALSE(aer_total(kCorrectable, "TOTAL_ERR_FATAL"));
  EXPECT_FALSE(aer_total("TOTAL_ERR_CORX 5\n", "TOTAL_ERR_COR"));  // a longer name is another key
  EXPECT_FALSE(aer_total("TOTAL_ERR_COR lots\n", "TOTAL_ERR_COR"));
  EXPECT_FALSE(aer_total("", "TOTAL_ERR_COR"));
}

TEST(ErrorCounters, SysfsCountersUnderTheRoot) {
  test::ScratchRoot root("error_counters_root");
  root.write("sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error", "17\n");
  root.write("sys/class/infiniband/mlx5_0/ports/1/counters/link_downed", "2\n");
  root.write("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data", "99999\n");  // traffic, not an error
  root.write("sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_errors", "garbage\n");
  root.write("sys/bus/pci/devices/0000:3b:00.0/aer_dev_correctable", kCorrectable);
  root.write("sys/bus/pci/devices/0000:3b:00.0/aer_dev_fatal", "Undefined 0\nTOTAL_ERR_FATAL 0\n");
  auto got = read_error_counters(HostRoot(root.path()));
  std::map<std::string, std::int64_t> by;
  for (const auto& c : got) by[c.subject + " " + c.counter] = c.value;
  EXPECT_EQ(by.size(), 4U);
  EXPECT_EQ(by["mlx5_0 port 1 ib.symbol_error"], 17);
  EXPECT_EQ(by["mlx5_0 port 1 ib.link_downed"], 2);
  EXPECT_EQ(by["0000:3b:00.0 pcie.aer_correctable"], 4);
  EXPECT_EQ(by["0000:3b:00.0 pcie.aer_fatal"], 0);
  for (const auto& c : got) EXPECT_EQ(c.source.rfind("/sys/", 0), 0U) << c.source;  // never root-prefixed
  // A machine without either tree has no readings, and that is no error.
  test::ScratchRoot empty("error_counters_empty");
  EXPECT_TRUE(read_error_counters(HostRoot(empty.path())).empty());
}

TEST(ErrorCounters, GpuCountersComeFromTheFactsNvmlRead) {
  GpuFacts g;
  GpuDevice d;
  d.bus_id = "0000:3b:00.0";
  d.ecc.volatile_uncorrected = Fact<std::uint64_t>::of(1, "nvmlDeviceGetTotalEccErrors");
  d.mem_health.remapped_uncorrectable = Fact<int>::none("not supported");
  g.devices.push_back(d);
  auto got = gpu_error_counters(g);
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].counter, "gpu.ecc_uncorrected");
  EXPECT_EQ(got[0].source, "nvmlDeviceGetTotalEccErrors");
  EXPECT_TRUE(is_hard_counter("gpu.ecc_uncorrected"));
  EXPECT_TRUE(is_hard_counter("ib.link_downed"));
  EXPECT_FALSE(is_hard_counter("ib.symbol_error"));
  EXPECT_FALSE(is_hard_counter("pcie.aer_correctable"));
}

}  // namespace
}  // namespace plumb
