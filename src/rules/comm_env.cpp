// Distributed layer, environment audit: unknown or misnamed NCCL/torch.distributed variables,
// invalid values, debug settings left in production, P2P/SHM disabled, timeout settings.
#include <algorithm>

#include "analyze/topology.h"
#include "core/catalog.h"
#include "core/knowledge/nccl_vars.h"
#include "core/registry.h"
#include "core/suggest.h"
#include "core/text.h"
#include "rules/comm_common.h"
#include "core/tables.h"

namespace plumb {

namespace {

const std::vector<std::string> kEnvNeeds{"collect.nccl_env"};

std::vector<std::string> known_names() {
  std::vector<std::string> n;
  for (const auto& v : nccl_var_table()) n.emplace_back(v.name);
  return n;
}

std::vector<Finding> judge_unknown(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.nccl_env_unknown";
  auto env = job_env(f);
  if (!env) return {skipped(id, env.error().message)};
  std::vector<Finding> out;
  int audited = 0;
  for (const auto& [name, ev] : *env) {
    if (!is_audited_var(name)) continue;
    ++audited;
    if (find_nccl_var(name) != nullptr || is_plugin_var(name)) continue;
    Finding x;
    x.id = id;
    x.subject = name;
    x.arg("var", name).arg("value", ev.value);
    x.add(name, ev.value, ev.source);
    with_env_cmd(x, f);
    if (const auto* m = find_misnamed_var(name)) {
      x.variant = std::string(m->kind);
      x.arg("replacement", std::string(m->replacement));
      x.status = m->kind == "torch_old" ? Status::info : Status::warn;
    } else {
      x.status = Status::warn;
      std::string hint = closest(name, known_names());
      x.variant = hint.empty() ? "unknown_nohint" : "unknown";
      x.arg("hint", hint);
    }
    x.threshold = "known NCCL / torch.distributed variable";
    out.push_back(std::move(x));
  }
  if (Finding* pass = pass_if_empty(out, id, f)) pass->arg("count", std::to_string(audited));
  return out;
}

std::vector<Finding> judge_values(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.nccl_env_value";
  auto env = job_env(f);
  if (!env) return {skipped(id, env.error().message)};
  std::vector<Finding> out;
  for (const auto& [name, ev] : *env) {
    const NcclVarSpec* spec = find_nccl_var(name);
    if (spec == nullptr) continue;
    ValueVerdict v = check_nccl_value(*spec, ev.value);
    if (v.problem.empty()) continue;
    Finding x;
    x.id = id;
    x.subject = name;
    x.variant = v.problem;
    x.status = v.problem == "legacy_int" ? Status::info : Status::warn;
    // NCCL 2.24+ fails the collective on an unknown algorithm or protocol instead of falling back.
    if ((name == "NCCL_ALGO" || name == "NCCL_PROTO") && v.problem == "not_allowed") x.status = Status::fail;
    x.arg("var", name).arg("value", ev.value).arg("allowed", v.allowed).arg("upper", to_upper(ev.value));
    x.add(name, ev.value, ev.source);
    x.threshold = "one of: " + v.allowed;
    with_env_cmd(x, f);
    out.push_back(std::move(x));
  }
  pass_if_empty(out, id, f);
  return out;
}

std::vector<Finding> judge_debug(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.nccl_debug";
  auto start = start_env_var_rule(f, id, "NCCL_DEBUG");
  if (!start.answer.empty()) return start.answer;
  Finding& x = start.x;
  const EnvValue& v = *start.value;
  std::string up = to_upper(v.value);
  x.arg("value", v.value);
  x.add("NCCL_DEBUG", v.value, v.source);
  x.threshold = "NCCL_DEBUG in {unset, VERSION, WARN} for production";
  x.status = (up == "INFO" || up == "TRACE") ? Status::info : Status::pass;
  return {x};
}

std::vector<Finding> judge_overrides(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.nccl_debug_overrides";
  auto env = job_env(f);
  if (!env) return {skipped(id, env.error().message)};
  Finding x;
  x.id = id;
  with_env_cmd(x, f);
  std::string list;
  for (const auto& [name, ev] : *env) {
    const NcclVarSpec* spec = find_nccl_var(name);
    if (spec == nullptr || !spec->debug_only) continue;
    list += (list.empty() ? "" : ", ") + name + "=" + ev.value;
    x.add(name, ev.value, ev.source);
  }
  x.arg("list", list);
  x.status = list.empty() ? Status::pass : Status::info;
  x.threshold = "no NCCL debugging-group override";
  return {x};
}

std::vector<Finding> judge_p2p(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.p2p_disabled";
  auto env = job_env(f);
  if (!env) return {skipped(id, env.error().message)};
  std::vector<Finding> out;
  for (const char* var : {"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_P2P_LEVEL"}) {
    auto it = env->find(var);
    bool off = it != env->end() && (std::string(var) == "NCCL_P2P_LEVEL" ? it->second.value == "LOC" : it->second.value == "1");
    if (!off) continue;
    if (!f.comm.topology.has()) {
      out.push_back(skipped(id, std::string(var) + " is set but the topology is unknown: " + f.comm.topology.why(), var));
      continue;
    }
    const Topology& t = *f.comm.topology;
    // Where the disabled transport matters: NVLink/NVSwitch, or GPUs that share a PCIe switch.
    std::string path;
    if (t.nvswitch_count > 0 && t.gpus.size() > 1) path = std::to_string(t.nvswitch_count) + " NVSwitch devices";
    for (std::size_t i = 0; i < t.gpus.size() && path.empty(); ++i) {
      for (std::size_t j = i + 1; j < t.gpus.size() && path.empty(); ++j) {
        std::string c = topo_cell(t, i, j);
        if (starts_with(c, "NV") || c == "PIX" || c == "PXB" || (std::string(var) == "NCCL_SHM_DISABLE" && c != "X")) {
          path = t.gpus[i].label + "-" + t.gpus[j].label + ": " + c;
        }
      }
    }
    Finding x;
    x.id = id;
    x.subject = var;
    x.arg("var", var).arg("value", it->second.value).arg("path", path.empty() ? "-" : path);
    x.add(var, it->second.value, it->second.source);
    with_env_cmd(x, f);
    if (!path.empty()) {
      x.add("GPU path", path, t.source);
      x.status = Status::warn;
    } else {
      x.status = Status::pass;
      x.variant = "no_path";
    }
    x.threshold = "P2P/SHM transports enabled where GPUs have NVLink or P2P paths";
    out.push_back(std::move(x));
  }
  pass_if_empty(out, id, f, "enabled");
  return out;
}

std::vector<Finding> judge_timeouts(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.torch_timeouts";
  auto env = job_env(f);
  if (!env) return {skipped(id, env.error().message)};
  std::vector<Finding> out;
  auto get = [&](const char* k) -> const EnvValue* {
    auto it = env->find(k);
    return it == env->end() ? nullptr : &it->second;
  };
  auto add = [&](const char* var, const EnvValue& v, const char* variant, Status s) {
    Finding x;
    x.id = id;
    x.subject = var;
    x.variant = variant;
    x.status = s;
    x.arg("var", var).arg("value", v.value);
    x.add(var, v.value, v.source);
    with_env_cmd(x, f);
    out.push_back(std::move(x));
  };
  for (const char* var : {"NCCL_SOCKET_TIMEOUT", "NCCL_TIMEOUT", "NCCL_TIMEOUT_MINS"}) {
    if (const auto* v = get(var)) add(var, *v, "myth", Status::warn);
  }
  for (const char* var : {"TORCH_NCCL_ASYNC_ERROR_HANDLING", "NCCL_ASYNC_ERROR_HANDLING"}) {
    if (const auto* v = get(var); v != nullptr && v->value == "0") add(var, *v, "no_error_handling", Status::warn);
  }
  for (const char* var : {"TORCH_NCCL_BLOCKING_WAIT", "NCCL_BLOCKING_WAIT"}) {
    if (const auto* v = get(var); v != nullptr && v->value == "1") add(var, *v, "blocking_wait", Status::info);
  }
  if (const auto* v = get("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC")) {
    auto n = parse_int(v->value);
    if (n && *n < 60) add("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", *v, "short_heartbeat", Status::warn);
  }
  if (const auto* v = get("TORCH_NCCL_ENABLE_MONITORING"); v != nullptr && v->value == "0") {
    add("TORCH_NCCL_ENABLE_MONITORING", *v, "no_monitoring", Status::info);
  }
  pass_if_empty(out, id, f);
  return out;
}



}  // namespace
void rules_comm_env_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l3.comm.nccl_env_unknown", Layer::L3, Pillar::comm, Section::distributed,
     {"NCCL / torch.distributed variable names", "NCCL / torch.distributed 环境变量名"},
     {{"pass", {"all {count} NCCL/torch.distributed variables of the job are known names",
                "作业的 {count} 个 NCCL/torch.distributed 变量名均有效"}},
      {"myth", {"{var}={value} is not an NCCL variable (no NCCL release reads it): it does nothing. The torch.distributed timeout is set with {replacement}",
                "{var}={value} 不是 NCCL 变量（任何 NCCL 版本都不读取）：设置无效。torch.distributed 的超时在 {replacement} 中设置"}},
      {"torch_old", {"{var} is PyTorch's pre-2.2 name; torch >= 2.2 reads {replacement} and warns about the old name",
                     "{var} 是 PyTorch 2.2 之前的旧名；torch >= 2.2 读取 {replacement}，旧名会触发弃用警告"}},
      {"renamed", {"{var} is an old name; current releases read {replacement}", "{var} 是旧变量名；当前版本读取 {replacement}"}},
      {"unknown", {"{var}={value} is not a known NCCL or torch.distributed variable (did you mean {hint}?); it has no effect unless a plugin reads it",
                   "{var}={value} 不是已知的 NCCL 或 torch.distributed 变量（是否想写 {hint}？）；除非某个插件读取，否则无效"}},
      {"unknown_nohint", {"{var}={value} is not a known NCCL or torch.distributed variable; it has no effect unless a plugin reads it",
                          "{var}={value} 不是已知的 NCCL 或 torch.distributed 变量；除非某个插件读取，否则无效"}}},
     {"Remove the variable or correct its name; for collective timeouts use init_process_group(timeout=datetime.timedelta(minutes=N)) (default 10 min for NCCL since torch 2.2)",
      "删除该变量或改正名字；集合通信超时请用 init_process_group(timeout=datetime.timedelta(minutes=N)) 设置（torch 2.2 起 NCCL 默认 10 分钟）"},
     "{env_cmd}",
     {},
     {}},
    {"l3.comm.nccl_env_value", Layer::L3, Pillar::comm, Section::distributed,
     {"NCCL variable values", "NCCL 变量取值"},
     {{"pass", {"every NCCL/torch.distributed variable has a valid value", "所有 NCCL/torch.distributed 变量取值有效"}},
      {"not_allowed", {"{var}={value} is not an allowed value ({allowed}); NCCL logs this only at INFO level and uses its default (2.24+: an unknown NCCL_ALGO/NCCL_PROTO token fails the collective)",
                       "{var}={value} 不是允许的取值（{allowed}）；NCCL 只在 INFO 级别记录并使用默认值（2.24 起 NCCL_ALGO/NCCL_PROTO 的未知取值会导致集合通信失败）"}},
      {"case", {"{var}={value}: NCCL compares this value case-sensitively, so '{value}' matches nothing and is silently ignored; write {upper}",
                "{var}={value}：NCCL 区分大小写比较该值，'{value}' 不匹配任何取值而被静默忽略；应写为 {upper}"}},
      {"not_int", {"{var}={value} is not a number (allowed: {allowed}); NCCL ignores it and uses the default",
                   "{var}={value} 不是数字（允许：{allowed}）；NCCL 忽略它并使用默认值"}},
      {"range", {"{var}={value} is outside the allowed range {allowed}", "{var}={value} 超出允许范围 {allowed}"}},
      {"legacy_int", {"{var}={value}: integer levels are discouraged because their meaning shifts between NCCL versions; use one of {allowed}",
                      "{var}={value}：不建议使用整数级别，其含义随 NCCL 版本变化；请使用 {allowed} 之一"}}},
     {"Set {var} to one of: {allowed}", "将 {var} 设为以下之一：{allowed}"},
     "{env_cmd}",
     {},
     {"l2.comm.allreduce_slow"}},
    {"l3.comm.nccl_debug", Layer::L3, Pillar::comm, Section::distributed,
     {"NCCL_DEBUG level", "NCCL_DEBUG 日志级别"},
     {{"pass", {"NCCL_DEBUG={value}", "NCCL_DEBUG={value}"}},
      {"unset", {"NCCL_DEBUG is unset (set NCCL_DEBUG=WARN to see why a failing call failed)",
                 "NCCL_DEBUG 未设置（设 NCCL_DEBUG=WARN 可看到调用失败的原因）"}},
      {"info", {"NCCL_DEBUG={value} is left on: every rank logs initialisation and channel details; meant for debugging, not production runs",
                "NCCL_DEBUG={value} 仍然开启：每个 rank 都会输出初始化与通道细节；适用于调试而非生产运行"}}},
     {"Use NCCL_DEBUG=WARN in production; switch to INFO only while debugging (with NCCL_DEBUG_FILE=/tmp/nccl.%h.%p)",
      "生产环境使用 NCCL_DEBUG=WARN；仅在调试时改为 INFO（配合 NCCL_DEBUG_FILE=/tmp/nccl.%h.%p）"},
     "{env_cmd}",
     {},
     {}},
    {"l3.comm.nccl_debug_overrides", Layer::L3, Pillar::comm, Section::distributed,
     {"NCCL debugging overrides in the job", "作业中的 NCCL 调试类覆盖项"},
     {{"pass", {"no variable of NCCL's debugging group is set", "未设置 NCCL 调试类变量"}},
      {"info", {"debugging-group NCCL variables are set ({list}): NCCL's docs say they should not be set in production because they stop NCCL from picking the best setting",
                "设置了 NCCL 调试类变量（{list}）：NCCL 文档指出生产环境不应设置它们，因为会阻止 NCCL 选择最优配置"}}},
     {"Remove these overrides unless a measured A/B test shows they help on this machine",
      "除非在本机经 A/B 测试证明有益，否则删除这些覆盖项"},
     "{env_cmd}",
     {},
     {"l2.comm.allreduce_slow"}},
    {"l3.comm.p2p_disabled", Layer::L3, Pillar::comm, Section::distributed,
     {"NCCL P2P / SHM transports", "NCCL P2P / SHM 传输"},
     {{"pass", {"{var}={value} is set, but no GPU pair here has an NVLink or PCIe P2P path it would block", "已设置 {var}={value}，但本机没有会受影响的 NVLink 或 PCIe P2P 路径"}},
      {"enabled", {"P2P and SHM transports are not disabled", "P2P 与 SHM 传输未被禁用"}},
      {"no_path", {"{var}={value} is set, but no GPU pair here has an NVLink or PCIe P2P path it would block", "已设置 {var}={value}，但本机没有会受影响的 NVLink 或 PCIe P2P 路径"}},
      {"warn", {"{var}={value} on a machine with direct GPU paths ({path}): intra-node traffic is staged through host memory, a debugging setting that costs bandwidth",
                "在具有 GPU 直连路径（{path}）的机器上设置了 {var}={value}：节点内流量经主机内存中转，这是会损失带宽的调试设置"}}},
     {"Unset {var}; use it only as a short A/B test when debugging P2P problems", "取消 {var}；仅在排查 P2P 问题时作短暂 A/B 测试使用"},
     "nvidia-smi topo -m; {env_cmd}",
     {"intra-node all-reduce back at NVLink/P2P bandwidth", "节点内 all-reduce 恢复到 NVLink/P2P 带宽"},
     {"l2.comm.allreduce_slow", "l2.bench.allreduce"}},
    {"l3.comm.torch_timeouts", Layer::L3, Pillar::comm, Section::distributed,
     {"Worker timeouts and error handling", "Worker 超时与错误处理"},
     {{"pass", {"no timeout-related setting that misbehaves; the collective timeout lives in init_process_group(timeout=) (10 min default for NCCL since torch 2.2)",
                "没有异常的超时相关设置；集合通信超时由 init_process_group(timeout=) 决定（torch 2.2 起 NCCL 默认 10 分钟）"}},
      {"myth", {"{var}={value} does not change any timeout (NCCL has no such variable): workers killed or timing out must be fixed elsewhere — check the kernel log for OOM kills and init_process_group(timeout=)",
                "{var}={value} 不会改变任何超时（NCCL 没有该变量）：Worker 被杀或超时需从别处排查——检查内核日志中的 OOM 记录与 init_process_group(timeout=)"}},
      {"no_error_handling", {"{var}=0: a failed or timed-out collective is not torn down, so ranks hang instead of failing",
                             "{var}=0：失败或超时的集合通信不会被终止，各 rank 会挂起而不是报错退出"}},
      {"blocking_wait", {"{var}=1: wait() blocks the CPU thread and raises on timeout; it costs performance", "{var}=1：wait() 阻塞 CPU 线程并在超时时抛出异常，会损失性能"}},
      {"short_heartbeat", {"{var}={value}: the heartbeat monitor kills the process when the watchdog stalls this long; under 60 s it can kill healthy but busy jobs",
                           "{var}={value}：看门狗停顿超过该时长时心跳监控会杀死进程；低于 60 秒可能误杀繁忙但健康的作业"}},
      {"no_monitoring", {"{var}=0: a stuck watchdog is never detected, hangs last until the job's own timeout",
                         "{var}=0：卡住的看门狗不会被发现，挂起会持续到作业自身超时"}}},
     {"Remove NCCL_SOCKET_TIMEOUT-style variables; set init_process_group(timeout=...) to the longest expected stall; keep TORCH_NCCL_ASYNC_ERROR_HANDLING at its default (3)",
      "删除 NCCL_SOCKET_TIMEOUT 之类的无效变量；将 init_process_group(timeout=...) 设为最长预期停顿；TORCH_NCCL_ASYNC_ERROR_HANDLING 保持默认值 (3)"},
     "dmesg | grep -i 'killed process'; {env_cmd}",
     {},
     {}},
};
});
  t.add_rule({"l3.comm.nccl_env_unknown", kEnvNeeds, judge_unknown});
  t.add_rule({"l3.comm.nccl_env_value", kEnvNeeds, judge_values});
  t.add_rule({"l3.comm.nccl_debug", kEnvNeeds, judge_debug});
  t.add_rule({"l3.comm.nccl_debug_overrides", kEnvNeeds, judge_overrides});
  t.add_rule({"l3.comm.p2p_disabled", {"collect.nccl_env", "collect.topology"}, judge_p2p});
  t.add_rule({"l3.comm.torch_timeouts", kEnvNeeds, judge_timeouts});
}

}  // namespace plumb
