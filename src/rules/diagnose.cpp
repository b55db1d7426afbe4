// `plumb diagnose` judgements and catalogue rows (see rules/diagnose.h). The rows of the log
// signatures and symptoms come from the table in core/knowledge/log_signatures.cpp, so the words
// live in one place.
#include "rules/diagnose.h"

#include <algorithm>
#include <cmath>

#include "core/catalog.h"
#include "core/knowledge/cuda_version.h"
#include "core/knowledge/xid.h"
#include "core/registry.h"
#include "core/tables.h"
#include "core/text.h"

namespace plumb {

namespace {

// "216.00 MiB", "7.92 GiB", "512 bytes" (PyTorch's format_size) -> bytes.
std::optional<double> torch_size(const std::string& s) {
  auto sp = s.find(' ');
  if (sp == std::string::npos) return std::nullopt;
  auto v = parse_double(s.substr(0, sp));
  if (!v) return std::nullopt;
  std::string unit = s.substr(sp + 1);
  double mul = 1;
  if (unit == "bytes" || unit == "B") mul = 1;
  else if (unit == "KiB" || unit == "KB") mul = 1024.0;
  else if (unit == "MiB" || unit == "MB") mul = 1024.0 * 1024;
  else if (unit == "GiB" || unit == "GB") mul = 1024.0 * 1024 * 1024;
  else if (unit == "TiB" || unit == "TB") mul = 1024.0 * 1024 * 1024 * 1024;
  else return std::nullopt;
  return *v * mul;
}

std::string size_text(double bytes) { return human_bytes(static_cast<std::uint64_t>(std::max(0.0, bytes))); }

// CUDA OOM: whose memory it is. Fragmentation when the allocator's reserved-but-unallocated
// bytes exceed the request; "free exceeds" when the driver had more free than asked; another
// process when capacity - free - what this process holds is over 1 GiB and 10 % of the card.
void conclude_oom(Finding& x, const std::map<std::string, std::string>& v) {
  auto get = [&](const char* k) -> std::optional<double> {
    auto it = v.find(k);
    return it == v.end() ? std::nullopt : torch_size(it->second);
  };
  auto request = get("request"), capacity = get("capacity"), free = get("free");
  auto allocated = get("allocated"), reserved = get("reserved"), unallocated = get("unallocated");
  auto in_use = get("process_in_use");
  if (!unallocated && reserved && allocated) {  // the old message's figures
    unallocated = *reserved - *allocated;
    x.arg("unallocated", size_text(*unallocated));
  }
  if (request && unallocated && *unallocated > *request) {
    x.variant = "fragmentation";
    return;
  }
  if (request && free && *free >= *request) {
    x.variant = "free_exceeds";
    return;
  }
  std::optional<double> held = in_use;
  if (!held && reserved) held = *reserved;
  if (!held && allocated && unallocated) held = *allocated + *unallocated;
  if (!capacity || !free || !held) return;
  double foreign = *capacity - *free - *held;
  x.arg("held", size_text(*held));
  x.arg("foreign", size_text(foreign));
  if (foreign > 1024.0 * 1024 * 1024 && foreign > 0.1 * *capacity) x.variant = "foreign";
}

void conclude(const std::string& sig, Finding& x, const std::map<std::string, std::string>& v) {
  auto val = [&](const char* k) -> std::string {
    auto it = v.find(k);
    return it == v.end() ? std::string() : it->second;
  };
  if (sig == "cuda_oom") {
    conclude_oom(x, v);
  } else if (sig == "nccl_watchdog_timeout") {
    if (val("seq") == "1" || val("last_completed") == "-1") x.variant = "first_collective";
  } else if (sig == "nccl_ib_completion_error") {
    // ibv_wc_status: 4 IBV_WC_LOC_PROT_ERR, 12 IBV_WC_RETRY_EXC_ERR (rdma-core libibverbs/verbs.h).
    if (val("error") == "4") x.variant = "local_protection";
    if (val("error") == "12") x.variant = "retry_exceeded";
  } else if (sig == "socket_connect_refused") {
    std::string a = val("address");
    if (a.starts_with("127.") || a == "::1" || a == "localhost") x.variant = "loopback";
  } else if (sig == "cuda_driver_too_old") {
    if (auto n = parse_int(val("found_version")); n && *n > 0) {
      x.arg("driver_cuda", decode_cuda_version(*n));
      x.variant = "found";
    }
  } else if (sig == "gpu_xid") {
    auto n = parse_int(val("xid"));
    const XidInfo* info = n ? find_xid(static_cast<int>(*n)) : nullptr;
    x.arg("xid_name", info != nullptr ? info->name : "?");
    x.arg("meaning", info != nullptr ? info->meaning.en : "a code not in plumb's Xid table (NVIDIA's Xid catalogue lists it)");
    x.arg("meaning_zh", info != nullptr ? info->meaning.zh : "plumb 的 Xid 表中没有此代码（见 NVIDIA 的 Xid 目录）");
  }
}

// A log that ends (within kHangTail lines) right after NCCL set up its channels, with no error:
// the first collective never returned, or the job was stopped from outside while it waited.
constexpr std::uint64_t kHangTail = 3;

std::optional<Finding> assumed_hang(const LogScan& scan) {
  if (scan.files.empty() || scan.file_lines.size() != scan.files.size()) return std::nullopt;
  for (const auto& h : scan.hits) {
    const LogSignature* sig = find_log_signature(h.signature);
    if (sig == nullptr || sig->kind != SignatureKind::progress || h.count == 0) continue;
    const std::size_t last = scan.files.size() - 1;
    if (h.last_file != last || h.last_line + kHangTail < scan.file_lines[last]) continue;
    Finding x;
    x.id = kAssumedHangId;
    x.status = Status::info;
    x.subject = "log";
    x.arg("where", scan.files[last] + ":" + std::to_string(h.last_line));
    x.arg("tail", std::to_string(scan.file_lines[last] - h.last_line));
    x.add(scan.files[last] + ":" + std::to_string(h.last_line), h.samples.empty() ? "" : h.samples.back().text, scan.files[last]);
    return x;
  }
  return std::nullopt;
}

// "job.log:42" -> 42 (the first matched line of a finding).
std::uint64_t where_line(const Finding& f) {
  auto it = f.args.find("where");
  if (it == f.args.end()) return 0;
  auto colon = it->second.rfind(':');
  if (colon == std::string::npos) return 0;
  auto n = parse_int(it->second.substr(colon + 1));
  return n && *n > 0 ? static_cast<std::uint64_t>(*n) : 0;
}

}  // namespace

Finding diagnose_verdict(const std::vector<Finding>& l1, const std::vector<Finding>& causes, const Text& checked) {
  std::vector<std::string> confirmed, infra, code, model;
  std::uint64_t first_code = 0, first_infra = 0;
  std::string look_en, look_zh;
  bool hang = false;
  for (const auto& f : l1) {
    if (f.id == kAssumedHangId) hang = true;
    if (f.id.starts_with("l1.symptom.")) {
      if (f.subject == "nan-loss") model.push_back(f.id);
      else infra.push_back(f.id);
      continue;
    }
    if (!f.id.starts_with("l1.log.")) continue;
    const LogSignature* s = find_log_signature(f.id.substr(7));
    if (s == nullptr) continue;
    std::uint64_t line = where_line(f);
    auto earlier = [&](std::uint64_t& first) {
      if (line != 0 && (first == 0 || line < first)) first = line;
    };
    if (s->kind == SignatureKind::code) {
      code.push_back(f.id);
      earlier(first_code);
      if (look_en.empty()) {
        look_en = s->fix.en;
        look_zh = s->fix.zh;
      }
    } else if (s->kind == SignatureKind::model) {
      model.push_back(f.id);
    } else {
      infra.push_back(f.id);
      earlier(first_infra);
    }
  }
  std::size_t refuted = 0, unchecked = 0;
  for (const auto& c : causes) {
    if (c.id != kCauseId) continue;
    if (c.status == Status::fail) {
      auto it = c.args.find("check");
      std::string check = it != c.args.end() ? it->second : c.subject;
      if (std::find(confirmed.begin(), confirmed.end(), check) == confirmed.end()) confirmed.push_back(check);
    } else if (c.status == Status::pass) {
      ++refuted;
    } else {
      ++unchecked;
    }
  }
  Finding v;
  v.id = kVerdictId;
  v.status = Status::info;
  v.subject = "diagnosis";
  v.arg("machine_en", checked.en).arg("machine_zh", checked.zh);
  auto all = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return join(a, ", ");
  };
  v.arg("refuted", std::to_string(refuted)).arg("unchecked", std::to_string(unchecked));
  // A code bug decides when it is the first failure the log shows (a bad index is followed by
  // NCCL timeouts on the other ranks, not the other way round).
  const bool code_first = !code.empty() && (infra.empty() || (first_code != 0 && first_infra != 0 && first_code < first_infra));
  if (!confirmed.empty()) {
    v.variant = "infrastructure";
    v.arg("verdict", "infrastructure").arg("checks", join(confirmed, ", ")).arg("symptoms", all(infra, model));
  } else if (code_first) {
    v.variant = "not_infrastructure";
    v.arg("verdict", "not-infrastructure").arg("symptoms", join(code, ", "));
    v.arg("look_en", look_en).arg("look_zh", look_zh);
  } else if (!model.empty() && infra.empty()) {
    v.variant = "inconclusive_model";
    v.arg("verdict", "inconclusive").arg("symptoms", join(model, ", "));
  } else if (hang && infra.size() <= 1) {
    v.variant = "inconclusive_hang";
    v.arg("verdict", "inconclusive").arg("symptoms", all(infra, model));
  } else if (!infra.empty() || !model.empty() || !code.empty()) {
    v.variant = "inconclusive";
    std::vector<std::string> seen = infra;
    seen.insert(seen.end(), model.begin(), model.end());
    v.arg("verdict", "inconclusive").arg("symptoms", all(seen, code));
  } else {
    v.variant = "no_failure";
    v.arg("verdict", "no-failure");
  }
  return v;
}

