// `plumb diagnose` judgements: the conclusions a signature's values allow (whose memory an OOM
// is, whether a watchdog timeout is the first collective, what an IB error code means, the CUDA
// version an old driver supports), and each candidate cause's verdict from the machine's findings.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "core/catalog.h"
#include "core/registry.h"
#include "rules/diagnose.h"
#include "../../test_util.h"

namespace plumb {
namespace {

std::vector<Finding> findings_of(const std::string& rel) {
  auto s = scan_log_files({test::fixture("logs/" + rel)});
  EXPECT_TRUE(s.ok()) << rel;
  return s.ok() ? log_findings(*s) : std::vector<Finding>{};
}

const Finding* by_id(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

TEST(Diagnose, OomHeldByAnotherProcess) {
  auto fs = findings_of("oom-gpu-held-by-zombie-process-shared-node.log");
  const Finding* f = by_id(fs, "l1.log.cuda_oom");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->status, Status::fail);
  EXPECT_EQ(f->variant, "foreign");
  EXPECT_EQ(f->args.at("foreign"), "7.8 GiB");  // 7.92 GiB - 24.56 MiB free - 86 MiB reserved
  std::string msg = finding_message(*f, Lang::en);
  EXPECT_NE(msg.find("another process"), std::string::npos) << msg;
  EXPECT_NE(msg.find(".log:1"), std::string::npos) << msg;
  EXPECT_NE(finding_message(*f, Lang::zh).find("另一个"), std::string::npos);
}

TEST(Diagnose, OomFragmentationWantsExpandableSegments) {
  auto fs = findings_of("oom-with-free-memory-expandable-segments-avoids.log");
  const Finding* f = by_id(fs, "l1.log.cuda_oom");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->variant, "fragmentation");
  std::string msg = finding_message(*f, Lang::en);
  EXPECT_NE(msg.find("24.85 MiB reserved but unallocated > the 20.00 MiB request"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expandable_segments"), std::string::npos);
}

TEST(Diagnose, OomWithoutFiguresStaysPlain) {
  auto s = scan_log_text("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n", "a.log");
  ASSERT_TRUE(s.ok());
  auto fs = log_findings(*s);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].variant, "");
  EXPECT_EQ(finding_message(fs[0], Lang::en).find('{'), std::string::npos) << finding_message(fs[0], Lang::en);
}

TEST(Diagnose, WatchdogFirstCollectiveOrLater) {
  auto later = findings_of("nccl-watchdog-timeout-broken-venv-multinode.log");
  ASSERT_NE(by_id(later, "l1.log.nccl_watchdog_timeout"), nullptr);
  EXPECT_EQ(by_id(later, "l1.log.nccl_watchdog_timeout")->variant, "");
  auto first = findings_of("minimal/watchdog-seqnum1-first-collective.log");
  const Finding* f = by_id(first, "l1.log.nccl_watchdog_timeout");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->variant, "first_collective");
  EXPECT_NE(finding_message(*f, Lang::en).find("first collective never finished"), std::string::npos);
}

TEST(Diagnose, IbErrorCodes) {
  EXPECT_EQ(by_id(findings_of("nccl-ib-err4-acs-gdr-h100.log"), "l1.log.nccl_ib_completion_error")->variant, "local_protection");
  EXPECT_EQ(by_id(findings_of("minimal/nccl-ib-err12-roce-gid.log"), "l1.log.nccl_ib_completion_error")->variant,
            "retry_exceeded");
}

TEST(Diagnose, LoopbackAndDriverVersion) {
  auto gloo = findings_of("gloo-connect-127011-loopback-hostname.log");  // kept alive: g points into it
  const Finding* g = by_id(gloo, "l1.log.socket_connect_refused");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->variant, "loopback");
  auto d = findings_of("driver-too-old-container-cuda121.log");
  const Finding* f = by_id(d, "l1.log.cuda_driver_too_old");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->args.at("driver_cuda"), "11.0");
  EXPECT_NE(finding_message(*f, Lang::en).find("supports CUDA 11.0 at most"), std::string::npos);
  EXPECT_EQ(by_id(findings_of("minimal/insufficient-driver.log"), "l1.log.cuda_driver_too_old")->variant, "");
}

