// Kernel types by name (HTA's rules), memcpy kinds, runtime-call tables and interval unions.
#include <gtest/gtest.h>

#include "analyze/trace/classify.h"
#include "analyze/trace/intervals.h"

namespace plumb::trace {
namespace {

TEST(TraceClassify, KernelTypesFollowHtaNameRules) {
  EXPECT_EQ(kernel_type("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
            KernelType::communication);
  EXPECT_EQ(kernel_type("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            KernelType::communication);
  EXPECT_EQ(kernel_type("void foo<ncclKernel_x>()"), KernelType::communication);
  EXPECT_EQ(kernel_type("hipMemcpyAsync"), KernelType::communication);  // HTA's quirk: any hip* name
  EXPECT_EQ(kernel_type("Memcpy HtoD (Pageable -> Device)"), KernelType::memory);
  EXPECT_EQ(kernel_type("Memset (Device)"), KernelType::memory);
  EXPECT_EQ(kernel_type("void at::native::vectorized_elementwise_kernel<4>(int)"), KernelType::computation);
  EXPECT_EQ(kernel_type("Context Sync"), KernelType::other);
  EXPECT_EQ(kernel_type("Stream Wait Event"), KernelType::other);
  EXPECT_EQ(kernel_type("cudaLaunchKernel"), KernelType::other);
}

TEST(TraceClassify, CategoriesMapLegacySpellings) {
  EXPECT_EQ(parse_cat("Operator"), Cat::cpu_op);
  EXPECT_EQ(parse_cat("cpu_op"), Cat::cpu_op);
  EXPECT_EQ(parse_cat("Runtime"), Cat::runtime);
  EXPECT_EQ(parse_cat("cuda_driver"), Cat::runtime);
  EXPECT_EQ(parse_cat("Kernel"), Cat::kernel);
  EXPECT_EQ(parse_cat("gpu_memcpy"), Cat::memcpy);
  EXPECT_EQ(parse_cat("mtia_ccp_events"), Cat::mtia);
  EXPECT_EQ(parse_cat("ac2g"), Cat::other);
  EXPECT_EQ(parse_cat(""), Cat::none);
}

TEST(TraceClassify, MemcpyKindsAndPageableHost) {
  auto k = copy_kind("Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ(k.dir, CopyDir::htod);
  EXPECT_TRUE(k.pageable);
  k = copy_kind("Memcpy HtoD (Pinned -> Device)");
  EXPECT_EQ(k.dir, CopyDir::htod);
  EXPECT_FALSE(k.pageable);
  k = copy_kind("Memcpy DtoH (Device -> Pageable)");
  EXPECT_EQ(k.dir, CopyDir::dtoh);
  EXPECT_TRUE(k.pageable);
  EXPECT_EQ(copy_kind("Memcpy DtoD (Device -> Device)").dir, CopyDir::dtod);
  EXPECT_EQ(copy_kind("Memset (Device)").dir, CopyDir::other);
}

TEST(TraceClassify, RuntimeCallsAndAnnotations) {
  EXPECT_TRUE(is_sync_call("cudaStreamSynchronize"));
  EXPECT_TRUE(is_sync_call("cudaMemcpy"));
  EXPECT_FALSE(is_sync_call("cudaMemcpyAsync"));
  EXPECT_TRUE(is_sync_call("hipDeviceSynchronize"));
  EXPECT_TRUE(is_launch_call("cudaLaunchKernel"));
  EXPECT_TRUE(is_launch_call("cuLaunchKernel"));
  EXPECT_FALSE(is_launch_call("cudaEventRecord"));
  EXPECT_TRUE(is_host_query_call("cudaEventQuery"));
  EXPECT_TRUE(is_host_query_call("hipStreamQuery"));
  EXPECT_FALSE(is_host_query_call("cudaMemcpyAsync"));  // enqueues a copy: GPU rows carry its id
  EXPECT_FALSE(is_host_query_call("cudaStreamWaitEvent"));
  EXPECT_EQ(step_number("ProfilerStep#551"), 551);
  EXPECT_EQ(step_number("ProfilerStep#x"), -1);
  EXPECT_TRUE(is_dataloader("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"));
  EXPECT_TRUE(is_optimizer("Optimizer.step#SGD.step"));
  EXPECT_TRUE(is_cpu_copy("aten::copy_"));
  EXPECT_FALSE(is_cpu_copy("aten::copy"));
}

TEST(TraceIntervals, UnionMergesTouchingAndClipsToWindows) {
  std::vector<Interval> v{{5, 7}, {0, 2}, {2, 3}, {6, 10}};
  merge_in_place(v);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_DOUBLE_EQ(v[0].begin, 0);
  EXPECT_DOUBLE_EQ(v[0].end, 3);
  EXPECT_DOUBLE_EQ(v[1].end, 10);
  EXPECT_DOUBLE_EQ(total_length(v), 8);
  EXPECT_DOUBLE_EQ(clipped_length(v, 1, 6), 3);
  EXPECT_DOUBLE_EQ(clipped_length(v, 20, 30), 0);
  std::vector<Interval> w{{2.5, 5.5}};
  auto x = intersect(v, w);
  EXPECT_DOUBLE_EQ(total_length(x), 1.0);
}

}  // namespace
}  // namespace plumb::trace
