// Rule of HDF5 files (`plumb h5`): each dataset's filter pipeline against the field guide's "data
// consistency illusion" (szip, plugin filters, filters this machine's libhdf5 lacks), judged on
// facts.h5 that analyze/h5_layout.cpp read.
#include "analyze/h5_layout.h"
#include "core/catalog.h"
#include "core/registry.h"
#include "core/tables.h"

namespace plumb {
namespace {

constexpr const char* kFilters = "l3.data.h5_filters";

// One finding per dataset (subject: its path, prefixed by the file when there are several).
std::vector<Finding> h5_filters(const Facts& facts, const Thresholds&) {
  std::vector<Finding> out;
  if (!facts.h5.collected) return out;  // only `plumb h5` feeds this rule
  const bool several = facts.h5.files.size() > 1;
  for (const auto& file : facts.h5.files) {
    for (const auto& ds : file.datasets) {
      Finding f;
      f.id = kFilters;
      f.subject = several ? file.file + ":" + ds.path : ds.path;
      std::string src = file.file + " (" + file.library + ")";
      f.add("filters", filters_text(ds.filters), src);
      f.add("layout", ds.layout + (ds.chunks.empty() ? "" : " " + h5_dims_text(ds.chunks)), src);
      f.arg("dataset", ds.path).arg("filters", filters_text(ds.filters)).arg("file", file.file);
      f.threshold = "explicit, portable filters (deflate/shuffle/fletcher32) available everywhere";
      bool szip = false, plugin = false;
      std::string unavailable;
      for (const auto& x : ds.filters) {
        szip |= x.id == 4;
        plugin |= x.id >= 256;
        if (!x.available) unavailable += (unavailable.empty() ? "" : ", ") + x.name;
      }
      if (!unavailable.empty()) {
        f.status = Status::fail;
        f.variant = "unavailable";
        f.arg("missing", unavailable);
      } else if (szip) {
        f.status = Status::warn;
        f.variant = "szip";
      } else if (plugin) {
        f.status = Status::warn;
        f.variant = "plugin";
      } else if (ds.filters.empty()) {
        f.status = Status::info;
        f.variant = "none";
      } else {
        f.status = Status::pass;
      }
      out.push_back(std::move(f));
    }
  }
  return out;
}



}  // namespace
void rules_data_h5_tables(Tables& t) {
  t.add_rule({kFilters, {}, h5_filters});
  t.add_findings([] {
  return std::vector<CatalogEntry>{
    {kFilters, Layer::L3, Pillar::data, Section::data,
     {"HDF5 filter pipeline", "HDF5 压缩过滤器"},
     {{"pass", {"{dataset}: explicit filters {filters}, available here.", "{dataset}：显式指定的过滤器 {filters}，本机可用。"}},
      {"none",
       {"{dataset}: no filter: stored as the defaults leave it (uncompressed). Fine, but state the compressor "
        "explicitly when files travel between platforms.",
        "{dataset}：没有过滤器，按默认方式存储（未压缩）。这没有问题，但文件在不同平台间流转时请显式指定压缩器。"}},
      {"szip",
       {"{dataset}: uses szip ({filters}); szip is not available in every HDF5 build (licence-restricted "
        "encoder), so other machines may fail to read or write it.",
        "{dataset}：使用 szip（{filters}）；并非所有 HDF5 构建都带 szip（编码器受许可限制），其他机器可能无法读写。"}},
      {"plugin",
       {"{dataset}: uses a plugin filter ({filters}); every reader needs the same plugin (hdf5plugin).",
        "{dataset}：使用插件过滤器（{filters}）；每个读取端都需要相同的插件（hdf5plugin）。"}},
      {"unavailable",
       {"{dataset}: filter {missing} is not available in this HDF5 library: the data cannot be read here.",
        "{dataset}：本机 HDF5 库没有过滤器 {missing}：此处无法读取这些数据。"}}},
     {"Rewrite with an explicit, portable compressor: h5py create_dataset(..., compression=\"gzip\", "
      "compression_opts=1) (deflate), optionally shuffle=True; or install the filter plugin everywhere.",
      "用显式、可移植的压缩器重写：h5py create_dataset(..., compression=\"gzip\", compression_opts=1)（deflate），"
      "可加 shuffle=True；或在所有机器上安装相同的过滤器插件。"},
     "h5dump -H -p {file}",
     {"identical bytes read on every platform", "各平台读出的字节一致"},
     {}},
};
});
}

}  // namespace plumb
