// Sysctl collector: integer knobs under /proc/sys, named the sysctl(8) way.
#include "collect/sysctl.h"

#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

std::string sysctl_path(std::string_view name) {
  std::string p = "/proc/sys/";  // a path to read through root
  for (char c : name) p += c == '.' ? '/' : c;
  return p;
}

Fact<int> read_sysctl_int(const HostRoot& root, std::string_view name) {
  std::string p = sysctl_path(name);
  auto v = root.read_value(p);
  if (!v) return Fact<int>::none(v.error().describe(), p);
  auto n = parse_int(*v);
  if (!n || *n < INT32_MIN || *n > INT32_MAX) return Fact<int>::none("not an integer: '" + v->substr(0, 40) + "'", p);
  return Fact<int>::of(static_cast<int>(*n), p);
}

namespace {

}  // namespace

void collect_sysctl_tables(Tables& t) {
  t.add_collector({"collect.sysctl",
                                            {"Kernel settings: kernel.numa_balancing, vm.swappiness",
                                             "内核参数：kernel.numa_balancing、vm.swappiness"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              auto numa = read_sysctl_int(ctx.root, "kernel.numa_balancing");
                                              auto swappiness = read_sysctl_int(ctx.root, "vm.swappiness");
                                              return [numa, swappiness](Facts& f) {
                                                f.host.cpu.numa_balancing = numa;
                                                f.host.memory.swappiness = swappiness;
                                              };
                                            }});
}

}  // namespace plumb