std::string log_finding_id(const std::string& signature) { return "l1.log." + signature; }

std::string symptom_finding_id(const std::string& symptom) {
  std::string s = symptom;
  std::replace(s.begin(), s.end(), '-', '_');
  return "l1.symptom." + s;
}

std::vector<Finding> log_findings(const LogScan& scan) {
  std::vector<Finding> out;
  for (const auto& h : scan.hits) {
    const LogSignature* sig = find_log_signature(h.signature);
    if (sig == nullptr || h.count == 0 || sig->kind == SignatureKind::progress) continue;
    Finding x;
    x.id = log_finding_id(sig->id);
    x.status = Status::fail;
    x.subject = "log";
    for (const auto& spec : sig->values) x.arg(spec.name, "?");  // a gap reads "?", never "{name}"
    for (const auto& [k, val] : h.values) x.arg(k, val);
    x.arg("count", std::to_string(h.count));
    if (!h.samples.empty()) x.arg("where", h.samples.front().file + ":" + std::to_string(h.samples.front().line));
    for (const auto& m : h.samples) x.add(m.file + ":" + std::to_string(m.line), m.text, m.file);
    for (const auto& [k, val] : h.values) x.add(k, val, h.value_at.at(k));
    conclude(sig->id, x, h.values);
    out.push_back(std::move(x));
  }
  if (out.empty() && !scan.files.empty()) {
    if (auto hang = assumed_hang(scan)) {
      out.push_back(std::move(*hang));
      if (const SymptomFunnel* s = find_symptom("hang")) {
        for (auto& f : symptom_findings(*s)) out.push_back(std::move(f));
      }
      return out;
    }
    Finding none;
    none.id = kNoMatchId;
    none.status = Status::info;
    none.subject = "log";
    std::string files;
    for (const auto& f : scan.files) files += (files.empty() ? "" : ", ") + f;
    none.arg("files", files).arg("lines", std::to_string(scan.lines)).arg("bytes", human_bytes(scan.bytes));
    none.arg("signatures", std::to_string(log_signatures().size()));
    out.push_back(std::move(none));
  }
  return out;
}

