// The render stage: the output options every report command shares, and writing the report.
#pragma once

#include <string>
#include <vector>

#include "core/i18n.h"
#include "report/report.h"

namespace plumb {

// The formats every report command accepts, and with the Prometheus exposition (check, report, watch).
const std::vector<std::string>& report_formats();
const std::vector<std::string>& report_formats_with_prom();

// Options shared by every subcommand that prints a report.
struct OutputOptions {
  std::string format = "term";
  std::string lang;
  std::string out;                   // write atomically to this file instead of stdout
  std::vector<std::string> formats;  // what this command accepts (its --help lists exactly these)
  bool verbose = false;              // -v: every pass and skip in the terminal report
  bool quiet = false;                // -q: only the verdict line (and the exit code)
};
// Validates --format against the command's formats ("did you mean", like an unknown subcommand)
// and --lang; returns the render options. Throws UsageError with a one-line reason.
RenderOptions check_output(const OutputOptions& o);
// Renders with the shared renderer of --format and writes (stdout or --out). Throws UsageError for
// an unknown format or an unwritable file.
void emit(const Report& r, const OutputOptions& o);
// Writes text to --out atomically or to stdout.
void write_output(const std::string& text, const std::string& out);
RenderOptions render_options(const OutputOptions& o);

// A report of `command` started now (facts.meta: tool version, command, start time, host name).
Report new_report(const std::string& command, const std::string& hostname);
// --save FILE: the report's JSON document, written atomically; nothing for an empty path.
void save_report(const Report& r, const std::string& file, const RenderOptions& ro);
// Throws UsageError when --out and a second output (`flag`: --save, --record) name one file: the
// later write would replace the earlier one.
void refuse_one_file_twice(const std::string& out, const std::string& other, const std::string& flag);

}  // namespace plumb
