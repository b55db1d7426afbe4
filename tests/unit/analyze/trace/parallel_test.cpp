// Reading one trace in parts on several threads, and several files at once, must give exactly what
// one thread gives: on generated traces whose strings hold brackets, braces, escaped quotes and the
// very bytes the part cutter looks for, with events straddling read chunks and part borders.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "analyze/trace/reader.h"
#include "analyze/trace/source.h"
#include "analyze/trace/stream.h"
#include "../../../test_util.h"
#include "deflate_util.h"

namespace plumb::trace {
namespace {

TraceRank must_parallel(Result<TraceRank> r) {
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r.value()) : TraceRank{};
}

// Names a splitter could trip on. With `cutter_traps` some end in "}, {" so that the text
// `"x}, {"` holds what the part cutter takes for the start of an event.
std::vector<std::string> names(bool cutter_traps) {
  std::vector<std::string> v = {
      R"(aten::mm)",
      R"(aten::index [x] {y})",
      R"(quote \" inside}, {\"ph\": \"X\"})",
      R"(back\\slash\\)",
      R"(brackets ]]]}}} [[[{{{)",
      R"(unicode \u00e9\u4e2d)",
  };
  if (cutter_traps) {
    v.push_back("trap}, {");
    v.push_back("trap2},\\n{");
    v.push_back("}, {");
  }
  return v;
}

// A Kineto (or legacy) trace of `steps` steps on two CPU threads (one with string ids) and one
// GPU stream, with kernels, copies, runtime calls, memory instants, flows and metadata. With
// `late_enclosing`, each step also has an op that encloses the step's ops on thread 1 but is written
// after them (as a profiler writes an op that ends last), so a cut can fall between them.
std::string make_trace(int steps, bool cutter_traps, bool legacy, bool late_enclosing = false) {
  const auto ns = names(cutter_traps);
  std::string s = legacy ? "[\n" : R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100"}, {"id": 1, "name": "NVIDIA A100"}],
  "traceEvents": [
)";
  bool first = true;
  auto add = [&](const std::string& ev) {
    if (!first) s += ",\n  ";
    s += ev;
    first = false;
  };
  add(R"({"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "python \"main\" {0}"}})");
  long long corr = 1;
  for (int k = 0; k < steps; ++k) {
    const double t0 = 1000.0 + k * 10000.0;
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, "tid": 1, "ts": %.3f, "dur": 9000})", k,
                  t0);
    add(buf);
    std::snprintf(buf, sizeof buf,
                  R"({"ph": "X", "cat": "user_annotation", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "pid": 1, "tid": 1, "ts": %.3f, "dur": %d})",
                  t0, 100 + (k % 7) * 50);
    add(buf);
    for (int i = 0; i < 12; ++i) {
      const std::string& n = ns[static_cast<std::size_t>(k * 12 + i) % ns.size()];
      const double ts = t0 + 600 + i * 600;
      const bool str_ids = i % 3 == 0;
      std::snprintf(buf, sizeof buf,
                    str_ids ? R"({"ph": "X", "cat": "cpu_op", "name": "%s", "pid": "CPU functions", "tid": "thread %d", "ts": %.3f, "dur": 400, "args": {"External id": %d, "note": "[{\"]}"}})"
                            : R"({"ph": "X", "cat": "cpu_op", "name": "%s", "pid": 1, "tid": %d, "ts": %.3f, "dur": 400, "args": {"External id": %d}})",
                    n.c_str(), 1 + i % 2, ts, i);
      add(buf);
      std::snprintf(buf, sizeof buf,
                    R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %.3f, "dur": 10, "args": {"correlation": %lld}})",
                    ts + 50, corr);
      add(buf);
      std::snprintf(buf, sizeof buf,
                    R"({"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": "stream 7", "ts": %.3f, "dur": %d, "args": {"stream": 7, "correlation": %lld, "device": 0}})",
                    n.c_str(), ts + 80, 200 + (i * 37 + k) % 300, corr);
      add(buf);
      std::snprintf(buf, sizeof buf, R"({"ph": "f", "id": %lld, "pid": 0, "tid": 7, "ts": %.3f, "cat": "ac2g", "name": "ac2g", "bp": "e"})",
                    corr, ts + 80);
      add(buf);
      ++corr;
    }
    if (late_enclosing) {
      std::snprintf(buf, sizeof buf, R"({"ph": "X", "cat": "cpu_op", "name": "aten::outer", "pid": 1, "tid": 1, "ts": %.3f, "dur": 8000})",
                    t0 + 500);
      add(buf);
    }
    std::snprintf(buf, sizeof buf,
                  R"J({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": %.3f, "dur": 50, "args": {"stream": 7, "correlation": %lld, "bytes": %d}})J",
                  t0 + 300, corr++, 4096 * (k + 1));
    add(buf);
    std::snprintf(buf, sizeof buf,
                  R"({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": %.3f, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 4096, "Total Allocated": %d, "Total Reserved": 1000000000}})",
                  t0 + 700, 1000000 + (k * 7919) % 500000);
    add(buf);
  }
  s += legacy ? "\n]\n" : R"(
  ],
  "distributedInfo": {"backend": "nccl", "rank": 2, "world_size": 4},
  "baseTimeNanoseconds": 1700000000000000000
}
)";
  return s;
}

TraceOptions parallel(int threads, std::size_t min_part, std::size_t* parts = nullptr) {
  TraceOptions o;
  o.threads = threads;
  o.min_part = min_part;
  o.parts_read = parts;
  return o;
}

void expect_same(const TraceRank& one, TraceRank many) {
  many.parse_ms = one.parse_ms;
  EXPECT_EQ(one.steps, many.steps);
  EXPECT_EQ(one.summary, many.summary);
  EXPECT_EQ(one, many);
}

