// Distributed layer, network: IB/RoCE port health, NCCL_IB_DISABLE / NCCL_IB_HCA /
// NCCL_SOCKET_IFNAME against the devices that exist, and what can be said about a firewall.
#include <algorithm>

#include "collect/network.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "rules/comm_common.h"
#include "core/tables.h"

namespace plumb {

namespace {

std::vector<IbPort> ports_of(const Facts& f) { return f.comm.ib_ports.has() ? *f.comm.ib_ports : std::vector<IbPort>{}; }

std::string port_name(const IbPort& p) { return p.device + ":" + std::to_string(p.port); }

// NCCL's device lists (NCCL_IB_HCA, NCCL_SOCKET_IFNAME): "^" excludes the names, "=" matches them
// exactly instead of as prefixes, then comma-separated names.
struct NameList {
  bool exclude = false;
  bool exact = false;
  std::string_view names;
};

NameList parse_name_list(std::string_view spec) {
  NameList l;
  l.names = trim(spec);
  l.exclude = !l.names.empty() && l.names.front() == '^';
  if (l.exclude) l.names.remove_prefix(1);
  l.exact = !l.names.empty() && l.names.front() == '=';
  if (l.exact) l.names.remove_prefix(1);
  return l;
}

std::vector<Finding> judge_ib_disable(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.ib_disable";
  auto env = job_env(f);
  if (!env) return {skipped(id, env.error().message)};
  auto ports = ports_of(f);
  std::string active, inactive;
  for (const auto& p : ports) {
    std::string s = port_name(p) + " " + p.link_layer + " " + p.state;
    if (ib_port_active(p)) active += (active.empty() ? "" : ", ") + s;
    else inactive += (inactive.empty() ? "" : ", ") + s;
  }
  Finding x;
  x.id = id;
  with_env_cmd(x, f);
  auto it = env->find("NCCL_IB_DISABLE");
  std::string value = it == env->end() ? std::string("unset") : it->second.value;
  x.arg("value", value).arg("active", active.empty() ? "-" : active).arg("inactive", inactive.empty() ? "-" : inactive);
  x.add("NCCL_IB_DISABLE", value, it == env->end() ? env_command(f) : it->second.source);
  x.add("active RDMA ports", active.empty() ? "none" : active, "/sys/class/infiniband");
  if (!inactive.empty()) x.add("inactive RDMA ports", inactive, "/sys/class/infiniband");
  bool disabled = value == "1";
  if (disabled && !active.empty()) {
    x.status = Status::warn;
    x.variant = "disabled_with_ports";
  } else if (!disabled && active.empty()) {
    x.status = Status::info;
    x.variant = ports.empty() ? "no_rdma" : "enabled_not_active";
  } else {
    x.status = Status::pass;
    x.variant = disabled ? "disabled_no_ports" : "pass";
  }
  x.threshold = "NCCL_IB_DISABLE=1 only where no RDMA port is active";
  return {x};
}

// NCCL_IB_HCA: [^][=]hca[:port],... (prefix match unless '=').
std::vector<Finding> judge_ib_hca(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.ib_hca";
  auto start = start_env_var_rule(f, id, "NCCL_IB_HCA");
  if (!start.answer.empty()) return start.answer;
  Finding& x = start.x;
  std::string spec = start.value->value;
  x.arg("value", spec);
  x.add("NCCL_IB_HCA", spec, start.value->source);
  auto ports = ports_of(f);
  std::vector<std::string> devices;
  for (const auto& p : ports) {
    if (std::find(devices.begin(), devices.end(), p.device) == devices.end()) devices.push_back(p.device);
  }
  std::string list;
  for (const auto& d : devices) list += (list.empty() ? "" : " ") + d;
  x.arg("devices", list.empty() ? "none" : list);
  x.add("RDMA devices", list.empty() ? (f.comm.ib_ports.has() ? "none" : f.comm.ib_ports.why()) : list, "/sys/class/infiniband");
  auto [exclude, exact, s] = parse_name_list(spec);
  std::string missing, down, wide;
  for (auto raw : split(s, ',')) {
    auto parts = split(trim(raw), ':');
    if (parts.empty() || parts[0].empty()) continue;
    std::string hca(parts[0]);
    std::vector<std::string> hits;
    for (const auto& d : devices) {
      if (exact ? d == hca : starts_with(d, hca)) hits.push_back(d);
    }
    if (hits.empty()) {
      missing += (missing.empty() ? "" : ", ") + hca;
      continue;
    }
    if (!exact && hits.size() > 1) wide += (wide.empty() ? "" : ", ") + hca + " -> " + std::to_string(hits.size()) + " devices";
    auto port = parts.size() > 1 ? parse_int(parts[1]) : std::nullopt;
    for (const auto& p : ports) {
      if (std::find(hits.begin(), hits.end(), p.device) == hits.end()) continue;
      if (port && p.port != *port) continue;
      if (!ib_port_active(p)) down += (down.empty() ? "" : ", ") + port_name(p) + " " + p.state;
    }
  }
  x.threshold = "every listed HCA exists and has an active port";
  if (exclude) {
    x.status = Status::pass;
    x.variant = "exclude";
  } else if (!missing.empty()) {
    x.status = Status::fail;
    x.variant = "missing";
    x.arg("missing", missing);
  } else if (!down.empty()) {
    x.status = Status::warn;
    x.variant = "down";
    x.arg("down", down);
  } else if (!wide.empty()) {
    x.status = Status::info;
    x.variant = "prefix";
    x.arg("wide", wide);
  } else {
    x.status = Status::pass;
  }
  return {x};
}

// NCCL_SOCKET_IFNAME: [^][=]prefix,... ; the included interfaces must exist and be up.
std::vector<Finding> judge_ifname(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.socket_ifname";
  auto start = start_env_var_rule(f, id, "NCCL_SOCKET_IFNAME");
  if (!start.answer.empty()) return start.answer;
  Finding& x = start.x;
  if (!f.comm.interfaces.has()) return {skipped(id, "network interfaces: " + f.comm.interfaces.why(), "NCCL_SOCKET_IFNAME")};
  const auto& ifaces = *f.comm.interfaces;
  std::string spec = start.value->value;
  x.subject = "NCCL_SOCKET_IFNAME";
  x.arg("value", spec);
  x.add("NCCL_SOCKET_IFNAME", spec, start.value->source);
  std::string all;
  for (const auto& i : ifaces) all += (all.empty() ? "" : " ") + i.name + "(" + i.operstate + ")";
  x.arg("interfaces", all);
  x.add("interfaces", all, "/sys/class/net");
  auto [exclude, exact, s] = parse_name_list(spec);
  std::string missing, down;
  int up = 0;
  for (auto raw : split(s, ',')) {
    std::string name(trim(raw));
    if (name.empty()) continue;
    int hits = 0;
    for (const auto& i : ifaces) {
      if (!(exact ? i.name == name : starts_with(i.name, name))) continue;
      ++hits;
      if (i.operstate == "up" || i.operstate == "unknown") ++up;
      else down += (down.empty() ? "" : ", ") + i.name + " " + i.operstate;
    }
    if (hits == 0) missing += (missing.empty() ? "" : ", ") + name;
  }
  x.threshold = "a listed interface exists and is up";
  if (exclude) {
    x.status = Status::pass;
    x.variant = "exclude";
  } else if (up == 0 && !missing.empty() && down.empty()) {
    x.status = Status::fail;
    x.variant = "missing";
    x.arg("missing", missing);
  } else if (up == 0) {
    x.status = Status::fail;
    x.variant = "down";
    x.arg("down", down.empty() ? missing : down);
  } else if (!missing.empty()) {
    x.status = Status::warn;
    x.variant = "partly_missing";
    x.arg("missing", missing);
  } else {
    x.status = Status::pass;
  }
  return {x};
}

std::vector<Finding> judge_ports(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.ib_ports";
  if (!f.comm.ib_ports.has()) return {skipped(id, "no RDMA device: " + f.comm.ib_ports.why())};
  const auto& ports = *f.comm.ib_ports;
  if (ports.empty()) return {skipped(id, "no RDMA port under /sys/class/infiniband")};
  double best = 0;
  for (const auto& p : ports) {
    if (ib_port_active(p)) best = std::max(best, p.rate_gbps.value_or(0));
  }
  std::vector<Finding> out;
  for (const auto& p : ports) {
    Finding x;
    x.id = id;
    x.subject = port_name(p);
    std::string dir = "/sys/class/infiniband/" + p.device + "/ports/" + std::to_string(p.port);
    x.arg("port", port_name(p)).arg("state", p.state).arg("phys", p.phys_state).arg("rate", p.rate)
        .arg("layer", p.link_layer).arg("best", fmt_num(best, 0));
    x.add("state", p.state, dir + "/state");
    x.add("phys_state", p.phys_state, dir + "/phys_state");
    x.add("rate", p.rate, dir + "/rate");
    x.add("link_layer", p.link_layer, dir + "/link_layer");
    x.threshold = "4: ACTIVE, 5: LinkUp, rate equal to the fastest active port";
    if (!ib_port_active(p)) {
      x.status = Status::warn;
      x.variant = "down";
    } else if (p.rate_gbps && best > 0 && *p.rate_gbps < best) {
      x.status = Status::warn;
      x.variant = "slow";
    } else {
      x.status = Status::pass;
    }
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<Finding> judge_firewall(const Facts& f, const Thresholds&) {
  const std::string id = "l3.comm.firewall";
  const auto& fw = f.comm.firewall;
  if (!fw.modules.has() && fw.configs.empty()) return {skipped(id, "firewall hints: " + fw.modules.why())};
  Finding x;
  x.id = id;
  std::string range = fw.port_range.has() ? *fw.port_range : std::string("?");
  x.arg("range", range);
  if (fw.port_range.has()) x.add("ephemeral ports", range, fw.port_range.source);
  std::string mods;
  if (fw.modules.has()) {
    for (const auto& m : *fw.modules) mods += (mods.empty() ? "" : " ") + m;
    x.add("netfilter modules", mods.empty() ? "none" : mods, fw.modules.source);
  }
  x.arg("modules", mods.empty() ? "none" : mods);
  std::string drops;
  for (const auto& c : fw.configs) {
    x.add(c.tool + " input policy", (c.input_policy.empty() ? "not stated" : c.input_policy) + (c.enabled ? "" : " (disabled)"), c.path);
    if (c.input_policy == "drop" && c.enabled) drops += (drops.empty() ? "" : ", ") + c.tool + " (" + c.path + ")";
  }
  x.arg("drops", drops);
  x.threshold = "no default-deny input policy on the interfaces NCCL uses";
  if (!drops.empty()) {
    x.status = Status::warn;
    x.variant = "drop_policy";
  } else if (!mods.empty()) {
    x.status = Status::info;
    x.variant = "modules";
  } else {
    x.status = Status::pass;
  }
  return {x};
}



}  // namespace
void rules_comm_network_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {"l3.comm.ib_disable", Layer::L3, Pillar::comm, Section::distributed,
     {"NCCL_IB_DISABLE against the RDMA ports", "NCCL_IB_DISABLE 与 RDMA 端口"},
     {{"pass", {"NCCL_IB_DISABLE={value} and active RDMA ports ({active}): NCCL uses InfiniBand/RoCE", "NCCL_IB_DISABLE={value}，且有活动的 RDMA 端口（{active}）：NCCL 使用 InfiniBand/RoCE"}},
      {"disabled_no_ports", {"NCCL_IB_DISABLE=1 and no active RDMA port: sockets are the only transport anyway", "NCCL_IB_DISABLE=1 且没有活动的 RDMA 端口：本来就只能走 socket"}},
      {"disabled_with_ports", {"NCCL_IB_DISABLE=1 although RDMA ports are active ({active}): inter-node traffic falls back to TCP sockets",
                               "RDMA 端口处于活动状态（{active}），却设置了 NCCL_IB_DISABLE=1：节点间流量退回到 TCP socket"}},
      {"enabled_not_active", {"NCCL_IB_DISABLE={value} but no RDMA port is active ({inactive}): NCCL falls back to sockets; typical symptom: all-reduce far slower than expected",
                              "NCCL_IB_DISABLE={value}，但没有活动的 RDMA 端口（{inactive}）：NCCL 退回到 socket；典型症状：AllReduce 远慢于预期"}},
      {"no_rdma", {"no RDMA device on this machine: NCCL uses TCP sockets between nodes", "本机没有 RDMA 设备：节点间 NCCL 使用 TCP socket"}}},
     {"Bring the IB ports up (cabling, subnet manager, `ibstat`) or, on purpose, set NCCL_IB_DISABLE=1 and NCCL_SOCKET_IFNAME to the fast interface; never keep NCCL_IB_DISABLE=1 where IB works",
      "修复 IB 端口（线缆、子网管理器，`ibstat`），或有意设置 NCCL_IB_DISABLE=1 并用 NCCL_SOCKET_IFNAME 指定高速网卡；IB 可用时不要保留 NCCL_IB_DISABLE=1"},
     "ibstat; {env_cmd}",
     {"inter-node all-reduce at RDMA instead of TCP bandwidth", "节点间 all-reduce 从 TCP 带宽恢复到 RDMA 带宽"},
     {"l2.comm.allreduce_slow", "l2.bench.allreduce"}},
    {"l3.comm.ib_hca", Layer::L3, Pillar::comm, Section::distributed,
     {"NCCL_IB_HCA names existing devices", "NCCL_IB_HCA 指向存在的设备"},
     {{"pass", {"NCCL_IB_HCA={value} matches active devices ({devices})", "NCCL_IB_HCA={value} 匹配到活动设备（{devices}）"}},
      {"unset", {"NCCL_IB_HCA is unset: NCCL uses every RDMA device", "NCCL_IB_HCA 未设置：NCCL 使用所有 RDMA 设备"}},
      {"exclude", {"NCCL_IB_HCA={value} only excludes devices", "NCCL_IB_HCA={value} 仅排除设备"}},
      {"missing", {"NCCL_IB_HCA={value} names devices that do not exist here ({missing}); this machine has: {devices}",
                   "NCCL_IB_HCA={value} 指定的设备在本机不存在（{missing}）；本机设备：{devices}"}},
      {"down", {"NCCL_IB_HCA={value} selects ports that are not active: {down}", "NCCL_IB_HCA={value} 选中了非活动端口：{down}"}},
      {"prefix", {"NCCL_IB_HCA={value} is a prefix match and selects more devices than written ({wide}); use '=' for exact names",
                  "NCCL_IB_HCA={value} 按前缀匹配，选中的设备多于所写（{wide}）；精确匹配请加 '='"}}},
     {"List the devices `ibv_devinfo -l` shows, with '=' for exact names (NCCL_IB_HCA==mlx5_0,mlx5_1)",
      "按 `ibv_devinfo -l` 显示的设备填写，精确匹配加 '='（NCCL_IB_HCA==mlx5_0,mlx5_1）"},
     "ibv_devinfo -l; ibstat; {env_cmd}",
     {},
     {"l2.comm.allreduce_slow"}},
    {"l3.comm.socket_ifname", Layer::L3, Pillar::comm, Section::distributed,
     {"NCCL_SOCKET_IFNAME names an interface that is up", "NCCL_SOCKET_IFNAME 指向已启用的网卡"},
     {{"pass", {"NCCL_SOCKET_IFNAME={value} matches an interface that is up", "NCCL_SOCKET_IFNAME={value} 匹配到已启用的网卡"}},
      {"unset", {"NCCL_SOCKET_IFNAME is unset: NCCL picks an interface (skipping lo and docker*)", "NCCL_SOCKET_IFNAME 未设置：NCCL 自动选择网卡（跳过 lo 与 docker*）"}},
      {"exclude", {"NCCL_SOCKET_IFNAME={value} only excludes interfaces", "NCCL_SOCKET_IFNAME={value} 仅排除网卡"}},
      {"missing", {"NCCL_SOCKET_IFNAME={value}: no interface matches {missing} (this machine has {interfaces}); NCCL init fails with no usable interface",
                   "NCCL_SOCKET_IFNAME={value}：没有网卡匹配 {missing}（本机有 {interfaces}）；NCCL 初始化会因找不到可用网卡而失败"}},
      {"down", {"NCCL_SOCKET_IFNAME={value}: the matching interfaces are not up ({down})", "NCCL_SOCKET_IFNAME={value}：匹配的网卡未启用（{down}）"}},
      {"partly_missing", {"NCCL_SOCKET_IFNAME={value}: {missing} matches no interface here (others do)", "NCCL_SOCKET_IFNAME={value}：{missing} 在本机无匹配网卡（其余可匹配）"}}},
     {"Set NCCL_SOCKET_IFNAME to the interface that reaches the other nodes (`ip -br addr`), e.g. =ens1f0 for an exact name",
      "将 NCCL_SOCKET_IFNAME 设为能连通其他节点的网卡（`ip -br addr`），精确匹配写 =ens1f0"},
     "ip -br link; {env_cmd}",
     {},
     {}},
    {"l3.comm.ib_ports", Layer::L3, Pillar::comm, Section::distributed,
     {"InfiniBand / RoCE port state and rate", "InfiniBand / RoCE 端口状态与速率"},
     {{"pass", {"{port} {layer}: {state}, {phys}, {rate}", "{port} {layer}：{state}，{phys}，{rate}"}},
      {"down", {"{port} {layer} is not usable: state {state}, physical state {phys}", "{port} {layer} 不可用：状态 {state}，物理状态 {phys}"}},
      {"slow", {"{port} runs at {rate}, below the fastest active port here ({best} Gb/s): a link trained down (cable, transceiver, switch port)",
                "{port} 速率为 {rate}，低于本机最快的活动端口（{best} Gb/s）：链路降速（线缆、光模块或交换机端口）"}}},
     {"Check cabling and the subnet manager (`ibstat`, `iblinkinfo`); reseat or replace the cable/transceiver of a slow port",
      "检查线缆与子网管理器（`ibstat`、`iblinkinfo`）；对降速端口重新插拔或更换线缆/光模块"},
     "ibstat",
     {},
     {"l2.comm.allreduce_slow"}},
    {"l3.comm.firewall", Layer::L3, Pillar::comm, Section::distributed,
     {"Firewall in front of NCCL's ports", "NCCL 端口前的防火墙"},
     {{"pass", {"no netfilter module loaded and no firewall configuration found", "未加载 netfilter 模块，也未发现防火墙配置"}},
      {"drop_policy", {"{drops} sets a default DROP input policy: NCCL bootstrap and socket connections use ephemeral ports ({range}); multi-node jobs hang unless those ports are open between the nodes (typical symptom: multi-node training hangs)",
                       "{drops} 设置了默认 DROP 入站策略：NCCL 引导与 socket 连接使用临时端口（{range}）；除非节点间放行这些端口，否则多机训练会卡死（典型症状：多机训练卡死）"}},
      {"modules", {"netfilter modules are loaded ({modules}); the rules need root to read, so plumb cannot tell whether NCCL's ports ({range}) are open",
                   "已加载 netfilter 模块（{modules}）；读取规则需要 root，plumb 无法判断 NCCL 端口（{range}）是否放行"}}},
     {"Allow the job's interfaces between nodes, or narrow net.ipv4.ip_local_port_range (e.g. 50000 51000) and open that range plus MASTER_PORT",
      "在节点间放行作业所用网卡，或收窄 net.ipv4.ip_local_port_range（如 50000 51000）并放行该范围与 MASTER_PORT"},
     "sudo nft list ruleset; sudo iptables -S",
     {},
     {}},
};
});
  t.add_rule({"l3.comm.ib_disable", {"collect.nccl_env", "collect.network"}, judge_ib_disable});
  t.add_rule({"l3.comm.ib_hca", {"collect.nccl_env", "collect.network"}, judge_ib_hca});
  t.add_rule({"l3.comm.socket_ifname", {"collect.nccl_env", "collect.network"}, judge_ifname});
  t.add_rule({"l3.comm.ib_ports", {"collect.network"}, judge_ports});
  t.add_rule({"l3.comm.firewall", {"collect.network"}, judge_firewall});
}

}  // namespace plumb
