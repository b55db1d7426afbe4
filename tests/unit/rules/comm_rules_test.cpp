// Distributed-layer rules on the fixture machines: each planted mistake is caught with a precise
// message, and the clean machine passes.
#include <algorithm>

#include <gtest/gtest.h>

#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "../../test_util.h"

namespace plumb {
namespace {

Facts collect_host(const std::string& name) {
  Context ctx;
  ctx.root = HostRoot(test::host_fixture(name));
  Facts f;
  for (const char* id : {"collect.topology", "collect.network", "collect.nccl_env"}) EXPECT_TRUE(collect_one(ctx, id, f));
  return f;
}

std::vector<Finding> judge_comm(const Facts& f, const std::string& id) {
  Selection sel;
  sel.only = {id};
  return judge(f, Thresholds{}, sel);
}

const Finding* find(const std::vector<Finding>& v, const std::string& subject) {
  for (const auto& x : v) {
    if (x.subject == subject) return &x;
  }
  return nullptr;
}

std::string msg(const Finding& f) { return finding_message(f, Lang::en); }

TEST(CommRules, DgxEnvironmentMistakes) {
  Facts f = collect_host("dgx-8gpu-2socket");
  auto unknown = judge_comm(f, "l3.comm.nccl_env_unknown");
  const Finding* myth = find(unknown, "NCCL_SOCKET_TIMEOUT");
  ASSERT_NE(myth, nullptr);
  EXPECT_EQ(myth->status, Status::warn);
  EXPECT_NE(msg(*myth).find("not an NCCL variable"), std::string::npos);
  EXPECT_NE(msg(*myth).find("init_process_group(timeout="), std::string::npos);
  const Finding* typo = find(unknown, "NCCL_IB_TIMOUT");
  ASSERT_NE(typo, nullptr);
  EXPECT_NE(msg(*typo).find("did you mean NCCL_IB_TIMEOUT"), std::string::npos) << msg(*typo);

  auto values = judge_comm(f, "l3.comm.nccl_env_value");
  const Finding* gdr = find(values, "NCCL_NET_GDR_LEVEL");
  ASSERT_NE(gdr, nullptr);
  EXPECT_EQ(gdr->variant, "case");
  EXPECT_NE(msg(*gdr).find("write SYS"), std::string::npos);

  auto debug = judge_comm(f, "l3.comm.nccl_debug");
  ASSERT_EQ(debug.size(), 1u);
  EXPECT_EQ(debug[0].status, Status::info);

  auto p2p = judge_comm(f, "l3.comm.p2p_disabled");
  ASSERT_EQ(p2p.size(), 1u);
  EXPECT_EQ(p2p[0].status, Status::warn);
  EXPECT_NE(msg(p2p[0]).find("4 NVSwitch devices"), std::string::npos) << msg(p2p[0]);

  auto hca = judge_comm(f, "l3.comm.ib_hca");
  ASSERT_EQ(hca.size(), 1u);
  EXPECT_EQ(hca[0].status, Status::fail);
  EXPECT_NE(msg(hca[0]).find("(mlx5_9)"), std::string::npos) << msg(hca[0]);

  auto topo = judge_comm(f, "l3.comm.topo_file");
  ASSERT_EQ(topo.size(), 1u);
  EXPECT_EQ(topo[0].status, Status::fail);
  EXPECT_NE(msg(topo[0]).find("0001:00:00.0"), std::string::npos);
  EXPECT_NE(msg(topo[0]).find("0000:18:00.0"), std::string::npos);

  auto vis = judge_comm(f, "l3.comm.visible_devices_span");
  ASSERT_EQ(vis.size(), 1u);
  EXPECT_EQ(vis[0].status, Status::warn);
  EXPECT_NE(finding_fix(vis[0], Lang::en).find("CUDA_VISIBLE_DEVICES=0,1,2,3"), std::string::npos);

  auto timeouts = judge_comm(f, "l3.comm.torch_timeouts");
  EXPECT_NE(find(timeouts, "TORCH_NCCL_ASYNC_ERROR_HANDLING"), nullptr);
  EXPECT_NE(find(timeouts, "NCCL_SOCKET_TIMEOUT"), nullptr);

  auto fw = judge_comm(f, "l3.comm.firewall");
  ASSERT_EQ(fw.size(), 1u);
  EXPECT_EQ(fw[0].status, Status::warn);
  EXPECT_NE(msg(fw[0]).find("32768-60999"), std::string::npos);

  auto ib = judge_comm(f, "l3.comm.ib_disable");
  EXPECT_EQ(ib[0].status, Status::pass);
  auto ports = judge_comm(f, "l3.comm.ib_ports");
  EXPECT_EQ(ports.size(), 4u);
  for (const auto& p : ports) EXPECT_EQ(p.status, Status::pass);
}

TEST(CommRules, PcieNodeMistakes) {
  Facts f = collect_host("pcie-4gpu-2socket");
  auto ifname = judge_comm(f, "l3.comm.socket_ifname");
  ASSERT_EQ(ifname.size(), 1u);
  EXPECT_EQ(ifname[0].status, Status::fail);
  EXPECT_NE(msg(ifname[0]).find("no interface matches eth0"), std::string::npos) << msg(ifname[0]);

  auto values = judge_comm(f, "l3.comm.nccl_env_value");
  auto algo = find(values, "NCCL_ALGO");
  ASSERT_NE(algo, nullptr);
  EXPECT_EQ(algo->status, Status::fail);

  auto unknown = judge_comm(f, "l3.comm.nccl_env_unknown");
  auto old = find(unknown, "NCCL_ASYNC_ERROR_HANDLING");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->status, Status::info);
  EXPECT_NE(msg(*old).find("TORCH_NCCL_ASYNC_ERROR_HANDLING"), std::string::npos);

