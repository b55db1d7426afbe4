// The report's Environment block: one registration per area, in display order (OS 10, CPU 20,
// memory 30, GPU 30 in gpu_table.cpp, cgroup/framework/process 40, storage 50, kernel log 60).
// Lines are language-neutral values; their labels are UI-string keys.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/i18n.h"
#include "core/knowledge/env_vars.h"
#include "core/text.h"
#include "report/report.h"
#include "core/tables.h"

namespace plumb {

namespace {

std::string na_because(const std::string& why) { return "n/a (" + why + ")"; }

// "performance ×32, powersave ×32": governor counts in a language-neutral form.
std::string governor_summary(const std::vector<CpuGovernor>& govs) {
  std::map<std::string, int> count;
  for (const auto& g : govs) ++count[g.governor];
  std::string s;
  for (const auto& [g, n] : count) s += (s.empty() ? "" : ", ") + g + " ×" + std::to_string(n);
  return s;
}


std::string torch_line(const Fact<TorchFacts>& t) {
  if (!t.has()) return "n/a (" + t.why() + ")";
  std::string s = t->version + " (";
  if (t->cuda) {
    s += "CUDA " + *t->cuda;
  } else if (t->hip) {
    s += "ROCm/HIP " + *t->hip;
  } else {
    s += "torch.version.cuda=None";
  }
  if (t->cudnn_runtime) s += ", cuDNN " + *t->cudnn_runtime;
  if (t->nccl) s += ", NCCL " + *t->nccl;
  if (t->cuda_available) s += std::string(", cuda.is_available()=") + (*t->cuda_available ? "True" : "False");
  if (t->device_count && *t->device_count > 0) s += ", " + std::to_string(*t->device_count) + " GPU";
  return s + ")";
}

// os

// cpu

// memory

// cgroup

// python_probe

// host_env

// storage

// kmsg

}  // namespace

void report_env_lines_tables(Tables& t, ReportTables& r) {
  r.add_env_lines(10, [](const Facts& f) {
  std::vector<EnvLine> l;
  const auto& os = f.host.os;
  l.push_back({"env.os", os.pretty_name.has() ? *os.pretty_name : "n/a (" + os.pretty_name.why() + ")"});
  l.push_back({"env.kernel", os.kernel.has() ? *os.kernel : "n/a (" + os.kernel.why() + ")"});
  return l;
});
  t.add_ui([] {
  return std::vector<UiString>{{"env.os", {"OS", "操作系统"}}, {"env.kernel", {"Kernel", "内核"}}};
});
  r.add_env_lines(20, [](const Facts& f) {
  std::vector<EnvLine> l;
  const auto& c = f.host.cpu;
  if (!c.collected) return l;
  l.push_back({"env.cpu_model", c.model.has() ? *c.model : na_because(c.model.why())});
  auto num = [](const Fact<int>& v) { return v.has() ? std::to_string(*v) : std::string("?"); };
  l.push_back({"env.cpu_topology", num(c.sockets) + " / " + num(c.physical_cores) + " / " + num(c.logical_cpus)});
  if (c.numa_nodes.has()) {
    std::string s = std::to_string(c.numa_nodes->size());
    std::string detail;
    for (const auto& n : *c.numa_nodes) {
      detail += (detail.empty() ? "" : "; ") + std::string("node") + std::to_string(n.id) + ": " +
                (n.cpulist.empty() ? "-" : n.cpulist);
    }
    l.push_back({"env.numa_nodes", s + " (" + detail + ")"});
  } else {
    l.push_back({"env.numa_nodes", na_because(c.numa_nodes.why())});
  }
  l.push_back({"env.cpu_governor", c.governors.has() ? governor_summary(*c.governors) : na_because(c.governors.why())});
  return l;
});
  t.add_ui([] {
  return std::vector<UiString>{
    {"env.cpu_model", {"CPU", "CPU 型号"}},
    {"env.cpu_topology", {"CPU sockets / cores / logical CPUs", "CPU 路数 / 物理核 / 逻辑核"}},
    {"env.numa_nodes", {"NUMA nodes", "NUMA 节点"}},
    {"env.cpu_governor", {"CPU frequency governor", "CPU 调频策略"}},
};
});
  r.add_env_lines(30, [](const Facts& f) {
  std::vector<EnvLine> l;
  const auto& m = f.host.memory;
  if (!m.collected) return l;
  auto bytes = [](const Fact<std::uint64_t>& v) { return v.has() ? human_bytes(*v) : na_because(v.why()); };
  l.push_back({"env.memory", bytes(m.mem_total_bytes) + " / " + bytes(m.mem_available_bytes)});
  std::string swap = bytes(m.swap_total_bytes);
  if (m.swap_total_bytes.has() && m.swap_free_bytes.has() && *m.swap_total_bytes >= *m.swap_free_bytes) {
    swap += " / " + human_bytes(*m.swap_total_bytes - *m.swap_free_bytes);
  }
  if (m.swappiness.has()) swap += " (vm.swappiness=" + std::to_string(*m.swappiness) + ")";
  l.push_back({"env.swap", swap});
  std::string thp = m.thp_enabled.has() ? *m.thp_enabled : na_because(m.thp_enabled.why());
  if (m.thp_defrag.has()) thp += " / " + *m.thp_defrag;
  l.push_back({"env.thp", thp});
  if (m.hugepages_total.has() && *m.hugepages_total > 0) {
    std::string hp = std::to_string(*m.hugepages_total);
    if (m.hugepage_size_bytes.has()) hp += " × " + human_bytes(*m.hugepage_size_bytes);
    if (m.hugepages_free.has()) hp += " (" + std::to_string(*m.hugepages_free) + " free)";
    l.push_back({"env.hugepages", hp});
  }
  return l;
});
  t.add_ui([] {
  return std::vector<UiString>{
    {"env.memory", {"Memory (total / available)", "内存（总量 / 可用）"}},
    {"env.swap", {"Swap (total / used)", "交换分区（总量 / 已用）"}},
    {"env.thp", {"Transparent hugepages (enabled / defrag)", "透明大页（enabled / defrag）"}},
    {"env.hugepages", {"Huge pages (static)", "静态大页"}},
};
});
  r.add_env_lines(40, [](const Facts& f) {
  const auto& cg = f.host.cgroup;
  if (!cg.collected) return std::vector<EnvLine>{};
  std::vector<EnvLine> l;
  std::string v = cg.version.has() ? "v" + std::to_string(*cg.version) : "n/a (" + cg.version.why() + ")";
  if (cg.path.has()) v += " " + *cg.path;
  l.push_back({"env.cgroup", v});
  std::string mem = cg.memory_limit_bytes.has() ? human_bytes(*cg.memory_limit_bytes)
                    : cg.memory_limit_raw.has() ? "\u221e (" + *cg.memory_limit_raw + ")"  // no limit: "max" or v1's huge number
                                                : "n/a (" + cg.memory_limit_bytes.why() + ")";
  l.push_back({"env.cgroup_memory", mem});
  l.push_back({"env.cgroup_cpus", cg.effective_cpus.has() ? fmt_num(*cg.effective_cpus, 2) : "n/a (" + cg.effective_cpus.why() + ")"});
  return l;
});
  t.add_ui([] {
  return std::vector<UiString>{{"env.cgroup", {"cgroup", "cgroup"}},
                              {"env.cgroup_memory", {"cgroup memory limit", "cgroup 内存上限"}},
                              {"env.cgroup_cpus", {"CPUs granted by the cgroup", "cgroup 实际可用 CPU 数"}}};
});
  r.add_env_lines(40, [](const Facts& f) {
  std::vector<EnvLine> l;
  const auto& fw = f.framework;
  if (!fw.collected) return l;
  l.push_back({"env.python", fw.python.has() ? fw.python->version + " (" + fw.python->executable + ")"
                                             : "n/a (" + fw.python.why() + ")"});
  if (!fw.python.has()) return l;
  l.push_back({"env.pytorch", torch_line(fw.torch)});
  if (fw.tensorflow.has()) l.push_back({"env.tensorflow", fw.tensorflow->version});
  if (fw.jax.has()) {
    std::string v = fw.jax->version + " (jaxlib " + fw.jax->jaxlib;
    for (const auto& p : fw.jax->plugins) v += ", " + p;
    l.push_back({"env.jax", v + ")"});
  }
  if (fw.onnxruntime.has()) {
    std::string p;
    for (const auto& x : fw.onnxruntime->providers) p += (p.empty() ? "" : ", ") + x;
    l.push_back({"env.onnxruntime", fw.onnxruntime->version + " (" + p + ")"});
  }
  if (fw.numpy.has()) l.push_back({"env.numpy", fw.numpy->version});
  if (fw.h5py.has()) l.push_back({"env.h5py", fw.h5py->version + " (HDF5 " + fw.h5py->hdf5_version + ")"});
  return l;
});
  t.add_ui([] {
  return std::vector<UiString>{{"env.python", {"Python", "Python"}},
                              {"env.pytorch", {"PyTorch", "PyTorch"}},
                              {"env.tensorflow", {"TensorFlow", "TensorFlow"}},
                              {"env.jax", {"JAX", "JAX"}},
                              {"env.onnxruntime", {"ONNX Runtime", "ONNX Runtime"}},
                              {"env.numpy", {"numpy", "numpy"}},
                              {"env.h5py", {"h5py", "h5py"}}};
});
  r.add_env_lines(40, [](const Facts& f) {
  std::vector<EnvLine> l;
  const auto& p = f.host.process;
  if (!p.collected) return l;
  std::string s;
  if (p.environ.has()) {
    for (const auto& [k, v] : *p.environ) {
      if (!relevant_env_var(k)) continue;
      std::string shown = v.size() > 120 ? v.substr(0, 117) + "..." : v;
      s.append(s.empty() ? "" : ", ").append(k).append("=").append(shown);
    }
    if (s.empty()) s = "-";
  } else {
    s = "n/a (" + p.environ.why() + ")";
  }
  l.push_back({"env.process_env", s});
  return l;
});
  t.add_ui([] {
  return std::vector<UiString>{{"env.process_env", {"CUDA/NCCL/PyTorch/thread variables", "CUDA/NCCL/PyTorch/线程相关环境变量"}}};
});
  r.add_env_lines(50, [](const Facts& f) {
  const auto& st = f.host.storage;
  std::vector<EnvLine> l;
  if (!st.collected) return l;
  if (st.block_devices.has()) {
    std::string v;
    for (const auto& d : *st.block_devices) {
      if (d.kind == "loop" || d.kind == "ram" || d.kind == "zram" || d.kind == "optical") continue;
      if (!v.empty()) v += "; ";
      v += d.name;
      if (d.rotational.has()) v += *d.rotational ? " HDD" : " SSD";
      if (d.scheduler.has()) v += " [" + *d.scheduler + "]";
      if (d.read_ahead_kb.has()) v += " ra=" + std::to_string(*d.read_ahead_kb) + "k";
    }
    l.push_back({"env.block_devices", v.empty() ? "-" : v});
  } else {
    l.push_back({"env.block_devices", "n/a (" + st.block_devices.why() + ")"});
  }
  std::string shm;
  if (st.shm.size_bytes.has()) {
    shm = human_bytes(*st.shm.size_bytes);
  } else if (st.shm.size_percent_of_ram.has()) {
    shm = fmt_num(*st.shm.size_percent_of_ram, 1) + "% RAM";
    if (f.host.memory.mem_total_bytes.has()) {
      shm += " = " + human_bytes(static_cast<std::uint64_t>(static_cast<double>(*f.host.memory.mem_total_bytes) *
                                                            *st.shm.size_percent_of_ram / 100.0));
    }
  } else {
    shm = "n/a (" + st.shm.size_bytes.why() + ")";
  }
  l.push_back({"env.shm", shm});
  for (const auto& d : st.data_paths) {
    std::string v = d.path + ": ";
    v += d.fs_type.has() ? *d.fs_type : "n/a (" + d.fs_type.why() + ")";
    if (d.source.has()) v += " " + *d.source;
    if (d.device.has()) v += " (" + *d.device + ")";
    l.push_back({"env.data_path", v});
  }
  return l;
});
  t.add_ui([] {
  return std::vector<UiString>{{"env.block_devices", {"Block devices", "块设备"}},
                              {"env.shm", {"/dev/shm", "/dev/shm"}},
                              {"env.data_path", {"Data path", "数据路径"}}};
});
  r.add_env_lines(60, [](const Facts& f) {
  const auto& k = f.host.kmsg;
  std::vector<EnvLine> l;
  if (!k.collected) return l;
  if (!k.records.has()) {
    l.push_back({"env.kmsg", "n/a (" + k.records.why() + ")"});
    return l;
  }
  std::uint64_t xids = 0;
  for (const auto& x : k.xids) xids += x.count;
  // Language-neutral counters: the findings carry the sentences.
  l.push_back({"env.kmsg", k.records.source + ": records=" + std::to_string(*k.records) +
                               " oom_kills=" + std::to_string(k.oom_kill_total) + " xid=" + std::to_string(xids) +
                               (k.truncated ? " (truncated)" : "")});
  return l;
});
  t.add_ui([] {
  return std::vector<UiString>{{"env.kmsg", {"Kernel log", "内核日志"}}};
});
}

}  // namespace plumb
