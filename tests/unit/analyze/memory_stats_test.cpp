// Memory analysis on the real memory_summary() samples (fairseq OOM storm, InstructLab L4 new
// format, parallelformers trimmed tables), memory_stats() JSON/repr and the three OOM formats.
#include <gtest/gtest.h>

#include "../../test_util.h"
#include "analyze/memory_stats.h"
#include "core/catalog.h"
#include "core/registry.h"

namespace plumb {
namespace {

constexpr std::uint64_t MiB = 1ull << 20;

// The l2.vram.* rules on one file, as `plumb memory FILE [--gpu-memory G]` judges it.
std::vector<Finding> vram(MemoryInput in, std::optional<std::uint64_t> gpu_memory, const std::string& file) {
  Facts facts;
  in.file = file;
  facts.allocator.collected = true;
  facts.allocator.gpu_memory_bytes = gpu_memory;
  facts.allocator.files.push_back(std::move(in));
  Selection sel;
  sel.only = {"l2.vram"};
  return judge(facts, Thresholds(), sel);
}

const Finding* by_id(const std::vector<Finding>& v, const std::string& id, const std::string& subject = "cuda:0") {
  for (const auto& f : v) {
    if (f.id == id && f.subject == subject) return &f;
  }
  return nullptr;
}

TEST(MemorySummary, FairseqOomStormIsPressureNotFragmentation) {
  auto in = parse_memory_file(test::read_fixture("framework/memory/fairseq-v100-16gb-oom-58-ooms-66-retries.txt"));
  ASSERT_TRUE(in.ok());
  ASSERT_EQ(in->devices.size(), 1u);
  const auto& d = in->devices[0];
  EXPECT_EQ(d.num_ooms, 58u);
  EXPECT_EQ(d.num_alloc_retries, 66u);
  EXPECT_EQ(d.allocated_bytes.current, 14935 * MiB);  // "14935 MB" is binary (PyTorch's _format_size)
  EXPECT_EQ(d.reserved_bytes.peak, 15560 * MiB);
  EXPECT_EQ(d.inactive_split_bytes.current, 631465ull * 1024);
  EXPECT_EQ(d.allocated_bytes.allocated, 995ull << 30);
  EXPECT_EQ(d.segments.current, 172u);
  ASSERT_EQ(in->ooms.size(), 1u);
  EXPECT_EQ(in->ooms[0].tried, 62 * MiB);
  EXPECT_EQ(in->ooms[0].free, static_cast<std::uint64_t>(9.88 * MiB + 0.5));
  ASSERT_TRUE(in->ooms[0].capacity.has_value());
  EXPECT_NEAR(static_cast<double>(*in->ooms[0].capacity) / (1ull << 30), 15.90, 0.001);

  auto v = vram(*in, std::nullopt, "fairseq.txt");
  ASSERT_NE(by_id(v, "l2.vram.oom"), nullptr);
  EXPECT_EQ(by_id(v, "l2.vram.oom")->status, Status::fail);
  EXPECT_EQ(by_id(v, "l2.vram.oom")->variant, "pressure");
  std::string msg = finding_message(*by_id(v, "l2.vram.oom"), Lang::en);
  EXPECT_NE(msg.find("58 CUDA out-of-memory errors and 66 cudaMalloc retries"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not fragmentation"), std::string::npos);
  EXPECT_EQ(by_id(v, "l2.vram.alloc_retries")->status, Status::warn);
  EXPECT_EQ(by_id(v, "l2.vram.fragmentation")->status, Status::pass);
  EXPECT_EQ(by_id(v, "l2.vram.pressure")->status, Status::warn);  // 15560 MiB of 15.90 GiB = 95.6 %
  EXPECT_EQ(exit_code_for(v), 1);
}

TEST(MemorySummary, InstructLabNewFormatIsAnEarlySnapshot) {
  auto in = parse_memory_file(test::read_fixture("framework/memory/instructlab-l4-24gb-new-format-requested-oversize.txt"));
  ASSERT_TRUE(in.ok());
  ASSERT_EQ(in->devices.size(), 1u);
  const auto& d = in->devices[0];
  EXPECT_EQ(d.allocated_bytes.current, 14324 * MiB);
  EXPECT_EQ(d.requested_bytes.current, 14324 * MiB);
  EXPECT_EQ(d.reserved_bytes.current, 14586 * MiB);
  EXPECT_EQ(d.allocated_bytes.freed, 0u);  // "0 B"
  EXPECT_EQ(d.inactive_split_bytes.current, 267624ull * 1024);
  EXPECT_EQ(d.oversize_allocations, 0u);
  auto v = vram(*in, std::nullopt, "l4.txt");
  EXPECT_EQ(by_id(v, "l2.vram.summary")->variant, "early");
  EXPECT_EQ(by_id(v, "l2.vram.oom")->status, Status::pass);
  EXPECT_EQ(by_id(v, "l2.vram.fragmentation")->status, Status::pass);
  EXPECT_EQ(by_id(v, "l2.vram.pressure")->status, Status::skip);
  // With the card's size given, the pressure check runs: 14586 MiB of 22.1 GiB is fine.
  auto w = vram(*in, static_cast<std::uint64_t>(22.1 * (1ull << 30)), "l4.txt");
  EXPECT_EQ(by_id(w, "l2.vram.pressure")->status, Status::pass);
  EXPECT_EQ(exit_code_for(v), 0);
}

TEST(MemorySummary, TrimmedTablesOfTwoDevicesAreTruncated) {
  auto in = parse_memory_file(test::read_fixture("framework/memory/parallelformers-2gpu-trimmed-allocated-only.txt"));
  ASSERT_TRUE(in.ok());
  ASSERT_EQ(in->devices.size(), 2u);
  EXPECT_EQ(in->devices[1].device, "1");
  EXPECT_TRUE(in->devices[0].truncated);
  EXPECT_EQ(in->devices[0].allocated_bytes.peak, 2967 * MiB);
  EXPECT_EQ(in->devices[0].allocated_bytes.freed, 251905ull * 1024);
  auto v = vram(*in, std::nullopt, "p.txt");
  EXPECT_EQ(by_id(v, "l2.vram.fragmentation", "cuda:1")->status, Status::skip);
  EXPECT_EQ(by_id(v, "l2.vram.summary", "cuda:1")->variant, "truncated");
}

TEST(MemoryStats, JsonFlatAndPerDevice) {
  std::string flat = R"({"allocated_bytes.all.current": 1073741824, "allocated_bytes.all.peak": 2147483648,
    "reserved_bytes.all.current": 4294967296, "reserved_bytes.all.peak": 4294967296, "num_ooms": 0,
    "num_alloc_retries": 3, "inactive_split_bytes.all.current": 2147483648, "unknown.key": 5})";
  auto in = parse_memory_file(flat);
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->format, "memory_stats json");
  ASSERT_EQ(in->devices.size(), 1u);
  auto v = vram(*in, std::nullopt, "s.json");
  EXPECT_EQ(by_id(v, "l2.vram.fragmentation")->status, Status::warn);  // 3 GiB of 4 GiB cached but unused
  EXPECT_EQ(by_id(v, "l2.vram.alloc_retries")->status, Status::warn);
  EXPECT_EQ(by_id(v, "l2.vram.oom")->status, Status::pass);

