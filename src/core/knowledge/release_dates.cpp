// Release-date table (data only) and the version/month arithmetic around it.
#include "core/knowledge/release_dates.h"

#include <algorithm>
#include <cctype>

#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

namespace {

// PyTorch: release dates from the PyTorch blog / GitHub releases (2.x, 1.13; versions as in
// pytorch/pytorch RELEASE.md "Release Compatibility Matrix"); 1.10-1.12 from the GitHub release pages.
constexpr const char* kTorchSrc = "PyTorch GitHub releases / blog (pytorch.org/blog)";
constexpr const char* kTorchOld = "PyTorch GitHub releases (github.com/pytorch/pytorch/releases)";
// CUDA: the month of each major.minor GA as listed by the NVIDIA CUDA Toolkit Archive
// (developer.nvidia.com/cuda-toolkit-archive, "CUDA Toolkit 12.4.0 (March 2024)"): month precision.
constexpr const char* kCudaSrc = "NVIDIA CUDA Toolkit Archive (month of the GA release)";
// Driver branches: the branch first shipped as the bundled driver of the CUDA GA named in the
// CUDA release notes table ("CUDA Toolkit and Corresponding Driver Versions"), so its date is that toolkit's month.
constexpr const char* kDriverSrc = "first CUDA toolkit bundling the branch (CUDA release notes) + its GA month";

std::vector<ReleaseDate> make_table() {
  return {
      {"pytorch", "1.10", 2021, 10, 21, kTorchOld}, {"pytorch", "1.11", 2022, 3, 10, kTorchOld},
      {"pytorch", "1.12", 2022, 6, 28, kTorchOld},  {"pytorch", "1.13", 2022, 10, 28, kTorchSrc},
      {"pytorch", "2.0", 2023, 3, 15, kTorchSrc},   {"pytorch", "2.1", 2023, 10, 4, kTorchSrc},
      {"pytorch", "2.2", 2024, 1, 30, kTorchSrc},   {"pytorch", "2.3", 2024, 4, 24, kTorchSrc},
      {"pytorch", "2.4", 2024, 7, 24, kTorchSrc},   {"pytorch", "2.5", 2024, 10, 17, kTorchSrc},
      {"pytorch", "2.6", 2025, 1, 30, kTorchSrc},   {"pytorch", "2.7", 2025, 4, 23, kTorchSrc},
      {"pytorch", "2.8", 2025, 8, 6, kTorchSrc},    {"pytorch", "2.9", 2025, 10, 15, kTorchSrc},
      {"pytorch", "2.10", 2026, 1, 21, kTorchSrc},  {"pytorch", "2.11", 2026, 3, 23, kTorchSrc},
      {"pytorch", "2.12", 2026, 5, 13, kTorchSrc},
      // 2.13 / 2.14 are only planned dates in the knowledge file: planned is not released.

      {"cuda", "11.0", 2020, 7, 0, kCudaSrc},  {"cuda", "11.1", 2020, 9, 0, kCudaSrc},
      {"cuda", "11.2", 2020, 12, 0, kCudaSrc}, {"cuda", "11.3", 2021, 4, 0, kCudaSrc},
      {"cuda", "11.4", 2021, 6, 0, kCudaSrc},  {"cuda", "11.5", 2021, 10, 0, kCudaSrc},
      {"cuda", "11.6", 2022, 1, 0, kCudaSrc},  {"cuda", "11.7", 2022, 5, 0, kCudaSrc},
      {"cuda", "11.8", 2022, 10, 0, kCudaSrc}, {"cuda", "12.0", 2022, 12, 0, kCudaSrc},
      {"cuda", "12.1", 2023, 2, 0, kCudaSrc},  {"cuda", "12.2", 2023, 6, 0, kCudaSrc},
      {"cuda", "12.3", 2023, 10, 0, kCudaSrc}, {"cuda", "12.4", 2024, 3, 0, kCudaSrc},
      {"cuda", "12.5", 2024, 5, 0, kCudaSrc},  {"cuda", "12.6", 2024, 8, 0, kCudaSrc},
      {"cuda", "12.8", 2025, 1, 0, kCudaSrc},  {"cuda", "12.9", 2025, 5, 0, kCudaSrc},
      {"cuda", "13.0", 2025, 8, 0, kCudaSrc},

      {"nvidia-driver", "450", 2020, 7, 0, kDriverSrc},  {"nvidia-driver", "455", 2020, 9, 0, kDriverSrc},
      {"nvidia-driver", "460", 2020, 12, 0, kDriverSrc}, {"nvidia-driver", "465", 2021, 4, 0, kDriverSrc},
      {"nvidia-driver", "470", 2021, 6, 0, kDriverSrc},  {"nvidia-driver", "495", 2021, 10, 0, kDriverSrc},
      {"nvidia-driver", "510", 2022, 1, 0, kDriverSrc},  {"nvidia-driver", "515", 2022, 5, 0, kDriverSrc},
      {"nvidia-driver", "520", 2022, 10, 0, kDriverSrc}, {"nvidia-driver", "525", 2022, 12, 0, kDriverSrc},
      {"nvidia-driver", "530", 2023, 2, 0, kDriverSrc},  {"nvidia-driver", "535", 2023, 6, 0, kDriverSrc},
      {"nvidia-driver", "545", 2023, 10, 0, kDriverSrc}, {"nvidia-driver", "550", 2024, 3, 0, kDriverSrc},
      {"nvidia-driver", "555", 2024, 5, 0, kDriverSrc},  {"nvidia-driver", "560", 2024, 8, 0, kDriverSrc},
      {"nvidia-driver", "570", 2025, 1, 0, kDriverSrc},  {"nvidia-driver", "575", 2025, 5, 0, kDriverSrc},
      {"nvidia-driver", "580", 2025, 8, 0, kDriverSrc},
  };
}

std::vector<std::int64_t> numbers(std::string_view v) {
  std::vector<std::int64_t> out;
  for (auto part : split(v, '.')) {
    std::size_t n = 0;
    while (n < part.size() && n < 9 && std::isdigit(static_cast<unsigned char>(part[n])) != 0) ++n;
    if (n == 0) break;
    out.push_back(parse_int(part.substr(0, n)).value_or(0));
    if (n < part.size()) break;  // "0a0", "1+cu124": the rest is a suffix
  }
  return out;
}

}  // namespace

