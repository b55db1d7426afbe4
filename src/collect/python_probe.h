// The framework probe: choose a Python interpreter, run the embedded probe script under a
// deadline (no shell), parse its one-line JSON answer into FrameworkFacts.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/process.h"
#include "core/context.h"
#include "core/facts/framework.h"
#include "core/result.h"
#include "core/subprocess.h"

namespace plumb {

// The Python source of the probe: src/collect/python_probe.py, compiled in by the build
// (plumb_embed_text in CMakeLists.txt) so the binary is self-contained.
const char* python_probe_script();

// The line prefix the probe prints before its JSON answer.
inline constexpr std::string_view kProbeMarker = "PLUMB-PROBE-JSON ";

// Parses the probe's stdout (the last marker line wins; other lines are ignored). `source` names
// the interpreter in evidence ("python probe (/usr/bin/python3)"); the parsed answer's own
// sys.executable replaces it when present. Total on garbage: errors, never exceptions.
Result<FrameworkFacts> parse_probe_output(std::string_view text, const std::string& interpreter);

// Every fact missing with the same reason (the probe could not run or answer).
FrameworkFacts probe_not_run(const std::string& why, const std::string& source = {});

// "python probe (/usr/bin/python3)": the evidence source of every framework fact.
std::string probe_source(const std::string& interpreter);

// Which interpreter to run and with which environment.
// The user a probe runs as when it is not plumb's: with --pid, plumb running as root and the target
// process belonging to another user, the probe runs that user's interpreter with that user's
// environment (PYTHONPATH, LD_PRELOAD...) and so runs under that user's ids (setpriv(1)), never as root.
struct ProbeIdentity {
  unsigned uid = 0;
  unsigned gid = 0;
  std::vector<unsigned> groups;  // supplementary groups ("Groups:"), as the target has them
  std::string setpriv;           // the util-linux program that switches to them
};
// The target's real uid, gid and groups from its /proc/N/status text when plumb's effective uid
// `plumb_euid` is 0 and the target's real uid is not; nullopt when no switch is needed. An error when
// the text names no uid or gid.
Result<std::optional<ProbeIdentity>> probe_identity(std::string_view status_text, unsigned plumb_euid);

struct ProbeTarget {
  std::string interpreter;   // path or a name looked up on PATH; empty: do not run
  std::string chosen_by;     // "--python" | "pid 1234 (/proc/1234/exe)" | "python3 on PATH"
  std::string not_run;       // why nothing runs (fixture root without --python)
  std::optional<std::map<std::string, std::string>> env;  // the target process's environment (--pid)
  std::optional<ProbeIdentity> run_as;                    // see ProbeIdentity
};
// The probe's command line: the interpreter with the probe script, behind setpriv when run_as is set.
std::vector<std::string> probe_argv(const ProbeTarget& target);
// --python wins; with --pid the target's interpreter (argv[0] when it is a python path, else
// /proc/N/exe, else $VIRTUAL_ENV/bin/python) and its environment; otherwise python3 on PATH.
// A fixture --root without --python runs nothing: a fixture tree has no interpreter.
ProbeTarget choose_interpreter(const Context& ctx);


// Runs the probe. Missing interpreter, timeout, crash and garbage all become facts.
FrameworkFacts run_python_probe(const ProbeTarget& target, std::chrono::milliseconds timeout);

// The collector's run: the probe chosen for `ctx`, under `timeout`.
FrameworkFacts python_probe_for(const Context& ctx, std::chrono::milliseconds timeout);

// True when a package fact is missing because the package is not installed (not an import error).
template <class T>
bool not_installed(const Fact<T>& f) {
  return !f.has() && f.missing.rfind("not installed", 0) == 0;
}

}  // namespace plumb
