// Distributed layer: the host name must not resolve to a loopback address. Gloo and
// torch.distributed's TCPStore look the name up and advertise what it resolves to; with Debian's
// and Ubuntu's "127.0.1.1 <hostname>" line the other ranks connect to their own loopback.
#include <algorithm>
#include <cctype>

#include "collect/name_resolution.h"
#include "collect/network.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kCommHostnameId = "l3.comm.hostname_loopback";

std::string entry_text(const HostsEntry& e) {
  std::string s = e.address;
  for (const auto& n : e.names) s += " " + n;
  return s;
}

// What says this machine runs jobs that span nodes: the job's launcher variables, or an active
// RDMA port. Empty when nothing does (a workstation, a single-node box).
std::string multi_node_evidence(const Facts& f) {
  const auto& env = f.host.process.environ;
  if (env.has()) {
    for (const char* k : {"SLURM_JOB_NUM_NODES", "SLURM_NNODES", "PET_NNODES", "NNODES", "OMPI_MCA_orte_num_nodes"}) {
      auto it = env->find(k);
      if (it == env->end()) continue;
      auto n = parse_int(split(it->second, ':').back());  // torchrun's NNODES may be "MIN:MAX"
      if (n && *n > 1) return std::string(k) + "=" + it->second;
    }
    auto world = env->find("WORLD_SIZE");
    auto local = env->find("LOCAL_WORLD_SIZE");
    if (world != env->end() && local != env->end()) {
      auto w = parse_int(world->second);
      auto l = parse_int(local->second);
      if (w && l && *w > *l) return "WORLD_SIZE=" + world->second + " > LOCAL_WORLD_SIZE=" + local->second;
    }
  }
  if (f.comm.ib_ports.has()) {
    for (const auto& p : *f.comm.ib_ports) {
      if (ib_port_active(p)) return "active RDMA port " + p.device + ":" + std::to_string(p.port);
    }
  }
  return {};
}

std::vector<Finding> judge_hostname(const Facts& f, const Thresholds& /*th*/) {
  const auto& n = f.sysconfig.names;
  if (!n.hostname.has()) return {skipped(kCommHostnameId, "host name unknown: " + n.hostname.why())};
  if (!n.hosts.has()) return {skipped(kCommHostnameId, "/etc/hosts unreadable: " + n.hosts.why())};
  const std::string& host = *n.hostname;
  Finding out;
  out.id = kCommHostnameId;
  out.arg("host", host);
  out.add("host name", host, n.hostname.source);
  if (n.nsswitch_hosts.has()) out.add("nsswitch hosts", *n.nsswitch_hosts, n.nsswitch_hosts.source);
  out.threshold = "the host name resolves to a non-loopback address";
  std::string lowered = host;
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string multi = multi_node_evidence(f);
  if (!multi.empty()) out.add("multi-node", multi, f.host.process.environ.has() ? f.host.process.environ.source : "/sys/class/infiniband");
  if (lowered == "localhost" || starts_with(lowered, "localhost.")) {
    out.status = multi.empty() ? Status::warn : Status::fail;
    out.variant = "localhost";
    return {out};
  }
  auto matches = hosts_entries_for(*n.hosts, host);
  for (const auto& e : matches) out.add("/etc/hosts line " + std::to_string(e.line), entry_text(e), n.hosts.source);
  if (matches.empty()) {
    out.status = Status::pass;
    out.variant = "not_listed";
    out.arg("nss", n.nsswitch_hosts.has() ? *n.nsswitch_hosts : std::string("files dns"));
    return {out};
  }
  auto loop = std::find_if(matches.begin(), matches.end(), [](const HostsEntry& e) { return is_loopback_address(e.address); });
  if (loop == matches.end()) {
    out.status = Status::pass;
    out.arg("address", matches.front().address).arg("line", std::to_string(matches.front().line));
    return {out};
  }
  out.arg("address", loop->address).arg("line", std::to_string(loop->line));
  if (loop == matches.begin()) {
    // Harmless while every rank runs on this node (torchrun's default rendezvous is local).
    out.status = multi.empty() ? Status::warn : Status::fail;
    if (multi.empty()) out.variant = "single_node";
    return {out};
  }
  out.status = Status::warn;
  out.variant = "loopback_later";
  out.arg("first", matches.front().address);
  return {out};
}



}  // namespace
void rules_comm_hostname_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{{
    kCommHostnameId, Layer::L3, Pillar::comm, Section::distributed,
    {"Host name resolves to a routable address", "主机名解析到可路由地址"},
    {
        {"pass", {"{host} resolves to {address} (/etc/hosts line {line})", "{host} 解析为 {address}（/etc/hosts 第 {line} 行）"}},
        {"not_listed", {"{host} is not in /etc/hosts; it resolves through the other sources ({nss})",
                        "{host} 不在 /etc/hosts 中；由其他来源解析（{nss}）"}},
        {"fail", {"{host} resolves to the loopback address {address} (/etc/hosts line {line}): Gloo and torch.distributed "
                  "advertise that address, so the other nodes connect to their own loopback ('Connection refused', "
                  "bootstrap hangs until the timeout)",
                  "{host} 解析为回环地址 {address}（/etc/hosts 第 {line} 行）：Gloo 与 torch.distributed 会对外公布该地址，"
                  "其他节点因此连到各自的回环地址（'Connection refused'，初始化一直挂起直到超时）"}},
        {"single_node", {"{host} resolves to the loopback address {address} (/etc/hosts line {line}): fine while jobs stay on "
                         "this node, but a multi-node job's Gloo/torch.distributed bootstrap would advertise it and the other "
                         "nodes would connect to their own loopback",
                         "{host} 解析为回环地址 {address}（/etc/hosts 第 {line} 行）：作业只在本节点运行时无碍，但多节点作业的 "
                         "Gloo/torch.distributed 初始化会对外公布该地址，其他节点会连到各自的回环地址"}},
        {"loopback_later", {"{host} resolves to {first} first, but /etc/hosts line {line} also maps it to the loopback "
                            "address {address}: resolvers that return every address may pick the loopback one",
                            "{host} 首先解析为 {first}，但 /etc/hosts 第 {line} 行又把它映射到回环地址 {address}："
                            "返回全部地址的解析器可能选中回环地址"}},
        {"localhost", {"the host name is {host}: every node has the same name and it resolves to loopback, so "
                       "distributed bootstrap cannot reach this node by name",
                       "主机名为 {host}：每个节点都同名且解析为回环地址，分布式初始化无法按名字连到本节点"}},
    },
    {"Map the host name to the node's cluster address in /etc/hosts (replace the line that maps it to a "
     "loopback address, such as Debian's '127.0.1.1 {host}', with '<cluster IP> {host}'), or give it a unique "
     "name that DNS resolves; also set MASTER_ADDR to that address and GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME "
     "to the cluster interface",
     "在 /etc/hosts 中把主机名映射到节点的集群地址（把将它映射到回环地址的那一行，例如 Debian 的 "
     "'127.0.1.1 {host}'，改为 '<集群 IP> {host}'），或设置一个"
     "DNS 可解析的唯一主机名；同时把 MASTER_ADDR 设为该地址，并用 GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME 指定集群网卡"},
    "getent ahosts \"$(hostname)\"",
    {"multi-node jobs get past rendezvous instead of hanging until the timeout", "多节点作业能通过 rendezvous，不再挂起到超时"},
    {},
}};
});
  t.add_rule({kCommHostnameId, {"collect.names", "collect.process", "collect.network"}, judge_hostname});
}

}  // namespace plumb
