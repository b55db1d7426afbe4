// CUDA stack collector: finds the libraries the way the dynamic loader would, decodes versions.
#include "collect/process.h"
#include "collect/gpu_cuda.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>

#include "core/deadline.h"
#include "core/dir_names.h"
#include "core/registry.h"
#include "core/subprocess.h"
#include "collect/gpu_processes.h"
#include "core/text.h"
#include "vendor/cuda_loader.h"
#include "core/knowledge/cuda_version.h"
#include "vendor/dynlib.h"
#include "vendor/elf_strings.h"
#include "vendor/ld_cache.h"
#include "vendor/nvml_devices.h"
#include "core/tables.h"

namespace plumb {

const std::vector<CudaLibKind>& cuda_lib_kinds() {
  static const std::vector<CudaLibKind> k = {
      {"cudart", "libcudart.so", "nvidia_cuda_runtime"},
      {"cudnn", "libcudnn.so", "nvidia_cudnn"},
      {"nccl", "libnccl.so", "nvidia_nccl"},
      {"cublas", "libcublas.so", "nvidia_cublas"},
      {"cuda", "libcuda.so", ""},
  };
  return k;
}

std::vector<MappedFile> parse_proc_maps(std::string_view text) {
  std::vector<MappedFile> out;
  std::set<std::string> seen;
  for (auto line : split_lines(text)) {
    // address perms offset dev inode pathname: the path is what follows the 5th field.
    std::size_t pos = 0;
    int field = 0;
    while (field < 5 && pos < line.size()) {
      while (pos < line.size() && line[pos] != ' ' && line[pos] != '\t') ++pos;
      while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
      ++field;
    }
    if (field < 5 || pos >= line.size() || line[pos] != '/') continue;
    MappedFile m;
    m.path = std::string(trim(line.substr(pos)));
    constexpr std::string_view kDeleted = " (deleted)";
    if (m.path.size() > kDeleted.size() &&
        m.path.compare(m.path.size() - kDeleted.size(), kDeleted.size(), kDeleted) == 0) {
      m.path.resize(m.path.size() - kDeleted.size());
      m.deleted = true;
    }
    if (seen.insert(m.path).second) out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::string> parse_proc_maps_paths(std::string_view text) {
  std::vector<std::string> out;
  for (auto& m : parse_proc_maps(text)) out.push_back(std::move(m.path));
  return out;
}

namespace {

constexpr const char* kDefaultDirs[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                                        "/lib", "/usr/lib"};

// dir + "/" + name in one allocation.
std::string lib_path_in(const std::string& dir, const std::string& name) {
  std::string p;
  p.reserve(dir.size() + 1 + name.size());
  p.append(dir).append("/").append(name);
  return p;
}

const CudaLibKind* kind_of(std::string_view file) {
  for (const auto& k : cuda_lib_kinds()) {
    std::string_view stem = k.stem;
    if (starts_with(file, stem) && (file.size() == stem.size() || file[stem.size()] == '.')) return &k;
  }
  return nullptr;
}

std::string dir_name(std::string_view p) {
  auto s = p.rfind('/');
  return s == std::string_view::npos || s == 0 ? std::string("/") : std::string(p.substr(0, s));
}

// The path with symlinks resolved, inside the root, shown without the root prefix.
std::string resolve_in_root(const HostRoot& root, const std::string& abs) {
  // Opened through the root (symlinks resolve inside the tree), then named by the kernel.
  auto fd = root.open(abs, O_PATH);
  if (!fd) return abs;
  char buf[PATH_MAX];
  std::string self = "/proc/self/fd/" + std::to_string(*fd);
  ssize_t n = ::readlink(self.c_str(), buf, sizeof buf - 1);
  ::close(*fd);
  if (n <= 0) return abs;
  std::string r(buf, static_cast<std::size_t>(n));
  if (!root.is_live()) {
    // The root as realpath() spells it: a relative --root or one reached through a symlink.
    char rbuf[PATH_MAX];
    std::string pre = ::realpath(root.root().c_str(), rbuf) != nullptr ? std::string(rbuf) : root.root();
    if (r.rfind(pre, 0) == 0) r = r.substr(pre.size());
    if (r.empty() || r[0] != '/') r = "/" + r;
  }
  return r;
}

// "libcudart.so.13.0.96" -> "libcudart.so.13": the name the loader is asked for.
std::string soname_of(const std::string& file, const CudaLibKind& k) {
  std::string v = soname_version(file, k.stem);
  if (v.empty()) return file;
  auto dot = v.find('.');
  return std::string(k.stem) + "." + v.substr(0, dot);
}

struct Env {
  std::map<std::string, std::string> vars;
  [[nodiscard]] std::string get(const std::string& k) const {
    auto it = vars.find(k);
    return it == vars.end() ? std::string() : it->second;
  }
};

Env target_env(const Context& ctx) {
  Env e;
  if (ctx.pid > 0) {
    auto t = ctx.root.read(ctx.proc_dir() + "/environ");
    if (t) e.vars = parse_environ(*t);
  } else if (ctx.root.is_live()) {
    for (const char* k : {"LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "VIRTUAL_ENV", "CONDA_PREFIX", "HOME"}) {
      const char* v = std::getenv(k);  // NOLINT(concurrency-mt-unsafe)
      if (v != nullptr) e.vars[k] = v;
    }
  }
  return e;
}

class Finder {
 public:
  Finder(const Context& ctx, CudaStackFacts& out) : ctx_(ctx), out_(out) {}

  // Adds every matching library file of `dir`.
  void scan_dir(const std::string& dir, const std::string& origin) {
    if (dir.empty() || dir[0] != '/' || !scanned_.insert(dir).second) return;
    // Once per real folder: on a merged-/usr system /lib is /usr/lib, and listing its 2,000 files
    // twice was a quarter of this collector's time. The first path seen names what is found there.
    if (!scanned_real_.insert(resolve_in_root(ctx_.root, dir)).second) return;
    auto names = list_names(ctx_.root, dir, [](std::string_view n) { return kind_of(n) != nullptr; });
    if (!names) return;
    for (const auto& n : *names) add(lib_path_in(dir, n), origin);
  }

  void add(const std::string& path, const std::string& origin) {
    const CudaLibKind* k = kind_of(base_name(path));
    if (k == nullptr) return;
    std::string real = resolve_in_root(ctx_.root, path);
    if (!ctx_.root.exists(real)) return;
    for (auto& c : out_.copies) {
      if (c.real_path == real) return;
    }
    CudaLibCopy c;
    c.lib = k->kind;
    c.path = path;
    c.real_path = real;
    c.origin = origin;
    out_.copies.push_back(std::move(c));
  }

  // A library the process maps although its file is gone: its version can only come from the name.
  void add_deleted(const std::string& path) {
    const CudaLibKind* k = kind_of(base_name(path));
    if (k == nullptr) return;
    for (auto& c : out_.copies) {
      if (c.real_path == path && c.origin == "process maps (deleted)") return;
    }
    CudaLibCopy c;
    c.lib = k->kind;
    c.path = path;
    c.real_path = path;
    c.origin = "process maps (deleted)";
    c.mapped = true;
    out_.copies.push_back(std::move(c));
  }

  // The directories of `pattern_parent/<prefix>*/<sub>` under the root (glob without a shell).
  std::vector<std::string> glob(const std::string& parent, const std::string& prefix, const std::string& sub) {
    std::vector<std::string> out;
    auto names = list_names(ctx_.root, parent, [&](std::string_view n) { return starts_with(n, prefix); });
    if (!names) return out;
    for (const auto& n : *names) out.push_back(lib_path_in(parent, n).append(sub));
    return out;
  }

 private:
  const Context& ctx_;
  CudaStackFacts& out_;
  std::set<std::string> scanned_;
  std::set<std::string> scanned_real_;  // the same folders, resolved inside the root
};

// Python site-packages folders that pip wheels (nvidia-*-cuXX, torch) install into.
std::vector<std::string> site_packages(Finder& f, const Env& env) {
  std::vector<std::string> prefixes = {"/usr/lib", "/usr/local/lib", "/opt/conda/lib"};
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    std::string v = env.get(var);
    if (!v.empty()) prefixes.push_back(v + "/lib");
  }
  std::string home = env.get("HOME");
  if (!home.empty()) {
    prefixes.push_back(home + "/.local/lib");
    for (const auto& d : f.glob(home + "/.pyenv/versions", "", "/lib")) prefixes.push_back(d);
  }
  std::vector<std::string> out;
  for (const auto& p : prefixes) {
    for (const auto& py : f.glob(p, "python3", "")) {
      out.push_back(py + "/site-packages");
      out.push_back(py + "/dist-packages");
    }
  }
  return out;
}

// The pip dist-info folders next to the library, with their versions: <toolkit>/dist-info
// (NVIDIA's redistributable layout) or the site-packages folder of an nvidia/<pkg>/lib wheel.
std::vector<std::pair<std::string, std::string>> dist_infos(const HostRoot& root, const CudaLibCopy& c,
                                                            const CudaLibKind& k) {
  std::vector<std::pair<std::string, std::string>> out;  // (folder, version)
  if (std::string_view(k.dist_prefix).empty()) return out;
  std::string dir = dir_name(c.real_path);
  std::vector<std::string> places = {dir_name(dir) + "/dist-info"};
  // site-packages/nvidia/<pkg>/lib: the wheel's dist-info is in site-packages.
  if (std::string_view(dir_name(dir_name(dir))).ends_with("/nvidia")) places.push_back(dir_name(dir_name(dir_name(dir))));
  for (const auto& place : places) {
    auto names = root.list(place);
    if (!names) continue;
    for (const auto& n : *names) {
      auto d = parse_dist_info_name(n);
      if (!d || !starts_with(d->first, k.dist_prefix)) continue;
      std::string folder = place;
      folder += '/';
      folder += n;
      out.emplace_back(std::move(folder), d->second);
    }
  }
  return out;
}

// cuDNN's version from the wheel that installed the file: a dist-info next to it whose RECORD lists
// a file of this name at this file's size. Asking the library means loading it and its graph
// library (cudnnGetVersion loads libcudnn_graph.so.9, 4.4 MB): about 4 ms of the check's CPU time
// here, and cuDNN 9 keeps no version string to read instead. The RECORD's hash is not computed;
// a file replaced by another of another size falls back to loading it.
struct RecordedVersion {
  int raw = 0;
  std::string source;
};
std::optional<RecordedVersion> recorded_cudnn_version(const HostRoot& root, const CudaLibCopy& c,
                                                     const std::vector<std::pair<std::string, std::string>>& infos) {
  if (infos.empty()) return std::nullopt;
  auto fd = root.open(c.real_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (!fd) return std::nullopt;
  struct stat st {};
  const bool regular = ::fstat(*fd, &st) == 0 && S_ISREG(st.st_mode);
  ::close(*fd);
  if (!regular) return std::nullopt;
  const std::string base = base_name(c.real_path);
  for (const auto& [folder, version] : infos) {
    auto record = root.read(folder + "/RECORD", 1u << 20);
    if (!record) continue;
    auto size = record_file_size(*record, base);
    if (!size || *size != static_cast<std::uint64_t>(st.st_size)) continue;
    auto raw = encode_cudnn_version(version);
    if (!raw) continue;
    RecordedVersion out;
    out.raw = *raw;
    out.source = folder;
    out.source += "/RECORD (it lists ";
    out.source += base;
    out.source += " at the size of ";
    out.source += c.real_path;
    out.source += ", ";
    out.source += std::to_string(st.st_size);
    out.source += " bytes)";
    return out;
  }
  return std::nullopt;
}

// NCCL's version string in the library's .rodata (vendor/elf_strings.h), read inside the root
// without loading the library: loading NCCL runs 148 constructors and relocates 12 000 pointers
// (3.7-5 ms loaded alone here, 2-5 ms of the check's CPU time), and works the same on a fixture tree.
std::optional<NcclVersionString> nccl_version_in_file(const HostRoot& root, const std::string& path) {
  auto fd = root.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (!fd) return std::nullopt;
  struct stat st {};
  std::optional<NcclVersionString> found;
  if (::fstat(*fd, &st) == 0 && S_ISREG(st.st_mode)) {
    ElfReadAt read = [fd = *fd, size = static_cast<std::uint64_t>(st.st_size)](std::uint64_t off,
                                                                             std::size_t n) -> std::optional<std::string> {
      if (off > size || n > size - off) return std::nullopt;
      std::string buf(n, '\0');
      auto got = pread_full(fd, off, buf.data(), n, std::string());
      if (!got || *got != n) return std::nullopt;
      return buf;
    };
    find_elf_section_string(read, ".rodata", "NCCL version ", [&found](std::string_view str) {
      found = parse_nccl_version_string(str);
      return found.has_value();
    });
  }
  ::close(*fd);
  return found;
}

void fill_versions(const Context& ctx, CudaStackFacts& out, bool probe) {
  for (auto& c : out.copies) {
    const CudaLibKind* k = kind_of(base_name(c.real_path));
    if (k == nullptr) k = kind_of(base_name(c.path));
    if (k == nullptr) continue;
    // A deleted mapping: whatever now sits at that path (or next to it) is not what the process runs.
    const bool gone = c.origin == "process maps (deleted)";
    if (c.lib == "nccl" && !gone) {
      if (auto v = nccl_version_in_file(ctx.root, c.real_path)) {
        std::string src = "\"NCCL version " + v->version + (v->cuda.empty() ? "" : "+cuda" + v->cuda) +
                          "\" in the .rodata of " + c.real_path;
        c.raw_version = Fact<int>::of(v->code, src);
        c.version = Fact<std::string>::of(v->version, src);
        continue;
      }
    }
    // The wheels' dist-info folders next to the copy: listed at the first need (cuDNN's RECORD, or the
    // fallback after loading), at most once.
    std::optional<std::vector<std::pair<std::string, std::string>>> listed;
    auto infos = [&]() -> const std::vector<std::pair<std::string, std::string>>& {
      if (!listed) listed = gone ? std::vector<std::pair<std::string, std::string>>() : dist_infos(ctx.root, c, *k);
      return *listed;
    };
    if (c.lib == "cudnn") {
      if (auto v = recorded_cudnn_version(ctx.root, c, infos())) {
        c.raw_version = Fact<int>::of(v->raw, v->source);
        c.version = Fact<std::string>::of(decode_cudnn_version(v->raw), v->source);
        continue;
      }
    }
    // libcuda copies are never loaded here: a stub would shadow the driver's libcuda.so.1 for the
    // device query. cuBLAS costs ~0.4 s to load: its pip metadata or file name is enough. As root,
    // a copy another user can change is never loaded (its constructors would run as root).
    bool can_probe = !gone && probe && ctx.root.is_live() && c.lib != "cuda" && c.lib != "cublas";
    if (can_probe) {
      if (std::string why = dynlib::load_refusal_as_root(c.real_path); !why.empty()) {
        c.raw_version = Fact<int>::none("not loaded: " + why, c.real_path);
        can_probe = false;
      }
    }
    if (can_probe) {
      LibVersion v = probe_library_version(c.lib, c.real_path);
      if (v.raw) {
        c.raw_version = Fact<int>::of(static_cast<int>(*v.raw), std::string(c.lib == "cudart" ? "cudaRuntimeGetVersion" : c.lib == "cudnn" ? "cudnnGetVersion" : "ncclGetVersion") + "(" + c.real_path + ")");
        c.version = Fact<std::string>::of(v.version, c.raw_version.source);
        continue;
      }
      c.raw_version = Fact<int>::none(v.error, c.real_path);
    }
    if (!infos().empty()) {
      c.version = Fact<std::string>::of(infos().front().second, "pip metadata next to " + c.real_path);
      continue;
    }
    std::string fv = soname_version(base_name(c.real_path), k->stem);
    if (!fv.empty()) {
      c.version = Fact<std::string>::of(fv, "file name " + c.real_path);
    } else {
      c.version = Fact<std::string>::none(gone ? "deleted from disk and no version in the file name"
                                               : "no version in the file name and the library was not loaded",
                                          c.real_path);
    }
  }
}

Fact<std::string> toolkit_version(const Context& ctx, const Env& env) {
  std::vector<std::string> homes;
  for (const char* v : {"CUDA_HOME", "CUDA_PATH"}) {
    if (!env.get(v).empty()) homes.push_back(env.get(v));
  }
  homes.emplace_back("/usr/local/cuda");
  std::vector<std::string> not_run;  // each nvcc refused, for the reason of a missing version
  // Without the /usr/local/cuda link, the versioned toolkits, newest first.
  if (auto names = ctx.root.list("/usr/local")) {
    std::vector<std::pair<std::vector<int>, std::string>> versioned;
    for (const auto& n : *names) {
      if (!starts_with(n, "cuda-")) continue;
      if (auto v = parse_version_numbers(std::string_view(n).substr(5))) versioned.emplace_back(*v, "/usr/local/" + n);
    }
    std::sort(versioned.begin(), versioned.end(),
              [](const auto& a, const auto& b) { return compare_versions(a.first, b.first) > 0; });
    for (const auto& [v, dir] : versioned) homes.push_back(dir);
  }
  for (const auto& h : homes) {
    if (auto t = ctx.root.read(h + "/version.json")) {
      if (auto v = parse_cuda_version_json(*t)) return Fact<std::string>::of(*v, h + "/version.json");
    }
    if (auto t = ctx.root.read(h + "/version.txt")) {
      if (auto v = parse_cuda_version_txt(*t)) return Fact<std::string>::of(*v, h + "/version.txt");
    }
    // NVIDIA's redistributable layout (pip wheels unpacked into the toolkit) has no version.json;
    // the nvcc wheel's dist-info names the version `nvcc --version` prints, without a process start
    // (5-10 ms of the whole check).
    if (auto names = ctx.root.list(h + "/dist-info")) {
      for (const auto& n : *names) {
        auto d = parse_dist_info_name(n);
        if (!d || d->first != "nvidia_cuda_nvcc") continue;
        std::string where = h;
        where += "/dist-info/";
        where += n;
        return Fact<std::string>::of(d->second, where);
      }
    }
    std::string nvcc = h + "/bin/nvcc";
    // CUDA_HOME may come from --pid's environment: as root, an nvcc another user owns or can change
    // is not run (it would run as root).
    if (ctx.root.is_live() && ctx.root.exists(nvcc)) {
      if (std::string why = dynlib::load_refusal_as_root(nvcc); !why.empty()) {
        std::string note = nvcc;
        note += " --version not run: ";
        note += why;
        not_run.push_back(std::move(note));
        continue;
      }
      RunOptions o;
      o.timeout = std::chrono::milliseconds(3000);
      auto r = run_program({nvcc, "--version"}, o);
      if (r && r->exit_code == 0) {
        if (auto v = parse_nvcc_version(r->out)) return Fact<std::string>::of(*v, nvcc + " --version");
      }
    }
  }
  std::string why = "no CUDA toolkit found (CUDA_HOME, CUDA_PATH, /usr/local/cuda)";
  for (const auto& n : not_run) why += "; " + n;
  return Fact<std::string>::none(why, "/usr/local/cuda");
}

}  // namespace

namespace {

BusyGpus read_busy(const NvmlLibrary& lib, const HostRoot& root) {
  BusyGpus out;
  auto list = nvml_devices(lib);
  if (!list) {
    out.unknown = list.error().message;
    return out;
  }
  std::vector<std::string> failed;
  const OwnPids own(root);
  for (const auto& d : list->devices) {
    if (d.handle == nullptr) continue;
    auto users = other_gpu_users(root, own, lib, d.handle);
    if (!users) {
      failed.push_back(d.bus_id + ": " + users.error().message);
    } else if (!users->empty()) {
      out.by_bus[d.bus_id] = gpu_users_text(std::move(*users));
    }
  }
  if (auto shutdown = lib.api().shutdown) shutdown();
  // A GPU whose processes NVML could not list is tried: say so, as for a missing NVML.
  if (!failed.empty()) out.unknown = join(failed, "; ");
  return out;
}

}  // namespace

BusyGpus busy_gpus(const Context& ctx) {
  BusyGpus out;
  auto lib = NvmlLibrary::open(ctx.nvml_lib);
  if (!lib) {
    out.unknown = lib.error().message;
    return out;
  }
  // NVML hangs on a GPU that fell off the bus (collect.gpu reports which call): the list gets a
  // share of the collector's deadline, and the worker, which owns copies of what it reads, is
  // abandoned past it.
  const auto limit = std::min(ctx.deadline / 4, std::chrono::milliseconds(2000));
  std::shared_ptr<const NvmlLibrary> keep = *lib;
  const HostRoot root = ctx.root;
  auto busy = run_with_deadline<BusyGpus>([keep, root] { return read_busy(*keep, root); }, limit);
  if (busy) return std::move(*busy);
  out.stalled = true;
  out.unknown = concat("NVML did not answer within ", std::to_string(limit.count()),
                       " ms: whether another process uses it is unknown");
  return out;
}

std::optional<std::string> parse_nvidia_module_version(std::string_view text) {
  // NVIDIA's driver README ("Kernel module version"): NVRM version: NVIDIA UNIX x86_64 Kernel Module
  // 535.104.05  <build date>; the open modules print "NVIDIA UNIX Open Kernel Module for x86_64".
  for (auto line : split_lines(text)) {
    if (!line.starts_with("NVRM version:")) continue;
    std::size_t at = line.find("Kernel Module");
    if (at == std::string_view::npos) return std::nullopt;
    for (auto tok : split_ws(line.substr(at))) {
      bool digits = !tok.empty() && tok.size() <= 32 && tok.find('.') != std::string_view::npos;
      for (char c : tok) digits = digits && ((c >= '0' && c <= '9') || c == '.');
      if (digits && tok.front() != '.') return std::string(tok);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

namespace {

// NVIDIA's NVSwitch appears as a PCI bridge of class "other" (0x0680xx) with NVIDIA's vendor id;
// the Fabric Manager User Guide: on NVSwitch systems the GPUs are not usable until the
// nvidia-fabricmanager service (process nv-fabricmanager) has configured the fabric.
Fact<std::vector<std::string>> read_nvswitches(const HostRoot& root) {
  const std::string dir = "/sys/bus/pci/devices";  // read through root
  auto names = root.list(dir);
  if (!names) return Fact<std::vector<std::string>>::none(names.error().describe(), dir);
  std::vector<std::string> out;
  for (const auto& n : *names) {
    if (out.size() >= 64) break;
    auto vendor = root.read_value(dir + "/" + n + "/vendor");
    if (!vendor || *vendor != "0x10de") continue;
    auto cls = root.read_value(dir + "/" + n + "/class");
    if (cls && cls->starts_with("0x0680")) out.push_back(n);
  }
  return Fact<std::vector<std::string>>::of(std::move(out), dir + "/*/{vendor,class}");
}


}  // namespace

CudaStackFacts read_cuda_stack(const Context& ctx, const CudaSearchOptions& opts) {
  CudaStackFacts out;
  out.collected = true;
  out.nvswitches = read_nvswitches(ctx.root);
  if (out.nvswitches.has() && !out.nvswitches.value->empty()) out.fabricmanager_running = process_running(ctx.root, "nv-fabricmanager");
  {
    const std::string src = "/proc/driver/nvidia/version";  // read through root
    if (auto text = ctx.root.read(src, 64u << 10); !text) {
      out.kernel_module_version = Fact<std::string>::none(text.error().describe(), src);
    } else if (auto v = parse_nvidia_module_version(*text)) {
      out.kernel_module_version = Fact<std::string>::of(*v, src);
    } else {
      out.kernel_module_version = Fact<std::string>::none("no \"NVRM version: ... Kernel Module <version>\" line", src);
    }
  }
  Env env = target_env(ctx);
  Finder f(ctx, out);

  // 1. The loader's order: LD_LIBRARY_PATH, then ld.so.cache, then the default directories.
  std::vector<std::string> ld_dirs;
  const std::string ld_path = env.get("LD_LIBRARY_PATH");
  for (auto d : split(ld_path, ':')) {
    if (!d.empty()) ld_dirs.emplace_back(d);
  }
  for (const auto& d : ld_dirs) f.scan_dir(d, "LD_LIBRARY_PATH");
  // The cache's entries for the CUDA libraries, in its order (views into cache_bytes).
  std::vector<LdCacheEntry> cache;
  auto cache_bytes = ctx.root.read("/etc/ld.so.cache", 64u << 20);
  if (cache_bytes) {
    for (const auto& e : parse_ld_so_cache(*cache_bytes)) {
      if (kind_of(e.name) != nullptr) cache.push_back(e);
    }
  }
  for (const auto& e : cache) f.add(std::string(e.path), "ld.so.cache");
  for (const char* d : kDefaultDirs) f.scan_dir(d, "default path");
  // 2. Toolkits: CUDA_HOME/CUDA_PATH and every /usr/local/cuda*.
  for (const char* v : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string h = env.get(v);
    if (h.empty()) continue;
    f.scan_dir(h + "/lib64", v);
    f.scan_dir(h + "/lib", v);
  }
  for (const auto& h : f.glob("/usr/local", "cuda", "")) {
    f.scan_dir(h + "/lib64", "/usr/local/cuda*");
    f.scan_dir(h + "/lib", "/usr/local/cuda*");
    f.scan_dir(h + "/targets/x86_64-linux/lib", "/usr/local/cuda*");
  }
  // 3. Python wheels bring their own copies (nvidia/<pkg>/lib, torch/lib).
  for (const auto& sp : site_packages(f, env)) {
    for (const auto& d : f.glob(sp + "/nvidia", "", "/lib")) f.scan_dir(d, "site-packages");
    f.scan_dir(sp + "/torch/lib", "site-packages");
  }
  // 4. What the process actually mapped.
  out.pid = ctx.pid;
  if (ctx.pid <= 0) {
    out.pid_maps_why = "no --pid given";
  } else if (auto t = ctx.root.read(ctx.proc_dir() + "/maps", 64u << 20); !t) {
    out.pid_maps_why = t.error().message;
  } else {
    out.pid_maps_read = true;
    std::set<std::string> mapped;
    std::vector<std::string> deleted;
    for (const auto& m : parse_proc_maps(*t)) {
      if (kind_of(base_name(m.path)) == nullptr) continue;
      // A " (deleted)" file may have been replaced by a new one at the same path: that new file
      // is not what the process runs.
      if (m.deleted) {
        deleted.push_back(m.path);
        continue;
      }
      f.add(m.path, "process maps");
      mapped.insert(resolve_in_root(ctx.root, m.path));
      mapped.insert(m.path);
    }
    for (auto& c : out.copies) c.mapped = mapped.count(c.real_path) > 0 || mapped.count(c.path) > 0;
    for (const auto& p : deleted) f.add_deleted(p);
  }
  // The loader's pick per soname: first LD_LIBRARY_PATH hit, else the cache, else a default dir.
  std::set<std::string> sonames;
  for (const auto& c : out.copies) {
    if (const CudaLibKind* k = kind_of(base_name(c.real_path))) sonames.insert(soname_of(base_name(c.real_path), *k));
  }
  for (const auto& so : sonames) {
    std::string pick;
    for (const auto& d : ld_dirs) {
      if (!pick.empty()) break;
      if (std::string at = lib_path_in(d, so); ctx.root.exists(at)) pick = at;
    }
    for (const auto& e : cache) {
      if (pick.empty() && e.name == so) pick = e.path;
    }
    for (const char* d : kDefaultDirs) {
      if (pick.empty() && ctx.root.exists(std::string(d) + "/" + so)) pick = std::string(d) + "/" + so;
    }
    if (pick.empty()) continue;
    std::string real = resolve_in_root(ctx.root, pick);
    for (auto& c : out.copies) {
      if (c.real_path == real && c.origin != "process maps (deleted)") c.loader_pick = true;
    }
  }
  fill_versions(ctx, out, opts.probe_versions);
  out.toolkit_version = toolkit_version(ctx, env);
  if (opts.device_query && ctx.root.is_live()) {
    DeviceQueryOptions q;
    // The runtime the loader would give a program: the newest loader-picked libcudart.
    int best = -1;
    for (const auto& c : out.copies) {
      if (c.lib == "cudart" && c.loader_pick && c.raw_version.has() && *c.raw_version > best) {
        best = *c.raw_version;
        q.cudart = c.real_path;
      }
    }
    // As root, a runtime another user can change is not loaded; the driver API still answers.
    std::string refused;
    if (!q.cudart.empty()) refused = dynlib::load_refusal_as_root(q.cudart);
    if (!refused.empty()) q.cudart.clear();
    q.context = parse_cuda_context_mode(ctx.cuda_context).value_or(CudaContextMode::idle);
    if (q.context == CudaContextMode::idle) {
      BusyGpus busy = busy_gpus(ctx);
      q.busy = std::move(busy.by_bus);
      q.busy_unknown = std::move(busy.unknown);
      q.busy_stalled = busy.stalled;
    }
    out.device_query = run_device_query(q);
    if (!refused.empty()) {
      std::string& d = out.device_query.detail;
      d += (d.empty() ? "" : "; ") + std::string("runtime not loaded: ") + refused;
    }
  } else {
    out.device_query.status = "not_run";
    out.device_query.detail = ctx.root.is_live() ? "disabled" : "not run against a --root tree";
  }
  return out;
}

namespace {

}  // namespace

void collect_gpu_cuda_tables(Tables& t) {
  t.add_collector({"collect.cuda", {"CUDA libraries, versions and device query", "CUDA 库、版本与设备查询"},
                                            [](const Context& ctx) -> ApplyFacts {
                                              CudaStackFacts c = read_cuda_stack(ctx);
                                              return [c](Facts& f) { f.gpu.cuda = c; };
                                            }});
}

}  // namespace plumb
