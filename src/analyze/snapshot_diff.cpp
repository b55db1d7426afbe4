// Snapshot comparison: flatten both Facts to path -> text, classify each path into a group,
// compare. Works on the JSON form so fields added by any area are compared without code here.
#include "analyze/snapshot_diff.h"

#include <algorithm>
#include <set>

#include "core/i18n.h"
#include "core/json.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

using Flat = std::map<std::string, std::string>;

// Facts that describe a moment, not the machine's configuration.
const std::set<std::string>& excluded_paths() {
  static const std::set<std::string> s{"meta",          "host.kmsg", "trace", "watch", "framework.python.chosen_by",
                                       "host.process.environ", "framework.env", "comm.env", "allocator", "h5", "topo",
                                       "diff"};
  return s;
}

bool ends_with_text(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// State that changes from one second to the next on the same machine: pressure (PSI), free and
// available memory, resident sizes, temperatures, power, utilisation, current clocks and link
// states, counters, timestamps, durations. Two snapshots of one machine differ in these; they say
// nothing about how the machine is set up, so they are not compared.
bool volatile_field(const std::string& k) {
  static const std::set<std::string> s{"mem_available_bytes", "mem_free_bytes",      "swap_free_bytes", "hugepages_free",
                                       "anon_hugepages_bytes", "memory_current_bytes", "vm_rss_bytes",   "threads",
                                       "oom_kill_events",     "uptime",               "uptime_s",       "temperature_c",
                                       "power_mw",            "util_gpu",             "util_memory",    "memory_used",
                                       "used_memory_bytes",   "memory_reserved",      "clock_sm_mhz",   "clock_mem_mhz",
                                       "clocks_event_reasons", "gen_current",         "width_current",  "cur_link_speed",
                                       "cur_link_width",      "volatile_corrected",   "volatile_uncorrected",
                                       "aggregate_corrected", "aggregate_uncorrected", "pid",
                                       "avail_bytes",         "avail_inodes"};
  if (s.count(k) > 0) return true;
  for (const char* tail : {"_us", "_ms", "_at", "_ns", "duration", "timestamp", "_packets", "_errors", "_drops"}) {
    if (ends_with_text(k, tail)) return true;
  }
  return false;
}

bool volatile_path(const std::string& path) {
  if (path.find("pressure.") != std::string::npos || ends_with_text(path, "pressure")) return true;
  auto dot = path.rfind('.');
  return volatile_field(dot == std::string::npos ? path : path.substr(dot + 1));
}

// Fields that identify one device rather than describe it.
bool identity_field(const std::string& k) {
  static const std::set<std::string> s{"uuid", "bus_id", "pci_bus_id", "serial", "minor_number", "index", "pid",
                                       "board_id", "module_id"};
  return s.count(k) > 0;
}

bool is_fact(const json& j) {
  if (!j.is_object() || j.empty() || !(j.contains("value") || j.contains("missing"))) return false;
  return std::all_of(j.items().begin(), j.items().end(),
                     [](const auto& kv) { return kv.key() == "value" || kv.key() == "missing" || kv.key() == "source"; });
}

std::string scalar_text(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_null()) return "n/a";
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  return j.dump();
}

std::string join_path(const std::string& a, const std::string& b) { return a.empty() ? b : a + "." + b; }

void flatten(const json& j, const std::string& path, Flat& out);

// An array of objects: per field, the multiset of values ("8x NVIDIA H100 80GB HBM3").
void flatten_object_array(const json& arr, const std::string& path, Flat& out) {
  std::map<std::string, std::map<std::string, int>> fields;
  for (const auto& e : arr) {
    if (!e.is_object()) {
      ++fields["(value)"][e.dump()];
      continue;
    }
    for (const auto& [k, v] : e.items()) {
      if (identity_field(k) || volatile_field(k)) continue;
      json val = is_fact(v) ? (v.contains("value") ? v["value"] : json("n/a (" + v["missing"].get<std::string>() + ")")) : v;
      ++fields[k][val.is_primitive() ? scalar_text(val) : val.dump()];
    }
  }
  for (const auto& [k, counts] : fields) {
    std::string text;
    for (const auto& [v, n] : counts) {
      if (!text.empty()) text += "; ";
      text.append(std::to_string(n)).append("x ").append(v);
    }
    std::string key = path;
    key.append("[].").append(k);
    out[key] = text;
  }
}

