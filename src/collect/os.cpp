// OS release (/etc/os-release, falling back to /usr/lib/os-release) and kernel release.
#include "collect/os.h"

#include "core/registry.h"
#include "core/tables.h"

namespace plumb {

std::map<std::string, std::string> parse_os_release(std::string_view text) {
  std::map<std::string, std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto nl = text.find('\n', pos);
    std::string_view line = trim(text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.empty() || line.front() == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    std::string key(line.substr(0, eq));
    std::string_view raw = line.substr(eq + 1);
    std::string value;
    if (!raw.empty() && (raw.front() == '"' || raw.front() == '\'')) {
      char q = raw.front();
      for (std::size_t i = 1; i < raw.size() && raw[i] != q; ++i) {
        if (raw[i] == '\\' && q == '"' && i + 1 < raw.size()) ++i;
        value += raw[i];
      }
    } else {
      value = std::string(raw);
    }
    out[key] = value;
  }
  return out;
}

OsFacts read_os(const HostRoot& root) {
  OsFacts os;
  std::string src = "/etc/os-release";
  auto text = root.read(src);
  if (!text) {
    src = "/usr/lib/os-release";
    text = root.read(src);
  }
  if (text) {
    auto kv = parse_os_release(*text);
    auto get = [&](const char* k) {
      auto it = kv.find(k);
      return it == kv.end() ? Fact<std::string>::none(std::string(k) + " not set", src)
                            : Fact<std::string>::of(it->second, src);
    };
    os.pretty_name = get("PRETTY_NAME");
    os.id = get("ID");
    os.version_id = get("VERSION_ID");
  } else {
    os.pretty_name = os.id = os.version_id = Fact<std::string>::none(text.error().describe(), src);
  }
  os.kernel = Fact<std::string>::from(root.read_value("/proc/sys/kernel/osrelease"), "/proc/sys/kernel/osrelease");
  return os;
}

namespace {

}  // namespace

void collect_os_tables(Tables& t) {
  t.add_collector({"collect.os", {"OS release and kernel version", "操作系统发行版与内核版本"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              OsFacts os = read_os(ctx.root);
                                              return [os](Facts& f) { f.host.os = os; };
                                            }});
}

}  // namespace plumb
