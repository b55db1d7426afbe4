// The GPU layer's per-GPU table (model, bus id, memory, temperature, power, PCIe, ECC, throttle,
// verdict) for the Markdown and terminal reports, and the environment lines of the GPU stack.
#include <functional>
#include <map>
#include <sstream>

#include "collect/gpu_nvml.h"
#include "core/knowledge/cuda_version.h"
#include "vendor/nvml.h"
#include "report/report.h"
#include "report/table.h"
#include "core/tables.h"

namespace plumb {

namespace {

template <class T>
std::string or_na(const Fact<T>& f, const std::function<std::string(const T&)>& show) {
  return f.has() ? show(*f) : std::string("n/a");
}

struct Row {
  std::vector<std::string> cells;
};

std::vector<Row> rows(const Report& r, Lang lang) {
  std::vector<Row> out;
  for (const auto& d : r.facts.gpu.devices) {
    std::string subject = d.bus_id.empty() ? "" : "gpu " + d.bus_id;
    // The GPU's verdict: its worst finding (healthy GPUs only appear in the folded pass findings).
    Status worst = Status::pass;
    int problems = 0;
    for (const auto& f : r.findings) {
      if (f.subject != subject || subject.empty() || f.status == Status::skip) continue;
      if (f.status < worst) worst = f.status;
      if (f.status == Status::fail || f.status == Status::warn) ++problems;
    }
    if (!d.lost.empty()) worst = Status::fail;
    std::string verdict = std::string(status_icon(worst)) + " " + tr(lang, std::string("status.") + status_name(worst));
    if (problems > 1) verdict += " ×" + std::to_string(problems);
    Row row;
    if (!d.lost.empty()) {
      row.cells = {d.bus_id.empty() ? "#" + std::to_string(d.nvml_index) : d.bus_id, d.name.empty() ? "?" : d.name,
                   d.lost, "", "", "", "", "", verdict};
      out.push_back(row);
      continue;
    }
    std::string mem = "n/a";
    if (d.memory_total.has()) {
      mem = (d.memory_used.has() ? std::to_string(*d.memory_used >> 20) : std::string("?")) + " / " +
            std::to_string(*d.memory_total >> 20) + " MiB";
    }
    std::string temp = or_na<int>(d.temperature_c, [](const int& t) { return std::to_string(t) + " °C"; });
    std::string power = or_na<int>(d.power_mw, [](const int& p) { return std::to_string((p + 500) / 1000) + " W"; });
    if (d.power_mw.has() && d.power_limit_mw.has()) power += " / " + std::to_string((*d.power_limit_mw + 500) / 1000) + " W";
    std::string pcie = "n/a";
    if (d.pcie.gen_current.has() && d.pcie.width_current.has()) {
      pcie = "Gen" + std::to_string(*d.pcie.gen_current) + " x" + std::to_string(*d.pcie.width_current);
      if (d.pcie.gen_max.has() && d.pcie.width_max.has()) {
        pcie += " (max Gen" + std::to_string(*d.pcie.gen_max) + " x" + std::to_string(*d.pcie.width_max) + ")";
      }
    }
    std::string ecc = "n/a";
    if (d.ecc.enabled.has()) {
      ecc = *d.ecc.enabled ? "on" : "off";
      if (*d.ecc.enabled && d.ecc.volatile_uncorrected.has()) ecc += ", " + std::to_string(*d.ecc.volatile_uncorrected) + " uncorr.";
    }
    std::string thr = or_na<std::uint64_t>(d.clocks_event_reasons,
                                           [](const std::uint64_t& m) { return describe_event_reasons(m); });
    row.cells = {d.bus_id, d.name, mem, temp, power, pcie, ecc, thr, verdict};
    out.push_back(row);
  }
  return out;
}

std::string gpu_table(const Report& r, Lang lang, const std::string& format) {
  const GpuFacts& g = r.facts.gpu;
  if (!g.collected || !g.unavailable.empty() || g.devices.empty()) return {};
  std::vector<std::string> head;
  for (const char* k : {"gpu.col.bus", "gpu.col.model", "gpu.col.memory", "gpu.col.temp", "gpu.col.power", "gpu.col.pcie",
                        "gpu.col.ecc", "gpu.col.throttle", "gpu.col.verdict"}) {
    head.push_back(tr(lang, k));
  }
  auto body = rows(r, lang);
  std::ostringstream os;
  if (format == "md" || format == "html") {
    TextTable t{head};
    for (const auto& row : body) t.push_back(row.cells);
    return render_table(t, format) + (format == "md" ? "\n" : "");
  }
  // Terminal: one line per GPU, the verdict first so a failing GPU stands out.
  os << "\n  " << tr(lang, "section.gpu") << ":\n";
  for (const auto& row : body) {
    os << "    " << row.cells[8] << "  " << row.cells[0] << "  " << row.cells[1];
    for (std::size_t i = 2; i < 8; ++i) {
      if (!row.cells[i].empty()) os << " | " << row.cells[i];
    }
    os << "\n";
  }
  return os.str();
}

std::string versions_of(const CudaStackFacts& c, const std::string& lib) {
  std::string out;
  for (const auto& x : c.copies) {
    if (x.lib != lib || !x.loader_pick) continue;
    out += (out.empty() ? "" : ", ") + (x.version.has() ? *x.version : std::string("?")) + " (" + x.real_path + ")";
  }
  int others = 0;
  for (const auto& x : c.copies) others += (x.lib == lib && !x.loader_pick) ? 1 : 0;
  if (out.empty() && others == 0) return "n/a (not found)";
  if (out.empty()) out = "not on the loader path";
  if (others > 0) out += " +" + std::to_string(others);
  return out;
}




}  // namespace
void report_gpu_table_tables(Tables& t, ReportTables& r) {
  r.add_report_block(
    10, {Section::gpu, [](const Report& r, const RenderOptions& o, const std::string& format) {
           return gpu_table(r, o.lang, format);
         }});
  r.add_env_lines(30, [](const Facts& f) {
  std::vector<EnvLine> l;
  const GpuFacts& g = f.gpu;
  if (g.collected) {
    std::string drv = !g.unavailable.empty() ? "n/a (" + g.unavailable + ")"
                      : g.driver_version.has() ? *g.driver_version
                                               : "n/a (" + g.driver_version.why() + ")";
    l.push_back({"env.nvidia_driver", drv});
    if (g.unavailable.empty()) {
      l.push_back({"env.cuda_driver", g.cuda_driver_version.has() ? decode_cuda_version(*g.cuda_driver_version)
                                                                   : "n/a (" + g.cuda_driver_version.why() + ")"});
      std::string models;
      std::map<std::string, int> count;
      for (const auto& d : g.devices) ++count[d.name.empty() ? "?" : d.name];
      for (const auto& [n, c] : count) models += (models.empty() ? "" : ", ") + std::to_string(c) + "× " + n;
      l.push_back({"env.gpus", models.empty() ? "0" : models});
    }
  }
  if (g.cuda.collected) {
    l.push_back({"env.cuda_runtime", versions_of(g.cuda, "cudart")});
    l.push_back({"env.cuda_toolkit", g.cuda.toolkit_version.has() ? *g.cuda.toolkit_version
                                                                  : "n/a (" + g.cuda.toolkit_version.why() + ")"});
    l.push_back({"env.cudnn", versions_of(g.cuda, "cudnn")});
    l.push_back({"env.nccl", versions_of(g.cuda, "nccl")});
  }
  return l;
});
  t.add_ui([] {
  return std::vector<UiString>{
    {"env.nvidia_driver", {"NVIDIA driver", "NVIDIA 驱动"}},
    {"env.cuda_driver", {"CUDA (driver)", "CUDA（驱动支持）"}},
    {"env.gpus", {"GPUs", "GPU"}},
    {"env.cuda_runtime", {"CUDA runtime", "CUDA 运行时"}},
    {"env.cuda_toolkit", {"CUDA toolkit", "CUDA 工具包"}},
    {"env.cudnn", {"cuDNN", "cuDNN"}},
    {"env.nccl", {"NCCL", "NCCL"}},
    {"gpu.col.bus", {"Bus id", "总线号"}},
    {"gpu.col.model", {"Model", "型号"}},
    {"gpu.col.memory", {"Memory used", "显存占用"}},
    {"gpu.col.temp", {"Temp", "温度"}},
    {"gpu.col.power", {"Power", "功耗"}},
    {"gpu.col.pcie", {"PCIe", "PCIe"}},
    {"gpu.col.ecc", {"ECC", "ECC"}},
    {"gpu.col.throttle", {"Clock events", "降频原因"}},
    {"gpu.col.verdict", {"Verdict", "结论"}},
};
});
}

}  // namespace plumb
