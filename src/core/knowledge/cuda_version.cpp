// Version decoding of the CUDA stack's libraries and toolkit files.
#include "core/knowledge/cuda_version.h"

#include "core/json.h"

#include "core/host_root.h"
#include "core/text.h"

namespace plumb {

namespace {
std::string dotted(long long a, long long b) { return std::to_string(a) + "." + std::to_string(b); }
std::string dotted(long long a, long long b, long long c) { return dotted(a, b) + "." + std::to_string(c); }
}  // namespace

std::string decode_cuda_version(long long v) {
  if (v <= 0 || v > 1000000) return {};
  return dotted(v / 1000, (v % 1000) / 10);
}

std::string decode_cudnn_version(long long v) {
  if (v <= 0 || v > 10000000) return {};
  if (v >= 90000) return dotted(v / 10000, (v % 10000) / 100, v % 100);
  return dotted(v / 1000, (v % 1000) / 100, v % 100);
}

std::string decode_nccl_version(long long v) {
  if (v <= 0 || v > 10000000) return {};
  if (v < 2900) return dotted(v / 1000, (v % 1000) / 100, v % 100);
  return dotted(v / 10000, (v % 10000) / 100, v % 100);
}

std::optional<std::vector<int>> parse_version_numbers(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  std::vector<int> out;
  for (auto part : split(s, '.')) {
    if (part.empty() || part.size() > 9) return std::nullopt;
    for (char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
    }
    out.push_back(std::stoi(std::string(part)));
  }
  return out;
}

int compare_versions(const std::vector<int>& a, const std::vector<int>& b) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    int x = i < a.size() ? a[i] : 0;
    int y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::string soname_version(std::string_view name, std::string_view stem) {
  if (!starts_with(name, stem) || name.size() <= stem.size() + 1 || name[stem.size()] != '.') return {};
  std::string_view rest = name.substr(stem.size() + 1);
  return parse_version_numbers(rest) ? std::string(rest) : std::string();
}

std::optional<std::string> parse_cuda_version_json(std::string_view text) {
  auto parsed = plumb::parse_outside_json(text);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  const auto& j = *parsed;
  auto it = j.find("cuda");
  if (it == j.end() || !it->is_object()) return std::nullopt;
  auto v = it->find("version");
  if (v == it->end() || !v->is_string()) return std::nullopt;
  std::string s = v->get<std::string>();
  if (!parse_version_numbers(s)) return std::nullopt;
  return s;
}

namespace {
// The first dotted number after `marker` in `text`.
std::optional<std::string> version_after(std::string_view text, std::string_view marker) {
  auto p = text.find(marker);
  if (p == std::string_view::npos) return std::nullopt;
  p += marker.size();
  std::size_t e = p;
  while (e < text.size() && ((text[e] >= '0' && text[e] <= '9') || text[e] == '.')) ++e;
  std::string_view v = text.substr(p, e - p);
  while (!v.empty() && v.back() == '.') v.remove_suffix(1);
  if (!parse_version_numbers(v)) return std::nullopt;
  return std::string(v);
}
}  // namespace

std::optional<std::string> parse_cuda_version_txt(std::string_view text) { return version_after(text, "CUDA Version "); }

std::optional<std::string> parse_nvcc_version(std::string_view text) {
  if (auto v = version_after(text, ", V")) return v;
  return version_after(text, "release ");
}

std::optional<std::pair<std::string, std::string>> parse_dist_info_name(std::string_view name) {
  constexpr std::string_view kSuffix = ".dist-info";
  if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix) return std::nullopt;
  name.remove_suffix(kSuffix.size());
  auto dash = name.rfind('-');
  if (dash == std::string_view::npos || dash == 0) return std::nullopt;
  std::string_view ver = name.substr(dash + 1);
  // PEP 440 local/pre-release suffixes ("13.0.96+cu13") are cut at the first non-version character.
  std::size_t e = 0;
  while (e < ver.size() && ((ver[e] >= '0' && ver[e] <= '9') || ver[e] == '.')) ++e;
  ver = ver.substr(0, e);
  while (!ver.empty() && ver.back() == '.') ver.remove_suffix(1);
  if (!parse_version_numbers(ver)) return std::nullopt;
  return std::make_pair(std::string(name.substr(0, dash)), std::string(ver));
}

std::optional<std::uint64_t> record_file_size(std::string_view record, std::string_view base_name) {
  if (base_name.empty()) return std::nullopt;
  while (!record.empty()) {
    auto nl = record.find('\n');
    std::string_view row = record.substr(0, nl);
    record = nl == std::string_view::npos ? std::string_view() : record.substr(nl + 1);
    if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
    // The path may be quoted (it holds a comma); the hash and the size never are: split from the right.
    auto c2 = row.rfind(',');
    if (c2 == std::string_view::npos || c2 == 0) continue;
    auto c1 = row.rfind(',', c2 - 1);
    if (c1 == std::string_view::npos) continue;
    std::string_view path = row.substr(0, c1);
    std::string_view size = row.substr(c2 + 1);
    if (path.size() >= 2 && path.front() == '"' && path.back() == '"') path = path.substr(1, path.size() - 2);
    auto slash = path.rfind('/');
    if ((slash == std::string_view::npos ? path : path.substr(slash + 1)) != base_name) continue;
    return parse_uint(size);
  }
  return std::nullopt;
}

std::optional<int> encode_cudnn_version(std::string_view dotted) {
  auto v = parse_version_numbers(dotted);
  if (!v || v->size() < 3) return std::nullopt;
  const int major = (*v)[0], minor = (*v)[1], patch = (*v)[2];
  if (major < 1 || major > 99 || minor < 0 || minor > 99 || patch < 0 || patch > 99) return std::nullopt;
  // cudnn_version.h: CUDNN_VERSION is MAJOR*1000+MINOR*100+PATCH up to 8, MAJOR*10000+MINOR*100+PATCH from 9.
  if (major >= 9) return major * 10000 + minor * 100 + patch;
  if (minor > 9) return std::nullopt;
  return major * 1000 + minor * 100 + patch;
}

}  // namespace plumb
