// End to end: `plumb diagnose` on real failure logs. The same log is confirmed on a fixture root
// that plants the cause (a 64 MiB /dev/shm in a Docker container) and refuted on one that does not
// (healthy: 64 GiB); a snapshot of the failing node gives the same verdict; healthy logs raise
// nothing; stdin, gzip, --symptom, every format, both languages; bad input exits 2.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "core/json.h"
#include "../test_util.h"

namespace plumb {
namespace {

std::string log(const std::string& rel) { return test::fixture("logs/" + rel); }

struct Diagnosed {
  RunOutput run;
  json doc;
  [[nodiscard]] std::string verdict(const std::string& symptom, const std::string& check) const {
    for (const auto& f : doc["findings"]) {
      if (f["id"] == "l1.diagnose.cause" && f["args"]["symptom"] == symptom && f["args"]["check"] == check) {
        return f["args"]["verdict"].get<std::string>();
      }
    }
    return "<none>";
  }
  [[nodiscard]] const json* finding(const std::string& id) const {
    for (const auto& f : doc["findings"]) {
      if (f["id"] == id) return &f;
    }
    return nullptr;
  }
};

Diagnosed diagnose(std::vector<std::string> args) {
  args.insert(args.begin(), "diagnose");
  args.insert(args.end(), {"--format", "json"});
  RunOutput run = test::run_plumb(args);
  json doc = json::parse(run.out, nullptr, false);
  if (doc.is_discarded()) ADD_FAILURE() << "not JSON: " << run.out.substr(0, 300) << run.err;
  return Diagnosed{std::move(run), std::move(doc)};
}

const char* kShmLog = "shm-docker-64m-no-space-left.log";

TEST(DiagnoseE2E, ShmBusErrorConfirmedOnA64MiBContainer) {
  auto d = diagnose({log(kShmLog), "--root", test::host_fixture("docker-v1")});
  EXPECT_EQ(d.run.exit_code, 1) << d.run.err;
  const json* l1 = d.finding("l1.log.dataloader_shm");
  ASSERT_NE(l1, nullptr);
  EXPECT_EQ((*l1)["status"], "fail");
  EXPECT_EQ((*l1)["args"]["pid"], "729");
  EXPECT_TRUE((*l1)["evidence"][0]["what"].get<std::string>().ends_with(std::string(kShmLog) + ":1"));
  EXPECT_EQ(d.verdict("l1.log.dataloader_shm", "l3.storage.shm_size"), "confirmed");
  const json* shm = d.finding("l3.storage.shm_size");
  ASSERT_NE(shm, nullptr) << "the machine's own finding is in the report";
  EXPECT_EQ((*shm)["status"], "fail");
}

// A candidate cause is shown with its symptom: the data layer's /dev/shm symptom, the distributed
// layer's refused connection; never in "Environment", where the link's own row would put it.
TEST(DiagnoseE2E, ACauseSitsInItsSymptomsSection) {
  for (const auto& [file, symptom, section, label] :
       std::vector<std::tuple<std::string, std::string, std::string, std::string>>{
           {kShmLog, "l1.log.dataloader_shm", "data", "Data layer: 3 failed"},
           {"gloo-connect-127011-loopback-hostname.log", "l1.log.socket_connect_refused", "distributed", ""}}) {
    auto d = diagnose({log(file), "--root", test::host_fixture("docker-v1")});
    const json* l1 = d.finding(symptom);
    ASSERT_NE(l1, nullptr) << file;
    EXPECT_EQ((*l1)["section"], section);
    int causes = 0;
    for (const auto& f : d.doc["findings"]) {
      if (f["id"] != "l1.diagnose.cause" || f["args"]["symptom"] != symptom) continue;
      ++causes;
      EXPECT_EQ(f["section"], section) << f.dump();
    }
    EXPECT_GE(causes, 2) << file;
    if (label.empty()) continue;
    auto term = test::run_plumb({"diagnose", log(file), "--root", test::host_fixture("docker-v1")});
    EXPECT_NE(term.out.find(label), std::string::npos) << term.out;
    EXPECT_EQ(term.out.find("Environment: 1 failed"), std::string::npos) << term.out;
  }
}

TEST(DiagnoseE2E, SameLogRefutedWhereShmIsLarge) {
  auto d = diagnose({log(kShmLog), "--root", test::host_fixture("healthy")});
  EXPECT_EQ(d.verdict("l1.log.dataloader_shm", "l3.storage.shm_size"), "refuted") << d.run.out.substr(0, 500);
  EXPECT_EQ(d.finding("l3.storage.shm_size")->at("status"), "pass");
  // A refutation says where it was reached and that another node's log is not answered by it.
  auto term = test::run_plumb({"diagnose", log(kShmLog), "--root", test::host_fixture("healthy")});
  EXPECT_NE(term.out.find("checked on gpu-node-01"), std::string::npos) << term.out;
  EXPECT_NE(term.out.find("refuted on gpu-node-01, where the check passes; if the log comes from another node"),
            std::string::npos) << term.out;
  EXPECT_EQ(term.out.find("passes here"), std::string::npos) << term.out;
  EXPECT_NE(term.out.find("no infrastructure cause was confirmed on gpu-node-01"), std::string::npos) << term.out;
  auto zh = test::run_plumb({"diagnose", log(kShmLog), "--root", test::host_fixture("healthy"), "--lang", "zh"});
  EXPECT_NE(zh.out.find("在 gpu-node-01 上已排除"), std::string::npos) << zh.out;
}

TEST(DiagnoseE2E, TermReportOrdersConfirmedRefutedNotCheckable) {
  auto r = test::run_plumb({"diagnose", log(kShmLog), "--root", test::host_fixture("docker-v1")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto confirmed = r.out.find("[confirmed] l3.storage.shm_size");
  ASSERT_NE(confirmed, std::string::npos) << r.out;
  auto not_checkable = r.out.find("[not checkable here]");
  auto refuted = r.out.find("[refuted]");
  if (refuted != std::string::npos) {
    EXPECT_LT(confirmed, refuted);
  }
  if (not_checkable != std::string::npos) {
    EXPECT_LT(confirmed, not_checkable);
    if (refuted != std::string::npos) {
      EXPECT_LT(refuted, not_checkable);
    }
  }
  EXPECT_NE(r.out.find("unable to write to file </torch_739_144252761_4>"), std::string::npos) << r.out;
}

// The sysconfig trees plant the network and PCIe causes (a 127.0.1.1 host name, ACS on the
// bridges and a translating IOMMU, a low open-files limit of pid 4100) or leave them clean.
std::string sysroot(const char* which) { return test::fixture(std::string("sysconfig/roots/") + which); }

TEST(DiagnoseE2E, PlantedCausesConfirmedCleanOnesRefuted) {
  struct Case {
    const char* log;
    const char* symptom;
    std::vector<std::string> checks;
    std::vector<std::string> extra;
  };
  const std::vector<Case> cases = {
      {"gloo-connect-127011-loopback-hostname.log", "l1.log.socket_connect_refused", {"l3.comm.hostname_loopback"}, {}},
      {"nccl-ib-err4-acs-gdr-h100.log", "l1.log.nccl_ib_completion_error", {"l3.comm.pcie_acs", "l3.comm.iommu_mode"}, {}},
      {"ulimit-nofile-too-many-open-files-ddp.log", "l1.log.too_many_open_files", {"l3.data.open_files_limit"}, {"--pid", "4100"}},
  };
  for (const auto& c : cases) {
    for (const char* root : {"planted", "clean"}) {
      std::vector<std::string> args{log(c.log), "--root", sysroot(root)};
      args.insert(args.end(), c.extra.begin(), c.extra.end());
      auto d = diagnose(args);
      for (const auto& check : c.checks) {
        EXPECT_EQ(d.verdict(c.symptom, check), std::string(root) == "planted" ? "confirmed" : "refuted")
            << c.log << " on " << root << ": " << check;
      }
    }
  }
}

TEST(DiagnoseE2E, SnapshotOfTheFailingNode) {
  const std::string snap = ::testing::TempDir() + "/plumb_diagnose_snap.json";
  auto c = test::run_plumb({"check", "--root", test::host_fixture("docker-v1"), "--only", "l3.storage", "--save", snap,
                            "--format", "json"});
  ASSERT_TRUE(c.exit_code == 0 || c.exit_code == 1) << c.err;
  auto d = diagnose({log(kShmLog), "--snapshot", snap});
  EXPECT_EQ(d.verdict("l1.log.dataloader_shm", "l3.storage.shm_size"), "confirmed");
  EXPECT_EQ(d.doc["facts"]["meta"]["command"], "diagnose");
  auto term = test::run_plumb({"diagnose", log(kShmLog), "--snapshot", snap});
  EXPECT_NE(term.out.find("checked on the snapshot of 3f9c2a7e1b04"), std::string::npos) << term.out;
  EXPECT_NE(term.out.find("confirmed on the snapshot of 3f9c2a7e1b04"), std::string::npos) << term.out;
  std::filesystem::remove(snap);
}

TEST(DiagnoseE2E, HealthyLogsRaiseNothing) {
  auto d = diagnose({test::fixture("comm/nccl-tests/leonardo-4x-a100-sxm-64gb-sendrecv_perf-nccl-info-interleaved.txt"),
                     log("healthy/vllm-collect-env-8x-h100-sxm5-nv18-dstack.txt"), "--root", test::host_fixture("healthy")});
  EXPECT_EQ(d.run.exit_code, 0) << d.run.err;
  ASSERT_EQ(d.doc["findings"].size(), 2u) << d.doc["findings"].dump();
  EXPECT_EQ(d.doc["findings"][0]["id"], "l1.diagnose.no_match");
  EXPECT_EQ(d.doc["summary"]["verdict"], "no-failure");
  EXPECT_EQ(d.doc["findings"][0]["status"], "info");
}

TEST(DiagnoseE2E, StdinAndGzip) {
  const std::string gz = ::testing::TempDir() + "/plumb_diagnose_oom.log.gz";
  auto text = read_user_file(log("oom-gpu-held-by-zombie-process-shared-node.log"));
  ASSERT_TRUE(text.ok());
  gzFile f = gzopen(gz.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  gzwrite(f, text->data(), static_cast<unsigned>(text->size()));
  gzclose(f);
  auto d = diagnose({gz, "--root", test::host_fixture("healthy")});
  ASSERT_NE(d.finding("l1.log.cuda_oom"), nullptr) << d.run.err;
  EXPECT_EQ(d.finding("l1.log.cuda_oom")->at("variant"), "foreign");
  std::filesystem::remove(gz);

  RunOptions o;
  o.stdin_data = *read_user_file(log("gloo-connect-127011-loopback-hostname.log"));
  o.extra_env = {{"LANG", "C"}, {"NO_COLOR", "1"}};
  auto r = run_program({PLUMB_BINARY, "diagnose", "-", "--root", test::host_fixture("healthy"), "--format", "json"}, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 1) << r->err;
  auto doc = json::parse(r->out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  bool found = false;
  for (const auto& x : doc["findings"]) {
    if (x["id"] == "l1.log.socket_connect_refused") {
      found = true;
      EXPECT_EQ(x["variant"], "loopback");
      EXPECT_TRUE(x["evidence"][0]["what"].get<std::string>().starts_with("stdin:2"));
    }
  }
  EXPECT_TRUE(found) << r->out.substr(0, 400);
}

TEST(DiagnoseE2E, SymptomWithoutALog) {
  auto d = diagnose({"--symptom", "dataloader-crash", "--root", test::host_fixture("docker-v1")});
  EXPECT_EQ(d.run.exit_code, 1) << d.run.err;
  EXPECT_NE(d.finding("l1.symptom.dataloader_crash"), nullptr);
  EXPECT_NE(d.finding("l1.diagnose.capture"), nullptr);
  EXPECT_EQ(d.verdict("l1.symptom.dataloader_crash", "l3.storage.shm_size"), "confirmed");
  auto ok = diagnose({"--symptom", "dataloader-crash", "--root", test::host_fixture("healthy")});
  EXPECT_EQ(ok.verdict("l1.symptom.dataloader_crash", "l3.storage.shm_size"), "refuted");
  auto hang = test::run_plumb({"diagnose", "--symptom", "hang", "--root", test::host_fixture("healthy")});
  EXPECT_NE(hang.out.find("NCCL_DEBUG=INFO"), std::string::npos) << hang.out;
  EXPECT_NE(hang.out.find("py-spy dump"), std::string::npos);
}

TEST(DiagnoseE2E, FormatsAndChinese) {
  for (const char* fmt : {"md", "html"}) {
    auto r = test::run_plumb({"diagnose", log(kShmLog), "--root", test::host_fixture("docker-v1"), "--format", fmt});
    EXPECT_EQ(r.exit_code, 1) << fmt << r.err;
    EXPECT_NE(r.out.find("Diagnosis"), std::string::npos) << fmt;
    EXPECT_NE(r.out.find("l3.storage.shm_size"), std::string::npos) << fmt;
  }
  auto zh = test::run_plumb({"diagnose", log(kShmLog), "--root", test::host_fixture("docker-v1"), "--lang", "zh"});
  EXPECT_NE(zh.out.find("已确认"), std::string::npos) << zh.out;
  EXPECT_NE(zh.out.find("共享内存"), std::string::npos);
}

TEST(DiagnoseE2E, BadInputExits2WithOneLine) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"diagnose"},
           {"diagnose", "/nonexistent/job.log"},
           {"diagnose", test::fixture("logs")},
           {"diagnose", "--symptom", "hnag"},
           {"diagnose", log(kShmLog), "--snapshot", "/nonexistent.json"},
           {"diagnose", log(kShmLog), "--root", "/nonexistent-root"},
           {"diagnose", log(kShmLog), "--format", "xml"}}) {
    auto r = test::run_plumb(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << args.back();
    EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  }
  // A FIFO without a writer is refused at once, never waited on.
  const std::string fifo = ::testing::TempDir() + "/plumb_diagnose_fifo";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto f = test::run_plumb({"diagnose", fifo, "--root", test::host_fixture("healthy")});
  EXPECT_EQ(f.exit_code, 2);
  EXPECT_NE(f.err.find("not a regular file"), std::string::npos) << f.err;
  std::filesystem::remove(fifo);
  auto typo = test::run_plumb({"diagnose", "--symptom", "hnag"});
  EXPECT_NE(typo.err.find("did you mean hang"), std::string::npos) << typo.err;
}

// No template placeholder reaches a reader: every log of the corpus diagnosed at once, each text
// format in both languages, holds no `{name}` but those the logs themselves contain.
TEST(DiagnoseE2E, NoPlaceholderIsLeftUnfilledOnTheCorpus) {
  namespace fs = std::filesystem;
  std::vector<std::string> args{"diagnose"};
  std::set<std::string> in_logs;
  const std::regex kPlaceholder(R"(\{[a-z][a-z0-9_]*\})");
  for (const char* dir : {"logs", "logs/corpus"}) {
    for (const auto& e : fs::directory_iterator(test::fixture(dir))) {
      if (e.path().extension() != ".log") continue;
      args.push_back(e.path().string());
      std::ifstream in(e.path());
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), kPlaceholder); it != std::sregex_iterator(); ++it) {
        in_logs.insert(it->str());
      }
    }
  }
  ASSERT_GT(args.size(), 150u);
  args.insert(args.end(), {"--root", test::host_fixture("healthy")});
  for (const char* lang : {"en", "zh"}) {
    for (const char* format : {"term", "md", "html"}) {
      auto run_args = args;
      run_args.insert(run_args.end(), {"--lang", lang, "--format", format});
      RunOutput r = test::run_plumb(run_args);
      ASSERT_LE(r.exit_code, 1) << r.err;
      for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), kPlaceholder); it != std::sregex_iterator(); ++it) {
        EXPECT_TRUE(in_logs.count(it->str())) << lang << " " << format << ": " << it->str() << " left unfilled near: "
                                              << r.out.substr(static_cast<std::size_t>(std::max<long>(0, it->position() - 120)), 240);
      }
    }
  }
}

}  // namespace
}  // namespace plumb
