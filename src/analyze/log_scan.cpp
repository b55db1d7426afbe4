// One Hyperscan pass over the logs for every signature of the table (see log_scan.h).
#include "analyze/log_scan.h"

#include <hs.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

#include "analyze/log_values.h"

namespace plumb {

struct LogScanner::Impl {
  std::vector<LogSignature> table;
  std::vector<std::size_t> pattern_sig;  // Hyperscan id -> signature index
  std::vector<LogValuePatterns> values;  // per signature
  hs_database_t* db = nullptr;
  hs_scratch_t* scratch = nullptr;
  std::vector<std::uint64_t> last_line;  // per signature: the last line counted in this file
  ~Impl() {
    if (scratch != nullptr) hs_free_scratch(scratch);
    if (db != nullptr) hs_free_database(db);
  }
};

namespace {

// Lines of a block values are read from are cut here (std::regex recurses per character).
constexpr std::size_t kMaxValueInput = 4096;

struct BlockState {
  LogScanner::Impl* impl;
  LogScan* scan;
  const std::string* file;
  std::string_view block;
  std::uint64_t line_base;  // line number of the block's first line (1-based)
  std::size_t cur_pos = 0;  // newlines before cur_pos are counted in cur_line
  std::uint64_t cur_line = 0;
};

std::uint64_t count_newlines(const char* b, const char* e) {
  return static_cast<std::uint64_t>(std::count(b, e, '\n'));
}

void record(BlockState& st, std::size_t sig, std::size_t pos) {
  if (pos < st.cur_pos) {  // matches arrive by end offset; recount if one does not
    st.cur_pos = 0;
    st.cur_line = 0;
  }
  st.cur_line += count_newlines(st.block.data() + st.cur_pos, st.block.data() + pos);
  st.cur_pos = pos;
  const std::uint64_t line = st.line_base + st.cur_line;
  auto& impl = *st.impl;
  if (impl.last_line[sig] == line) return;  // one count per line, whatever the number of patterns
  impl.last_line[sig] = line;
  SignatureHits& h = st.scan->hits[sig];
  ++h.count;
  h.last_line = line;
  h.last_file = st.scan->files.size() - 1;
  if (h.samples.size() >= kMaxSamples && h.count > kMaxValueLines) return;
  const char* base = st.block.data();
  const void* prev = pos == 0 ? nullptr : ::memrchr(base, '\n', pos);
  std::size_t start = prev == nullptr ? 0 : static_cast<std::size_t>(static_cast<const char*>(prev) - base) + 1;
  const void* next = std::memchr(base + pos, '\n', st.block.size() - pos);
  std::size_t end = next == nullptr ? st.block.size() : static_cast<std::size_t>(static_cast<const char*>(next) - base);
  std::string_view raw = st.block.substr(start, end - start);
  std::string where = *st.file + ":" + std::to_string(line);
  if (h.samples.size() < kMaxSamples) {
    std::string_view shown = raw;
    if (shown.size() > kMaxText) {
      std::size_t rel = pos - start;
      std::size_t from = rel > kMaxText - 80 ? rel - (kMaxText - 80) : 0;
      shown = shown.substr(from, kMaxText);
    }
    h.samples.push_back({*st.file, line, std::string(clean_line(shown))});
  }
  if (h.count <= kMaxValueLines) {
    std::string_view text = clean_line(raw);
    if (text.size() > kMaxValueInput) text = text.substr(0, kMaxValueInput);
    const LogValuePatterns& vs = impl.values[sig];
    for (std::size_t i = 0; i < vs.size(); ++i) {
      const std::string& name = vs.name(i);
      if (h.values.count(name) != 0) continue;
      if (auto v = vs.first_group(i, text)) {
        h.values[name] = std::move(*v);
        h.value_at[name] = where;
      }
    }
  }
}

int on_match(unsigned int id, unsigned long long /*from*/, unsigned long long to, unsigned int /*flags*/, void* ctx) {
  auto& st = *static_cast<BlockState*>(ctx);
  std::size_t pos = to == 0 ? 0 : static_cast<std::size_t>(to - 1);  // the match's last byte
  if (pos >= st.block.size()) pos = st.block.empty() ? 0 : st.block.size() - 1;
  record(st, st.impl->pattern_sig[id], pos);
  return 0;
}

}  // namespace

LogScanner::LogScanner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LogScanner::~LogScanner() = default;

Result<std::shared_ptr<LogScanner>> LogScanner::create(const std::vector<LogSignature>& table) {
  auto impl = std::make_unique<Impl>();
  impl->table = table;
  std::vector<const char*> exprs;
  std::vector<unsigned> flags, ids;
  for (std::size_t s = 0; s < table.size(); ++s) {
    for (const auto& p : table[s].patterns) {
      ids.push_back(static_cast<unsigned>(exprs.size()));
      exprs.push_back(p.c_str());
      flags.push_back(HS_FLAG_MULTILINE);
      impl->pattern_sig.push_back(s);
    }
    LogValuePatterns vs;
    for (const auto& v : table[s].values) {
      if (auto bad = vs.add(v.name, v.regex)) {
        return make_error(ErrorKind::internal, "signature " + table[s].id + " value " + v.name + ": " + *bad);
      }
    }
    impl->values.push_back(std::move(vs));
  }
  if (exprs.empty()) return make_error(ErrorKind::internal, "no log signatures to match");
  hs_compile_error_t* err = nullptr;
  if (hs_compile_multi(exprs.data(), flags.data(), ids.data(), static_cast<unsigned>(exprs.size()), HS_MODE_BLOCK, nullptr,
                       &impl->db, &err) != HS_SUCCESS) {
    std::string msg = err != nullptr && err->message != nullptr ? err->message : "compile failed";
    int at = err != nullptr ? err->expression : -1;
    hs_free_compile_error(err);
    std::string which = at >= 0 && static_cast<std::size_t>(at) < exprs.size() ? exprs[static_cast<std::size_t>(at)] : "?";
    return make_error(ErrorKind::internal, "log pattern " + which + ": " + msg);
  }
  if (hs_alloc_scratch(impl->db, &impl->scratch) != HS_SUCCESS) {
    return make_error(ErrorKind::internal, "Hyperscan scratch allocation failed");
  }
  return std::shared_ptr<LogScanner>(new LogScanner(std::move(impl)));
}

Result<bool> LogScanner::scan(LogReader& reader, LogScan& into, const std::function<void(std::uint64_t)>& progress) {
  Impl& impl = *impl_;
  if (into.hits.size() != impl.table.size()) {
    into.hits.clear();
    for (const auto& s : impl.table) into.hits.push_back(SignatureHits{s.id, 0, {}, {}, {}, 0, 0});
  }
  impl.last_line.assign(impl.table.size(), 0);
  into.files.push_back(reader.name());
  const std::uint64_t lines_before = into.lines;
  std::uint64_t line_base = 1;
  bool open_end = false;
  std::string cleaned;
  while (true) {
    auto b = reader.next_block();
    if (!b) return b.error();
    std::string_view block = *b;
    if (block.empty()) break;
    if (has_escape(block)) {
      cleaned = strip_ansi(block);
      block = cleaned;
    }
    BlockState st{&impl, &into, &into.files.back(), block, line_base};
    if (hs_scan(impl.db, block.data(), static_cast<unsigned>(block.size()), 0, impl.scratch, on_match, &st) != HS_SUCCESS) {
      return make_error(ErrorKind::internal, reader.name() + ": Hyperscan scan failed");
    }
    std::uint64_t nl = st.cur_line + count_newlines(block.data() + st.cur_pos, block.data() + block.size());
    // A block that does not end in a newline is a line cut at kMaxLine (its rest follows, same
    // number) or the file's last line.
    open_end = block.back() != '\n';
    into.lines += nl;
    line_base += nl;
    if (progress) progress(reader.bytes_read());
  }
  if (open_end) ++into.lines;
  into.file_lines.push_back(into.lines - lines_before);
  into.bytes += reader.bytes_read();
  return true;
}

void LogScanner::finish(LogScan& into) const {
  std::erase_if(into.hits, [](const SignatureHits& h) { return h.count == 0; });
  // One line, one cause: the table lists a specific row (the DataLoader's shared-memory error)
  // before a vocabulary row that also reads its words (any "No space left on device"). A later
  // row whose every matched line is a line of an earlier row says nothing new and is dropped;
  // one with more lines than it keeps samples of is kept.
  auto lines_of = [](const SignatureHits& h) {
    std::set<std::pair<std::string, std::uint64_t>> out;
    for (const auto& m : h.samples) out.emplace(m.file, m.line);
    return out;
  };
  std::vector<std::set<std::pair<std::string, std::uint64_t>>> lines;
  lines.reserve(into.hits.size());
  for (const auto& h : into.hits) lines.push_back(lines_of(h));
  std::vector<bool> drop(into.hits.size(), false);
  for (std::size_t later = 1; later < into.hits.size(); ++later) {
    if (into.hits[later].count > into.hits[later].samples.size()) continue;
    for (std::size_t earlier = 0; earlier < later && !drop[later]; ++earlier) {
      if (drop[earlier]) continue;
      drop[later] = std::includes(lines[earlier].begin(), lines[earlier].end(), lines[later].begin(), lines[later].end());
    }
  }
  std::size_t i = 0;
  std::erase_if(into.hits, [&](const SignatureHits&) { return drop[i++]; });
}

Result<std::shared_ptr<LogScanner>> default_log_scanner() {
  static const Result<std::shared_ptr<LogScanner>> scanner = LogScanner::create(log_signatures());
  return scanner;
}

Result<LogScan> scan_log_files(const std::vector<std::string>& paths, const LogScanProgress& progress) {
  auto scanner = default_log_scanner();
  if (!scanner) return scanner.error();
  LogScan scan;
  for (const auto& p : paths) {
    auto reader = LogReader::open(p);
    if (!reader) return reader.error();
    std::function<void(std::uint64_t)> each;
    if (progress) each = [&](std::uint64_t bytes) { progress(p, bytes); };
    auto r = (*scanner)->scan(*reader, scan, each);
    if (!r) return r.error();
  }
  (*scanner)->finish(scan);
  return scan;
}

Result<LogScan> scan_log_text(std::string_view text, const std::string& name) {
  auto scanner = default_log_scanner();
  if (!scanner) return scanner.error();
  LogScan scan;
  auto reader = LogReader::from_memory(text, name);
  auto r = (*scanner)->scan(reader, scan);
  if (!r) return r.error();
  (*scanner)->finish(scan);
  return scan;
}

}  // namespace plumb