TEST(Diagnose, NothingMatchedSaysWhatWasRead) {
  auto fs = findings_of("ort-cuda-output-mismatch-tf32-ampere.log");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].id, kNoMatchId);
  EXPECT_EQ(fs[0].status, Status::info);
  EXPECT_EQ(fs[0].args.at("lines"), "18");
  EXPECT_TRUE(candidate_checks(fs[0]).empty());
  EXPECT_EQ(exit_code_for(fs), 0);
}

TEST(Diagnose, EvidenceCitesFileLineAndText) {
  auto fs = findings_of("xid79-pcie-surprise-down-gpu-burn.log");
  const Finding* f = by_id(fs, "l1.log.gpu_xid");
  ASSERT_NE(f, nullptr);
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_TRUE(f->evidence[0].what.ends_with("xid79-pcie-surprise-down-gpu-burn.log:13")) << f->evidence[0].what;
  EXPECT_TRUE(f->evidence[0].value.starts_with("NVRM: Xid (PCI:0000:02:00): 79")) << f->evidence[0].value;
  EXPECT_EQ(f->args.at("xid_name"), "GPU_HAS_FALLEN_OFF_THE_BUS");
}

Finding machine(const std::string& id, Status s, const std::string& subject = "host") {
  Finding f;
  f.id = id;
  f.status = s;
  f.subject = subject;
  if (s == Status::skip) f.args["reason"] = "no GPU";
  return f;
}

TEST(Diagnose, VerdictsInOrderConfirmedRefutedNotCheckable) {
  auto l1 = findings_of("shm-docker-64m-no-space-left.log");
  ASSERT_EQ(l1.size(), 1u);
  // Candidates: l3.storage.shm_size, l3.memory.cgroup_limit, l3.kernel.oom_kills.
  std::vector<Finding> m{machine("l3.memory.cgroup_limit", Status::pass), machine("l3.storage.shm_size", Status::fail),
                         machine("l3.kernel.oom_kills", Status::skip)};
  auto causes = judge_causes(l1, m);
  ASSERT_EQ(causes.size(), 3u);
  EXPECT_EQ(causes[0].args.at("check"), "l3.storage.shm_size");
  EXPECT_EQ(causes[0].status, Status::fail);
  EXPECT_EQ(causes[0].variant, "confirmed");
  EXPECT_EQ(causes[1].args.at("check"), "l3.memory.cgroup_limit");
  EXPECT_EQ(causes[1].variant, "refuted");
  EXPECT_EQ(causes[1].status, Status::pass);
  EXPECT_EQ(causes[2].variant, "not_checkable");
  EXPECT_EQ(causes[2].args.at("reason"), "no GPU");
  EXPECT_EQ(causes[2].status, Status::skip);
  // The same log on a machine where /dev/shm is fine: refuted, and nothing absent is confirmed.
  auto refuted = judge_causes(l1, {machine("l3.storage.shm_size", Status::pass)});
  ASSERT_EQ(refuted.size(), 3u);
  EXPECT_EQ(refuted[0].args.at("check"), "l3.storage.shm_size");
  EXPECT_EQ(refuted[0].variant, "refuted");
  EXPECT_EQ(refuted[1].variant, "not_checkable");
  EXPECT_EQ(refuted[1].args.at("reason"), "not judged: no input");
}

TEST(Diagnose, AnyFailingSubjectConfirms) {
  std::string reason;
  std::vector<Finding> m{machine("l3.gpu.xid", Status::pass, "gpu 0"), machine("l3.gpu.xid", Status::warn, "gpu 1")};
  EXPECT_EQ(verdict_of("l3.gpu.xid", m, reason), CauseVerdict::confirmed);
  EXPECT_EQ(verdict_of("l3.gpu.ecc_errors", m, reason), CauseVerdict::not_checkable);
  EXPECT_EQ(verdict_of("l3.no.such_check", m, reason), CauseVerdict::not_checkable);
  EXPECT_EQ(reason, "no such check in this plumb");
}

