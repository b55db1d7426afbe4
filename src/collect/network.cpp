// Network collector: InfiniBand/RoCE port state, rate and link layer; Ethernet operstate, speed
// and MTU; firewall hints readable without privileges (never runs nft or iptables).
#include "collect/network.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "collect/pci.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {
// Last path component of a sysfs "device" link that is a PCI bus id.
std::string bus_id_of_link(const HostRoot& root, const std::string& link) {
  auto target = root.read_link(link);
  if (!target) return {};
  auto parts = split(*target, '/');
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (is_pci_bus_id(*it)) return std::string(*it);
  }
  return {};
}
}  // namespace

std::optional<double> parse_ib_rate(std::string_view text) {
  text = trim(text);
  std::size_t n = 0;
  while (n < text.size() && (std::isdigit(static_cast<unsigned char>(text[n])) != 0 || text[n] == '.')) ++n;
  auto v = parse_double(text.substr(0, n));
  if (!v || *v < 0) return std::nullopt;
  return *v;
}

bool ib_port_active(const IbPort& p) {
  bool state = starts_with(p.state, "4") || to_lower(p.state).find("active") != std::string::npos;
  bool phys = p.phys_state.empty() || starts_with(p.phys_state, "5") || to_lower(p.phys_state).find("linkup") != std::string::npos;
  return state && phys && !starts_with(p.state, "5");  // 5: ACTIVE_DEFER is not usable yet
}

