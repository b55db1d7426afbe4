// One trace file end to end: source -> splitter -> simdjson batches -> records -> breakdown.
#include "analyze/trace/reader.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "analyze/trace/builder.h"
#include "analyze/trace/event_parse.h"

namespace plumb::trace {

namespace {

class Pipeline : public TraceSink {
 public:
  Pipeline(const std::string& name, TraceRecords& rec) : parser_(name), builder_(name, rec) {}
  Result<bool> header(std::string_view key, std::string_view value) override {
    builder_.on_header(key, value);
    return true;
  }
  Result<bool> events(const char* json, std::size_t len, std::uint64_t offset,
                      const std::vector<std::uint32_t>& starts) override {
    return parser_.parse(json, len, offset, starts, builder_);
  }
  [[nodiscard]] std::int64_t events() const { return builder_.events(); }

 private:
  BatchParser parser_;
  RecordBuilder builder_;
};

Result<TraceRank> analyze_source(ByteSource& src, const std::string& name, const TraceOptions& opt) {
  auto start = std::chrono::steady_clock::now();
  TraceRecords rec;
  Pipeline pipe(name, rec);
  auto stats = stream_trace(src, name, pipe, opt.limits);
  if (!stats) return stats.error();
  TraceRank out;
  out.file = name;
  out.format = stats->legacy_array ? "legacy" : "kineto";
  out.bytes = stats->bytes;
  out.events = pipe.events();
  if (pipe.events() == 0) {
    return make_error(ErrorKind::invalid, name + (stats->legacy_array || stats->batches > 0 || stats->bytes > 0
                                                      ? ": no trace events (not a PyTorch profiler trace, or an empty one)"
                                                      : ": empty trace"));
  }
  if (rec.rank) {
    out.rank = rec.rank;
    out.rank_source = "distributedInfo";
  } else if (auto r = rank_from_file_name(name)) {
    out.rank = r;
    out.rank_source = "file name";
  }
  out.world_size = rec.world_size;
  out.devices = rec.devices;
  if (stats->legacy_array) out.notes.push_back("legacy_format");
  auto a = analyze_records(rec, opt.steps, out);
  if (!a) return a.error();
  out.parse_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace

Result<TraceRank> analyze_trace_file(const std::string& path, const TraceOptions& opt) {
  auto src = open_trace_file(path);
  if (!src) return src.error();
  return analyze_source(**src, path, opt);
}

Result<TraceRank> analyze_trace_bytes(std::string_view data, const std::string& name, const TraceOptions& opt) {
  auto src = memory_source(data, name);
  return analyze_source(*src, name, opt);
}

Result<std::vector<std::string>> expand_trace_inputs(const std::vector<std::string>& args) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const auto& a : args) {
    std::error_code ec;
    auto st = fs::status(a, ec);
    if (ec || !fs::exists(st)) return make_error(ErrorKind::absent, a + ": no such file or folder");
    if (!fs::is_directory(st)) {
      out.push_back(a);
      continue;
    }
    std::vector<std::string> found;
    for (fs::directory_iterator it(a, ec), end; !ec && it != end; it.increment(ec)) {
      std::string n = it->path().filename().string();
      auto ends = [&](std::string_view s) { return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0; };
      if ((ends(".json") || ends(".json.gz")) && it->is_regular_file(ec)) found.push_back(it->path().string());
    }
    if (ec) return make_error(ErrorKind::io, a + ": cannot list the folder (" + ec.message() + ")");
    if (found.empty()) return make_error(ErrorKind::absent, a + ": no *.json or *.json.gz trace files in the folder");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

std::optional<std::int64_t> rank_from_file_name(std::string_view path) {
  auto slash = path.find_last_of('/');
  std::string n(slash == std::string_view::npos ? path : path.substr(slash + 1));
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::size_t p = n.find("rank"); p != std::string::npos; p = n.find("rank", p + 1)) {
    std::size_t i = p + 4;
    if (i < n.size() && (n[i] == '-' || n[i] == '_')) ++i;
    std::size_t j = i;
    while (j < n.size() && j - i < 9 && n[j] >= '0' && n[j] <= '9') ++j;
    if (j > i) return std::stoll(n.substr(i, j - i));
  }
  return std::nullopt;
}

std::string rank_label(const TraceRank& t) {
  if (t.rank) return "rank " + std::to_string(*t.rank);
  auto slash = t.file.find_last_of('/');
  return slash == std::string::npos ? t.file : t.file.substr(slash + 1);
}

std::optional<TraceCrossRank> compare_ranks(const std::vector<TraceRank>& traces, std::string& why) {
  std::vector<std::pair<double, const TraceRank*>> meds;
  for (const auto& t : traces) {
    if (t.summary.step_time_median_us) meds.emplace_back(*t.summary.step_time_median_us, &t);
  }
  if (traces.size() < 2) {
    why = "one trace (one rank): pass one trace per rank, or their folder, to compare ranks";
    return std::nullopt;
  }
  if (meds.size() < 2) {
    why = "fewer than two traces with complete steps";
    return std::nullopt;
  }
  std::vector<double> v;
  for (const auto& m : meds) v.push_back(m.first);
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  TraceCrossRank x;
  x.ranks = static_cast<std::int64_t>(n);
  x.median_step_us = median;
  x.min_step_us = v.front();
  x.max_step_us = v.back();
  x.spread = median > 0 ? (x.max_step_us - x.min_step_us) / median : 0;
  auto slow = std::max_element(meds.begin(), meds.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  x.slowest = rank_label(*slow->second);
  x.slowest_excess = median > 0 ? slow->first / median - 1 : 0;
  return x;
}

}  // namespace plumb::trace
