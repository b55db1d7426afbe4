// pyenv shims: `python3` on PATH is often pyenv's shim, a bash script that works out the selected
// version and execs it, which costs 70-110 ms per start. The framework probe resolves the shim
// itself, by pyenv's documented rules, and starts the real interpreter directly.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plumb {

struct PyenvResolution {
  std::string interpreter;  // the executable the shim would run
  std::string version;      // the selected version name ("3.11.7", "system")
  std::string chosen_by;    // "$PYENV_VERSION", "<dir>/.python-version", "<root>/version", "default"
};

// `name` (for example "python3") as found on env["PATH"]; when that is a pyenv shim
// (<PYENV_ROOT>/shims/<name>), the interpreter it would exec: the first of the selected versions
// ($PYENV_VERSION, else the nearest .python-version from `cwd` up, else <root>/version, else
// "system") that has bin/<name>; "system" is the next <name> on PATH after the shims. nullopt when
// `name` is not a shim or the selection cannot be resolved (the shim then runs as it is).
// The version names of a pyenv version file (.python-version, <root>/version): words separated by
// white space; '#' starts a comment; path-like words are ignored, as pyenv does.
std::vector<std::string> parse_pyenv_version_file(std::string_view text);

std::optional<PyenvResolution> resolve_pyenv_shim(const std::string& name, const std::map<std::string, std::string>& env,
                                                  const std::string& cwd);

}  // namespace plumb