std::vector<Finding> symptom_findings(const SymptomFunnel& s) {
  std::vector<Finding> out;
  Finding x;
  x.id = symptom_finding_id(s.name);
  x.status = Status::info;
  x.subject = s.name;
  out.push_back(x);
  int n = 0;
  for (const auto& c : s.capture) {
    Finding cap;
    cap.id = kCaptureId;
    cap.status = Status::info;
    cap.subject = s.name + " #" + std::to_string(++n);
    cap.arg("what_en", c.what.en).arg("what_zh", c.what.zh).arg("command", c.command).arg("symptom", s.name);
    out.push_back(std::move(cap));
  }
  return out;
}

std::vector<std::string> candidate_checks(const Finding& l1) {
  if (l1.id.starts_with("l1.log.")) {
    const LogSignature* s = find_log_signature(l1.id.substr(7));
    return s != nullptr ? s->causes : std::vector<std::string>{};
  }
  if (l1.id.starts_with("l1.symptom.")) {
    const SymptomFunnel* f = find_symptom(l1.subject);
    return f != nullptr ? f->checks : std::vector<std::string>{};
  }
  return {};
}

const char* cause_verdict_name(CauseVerdict v) {
  switch (v) {
    case CauseVerdict::confirmed: return "confirmed";
    case CauseVerdict::refuted: return "refuted";
    case CauseVerdict::not_checkable: return "not_checkable";
  }
  return "?";
}