TEST(Diagnose, SymptomFindingsCarryTheCaptureCommands) {
  const SymptomFunnel* s = find_symptom("hang");
  ASSERT_NE(s, nullptr);
  auto fs = symptom_findings(*s);
  ASSERT_GE(fs.size(), 2u);
  EXPECT_EQ(fs[0].id, "l1.symptom.hang");
  EXPECT_EQ(candidate_checks(fs[0]), s->checks);
  EXPECT_EQ(fs[1].id, kCaptureId);
  EXPECT_NE(finding_message(fs[1], Lang::en).find("NCCL_DEBUG=INFO"), std::string::npos);
  EXPECT_NE(finding_message(fs[1], Lang::zh).find("采集"), std::string::npos);
  EXPECT_EQ(find_symptom("no-such"), nullptr);
}

// The checks being added next to these (PCIe ACS, IOMMU, ...) may not exist yet in a build;
// every other candidate must be a current catalogue id.
const std::set<std::string> kPlanned = {"l3.comm.pcie_acs",         "l3.comm.iommu_mode",      "l3.comm.hostname_loopback",
                                        "l3.data.open_files_limit", "l3.vram.foreign_processes", "l3.comm.ib_gid_index",
                                        "l3.framework.tf32"};

TEST(Diagnose, CandidateChecksAreCatalogueIds) {
  auto check = [&](const std::string& where, const std::vector<std::string>& ids) {
    EXPECT_FALSE(ids.empty()) << where;
    for (const auto& c : ids) {
      if (kPlanned.count(c)) continue;
      const CatalogEntry* e = find_entry(c);
      ASSERT_NE(e, nullptr) << where << " names " << c;
      EXPECT_NE(e->layer, Layer::L1) << where << " names " << c;
    }
  };
  // A code bug or a progress line has no machine cause; two infrastructure rows name causes
  // no node setting shows (a port another process holds, the job's own time limit): their
  // verdict is inconclusive and says what to look at.
  const std::set<std::string> no_machine_check = {"port_in_use", "scheduler_cancelled"};
  for (const auto& s : log_signatures()) {
    if (s.kind == SignatureKind::code || s.kind == SignatureKind::progress) {
      EXPECT_TRUE(s.causes.empty()) << s.id;
      continue;
    }
    if (no_machine_check.count(s.id)) {
      EXPECT_TRUE(s.causes.empty()) << s.id;
      continue;
    }
    check(s.id, s.causes);
  }
  for (const auto& s : symptom_funnels()) check(s.name, s.checks);
}

TEST(Diagnose, EverySignatureHasARowWithBothLanguagesAndASource) {
  for (const auto& s : log_signatures()) {
    const CatalogEntry* e = find_entry(log_finding_id(s.id));
    ASSERT_NE(e, nullptr) << s.id;
    EXPECT_EQ(e->layer, Layer::L1);
    EXPECT_TRUE(e->messages.count("fail")) << s.id;
    for (const auto& [v, t] : s.variants) EXPECT_TRUE(e->messages.count(v)) << s.id << " " << v;
    // A public thread or document (https://...), or the upstream file, header or manual page
    // the words come from.
    static const std::regex cited(R"((https://|[A-Za-z0-9_]\.(h|h\.in|hpp|cc|cpp|c|py|txt)\b|[a-z_]+\([0-9]\)))");
    EXPECT_TRUE(std::regex_search(s.source, cited)) << s.id << ": " << s.source;
    EXPECT_FALSE(s.patterns.empty()) << s.id;
    if (s.kind != SignatureKind::progress) {
      EXPECT_FALSE(s.fix.zh.empty()) << s.id;
    }
    // Each message is the symptom, then what it does: two sentences, each ended in its language's
    // way (no space after a full-width full stop).
    for (const auto& [v, t] : e->messages) {
      EXPECT_NE(t.en.find(". Then: "), std::string::npos) << s.id << " " << v << ": " << t.en;
      EXPECT_NE(t.zh.find("。随后："), std::string::npos) << s.id << " " << v << ": " << t.zh;
      EXPECT_TRUE(t.zh.ends_with("。")) << s.id << " " << v << ": " << t.zh;
    }
  }
  for (const auto& s : symptom_funnels()) {
    EXPECT_NE(find_entry(symptom_finding_id(s.name)), nullptr) << s.name;
    EXPECT_FALSE(s.capture.empty()) << s.name;
  }
}

}  // namespace
}  // namespace plumb
