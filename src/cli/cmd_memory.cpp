// `plumb memory FILE...`: explains torch.cuda.memory_stats() / memory_summary() output and CUDA
// out-of-memory messages (OOMs, retries, fragmentation, pressure) with the advice that fits.
#include <memory>
#include <sstream>

#include "analyze/memory_stats.h"
#include "cli/check_options.h"
#include "cli/subcommand.h"
#include "core/catalog.h"
#include "core/text.h"

namespace plumb {

namespace {

struct MemoryArgs {
  std::vector<std::string> files;
  std::string gpu_memory;
  std::string config;
  OutputOptions output;
};

struct Analysed {
  std::string file;
  MemoryInput input;
  std::vector<Finding> findings;
};

json stat_json(const AllocStat& s) {
  return {{"current", s.current}, {"peak", s.peak}, {"allocated", s.allocated}, {"freed", s.freed}};
}

std::string render_json_memory(const std::vector<Analysed>& all, Lang lang) {
  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["tool"] = {{"name", "plumb"}, {"version", plumb_version()}};
  doc["lang"] = lang_code(lang);
  json files = json::array();
  std::vector<Finding> every;
  for (const auto& a : all) {
    json f;
    f["file"] = a.file;
    f["format"] = a.input.format;
    json devs = json::array();
    for (const auto& d : a.input.devices) {
      devs.push_back({{"device", d.device}, {"num_ooms", d.num_ooms}, {"num_alloc_retries", d.num_alloc_retries},
                      {"allocated_bytes", stat_json(d.allocated_bytes)}, {"reserved_bytes", stat_json(d.reserved_bytes)},
                      {"active_bytes", stat_json(d.active_bytes)}, {"requested_bytes", stat_json(d.requested_bytes)},
                      {"inactive_split_bytes", stat_json(d.inactive_split_bytes)},
                      {"allocations", stat_json(d.allocations)}, {"segments", stat_json(d.segments)},
                      {"truncated", d.truncated}});
    }
    f["devices"] = devs;
    json ooms = json::array();
    for (const auto& o : a.input.ooms) {
      ooms.push_back({{"device", o.device}, {"tried", o.tried}, {"capacity", o.capacity}, {"free", o.free},
                      {"allocated_by_torch", o.allocated_by_torch}, {"reserved_by_torch", o.reserved_by_torch},
                      {"reserved_unallocated", o.reserved_unallocated}, {"text", o.text}});
    }
    f["oom_messages"] = ooms;
    json fs = json::array();
    for (const auto& x : a.findings) {
      json j = x;
      j["message"] = finding_message(x, lang);
      j["fix"] = finding_fix(x, lang);
      j["verify"] = finding_verify(x);
      fs.push_back(j);
      every.push_back(x);
    }
    f["findings"] = fs;
    files.push_back(f);
  }
  doc["files"] = files;
  doc["exit_code"] = exit_code_for(every);
  return doc.dump(2) + "\n";
}

std::string render_text_memory(const std::vector<Analysed>& all, Lang lang, bool md) {
  std::ostringstream os;
  for (const auto& a : all) {
    os << (md ? "## " : "") << "plumb memory: " << a.file << " (" << a.input.format << ", "
       << a.input.devices.size() << " " << tr(lang, "memory.devices") << ", " << a.input.ooms.size() << " "
       << tr(lang, "memory.oom_messages") << ")\n\n";
    for (const auto& f : a.findings) {
      const CatalogEntry* e = find_entry(f.id);
      std::string title = e != nullptr ? e->title.in(lang) : f.id;
      std::string st = tr(lang, std::string("status.") + status_name(f.status));
      if (md) {
        os << "- **[" << st << "] " << title << "** (" << f.subject << "): " << finding_message(f, lang) << " `"
           << f.id << "`\n";
      } else {
        os << "[" << st << "] " << title << " (" << f.subject << ")  " << f.id << "\n    " << finding_message(f, lang)
           << "\n";
      }
      if (f.status != Status::fail && f.status != Status::warn) continue;
      std::string ind = md ? "  - " : "    ";
      for (const auto& ev : f.evidence) {
        os << ind << tr(lang, "label.evidence") << ": " << ev.what << " = " << ev.value;
        if (!ev.source.empty()) os << " (" << ev.source << ")";
        os << "\n";
      }
      if (!f.threshold.empty()) os << ind << tr(lang, "label.threshold") << ": " << f.threshold << "\n";
      os << ind << tr(lang, "label.fix") << ": " << finding_fix(f, lang) << "\n";
      os << ind << tr(lang, "label.verify") << ": " << finding_verify(f) << "\n";
    }
    os << "\n";
  }
  return os.str();
}

int run_memory(const MemoryArgs& a) {
  Config cfg = load_config_or_throw(a.config);
  RenderOptions ro = render_options(a.output);
  if (a.output.format != "term" && a.output.format != "md" && a.output.format != "json") {
    throw UsageError("unknown format '" + a.output.format + "' for memory (use term, md or json)");
  }
  MemoryAnalysisOptions opts;
  if (!a.gpu_memory.empty()) {
    std::string s = a.gpu_memory;
    for (const char* suffix : {"iB", "B"}) {  // accept 80GiB / 80GB / 80G
      if (s.size() > 2 && s.ends_with(suffix)) {
        s.resize(s.size() - std::string(suffix).size());
        break;
      }
    }
    auto v = parse_size(s);
    if (!v || *v == 0) throw UsageError("--gpu-memory " + a.gpu_memory + ": not a size (use e.g. 80GiB)");
    opts.gpu_memory_bytes = v;
  }
  std::vector<Analysed> all;
  std::vector<Finding> every;
  for (const auto& file : a.files) {
    auto text = read_user_file(file, 64u << 20);
    if (!text) throw UsageError("cannot read " + text.error().message);
    auto in = parse_memory_file(*text);
    if (!in) throw UsageError(file + ": " + in.error().message);
    opts.source = file;
    Analysed x{file, std::move(in.value()), {}};
    x.findings = analyze_memory(x.input, cfg.thresholds, opts);
    every.insert(every.end(), x.findings.begin(), x.findings.end());
    all.push_back(std::move(x));
  }
  write_output(a.output.format == "json" ? render_json_memory(all, ro.lang)
                                         : render_text_memory(all, ro.lang, a.output.format == "md"),
               a.output.out);
  return exit_code_for(every);
}

const bool kUi = register_ui({{"memory.devices", {"device(s)", "个设备"}},
                              {"memory.oom_messages", {"OOM message(s)", "条 OOM 报错"}}});

const bool kMemory = register_subcommand(
    {"memory", "explain torch.cuda.memory_stats()/memory_summary() output and CUDA OOM messages", 45,
     [](CLI::App& app) {
       auto a = std::make_shared<MemoryArgs>();
       app.add_option("file", a->files, "memory_stats() JSON, memory_summary() text or a log with OOM messages")
           ->required();
       app.add_option("--gpu-memory", a->gpu_memory, "GPU capacity (e.g. 80GiB) when no OOM message states it");
       app.add_option("--config", a->config, "TOML file overriding thresholds (vram.*)");
       add_output_options(app, a->output);
       return [a] { return run_memory(*a); };
     }});

}  // namespace
}  // namespace plumb
