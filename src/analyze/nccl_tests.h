// nccl-tests results: the text tables of all_reduce_perf and the other *_perf binaries (with
// MPI/SkyPilot line prefixes, interleaved NCCL INFO lines, N/A columns, truncated logs) and the
// JSON written with -J; the large-message summary and the busbw ceiling a run is judged against.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts/comm.h"
#include "core/result.h"

namespace plumb {

// Removes "(head, rank=0, pid=3808) " and "[1,0]<stdout>:" style prefixes.
std::string_view strip_launcher_prefix(std::string_view line);

// Text or JSON (detected by the first non-space character). Error when no result row is found.
Result<NcclTestsRun> parse_nccl_tests(std::string_view text, const std::string& origin);
Result<NcclTestsRun> parse_nccl_tests_json(std::string_view text, const std::string& origin);

inline constexpr std::uint64_t kLargeMessageBytes = 1ull << 30;  // busbw is judged on sizes >= 1 GiB

struct BusbwSummary {
  std::optional<double> peak;       // highest busbw of any row, either half
  std::uint64_t peak_size = 0;
  std::optional<double> large_avg;  // mean busbw over rows with size >= 1 GiB (both halves)
  int large_samples = 0;
  std::uint64_t max_size = 0;
  double wrong = 0;                 // sum of #wrong over rows (N/A counts as 0)
  int wrong_rows = 0;
};
BusbwSummary summarize(const NcclTestsRun& run);

// Bus ids of the device lines ("[0000:04:00]" -> "0000:04:00"), one per rank, for matching.
std::vector<std::string> device_bus_prefixes(std::string_view text);

// The ceiling for a run: --link when given, else the GPUs of `topo` the log ran on (matched by bus
// id), else the GPU model named in the log; for multi-host runs also the per-node network rate.
Fact<BusbwCeiling> infer_ceiling(const NcclTestsRun& run, const std::vector<std::string>& log_buses,
                                 const std::optional<BusbwCeiling>& forced, const Topology* topo,
                                 std::optional<double> net_gbit, int net_ports, const std::string& net_source);

}  // namespace plumb