// Numbers people read differently: byte counts and the NVML CUDA encoding.
std::string readable(const std::string& path, const json& j) {
  if (!j.is_number_unsigned() && !j.is_number_integer()) return scalar_text(j);
  auto v = j.get<long long>();
  if (v >= 0 && path.size() > 6 && path.compare(path.size() - 6, 6, "_bytes") == 0) {
    return human_bytes(static_cast<std::uint64_t>(v)) + " (" + std::to_string(v) + ")";
  }
  if (v > 0 && path.size() >= 19 && path.compare(path.size() - 19, 19, "cuda_driver_version") == 0) {
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10) + " (" + std::to_string(v) + ")";
  }
  return scalar_text(j);
}

void flatten(const json& j, const std::string& path, Flat& out) {
  if (excluded_paths().count(path) || volatile_path(path)) return;
  if (is_fact(j)) {
    if (j.contains("value")) {
      flatten(j["value"], path, out);
    } else {
      out[path] = "n/a (" + scalar_text(j["missing"]) + ")";
    }
    return;
  }
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      if (k == "source" || k == "collected") continue;
      flatten(v, join_path(path, k), out);
    }
    return;
  }
  if (j.is_array()) {
    if (j.empty()) {
      out[path] = "(none)";
    } else if (std::all_of(j.begin(), j.end(), [](const json& e) { return e.is_primitive(); })) {
      std::vector<std::string> v;
      for (const auto& e : j) v.push_back(scalar_text(e));
      std::sort(v.begin(), v.end());
      std::string text;
      for (const auto& s : v) text += (text.empty() ? "" : ", ") + s;
      out[path] = text;
    } else {
      flatten_object_array(j, path, out);
    }
    return;
  }
  out[path] = readable(path, j);
}

// The job's relevant variables, once each: the probe's view overlaid by the NCCL view and the
// target process's environ (comm.env and host.process.environ are not compared on their own).
void flatten_env(const Facts& f, Flat& out, bool& known) {
  std::map<std::string, std::string> env;
  known = f.framework.env.has() || f.host.process.environ.has() || f.comm.env.has();
  if (f.framework.env.has()) env = *f.framework.env;
  if (f.comm.env.has()) {
    for (const auto& [k, v] : *f.comm.env) env[k] = v;
  }
  if (f.host.process.environ.has()) {
    for (const auto& [k, v] : *f.host.process.environ) env[k] = v;
  }
  for (const auto& [k, v] : env) {
    if (relevant_env_var(k)) out["env." + k] = v;
  }
}

std::string last_component(const std::string& path) {
  auto p = path.rfind('.');
  return p == std::string::npos ? path : path.substr(p + 1);
}

std::string group_of(const std::string& path) {
  auto under = [&](const char* prefix) { return starts_with(path, prefix); };
  if (under("host.os.")) return "os";
  if (under("framework.torch.devices")) return "gpu";
  if (under("gpu.")) {
    if (path.find("driver") != std::string::npos) return "driver";
    return "gpu";
  }
  if (under("comm.")) return "topology";
  if (under("framework.h5py")) return "hdf5";
  if (under("env.")) return "env";
  if (under("framework.")) {
    static const std::set<std::string> libs{"cudnn_compiled", "cudnn_runtime", "nccl", "cudnn"};
    static const std::set<std::string> numerics{"tf32_matmul",         "tf32_cudnn",       "cudnn_benchmark",
                                                "cudnn_deterministic", "cudnn_enabled",    "deterministic_algorithms",
                                                "float32_matmul_precision"};
    std::string last = last_component(path);
    if (libs.count(last)) return "libs";
    if (numerics.count(last)) return "numerics";
    return "framework";
  }
  if (under("host.cpu.")) return "cpu";
  if (under("host.memory.")) return "memory";
  if (under("host.cgroup.")) return "cgroup";
  if (under("host.storage.")) return "storage";
  if (under("bench.")) return "bench";
  return "other";
}

bool within_noise(const std::string& a, const std::string& b) {
  auto x = parse_double(a), y = parse_double(b);
  if (!x || !y) return false;
  double m = std::max(std::abs(*x), std::abs(*y));
  return m == 0 || std::abs(*x - *y) / m <= 0.05;
}