TEST(TraceParallel, PartsOfOneTraceGiveTheOneThreadResult) {
  const std::string text = make_trace(60, false, false);
  auto one = must_parallel(analyze_trace_bytes(text, "t.json"));
  ASSERT_EQ(one.steps.size(), 60u);
  ASSERT_EQ(one.rank, 2);
  for (int threads : {2, 3, 4, 7, 16}) {
    std::size_t parts = 0;
    auto many = must_parallel(analyze_trace_bytes(text, "t.json", parallel(threads, 4096, &parts)));
    EXPECT_EQ(parts, static_cast<std::size_t>(threads)) << "the trace was not read in parts";
    expect_same(one, many);
  }
}

// A thread's records of later parts are not copied into the first part's arrays but walked merged
// on the fly: where a cut leaves an enclosing op in the part after its children, the parts' rows
// overlap in time, and the walk must still nest them as the one-thread read does.
TEST(TraceParallel, OpsWrittenAfterTheirChildrenNestAcrossParts) {
  const std::string text = make_trace(60, false, false, true);
  auto one = must_parallel(analyze_trace_bytes(text, "t.json"));
  ASSERT_FALSE(one.summary.top_ops.empty());
  auto outer = std::find_if(one.summary.top_ops.begin(), one.summary.top_ops.end(),
                            [](const TraceOp& o) { return o.name == "aten::outer"; });
  ASSERT_NE(outer, one.summary.top_ops.end());
  EXPECT_LT(outer->self_us, outer->total_us) << "the late op must enclose the ops written before it";
  for (int threads : {2, 3, 5, 8, 13, 16}) {
    for (std::size_t min_part : {1024u, 3000u, 7777u}) {
      std::size_t parts = 0;
      auto many = must_parallel(analyze_trace_bytes(text, "t.json", parallel(threads, min_part, &parts)));
      EXPECT_GT(parts, 1u);
      expect_same(one, many);
    }
  }
}

// --timings: each part's span, bytes and thread in file order, and the steps in the order they run
// (opened, cut, parts read, merged, analysed); a trace read on one thread has one part and no cut or
// merge.
TEST(TraceParallel, TimingsFollowThePartsAndTheSteps) {
  const std::string text = make_trace(60, false, false);
  for (int threads : {1, 3}) {
    TraceTimings timings(std::chrono::steady_clock::now());
    TraceOptions o = parallel(threads, 4096);
    o.timings = &timings;
    std::size_t parts = 0;
    o.parts_read = &parts;
    must_parallel(analyze_trace_bytes(text, "t.json", o));
    auto files = timings.files();
    ASSERT_EQ(files.size(), 1u);
    const auto& f = files[0];
    EXPECT_EQ(f.file, "t.json");
    ASSERT_EQ(f.parts.size(), parts) << threads;
    std::uint64_t at = 0;
    for (const auto& p : f.parts) {
      EXPECT_EQ(p.offset, at) << threads << ": parts in file order, end to end";
      EXPECT_GT(p.bytes, 0u);
      at += p.bytes;
      EXPECT_GE(p.start_ms, f.start_ms);
      EXPECT_LE(p.start_ms, p.end_ms);
      EXPECT_LE(p.end_ms, f.read_ms);
      EXPECT_GE(p.cpu_ms, 0);
      EXPECT_GT(p.thread, 0);
    }
    EXPECT_EQ(at, text.size()) << threads;
    if (threads == 1) {
      EXPECT_LT(f.cut_ms, 0);
      EXPECT_LT(f.merge_ms, 0);
      EXPECT_LE(f.read_ms, f.end_ms);
    } else {
      EXPECT_EQ(parts, 3u);
      EXPECT_LE(f.start_ms, f.cut_ms);
      EXPECT_LE(f.cut_ms, f.parts[0].start_ms);
      EXPECT_LE(f.read_ms, f.merge_ms);
      EXPECT_LE(f.merge_ms, f.end_ms);
    }
  }
}

TEST(TraceParallel, LargePartsMergeTheirArraysOnTwoThreads) {
  // 1400 steps: about 18,000 GPU and correlation rows in the second part, past the 16,384 from which
  // the merge copies the flat arrays on a second thread (src/analyze/trace/builder.cpp).
  const std::string text = make_trace(1400, false, false);
  auto one = must_parallel(analyze_trace_bytes(text, "t.json"));
  ASSERT_EQ(one.steps.size(), 1400u);
  std::size_t parts = 0;
  auto many = must_parallel(analyze_trace_bytes(text, "t.json", parallel(2, 4096, &parts)));
  EXPECT_EQ(parts, 2u);
  expect_same(one, many);
}

TEST(TraceParallel, SmallReadChunksMakeEventsStraddleEveryBorder) {
  const std::string text = make_trace(25, false, false);
  auto one = must_parallel(analyze_trace_bytes(text, "t.json"));
  for (std::size_t chunk : {97u, 1000u, 4096u}) {
    TraceOptions o = parallel(5, 2048);
    o.limits.chunk = chunk;
    o.limits.batch = chunk * 2;
    std::size_t parts = 0;
    o.parts_read = &parts;
    auto many = must_parallel(analyze_trace_bytes(text, "t.json", o));
    EXPECT_GT(parts, 1u);
    expect_same(one, many);
  }
}

TEST(TraceParallel, StringsThatLookLikeEventBordersFallBackOrAgree) {
  // Every cut the cutter guesses inside a string ("x}, {") is refused by the part before it; the
  // result is the one-thread one in all cases, and some cuts are real, so parts are used too.
  const std::string text = make_trace(60, true, false);
  auto one = must_parallel(analyze_trace_bytes(text, "t.json"));
  std::size_t used_parts = 0;
  for (int threads = 2; threads <= 24; ++threads) {
    std::size_t parts = 0;
    auto many = must_parallel(analyze_trace_bytes(text, "t.json", parallel(threads, 1024, &parts)));
    used_parts = std::max(used_parts, parts);
    expect_same(one, many);
  }
  EXPECT_GT(used_parts, 1u);
}

