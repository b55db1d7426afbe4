// Slurm HealthCheckProgram mode of `plumb check --slurm` (see slurm_health.h).
#include "engine/slurm_health.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>

#include "engine/node_health.h"
#include "core/subprocess.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {


bool executable(const std::string& path) { return path.size() > 1 && path.front() == '/' && ::access(path.c_str(), X_OK) == 0; }

bool needs_quotes(std::string_view w) {
  if (w.empty()) return true;
  return std::any_of(w.begin(), w.end(), [](char c) {
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 std::string_view("_/.:=,@+-%").find(c) != std::string_view::npos;
    return !plain;
  });
}

std::string quote(std::string_view w) {
  if (!needs_quotes(w)) return std::string(w);
  std::string q = "'";
  for (char c : w) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

RunOptions scontrol_options(const std::string& slurm_conf, std::chrono::milliseconds timeout) {
  RunOptions o;
  o.timeout = std::max(timeout, std::chrono::milliseconds(100));
  o.max_output = 1u << 20;
  // slurmd hands a health check almost no environment; plumb sets what scontrol reads itself.
  o.env = std::map<std::string, std::string>{
      {"SLURM_CONF", slurm_conf}, {"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"}, {"LC_ALL", "C"}};
  return o;
}

// The scontrol error as one line: its stderr, else stdout, else the exit status.
std::string scontrol_error(const Result<RunOutput>& r) {
  if (!r) return one_line(r.error().describe());
  std::string line = first_line(r->err.empty() ? r->out : r->err);
  if (line.empty()) line = r->signal != 0 ? "killed by signal " + std::to_string(r->signal) : "exit status " + std::to_string(r->exit_code);
  return one_line(line);
}

}  // namespace

const std::vector<std::string>& scontrol_locations() {
  static const std::vector<std::string> paths{"/usr/bin/scontrol", "/usr/local/bin/scontrol", "/opt/slurm/bin/scontrol",
                                              "/usr/local/slurm/bin/scontrol"};
  return paths;
}

Result<std::string> find_scontrol(const std::string& flag) {
  if (!flag.empty()) {
    if (flag.front() != '/') return make_error(ErrorKind::invalid, "--scontrol " + flag + ": give an absolute path");
    if (!executable(flag)) return make_error(ErrorKind::absent, "--scontrol " + flag + ": not an executable file");
    return flag;
  }
  for (const auto& p : scontrol_locations()) {
    if (executable(p)) return p;
  }
  std::string tried;
  for (const auto& p : scontrol_locations()) tried += (tried.empty() ? "" : ", ") + p;
  return make_error(ErrorKind::absent, "scontrol not found (looked at " + tried + "; use --scontrol PATH)");
}

Result<std::string> slurm_node_name(const std::string& flag) {
  std::string name = flag;
  if (name.empty()) {
    const char* env = std::getenv("SLURMD_NODENAME");  // NOLINT(concurrency-mt-unsafe): read before any thread starts
    if (env != nullptr) name = env;
  }
  if (name.empty()) {
    std::array<char, 256> buf{};
    if (::gethostname(buf.data(), buf.size() - 1) != 0) return make_error(ErrorKind::io, "cannot read the host name (use --node NAME)");
    name = buf.data();
    name = name.substr(0, name.find('.'));
  }
  bool bad = name.empty() || std::any_of(name.begin(), name.end(), [](char c) {
               return static_cast<unsigned char>(c) <= ' ' || c == '=' || c == '\'' || c == '"' || c == 0x7f;
             });
  if (bad) return make_error(ErrorKind::invalid, "node name '" + one_line(name) + "' is not a Slurm node name (use --node NAME)");
  return name;
}

std::string drain_reason(const std::vector<Finding>& findings) {
  auto fails = failing(findings);
  if (fails.empty()) return {};
  std::string more = fails.size() > 1 ? " (+" + std::to_string(fails.size() - 1) + " more)" : "";
  std::string head = std::string(kPlumbReasonPrefix) + " " + finding_summary(*fails.front());
  // The count of further failures survives the cut: it says the node has more than one problem.
  if (head.size() + more.size() > kMaxDrainReason) head = cut_utf8(head, kMaxDrainReason - more.size());
  return head + more;
}

bool owned_by_plumb(const SlurmNode& node) { return starts_with(node.reason, kPlumbReasonPrefix); }

const char* slurm_action_name(SlurmAction a) {
  switch (a) {
    case SlurmAction::none: return "none";
    case SlurmAction::drain: return "drain";
    case SlurmAction::reason: return "reason";
    case SlurmAction::resume: return "resume";
    case SlurmAction::left_alone: return "left_alone";
  }
  return "none";
}

SlurmDecision decide_slurm_action(const SlurmNode& node, const std::string& wanted) {
  SlurmDecision d;
  if (!node.unavailable()) {
    // In service: a failure drains it; a stale reason on a node in service belongs to nobody.
    if (!wanted.empty()) d = {SlurmAction::drain, wanted};
    return d;
  }
  if (!owned_by_plumb(node)) {
    d.action = SlurmAction::left_alone;
    return d;
  }
  if (wanted.empty()) {
    d.action = SlurmAction::resume;
  } else if (one_line(node.reason) != wanted) {
    d = {SlurmAction::reason, wanted};
  }
  return d;
}

std::vector<std::string> scontrol_show_argv(const ScontrolSetup& s) { return {s.scontrol, "-o", "show", "node", s.node}; }