std::string summary_under(const Flat& f, const std::string& prefix) {
  auto v = f.find(prefix + ".version");
  return v != f.end() ? v->second : std::string("present");
}

}  // namespace

const std::vector<std::string>& diff_groups() {
  static const std::vector<std::string> g{"os",  "driver", "gpu",    "topology", "framework", "libs",  "numerics", "cpu",
                                          "memory", "cgroup", "storage", "env",   "hdf5",      "bench", "other"};
  return g;
}

SnapshotDiff diff_facts(const Facts& a, const Facts& b) {
  Flat fa, fb;
  flatten(json(a), "", fa);
  flatten(json(b), "", fb);
  bool env_a = false, env_b = false;
  flatten_env(a, fa, env_a);
  flatten_env(b, fb, env_b);

  std::set<std::string> paths;
  for (const auto& [k, v] : fa) paths.insert(k);
  for (const auto& [k, v] : fb) paths.insert(k);

  SnapshotDiff d;
  std::set<std::string> collapsed;  // prefixes already reported as "present vs n/a"
  auto absent = [](const std::string& path, bool env_known) {
    if (starts_with(path, "env.")) return env_known ? std::string("(unset)") : std::string("n/a (not collected)");
    return std::string("(absent)");
  };
  for (const auto& p : paths) {
    auto ia = fa.find(p), ib = fb.find(p);
    std::string group = group_of(p);
    if (ia != fa.end() && ib != fb.end()) {
      bool same = ia->second == ib->second || (group == "bench" && within_noise(ia->second, ib->second));
      if (same) {
        ++d.identical[group];
      } else {
        d.differences.push_back({group, p, ia->second, ib->second});
      }
      continue;
    }
    // Present on one side only: a missing Fact on the other side covers the whole subtree.
    const Flat& have = ia != fa.end() ? fa : fb;
    const Flat& lack = ia != fa.end() ? fb : fa;
    std::string prefix = p;
    bool found = false;
    while (true) {
      auto dot = prefix.rfind('.');
      if (dot == std::string::npos) break;
      prefix.resize(dot);
      if (lack.count(prefix)) {
        found = true;
        break;
      }
    }
    if (found) {
      if (collapsed.insert(prefix).second) {
        std::string present = summary_under(have, prefix);
        std::string missing = lack.at(prefix);
        bool a_has = ia != fa.end();
        d.differences.push_back({group_of(prefix), prefix, a_has ? present : missing, a_has ? missing : present});
      }
      continue;
    }
    bool a_has = ia != fa.end();
    d.differences.push_back({group, p, a_has ? ia->second : absent(p, env_a), a_has ? absent(p, env_b) : ib->second});
  }
  // The whole-subtree items replace the "n/a" leaf on the other side, which the loop also met.
  d.differences.erase(std::remove_if(d.differences.begin(), d.differences.end(),
                                     [&](const DiffItem& it) {
                                       return collapsed.count(it.path) && it.a.rfind("n/a", 0) == 0 &&
                                              it.b == "(absent)";
                                     }),
                      d.differences.end());
  d.differences.erase(std::remove_if(d.differences.begin(), d.differences.end(),
                                     [&](const DiffItem& it) {
                                       return collapsed.count(it.path) && it.b.rfind("n/a", 0) == 0 &&
                                              it.a == "(absent)";
                                     }),
                      d.differences.end());
  const auto& order = diff_groups();
  auto rank = [&](const std::string& g) { return std::find(order.begin(), order.end(), g) - order.begin(); };
  std::stable_sort(d.differences.begin(), d.differences.end(), [&](const DiffItem& x, const DiffItem& y) {
    return std::make_pair(rank(x.group), x.path) < std::make_pair(rank(y.group), y.path);
  });
  return d;
}

namespace {

}  // namespace