// The cutter reads ahead of the middle of the trace a little at a time (4 KiB, 64 KiB, then up to
// 1 MiB): wherever the first event border after the middle lies, across either read or at the end of
// the window, the trace is cut there (two parts) or, past the window, read on one thread; the result
// is the one-thread result.
TEST(TraceParallel, TheCutIsFoundAcrossEveryReadOfTheCutter) {
  const std::string base = make_trace(25, false, false);
  const std::string first_event_end = "}},\n  ";  // after the process_name event
  const std::size_t at = base.find(first_event_end);
  ASSERT_NE(at, std::string::npos);
  const std::string a = base.substr(0, at + first_event_end.size());
  const std::string b = ",\n  " + base.substr(at + first_event_end.size());
  const std::string pre = R"({"ph": "M", "name": "pad", "pid": 1, "tid": 1, "args": {"s": ")";
  // The outer '}' of the padding event, less the middle of the file, for a padding string of L bytes.
  auto distance = [&](std::size_t len) {
    const std::size_t size = a.size() + pre.size() + len + 3 + b.size();
    return static_cast<long long>(a.size() + pre.size() + len + 2) - static_cast<long long>(size / 2);
  };
  for (long long want : {1LL, 4090LL, 4093LL, 4094LL, 4095LL, 4096LL, 4097LL, 65530LL, 65533LL, 65534LL, 65535LL, 65536LL,
                         300000LL, (1LL << 20) - 16, (1LL << 20) + 100}) {
    std::size_t len = 0;
    while (distance(len) < want) ++len;
    ASSERT_EQ(distance(len), want);
    std::string text = a;
    text.append(pre).append(len, 'x').append("\"}}").append(b);
    auto one = must_parallel(analyze_trace_bytes(text, "t.json"));
    std::size_t parts = 0;
    auto two = must_parallel(analyze_trace_bytes(text, "t.json", parallel(2, 1024, &parts)));
    EXPECT_EQ(parts, want < (1LL << 20) - 8 ? 2u : 1u) << "border " << want << " bytes after the middle";
    expect_same(one, two);
  }
}

// Bytes in memory read slowly below `slow_below` (a part on a slow CPU, or behind a slow disk).
class SlowStart : public RandomAccess {
 public:
  SlowStart(std::string_view data, std::uint64_t slow_below) : inner_(memory_random_access(data)), slow_below_(slow_below) {}
  Result<std::size_t> read_at(std::uint64_t offset, char* dst, std::size_t n) const override {
    if (offset < slow_below_ && n > 1) std::this_thread::sleep_for(std::chrono::microseconds(300));
    return inner_->read_at(offset, dst, n);
  }
  [[nodiscard]] std::uint64_t size() const override { return inner_->size(); }

 private:
  std::unique_ptr<RandomAccess> inner_;
  std::uint64_t slow_below_;
};

// A thread done with its part takes over the rest of a slower one, more than once, down to
// min_steal; the result is the one-thread result. With the cutter's traps in the strings, an offered
// cut inside a string is not where the slow part stops, and the whole read falls back or agrees.
TEST(TraceParallel, AThreadDoneEarlyTakesOverTheRestOfASlowPart) {
  for (bool traps : {false, true}) {
    const std::string text = make_trace(300, traps, false);
    auto one = must_parallel(analyze_trace_bytes(text, "t.json"));
    SlowStart slow(text, text.size() / 2);
    TraceOptions o = parallel(2, 4096);
    o.limits.chunk = 4096;
    o.limits.batch = 8192;
    o.min_steal = 16 << 10;
    std::size_t parts = 0;
    o.parts_read = &parts;
    auto many = must_parallel(analyze_trace_random_access(slow, "t.json", o));
    expect_same(one, many);
    if (!traps) {
      EXPECT_GT(parts, 2u) << "no part was taken over (" << text.size() << " bytes)";
    }
    o.min_steal = 0;  // never: the two parts as cut
    auto two = must_parallel(analyze_trace_random_access(slow, "t.json", o));
    if (!traps) {
      EXPECT_EQ(parts, 2u);
    }
    expect_same(one, two);
  }
}

// The reader's side of a take-over: an offered stop ahead of what it has scanned is taken (it stops
// exactly there), one behind it is refused, and a reader that has finished refuses every offer.
TEST(TraceParallel, PartControlTakesOnlyStopsAheadOfTheReader) {
  const std::string text = make_trace(40, false, false);
  auto ra = memory_random_access(text);
  // Three event starts well inside the events array; the reader starts at the middle one.
  const auto before = text.find("{\"ph\"", text.size() / 6);
  const auto first = text.find("{\"ph\"", text.size() / 3);
  const auto second = text.find("{\"ph\"", text.size() * 2 / 3);
  ASSERT_NE(before, std::string::npos);
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(second, std::string::npos);
  struct Count : TraceSink {
    Result<bool> header(std::string_view, std::string_view) override { return true; }
    Result<bool> events(const char*, std::size_t, std::uint64_t, const BatchIndex& index) override {
      n += index.starts.size();
      return true;
    }
    std::size_t n = 0;
  };
  for (std::uint64_t cut : {static_cast<std::uint64_t>(second), static_cast<std::uint64_t>(before)}) {
    PartControl control(first);
    StreamRange range;
    range.start = first;
    range.in_events = true;
    range.control = &control;
    std::atomic<bool> taken{false};
    std::thread thief([&] { taken = control.offer(cut); });
    // The offer is out before the reader's first read.
    for (int i = 0; i < 100'000 && !control.offer_pending(); ++i) std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (!control.offer_pending()) {
      control.finish();
      thief.join();
      FAIL() << "the offer was not made within 10 s";
    }
    Count sink;
    auto src = range_source(*ra, first);
    StreamLimits lim;
    lim.chunk = 4096;
    auto st = stream_trace(*src, "t.json", sink, lim, range);
    control.finish();
    thief.join();
    ASSERT_TRUE(st.ok()) << st.error().message;
    if (cut == second) {
      EXPECT_TRUE(taken);
      EXPECT_TRUE(st->stopped);
      EXPECT_EQ(st->stopped_at, second);
    } else {  // behind where it started
      EXPECT_FALSE(taken);
      EXPECT_FALSE(st->stopped);
    }
    EXPECT_FALSE(control.offer(second)) << "a finished reader took an offer";
  }
}