std::vector<std::string> scontrol_update_argv(const ScontrolSetup& s, const SlurmDecision& d) {
  switch (d.action) {
    case SlurmAction::drain:
    case SlurmAction::reason:
      return {s.scontrol, "update", "NodeName=" + s.node, "State=DRAIN", "Reason=" + d.reason};
    case SlurmAction::resume:
      return {s.scontrol, "update", "NodeName=" + s.node, "State=RESUME"};
    case SlurmAction::none:
    case SlurmAction::left_alone:
      break;
  }
  return {};
}

std::string shell_command(const std::vector<std::string>& argv, const std::string& slurm_conf) {
  std::string cmd = "SLURM_CONF=" + quote(slurm_conf);
  for (const auto& w : argv) cmd += " " + quote(w);
  return cmd;
}

SlurmRun run_slurm_health(const std::vector<Finding>& findings, const ScontrolSetup& s, bool dry_run,
                          std::chrono::milliseconds budget, Lang lang) {
  SlurmRun run;
  std::string wanted = drain_reason(findings);
  std::map<std::string, std::string> args{{"node", s.node}};
  auto say = [&](const std::string& key) { run.lines.push_back(fill(tr(lang, key), args)); };

  auto half = budget / 2;
  auto shown = run_program(scontrol_show_argv(s), scontrol_options(s.slurm_conf, half));
  SlurmNode node;
  node.name = s.node;
  bool known = false;
  if (shown && !shown->timed_out && shown->exit_code == 0) {
    auto parsed = parse_scontrol_node(shown->out, s.node);
    if (parsed) {
      node = std::move(parsed.value());
      known = true;
    } else {
      args["error"] = one_line(parsed.error().message);
    }
  } else {
    args["error"] = scontrol_error(shown);
  }
  if (!known) {
    if (!dry_run) {
      args["step"] = tr(lang, "slurm.step.show");
      say("slurm.failed");
      run.exit_code = 2;
      return run;
    }
    say("slurm.no_state");
  }

  run.decision = decide_slurm_action(node, wanted);
  // No failure, but a collector timed out: the checks that read it could not look, so a node
  // plumb drained stays drained (and one in service stays in service) until a complete run.
  auto late = std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.args.count("timed_out") > 0; });
  const bool incomplete = wanted.empty() && late != findings.end();
  if (incomplete && run.decision.action == SlurmAction::resume) run.decision = SlurmDecision{};
  if (incomplete) args["collector"] = late->args.at("timed_out");
  args["reason"] = run.decision.reason;
  args["old"] = node.reason;
  args["state"] = node.state.empty() ? std::string("?") : node.state;
  auto argv = scontrol_update_argv(s, run.decision);
  const char* key = "slurm.none_ok";
  switch (run.decision.action) {
    case SlurmAction::none: key = incomplete ? "slurm.incomplete" : wanted.empty() ? "slurm.none_ok" : "slurm.none_same"; break;
    case SlurmAction::left_alone: key = "slurm.left_alone"; break;
    case SlurmAction::drain: key = "slurm.drain"; break;
    case SlurmAction::reason: key = "slurm.reason"; break;
    case SlurmAction::resume: key = "slurm.resume"; break;
  }
  run.exit_code = incomplete ? 2 : wanted.empty() ? 0 : 1;
  if (!argv.empty() && dry_run) {
    args["command"] = shell_command(argv, s.slurm_conf);
    say("slurm.would_run");
    return run;
  }
  if (!argv.empty()) {
    auto updated = run_program(argv, scontrol_options(s.slurm_conf, half));
    if (!updated || updated->timed_out || updated->exit_code != 0) {
      args["step"] = tr(lang, "slurm.step.update");
      args["error"] = scontrol_error(updated);
      say("slurm.failed");
      run.exit_code = 2;
      return run;
    }
  }
  say(key);
  return run;
}

void engine_slurm_health_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"slurm.drain", {"drained {node}: {reason}", "已将 {node} 置为 DRAIN：{reason}"}},
    {"slurm.reason", {"{node} stays drained by plumb, for a new reason: {reason}", "{node} 仍由 plumb 置为 DRAIN，原因更新为：{reason}"}},
    {"slurm.incomplete", {"{node} left as it is ({state}): {collector} timed out, so the check is incomplete; nothing is resumed or drained on an incomplete check",
                          "{node} 保持原状（{state}）：{collector} 超时，检查不完整；不完整的检查不会恢复或下线节点"}},
    {"slurm.resume", {"resumed {node} (drained by plumb before: {old})", "已恢复 {node}（此前由 plumb 置为 DRAIN：{old}）"}},
    {"slurm.none_ok", {"{node} is healthy and in service ({state})", "{node} 健康且在服务中（{state}）"}},
    {"slurm.none_same", {"{node} stays drained by plumb: {reason}", "{node} 保持由 plumb 置为 DRAIN：{reason}"}},
    {"slurm.left_alone", {"{node} left alone: {state} for a reason plumb did not set ({old})",
                          "未改动 {node}：其状态 {state} 的原因不是 plumb 设置的（{old}）"}},
    {"slurm.would_run", {"dry run, would run: {command}", "演练模式，将会执行：{command}"}},
    {"slurm.no_state", {"dry run: could not read the state of {node} ({error}); assuming it is in service",
                        "演练模式：无法读取 {node} 的状态（{error}），按在服务中处理"}},
    {"slurm.failed", {"could not {step} node {node}: {error}", "无法{step}节点 {node}：{error}"}},
    {"slurm.step.show", {"read the state of", "读取状态："}},
    {"slurm.step.update", {"update", "更新"}},
};
});
}

}  // namespace plumb