void analyze_snapshot_diff_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"diff.group.os", {"OS and kernel", "操作系统与内核"}},
    {"diff.why.os",
     {"kernel and C library change drivers, getrandom(), scheduling and I/O: same code, different results (the "
      "reproducibility illusion)",
      "内核与 C 库会改变驱动、getrandom()、调度与 I/O 行为：同样的代码得到不同结果（复现性幻觉）"}},
    {"diff.group.driver", {"NVIDIA driver and CUDA driver API", "NVIDIA 驱动与 CUDA 驱动版本"}},
    {"diff.why.driver",
     {"the driver decides which CUDA versions run and which JIT and kernel paths are taken",
      "驱动决定可运行的 CUDA 版本以及所走的 JIT 和内核路径"}},
    {"diff.group.gpu", {"GPU model and form factor", "GPU 型号与形态"}},
    {"diff.why.gpu",
     {"the same name can be PCIe or SXM: different power, clocks and NVLink bandwidth (the hardware transparency "
      "illusion)",
      "同名 GPU 可能是 PCIe 版或 SXM 版：功耗、频率和 NVLink 带宽都不同（硬件透明性错觉）"}},
    {"diff.group.topology", {"Topology and NCCL", "拓扑与 NCCL"}},
    {"diff.why.topology",
     {"NVLink, PCIe switches and NUMA placement set all-reduce bandwidth", "NVLink、PCIe 交换机和 NUMA 位置决定 all-reduce 带宽"}},
    {"diff.group.framework", {"Frameworks and builds", "框架与构建版本"}},
    {"diff.why.framework",
     {"different framework and CUDA builds pick different kernels: results and speed differ",
      "不同的框架与 CUDA 构建会选用不同的内核：结果和速度都会不同"}},
    {"diff.group.libs", {"cuDNN and NCCL", "cuDNN 与 NCCL"}},
    {"diff.why.libs",
     {"cuDNN and NCCL versions change convolution algorithms and collective protocols",
      "cuDNN 与 NCCL 版本会改变卷积算法和集合通信协议"}},
    {"diff.group.numerics", {"Numerics defaults (TF32, determinism)", "数值默认设置（TF32、确定性）"}},
    {"diff.why.numerics",
     {"TF32 and determinism defaults change the numbers a model computes", "TF32 与确定性默认值会改变模型的计算结果"}},
    {"diff.group.cpu", {"CPU", "CPU"}},
    {"diff.why.cpu", {"data loading and host-side work run on these cores", "数据加载与主机侧计算运行在这些核心上"}},
    {"diff.group.memory", {"Host memory", "主机内存"}},
    {"diff.why.memory", {"page cache, pinned memory and worker count depend on it", "页缓存、锁页内存和 worker 数量都取决于它"}},
    {"diff.group.cgroup", {"cgroup limits", "cgroup 限制"}},
    {"diff.why.cgroup",
     {"CPU quota and memory limits throttle data loading and can OOM-kill workers",
      "CPU 配额和内存限制会拖慢数据加载，并可能导致 worker 被 OOM 杀死"}},
    {"diff.group.storage", {"Storage and I/O scheduler", "存储与 I/O 调度器"}},
    {"diff.why.storage", {"read throughput of the data path", "数据路径的读取吞吐"}},
    {"diff.group.env", {"Environment variables", "环境变量"}},
    {"diff.why.env",
     {"NCCL, CUDA, allocator and threading variables change behaviour without any code change",
      "NCCL、CUDA、显存分配器和线程相关变量无需改代码即可改变行为"}},
    {"diff.group.hdf5", {"HDF5 library and filters", "HDF5 库与压缩过滤器"}},
    {"diff.why.hdf5",
     {"a different libhdf5 or missing filter (szip) changes how files are written and read (the data consistency "
      "illusion)",
      "不同的 libhdf5 或缺少过滤器（szip）会改变文件的写入与读取（数据一致性假象）"}},
    {"diff.group.bench", {"Benchmark results (beyond 5 %)", "基准测试结果（差异超过 5%）"}},
    {"diff.why.bench", {"measured speed of the same operation", "同一操作的实测速度"}},
    {"diff.group.other", {"Other facts", "其他事实"}},
    {"diff.why.other", {"collected by plumb; check whether it matters here", "由 plumb 采集；请判断是否相关"}},
    {"diff.title", {"Environment differences", "环境差异"}},
    {"diff.summary",
     {"{n} differences that matter for reproducibility and speed; {same} facts identical.",
      "{n} 处差异会影响可复现性与速度；{same} 项事实相同。"}},
    {"diff.none", {"No difference in the compared facts.", "所比较的事实没有差异。"}},
    {"diff.identical", {"Identical", "相同"}},
    {"diff.why", {"why it matters", "影响"}},
};
});
}

}  // namespace plumb
