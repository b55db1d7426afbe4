// End-to-end: `plumb topo`, `plumb nccl-tests` and the distributed section of `plumb check` on the
// fixture machines and the corpus logs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "../scratch_root.h"
#include "../test_util.h"
#include "collect/nccl_topo_xml.h"
#include "core/json.h"

namespace plumb {
namespace {

using test::fixture;
using test::host_fixture;
using test::run_plumb;

TEST(TopoE2E, DgxMatrixGroupsAndFindings) {
  auto r = run_plumb({"topo", "--root", host_fixture("dgx-8gpu-2socket"), "--group", "4"});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the planted NCCL_TOPO_FILE for another machine fails
  EXPECT_NE(r.out.find("GPU0     X      PIX     NODE    NODE    SYS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NIC0: mlx5_0"), std::string::npos);
  EXPECT_NE(r.out.find("GPU0,GPU1,GPU2,GPU3  worst link NODE  CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1,2,3"),
            std::string::npos);
  EXPECT_NE(r.out.find("GPU4,GPU5,GPU6,GPU7"), std::string::npos);
  EXPECT_NE(r.out.find("CUDA_VISIBLE_DEVICES=0,1,4,5 spans SYS"), std::string::npos);
  EXPECT_NE(r.out.find("4 NVSwitch devices"), std::string::npos);
}

// NVML's per-link data (fake NVML serving an HGX H100 with the fixture's bus ids) turns the
// PCIe-only matrix into the NVLink one nvidia-smi prints, and the groups follow it.
TEST(TopoE2E, NvmlNvlinksFillTheMatrix) {
  const std::string lib = std::string(PLUMB_BUILD_DIR) + "/tests/helpers/libfake-nvml.so";
  auto r = run_plumb({"topo", "--root", host_fixture("dgx-8gpu-2socket"), "--nvml-lib", lib, "--group", "4", "--format", "json"},
                     {{"PLUMB_FAKE_NVML_SCENARIO", fixture("gpu/scenarios/hgx-h100-8x-nvswitch.json")}});
  auto j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.err << r.out;
  EXPECT_TRUE(j["facts"]["comm"]["topology"]["value"]["nvlink_known"].get<bool>());
  EXPECT_EQ(j["facts"]["comm"]["topology"]["value"]["nvlinks"][0][1], 18);
  EXPECT_EQ(j["facts"]["comm"]["topology"]["value"]["nvlinks"][0][7], 18);
  EXPECT_EQ(j["facts"]["topo"]["groups"][0]["worst"], "NV18");
  auto term = run_plumb({"topo", "--root", host_fixture("dgx-8gpu-2socket"), "--nvml-lib", lib},
                        {{"PLUMB_FAKE_NVML_SCENARIO", fixture("gpu/scenarios/hgx-h100-8x-nvswitch.json")}});
  EXPECT_NE(term.out.find("GPU0     X      NV18    NV18    NV18    NV18"), std::string::npos) << term.out;
}

TEST(TopoE2E, CleanNodeExitsZeroAndChineseWords) {
  auto r = run_plumb({"topo", "--root", host_fixture("noib-2gpu-eth"), "--group", "2", "--lang", "zh"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("GPU0     X      PHB"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CPU 亲和性"), std::string::npos);
  EXPECT_NE(r.out.find("最差链路 PHB"), std::string::npos);
}

TEST(TopoE2E, FromSavedTextAndJson) {
  auto r = run_plumb({"topo", "--root", host_fixture("noib-2gpu-eth"), "--from-topo-text",
                      fixture("comm/nvidia-smi-topo/dstack-8x-h100-sxm5-nv18-1nic-from-vllm-env.txt"), "--group", "4",
                      "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["facts"]["comm"]["topology"]["value"]["gpus"].size(), 8u);
  EXPECT_EQ(j["facts"]["topo"]["groups"][0]["labels"], "GPU0,GPU1,GPU2,GPU3");
  EXPECT_EQ(j["facts"]["topo"]["groups"][0]["worst"], "NV18");
}

TEST(TopoE2E, CutGroupSearchIsSaidInTheReportInBothLanguages) {
  // 64 GPUs in blocks of 8 asked for sets of 32: too many to try, so the search is cut, and the
  // report (not a stray English line on stderr) says so.
  std::string m = "\t";
  for (int i = 0; i < 64; ++i) m += "GPU" + std::to_string(i) + "\t";
  m += "CPU Affinity\tNUMA Affinity\n";
  for (int i = 0; i < 64; ++i) {
    m += "GPU" + std::to_string(i);
    for (int j = 0; j < 64; ++j) m += i == j ? "\t X " : (i / 8 == j / 8 ? "\tNV18" : "\tSYS");
    m += "\t0-63\t0\n";
  }
  std::string file = ::testing::TempDir() + "/plumb_topo64.txt";
  FILE* f = std::fopen(file.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(m.data(), 1, m.size(), f);
  std::fclose(f);
  auto js = run_plumb({"topo", "--root", host_fixture("noib-2gpu-eth"), "--from-topo-text", file, "--group", "32", "-f", "json"});
  ASSERT_NE(js.exit_code, 2) << js.err;
  auto j = json::parse(js.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << js.out;
  EXPECT_EQ(j["facts"]["topo"]["groups_cut"], true);
  EXPECT_EQ(js.err, "");
  auto zh = run_plumb({"topo", "--root", host_fixture("noib-2gpu-eth"), "--from-topo-text", file, "--group", "32", "--lang", "zh"});
  EXPECT_NE(zh.out.find("搜索已截断"), std::string::npos) << zh.out;
  std::remove(file.c_str());
}

TEST(TopoE2E, BadInputIsOneLineAndExitTwo) {
  auto r = run_plumb({"topo", "--from-topo-text", fixture("comm/nvidia-smi-topo/club3090-2x-rtx5090-topo-p2p-rw-gns.txt")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("GNS"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_EQ(run_plumb({"topo", "--from-topo-text", "/nonexistent/topo.txt"}).exit_code, 2);
  EXPECT_EQ(run_plumb({"topo", "--root", "/nonexistent-root"}).exit_code, 2);
  EXPECT_EQ(run_plumb({"topo", "--root", host_fixture("noib-2gpu-eth"), "--group", "-1"}).exit_code, 2);
}

TEST(TopoE2E, WritesNcclXmlAtomically) {
  std::string out = std::string(PLUMB_BUILD_DIR) + "/comm-e2e-topo.xml";
  std::remove(out.c_str());
  auto r = run_plumb({"topo", "--root", host_fixture("pcie-4gpu-2socket"), "--nccl-xml", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // warnings only (CUDA_VISIBLE_DEVICES=0,2, NCCL_SHM_DISABLE=1)
  auto text = read_user_file(out);
  ASSERT_TRUE(text.ok());
  auto x = parse_nccl_topo_xml(*text);
  ASSERT_TRUE(x.ok()) << x.error().message;
  EXPECT_EQ(x->gpu_bus_ids.size(), 4u);
  EXPECT_EQ(x->cpus, 2);
  EXPECT_NE(text->find("familyid=\"175\""), std::string::npos);
  auto bad = run_plumb({"topo", "--from-topo-text", fixture("comm/nvidia-smi-topo/leonardo-4x-a100-sxm-64gb-nv4-4nic.txt"),
                        "--nccl-xml", out + ".2"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(CheckE2E, DistributedSectionOnThePcieNode) {
  auto r = run_plumb({"check", "--root", host_fixture("pcie-4gpu-2socket"), "--only", "l3.comm"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("Distributed layer: 2 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NCCL_SOCKET_IFNAME=eth0: no interface matches eth0"), std::string::npos);
  EXPECT_NE(r.out.find("NCCL_ALGO=ring,tre is not an allowed value"), std::string::npos);
  auto clean = run_plumb({"check", "--root", host_fixture("noib-2gpu-eth"), "--only", "l3.comm"});
  EXPECT_EQ(clean.exit_code, 0) << clean.out;
}

TEST(NcclTestsE2E, CorpusLogsJudgedWithNumbers) {
  auto r = run_plumb({"nccl-tests", fixture("comm/nccl-tests/leonardo-4x-a100-sxm-64gb-sendrecv_perf-nccl-info-interleaved.txt"),
                      "--topo-text", fixture("comm/nvidia-smi-topo/leonardo-4x-a100-sxm-64gb-nv4-4nic.txt"), "--root",
                      host_fixture("noib-2gpu-eth")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[pass]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("busbw 72.5 GB/s is 91 % of the 80 GB/s NCCL reaches on NVLink3 x4 (nominal 100 GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("judged against 80 GB/s, what NCCL reaches on the link; nominal ceiling 100 GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'Avg bus bandwidth' 24.361 GB/s"), std::string::npos);
  // The same log without the topology: the pair's links are guessed from the GPU model, so a warning
  // that names the guess and the options, never a fail.
  auto blind = run_plumb({"nccl-tests", fixture("comm/nccl-tests/leonardo-4x-a100-sxm-64gb-sendrecv_perf-nccl-info-interleaved.txt"),
                          "--root", host_fixture("noib-2gpu-eth")});
  EXPECT_EQ(blind.exit_code, 0) << blind.out;
  EXPECT_EQ(blind.out.find("[FAIL]"), std::string::npos) << blind.out;
  EXPECT_NE(blind.out.find("NCCL reaches on the assumed NVLink3 x12 (nominal 300 GB/s"), std::string::npos) << blind.out;
  EXPECT_NE(blind.out.find("--topo-text"), std::string::npos) << blind.out;
  auto gb = run_plumb({"nccl-tests", fixture("comm/nccl-tests/oci-gb300-nvl72-1node-4gpu-all_reduce_perf-truncated.txt"), "--root",
                       host_fixture("noib-2gpu-eth")});
  EXPECT_EQ(gb.exit_code, 0) << gb.out;
  EXPECT_NE(gb.out.find("busbw 683.2 GB/s is 95 % of the 720 GB/s NCCL reaches on the assumed NVLink5 x18 (nominal 900 GB/s"), std::string::npos) << gb.out;
  // 32 nodes of one multi-node NVLink system: hosts counted past the elided rank list, judged
  // against the NVLink domain at no more than 100 %.
  auto big = run_plumb({"nccl-tests", fixture("comm/nccl-tests/oci-gb300-nvl72-32node-128gpu-all_reduce_perf-ranks-elided.txt"),
                        "--root", host_fixture("noib-2gpu-eth")});
  EXPECT_EQ(big.exit_code, 0) << big.out;
  EXPECT_NE(big.out.find("128 ranks on 32 hosts"), std::string::npos) << big.out;
  EXPECT_NE(big.out.find("101 % of the 720 GB/s NCCL reaches on the assumed NVLink5 x18 (nominal 900 GB/s"), std::string::npos) << big.out;
  EXPECT_NE(big.out.find("path: NVLink domain"), std::string::npos) << big.out;
  // A link the user gives is no guess: the blind-full-mesh figure then fails the pair.
  auto slow = run_plumb({"nccl-tests", fixture("comm/nccl-tests/leonardo-4x-a100-sxm-64gb-sendrecv_perf-nccl-info-interleaved.txt"),
                         "--link", "nvlink3", "--root", host_fixture("noib-2gpu-eth")});
  EXPECT_EQ(slow.exit_code, 1);
  EXPECT_NE(slow.out.find("only 30 % of the 240 GB/s NCCL reaches on NVLink3 x12 (nominal 300 GB/s"), std::string::npos) << slow.out;
  // Above the nominal ceiling: a warning that the ceiling is unknown or wrong.
  auto above = run_plumb({"nccl-tests", fixture("comm/nccl-tests/oci-gb300-nvl72-1node-4gpu-all_reduce_perf-truncated.txt"),
                          "--link", "nvlink4x12", "--root", host_fixture("noib-2gpu-eth")});
  EXPECT_EQ(above.exit_code, 0) << above.out;
  EXPECT_NE(above.out.find("above the NVLink4 x12 ceiling 300 GB/s"), std::string::npos) << above.out;
  EXPECT_EQ(above.out.find("228 %"), std::string::npos) << above.out;
}

// A log whose ranks' GPU name holds control sequences (an OSC 52 clipboard write, an SGR conceal, a
// carriage return): the summary block and the report show them as characters, on a pipe and in a
// Markdown file; the JSON report keeps the value, escaped.
TEST(NcclTestsE2E, ControlSequencesInTheLogAreShownNotObeyed) {
  std::string log = test::read_fixture("comm/nccl-tests/gcp-a3mega-2node-16x-h100-all_reduce_perf.txt");
  const std::string model = "NVIDIA H100 80GB HBM3";
  const std::string hostile = "GPU\x1b]52;c;cm0gLXJmIH4K\x07\x1b[8mhid\rden";
  std::size_t replaced = 0;
  for (auto at = log.find(model); at != std::string::npos; at = log.find(model, at + hostile.size())) {
    log.replace(at, model.size(), hostile);
    ++replaced;
  }
  ASSERT_GE(replaced, 16u);
  test::ScratchRoot dir("nccl_tests_control");
  dir.write("all_reduce_perf.txt", log);
  const std::string file = dir.path() + "/all_reduce_perf.txt";
  const std::string md = dir.path() + "/report.md";
  const std::string shown = "GPU\u241b]52;c;cm0gLXJmIH4K\u2407\u241b[8mhid\u240dden";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"nccl-tests", file, "--root", host_fixture("noib-2gpu-eth")},
           {"nccl-tests", file, "--root", host_fixture("noib-2gpu-eth"), "-f", "md", "-o", md}}) {
    auto r = run_plumb(args);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << r.err;
    std::string text = r.out;
    if (args.size() > 4) text += read_user_file(md).value_or("");
    EXPECT_NE(text.find(shown), std::string::npos) << text;
    for (char c : {'\x1b', '\x07', '\r'}) EXPECT_EQ(text.find(c), std::string::npos) << int(c) << ": " << text;
  }
  auto js = run_plumb({"nccl-tests", file, "--root", host_fixture("noib-2gpu-eth"), "-f", "json"});
  EXPECT_NE(js.out.find(R"(GPU\u001b]52;c;cm0gLXJmIH4K\u0007\u001b[8mhid\rden)"), std::string::npos) << js.out.substr(0, 600);
}

TEST(NcclTestsE2E, BadInput) {
  auto r = run_plumb({"nccl-tests", fixture("comm/nccl-tests/gcp-a3mega-2node-16x-h100-all_reduce_perf.txt"), "--link", "nvlnk4"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'nvlink4'"), std::string::npos) << r.err;
  EXPECT_EQ(run_plumb({"nccl-tests", "/nonexistent.log"}).exit_code, 2);
  auto g = run_plumb({"nccl-tests", fixture("comm/nvidia-smi-topo/leonardo-4x-a100-sxm-64gb-nv4-4nic.txt")});
  EXPECT_EQ(g.exit_code, 2);
  EXPECT_NE(g.err.find("no nccl-tests result rows"), std::string::npos);
}

}  // namespace
}  // namespace plumb