TEST(TraceParallel, LegacyArrayInParts) {
  const std::string text = make_trace(30, false, true);
  auto one = must_parallel(analyze_trace_bytes(text, "legacy.json"));
  EXPECT_EQ(one.format, "legacy");
  std::size_t parts = 0;
  auto many = must_parallel(analyze_trace_bytes(text, "legacy.json", parallel(4, 4096, &parts)));
  EXPECT_EQ(parts, 4u);
  expect_same(one, many);
}

TEST(TraceParallel, ErrorsAreTheOneThreadErrors) {
  const std::string text = make_trace(40, false, false);
  const std::string cuts[] = {
      text.substr(0, text.size() * 3 / 4),                                              // truncated
      text.substr(0, text.size() / 2) + "}}" + text.substr(text.size() / 2),            // unbalanced
      text.substr(0, text.size() * 2 / 3) + R"({"ph": "X", "name": "a", "ts": "x", "dur": 1},)" +
          text.substr(text.size() * 2 / 3),                                              // bad value
  };
  for (const auto& bad : cuts) {
    auto one = analyze_trace_bytes(bad, "bad.json");
    auto many = analyze_trace_bytes(bad, "bad.json", parallel(4, 4096));
    ASSERT_FALSE(one.ok());
    ASSERT_FALSE(many.ok());
    EXPECT_EQ(one.error().message, many.error().message);
  }
}

TEST(TraceParallel, RealTracesInParts) {
  for (const char* f : {"hta-a100-sxm4-80gb-train-rank0-nccl.json.gz", "hta-mtia-inference-rank0.json.gz",
                        "kineto-resnet50-num-workers-4.json.gz", "hta-v100-sxm2-32gb-ns-resolution-rank0.json.gz"}) {
    auto gz = read_user_file(test::fixture(std::string("traces/corpus/") + f));
    ASSERT_TRUE(gz.ok()) << f;
    auto src = memory_source(*gz, f);
    std::string plain;
    std::vector<char> buf(1 << 16);
    while (true) {
      auto n = src->read(buf.data(), buf.size());
      ASSERT_TRUE(n.ok());
      if (*n == 0) break;
      plain.append(buf.data(), *n);
    }
    auto one = must_parallel(analyze_trace_bytes(plain, f));
    std::size_t parts = 0;
    auto many = must_parallel(analyze_trace_bytes(plain, f, parallel(6, plain.size() / 6, &parts)));
    EXPECT_GT(parts, 1u) << f;
    expect_same(one, many);
  }
}

TEST(TraceParallel, GzipInflatedOnASecondThreadReadsTheSame) {
  auto gz = read_user_file(test::fixture("traces/corpus/hta-v100-sxm2-16gb-train-6steps.json.gz"));
  ASSERT_TRUE(gz.ok());
  TraceOptions small_chunks = parallel(2, 4096);
  small_chunks.limits.chunk = 4096;
  auto one = must_parallel(analyze_trace_bytes(*gz, "v100.json.gz"));
  expect_same(one, must_parallel(analyze_trace_bytes(*gz, "v100.json.gz", parallel(2, 4096))));
  expect_same(one, must_parallel(analyze_trace_bytes(*gz, "v100.json.gz", small_chunks)));
  for (std::size_t cut : {gz->size() / 2, gz->size() - 9, std::size_t{100}}) {
    auto a = analyze_trace_bytes(gz->substr(0, cut), "cut.json.gz");
    auto b = analyze_trace_bytes(gz->substr(0, cut), "cut.json.gz", parallel(2, 4096));
    ASSERT_FALSE(a.ok());
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(a.error().message, b.error().message);
  }
}

// A gzip trace read on several threads is cut into parts as it is inflated (stream_part bytes each,
// the first ones smaller): every size of part, thread count and format gives the one-thread result,
// with the parts' records merged (more than one part), whether the trace is one gzip member or
// several, and with the cutter's traps in the strings (a refused cut reads the trace again on one
// thread, with the same result).
TraceOptions gzip_parts(int threads, std::size_t stream_part, std::size_t* parts = nullptr) {
  TraceOptions o = parallel(threads, 4096, parts);
  o.stream_part = stream_part;
  return o;
}