std::vector<std::string> parse_netfilter_modules(std::string_view proc_modules) {
  static const std::set<std::string> kNames{"nf_tables", "ip_tables", "ip6_tables", "iptable_filter", "ip6table_filter",
                                            "nft_reject", "nft_reject_inet", "ipt_REJECT", "nft_chain_nat", "x_tables"};
  std::vector<std::string> out;
  for (auto line : split_lines(proc_modules)) {
    auto toks = split_ws(line);
    if (toks.empty()) continue;
    std::string name(toks[0]);
    if (kNames.count(name) && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  return out;
}

std::string parse_nft_input_policy(std::string_view text) {
  // Walk chain blocks: a chain with "hook input" and "policy X;" decides.
  std::string t = to_lower(text);
  std::size_t pos = 0;
  std::string result;
  while ((pos = t.find("hook input", pos)) != std::string::npos) {
    auto end = t.find('}', pos);
    std::string_view block = std::string_view(t).substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    auto p = block.find("policy");
    if (p != std::string_view::npos) {
      auto toks = split_ws(block.substr(p + 6, 16));
      if (!toks.empty()) {
        std::string v(trim(toks[0]));
        while (!v.empty() && (v.back() == ';' || v.back() == ',')) v.pop_back();
        if (v == "drop" || v == "accept") {
          if (v == "drop" || result.empty()) result = v;
        }
      }
    }
    pos += 10;
  }
  return result;
}

std::string parse_iptables_input_policy(std::string_view text) {
  for (auto line : split_lines(text)) {
    auto toks = split_ws(line);
    if (toks.size() >= 2 && toks[0] == ":INPUT") return to_lower(toks[1]);
    if (toks.size() >= 3 && toks[0] == "-P" && toks[1] == "INPUT") return to_lower(toks[2]);
  }
  return {};
}

std::string parse_ufw_input_policy(std::string_view text) {
  for (auto line : split_lines(text)) {
    auto l = trim(line);
    if (!starts_with(l, "DEFAULT_INPUT_POLICY=")) continue;
    std::string v = to_lower(l.substr(21));
    v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
    return v == "reject" ? "drop" : v;
  }
  return {};
}

Result<std::vector<IbPort>> read_ib_ports(const HostRoot& root) {
  const std::string base = "/sys/class/infiniband";
  auto devs = root.list(base);
  if (!devs) return devs.error();
  std::vector<IbPort> out;
  for (const auto& d : *devs) {
    std::string bus = bus_id_of_link(root, concat(base, "/", d, "/device"));
    auto ports = root.list(concat(base, "/", d, "/ports"));
    if (!ports) continue;
    for (const auto& p : *ports) {
      auto num = parse_int(p);
      if (!num) continue;
      std::string dir = concat(base, "/", d, "/ports/", p);
      IbPort ip;
      ip.device = d;
      ip.port = static_cast<int>(*num);
      ip.state = root.read_value(dir + "/state").value_or("");
      ip.phys_state = root.read_value(dir + "/phys_state").value_or("");
      ip.rate = root.read_value(dir + "/rate").value_or("");
      ip.rate_gbps = parse_ib_rate(ip.rate);
      ip.link_layer = root.read_value(dir + "/link_layer").value_or("");
      ip.bus_id = bus;
      out.push_back(std::move(ip));
    }
  }
  return out;
}

Result<std::vector<NetIface>> read_interfaces(const HostRoot& root) {
  const std::string base = "/sys/class/net";
  auto names = root.list(base);
  if (!names) return names.error();
  std::vector<NetIface> out;
  for (const auto& n : *names) {
    std::string dir = concat(base, "/", n);
    NetIface i;
    i.name = n;
    i.operstate = root.read_value(dir + "/operstate").value_or("");
    // speed reads fail with EINVAL on a down link; -1 means unknown.
    if (auto s = root.read_value(dir + "/speed")) {
      auto v = parse_int(*s);
      if (v && *v > 0 && *v < 10000000) i.speed_mbps = static_cast<int>(*v);
    }
    if (auto m = root.read_value(dir + "/mtu")) {
      auto v = parse_int(*m);
      if (v && *v > 0 && *v < 1000000) i.mtu = static_cast<int>(*v);
    }
    i.bus_id = bus_id_of_link(root, dir + "/device");
    out.push_back(std::move(i));
  }
  return out;
}

FirewallFacts read_firewall(const HostRoot& root) {
  FirewallFacts fw;
  auto mods = root.read("/proc/modules");
  fw.modules = mods ? Fact<std::vector<std::string>>::of(parse_netfilter_modules(*mods), "/proc/modules")
                    : Fact<std::vector<std::string>>::none(mods.error().describe(), "/proc/modules");
  auto wants = [&](const char* unit) {
    return root.exists(std::string("/etc/systemd/system/multi-user.target.wants/") + unit) ||
           root.exists(std::string("/etc/systemd/system/sysinit.target.wants/") + unit);
  };
  if (auto t = root.read("/etc/nftables.conf")) {
    fw.configs.push_back({"nftables", "/etc/nftables.conf", parse_nft_input_policy(*t), wants("nftables.service")});
  }
  for (const char* p : {"/etc/iptables/rules.v4", "/etc/sysconfig/iptables"}) {
    if (auto t = root.read(p)) {
      fw.configs.push_back({"iptables", p, parse_iptables_input_policy(*t),
                            wants("netfilter-persistent.service") || wants("iptables.service")});
    }
  }
  if (auto t = root.read("/etc/ufw/ufw.conf")) {
    bool enabled = t->find("ENABLED=yes") != std::string::npos;
    std::string policy;
    if (auto d = root.read("/etc/default/ufw")) policy = parse_ufw_input_policy(*d);
    fw.configs.push_back({"ufw", "/etc/ufw/ufw.conf", policy, enabled});
  }
  if (root.exists("/etc/firewalld/firewalld.conf")) {
    // firewalld zones reject what they do not allow: a default-deny input policy.
    fw.configs.push_back({"firewalld", "/etc/firewalld/firewalld.conf", "drop", wants("firewalld.service")});
  }
  fw.port_range = Fact<std::string>::from(root.read_value("/proc/sys/net/ipv4/ip_local_port_range"),
                                          "/proc/sys/net/ipv4/ip_local_port_range");
  if (fw.port_range.has()) {
    auto toks = split_ws(*fw.port_range);
    if (toks.size() == 2) fw.port_range.value = std::string(toks[0]) + "-" + std::string(toks[1]);
  }
  return fw;
}

std::vector<NicRef> nic_refs(const std::vector<IbPort>& ports, const std::vector<NetIface>& ifaces) {
  std::vector<NicRef> out;
  std::set<std::string> seen_bus;
  for (const auto& p : ports) {
    if (std::any_of(out.begin(), out.end(), [&](const NicRef& r) { return r.name == p.device; })) continue;
    out.push_back({p.device, p.bus_id, p.link_layer == "Ethernet" ? "roce" : "ib"});
    if (!p.bus_id.empty()) seen_bus.insert(p.bus_id);
  }
  for (const auto& i : ifaces) {
    if (i.bus_id.empty() || seen_bus.count(i.bus_id)) continue;
    out.push_back({i.name, i.bus_id, "eth"});
    seen_bus.insert(i.bus_id);
  }
  return out;
}

namespace {

}  // namespace

void collect_network_tables(Tables& t) {
  t.add_collector(
    {"collect.network",
     {"RDMA ports, network interfaces and firewall hints", "RDMA 端口、网卡接口与防火墙线索"},
     [](const Context& ctx) -> ApplyFacts {
       auto ports = read_ib_ports(ctx.root);
       auto ifaces = read_interfaces(ctx.root);
       FirewallFacts fw = read_firewall(ctx.root);
       auto ib = Fact<std::vector<IbPort>>::from(ports, "/sys/class/infiniband");
       auto net = Fact<std::vector<NetIface>>::from(ifaces, "/sys/class/net");
       return [ib, net, fw](Facts& f) {
         f.comm.collected = true;
         f.comm.ib_ports = ib;
         f.comm.interfaces = net;
         f.comm.firewall = fw;
       };
     }});
}

}  // namespace plumb
