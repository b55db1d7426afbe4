// Release dates of frameworks, CUDA toolkits and NVIDIA driver branches, as data (the stability
// policy check and `plumb diff` read them). Sources are named per row in release_dates.cpp.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plumb {

struct ReleaseDate {
  std::string product;  // "pytorch" | "cuda" | "nvidia-driver"
  std::string version;  // the table key: "2.5" (PyTorch, CUDA major.minor), "535" (driver branch)
  int year = 0, month = 0, day = 0;  // day 0: the source gives the month only
  std::string source;
};

const std::vector<ReleaseDate>& release_dates();

// The row for a version as reported ("2.5.1+cu124" -> "2.5", "12.4" -> "12.4",
// "535.161.08" -> "535"); nullopt when the table has no such release.
std::optional<ReleaseDate> release_date(std::string_view product, std::string_view version);
// The newest dated release of a product (a version newer than it is at most this old).
std::optional<ReleaseDate> newest_release(std::string_view product);
// The table key of a reported version, empty when it has no leading number.
std::string release_key(std::string_view product, std::string_view version);
// Numeric comparison of dotted keys ("2.10" > "2.9"): <0, 0, >0.
int compare_versions(std::string_view a, std::string_view b);

// Whole months from a release to an ISO-8601 date ("2026-11-29T10:00:00Z"); nullopt when the date
// cannot be read. A month-only release date counts from the first day of that month.
std::optional<int> months_since(const ReleaseDate& r, std::string_view iso_date);

}  // namespace plumb
