// The HDF5 block of the text reports (`plumb h5`, data layer): per file, one row per dataset with
// dtype, shape, layout and filter pipeline; with two files, the layout differences A -> B.
#include "analyze/h5_layout.h"
#include "report/report.h"
#include "report/table.h"
#include "core/tables.h"

namespace plumb {
namespace {

std::string h5_block(const Report& r, const RenderOptions& o, const std::string& format) {
  const H5Facts& h = r.facts.h5;
  if (!h.collected) return {};
  const Lang lang = o.lang;
  std::string out;
  for (const auto& f : h.files) {
    out += block_heading(f.file + " (" + f.library + ")", format);
    TextTable t{{tr(lang, "h5.col.dataset"), tr(lang, "h5.col.dtype"), tr(lang, "h5.col.shape"), tr(lang, "h5.col.layout"),
                 tr(lang, "h5.col.filters")}};
    for (const auto& d : f.datasets) {
      t.push_back({d.path, d.dtype, h5_dims_text(d.shape), d.layout + (d.chunks.empty() ? "" : " " + h5_dims_text(d.chunks)),
                   filters_text(d.filters)});
    }
    out += render_table(t, format, "    ") + (format == "md" ? "\n" : "");
  }
  if (h.files.size() == 2) {
    out += block_heading(tr(lang, "h5.compare"), format);
    if (h.differences.empty()) out += block_line(tr(lang, "h5.same"), format);
    for (const auto& d : h.differences) out += block_line(d.dataset + " " + d.field + ": " + d.a + " -> " + d.b, format);
  }
  if (format != "html") out += "\n";
  return out;
}



}  // namespace
void report_h5_block_tables(Tables& t, ReportTables& r) {
  r.add_report_block(50, {Section::data, h5_block});
  t.add_ui([] {
  return std::vector<UiString>{
    {"h5.col.dataset", {"dataset", "数据集"}},
    {"h5.col.dtype", {"dtype", "类型"}},
    {"h5.col.shape", {"shape", "形状"}},
    {"h5.col.layout", {"layout (chunks)", "布局（分块）"}},
    {"h5.col.filters", {"filters", "过滤器"}},
    {"h5.compare", {"Layout and filter differences (A -> B)", "布局与过滤器差异（A -> B）"}},
    {"h5.same", {"Same datasets, dtypes, shapes, layouts and filters.", "数据集、类型、形状、布局与过滤器均相同。"}},
};
});
}

}  // namespace plumb
