// The minimum-driver table (NVIDIA CUDA Toolkit Release Notes, GA rows) and the compatibility verdict.
#include "core/knowledge/cuda_compat.h"

#include "core/knowledge/cuda_version.h"

namespace plumb {

const std::vector<ToolkitDriverRow>& toolkit_driver_table() {
  // Source: docs.nvidia.com/cuda/cuda-toolkit-release-notes, table 3 (13.3 from the .run installer name).
  static const std::vector<ToolkitDriverRow> rows = {
      {13030, "610.43.02"}, {13020, "595.45.04"}, {13010, "590.44.01"}, {13000, "580.65.06"},
      {12090, "575.51.03"}, {12080, "570.26"},    {12060, "560.28.03"}, {12050, "555.42.02"},
      {12040, "550.54.14"}, {12030, "545.23.06"}, {12020, "535.54.03"}, {12010, "530.30.02"},
      {12000, "525.60.13"}, {11080, "520.61.05"}, {11070, "515.43.04"}, {11060, "510.39.01"},
      {11050, "495.29.05"}, {11040, "470.42.01"}, {11030, "465.19.01"}, {11020, "460.27.03"},
      {11010, "455.23"},    {11000, "450.51.05"}, {10020, "440.33"},    {10010, "418.39"},
      {10000, "410.48"},
  };
  return rows;
}

std::string family_min_driver(int major) {
  switch (major) {
    case 13: return "580";
    case 12: return "525";
    case 11: return "450.80.02";
    default: return {};
  }
}

std::string min_driver_for(int cuda) {
  for (const auto& r : toolkit_driver_table()) {
    if (r.cuda == cuda) return r.min_driver;
  }
  return {};
}

CompatVerdict judge_cuda_compat(int driver_cuda, const std::string& driver_version, int runtime) {
  CompatVerdict v;
  if (driver_cuda <= 0 || runtime <= 0) return v;
  // Runtimes of a patch release (12.4.1 -> 12040) map onto their GA row.
  v.min_driver = min_driver_for(runtime - runtime % 10);
  const int dmaj = driver_cuda / 1000, rmaj = runtime / 1000;
  if (runtime <= driver_cuda) {
    v.verdict = Compat::ok;
  } else if (rmaj > dmaj) {
    v.verdict = Compat::newer_major;
  } else {
    // Same major, newer minor: minor-version compatibility if the driver is in the family.
    std::string floor = family_min_driver(rmaj);
    auto have = parse_version_numbers(driver_version);
    auto need = parse_version_numbers(floor);
    if (have && need) {
      v.verdict = compare_versions(*have, *need) >= 0 ? Compat::minor_compat : Compat::driver_too_old;
    } else {
      // Without the driver string the family rule cannot be applied: the CUDA major matching means
      // the driver belongs to the family (580+ reports 13.x, 525+ reports 12.x).
      v.verdict = Compat::minor_compat;
    }
  }
  return v;
}

}  // namespace plumb
