// The render stage shared by every command: format, language, colour, atomic --out.
#include "engine/output.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string_view>

#include "core/atomic_file.h"
#include "core/iso_time.h"
#include "core/suggest.h"
#include "core/text.h"

namespace plumb {

const std::vector<std::string>& report_formats() {
  static const std::vector<std::string> f{"term", "md", "json", "html"};
  return f;
}

const std::vector<std::string>& report_formats_with_prom() {
  static const std::vector<std::string> f{"term", "md", "json", "html", "prom"};
  return f;
}

namespace {

// The columns of the terminal standard output is (TIOCGWINSZ), else COLUMNS (20 to 1000) when
// set, else 0: output to a pipe or a file is not wrapped.
std::size_t terminal_columns() {
  struct winsize ws {};
  if (::isatty(STDOUT_FILENO) != 0 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  const char* c = std::getenv("COLUMNS");  // NOLINT(concurrency-mt-unsafe)
  if (c == nullptr || *c == '\0') return 0;
  char* end = nullptr;
  const long n = std::strtol(c, &end, 10);
  return end != nullptr && *end == '\0' && n >= 20 && n <= 1000 ? static_cast<std::size_t>(n) : 0;
}

}  // namespace

RenderOptions render_options(const OutputOptions& o) {
  RenderOptions r;
  Lang l = Lang::en;
  if (!o.lang.empty() && !parse_lang(o.lang, l)) throw UsageError("unknown language '" + o.lang + "' (use en or zh)");
  r.lang = detect_lang(o.lang);
  const char* no_color = std::getenv("NO_COLOR");  // NOLINT(concurrency-mt-unsafe)
  const char* term = std::getenv("TERM");       // NOLINT(concurrency-mt-unsafe)
  r.color = o.out.empty() && ::isatty(STDOUT_FILENO) != 0 && (no_color == nullptr || *no_color == '\0') &&
            (term == nullptr || std::string_view(term) != "dumb");
  r.verbosity = o.quiet ? -1 : o.verbose ? 1 : 0;
  if (o.out.empty()) r.width = terminal_columns();
  return r;
}

void write_output(const std::string& text, const std::string& out) {
  if (out.empty()) {
    std::cout << text << std::flush;
    return;
  }
  auto w = write_file_atomic(out, text);
  if (!w) throw UsageError(w.error().message);
}

Report new_report(const std::string& command, const std::string& hostname) {
  Report r;
  r.facts.meta.tool_version = plumb_version();
  r.facts.meta.command = command;
  r.facts.meta.started_at = now_iso8601();
  r.facts.meta.hostname = hostname;
  return r;
}

void save_report(const Report& r, const std::string& file, const RenderOptions& ro) {
  if (file.empty()) return;
  auto w = write_file_atomic(file, render_json_text(r, ro));
  if (!w) throw UsageError(w.error().message);
}

RenderOptions check_output(const OutputOptions& o) {
  const std::vector<std::string>& known = o.formats.empty() ? report_formats() : o.formats;
  if (std::find(known.begin(), known.end(), o.format) == known.end() || find_renderer(o.format) == nullptr) {
    std::string hint = closest(o.format, known);
    throw UsageError("unknown format '" + o.format + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                     "; use " + join(known, "|"));
  }
  return render_options(o);
}

void refuse_one_file_twice(const std::string& out, const std::string& other, const std::string& flag) {
  if (same_file(out, other)) throw UsageError("--out and " + flag + " name the same file (" + other + "): give each its own");
}

void emit(const Report& r, const OutputOptions& o) {
  RenderOptions ro = check_output(o);
  write_output(render_report(*find_renderer(o.format), r, ro), o.out);
}

}  // namespace plumb
