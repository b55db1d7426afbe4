// The multi-node all-reduce's pure parts: the children's line protocol and the nccl-tests run
// rank 0 makes of it. The GPU path itself runs in the fleet MPI tests on the fake GPU libraries.
#include "bench/nccl_world.h"

#include <gtest/gtest.h>

namespace plumb {

TEST(NcclWorldProbe, RoundTripsAndRefusesJunk) {
  NcclWorldProbe p;
  p.devices = 8;
  p.nccl = "2.21.5";
  auto back = parse_probe(format_probe(p));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->devices, 8);
  EXPECT_EQ(back->nccl, "2.21.5");
  NcclWorldProbe none;
  none.why = "libcudart.so present but libcuda.so.1 not loadable: no NVIDIA driver\nsecond line";
  EXPECT_EQ(format_probe(none), "none libcudart.so present but libcuda.so.1 not loadable: no NVIDIA driver");
  auto n = parse_probe(format_probe(none));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->devices, 0);
  EXPECT_EQ(n->why, "libcudart.so present but libcuda.so.1 not loadable: no NVIDIA driver");
  for (const char* bad : {"", "devices", "devices x nccl 2", "devices 0 nccl 2", "devices 99999 nccl 2", "devices 1 cuda 2"}) {
    EXPECT_FALSE(parse_probe(bad)) << bad;
  }
}

TEST(NcclWorldRun, SweepBecomesAnNcclTestsRun) {
  auto r = parse_nccl_world("nccl 2.21.5\ngpu 0 0000:18:00.0\nsize 1048576 0.001 0.002 0.003\nsize 1073741824 0.5 0.4 0.6\n");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->nccl, "2.21.5");
  ASSERT_EQ(r->gpus.size(), 1u);
  ASSERT_EQ(r->rows.size(), 2u);
  NcclTestsRun run = nccl_world_run(*r, 16, 2, "fleet");
  EXPECT_EQ(run.ranks, 16);
  EXPECT_EQ(run.hosts, 2);
  EXPECT_EQ(run.nccl_version, "2.21.5");
  ASSERT_EQ(run.rows.size(), 2u);
  // 1 GiB in 0.5 s (the median): algbw 2.147 GB/s, busbw x 2 * 15 / 16.
  EXPECT_NEAR(*run.rows[1].oop_algbw, 1073741824.0 / 0.5 / 1e9, 1e-9);
  EXPECT_NEAR(*run.rows[1].oop_busbw, 1073741824.0 / 0.5 / 1e9 * 30.0 / 16.0, 1e-9);
  EXPECT_NEAR(*run.rows[0].oop_time_us, 2000, 1e-6);
  EXPECT_EQ(run.rows[1].count, 1073741824u / 4);
}

TEST(NcclWorldRun, BadAnswersAreErrors) {
  for (const char* bad : {"", "nccl 2.21.5\n", "size 0 0.1\n", "size 10 -1\n", "size 10 nan\n", "size 10 0.1\nsomething else\n",
                          "size x 0.1\n"}) {
    EXPECT_FALSE(parse_nccl_world(bad)) << bad;
  }
}

}  // namespace plumb