  auto ib = judge_comm(f, "l3.comm.ib_disable");
  EXPECT_EQ(ib[0].status, Status::info);
  EXPECT_EQ(ib[0].variant, "enabled_not_active");

  auto vis = judge_comm(f, "l3.comm.visible_devices_span");
  EXPECT_EQ(vis[0].status, Status::warn);
  EXPECT_NE(finding_fix(vis[0], Lang::en).find("CUDA_VISIBLE_DEVICES=0,1"), std::string::npos);

  auto p2p = judge_comm(f, "l3.comm.p2p_disabled");
  auto shm = find(p2p, "NCCL_SHM_DISABLE");
  ASSERT_NE(shm, nullptr);
  EXPECT_EQ(shm->status, Status::warn);

  auto width = judge_comm(f, "l3.comm.pcie_link_width");
  const Finding* gpu3 = find(width, "GPU3 0000:c4:00.0");
  ASSERT_NE(gpu3, nullptr);
  EXPECT_EQ(gpu3->status, Status::warn);
  EXPECT_EQ(find(width, "GPU0 0000:43:00.0")->status, Status::pass);

  // One finding per cause: the GPUs that share their closest NIC and its distance are listed in one.
  auto aff = judge_comm(f, "l3.comm.gpu_nic_affinity");
  auto holding = [&](const std::string& gpu) -> const Finding* {
    const Finding* hit = nullptr;
    for (const auto& x : aff) {
      for (const auto& part : split(x.subject, ',')) {
        if (part == gpu) {
          EXPECT_EQ(hit, nullptr) << gpu << " is in two findings";
          hit = &x;
        }
      }
    }
    return hit;
  };
  ASSERT_NE(holding("GPU0"), nullptr);
  ASSERT_NE(holding("GPU2"), nullptr);
  EXPECT_EQ(holding("GPU0")->status, Status::pass);
  EXPECT_EQ(holding("GPU2")->status, Status::warn);
  EXPECT_LT(aff.size(), f.comm.topology->gpus.size()) << "GPUs sharing a NIC are one finding";
  EXPECT_EQ(holding("GPU2")->evidence.size(), std::size_t(std::count(holding("GPU2")->subject.begin(), holding("GPU2")->subject.end(), ',') + 1));

  auto ports = judge_comm(f, "l3.comm.ib_ports");
  ASSERT_EQ(ports.size(), 1u);
  EXPECT_EQ(ports[0].variant, "down");

  auto timeouts = judge_comm(f, "l3.comm.torch_timeouts");
  auto hb = find(timeouts, "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC");
  ASSERT_NE(hb, nullptr);
  EXPECT_EQ(hb->variant, "short_heartbeat");

  auto fw = judge_comm(f, "l3.comm.firewall");
  EXPECT_EQ(fw[0].status, Status::warn);
  EXPECT_NE(msg(fw[0]).find("ufw"), std::string::npos);
}

TEST(CommRules, CleanEthernetNodePasses) {
  Facts f = collect_host("noib-2gpu-eth");
  for (const char* id : {"l3.comm.nccl_env_unknown", "l3.comm.nccl_env_value", "l3.comm.nccl_debug", "l3.comm.p2p_disabled",
                         "l3.comm.torch_timeouts", "l3.comm.ib_disable", "l3.comm.ib_hca", "l3.comm.socket_ifname",
                         "l3.comm.firewall", "l3.comm.topo_file", "l3.comm.visible_devices_span", "l3.comm.gpu_nic_affinity",
                         "l3.comm.pcie_link_width", "l3.comm.nccl_debug_overrides"}) {
    for (const auto& x : judge_comm(f, id)) {
      EXPECT_TRUE(x.status == Status::pass || (std::string(id) == "l3.comm.nccl_debug_overrides" && x.status == Status::info))
          << id << " " << x.subject << ": " << msg(x);
    }
  }
  auto ports = judge_comm(f, "l3.comm.ib_ports");
  ASSERT_EQ(ports.size(), 1u);
  EXPECT_EQ(ports[0].status, Status::skip);
  EXPECT_EQ(judge_comm(f, "l3.comm.ib_disable")[0].variant, "disabled_no_ports");
}

TEST(CommRules, MissingEnvironmentIsASkip) {
  Facts f;
  auto v = judge_comm(f, "l3.comm.nccl_env_unknown");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, Status::skip);
  auto t = judge_comm(f, "l2.comm.allreduce_slow");
  EXPECT_EQ(t[0].status, Status::skip);
}

