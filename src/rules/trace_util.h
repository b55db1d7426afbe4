// Helpers shared by the trace rules: subjects, windows, sources and number formatting.
#pragma once

#include <string>

#include "core/facts/trace.h"
#include "core/text.h"
#include "core/thresholds.h"

namespace plumb::trace_rules {

// "rank 3", else the file name.
inline std::string subject(const TraceRank& t) {
  if (t.rank) return "rank " + std::to_string(*t.rank);
  auto slash = t.file.find_last_of('/');
  return slash == std::string::npos ? t.file : t.file.substr(slash + 1);
}

// "ProfilerStep#5..#10, 6 complete steps" | "whole trace"
inline std::string window(const TraceRank& t) {
  std::string first, last;
  for (const auto& s : t.steps) {
    if (!s.complete) continue;
    if (first.empty()) first = s.name;
    last = s.name;
  }
  if (first.empty()) return "no complete step";
  if (!t.steps.front().number) return first;
  std::string n = std::to_string(t.summary.complete_steps);
  if (first == last) return first + ", 1 complete step";
  return first + "..#" + last.substr(last.find('#') + 1) + ", " + n + " complete steps";
}

inline std::string source(const TraceRank& t, const std::string& what) { return t.file + ": " + what + " in " + window(t); }

inline std::string pct(double fraction) { return fmt_num(100.0 * fraction, 1) + " %"; }

// µs -> "152.3 ms", "812 µs", "2.41 s", "0.13 µs"
inline std::string dur(double us) {
  if (us >= 1e6) return fmt_num(us / 1e6, 2) + " s";
  if (us >= 1e3) return fmt_num(us / 1e3, 1) + " ms";
  if (us > 0 && us < 10) return fmt_num(us, 2) + " µs";
  return fmt_num(us, 0) + " µs";
}

// A share of a window shorter than trace.min_window_us says nothing about training (a sample
// trace of a few events, a profiling window cut to nothing): the reason to skip, or "" to judge.
inline std::string too_short(const TraceRank& t, const Thresholds& th) {
  const double min_us = th.get("trace.min_window_us");
  const double total = t.summary.step_time_total_us;
  if (total >= min_us) return "";
  return "the judged window (" + window(t) + ") lasts " + dur(total) + ", shorter than " + dur(min_us) +
         " (trace.min_window_us): too short to judge a share of it; profile at least one whole training step";
}

}  // namespace plumb::trace_rules
