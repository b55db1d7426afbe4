// pyenv shim resolution (rules: pyenv's README, "Choosing the Python version").
#include "collect/pyenv.h"

#include <unistd.h>

#include <cstddef>

#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

namespace {

bool executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> dirs;
  for (auto d : split(path, ':')) dirs.emplace_back(d.empty() ? std::string_view(".") : d);  // "" means "."
  return dirs;
}

std::string strip_slash(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::string parent_of(const std::string& dir) {
  auto p = dir.find_last_of('/');
  if (p == std::string::npos) return ".";
  return p == 0 ? "/" : dir.substr(0, p);
}

std::optional<std::vector<std::string>> read_version_file(const std::string& path) {
  // A version file is a few bytes; it may sit in a user's directory, so a FIFO or a huge file
  // there is refused (read_user_file) rather than read as root.
  auto text = read_user_file(path, std::size_t{64} << 10);
  if (!text) return std::nullopt;
  return parse_pyenv_version_file(*text);
}

}  // namespace

std::vector<std::string> parse_pyenv_version_file(std::string_view text) {
  std::vector<std::string> names;
  for (auto line : split_lines(text)) {
    for (auto w : split_ws(line)) {
      if (w[0] == '#') break;  // the rest of the line is a comment
      if (w == "." || w == ".." || w.find('/') != std::string_view::npos) continue;
      names.emplace_back(w);
    }
  }
  return names;
}

std::optional<PyenvResolution> resolve_pyenv_shim(const std::string& name, const std::map<std::string, std::string>& env,
                                                  const std::string& cwd) {
  if (name.empty() || name.find('/') != std::string::npos) return std::nullopt;
  auto path_it = env.find("PATH");
  if (path_it == env.end()) return std::nullopt;
  auto dirs = split_path(path_it->second);
  std::size_t shim_at = dirs.size();
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    if (executable(dirs[i] + "/" + name)) {
      shim_at = i;
      break;
    }
  }
  if (shim_at == dirs.size()) return std::nullopt;
  const std::string shims = strip_slash(dirs[shim_at]);
  if (shims.size() < 6 || shims.compare(shims.size() - 6, 6, "/shims") != 0) return std::nullopt;
  std::string root = parent_of(shims);
  if (auto r = env.find("PYENV_ROOT"); r != env.end() && !r->second.empty()) {
    if (strip_slash(r->second) + "/shims" != shims) return std::nullopt;  // another tool's shims
    root = strip_slash(r->second);
  }
  if (!executable(root + "/libexec/pyenv") && !executable(root + "/bin/pyenv")) return std::nullopt;

  PyenvResolution res;
  std::vector<std::string> versions;
  if (auto v = env.find("PYENV_VERSION"); v != env.end() && !v->second.empty()) {
    for (auto w : split(v->second, ':')) {
      if (!w.empty()) versions.emplace_back(w);
    }
    res.chosen_by = "$PYENV_VERSION";
  } else {
    for (std::string dir = cwd.empty() ? "/" : strip_slash(cwd);; dir = parent_of(dir)) {
      if (auto names = read_version_file(dir + (dir == "/" ? "" : "/") + ".python-version")) {
        versions = *names;
        res.chosen_by = dir + (dir == "/" ? "" : "/") + ".python-version";
        break;
      }
      if (dir == "/" || dir == ".") break;
    }
    if (res.chosen_by.empty()) {
      if (auto names = read_version_file(root + "/version")) {
        versions = *names;
        res.chosen_by = root + "/version";
      }
    }
    if (versions.empty()) {
      versions = {"system"};
      if (res.chosen_by.empty()) res.chosen_by = "default";
    }
  }
  for (const auto& v : versions) {
    if (v == "system") {
      for (std::size_t i = 0; i < dirs.size(); ++i) {
        if (i == shim_at || strip_slash(dirs[i]) == shims) continue;
        if (executable(dirs[i] + "/" + name)) {
          res.interpreter = dirs[i] + "/" + name;
          res.version = v;
          return res;
        }
      }
      continue;
    }
    std::string cand = root;
    cand.append("/versions/").append(v).append("/bin/").append(name);
    if (executable(cand)) {
      res.interpreter = cand;
      res.version = v;
      return res;
    }
  }
  return std::nullopt;
}

}  // namespace plumb