TEST(CommRules, BusbwJudgedAgainstCeiling) {
  Facts f;
  NcclTestsRun run_;
  run_.origin = "x.txt";
  run_.collective = "all_reduce_perf";
  NcclTestsRow r;
  r.size = 1ull << 31;
  r.oop_busbw = 140;
  r.ip_busbw = 140;
  r.oop_wrong = 0;
  run_.rows.push_back(r);
  run_.footer_seen = true;
  BusbwCeiling c{300, "NVLink3 x12", "12 links x 25 GB/s per direction", "--link nvlink3", 240, false, "intra-node"};
  run_.ceiling = Fact<BusbwCeiling>::of(c, "--link");
  f.comm.nccl_tests.push_back(run_);
  auto slow = judge_comm(f, "l2.comm.allreduce_slow");
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].status, Status::fail);
  EXPECT_NE(msg(slow[0]).find("only 58 % of the 240 GB/s NCCL reaches on NVLink3 x12 (nominal 300 GB/s"), std::string::npos) << msg(slow[0]);
  EXPECT_NE(msg(slow[0]).find("at least 192 GB/s expected"), std::string::npos) << msg(slow[0]);
  // The same numbers against a guessed link: a warning that says what was assumed, never a fail.
  c.assumed = true;
  c.source = "GPU model in the log (link assumed: give --topo-text or --link)";
  f.comm.nccl_tests[0].ceiling = Fact<BusbwCeiling>::of(c, "model");
  auto guessed = judge_comm(f, "l2.comm.allreduce_slow");
  EXPECT_EQ(guessed[0].status, Status::warn);
  EXPECT_EQ(guessed[0].variant, "low_assumed");
  EXPECT_NE(msg(guessed[0]).find("--topo-text"), std::string::npos) << msg(guessed[0]);
  f.comm.nccl_tests[0].rows[0].oop_busbw = 230;
  f.comm.nccl_tests[0].rows[0].ip_busbw = 230;
  EXPECT_EQ(judge_comm(f, "l2.comm.allreduce_slow")[0].status, Status::pass);
  EXPECT_EQ(judge_comm(f, "l2.comm.allreduce_slow")[0].variant, "pass_assumed");
  // Above the nominal ceiling: the ceiling is unknown or wrong, a warning, never a pass above 100 %.
  f.comm.nccl_tests[0].rows[0].oop_busbw = 310;
  f.comm.nccl_tests[0].rows[0].ip_busbw = 305;
  auto above = judge_comm(f, "l2.comm.allreduce_slow");
  EXPECT_EQ(above[0].status, Status::warn);
  EXPECT_EQ(above[0].variant, "above");
  EXPECT_NE(msg(above[0]).find("ceiling is unknown or wrong"), std::string::npos) << msg(above[0]);
  EXPECT_NE(msg(above[0]).find("307.5"), std::string::npos) << msg(above[0]);
  EXPECT_EQ(judge_comm(f, "l2.comm.nccl_tests_errors")[0].status, Status::pass);
  f.comm.nccl_tests[0].rows[0].oop_wrong = 12;
  EXPECT_EQ(judge_comm(f, "l2.comm.nccl_tests_errors")[0].status, Status::fail);
}

TEST(CommCatalog, EveryRowHasBothLanguagesAndL3Links) {
  for (const auto& [id, e] : catalog()) {
    if (id.rfind("l3.comm.", 0) != 0 && id.rfind("l2.comm.", 0) != 0) continue;
    EXPECT_FALSE(e.title.en.empty()) << id;
    EXPECT_FALSE(e.title.zh.empty()) << id;
    for (const auto& [k, m] : e.messages) EXPECT_FALSE(m.zh.empty()) << id << " " << k;
    EXPECT_FALSE(e.fix.zh.empty()) << id;
    for (const auto& l2 : e.explains) EXPECT_NE(find_entry(l2), nullptr) << id << " explains unknown " << l2;
  }
  EXPECT_FALSE(l3_causes_of("l2.comm.allreduce_slow").empty());
}

}  // namespace
}  // namespace plumb