  auto per = parse_memory_file(R"({"cuda:0": {"num_ooms": 1}, "cuda:3": {"num_ooms": 0}})");
  ASSERT_TRUE(per.ok());
  ASSERT_EQ(per->devices.size(), 2u);
  EXPECT_EQ(per->devices[1].device, "3");
  EXPECT_FALSE(parse_memory_stats_json(R"({"a": 1})").ok());
  EXPECT_FALSE(parse_memory_stats_json("[").ok());
}

TEST(MemoryStats, PrintedOrderedDict) {
  auto in = parse_memory_file(
      "OrderedDict([('active.all.allocated', 12), ('allocated_bytes.all.current', 2048), "
      "('num_alloc_retries', 0), ('num_ooms', 2), ('reserved_bytes.all.current', 4096)])");
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->format, "memory_stats repr");
  EXPECT_EQ(in->devices[0].num_ooms, 2u);
  EXPECT_EQ(in->devices[0].reserved_bytes.current, 4096u);
}

TEST(OomMessages, NewFormatNamesDeviceCapacityAndCache) {
  auto m = parse_oom_messages(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB "
      "of which 1.25 GiB is free. Process 3514 has 77.89 GiB memory in use. Of the allocated memory 70.16 GiB is "
      "allocated by PyTorch, and 6.21 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory "
      "is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.\n");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].device, "3");
  EXPECT_EQ(m[0].tried, 2ull << 30);
  EXPECT_NEAR(static_cast<double>(*m[0].capacity) / (1ull << 30), 79.15, 0.001);
  EXPECT_NEAR(static_cast<double>(*m[0].reserved_unallocated) / (1ull << 30), 6.21, 0.001);
  MemoryInput in;
  in.ooms = m;
  auto v = vram(in, std::nullopt, "log");
  const Finding* oom = by_id(v, "l2.vram.oom", "cuda:3");
  ASSERT_NE(oom, nullptr);
  EXPECT_EQ(oom->status, Status::fail);
  EXPECT_EQ(oom->variant, "pressure");  // 6.2 GiB of 76.4 GiB: 8 %, under the 20 % line
  EXPECT_EQ(by_id(v, "l2.vram.fragmentation", "cuda:3")->status, Status::pass);
}

TEST(MemoryFile, NothingRecognisableIsAnError) {
  EXPECT_FALSE(parse_memory_file("").ok());
  EXPECT_FALSE(parse_memory_file("hello | world | 3\n").ok());
  EXPECT_FALSE(parse_memory_file("{\"x\": 1}").ok());
}

}  // namespace
}  // namespace plumb
