// Name-resolution collector: the host name, /etc/hosts and the nsswitch "hosts:" line.
#include "collect/name_resolution.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

bool is_ipv4(const std::string& s, std::array<unsigned char, 16>& buf) { return ::inet_pton(AF_INET, s.c_str(), buf.data()) == 1; }
bool is_ipv6(const std::string& s, std::array<unsigned char, 16>& buf) { return ::inet_pton(AF_INET6, s.c_str(), buf.data()) == 1; }

// A hosts(5) address may carry an IPv6 zone ("fe80::1%eth0"); the zone is not part of the address.
std::string without_zone(std::string_view a) { return std::string(a.substr(0, a.find('%'))); }

}  // namespace

bool is_loopback_address(std::string_view address) {
  std::array<unsigned char, 16> b{};
  std::string a = without_zone(address);
  if (is_ipv4(a, b)) return b[0] == 127;
  if (!is_ipv6(a, b)) return false;
  bool zero10 = std::all_of(b.begin(), b.begin() + 10, [](unsigned char c) { return c == 0; });
  if (zero10 && b[10] == 0 && b[11] == 0 && std::all_of(b.begin() + 12, b.begin() + 15, [](unsigned char c) { return c == 0; })) {
    return b[15] == 1;  // ::1
  }
  return zero10 && b[10] == 0xff && b[11] == 0xff && b[12] == 127;  // ::ffff:127.x.y.z
}

std::vector<HostsEntry> parse_etc_hosts(std::string_view text) {
  std::vector<HostsEntry> out;
  int n = 0;
  for (auto line : split_lines(text)) {
    ++n;
    line = line.substr(0, line.find('#'));
    auto f = split_ws(line);
    if (f.size() < 2) continue;
    std::array<unsigned char, 16> b{};
    std::string addr = without_zone(f[0]);
    if (!is_ipv4(addr, b) && !is_ipv6(addr, b)) continue;
    HostsEntry e;
    e.line = n;
    e.address = std::string(f[0]);
    for (std::size_t i = 1; i < f.size(); ++i) e.names.emplace_back(f[i]);
    out.push_back(std::move(e));
  }
  return out;
}

std::string parse_nsswitch_hosts(std::string_view text) {
  for (auto line : split_lines(text)) {
    line = trim(line.substr(0, line.find('#')));
    if (!starts_with(line, "hosts:")) continue;
    std::string out;
    for (auto w : split_ws(line.substr(6))) out += (out.empty() ? "" : " ") + std::string(w);
    return out;
  }
  return {};
}

std::vector<HostsEntry> hosts_entries_for(const std::vector<HostsEntry>& hosts, std::string_view host) {
  std::vector<HostsEntry> out;
  std::string want = to_lower(host);
  for (const auto& e : hosts) {
    if (std::any_of(e.names.begin(), e.names.end(), [&](const std::string& n) { return to_lower(n) == want; })) out.push_back(e);
  }
  return out;
}

namespace {

NameResolutionFacts read_name_resolution(const HostRoot& root) {
  NameResolutionFacts n;
  auto kernel = root.read_value("/proc/sys/kernel/hostname");
  if (kernel && !kernel->empty()) {
    n.hostname = Fact<std::string>::of(*kernel, "/proc/sys/kernel/hostname");
  } else {
    auto etc = root.read_value("/etc/hostname");
    n.hostname = etc && !etc->empty() ? Fact<std::string>::of(*etc, "/etc/hostname")
                                      : Fact<std::string>::none(etc ? "/etc/hostname is empty" : etc.error().describe(), "/etc/hostname");
  }
  auto hosts = root.read("/etc/hosts", 1u << 20);
  n.hosts = hosts ? Fact<std::vector<HostsEntry>>::of(parse_etc_hosts(*hosts), "/etc/hosts")
                  : Fact<std::vector<HostsEntry>>::none(hosts.error().describe(), "/etc/hosts");
  auto ns = root.read("/etc/nsswitch.conf", 1u << 20);
  if (ns) {
    auto line = parse_nsswitch_hosts(*ns);
    n.nsswitch_hosts = line.empty() ? Fact<std::string>::none("no hosts: line", "/etc/nsswitch.conf")
                                    : Fact<std::string>::of(line, "/etc/nsswitch.conf");
  } else {
    n.nsswitch_hosts = Fact<std::string>::none(ns.error().describe(), "/etc/nsswitch.conf");
  }
  return n;
}


}  // namespace
void collect_name_resolution_tables(Tables& t) {
  t.add_collector({"collect.names",
                                            {"Host name and /etc/hosts", "主机名与 /etc/hosts"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              NameResolutionFacts n = read_name_resolution(ctx.root);
                                              return [n](Facts& f) { f.sysconfig.names = n; };
                                            }});
}

}  // namespace plumb
