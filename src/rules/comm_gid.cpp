// Distributed layer: NCCL_IB_GID_INDEX against each RDMA port's GID table. On RoCE the index picks
// the address and the RoCE version NCCL's queue pairs use; an empty entry, or RoCE v1 where the
// fabric is built for v2, ends in "Got completion with error 12, vendor err 129" or a hang at the
// first collective (NCCL environment variables: NCCL_IB_GID_INDEX, NCCL_IB_ROCE_VERSION_NUM).
#include "collect/ib_gids.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/text.h"
#include "rules/comm_common.h"
#include "core/tables.h"

namespace plumb {

namespace {

constexpr const char* kCommGidId = "l3.comm.ib_gid_index";
constexpr const char* kVar = "NCCL_IB_GID_INDEX";

std::string describe(const GidEntry& e) {
  std::string ip = gid_ipv4(e.gid);
  return "index " + std::to_string(e.index) + " " + (e.type.empty() ? "?" : e.type) + " " + (ip.empty() ? e.gid : ip) +
         (e.ndev.empty() ? "" : " on " + e.ndev);
}

// The RoCE v2 entry NCCL should use: IPv4-mapped first (NCCL_IB_ADDR_FAMILY defaults to AF_INET).
const GidEntry* best_v2(const GidPort& p) {
  const GidEntry* any = nullptr;
  for (const auto& e : p.gids) {
    if (e.type != "RoCE v2") continue;
    if (!gid_ipv4(e.gid).empty()) return &e;
    if (any == nullptr) any = &e;
  }
  return any;
}

std::vector<Finding> judge_gid(const Facts& f, const Thresholds& /*th*/) {
  const auto& ports = f.sysconfig.gid_ports;
  if (!ports.has()) return {skipped(kCommGidId, "no RDMA device: " + ports.why())};
  auto env = job_env(f);
  std::optional<EnvValue> set;
  if (env) {
    auto it = env->find(kVar);
    if (it != env->end()) set = it->second;
  }
  std::optional<long long> index;
  if (set) {
    auto n = parse_int(set->value);
    if (!n) return {skipped(kCommGidId, std::string(kVar) + "=" + set->value + " is not an integer (see l3.comm.nccl_env_value)")};
    if (*n >= 0) index = *n;
  }
  std::vector<Finding> out;
  for (const auto& p : *ports) {
    if (p.table_size == 0) continue;
    Finding x;
    x.id = kCommGidId;
    x.subject = p.device + ":" + std::to_string(p.port);
    std::string dir = "/sys/class/infiniband/" + p.device + "/ports/" + std::to_string(p.port);
    x.add("link layer", p.link_layer.empty() ? "?" : p.link_layer, dir + "/link_layer");
    std::string table;
    for (const auto& e : p.gids) table += (table.empty() ? "" : "; ") + describe(e);
    x.add("GID table (" + std::to_string(p.table_size) + " entries)", table.empty() ? "all empty" : table, dir + "/gids");
    if (set) x.add(kVar, set->value, set->source);
    const GidEntry* v2 = best_v2(p);
    x.arg("port", x.subject).arg("v2", v2 != nullptr ? describe(*v2) : "none");
    x.arg("v2_index", v2 != nullptr ? std::to_string(v2->index) : "?");
    x.threshold = "the selected index holds a RoCE v2 GID (RoCE ports) or any GID (InfiniBand)";
    bool roce = p.link_layer == "Ethernet";
    if (index) {
      x.arg("index", std::to_string(*index));
      const GidEntry* sel = nullptr;
      for (const auto& e : p.gids) {
        if (e.index == *index) sel = &e;
      }
      if (sel == nullptr) {
        x.status = Status::fail;
        x.variant = "empty";
        x.arg("size", std::to_string(p.table_size));
      } else if (roce && sel->type == "IB/RoCE v1" && v2 != nullptr) {
        x.status = Status::warn;
        x.variant = "v1";
        x.arg("selected", describe(*sel));
      } else {
        x.status = Status::pass;
        x.arg("selected", describe(*sel));
      }
    } else if (!roce) {
      x.status = Status::pass;
      x.variant = "unset_ib";
    } else if (v2 != nullptr) {
      x.status = Status::info;
      x.variant = "unset_roce";
    } else {
      x.status = Status::warn;
      x.variant = "no_v2";
    }
    out.push_back(std::move(x));
  }
  if (out.empty()) return {skipped(kCommGidId, "no RDMA port exposes a GID table under /sys/class/infiniband/*/ports/*/gids")};
  return out;
}



}  // namespace
void rules_comm_gid_tables(Tables& t) {
  t.add_findings([] {
  return std::vector<CatalogEntry>{{
    kCommGidId, Layer::L3, Pillar::comm, Section::distributed,
    {"NCCL_IB_GID_INDEX against the port's GID table", "NCCL_IB_GID_INDEX 与端口 GID 表"},
    {
        {"pass", {"{port}: NCCL_IB_GID_INDEX={index} selects {selected}", "{port}：NCCL_IB_GID_INDEX={index} 选中 {selected}"}},
        {"empty", {"{port}: NCCL_IB_GID_INDEX={index} selects an empty GID entry (table of {size}; RoCE v2: {v2}): queue "
                   "pairs cannot be set up ('Got completion with error 12, vendor err 129', or a hang at the first collective)",
                   "{port}：NCCL_IB_GID_INDEX={index} 指向空的 GID 条目（表大小 {size}；RoCE v2：{v2}）：无法建立队列对"
                   "（'Got completion with error 12, vendor err 129'，或在首个集合通信处挂起）"}},
        {"v1", {"{port}: NCCL_IB_GID_INDEX={index} selects {selected}, RoCE v1, while the port has RoCE v2 ({v2}): v1 is "
                "not routed across IP subnets and is not what lossless-RoCE switch settings expect; nodes using different "
                "versions cannot connect",
                "{port}：NCCL_IB_GID_INDEX={index} 选中 {selected}（RoCE v1），而端口具备 RoCE v2（{v2}）：v1 不能跨 IP 子网路由，"
                "也不符合无损 RoCE 交换机配置；使用不同版本的节点之间无法建立连接"}},
        {"unset_ib", {"{port}: InfiniBand port, NCCL_IB_GID_INDEX unset (index 0, the port GID, is right)",
                      "{port}：InfiniBand 端口，NCCL_IB_GID_INDEX 未设置（使用索引 0 即端口 GID，正确）"}},
        {"unset_roce", {"{port}: NCCL_IB_GID_INDEX is unset on a RoCE port; NCCL 2.21+ picks a RoCE v2 GID itself, older "
                        "NCCL uses index 0; the RoCE v2 entry is {v2}",
                        "{port}：RoCE 端口未设置 NCCL_IB_GID_INDEX；NCCL 2.21 及以上会自动选择 RoCE v2 GID，更早版本使用索引 0；"
                        "RoCE v2 条目为 {v2}"}},
        {"no_v2", {"{port}: RoCE port without any RoCE v2 GID (the network interface has no IP address?): NCCL has no "
                   "routable GID to use",
                   "{port}：RoCE 端口没有任何 RoCE v2 GID（网卡未配置 IP 地址？）：NCCL 没有可路由的 GID 可用"}},
    },
    {"Set NCCL_IB_GID_INDEX={v2_index} (the RoCE v2 IPv4 entry, `show_gids`) identically on every node, or unset it "
     "with NCCL 2.21+ and let NCCL choose (NCCL_IB_ROCE_VERSION_NUM=2, NCCL_IB_ADDR_FAMILY=AF_INET); give the RoCE "
     "interface its IP address first",
     "在每个节点上统一设置 NCCL_IB_GID_INDEX={v2_index}（RoCE v2 的 IPv4 条目，见 `show_gids`），或在 NCCL 2.21+ 中取消设置，"
     "由 NCCL 自动选择（NCCL_IB_ROCE_VERSION_NUM=2、NCCL_IB_ADDR_FAMILY=AF_INET）；先为 RoCE 网卡配置 IP 地址"},
    "show_gids; grep -H . /sys/class/infiniband/*/ports/*/gid_attrs/types/* 2>/dev/null",
    {"NCCL connects over RDMA at the first collective instead of failing or hanging",
     "NCCL 在首个集合通信时即可通过 RDMA 建立连接，不再报错或挂起"},
    {"l2.comm.allreduce_slow", "l2.comm.nccl_tests_errors"},
}};
});
  t.add_rule({kCommGidId, {"collect.ib_gids", "collect.nccl_env"}, judge_gid});
}

}  // namespace plumb
