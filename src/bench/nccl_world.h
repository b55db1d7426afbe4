// NCCL all-reduce across the GPUs of several processes (one per node), bootstrapped the way NCCL's
// documentation shows it with MPI: one process calls ncclGetUniqueId, the launcher broadcasts the
// 128 bytes, every process joins with ncclCommInitRank (its GPUs grouped between ncclGroupStart and
// ncclGroupEnd) and runs the nccl-tests sweep. plumb-fleet runs each node's part in a child
// process under a deadline, so a peer that never joins cannot hang the job; the children speak
// the line protocol below, which rank 0 turns into an nccl-tests run for the busbw rule.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts/comm.h"
#include "core/result.h"

namespace plumb {

// What one node can bring: its usable CUDA devices and NCCL, or why not.
struct NcclWorldProbe {
  int devices = 0;      // 0 with `why` when the runtime, a device or NCCL is missing
  std::string nccl;     // "2.21.5"
  std::string why;
};
NcclWorldProbe probe_nccl_world();
std::string format_probe(const NcclWorldProbe& p);               // "devices 8 nccl 2.21.5" | "none <why>"
Result<NcclWorldProbe> parse_probe(std::string_view text);

// ncclGetUniqueId, hex-encoded (256 characters). The calling process hosts NCCL's bootstrap root
// and must live until every rank has joined.
Result<std::string> nccl_unique_id_hex();

struct NcclWorldSpec {
  std::string id_hex;        // from nccl_unique_id_hex
  int first_rank = 0;        // this process's GPUs are ranks first_rank .. first_rank + devices - 1
  int world = 0;             // GPUs in the whole communicator
  int devices = 0;           // GPUs of this process (devices 0 .. devices - 1)
  std::uint64_t max_bytes = 1ull << 30;
  int iterations = 20;
};
// Joins the communicator and runs the sweep; the result in the line protocol:
//   nccl 2.21.5 | gpu <device> <pci bus id> | size <bytes> <seconds per all-reduce>...
Result<std::string> run_nccl_world(const NcclWorldSpec& spec);

struct NcclWorldRow {
  std::uint64_t bytes = 0;
  std::vector<double> seconds;  // per all-reduce, one value per timed group
};
struct NcclWorldResult {
  std::string nccl;
  std::vector<std::string> gpus;  // "0 0000:18:00.0"
  std::vector<NcclWorldRow> rows;
};
Result<NcclWorldResult> parse_nccl_world(std::string_view text);

// rank 0's measurement as an nccl-tests run (rows: size, median time, algbw, busbw for `world`
// ranks on `hosts` nodes), ready for the busbw rule once a ceiling is set.
NcclTestsRun nccl_world_run(const NcclWorldResult& r, int world, int hosts, const std::string& origin);

}  // namespace plumb
