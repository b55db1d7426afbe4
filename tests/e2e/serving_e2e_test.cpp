// Serving commands end to end: `plumb outdiff` exit codes (0 within tolerance, 1 outside, 2 on bad
// input) on arrays plumb writes itself, and `plumb bench ort` on a real ONNX Runtime (the
// onnxruntime-node package's libonnxruntime.so.1, fetched and cached by scripts/fetch-ort) running
// a small CNN exported by Debian's python3-torch, whose outputs must agree with PyTorch's under
// `plumb outdiff`. Without network or python3-torch those tests skip and say why.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "analyze/npy.h"
#include "core/json.h"
#include "../test_util.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;
using test::run_plumb;

std::string scratch(const std::string& name) {
  auto d = fs::path(::testing::TempDir()) / ("plumb_serving_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d.string();
}

void write_f4(const std::string& path, const std::vector<float>& v, std::vector<std::uint64_t> shape) {
  std::string data(v.size() * 4, '\0');
  std::memcpy(data.data(), v.data(), data.size());
  std::ofstream(path, std::ios::binary) << npy_image("<f4", shape, data);
}

TEST(OutdiffCommand, ExitCodesFollowTheTolerance) {
  auto d = scratch("outdiff");
  write_f4(d + "/a.npy", {1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
  write_f4(d + "/same.npy", {1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
  write_f4(d + "/off.npy", {1.0f, 2.0f, 3.001f, 4.0f}, {2, 2});
  write_f4(d + "/flat.npy", {1.0f, 2.0f, 3.0f, 4.0f}, {4});
  auto ok = run_plumb({"outdiff", d + "/a.npy", d + "/same.npy"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  auto bad = run_plumb({"outdiff", d + "/off.npy", d + "/a.npy", "--format", "json"});
  EXPECT_EQ(bad.exit_code, 1) << bad.err;
  auto j = json::parse(bad.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << bad.out;
  const auto& arr = j["facts"]["outdiff"]["arrays"][0];
  EXPECT_EQ(arr["mismatches"], 1);
  EXPECT_EQ(arr["first_mismatch"], json::array({1, 0}));
  // Loose enough for the element, but the mean |a-b| (2.5e-4) is above the 1e-4 bar.
  auto mean = run_plumb({"outdiff", d + "/off.npy", d + "/a.npy", "--atol", "1e-2"});
  EXPECT_EQ(mean.exit_code, 1) << mean.out;
  EXPECT_NE(mean.out.find("mean |a-b|"), std::string::npos) << mean.out;
  auto poly = run_plumb({"outdiff", d + "/off.npy", d + "/a.npy", "--mode", "polygraphy", "--rtol", "1e-3", "--atol", "0"});
  EXPECT_EQ(poly.exit_code, 1) << poly.out;  // 3.3e-4 relative is within 1e-3, but the mean bar still fails
  auto shape = run_plumb({"outdiff", d + "/flat.npy", d + "/a.npy"});
  EXPECT_EQ(shape.exit_code, 1);
  EXPECT_NE(shape.out.find("(4,) vs (2, 2)"), std::string::npos) << shape.out;
  // Bad input: one line, exit 2.
  std::ofstream(d + "/junk.npy") << "not an array";
  auto junk = run_plumb({"outdiff", d + "/junk.npy", d + "/a.npy"});
  EXPECT_EQ(junk.exit_code, 2);
  EXPECT_EQ(std::count(junk.err.begin(), junk.err.end(), '\n'), 1) << junk.err;
  ASSERT_EQ(::mkfifo((d + "/fifo.npy").c_str(), 0600), 0);
  auto fifo = run_plumb({"outdiff", d + "/fifo.npy", d + "/a.npy"});
  EXPECT_EQ(fifo.exit_code, 2);
  EXPECT_NE(fifo.err.find("not a regular file"), std::string::npos) << fifo.err;
  auto mode = run_plumb({"outdiff", d + "/a.npy", d + "/a.npy", "--mode", "exact"});
  EXPECT_EQ(mode.exit_code, 2);
  fs::remove_all(d);
}

// The cached ONNX Runtime, fetched once; empty (with the reason) when it cannot be had.
std::string ort_library(std::string& why) {
  if (const char* env = std::getenv("PLUMB_ORT_LIB"); env != nullptr && *env != '\0') return env;  // NOLINT(concurrency-mt-unsafe)
  auto r = run_program({test::test_dir() + "/../scripts/fetch-ort"}, [] {
    RunOptions o;
    o.timeout = std::chrono::seconds(600);
    return o;
  }());
  if (!r || r->exit_code != 0) {
    why = "ONNX Runtime could not be fetched (scripts/fetch-ort: " + (r ? first_line(r->err) : r.error().describe()) + ")";
    return {};
  }
  std::string path(trim(r->out));
  if (path.find('\n') != std::string::npos) path = path.substr(path.rfind('\n') + 1);
  return path;
}

TEST(BenchOrt, SweepsThreadsAndItsOutputsMatchPyTorch) {
  std::string why;
  std::string lib = ort_library(why);
  if (lib.empty()) GTEST_SKIP() << why;
  auto d = scratch("ort");
  auto exp = run_program({"/usr/bin/python3", test::fixture("serving/export_cnn.py"), d}, [] {
    RunOptions o;
    o.timeout = std::chrono::seconds(300);
    return o;
  }());
  if (!exp || exp->exit_code != 0) GTEST_SKIP() << "needs /usr/bin/python3 with torch (python3-torch) to export the model: " << (exp ? first_line(exp->err) : exp.error().describe());
  fs::create_directories(d + "/ort");
  auto r = run_plumb({"bench", "ort", d + "/cnn.onnx", "--ort-lib", lib, "--intra", "0,1,2", "--exec-mode", "sequential,parallel",
                      "--duration", "0.4", "--samples", "3", "--input", d + "/input.npy", "--save-outputs", d + "/ort", "--no-history",
                      "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out.substr(0, 2000);
  auto j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  const auto& res = j["facts"]["bench"]["results"][0];
  EXPECT_EQ(res["bench"], "ort");
  EXPECT_EQ(res["status"], "ok") << res["reason"];
  EXPECT_EQ(res["notes"]["ort_version"].get<std::string>().rfind("1.", 0), 0u) << res["notes"];
  ASSERT_EQ(res["rows"].size(), 6u);
  for (const auto& row : res["rows"]) {
    ASSERT_TRUE(row["values"].contains("p99_ms")) << row;
    double p50 = row["values"]["p50_ms"], p99 = row["values"]["p99_ms"], tput = row["values"]["throughput_per_s"];
    EXPECT_GT(p50, 0);
    EXPECT_GE(p99, p50);
    EXPECT_LT(p99, 5000);
    // Batch 2 (the input file) per run: throughput is about 2 / mean latency, so within the
    // percentile spread.
    EXPECT_GT(tput, 2.0 / (p99 / 1000.0) * 0.5) << row;
    EXPECT_LT(tput, 2.0 / (p50 / 1000.0) * 2.0) << row;
    EXPECT_GE(row["values"]["open_p99_ms"].get<double>(), 0);
    EXPECT_GT(row["values"]["rss_mb"].get<double>(), 1);
  }
  EXPECT_GE(res["derived"]["ort_default_intra_threads"].get<double>(), 1);
  EXPECT_TRUE(res["notes"].contains("best"));
  bool best_metric = false;
  for (const auto& m : res["metrics"]) best_metric |= m["name"] == "ort.best.p99";
  EXPECT_TRUE(best_metric);
  // PyTorch and ONNX Runtime agree within Polygraphy-style tolerances and the mean bar.
  auto diff = run_plumb({"outdiff", d + "/ort/logits.npy", d + "/torch/logits.npy", "--atol", "1e-5", "--rtol", "1e-4"});
  EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  // A different input gives different outputs: the comparison can fail.
  auto other = run_plumb({"outdiff", d + "/ort/logits.npy", d + "/input.npy"});
  EXPECT_NE(other.exit_code, 0);
  fs::remove_all(d);
}

TEST(BenchOrt, AMissingLibrarySkipsWithTheReasonAndABadModelIsBadInput) {
  auto d = scratch("ort_bad");
  auto r = run_plumb({"bench", "ort", d + "/none.onnx", "--ort-lib", d + "/libonnxruntime.so.1", "--no-history", "--format", "json"});
  auto j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  const auto& res = j["facts"]["bench"]["results"][0];
  EXPECT_EQ(res["status"], "skipped");
  EXPECT_NE(res["reason"].get<std::string>().find("ONNX Runtime not loadable"), std::string::npos);
  std::string why;
  std::string lib = ort_library(why);
  if (lib.empty()) GTEST_SKIP() << why;
  std::ofstream(d + "/junk.onnx") << "not a model";
  auto bad = run_plumb({"bench", "ort", d + "/junk.onnx", "--ort-lib", lib, "--no-history"});
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  fs::remove_all(d);
}

}  // namespace
}  // namespace plumb