TEST(TraceGzipParts, EveryPartSizeGivesTheOneThreadResult) {
  for (bool legacy : {false, true}) {
    for (bool traps : {false, true}) {
      const std::string text = make_trace(60, traps, legacy, !legacy);
      const std::string gz = test::deflate_with(text, 6, 15 + 16);
      const std::string members = test::deflate_with(text.substr(0, text.size() / 3), 1, 15 + 16) +
                                  test::deflate_with(text.substr(text.size() / 3), 9, 15 + 16);
      std::size_t most = 0;
      for (const std::string* data : {&gz, &members}) {
        auto one = must_parallel(analyze_trace_bytes(*data, "t.json.gz"));
        ASSERT_EQ(one.steps.size(), 60u);
        for (int threads : {2, 3, 5}) {
          for (std::size_t part : {700u, 3000u, 7777u, 1u << 20}) {
            std::size_t parts = 0;
            auto many = must_parallel(analyze_trace_bytes(*data, "t.json.gz", gzip_parts(threads, part, &parts)));
            expect_same(one, many);
            most = std::max(most, parts);
            if (!traps) {
              EXPECT_EQ(parts > 1, part < text.size()) << part << " bytes a part, " << text.size() << " in all";
            }
          }
        }
      }
      // With the traps, some cut of so many falls inside a string: the trace is read again on one thread.
      if (!traps) {
        EXPECT_GT(most, 10u) << "legacy " << legacy;
      }
    }
  }
}

// The parts' offsets and sizes cover the trace end to end, in file order, and each says which
// library inflated it.
TEST(TraceGzipParts, TimingsCoverTheTraceEndToEnd) {
  const std::string text = make_trace(60, false, false);
  const std::string gz = test::deflate_with(text, 6, 15 + 16);
  TraceTimings timings(std::chrono::steady_clock::now());
  std::size_t parts = 0;
  TraceOptions o = gzip_parts(3, 5000, &parts);
  o.timings = &timings;
  must_parallel(analyze_trace_bytes(gz, "t.json.gz", o));
  auto files = timings.files();
  ASSERT_EQ(files.size(), 1u);
  const auto& f = files[0];
  ASSERT_GT(parts, 1u);
  ASSERT_EQ(f.parts.size(), parts);
  EXPECT_FALSE(f.inflater.empty());
  EXPECT_GE(f.cut_ms, 0);
  EXPECT_GE(f.merge_ms, f.read_ms);
  std::uint64_t at = 0;
  for (const auto& p : f.parts) {
    EXPECT_EQ(p.offset, at);
    EXPECT_GT(p.bytes, 0u);
    at += p.bytes;
    EXPECT_LE(p.start_ms, p.end_ms);
    EXPECT_GT(p.thread, 0);
  }
  EXPECT_EQ(at, text.size());
  // One part (a trace smaller than the first part): read on one thread, no cut and no merge.
  TraceTimings whole(std::chrono::steady_clock::now());
  o = gzip_parts(3, 1u << 20, &parts);
  o.timings = &whole;
  must_parallel(analyze_trace_bytes(gz, "t.json.gz", o));
  EXPECT_EQ(parts, 1u);
  ASSERT_EQ(whole.files().size(), 1u);
  EXPECT_LT(whole.files()[0].cut_ms, 0);
  EXPECT_LT(whole.files()[0].merge_ms, 0);
}

// Bad gzip or bad JSON inside it, an event larger than the limit, no event border for longer than
// the limit: the error of the one-thread read, whatever the part size.
TEST(TraceGzipParts, ErrorsAreTheOneThreadErrors) {
  const std::string text = make_trace(40, false, false);
  const std::string gz = test::deflate_with(text, 6, 15 + 16);
  std::string flipped = gz;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x55);
  const std::string huge_name(20000, 'n');
  const std::string huge = text.substr(0, text.size() / 2) + R"({"ph": "X", "name": ")" + huge_name +
                           R"(", "ts": 1, "dur": 1},)" + text.substr(text.size() / 2);
  struct Case {
    std::string data;
    std::size_t max_event;
  };
  const std::vector<Case> cases = {
      {gz.substr(0, gz.size() * 3 / 4), 256u << 20},                                             // truncated gzip
      {flipped, 256u << 20},                                                                      // corrupt gzip
      {test::deflate_with(text.substr(0, text.size() * 2 / 3), 6, 15 + 16), 256u << 20},          // truncated JSON
      {test::deflate_with(text.substr(0, text.size() / 2) + "}}" + text.substr(text.size() / 2), 6, 15 + 16),
       256u << 20},                                                                               // unbalanced
      {test::deflate_with(huge, 6, 15 + 16), 16384},                                             // event too large
      {test::deflate_with(huge, 6, 15 + 16), 4096},                                              // no border in reach
  };
  for (const auto& c : cases) {
    TraceOptions one_opt;
    one_opt.limits.max_event = c.max_event;
    auto one = analyze_trace_bytes(c.data, "bad.json.gz", one_opt);
    ASSERT_FALSE(one.ok());
    for (std::size_t part : {1000u, 6000u}) {
      TraceOptions o = gzip_parts(3, part);
      o.limits.max_event = c.max_event;
      auto many = analyze_trace_bytes(c.data, "bad.json.gz", o);
      ASSERT_FALSE(many.ok());
      EXPECT_EQ(one.error().message, many.error().message);
    }
  }
}

class TraceFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("plumb-trace-parallel-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    auto p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::filesystem::path dir_;
};

TEST_F(TraceFolder, FilesReadAtOnceGiveTheOneThreadResults) {
  write("rank0.json", make_trace(20, false, false));
  write("rank1.json", make_trace(33, true, false));
  write("rank2.json", make_trace(12, false, true));
  write("rank3.json", make_trace(45, false, false));
  auto files = expand_trace_inputs({dir_.string()});
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 4u);
  auto one = analyze_trace_files(*files, parallel(1, 4096));
  for (int threads : {2, 3, 8}) {
    auto many = analyze_trace_files(*files, parallel(threads, 4096));
    ASSERT_EQ(many.size(), one.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
      ASSERT_TRUE(one[i].ok() && many[i].ok());
      EXPECT_EQ(many[i]->file, (*files)[i]);
      expect_same(*one[i], *many[i]);
    }
  }
}