CauseVerdict verdict_of(const std::string& check, const std::vector<Finding>& machine, std::string& reason) {
  bool bad = false, pass = false;
  reason.clear();
  for (const auto& f : machine) {
    if (f.id != check) continue;
    if (f.status == Status::fail || f.status == Status::warn) bad = true;
    if (f.status == Status::pass) pass = true;
    if (f.status == Status::skip && reason.empty()) {
      auto it = f.args.find("reason");
      reason = it != f.args.end() ? it->second : "skipped";
    }
    if (f.status == Status::info && reason.empty()) reason = "informational only";
  }
  if (bad) return CauseVerdict::confirmed;
  if (pass) return CauseVerdict::refuted;
  if (reason.empty()) reason = find_entry(check) == nullptr ? "no such check in this plumb" : "not judged: no input";
  return CauseVerdict::not_checkable;
}

std::vector<Finding> judge_causes(const std::vector<Finding>& l1, const std::vector<Finding>& machine,
                                  const Text& checked) {
  std::vector<Finding> by[3];
  for (const auto& s : l1) {
    int rank = 0;
    for (const auto& check : candidate_checks(s)) {
      ++rank;
      std::string reason;
      CauseVerdict v = verdict_of(check, machine, reason);
      Finding x;
      x.id = kCauseId;
      x.subject = s.id + " -> " + check;
      x.variant = cause_verdict_name(v);
      x.status = v == CauseVerdict::confirmed ? Status::fail : v == CauseVerdict::refuted ? Status::pass : Status::skip;
      const CatalogEntry* e = find_entry(check);
      x.arg("symptom", s.id).arg("check", check).arg("rank", std::to_string(rank)).arg("verdict", cause_verdict_name(v));
      x.arg("machine_en", checked.en).arg("machine_zh", checked.zh);
      x.arg("check_en", e != nullptr ? e->title.en : check).arg("check_zh", e != nullptr ? e->title.zh : check);
      if (v == CauseVerdict::not_checkable) x.arg("reason", reason);
      std::string on;
      bool on_bad = false;
      for (const auto& f : machine) {
        if (f.id != check) continue;
        bool bad = f.status == Status::fail || f.status == Status::warn;
        if (on.empty() || (bad && !on_bad)) {
          on = f.subject;
          on_bad = bad;
        }
        if (x.evidence.size() < 4) {
          for (const auto& ev : f.evidence) {
            if (x.evidence.size() >= 4) break;
            x.add(ev.what + (f.subject == "host" ? "" : " (" + f.subject + ")"), ev.value, ev.source);
          }
        }
      }
      x.arg("on", on.empty() ? "host" : on);
      by[static_cast<int>(v)].push_back(std::move(x));
    }
  }
  std::vector<Finding> out;
  for (auto& group : by) {
    for (auto& f : group) out.push_back(std::move(f));
  }
  return out;
}

