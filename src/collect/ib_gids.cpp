// GID-table collector for RDMA ports.
#include "collect/ib_gids.h"

#include <algorithm>
#include <cctype>

#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

std::optional<std::string> parse_gid(std::string_view text) {
  auto t = trim(text);
  auto groups = split(t, ':');
  if (groups.size() != 8) return std::nullopt;
  std::string out;
  for (auto g : groups) {
    if (g.size() != 4 || !std::all_of(g.begin(), g.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
      return std::nullopt;
    }
    if (!out.empty()) out += ':';
    for (char c : g) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

bool is_zero_gid(std::string_view gid) {
  return std::all_of(gid.begin(), gid.end(), [](char c) { return c == '0' || c == ':'; });
}

std::string gid_ipv4(std::string_view gid) {
  if (!starts_with(gid, "0000:0000:0000:0000:0000:ffff:") || gid.size() != 39) return {};
  auto hi = parse_hex(gid.substr(30, 4));
  auto lo = parse_hex(gid.substr(35, 4));
  if (!hi || !lo) return {};
  return std::to_string(*hi >> 8) + "." + std::to_string(*hi & 0xff) + "." + std::to_string(*lo >> 8) + "." + std::to_string(*lo & 0xff);
}

std::string parse_gid_type(std::string_view text) {
  auto t = trim(text);
  if (t == "RoCE v2") return "RoCE v2";
  if (t == "IB/RoCE v1") return "IB/RoCE v1";
  return {};
}

namespace {

// mlx5 tables hold 255 or 256 entries; anything past this is not a GID table.
constexpr std::size_t kMaxGids = 4096;

Result<std::vector<GidPort>> read_gid_ports(const HostRoot& root) {
  const std::string base = "/sys/class/infiniband";
  auto devs = root.list(base);
  if (!devs) return devs.error();
  std::vector<GidPort> out;
  for (const auto& d : *devs) {
    std::string ports_dir = base;
    ports_dir.append("/").append(d).append("/ports");
    auto ports = root.list(ports_dir);
    if (!ports) continue;
    for (const auto& p : *ports) {
      auto num = parse_int(p);
      if (!num) continue;
      std::string dir = ports_dir;
      dir.append("/").append(p);
      GidPort gp;
      gp.device = d;
      gp.port = static_cast<int>(*num);
      gp.link_layer = root.read_value(dir + "/link_layer").value_or("");
      auto idx = root.list(dir + "/gids");
      if (!idx) {
        out.push_back(std::move(gp));
        continue;
      }
      gp.table_size = static_cast<int>(std::min(idx->size(), kMaxGids));
      for (std::size_t k = 0; k < idx->size() && k < kMaxGids; ++k) {
        auto i = parse_int((*idx)[k]);
        if (!i || *i < 0) continue;
        auto raw = root.read_value(dir + "/gids/" + (*idx)[k]);
        if (!raw) continue;
        auto gid = parse_gid(*raw);
        if (!gid || is_zero_gid(*gid)) continue;
        GidEntry e;
        e.index = static_cast<int>(*i);
        e.gid = *gid;
        // The kernel answers EINVAL for the type of an empty entry; a populated one has a type.
        e.type = parse_gid_type(root.read_value(dir + "/gid_attrs/types/" + (*idx)[k]).value_or(""));
        e.ndev = root.read_value(dir + "/gid_attrs/ndevs/" + (*idx)[k]).value_or("");
        gp.gids.push_back(std::move(e));
      }
      std::sort(gp.gids.begin(), gp.gids.end(), [](const GidEntry& a, const GidEntry& b) { return a.index < b.index; });
      out.push_back(std::move(gp));
    }
  }
  return out;
}


}  // namespace
void collect_ib_gids_tables(Tables& t) {
  t.add_collector({"collect.ib_gids",
                                            {"RDMA port GID tables (RoCE versions)", "RDMA 端口 GID 表（RoCE 版本）"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              auto g = Fact<std::vector<GidPort>>::from(read_gid_ports(ctx.root), "/sys/class/infiniband");
                                              return [g](Facts& f) { f.sysconfig.gid_ports = g; };
                                            }});
}

}  // namespace plumb