TEST_F(TraceFolder, ABadFileKeepsItsPlaceAndMessage) {
  write("a-rank0.json", make_trace(10, false, false));
  write("b-rank1.json", R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": -5}]})");
  write("c-rank2.json", make_trace(10, false, false));
  auto files = expand_trace_inputs({dir_.string()});
  ASSERT_TRUE(files.ok());
  auto one = analyze_trace_files(*files, parallel(1, 4096));
  auto many = analyze_trace_files(*files, parallel(3, 4096));
  ASSERT_EQ(many.size(), 3u);
  EXPECT_TRUE(many[0].ok());
  ASSERT_FALSE(many[1].ok());
  EXPECT_EQ(many[1].error().message, one[1].error().message);
  EXPECT_TRUE(many[2].ok());
}

TraceOptions simdjson_only() {
  TraceOptions o;
  o.fast_scan = false;
  return o;
}

// plumb's own event scanner must read exactly what simdjson On-Demand reads.
TEST(TraceFastScan, SameResultsAsSimdjsonOnRealAndGeneratedTraces) {
  for (const char* f : {"hta-a100-sxm4-80gb-train-rank0-nccl.json.gz", "hta-mtia-inference-rank0.json.gz",
                        "kineto-resnet50-num-workers-4.json.gz", "hta-v100-sxm2-32gb-ns-resolution-rank0.json.gz",
                        "hta-amd-mi250-rocm62.json.gz", "hta-a100-cupti-profiler-counters.json.gz",
                        "kineto-docs-8x-h100-cuda-sync-small.json"}) {
    auto data = read_user_file(test::fixture(std::string("traces/corpus/") + f));
    ASSERT_TRUE(data.ok()) << f;
    auto slow = must_parallel(analyze_trace_bytes(*data, f, simdjson_only()));
    auto fast = must_parallel(analyze_trace_bytes(*data, f));
    expect_same(slow, fast);
  }
  for (bool traps : {false, true}) {
    for (bool legacy : {false, true}) {
      const std::string text = make_trace(20, traps, legacy);
      expect_same(must_parallel(analyze_trace_bytes(text, "t.json", simdjson_only())), must_parallel(analyze_trace_bytes(text, "t.json")));
    }
  }
}

// The splitter's 64-byte scan built for SSE2, AVX2 and AVX-512BW: each level this CPU has reads
// every trace the same, chunk borders, escapes and brackets in strings included.
TEST(TraceSplitter, EveryVectorWidthReadsTheSame) {
  std::vector<std::string> texts;
  for (const char* f : {"hta-a100-sxm4-80gb-train-rank0-nccl.json.gz", "kineto-resnet50-num-workers-4.json.gz"}) {
    auto data = read_user_file(test::fixture(std::string("traces/corpus/") + f));
    ASSERT_TRUE(data.ok()) << f;
    texts.push_back(*data);
  }
  texts.push_back(make_trace(20, true, false));
  texts.push_back(make_trace(20, true, true));
  texts.push_back(R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a\"]}, {\\", "pid": 1, "tid": 1, "ts": 1, "dur": 5}]})");
  std::printf("splitter level on this CPU: %d\n", splitter_simd_level());
  for (const auto& text : texts) {
    for (std::size_t chunk : {std::size_t{256} << 10, std::size_t{61}}) {
      TraceOptions base;
      base.limits.simd = 0;
      base.limits.chunk = chunk;
      auto want = analyze_trace_bytes(text, "t.json", base);
      for (int level = 1; level <= 2; ++level) {
        TraceOptions o = base;
        o.limits.simd = level;
        auto got = analyze_trace_bytes(text, "t.json", o);
        ASSERT_EQ(want.ok(), got.ok()) << level;
        if (want.ok()) {
          expect_same(*want, *got);
        } else {
          EXPECT_EQ(want.error().message, got.error().message);
        }
      }
    }
  }
  EXPECT_EQ(splitter_simd_level(0), 0);
  EXPECT_LE(splitter_simd_level(1), 1);
  EXPECT_EQ(splitter_simd_level(-3), 0);
}

// Random edits of a valid trace (JSON's own characters put in, taken out or swapped): plumb's
// scanner, simdjson and every splitter width give the same result or the same error each time.
// A xorshift generator: the same edits on every run.
struct XorShift {
  std::uint64_t state;
  std::uint64_t operator()() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
};

// `base` with `edits` random bytes replaced, inserted or removed, from JSON's structural characters,
// digits, letters of its literals, a control byte and half of a UTF-8 sequence.
std::string random_edits(const std::string& base, int edits, XorShift& next) {
  const std::string alphabet = "{}[]\",:\\ 0123456789.eE-+tfnulrsX\t\x01\xc3";
  std::string text = base;
  for (; edits > 0 && !text.empty(); --edits) {
    const std::size_t at = next() % text.size();
    const char c = alphabet[next() % alphabet.size()];
    switch (next() % 3) {
      case 0: text[at] = c; break;
      case 1: text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c); break;
      default: text.erase(at, 1); break;
    }
  }
  return text;
}

TEST(TraceFastScan, RandomEditsReadTheSameEveryWay) {
  const std::string base = make_trace(2, true, false);
  XorShift next{0x2545f4914f6cdd1dULL};
  for (int round = 0; round < 2000; ++round) {
    const std::string text = random_edits(base, 1 + static_cast<int>(next() % 3), next);
    TraceOptions fast;
    fast.limits.chunk = 1 + next() % 300;
    fast.limits.batch = 1 + next() % 500;
    fast.limits.simd = static_cast<int>(next() % 3);
    TraceOptions slow = fast;
    slow.fast_scan = false;
    slow.limits.simd = static_cast<int>(next() % 3);
    auto a = analyze_trace_bytes(text, "t.json", fast);
    auto b = analyze_trace_bytes(text, "t.json", slow);
    ASSERT_EQ(a.ok(), b.ok()) << text;
    if (a.ok()) {
      expect_same(*a, *b);
    } else {
      ASSERT_EQ(a.error().message, b.error().message) << text;
    }
  }
}

