// One trace file end to end: source -> splitter -> simdjson batches -> records -> breakdown.
#include "analyze/trace/reader.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
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
  if (rec.any_x) {
    // Kineto writes either epoch microseconds, or microseconds after baseTimeNanoseconds.
    constexpr double kYear2001Us = 978307200e6;
    if (rec.base_time_ns) {
      out.start_unix_s = *rec.base_time_ns / 1e9 + rec.first_ts / 1e6;
    } else if (rec.first_ts >= kYear2001Us) {
      out.start_unix_s = rec.first_ts / 1e6;
    }
    out.window_s = std::max(0.0, rec.last_end - rec.first_ts) / 1e6;
  }
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

namespace {

std::string label_of(const TraceRank& t) {
  auto slash = t.file.find_last_of('/');
  return slash == std::string::npos ? t.file : t.file.substr(slash + 1);
}

std::optional<std::pair<std::int64_t, std::int64_t>> step_numbers(const TraceRank& t) {
  std::optional<std::pair<std::int64_t, std::int64_t>> r;
  for (const auto& s : t.steps) {
    if (!s.number) continue;
    if (!r) r = std::pair{*s.number, *s.number};
    r->first = std::min(r->first, *s.number);
    r->second = std::max(r->second, *s.number);
  }
  return r;
}

std::string fmt_s(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", s);
  return buf;
}

}  // namespace

std::string different_jobs(const TraceRank& a, const TraceRank& b) {
  const std::string pair = label_of(a) + " and " + label_of(b);
  if (a.rank && b.rank && *a.rank == *b.rank) {
    return pair + " both claim rank " + std::to_string(*a.rank) + " (" + (a.rank_source.empty() ? "?" : a.rank_source) + ")";
  }
  if (a.world_size && b.world_size && *a.world_size != *b.world_size) {
    return pair + " have world sizes " + std::to_string(*a.world_size) + " and " + std::to_string(*b.world_size);
  }
  if (!a.devices.empty() && !b.devices.empty() && a.devices.front() != b.devices.front()) {
    return pair + " ran on " + a.devices.front() + " and " + b.devices.front();
  }
  if (a.start_unix_s && b.start_unix_s) {
    double a0 = *a.start_unix_s, a1 = a0 + a.window_s, b0 = *b.start_unix_s, b1 = b0 + b.window_s;
    double gap = std::max(b0 - a1, a0 - b1);
    if (gap > kJobClockSlackS) {
      return pair + " were profiled " + fmt_s(gap) + " s apart (their windows do not overlap within " +
             fmt_s(kJobClockSlackS) + " s)";
    }
  }
  auto sa = step_numbers(a), sb = step_numbers(b);
  if (sa && sb && (sa->second < sb->first || sb->second < sa->first)) {
    return pair + " cover ProfilerStep#" + std::to_string(sa->first) + "..#" + std::to_string(sa->second) + " and #" +
           std::to_string(sb->first) + "..#" + std::to_string(sb->second);
  }
  return "";
}

void group_and_compare(TraceFacts& f) {
  std::vector<std::vector<std::size_t>> jobs;
  f.jobs_evidence.clear();
  for (std::size_t i = 0; i < f.traces.size(); ++i) {
    bool placed = false;
    std::string first_reason;
    for (std::size_t j = 0; j < jobs.size() && !placed; ++j) {
      std::string reason;
      for (std::size_t m : jobs[j]) {
        reason = different_jobs(f.traces[m], f.traces[i]);
        if (!reason.empty()) break;
      }
      if (reason.empty()) {
        jobs[j].push_back(i);
        placed = true;
      } else if (first_reason.empty()) {
        first_reason = reason;
      }
    }
    if (!placed) {
      if (!first_reason.empty() && f.jobs_evidence.size() < 8) f.jobs_evidence.push_back(first_reason);
      jobs.push_back({i});
    }
  }
  f.jobs = static_cast<std::int64_t>(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (std::size_t m : jobs[j]) f.traces[m].job = static_cast<std::int64_t>(j + 1);
  }
  f.cross_rank.reset();
  f.cross_rank_missing.clear();
  if (jobs.size() <= 1) {
    auto x = compare_ranks(f.traces, f.cross_rank_missing);
    if (x) {
      x->job = f.traces.empty() ? 0 : 1;
      f.cross_rank = *x;
    }
    return;
  }
  std::size_t best = 0;
  for (std::size_t j = 1; j < jobs.size(); ++j) {
    if (jobs[j].size() > jobs[best].size()) best = j;
  }
  std::string split = std::to_string(f.traces.size()) + " traces come from " + std::to_string(jobs.size()) +
                      " different jobs (" + f.jobs_evidence.front() + ")";
  if (jobs[best].size() < 2) {
    f.cross_rank_missing = split + ": ranks are compared only within one job; pass the traces of one job";
    return;
  }
  std::vector<TraceRank> members;
  for (std::size_t m : jobs[best]) members.push_back(f.traces[m]);
  std::string why;
  auto x = compare_ranks(members, why);
  if (!x) {
    f.cross_rank_missing = split + "; job " + std::to_string(best + 1) + ": " + why;
    return;
  }
  x->job = static_cast<std::int64_t>(best + 1);
  f.cross_rank = *x;
}

}  // namespace plumb::trace
