// PSI collector: the share of time tasks stalled on CPU, memory and IO (Documentation/accounting/psi.rst).
#include "collect/psi.h"

#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {
std::optional<PressureLine> parse_line(const std::vector<std::string_view>& fields) {
  PressureLine p;
  bool a10 = false, a60 = false, a300 = false, tot = false;
  for (std::size_t i = 1; i < fields.size(); ++i) {
    auto eq = fields[i].find('=');
    if (eq == std::string_view::npos) return std::nullopt;
    auto key = fields[i].substr(0, eq);
    auto val = fields[i].substr(eq + 1);
    if (key == "total") {
      auto v = parse_uint(val);
      if (!v) return std::nullopt;
      p.total_us = *v;
      tot = true;
      continue;
    }
    auto v = parse_double(val);
    if (!v || *v < 0 || *v > 100) return std::nullopt;  // averages are percentages of wall time
    if (key == "avg10") p.avg10 = *v, a10 = true;
    else if (key == "avg60") p.avg60 = *v, a60 = true;
    else if (key == "avg300") p.avg300 = *v, a300 = true;
  }
  if (!(a10 && a60 && a300 && tot)) return std::nullopt;
  return p;
}
}  // namespace

std::optional<Pressure> parse_pressure(std::string_view text) {
  Pressure p;
  for (auto line : split_lines(text)) {
    auto f = split_ws(line);
    if (f.empty()) continue;
    if (f[0] == "some") p.some = parse_line(f);
    else if (f[0] == "full") p.full = parse_line(f);
  }
  if (!p.some) return std::nullopt;
  return p;
}

PressureFacts read_pressure(const HostRoot& root) {
  PressureFacts out;
  auto one = [&](const std::string& res) {
    std::string src = "/proc/pressure/" + res;  // read through root
    auto text = root.read(src);
    if (!text) {
      if (text.error().kind == ErrorKind::absent) {
        return Fact<Pressure>::none("no " + src + " (kernel without CONFIG_PSI, before 4.20, or booted with psi=0)", src);
      }
      return Fact<Pressure>::none(text.error().describe(), src);
    }
    auto p = parse_pressure(*text);
    return p ? Fact<Pressure>::of(*p, src) : Fact<Pressure>::none("unreadable PSI format", src);
  };
  out.cpu = one("cpu");
  out.memory = one("memory");
  out.io = one("io");
  return out;
}

namespace {

}  // namespace

void collect_psi_tables(Tables& t) {
  t.add_collector({"collect.psi",
                                            {"Pressure stall information: CPU, memory, IO", "压力停滞信息（PSI）：CPU、内存、IO"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              PressureFacts p = read_pressure(ctx.root);
                                              return [p](Facts& f) { f.host.memory.pressure = p; };
                                            }});
}

}  // namespace plumb