// Random edits of a small trace (strings that look like event borders included), gzip'ed and read in
// parts of a few hundred bytes as it is inflated: the one-thread result or error, every time.
TEST(TraceGzipParts, RandomEditsReadAsOneThread) {
  const std::string base = make_trace(6, true, false);
  XorShift next{0x9e3779b97f4a7c15ULL};
  for (int round = 0; round < 600; ++round) {
    const std::string text = random_edits(base, static_cast<int>(next() % 4), next);
    const std::string gz = test::deflate_with(text, static_cast<int>(next() % 10), 15 + 16);
    TraceOptions o = gzip_parts(2 + static_cast<int>(next() % 4), 1 + next() % 3000);
    o.limits.max_event = 64 + next() % 8192;
    TraceOptions one_opt;
    one_opt.limits.max_event = o.limits.max_event;
    auto a = analyze_trace_bytes(gz, "t.json.gz", one_opt);
    auto b = analyze_trace_bytes(gz, "t.json.gz", o);
    ASSERT_EQ(a.ok(), b.ok()) << "round " << round << ": " << (a.ok() ? b.error().message : a.error().message);
    if (a.ok()) {
      expect_same(*a, *b);
    } else {
      ASSERT_EQ(a.error().message, b.error().message) << "round " << round;
    }
  }
}

TEST(TraceFastScan, OddButValidJsonReadsTheSame) {
  // Escapes, keys in any order, duplicate keys, nested args, literals, exponents, unknown fields.
  const char* text = R"J({"traceEvents": [
    {"name": "ProfilerStep#1", "ph": "X", "cat": "user_annotation", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
    {"ts": 1100, "dur": 5e2, "ph": "X", "cat": "cpu_op", "name": "aten::mm \"q\" \u00e9", "pid": "1", "tid": "main thread"},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1.2e3, "dur": 100, "args": {"stream": 7, "correlation": null, "extra": [1, [2, {"a": true}], false], "correlation": 3}},
    {"args": {"correlation": 3}, "ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1150, "dur": 10},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 1300, "dur": 20, "args": {"bytes": "many", "stream": 7, "correlation": -1}},
    {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 1400, "dur": 50, "args": 5},
    {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1500, "args": {"Device Type": 1, "Device Id": 0, "Total Allocated": 1.5e9, "Total Reserved": 2e9}},
    {"ph": "f", "id": 3, "pid": 0, "tid": 7, "ts": 1200, "cat": "ac2g", "name": "ac2g", "bp": "e", "x": {"deep": [[[]]]}},
    {"ph": "X", "ph": "X", "cat": "cpu_op", "name": "dup", "name": "dup2", "pid": 1, "tid": 2, "ts": 1600, "dur": 0.5, "\u0070h": "M"},
    {}
  ]})J";
  auto slow = must_parallel(analyze_trace_bytes(text, "odd.json", simdjson_only()));
  auto fast = must_parallel(analyze_trace_bytes(text, "odd.json"));
  expect_same(slow, fast);
  EXPECT_EQ(slow.events, 10);
}

TEST(TraceFastScan, BadInputGivesTheSimdjsonError) {
  const char* cases[] = {
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 5,}]})",
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 5} {"ph": "X", "name": "a", "ts": 1, "dur": 5}]})",
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 01, "dur": 5}]})",
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 5, "args": {"x": tru}}]})",
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 5}, 7, {"ph": "X", "name": "b", "ts": 1, "dur": 5}]})",
      "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\ttab\", \"ts\": 1, \"dur\": 5}]}",
      R"({"traceEvents": [{"ph": "X", "name": "bad \x", "ts": 1, "dur": 5}]})",
      R"({"traceEvents": [{"ph": 5, "name": "a", "ts": 1, "dur": 5}]})",
      R"({"traceEvents": [{"ph": "X", "name": "a", "ts": "1", "dur": 5}]})",
      "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"\xff\xfe\", \"ts\": 1, \"dur\": 5}]}",
      // A control character in a string of a value the scanner skips by the splitter's index.
      "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"a\", \"ts\": 1, \"dur\": 5, \"args\": {\"x\": \"a\tb\"}}]}",
      "{\"traceEvents\": [{\"ph\": \"M\", \"name\": \"a\", \"args\": [\"\x01\"]}]}",
      // After "ph" of a flow: simdjson On-Demand skips the rest by its brackets, so does the scanner.
      R"({"traceEvents": [{"ph": "f", "id": trux, "x" 1 2, "y": [}, {"ph": "X", "name": "a", "ts": 1, "dur": 5}]})",
      R"({"traceEvents": [{"ph": "s", "name": "bad \x", "ts": 01}, {"ph": "X", "name": "a", "ts": 1, "dur": 5}]})",
      // ... but a value right after "ph" without a comma ends simdjson's skip early: a missing comma.
      R"({"traceEvents": [{"ph": "f"9 "id": 21}, {"ph": "X", "name": "a", "ts": 1, "dur": 5}]})",
      R"({"traceEvents": [{"ph": "f" "id": 21}, {"ph": "X", "name": "a", "ts": 1, "dur": 5}]})",
      "{\"traceEvents\": [{\"ph\": \"s\", \"name\": \"a\tb\"}, {\"ph\": \"X\", \"name\": \"a\", \"ts\": 1, \"dur\": 5}]}",
  };
  for (const char* c : cases) {
    auto slow = analyze_trace_bytes(c, "bad.json", simdjson_only());
    auto fast = analyze_trace_bytes(c, "bad.json");
    ASSERT_EQ(slow.ok(), fast.ok()) << c;
    if (!slow.ok()) {
      EXPECT_EQ(slow.error().message, fast.error().message) << c;
    }
  }
}

