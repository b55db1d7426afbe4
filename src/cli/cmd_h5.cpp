// `plumb h5 FILE [FILE2]`: HDF5 datasets with dtype, shape, chunking and filter pipeline, the
// checks on them, and with two files the differences in layout and filters. libhdf5 is loaded at
// run time; without it the command says so and exits 2.
#include <memory>
#include <sstream>

#include "analyze/h5_layout.h"
#include "cli/subcommand.h"
#include "core/catalog.h"

namespace plumb {

namespace {

struct H5Args {
  std::vector<std::string> files;
  std::string lib;
  OutputOptions output;
};

std::string dims(const std::vector<std::uint64_t>& d) {
  std::string s = "(";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + ")";
}

json layout_json(const H5FileLayout& f) {
  json arr = json::array();
  for (const auto& d : f.datasets) {
    json filters = json::array();
    for (const auto& x : d.filters) {
      filters.push_back({{"id", x.id}, {"name", x.name}, {"options", x.options}, {"optional", x.optional},
                         {"available", x.available}});
    }
    arr.push_back({{"path", d.path}, {"dtype", d.dtype}, {"shape", d.shape}, {"layout", d.layout},
                   {"chunks", d.chunks}, {"filters", filters}});
  }
  return {{"file", f.file}, {"library", f.library}, {"datasets", arr}};
}

std::string render(const std::vector<H5FileLayout>& files, const std::vector<Finding>& findings,
                   const std::vector<H5Difference>& diffs, const H5Args& a, Lang lang) {
  const std::string& fmt = a.output.format;
  if (fmt == "json") {
    json doc;
    doc["schema_version"] = kSchemaVersion;
    doc["lang"] = lang_code(lang);
    doc["files"] = json::array();
    for (const auto& f : files) doc["files"].push_back(layout_json(f));
    json fs = json::array();
    for (const auto& f : findings) {
      json j = f;
      j["message"] = finding_message(f, lang);
      j["fix"] = finding_fix(f, lang);
      fs.push_back(j);
    }
    doc["findings"] = fs;
    json ds = json::array();
    for (const auto& d : diffs) ds.push_back({{"dataset", d.dataset}, {"field", d.field}, {"a", d.a}, {"b", d.b}});
    doc["differences"] = ds;
    doc["exit_code"] = exit_code_for(findings);
    return doc.dump(2) + "\n";
  }
  bool md = fmt == "md";
  std::ostringstream os;
  for (const auto& f : files) {
    os << (md ? "## " : "") << "plumb h5: " << f.file << " (" << f.library << ")\n\n";
    if (md) os << "| dataset | dtype | shape | layout | filters |\n|---|---|---|---|---|\n";
    for (const auto& d : f.datasets) {
      std::string layout = d.layout + (d.chunks.empty() ? "" : " " + dims(d.chunks));
      if (md) {
        os << "| " << d.path << " | " << d.dtype << " | " << dims(d.shape) << " | " << layout << " | "
           << filters_text(d.filters) << " |\n";
      } else {
        os << "  " << d.path << "  " << d.dtype << " " << dims(d.shape) << "  " << layout << "  "
           << filters_text(d.filters) << "\n";
      }
    }
    os << "\n";
  }
  for (const auto& f : findings) {
    if (f.status == Status::pass) continue;
    std::string st = tr(lang, std::string("status.") + status_name(f.status));
    os << (md ? "- " : "") << "[" << st << "] " << finding_message(f, lang) << "\n";
  }
  bool bad = false;
  for (const auto& f : findings) bad |= f.status == Status::fail || f.status == Status::warn;
  if (bad) os << (md ? "\n" : "") << tr(lang, "label.fix") << ": " << finding_fix(findings.front(), lang) << "\n";
  if (files.size() == 2) {
    os << "\n" << (md ? "### " : "") << tr(lang, "h5.compare") << "\n";
    if (diffs.empty()) os << tr(lang, "h5.same") << "\n";
    for (const auto& d : diffs) os << (md ? "- " : "  ") << d.dataset << " " << d.field << ": " << d.a << " -> " << d.b << "\n";
  }
  return os.str();
}

int run_h5(const H5Args& a) {
  RenderOptions ro = render_options(a.output);
  if (a.output.format != "term" && a.output.format != "md" && a.output.format != "json") {
    throw UsageError("unknown format '" + a.output.format + "' for h5 (use term, md or json)");
  }
  if (a.files.size() > 2) throw UsageError("h5 takes one file, or two to compare");
  auto lib = load_hdf5(a.lib);
  if (!lib) throw UsageError("h5 needs libhdf5: " + lib.error().message);
  std::vector<H5FileLayout> files;
  std::vector<Finding> findings;
  for (const auto& f : a.files) {
    auto l = read_h5_layout(f);
    if (!l) throw UsageError(l.error().message);
    auto v = judge_h5_layout(*l);
    findings.insert(findings.end(), v.begin(), v.end());
    files.push_back(std::move(l.value()));
  }
  std::vector<H5Difference> diffs;
  if (files.size() == 2) diffs = compare_h5_layouts(files[0], files[1]);
  write_output(render(files, findings, diffs, a, ro.lang), a.output.out);
  int rc = exit_code_for(findings);
  return rc != 0 ? rc : (diffs.empty() ? 0 : 1);
}

const bool kUi = register_ui({{"h5.compare", {"Layout and filter differences (A -> B)", "布局与过滤器差异（A -> B）"}},
                              {"h5.same", {"Same datasets, dtypes, shapes, layouts and filters.",
                                           "数据集、类型、形状、布局与过滤器均相同。"}}});

const bool kH5 = register_subcommand(
    {"h5", "HDF5 datasets: dtype, shape, chunking, filter pipeline; compare two files", 66, [](CLI::App& app) {
       auto a = std::make_shared<H5Args>();
       app.add_option("file", a->files, "HDF5 file (two files: compare their layouts)")->required();
       app.add_option("--hdf5-lib", a->lib, "libhdf5 to load (default: PLUMB_HDF5_LIB or the system's libhdf5)");
       add_output_options(app, a->output);
       return [a] { return run_h5(*a); };
     }});

}  // namespace
}  // namespace plumb
