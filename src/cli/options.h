// The options every command shares, added to its CLI11 parser: output, machine, history, the
// scheduler modes, --timings. Parsing only: what they mean is the engine's (src/engine/).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine/artefact.h"
#include "engine/history.h"
#include "engine/machine.h"
#include "engine/output.h"
#include "engine/scheduler.h"
#include "engine/timings.h"

namespace plumb {

void add_output_options(CLI::App& app, OutputOptions& o, const std::vector<std::string>& formats = report_formats(),
                        const std::string& default_format = "term");

void add_machine_options(CLI::App& app, MachineOptions& o, unsigned flags = kAllMachineFlags);

// --db and, when `recording`, --no-history and --baseline.
void add_history_options(CLI::App& app, HistoryOptions& o, bool recording);

void add_scheduler_options(CLI::App& app, SchedulerOptions& o);

void add_timings_option(CLI::App& app, bool& timings);
// A CLI11 transform for a duration option (core/duration.h: 500ms, 2s, 1m, a bare number of
// seconds): the value in whole units of unit_ms (1: milliseconds, 1000: seconds, rounded up).
std::function<std::string(std::string)> duration_in(const std::string& option, long long unit_ms);
// Registers --config (`config_help`), --only (judging `default_only` when absent), --skip, --save
// and the output options.
void add_artefact_options(CLI::App& app, ArtefactOptions& o, const std::string& config_help, const std::string& default_only);

}  // namespace plumb
