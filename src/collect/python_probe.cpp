// The framework probe collector: interpreter choice, running the probe, parsing its answer.
#include "collect/python_probe.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "collect/pid_status.h"
#include "collect/process.h"
#include "collect/pyenv.h"
#include "core/registry.h"
#include "core/subprocess.h"
#include "core/json.h"
#include "core/text.h"
#include "core/knowledge/cuda_version.h"
#include "core/tables.h"

namespace plumb {

namespace {

// Tolerant readers: a value of the wrong type counts as absent, never as an exception.
std::string str_of(const json& j, const char* k) {
  auto it = j.find(k);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
std::optional<std::string> opt_str(const json& j, const char* k) {
  auto it = j.find(k);
  if (it == j.end()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  return std::nullopt;
}
std::optional<bool> opt_bool(const json& j, const char* k) {
  auto it = j.find(k);
  return it != j.end() && it->is_boolean() ? std::optional<bool>(it->get<bool>()) : std::nullopt;
}
std::optional<int> opt_int(const json& j, const char* k) {
  auto it = j.find(k);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  auto v = it->get<long long>();
  if (v < 0 || v > 1'000'000) return std::nullopt;
  return static_cast<int>(v);
}
std::vector<std::string> str_list(const json& j, const char* k) {
  std::vector<std::string> out;
  auto it = j.find(k);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& e : *it) {
    if (e.is_string()) out.push_back(e.get<std::string>());
  }
  return out;
}

TorchFacts torch_from(const json& p) {
  TorchFacts t;
  t.version = str_of(p, "version");
  t.cuda = opt_str(p, "cuda");
  t.hip = opt_str(p, "hip");
  t.cudnn_compiled = opt_str(p, "cudnn_compiled");
  t.cudnn_runtime = opt_str(p, "cudnn_runtime");
  t.nccl = opt_str(p, "nccl");
  t.cuda_available = opt_bool(p, "cuda_available");
  t.cuda_warning = str_of(p, "cuda_warning");
  t.device_count = opt_int(p, "device_count");
  if (auto it = p.find("devices"); it != p.end() && it->is_array()) {
    for (const auto& d : *it) {
      if (!d.is_object()) continue;
      TorchDevice dev;
      dev.name = str_of(d, "name");
      dev.capability = str_of(d, "capability");
      if (auto m = d.find("total_memory_bytes"); m != d.end() && m->is_number_unsigned()) {
        dev.total_memory_bytes = m->get<std::uint64_t>();
      }
      t.devices.push_back(std::move(dev));
    }
  }
  t.arch_list = str_list(p, "arch_list");
  t.cudnn_enabled = opt_bool(p, "cudnn_enabled");
  t.cudnn_benchmark = opt_bool(p, "cudnn_benchmark");
  t.cudnn_deterministic = opt_bool(p, "cudnn_deterministic");
  t.deterministic_algorithms = opt_bool(p, "deterministic_algorithms");
  t.tf32_matmul = opt_bool(p, "tf32_matmul");
  t.tf32_cudnn = opt_bool(p, "tf32_cudnn");
  t.float32_matmul_precision = str_of(p, "float32_matmul_precision");
  if (auto it = p.find("mapped_libs"); it != p.end() && it->is_array()) {
    for (const auto& m : *it) {
      if (!m.is_object()) continue;
      TorchMappedLib l;
      l.lib = str_of(m, "lib");
      l.path = str_of(m, "path");
      if (l.lib != "cudnn" && l.lib != "nccl") continue;
      l.deleted = opt_bool(m, "deleted").value_or(false);
      l.error = str_of(m, "error");
      if (auto r = m.find("raw_version"); r != m.end() && r->is_number_integer() && r->get<long long>() > 0) {
        long long v = r->get<long long>();
        l.version = l.lib == "cudnn" ? decode_cudnn_version(v) : decode_nccl_version(v);
      } else if (l.error.empty()) {
        l.error = "no version reported";
      }
      t.mapped_libs.push_back(std::move(l));
    }
  }
  return t;
}

TensorFlowFacts tensorflow_from(const json& p) {
  return {str_of(p, "version"), opt_bool(p, "built_with_cuda"), opt_str(p, "cuda"), opt_str(p, "cudnn"),
          str_list(p, "gpus")};
}
JaxFacts jax_from(const json& p) {
  return {str_of(p, "version"), str_of(p, "jaxlib"), str_list(p, "plugins")};
}
OnnxRuntimeFacts onnxruntime_from(const json& p) {
  return {str_of(p, "version"), str_of(p, "device"), str_list(p, "providers")};
}
NumpyFacts numpy_from(const json& p) { return {str_of(p, "version")}; }
H5pyFacts h5py_from(const json& p) {
  H5pyFacts h{str_of(p, "version"), str_of(p, "hdf5_version"), {}};
  if (auto it = p.find("filters"); it != p.end() && it->is_object()) {
    for (const auto& [k, v] : it->items()) {
      if (v.is_boolean()) h.filters[k] = v.get<bool>();
    }
  }
  return h;
}

// One package entry -> its Fact: a value, "not installed (...)" or "import failed: ...".
template <class T, class Fn>
Fact<T> package(const json& packages, const char* name, const std::string& src, Fn from) {
  auto it = packages.find(name);
  if (it == packages.end() || !it->is_object()) return Fact<T>::none("not reported by the probe", src);
  const json& p = *it;
  std::string err = str_of(p, "error");
  if (opt_bool(p, "ok").value_or(false)) return Fact<T>::of(from(p), src);
  if (opt_bool(p, "not_installed").value_or(false)) {
    return Fact<T>::none("not installed" + (err.empty() ? std::string() : " (" + err + ")"), src);
  }
  return Fact<T>::none("import failed: " + (err.empty() ? std::string("unknown error") : err), src);
}

std::string last_line(const std::string& s) {
  auto lines = split_lines(s);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
    auto t = trim(*it);
    if (!t.empty()) return std::string(t);
  }
  return {};
}

bool is_python_name(std::string_view path) {
  auto slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return starts_with(base, "python");
}

}  // namespace

std::string probe_source(const std::string& interpreter) { return "python probe (" + interpreter + ")"; }

FrameworkFacts probe_not_run(const std::string& why, const std::string& source) {
  FrameworkFacts f;
  f.collected = true;
  f.python = Fact<PythonFacts>::none(why, source);
  f.torch = Fact<TorchFacts>::none(why, source);
  f.tensorflow = Fact<TensorFlowFacts>::none(why, source);
  f.jax = Fact<JaxFacts>::none(why, source);
  f.onnxruntime = Fact<OnnxRuntimeFacts>::none(why, source);
  f.numpy = Fact<NumpyFacts>::none(why, source);
  f.h5py = Fact<H5pyFacts>::none(why, source);
  f.env = Fact<std::map<std::string, std::string>>::none(why, source);
  return f;
}

Result<FrameworkFacts> parse_probe_output(std::string_view text, const std::string& interpreter) {
  // The last marker that starts a line: anything a library printed before it is ignored.
  std::size_t at = std::string_view::npos;
  for (std::size_t pos = text.find(kProbeMarker); pos != std::string_view::npos;
       pos = text.find(kProbeMarker, pos + 1)) {
    if (pos == 0 || text[pos - 1] == '\n') at = pos;
  }
  if (at == std::string_view::npos) {
    return make_error(ErrorKind::invalid, "no " + std::string(trim(kProbeMarker)) + " line in the probe's output");
  }
  std::string_view body = text.substr(at + kProbeMarker.size());
  body = body.substr(0, body.find('\n'));
  auto parsed = parse_outside_json(body);
  if (!parsed) return make_error(ErrorKind::invalid, "the probe's answer is " + parsed.error().message);
  json& doc = *parsed;
  if (!doc.is_object()) return make_error(ErrorKind::invalid, "the probe's answer is not a JSON object");
  if (!doc.contains("packages") || !doc["packages"].is_object()) {
    return make_error(ErrorKind::invalid, "the probe's answer has no \"packages\" object");
  }
  FrameworkFacts f;
  f.collected = true;
  PythonFacts py;
  if (auto it = doc.find("python"); it != doc.end() && it->is_object()) {
    py.executable = str_of(*it, "executable");
    py.version = str_of(*it, "version");
  }
  std::string src = probe_source(py.executable.empty() ? interpreter : py.executable);
  f.python = Fact<PythonFacts>::of(py, src);
  const json& pk = doc["packages"];
  f.torch = package<TorchFacts>(pk, "torch", src, torch_from);
  f.tensorflow = package<TensorFlowFacts>(pk, "tensorflow", src, tensorflow_from);
  f.jax = package<JaxFacts>(pk, "jax", src, jax_from);
  f.onnxruntime = package<OnnxRuntimeFacts>(pk, "onnxruntime", src, onnxruntime_from);
  f.numpy = package<NumpyFacts>(pk, "numpy", src, numpy_from);
  f.h5py = package<H5pyFacts>(pk, "h5py", src, h5py_from);
  std::map<std::string, std::string> env;
  if (auto it = doc.find("env"); it != doc.end() && it->is_object()) {
    for (const auto& [k, v] : it->items()) {
      if (v.is_string()) env[k] = v.get<std::string>();
    }
  }
  f.env = Fact<std::map<std::string, std::string>>::of(std::move(env), src);
  return f;
}


namespace {

// A user or group id as /proc/<pid>/status writes it; (uid_t)-1 is not an id.
std::optional<unsigned> parse_id(std::string_view word) {
  auto v = parse_int(word);
  if (!v || *v < 0 || *v > 0xFFFFFFFELL) return std::nullopt;
  return static_cast<unsigned>(*v);
}

}  // namespace

Result<std::optional<ProbeIdentity>> probe_identity(std::string_view status_text, unsigned plumb_euid) {
  PidStatus st = parse_pid_status(status_text);
  // "Uid:\treal\teffective\tsaved\tfs" (proc(5)); the real ids are whose process it is.
  auto first_id = [&](const char* key) -> std::optional<unsigned> {
    auto it = st.fields.find(key);
    if (it == st.fields.end()) return std::nullopt;
    auto words = split_ws(it->second);
    if (words.empty()) return std::nullopt;
    return parse_id(words[0]);
  };
  auto uid = first_id("Uid");
  auto gid = first_id("Gid");
  if (!uid || !gid) return make_error(ErrorKind::invalid, "no Uid or Gid line");
  if (plumb_euid != 0 || *uid == 0) return std::optional<ProbeIdentity>();
  ProbeIdentity id;
  id.uid = *uid;
  id.gid = *gid;
  if (auto it = st.fields.find("Groups"); it != st.fields.end()) {
    for (const auto& w : split_ws(it->second)) {
      auto g = parse_id(w);
      if (!g) return make_error(ErrorKind::invalid, "a Groups entry is not a number: " + std::string(w));
      id.groups.push_back(*g);
    }
  }
  return std::optional<ProbeIdentity>(std::move(id));
}

namespace {

ProbeTarget choose_interpreter_for(const Context& ctx);

}  // namespace

ProbeTarget choose_interpreter(const Context& ctx) {
  ProbeTarget t = choose_interpreter_for(ctx);
  // Under --root too: the process's environment (PYTHONPATH, VIRTUAL_ENV) drives a real interpreter
  // on this machine, so the owner its status names is the user it runs as.
  if (t.interpreter.empty() || ctx.pid <= 0 || ::geteuid() != 0) return t;
  const std::string status = ctx.proc_dir() + "/status";
  auto refuse = [&](const std::string& why) {
    t.not_run = why + "; plumb runs as root and runs no other user's interpreter and environment as root";
    t.interpreter.clear();
    return t;
  };
  auto text = ctx.root.read(status);
  if (!text) return refuse("cannot tell whose process pid " + std::to_string(ctx.pid) + " is: " + text.error().message);
  auto id = probe_identity(*text, 0);
  if (!id) return refuse(status + ": " + id.error().message);
  if (!id->has_value()) return t;
  ProbeIdentity who = std::move(**id);
  for (const char* p : {"/usr/bin/setpriv", "/bin/setpriv"}) {
    if (::access(p, X_OK) == 0) {
      who.setpriv = p;
      break;
    }
  }
  if (who.setpriv.empty()) {
    return refuse("pid " + std::to_string(ctx.pid) + " belongs to uid " + std::to_string(who.uid) +
                  " and setpriv (util-linux), which would run the probe as that user, is not installed; run plumb as "
                  "that user");
  }
  t.chosen_by += ", run as uid " + std::to_string(who.uid);
  t.run_as = std::move(who);
  return t;
}

namespace {

ProbeTarget choose_interpreter_for(const Context& ctx) {
  ProbeTarget t;
  if (!ctx.python.empty()) {
    t.interpreter = ctx.python;
    t.chosen_by = "--python";
  } else if (!ctx.root.is_live()) {
    t.not_run = "--root is a fixture tree: pass --python to probe an interpreter";
    return t;
  }
  if (ctx.pid > 0) {
    std::string dir = ctx.proc_dir();
    if (auto env = ctx.root.read(dir + "/environ")) t.env = parse_environ(*env);
    if (!t.interpreter.empty()) return t;
    // argv[0] keeps a virtualenv's bin/python; /proc/N/exe resolves it to the base interpreter,
    // which would not see the virtualenv's packages.
    if (auto cmd = ctx.root.read(dir + "/cmdline")) {
      auto args = split(*cmd, '\0');
      if (!args.empty() && starts_with(args[0], "/") && is_python_name(args[0]) && ctx.root.exists(args[0])) {
        t.interpreter = std::string(args[0]);
        t.chosen_by = "pid " + std::to_string(ctx.pid) + " (argv[0] of " + dir + "/cmdline)";
        return t;
      }
    }
    std::string exe_note;
    if (auto exe = ctx.root.read_link(dir + "/exe")) {
      std::string e = *exe;
      if (auto d = e.rfind(" (deleted)"); d != std::string::npos && d + 10 == e.size()) e.resize(d);
      if (is_python_name(e)) {
        t.interpreter = e;
        t.chosen_by = "pid " + std::to_string(ctx.pid) + " (" + dir + "/exe)";
        return t;
      }
      exe_note = e;
    }
    if (t.env && t.env->count("VIRTUAL_ENV")) {
      t.interpreter = t.env->at("VIRTUAL_ENV") + "/bin/python";
      t.chosen_by = "pid " + std::to_string(ctx.pid) + " ($VIRTUAL_ENV)";
      return t;
    }
    t.interpreter = "python3";
    t.chosen_by = "python3 on PATH (pid " + std::to_string(ctx.pid) + " runs " +
                  (exe_note.empty() ? std::string("an unreadable executable") : exe_note) + ", not Python)";
    return t;
  }
  if (t.interpreter.empty()) {
    t.interpreter = "python3";
    t.chosen_by = "python3 on PATH";
    // A pyenv shim costs an extra bash and pyenv start (70-110 ms): run what it would run.
    std::map<std::string, std::string> env;
    for (const char* k : {"PATH", "PYENV_ROOT", "PYENV_VERSION"}) {
      if (const char* v = std::getenv(k)) env[k] = v;  // NOLINT(concurrency-mt-unsafe): nothing sets the environment
    }
    std::string cwd;
    if (char* c = ::getcwd(nullptr, 0)) {
      cwd = c;
      std::free(c);
    }
    if (auto r = resolve_pyenv_shim("python3", env, cwd)) {
      t.interpreter = r->interpreter;
      t.chosen_by = "python3 on PATH (pyenv shim: version " + r->version + " from " + r->chosen_by + ")";
    }
  }
  return t;
}

}  // namespace

namespace {

RunOptions probe_options(const ProbeTarget& target, std::chrono::milliseconds timeout) {
  RunOptions opts;
  opts.timeout = timeout;
  opts.max_output = 1u << 20;
  // Keep the probe quiet and cheap: no bytecode files, no JAX/TF pre-allocation of GPU memory.
  std::map<std::string, std::string> extra{{"PYTHONDONTWRITEBYTECODE", "1"},
                                           {"PYTHONIOENCODING", "utf-8"},
                                           {"TF_CPP_MIN_LOG_LEVEL", "3"},
                                           {"XLA_PYTHON_CLIENT_PREALLOCATE", "false"},
                                           {"TF_FORCE_GPU_ALLOW_GROWTH", "true"}};
  if (target.env) {
    auto env = *target.env;
    for (const auto& [k, v] : extra) env[k] = v;
    opts.env = std::move(env);
  } else {
    opts.extra_env = extra;
  }
  return opts;
}


// The run's outcome as facts: a missing interpreter, a timeout, a crash and garbage all become
// missing facts with the reason.
FrameworkFacts facts_from_run(const Result<RunOutput>& run, const ProbeTarget& target, std::chrono::milliseconds timeout) {
  std::string src = probe_source(target.interpreter);
  if (!run) {
    const Error& e = run.error();
    if (e.kind == ErrorKind::absent) return probe_not_run("interpreter not found: " + target.interpreter, src);
    if (e.kind == ErrorKind::timed_out) {
      return probe_not_run("probe timed out after " + std::to_string(timeout.count()) + " ms", src);
    }
    return probe_not_run("probe could not start: " + e.message, src);
  }
  auto facts = parse_probe_output(run->out, target.interpreter);
  if (!facts) {
    std::string why = run->signal != 0    ? "probe killed by signal " + std::to_string(run->signal)
                      : run->exit_code != 0 ? "probe exited with code " + std::to_string(run->exit_code)
                                            : facts.error().message;
    // A Python traceback ends with the line that says what went wrong.
    std::string said = run->err.empty() ? first_line(run->out) : last_line(run->err);
    if (said.size() > 300) said.resize(300);
    if (!said.empty()) why += ": " + said;
    return probe_not_run(why, src);
  }
  if (facts->python.has()) {
    PythonFacts py = *facts->python;
    py.chosen_by = target.chosen_by;
    facts->python.value = py;
  }
  return std::move(facts.value());
}

}  // namespace

std::vector<std::string> probe_argv(const ProbeTarget& target) {
  std::vector<std::string> argv;
  if (target.run_as) {
    const ProbeIdentity& w = *target.run_as;
    std::string groups;
    for (unsigned g : w.groups) groups += (groups.empty() ? "" : ",") + std::to_string(g);
    argv = {w.setpriv, "--reuid=" + std::to_string(w.uid), "--regid=" + std::to_string(w.gid),
            groups.empty() ? std::string("--clear-groups") : "--groups=" + groups, "--"};
  }
  argv.insert(argv.end(), {target.interpreter, "-c", python_probe_script()});
  return argv;
}

FrameworkFacts run_python_probe(const ProbeTarget& target, std::chrono::milliseconds timeout) {
  if (target.interpreter.empty()) return probe_not_run(target.not_run.empty() ? "no interpreter" : target.not_run);
  RunOptions opts = probe_options(target, timeout);
  return facts_from_run(run_program(probe_argv(target), opts), target, timeout);
}

FrameworkFacts python_probe_for(const Context& ctx, std::chrono::milliseconds timeout) {
  return run_python_probe(choose_interpreter(ctx), timeout);
}

namespace {

// The probe imports heavy packages (torch: 1-4 s, tensorflow: longer), so it gets more time than
// the per-collector default, bounded so a hung CUDA initialisation cannot stall a check.
constexpr std::chrono::milliseconds kProbeFloor{20000};
constexpr std::chrono::milliseconds kProbeCeiling{60000};

}  // namespace

void collect_python_probe_tables(Tables& t) {
  t.add_collector(
    {"collect.python",
     {"Python framework probe (PyTorch, TensorFlow, JAX, ONNX Runtime, numpy, h5py)",
      "Python 框架探测（PyTorch、TensorFlow、JAX、ONNX Runtime、numpy、h5py）"},
     [](const Context& ctx) -> ApplyFacts {
       auto timeout = std::clamp(ctx.deadline, kProbeFloor, kProbeCeiling);
       FrameworkFacts fw = python_probe_for(ctx, timeout);
       return [fw](Facts& f) { f.framework = fw; };
     },
     kProbeCeiling + std::chrono::milliseconds(5000)});
}

}  // namespace plumb
