// gzip traces inflated by ISA-L (linked, libisal2) and by zlib: the same bytes for every real trace
// of the corpus and for the gzip forms writers produce (several members, header fields, stored
// blocks, an empty member), read in any size of step; the same verdict on cut and damaged input.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>
#include <zlib.h>

#include <optional>
#include <random>
#include <thread>

#include "analyze/trace/reader.h"
#include "analyze/trace/source.h"
#include "../../../test_util.h"
#include "deflate_util.h"

namespace plumb::trace {
namespace {

// Sets which library inflates the sources opened in the scope, and restores the default after.
class UseInflater {
 public:
  explicit UseInflater(Inflater i) { gzip_inflater = i; }
  ~UseInflater() { gzip_inflater = Inflater::isal; }
  UseInflater(const UseInflater&) = delete;
  UseInflater& operator=(const UseInflater&) = delete;
};

// Everything a source gives, `step` bytes at a time (the error's message instead on failure).
Result<std::string> inflate_all(std::string_view gz, Inflater with, std::size_t step) {
  UseInflater use(with);
  auto src = memory_source(gz, "t.json.gz");
  std::string out;
  std::string buf(step, '\0');
  while (true) {
    auto n = src->read(buf.data(), buf.size());
    if (!n) return n.error();
    if (*n == 0) return out;
    out.append(buf.data(), *n);
  }
}

// gzip of `s` at `level` (0: stored blocks), with a header naming a file, a comment, an extra field
// and a header CRC when `header` is set (RFC 1952 FNAME, FCOMMENT, FEXTRA, FHCRC).
std::string gzip_with(const std::string& s, int level = 6, bool header = false) {
  gz_header h{};
  std::string extra("ab\x04\x00wxyz", 8);  // one subfield, "ab", of 4 bytes
  std::string name = "trace.json", comment = "written by a test";
  h.extra = reinterpret_cast<Bytef*>(extra.data());
  h.extra_len = static_cast<uInt>(extra.size());
  h.name = reinterpret_cast<Bytef*>(name.data());
  h.comment = reinterpret_cast<Bytef*>(comment.data());
  h.hcrc = 1;
  return test::deflate_with(s, level, 15 + 16, header ? &h : nullptr);
}

// A gzip member whose deflate data was compressed with `before` as its dictionary: its matches
// reach back into bytes it does not hold (a member before it, in a stream of several).
std::string member_reaching_back(const std::string& before, const std::string& s) {
  std::string out("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
  out += test::deflate_with(s, 6, -15, nullptr, &before);
  const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(s.data()), static_cast<uInt>(s.size()));
  for (uLong v : {crc, static_cast<uLong>(s.size())}) {
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> gzip_samples() {
  std::vector<std::pair<std::string, std::string>> v;
  for (const char* f : {"hta-a100-triton-kernels.json.gz", "hta-a100-cuda-event-sync-small.json.gz",
                        "hta-amd-mi250-rocm62.json.gz", "kineto-resnet50-num-workers-4.json.gz",
                        "hta-a100-sxm4-80gb-train-rank0-nccl.json.gz"}) {
    auto gz = read_user_file(test::fixture(std::string("traces/corpus/") + f));
    EXPECT_TRUE(gz.ok()) << f;
    if (gz) v.emplace_back(f, *gz);
  }
  const std::string text = inflate_all(v.front().second, Inflater::zlib, 1 << 16).value();
  v.emplace_back("two members", gzip_with(text) + gzip_with(text.substr(0, 777)));
  v.emplace_back("header fields", gzip_with(text, 9, true));
  v.emplace_back("stored blocks", gzip_with(text, 0));
  v.emplace_back("empty member first", gzip_with("") + gzip_with(text));
  v.emplace_back("only an empty member", gzip_with(""));
  return v;
}

TEST(GzipInflate, IsalGivesZlibsBytesInAnyStep) {
  for (const auto& [what, gz] : gzip_samples()) {
    auto want = inflate_all(gz, Inflater::zlib, 1 << 16);
    ASSERT_TRUE(want.ok()) << what << ": " << want.error().message;
    for (std::size_t step : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, std::size_t{1} << 20}) {
      if (step < 4096 && want->size() > (std::size_t{2} << 20)) continue;  // a byte at a time: the small ones
      auto got = inflate_all(gz, Inflater::isal, step);
      ASSERT_TRUE(got.ok()) << what << " step " << step << ": " << got.error().message;
      EXPECT_TRUE(*got == *want) << what << " step " << step << ": " << got->size() << " bytes against " << want->size();
    }
  }
}

TEST(GzipInflate, CutStreamsAreTruncatedWhicheverLibraryInflates) {
  const auto all = gzip_samples();
  for (const auto& [what, gz] : all) {
    if (gz.size() > 100000) continue;
    std::vector<std::size_t> cuts{2, 3, 10, gz.size() / 2};
    for (std::size_t k = 1; k <= 12 && k < gz.size(); ++k) cuts.push_back(gz.size() - k);  // the trailer
    for (std::size_t cut : cuts) {
      for (std::size_t step : {std::size_t{5}, std::size_t{1} << 16}) {
        auto z = inflate_all(gz.substr(0, cut), Inflater::zlib, step);
        auto i = inflate_all(gz.substr(0, cut), Inflater::isal, step);
        ASSERT_FALSE(z.ok()) << what << " cut at " << cut;
        ASSERT_FALSE(i.ok()) << what << " cut at " << cut;
        EXPECT_EQ(i.error().message, z.error().message) << what << " cut at " << cut << " step " << step;
      }
    }
  }
}

TEST(GzipInflate, DamagedStreamsFailWhicheverLibraryInflates) {
  const auto all = gzip_samples();
  std::mt19937 rng(20261205);
  int both_failed = 0;
  for (const auto& [what, gz] : all) {
    if (gz.size() > 100000 || gz.size() < 40) continue;
    auto want = inflate_all(gz, Inflater::zlib, 1 << 16);
    ASSERT_TRUE(want.ok());
    for (int n = 0; n < 300; ++n) {
      std::string bad = gz;
      // One to three bytes changed in the deflate data or the trailer (the header's name and comment
      // are free text, its time stamp any value).
      std::uniform_int_distribution<std::size_t> at(bad.size() / 4, bad.size() - 1);
      for (int k = 0; k < 1 + n % 3; ++k) bad[at(rng)] ^= static_cast<char>(1 + rng() % 255);
      auto z = inflate_all(bad, Inflater::zlib, 1 << 16);
      auto i = inflate_all(bad, Inflater::isal, 1 << 16);
      ASSERT_EQ(z.ok(), i.ok()) << what << " edit " << n << ": zlib " << (z ? "read it" : z.error().message)
                                << ", ISA-L " << (i ? "read it" : i.error().message);
      if (z.ok()) {
        EXPECT_TRUE(*z == *i) << what << " edit " << n;
      } else {
        ++both_failed;
        EXPECT_EQ(i.error().kind, ErrorKind::invalid);
        EXPECT_EQ(i.error().message.rfind("t.json.gz: gzip ", 0), 0u) << i.error().message;
        EXPECT_EQ(i.error().message.find('\n'), std::string::npos);
      }
    }
  }
  EXPECT_GT(both_failed, 500);  // the CRC-32 catches what the deflate format allows
}

// The same through a pipe written a few bytes at a time: the input arrives in pieces that cut the
// gzip header, the deflate blocks and the trailer anywhere.
Result<std::string> inflate_from_pipe(const std::string& gz, Inflater with, unsigned seed) {
  int fds[2];
  if (::pipe(fds) != 0) return make_error(ErrorKind::io, "pipe");
  std::thread writer([&gz, w = fds[1], seed] {
    std::mt19937 rng(seed);
    for (std::size_t at = 0; at < gz.size();) {
      const std::size_t n = std::min<std::size_t>(1 + rng() % 5, gz.size() - at);
      const ssize_t k = ::write(w, gz.data() + at, n);
      if (k <= 0) break;
      at += static_cast<std::size_t>(k);
      sched_yield();
    }
    ::close(w);
  });
  UseInflater use(with);
  auto src = open_fd_source(fds[0], "t.json.gz");
  std::string out;
  std::optional<Error> failed;
  if (!src) {
    failed = src.error();
    ::close(fds[0]);
  } else {
    std::string buf(4096, '\0');
    while (true) {
      auto n = (*src)->read(buf.data(), buf.size());
      if (!n) {
        failed = n.error();
        break;
      }
      if (*n == 0) break;
      out.append(buf.data(), *n);
    }
  }
  writer.join();
  if (failed) return *failed;
  return out;
}

TEST(GzipInflate, InputInSmallPiecesReadsTheSame) {
  for (const auto& [what, gz] : gzip_samples()) {
    if (gz.size() > 20000) continue;
    auto want = inflate_all(gz, Inflater::zlib, 1 << 16);
    ASSERT_TRUE(want.ok());
    for (unsigned seed = 1; seed <= 3; ++seed) {
      auto got = inflate_from_pipe(gz, Inflater::isal, seed);
      ASSERT_TRUE(got.ok()) << what << ": " << got.error().message;
      EXPECT_TRUE(*got == *want) << what << " seed " << seed;
    }
  }
}

// Headers zlib refuses are refused whichever library inflates: reserved flag bits, a method other
// than deflate, a header CRC that does not match; and the bytes after the last member must be
// another member.
TEST(GzipInflate, OddHeadersAndTrailingBytes) {
  const std::string text = R"({"traceEvents": []})";
  const std::string good = gzip_with(text);
  auto with_byte = [&](std::size_t at, char v) {
    std::string g = good;
    g[at] = v;
    return g;
  };
  struct Case {
    const char* what;
    std::string gz;
    bool ok;
  };
  std::string bad_hcrc = gzip_with(text, 6, true);
  bad_hcrc[bad_hcrc.find("written by a test") + 18] ^= 1;  // the header CRC after the comment
  const std::vector<Case> cases{
      {"reserved flag 0x20", with_byte(3, 0x20), false},
      {"reserved flag 0x80", with_byte(3, static_cast<char>(0x80)), false},
      {"method 7", with_byte(2, 7), false},
      {"any time, extra flags and system", with_byte(4, 0x55), true},
      {"header CRC wrong", bad_hcrc, false},
      {"trailing zeros", good + std::string(10, '\0'), false},
      {"trailing text", good + "junk", false},
      {"a lone magic after the member", good + "\x1f\x8b", false},
      {"a second member", good + good, true},
      {"a member reaching back into the one before", good + member_reaching_back(text, text), false},
  };
  for (const auto& c : cases) {
    auto z = inflate_all(c.gz, Inflater::zlib, 1 << 16);
    auto i = inflate_all(c.gz, Inflater::isal, 1 << 16);
    EXPECT_EQ(z.ok(), c.ok) << c.what << ": zlib " << (z ? "read it" : z.error().message);
    EXPECT_EQ(i.ok(), c.ok) << c.what << ": ISA-L " << (i ? "read it" : i.error().message);
    if (z.ok() && i.ok()) {
      EXPECT_EQ(*z, *i) << c.what;
    }
  }
}

// `plumb trace --timings` names the library that inflated a gzip file.
TEST(GzipInflate, TimingsNameTheInflater) {
  auto gz = read_user_file(test::fixture("traces/corpus/hta-a100-triton-kernels.json.gz"));
  ASSERT_TRUE(gz.ok());
  auto inflater_of = [&](std::string_view data, Inflater with, int threads) {
    UseInflater use(with);
    TraceTimings t(std::chrono::steady_clock::now());
    TraceOptions o;
    o.timings = &t;
    o.threads = threads;
    auto r = analyze_trace_bytes(data, "t.json.gz", o);
    EXPECT_TRUE(r.ok()) << (r ? "" : r.error().message);
    auto files = t.files();
    return files.size() == 1 ? files[0].inflater : std::string("no timing");
  };
  EXPECT_EQ(inflater_of(*gz, Inflater::isal, 1), "ISA-L");
  EXPECT_EQ(inflater_of(*gz, Inflater::isal, 2), "ISA-L");  // on a second thread, read ahead
  EXPECT_EQ(inflater_of(*gz, Inflater::zlib, 1), "zlib");
  const std::string plain = inflate_all(*gz, Inflater::zlib, 1 << 16).value();
  EXPECT_EQ(inflater_of(plain, Inflater::isal, 1), "");
}

TEST(GzipInflate, TheReaderGivesTheSameTraceEitherWay) {
  auto gz = read_user_file(test::fixture("traces/corpus/hta-v100-sxm2-16gb-train-6steps.json.gz"));
  ASSERT_TRUE(gz.ok());
  Result<TraceRank> z = make_error(ErrorKind::internal, "not read");
  {
    UseInflater use(Inflater::zlib);
    z = analyze_trace_bytes(*gz, "v100.json.gz");
  }
  auto i = analyze_trace_bytes(*gz, "v100.json.gz");
  ASSERT_TRUE(z.ok() && i.ok());
  EXPECT_EQ(z->events, i->events);
  EXPECT_EQ(z->bytes, i->bytes);
  ASSERT_EQ(z->steps.size(), i->steps.size());
  for (std::size_t k = 0; k < z->steps.size(); ++k) EXPECT_EQ(z->steps[k].gpu_busy_us, i->steps[k].gpu_busy_us);
}

}  // namespace
}  // namespace plumb::trace