namespace {

std::vector<CatalogEntry> rows() {
  std::vector<CatalogEntry> r;
  for (const auto& s : log_signatures()) {
    CatalogEntry e;
    e.id = log_finding_id(s.id);
    e.layer = Layer::L1;
    e.pillar = s.pillar;
    e.section = s.section;
    e.title = s.title;
    auto with_behaviour = [&](const Text& t) {
      return Text{t.en + " Then: " + s.behaviour.en + ".", t.zh + "随后：" + s.behaviour.zh + "。"};
    };
    e.messages["fail"] = with_behaviour(s.symptom);
    for (const auto& [variant, t] : s.variants) e.messages[variant] = with_behaviour(t);
    e.fix = s.fix;
    e.verify = s.verify;
    r.push_back(std::move(e));
  }
  for (const auto& s : symptom_funnels()) {
    CatalogEntry e;
    e.id = symptom_finding_id(s.name);
    e.layer = Layer::L1;
    e.pillar = s.pillar;
    e.section = Section::environment;
    e.title = s.title;
    e.messages["info"] = s.explanation;
    e.fix = {"Run the checks listed here now; capture the rest with the commands given.",
             "现在运行此处列出的检查；其余证据用给出的命令采集。"};
    e.verify = "plumb diagnose --symptom " + s.name;
    r.push_back(std::move(e));
  }
  r.push_back({kCauseId, Layer::L1, Pillar::platform, Section::environment,
               {"a candidate cause of a symptom, checked on the machine plumb read", "症状的候选原因，在 plumb 读取的机器上检查"},
               {{"confirmed",
                 {"{symptom} -> {check} ({check_en}): confirmed on {machine_en} ({on}).",
                  "{symptom} -> {check}（{check_zh}）：已在 {machine_zh}（{on}）上确认。"}},
                {"refuted",
                 {"{symptom} -> {check} ({check_en}): refuted on {machine_en}, where the check passes; if the log comes "
                  "from another node, this says nothing about that node (run plumb diagnose there); otherwise look at the "
                  "next cause.",
                  "{symptom} -> {check}（{check_zh}）：在 {machine_zh} 上已排除（检查通过）；如果日志来自其他节点，这不能说明那个节点"
                  "（请在那里运行 plumb diagnose）；否则请看下一个原因。"}},
                {"not_checkable",
                 {"{symptom} -> {check} ({check_en}): not checkable on {machine_en} ({reason}).",
                  "{symptom} -> {check}（{check_zh}）：在 {machine_zh} 上无法检查（{reason}）。"}}},
               {"Fix the confirmed cause (its own finding gives the fix), then run the job again.",
                "修复已确认的原因（其自身的检查结果给出修复方法），然后重新运行作业。"},
               "plumb check --only {check}",
               {},
               {},
               "symptom"});  // shown in its symptom's section
  r.push_back({kNoMatchId, Layer::L1, Pillar::platform, Section::environment,
               {"no known failure signature in the logs", "日志中没有已知的故障特征"},
               {{"info",
                 {"none of the {signatures} signatures matched in {lines} lines ({bytes}) of {files}.",
                  "在 {files} 的 {lines} 行（{bytes}）中，{signatures} 个特征均未匹配。"}}},
               {"If the job failed anyway, start from its symptom: plumb diagnose --symptom NAME (hang, nan-loss, oom, "
                "slow-step, ...).",
                "如果作业仍然失败，请从症状开始：plumb diagnose --symptom NAME（hang、nan-loss、oom、slow-step 等）。"},
               "plumb diagnose --symptom hang",
               {},
               {}});
  r.push_back({kVerdictId, Layer::L1, Pillar::platform, Section::environment,
               {"the diagnosis: is it the infrastructure?", "诊断结论：是否为基础架构问题？"},
               {{"infrastructure",
                 {"Verdict: infrastructure. A cause is confirmed on {machine_en} ({checks}) for {symptoms}: fix it, then "
                  "rerun the job.",
                  "结论：基础架构问题。已在 {machine_zh} 上确认原因（{checks}），对应 {symptoms}：修复后重新运行作业。"}},
                {"not_infrastructure",
                 {"Verdict: not infrastructure. The log shows a bug in the job's code or data first ({symptoms}); no "
                  "machine check explains it. {look_en}",
                  "结论：不是基础架构问题。日志首先显示的是作业代码或数据的缺陷（{symptoms}）；没有机器检查能解释它。{look_zh}"}},
                {"inconclusive",
                 {"Verdict: inconclusive. The log shows {symptoms}, but no infrastructure cause was confirmed on "
                  "{machine_en} ({refuted} refuted, {unchecked} not checkable). To decide, run plumb diagnose on the failing node, or "
                  "with --snapshot of a `plumb check --save` taken there while it fails.",
                  "结论：无法判定。日志显示 {symptoms}，但在 {machine_zh} 上未确认任何基础架构原因（{refuted} 项已排除，{unchecked} 项无法检查）。"
                  "要做出判断，请在出错的节点上运行 plumb diagnose，或用 --snapshot 读取在该节点出错时用 `plumb check --save` "
                  "保存的快照。"}},
                {"inconclusive_model",
                 {"Verdict: inconclusive. The loss went non-finite ({symptoms}) and no machine cause was confirmed on "
                  "{machine_en} ({refuted} refuted, {unchecked} not checkable). The model's own causes come first: a learning rate "
                  "too high (lower it, add warm-up, clip gradients), the precision (fp16 overflow: bf16 or a loss "
                  "scaler), the data (NaN or inf in inputs or labels, a division by zero in the loss); "
                  "torch.autograd.set_detect_anomaly(True) names the first operation.",
                  "结论：无法判定。loss 变为非有限值（{symptoms}），且在 {machine_zh} 上未确认任何机器原因（{refuted} 项已排除，{unchecked} 项无法检查）。"
                  "先看模型自身的原因：学习率过高（降低学习率、加入预热、梯度裁剪）、精度（fp16 溢出：改用 bf16 或损失缩放）、"
                  "数据（输入或标签中的 NaN 或 inf、loss 中的除零）；torch.autograd.set_detect_anomaly(True) 可指出第一个出错的运算。"}},
                {"inconclusive_hang",
                 {"Verdict: inconclusive. The log stops without an error, so plumb assumed a hang and walked the hang "
                  "symptom ({refuted} causes refuted, {unchecked} not checkable). To decide, capture the waiting ranks' "
                  "stacks (py-spy dump) and NCCL_DEBUG=INFO output while it hangs.",
                  "结论：无法判定。日志在没有错误的情况下停止，plumb 因此假定作业挂起并按挂起症状检查（{refuted} 个原因已排除，"
                  "{unchecked} 个无法检查）。要做出判断，请在挂起时采集等待中各 rank 的调用栈（py-spy dump）与 NCCL_DEBUG=INFO 输出。"}},
                {"no_failure",
                 {"Verdict: no failure. Nothing in the log indicates a failure.", "结论：没有故障。日志中没有任何故障迹象。"}}},
               {"Act on the verdict: fix a confirmed cause, fix the code a code bug points at, or gather the evidence an "
                "inconclusive verdict asks for.",
                "按结论行动：修复已确认的原因，修复代码缺陷所指的代码，或采集无法判定时所需的证据。"},
               "plumb diagnose job.log --format json",
               {},
               {}});
  r.push_back({kAssumedHangId, Layer::L1, Pillar::comm, Section::environment,
               {"probable hang: the log stops after NCCL set-up", "可能挂起：日志在 NCCL 初始化后停止"},
               {{"info",
                 {"{where}: the log ends {tail} line(s) after NCCL set up its channels, with no error and no exit: plumb "
                  "assumes the job hung (in the first collective) and walks the symptom hang.",
                  "{where}：日志在 NCCL 建立通道后 {tail} 行即结束，没有错误也没有退出：plumb 假定作业挂起（在第一个集合通信中），"
                  "并按挂起症状检查。"}}},
               {"If the job did not hang, give the log up to its end; otherwise follow the hang checks below.",
                "如果作业并未挂起，请提供完整日志；否则按下面的挂起检查进行。"},
               "plumb diagnose --symptom hang",
               {},
               {}});
  r.push_back({kCaptureId, Layer::L1, Pillar::platform, Section::environment,
               {"evidence only the running job can give", "只有运行中的作业才能提供的证据"},
               {{"info", {"to capture {what_en}: `{command}`", "采集{what_zh}：`{command}`"}}},
               {},
               "{command}",
               {},
               {}});
  return r;
}


}  // namespace

void rules_diagnose_tables(Tables& t) {
  t.add_findings(rows());
  // The diagnosis produces these findings itself (engine/diagnose.cpp); listed so that they are
  // selectable like every other id, never run by judge().
  for (const auto& s : log_signatures()) t.add_rule({log_finding_id(s.id), {}, {}, "log"});
  for (const auto& s : symptom_funnels()) t.add_rule({symptom_finding_id(s.name), {}, {}, "log"});
  for (const auto& id : {kCauseId, kNoMatchId, kCaptureId, kVerdictId, kAssumedHangId}) t.add_rule({id, {}, {}, "log"});
}

}  // namespace plumb