const std::vector<ReleaseDate>& release_dates() {
  static const std::vector<ReleaseDate> t = make_table();
  return t;
}

int compare_versions(std::string_view a, std::string_view b) {
  auto x = numbers(a), y = numbers(b);
  for (std::size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    std::int64_t p = i < x.size() ? x[i] : 0, q = i < y.size() ? y[i] : 0;
    if (p != q) return p < q ? -1 : 1;
  }
  return 0;
}

std::string release_key(std::string_view product, std::string_view version) {
  auto n = numbers(trim(version));
  if (n.empty()) return {};
  if (product == "nvidia-driver") return std::to_string(n[0]);
  if (n.size() < 2) return {};
  return std::to_string(n[0]) + "." + std::to_string(n[1]);
}

std::optional<ReleaseDate> release_date(std::string_view product, std::string_view version) {
  std::string key = release_key(product, version);
  if (key.empty()) return std::nullopt;
  for (const auto& r : release_dates()) {
    if (r.product == product && r.version == key) return r;
  }
  return std::nullopt;
}

std::optional<ReleaseDate> newest_release(std::string_view product) {
  std::optional<ReleaseDate> best;
  for (const auto& r : release_dates()) {
    if (r.product == product && (!best || compare_versions(r.version, best->version) > 0)) best = r;
  }
  return best;
}

std::optional<int> months_since(const ReleaseDate& r, std::string_view iso_date) {
  if (iso_date.size() < 10 || iso_date[4] != '-' || iso_date[7] != '-') return std::nullopt;
  auto y = parse_int(iso_date.substr(0, 4)), m = parse_int(iso_date.substr(5, 2)), d = parse_int(iso_date.substr(8, 2));
  if (!y || !m || !d || *m < 1 || *m > 12 || *d < 1 || *d > 31) return std::nullopt;
  int day = r.day == 0 ? 1 : r.day;
  auto months = static_cast<int>((*y - r.year) * 12 + (*m - r.month));
  if (*d < day) --months;
  return months;
}

}  // namespace plumb
