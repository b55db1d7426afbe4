// `plumb diagnose`: from a failing job's logs (or a symptom named without one) down the funnel:
// the L1 findings of the signatures matched, then the candidate causes checked on this machine,
// a --root tree or a saved snapshot of the failing node, each confirmed, refuted or not checkable.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/output.h"
#include "engine/machine.h"
#include "core/context.h"
#include "core/result.h"
#include "core/thresholds.h"
#include "report/report.h"

namespace plumb {

struct DiagnoseRequest {
  std::vector<std::string> logs;  // files, "-" for stdin
  std::string symptom;            // a name of symptom_funnels(), or empty
  std::string snapshot;           // `plumb check --save` JSON of the failing node, or empty
  Context ctx;                    // the machine when there is no snapshot
  std::string hostname;           // of ctx's machine
  Thresholds thresholds;
  // Called after each block of a log is read (file, bytes read so far): a progress line; or empty.
  std::function<void(const std::string&, std::uint64_t)> on_log_progress;
};

// Errors (an unreadable log, an unknown symptom, a bad snapshot) are one line for exit code 2.
Result<Report> run_diagnose(const DiagnoseRequest& req);

// The symptom names, for --help and "did you mean".
std::vector<std::string> symptom_names();

// `plumb diagnose`: what its command line says.
struct DiagnoseOptions {
  std::vector<std::string> logs;
  std::string symptom;
  std::string snapshot;
  MachineOptions machine;
  OutputOptions output;
  bool patterns = false;
};
int run_diagnose_command(const DiagnoseOptions& a);

}  // namespace plumb
