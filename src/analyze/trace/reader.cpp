// One trace file end to end: source -> splitter -> simdjson batches -> records -> breakdown.
#include "analyze/trace/reader.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>

#include "analyze/trace/builder.h"
#include "analyze/trace/event_parse.h"
#include "core/parallel.h"

namespace plumb::trace {

namespace {

class Pipeline : public TraceSink {
 public:
  // With `keep_headers` the top-level keys are kept (headers()) instead of applied, for a part of a
  // trace read on its own thread.
  Pipeline(const std::string& name, TraceRecords& rec, const TraceOptions& opt, bool keep_headers = false)
      : parser_(std::make_unique<BatchParser>(name, opt.fast_scan, opt.simdjson_batches)),
        builder_(name, rec),
        keep_headers_(keep_headers) {}
  Result<bool> header(std::string_view key, std::string_view value) override {
    if (keep_headers_) {
      headers_.emplace_back(key, value);
    } else {
      builder_.on_header(key, value);
    }
    return true;
  }
  Result<bool> events(const char* json, std::size_t len, std::uint64_t offset, const BatchIndex& index) override {
    return parser_->parse(json, len, offset, index, builder_);
  }
  // Frees the parser's buffers once the part is read (on its thread, whose heap the next part's
  // parser then takes them from instead of fresh pages); the records and headers stay.
  void drop_parser() { parser_.reset(); }
  [[nodiscard]] std::int64_t events() const { return builder_.events(); }
  RecordBuilder& builder() { return builder_; }
  [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& headers() const { return headers_; }

 private:
  std::unique_ptr<BatchParser> parser_;
  RecordBuilder builder_;
  bool keep_headers_;
  std::vector<std::pair<std::string, std::string>> headers_;
};

// Records of one whole trace, read on one thread or merged from parts.
struct Collected {
  TraceRecords rec;
  StreamStats stats;
  std::int64_t events = 0;
  std::size_t parts = 1;
  TraceFileTiming timing;  // filled when opt.timings is set
};

// This thread's CPU time (user + system), for --timings.
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// The start of a part's timing on the thread about to read it.
TracePartTiming part_timing_start(const TraceTimings& t, std::uint64_t offset) {
  TracePartTiming p;
  p.offset = offset;
  p.start_ms = t.now_ms();
  p.cpu_ms = thread_cpu_ms();
  p.thread = static_cast<long>(::gettid());
  return p;
}

void part_timing_end(const TraceTimings& t, TracePartTiming& p) {
  p.end_ms = t.now_ms();
  p.cpu_ms = thread_cpu_ms() - p.cpu_ms;
}

Result<bool> collect_source(ByteSource& src, const std::string& name, const TraceOptions& opt, Collected& c) {
  if (opt.parts_read != nullptr) *opt.parts_read = 1;
  TracePartTiming timing;
  if (opt.timings != nullptr) timing = part_timing_start(*opt.timings, 0);
  Pipeline pipe(name, c.rec, opt);
  auto stats = stream_trace(src, name, pipe, opt.limits);
  if (!stats) return stats.error();
  c.stats = *stats;
  c.events = pipe.events();
  if (opt.timings != nullptr) {
    part_timing_end(*opt.timings, timing);
    timing.bytes = stats->bytes;
    c.timing.parts = {timing};
    c.timing.read_ms = timing.end_ms;
    if (const char* lib = src.inflater()) c.timing.inflater = lib;
  }
  return true;
}

// The offset in `b` of the first event start ('{' after "}," with optional white space, followed by
// a key), or npos when there is none or `b` ends inside the pattern. A guess: a string can hold the
// same bytes; the part before a cut checks it (read_parts).
std::size_t event_start_in(std::string_view b) {
  auto ws = [&](std::size_t i) { return i < b.size() && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'); };
  for (std::size_t i = b.find('}'); i != std::string_view::npos; i = b.find('}', i + 1)) {
    std::size_t j = i + 1;
    while (ws(j)) ++j;
    if (j >= b.size() || b[j] != ',') continue;
    ++j;
    while (ws(j)) ++j;
    if (j >= b.size() || b[j] != '{') continue;
    std::size_t k = j + 1;
    while (ws(k)) ++k;
    if (k < b.size() && b[k] == '"') return j;
  }
  return std::string_view::npos;
}

// The file offset of the first event that starts at or after `from`, when one does within `window`
// bytes (event_start_in). Reads 4 KiB first, then 64 KiB, then the whole window: an event boundary
// is nearly always in the first few hundred bytes, and every fresh page of a larger buffer is a page
// fault on the thread that cuts the trace before the parts can start.
std::optional<std::uint64_t> event_start_after(const RandomAccess& ra, std::uint64_t from, std::size_t window) {
  // Not zero-filled: only the pages the reads write are touched.
  auto buf = std::make_unique_for_overwrite<char[]>(window);
  std::size_t have = 0;
  for (std::size_t want = std::min<std::size_t>(window, 4096);; want = std::min(window, want * 16)) {
    auto n = ra.read_at(from + have, buf.get() + have, want - have);
    if (!n) return std::nullopt;
    const std::size_t got = have + *n;
    const bool all = got < want || want == window;  // the file or the window ends here
    const std::size_t at = event_start_in(std::string_view(buf.get(), got));
    if (at != std::string_view::npos) return from + at;
    if (all) return std::nullopt;
    have = got;  // the next read looks again from the start, at a border cut by this one's end too
  }
}

struct Part {
  std::uint64_t start = 0;
  std::uint64_t stop = ~std::uint64_t{0};  // the scheduler's view, under its lock
  bool running = false;                     // under the scheduler's lock
  TraceRecords rec;
  std::unique_ptr<Pipeline> pipe;
  std::optional<Result<StreamStats>> stats;
  PartControl control;
  TracePartTiming timing;  // when opt.timings is set
  explicit Part(std::uint64_t from) : start(from), control(from) {}
};

// Reads one part into its records through `stream` (given the part's StreamRange), sorted on this
// thread: the analysis' sorts of the merged arrays are then one linear pass (records.h,
// sort_records). The parser's buffers are freed for the thread's next part.
template <class Stream>
void read_part_with(Part& part, const std::string& name, bool legacy, PartControl* control, Stream stream) {
  StreamRange range;
  range.start = part.start;
  range.in_events = part.start > 0;
  range.legacy = legacy;
  range.stop_at = part.stop;
  range.control = control;
  try {
    part.stats = stream(range);
    if (*part.stats) sort_records(part.rec);
  } catch (const std::exception& e) {
    part.stats = Result<StreamStats>(make_error(ErrorKind::internal, name + ": " + e.what()));
  }
  part.pipe->drop_parser();
}

// Reads one part from `ra` (from part.start to the event at part.stop, or the end).
void read_part(Part& part, const RandomAccess& ra, const std::string& name, const TraceOptions& opt, bool legacy,
               PartControl* control) {
  read_part_with(part, name, legacy, control, [&](const StreamRange& range) {
    auto src = range_source(ra, part.start);
    return stream_trace(*src, name, *part.pipe, opt.limits, range);
  });
}

// A part's reader, with the records of every part but the first on small pages: they live until
// the merge hands them to the first part's, written once and read once, so a run on N threads asks
// the kernel for as many huge pages as a run on one (docs/performance-trace.md).
std::unique_ptr<Part> make_part(std::uint64_t start, std::uint64_t stop, const std::string& name, const TraceOptions& opt) {
  auto p = std::make_unique<Part>(start);
  p->stop = stop;
  p->running = true;
  if (start > 0) p->rec.small_pages();
  p->pipe = std::make_unique<Pipeline>(name, p->rec, opt, true);
  return p;
}

// Checks that each part stopped exactly at the event where the next one starts (each cut is read
// from a known state: not inside a string, not after the end of the events array) and merges the
// parts, in file order, into `c`. False when a part failed or a cut was not an event boundary.
// `size`: the bytes of the whole trace.
bool merge_parts(std::vector<std::unique_ptr<Part>>& parts, std::uint64_t size, const TraceOptions& opt, Collected& c) {
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (!parts[k]->stats) return false;
    const auto& st = *parts[k]->stats;
    if (!st) return false;
    if (k + 1 < parts.size() && !(st->stopped && st->stopped_at == parts[k + 1]->start)) return false;
  }
  RecordBuilder& into = parts[0]->pipe->builder();
  // Top-level keys in file order: the first part holds those before traceEvents, the last those after.
  for (const auto& [key, value] : parts[0]->pipe->headers()) into.on_header(key, value);
  std::uint64_t batches = (*parts[0]->stats)->batches;
  for (std::size_t k = 1; k < parts.size(); ++k) {
    into.append(parts[k]->pipe->builder());
    for (const auto& [key, value] : parts[k]->pipe->headers()) into.on_header(key, value);
    batches += (*parts[k]->stats)->batches;
  }
  c.stats = **parts[0]->stats;
  c.stats.bytes = size;
  c.stats.batches = batches;
  c.stats.stopped = false;
  c.stats.stopped_at = 0;
  c.events = into.events();
  c.parts = parts.size();
  c.rec = std::move(parts[0]->rec);
  if (opt.timings != nullptr) {
    c.timing.merge_ms = opt.timings->now_ms();
    for (std::size_t k = 0; k < parts.size(); ++k) {
      TracePartTiming t = parts[k]->timing;
      t.bytes = (k + 1 < parts.size() ? parts[k + 1]->start : size) - parts[k]->start;
      c.timing.parts.push_back(t);
    }
  }
  // The parts' readers (parser buffers, the later parts' emptied arrays) are freed on another
  // thread while this one analyses the records.
  release_in_background(std::move(parts));
  return true;
}

// Reads the trace in parts on up to opt.threads threads and merges them in file order. False (and
// nothing in `c`) when the trace cannot be cut, a cut turns out not to be an event boundary, or a part
// fails: the caller then reads it on one thread, which also gives the one-thread error message.
//
// The trace is first cut into one part per thread at equal byte offsets. Parts of equal size are
// rarely equal work (a profiler writes its CPU events and its GPU events in separate runs, and the
// CPUs of a VM do not run at one speed): a thread that has finished takes over the second half of
// what is left of the largest part still being read, down to opt.min_steal bytes (PartControl).
bool read_parts(const RandomAccess& ra, const std::string& name, const TraceOptions& opt, Collected& c) {
  const std::uint64_t size = ra.size();
  std::uint64_t min_part = std::max<std::uint64_t>(opt.min_part, 1);
  auto n = static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(std::max(opt.threads, 1)), size / min_part));
  if (n < 2) return false;
  char first = 0;
  for (std::uint64_t off = 0; off < std::min<std::uint64_t>(size, 4096) && first == 0; ++off) {
    char ch = 0;
    auto r = ra.read_at(off, &ch, 1);
    if (!r || *r != 1) return false;
    if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t') first = ch;
  }
  const bool legacy = first == '[';
  std::vector<std::uint64_t> cuts{0};
  for (std::size_t k = 1; k < n; ++k) {
    auto at = event_start_after(ra, size / n * k, std::size_t{1} << 20);
    if (at && *at > cuts.back()) cuts.push_back(*at);
  }
  if (cuts.size() < 2) return false;
  std::mutex mu;
  std::vector<std::unique_ptr<Part>> parts;  // in file order
  auto new_part = [&](std::uint64_t start, std::uint64_t stop) { return make_part(start, stop, name, opt); };
  for (std::size_t k = 0; k < cuts.size(); ++k) parts.push_back(new_part(cuts[k], k + 1 < cuts.size() ? cuts[k + 1] : ~std::uint64_t{0}));
  auto run = [&](Part& part) {
    if (opt.timings != nullptr) part.timing = part_timing_start(*opt.timings, part.start);
    read_part(part, ra, name, opt, legacy, &part.control);
    if (opt.timings != nullptr) part_timing_end(*opt.timings, part.timing);
    part.control.finish();  // before the lock: a thief holding it may be waiting for this answer
    std::lock_guard<std::mutex> lock(mu);
    part.running = false;
  };
  // The second half of what is left of the largest part still being read, as a new part after it.
  auto steal = [&]() -> Part* {
    if (opt.min_steal == 0) return nullptr;
    std::lock_guard<std::mutex> lock(mu);
    Part* victim = nullptr;
    std::uint64_t left = 0, end = 0;
    for (const auto& p : parts) {
      if (!p->running) continue;
      std::uint64_t stop = std::min(p->stop, size);
      std::uint64_t at = std::min(p->control.progress(), stop);
      if (stop - at > left) {
        left = stop - at;
        end = stop;
        victim = p.get();
      }
    }
    if (victim == nullptr || left < opt.min_steal) return nullptr;
    auto cut = event_start_after(ra, end - left / 2, std::size_t{64} << 10);
    if (!cut || *cut >= end || !victim->control.offer(*cut)) return nullptr;
    auto it = std::find_if(parts.begin(), parts.end(), [victim](const auto& p) { return p.get() == victim; });
    auto part = new_part(*cut, victim->stop);
    victim->stop = *cut;
    return parts.insert(it + 1, std::move(part))->get();
  };
  auto work = [&](Part* part) {
    while (part != nullptr) {
      run(*part);
      part = steal();
    }
  };
  std::vector<Part*> initial;  // taken before any thread may add a part
  initial.reserve(parts.size());
  for (auto& p : parts) initial.push_back(p.get());
  if (opt.timings != nullptr) c.timing.cut_ms = opt.timings->now_ms();
  parallel_for(initial.size(), initial.size(), [&](std::size_t k) { work(initial[k]); });
  if (opt.timings != nullptr) c.timing.read_ms = opt.timings->now_ms();
  return merge_parts(parts, size, opt, c);
}

// A thread's buffer for the parts it inflates, kept from one part to the next (fresh pages are the
// largest cost of a run on a VM), never zero-filled: bytes are written before they are read. The
// part is read in place (stream_trace_in_place): a byte before it and kStreamSlack after it.
struct PartBuffer {
  std::unique_ptr<char[]> block;
  std::size_t cap = 0, len = 0;
  std::size_t present = 0;  // bytes of data() made present (populate_block) so far
  char* data() { return block.get() + 1; }
  void reserve(std::size_t n) {
    if (n <= cap) return;
    const std::size_t c = std::max(n, cap * 2);
    auto d = std::make_unique_for_overwrite<char[]>(1 + c + kStreamSlack);
    if (len > 0) std::memcpy(d.get() + 1, data(), len);
    block = std::move(d);
    cap = c;
    present = len;
  }
  // Room to write up to `upto` bytes: once a part has passed its first 256 KiB, pages not yet
  // present are made present 256 KiB at a time (one system call, half the cost of a page fault per
  // page on a paravirtualised VM); before that they fault in as written, so a trace of a few
  // kilobytes touches a few pages.
  void prepare(std::size_t upto) {
    constexpr std::size_t kAhead = std::size_t{256} << 10;
    if (len < kAhead) return;
    present = std::max(present, len);
    while (present < upto) {
      const std::size_t step = std::min(cap - present, std::size_t{256} << 10);
      if (step == 0) return;
      populate_block(data() + present, step);
      present += step;
    }
  }
};

// Reads one part of a trace without random access from `buf`, in place.
void read_part_in_place(Part& part, PartBuffer& buf, const std::string& name, const TraceOptions& opt, bool legacy) {
  read_part_with(part, name, legacy, nullptr, [&](const StreamRange& range) {
    return stream_trace_in_place(buf.data(), buf.len, name, *part.pipe, opt.limits, range);
  });
}

// Reads a trace without random access (gzip) in parts on up to opt.threads threads, and merges them
// like read_parts. The trace is cut as it is inflated: a thread takes the inflater, inflates the next
// part into its own buffer (about opt.stream_part bytes, the first parts smaller, up to the first
// event start after that), hands the bytes read past the cut on to the next part, lets the inflater
// go, and reads its part while another thread inflates the next. False (the source then partly
// read) when a cut turns out not to be an event boundary, when no event starts within
// opt.limits.max_event bytes after a cut, or when the source or a part fails: the caller then reads
// the trace again on one thread, which also gives the one-thread error message.
bool read_stream_parts(ByteSource& src, const std::string& name, const TraceOptions& opt, Collected& c) {
  constexpr std::size_t kFirstPart = std::size_t{1} << 20;
  constexpr std::size_t kRead = std::size_t{256} << 10;
  const std::size_t part_max = std::max<std::size_t>(opt.stream_part, 1);
  std::mutex mu;                 // held by the thread that inflates; guards everything below
  std::string carry;             // bytes inflated past the last cut: the start of the next part
  std::uint64_t next = 0;        // their offset in the trace
  std::size_t made = 0;          // parts made so far
  bool end = false;              // the source has been read to its end
  std::uint64_t size = 0;        // then: the trace's bytes
  bool legacy = false;           // the top level is an array of events (from the first part)
  std::atomic<bool> failed{false};
  std::vector<std::unique_ptr<Part>> parts;  // in file order: made under `mu`
  // Under `mu`: the next part's bytes into `buf`; the part, or null when there is nothing left to read
  // or reading failed (then `failed` is set).
  auto next_part = [&](PartBuffer& buf) -> Part* {
    if (end || failed.load(std::memory_order_relaxed)) return nullptr;
    auto fail = [&] {
      failed = true;
      return nullptr;
    };
    const std::uint64_t base = next;
    const std::size_t want = std::min(part_max, kFirstPart << std::min<std::size_t>(made, 16));
    buf.len = 0;
    // The largest part at once: a buffer that doubled as the parts grew would be fresh pages each time.
    buf.reserve(std::max(carry.size(), part_max) + kRead);
    std::memcpy(buf.data(), carry.data(), carry.size());
    buf.len = carry.size();
    bool eof = false;
    auto fill = [&](std::size_t upto) {
      buf.reserve(upto);
      while (buf.len < upto && !eof) {
        const std::size_t take = std::min(upto - buf.len, kRead);
        buf.prepare(buf.len + take);
        auto n = src.read(buf.data() + buf.len, take);
        if (!n) return false;
        eof = *n == 0;
        buf.len += *n;
      }
      return true;
    };
    std::size_t look = 4096;  // bytes past `want` to look for the first event start in
    std::size_t cut = std::string_view::npos;
    if (!fill(want + look)) return fail();
    while (true) {
      if (buf.len > want) {
        const std::size_t at = event_start_in(std::string_view(buf.data() + want, buf.len - want));
        if (at != std::string_view::npos) {
          cut = want + at;
          break;
        }
      }
      if (eof) break;
      if (buf.len - want > opt.limits.max_event) return fail();  // no event start: one thread says why
      look = std::min(look * 4, opt.limits.max_event + 1);  // the buffer: a part and the limit at most
      if (!fill(want + look)) return fail();
    }
    // The splitter checks no event's size in place: a part within the limit holds none beyond it.
    if (buf.len > opt.limits.max_event) return fail();
    if (made == 0) {
      const std::string_view head(buf.data(), std::min<std::size_t>(buf.len, 4096));
      const std::size_t first = head.find_first_not_of(" \n\r\t");
      legacy = first != std::string_view::npos && head[first] == '[';
    }
    ++made;
    if (cut == std::string_view::npos) {
      end = true;
      size = base + buf.len;
    } else {
      carry.assign(buf.data() + cut, buf.len - cut);
      next = base + cut;
    }
    parts.push_back(make_part(base, cut == std::string_view::npos ? ~std::uint64_t{0} : base + cut, name, opt));
    return parts.back().get();
  };
  // A thread is started each time a part is made with more to come, up to opt.threads in all: a
  // trace of one part (most gzip traces, a few megabytes) starts none. At most kMaxStreamThreads:
  // inflating, the one serial step, runs at about four times one thread's parse (ISA-L), so more
  // threads would wait for it, each with a part's buffer.
  constexpr std::size_t kMaxStreamThreads = 8;
  const std::size_t max_threads = std::min<std::size_t>(static_cast<std::size_t>(std::max(opt.threads, 1)), kMaxStreamThreads);
  TaskGroup group;
  std::size_t reading = 1;  // threads reading parts, this one included: under `mu`
  std::function<void()> work = [&] {
    PartBuffer buf;  // this thread's, for every part it reads
    try {
      while (true) {
        Part* part = nullptr;
        bool is_legacy = false;
        TracePartTiming timing;
        bool another = false;
        {
          std::lock_guard<std::mutex> lock(mu);
          if (opt.timings != nullptr) timing = part_timing_start(*opt.timings, next);
          part = next_part(buf);
          is_legacy = legacy;
          another = part != nullptr && !end && reading < max_threads;
          if (another) ++reading;
        }
        // Started outside the lock: with no thread to be had, the group runs it here.
        if (another) group.run([&work] { work(); });
        if (part == nullptr) return;
        read_part_in_place(*part, buf, name, opt, is_legacy);
        if (opt.timings != nullptr) {
          part_timing_end(*opt.timings, timing);
          part->timing = timing;
        }
        if (!*part->stats) failed = true;
      }
    } catch (const std::exception&) {  // memory for a part or a thread: one thread reads it instead
      failed = true;
    }
  };
  if (opt.timings != nullptr) c.timing.cut_ms = opt.timings->now_ms();
  work();
  group.wait();  // and the threads those started
  if (failed || parts.empty()) return false;
  if (opt.timings != nullptr) {
    c.timing.read_ms = opt.timings->now_ms();
    if (const char* lib = src.inflater()) c.timing.inflater = lib;
  }
  if (!merge_parts(parts, size, opt, c)) return false;
  if (c.parts == 1) c.timing.cut_ms = c.timing.merge_ms = -1;  // read whole on one thread: no cut, no merge
  return true;
}

Result<TraceRank> analyze_collected(Collected& c, const std::string& name, const TraceOptions& opt,
                                    std::chrono::steady_clock::time_point start) {
  TraceRecords& rec = c.rec;
  const auto& stats = c.stats;
  TraceRank out;
  out.file = name;
  out.format = stats.legacy_array ? "legacy" : "kineto";
  out.bytes = stats.bytes;
  out.events = c.events;
  if (c.events == 0) {
    return make_error(ErrorKind::invalid, name + (stats.legacy_array || stats.batches > 0 || stats.bytes > 0
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
  if (stats.legacy_array) out.notes.push_back("legacy_format");
  auto a = analyze_records(rec, opt.steps, out, opt.threads);
  if (!a) return a.error();
  out.parse_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (opt.timings != nullptr) {
    c.timing.file = name;
    c.timing.end_ms = opt.timings->now_ms();
    opt.timings->add(std::move(c.timing));
  }
  return out;
}

}  // namespace

// An uncompressed trace with random access: in parts when threads allow, else on one thread.
Result<TraceRank> analyze_trace_random_access(const RandomAccess& ra, const std::string& name, const TraceOptions& opt) {
  auto start = std::chrono::steady_clock::now();
  const double start_ms = opt.timings != nullptr ? opt.timings->now_ms() : 0;
  {
    Collected c;
    c.timing.start_ms = start_ms;
    if (opt.threads > 1 && read_parts(ra, name, opt, c)) {
      if (opt.parts_read != nullptr) *opt.parts_read = c.parts;
      auto r = analyze_collected(c, name, opt, start);
      // Unmapping the records takes milliseconds of system time: on a run given several threads it
      // is done on another one while this one reports (docs/performance-trace.md).
      release_in_background(std::move(c));
      return r;
    }
  }
  Collected c;
  c.timing.start_ms = start_ms;
  auto src = range_source(ra, 0);
  auto r = collect_source(*src, name, opt, c);
  if (!r) return r.error();
  return analyze_collected(c, name, opt, start);
}

namespace {

Result<TraceRank> analyze_source(ByteSource& src, const std::string& name, const TraceOptions& opt) {
  auto start = std::chrono::steady_clock::now();
  Collected c;
  if (opt.timings != nullptr) c.timing.start_ms = opt.timings->now_ms();
  auto r = collect_source(src, name, opt, c);
  if (!r) return r.error();
  return analyze_collected(c, name, opt, start);
}

// A gzip trace on several threads: in parts cut as it is inflated (read_stream_parts); where that
// fails, read again from `reopen` on one thread while a second inflates, which also gives the
// one-thread error message.
Result<TraceRank> analyze_compressed(std::unique_ptr<ByteSource> src,
                                     const std::function<Result<std::unique_ptr<ByteSource>>()>& reopen,
                                     const std::string& name, const TraceOptions& opt) {
  auto start = std::chrono::steady_clock::now();
  {
    Collected c;
    if (opt.timings != nullptr) c.timing.start_ms = opt.timings->now_ms();
    if (read_stream_parts(*src, name, opt, c)) {
      if (opt.parts_read != nullptr) *opt.parts_read = c.parts;
      auto r = analyze_collected(c, name, opt, start);
      release_in_background(std::move(c));
      return r;
    }
  }
  src.reset();
  auto again = reopen();
  if (!again) return again.error();
  auto ahead = read_ahead(std::move(*again));
  return analyze_source(*ahead, name, opt);
}

}  // namespace

Result<TraceRank> analyze_trace_file(const std::string& path, const TraceOptions& opt) {
  if (opt.threads > 1) {
    auto ra = open_random_access(path);
    if (!ra) return ra.error();
    if (*ra) return analyze_trace_random_access(**ra, path, opt);
  }
  auto src = open_trace_file(path);
  if (!src) return src.error();
  if (opt.threads > 1 && (*src)->compressed()) {
    return analyze_compressed(std::move(*src), [&] { return open_trace_file(path); }, path, opt);
  }
  return analyze_source(**src, path, opt);
}

Result<TraceRank> analyze_trace_bytes(std::string_view data, const std::string& name, const TraceOptions& opt) {
  if (opt.threads > 1) {
    if (auto ra = memory_random_access(data)) return analyze_trace_random_access(*ra, name, opt);
  }
  auto src = memory_source(data, name);
  if (opt.threads > 1 && src->compressed()) {
    return analyze_compressed(std::move(src), [&] { return Result<std::unique_ptr<ByteSource>>(memory_source(data, name)); },
                              name, opt);
  }
  return analyze_source(*src, name, opt);
}

std::vector<Result<TraceRank>> analyze_trace_files(const std::vector<std::string>& paths, const TraceOptions& opt) {
  const std::size_t threads = static_cast<std::size_t>(std::max(opt.threads, 1));
  std::vector<std::optional<Result<TraceRank>>> slots(paths.size());
  const std::size_t workers = std::min(threads, paths.size());
  TraceOptions each = opt;
  each.threads = static_cast<int>(std::max<std::size_t>(1, threads / std::max<std::size_t>(workers, 1)));
  parallel_for(paths.size(), workers, [&](std::size_t i) {
    try {
      slots[i] = analyze_trace_file(paths[i], each);
    } catch (const std::exception& e) {
      slots[i] = Result<TraceRank>(make_error(ErrorKind::internal, paths[i] + ": " + e.what()));
    }
    if (opt.on_file_done) opt.on_file_done(i);
  });
  std::vector<Result<TraceRank>> out;
  out.reserve(paths.size());
  for (auto& s : slots) out.push_back(std::move(*s));
  return out;
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
  v.reserve(meds.size());
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