// The scanner takes every batch of these traces itself (a refused batch would still give the right
// answer, through simdjson, only slower): the values it skips by the splitter's index included.
TEST(TraceFastScan, RealAndGeneratedTracesNeedNoSimdjsonBatch) {
  for (const char* f : {"hta-a100-sxm4-80gb-train-rank0-nccl.json.gz", "hta-mtia-inference-rank0.json.gz",
                        "kineto-resnet50-num-workers-4.json.gz", "hta-v100-sxm2-32gb-ns-resolution-rank0.json.gz"}) {
    auto data = read_user_file(test::fixture(std::string("traces/corpus/") + f));
    ASSERT_TRUE(data.ok()) << f;
    std::atomic<std::uint64_t> refused{0};
    TraceOptions o;
    o.simdjson_batches = &refused;
    must_parallel(analyze_trace_bytes(*data, f, o));
    EXPECT_EQ(refused.load(), 0u) << f;
  }
  std::atomic<std::uint64_t> refused{0};
  TraceOptions o = parallel(3, 4096);
  o.simdjson_batches = &refused;
  o.limits.chunk = 512;  // events straddle refills: the index of a moved event stays right
  o.limits.batch = 2048;
  // Names without escapes (an escaped name is simdjson's to read); skipped values full of traps.
  std::string text = R"({"traceEvents": [)";
  for (int k = 0; k < 400; ++k) {
    if (k > 0) text += ",\n";
    const std::string t = std::to_string(1000 + k * 100);
    text += k % 40 == 0 ? R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)" + std::to_string(k / 40) +
                              R"(", "pid": 1, "tid": 1, "ts": )" + t + R"(, "dur": 4000})"
                        : R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )" + t +
                              R"(, "dur": 50, "args": {"Input Dims": [[32, 512], [512, [1, {}]]], "s": "]}\" [{", "e": "\u005d\\"}, "x": [{"}": ["{"]}]})";
  }
  text += "]}";
  must_parallel(analyze_trace_bytes(text, "t.json", o));
  EXPECT_EQ(refused.load(), 0u);
}

// Values of the event's own fields are skipped in one step to the end the splitter found: brackets
// and quotes inside strings, containers after "args", fields after them.
TEST(TraceFastScan, ValuesSkippedByTheSplittersIndexReadTheSame) {
  const char* text = R"J({"traceEvents": [
    {"name": "ProfilerStep#1", "ph": "X", "cat": "user_annotation", "pid": 1, "tid": 1, "ts": 1000, "dur": 1000},
    {"ph": "X", "cat": "cpu_op", "name": "op", "pid": 1, "tid": 1, "ts": 1100, "dur": 30, "args": {"Input Dims": [[1, 2], []], "s": "]}\" [{", "u": "\u005d"}, "more": [{"x": "}"}, []], "dur": 40},
    {"ph": "f", "id": 3, "pid": 0, "tid": 7, "ts": 1200, "cat": "ac2g", "name": "ac2g", "bp": "e", "args": {}, "x": [], "y": {"a": [{}]}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1150, "dur": 100, "extra": [{"]": "["}], "args": {"stream": 7, "correlation": 3, "n": [1, {"b": []}]}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1120, "dur": 10, "args": {"correlation": 3}},
    {"ph": "X", "cat": "python_function", "name": "f", "pid": 1, "tid": 1, "ts": 1300, "dur": 5, "args": {"x": tru, "y": [1 2]}}
  ]})J";
  auto slow = analyze_trace_bytes(text, "skip.json", simdjson_only());
  auto fast = analyze_trace_bytes(text, "skip.json");
  ASSERT_EQ(slow.ok(), fast.ok());
  if (slow.ok()) {
    expect_same(must_parallel(std::move(slow)), must_parallel(std::move(fast)));
  } else {
    EXPECT_EQ(slow.error().message, fast.error().message);
  }
}

// Two errors: an event whose "ts" is a string, then a stray '}' right after it. The first in the file
// is reported, however the bytes arrive: the memory source hands the splitter the two bytes it
// sniffed first, a part's source the whole range, so their 64-byte blocks start at bytes 2 and 1. The
// event ends at byte 64 and the brace is byte 65: in one block for one source, not for the other.
TEST(TraceParallel, TheFirstErrorInTheFileWhateverTheReads) {
  std::string ev = R"({"ph": "X", "name": "a", "ts": "1", "dur": 5, "pad": ")";
  ev += std::string(static_cast<std::size_t>(64 - 1 - static_cast<int>(ev.size()) - 1), 'x') + "\"}";
  const std::string text = "[" + ev + "}, " + R"({"ph": "X", "name": "b", "ts": 2, "dur": 5}])";
  ASSERT_EQ(text.find("\"}}"), 63u);  // the event's '}' at byte 64 (from 0), the stray one at 65
  TraceOptions one;
  one.limits.batch = 1;
  auto r1 = analyze_trace_bytes(text, "t.json", one);
  ASSERT_FALSE(r1.ok());
  EXPECT_NE(r1.error().message.find("\"ts\" is not a number"), std::string::npos) << r1.error().message;
  TraceOptions parts = one;
  parts.threads = 2;
  parts.min_part = 16;
  auto r2 = analyze_trace_bytes(text, "t.json", parts);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().message, r1.error().message);
}

}  // namespace
}  // namespace plumb::trace
