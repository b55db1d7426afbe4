// plumb-fleet: one MPI rank of `plumb fleet` (started by `plumb fleet` under mpirun or srun).
// Each rank runs `plumb check` on its node in a child process under a deadline, so a check that
// hangs or crashes is reported by the rank instead of killing the job; rank 0 gathers every
// snapshot (lengths, then bytes, each receive polled until the deadline), runs the node-to-node
// point-to-point sweep with the others, judges the fleet and writes the report. Exit code of
// rank 0: 0 / 1 / 2; other ranks 0. Nothing waits past its deadline: when a rank does not reach
// the final barrier in time, rank 0 writes the report and ends the job with MPI_Abort(code).
// The C API only: Open MPI and MPICH otherwise pull in their deprecated C++ bindings.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <deque>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "bench/fleet_stats.h"
#include "bench/nccl_world.h"
#include "analyze/nccl_tests.h"
#include "engine/fleet_report.h"
#include "core/atomic_file.h"
#include "core/deadline.h"
#include "core/host_root.h"
#include "core/i18n.h"
#include "core/progress.h"
#include "core/subprocess.h"
#include "core/terminal_text.h"
#include "core/text.h"
#include "report/progress_text.h"
#include "report/report.h"

// Every request below completes in wait_until (MPI_Test polled to a deadline, then MPI_Cancel and
// MPI_Request_free), which clang's MPI checker does not recognise as a wait.
// NOLINTBEGIN(clang-analyzer-optin.mpi.MPI-Checker)
namespace plumb {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kTagLength = 11, kTagBytes = 12, kTagPing = 21, kTagData = 22, kTagAck = 23;
// Each gather has tags of its own, so a late answer to one that was abandoned at its deadline can
// never be taken for an answer to the next.
enum class Gather { snapshots = 0, sweep = 1, second_sweep = 2, nccl_probe = 3, nccl_sweep = 4 };
constexpr int gather_tag(int tag, Gather g) { return tag + 100 * static_cast<int>(g); }
constexpr std::uint64_t kMaxPayload = 1ull << 30;
constexpr std::chrono::seconds kGrace{15};       // gather: beyond the ranks' deadline
constexpr std::chrono::seconds kPairBudget{30};  // one pair's exchange

struct Options {
  std::string plumb, format = "term", lang, out, config;
  int deadline_s = 120;
  long p2p_bytes = 4l << 20;
  int p2p_iters = 20;
  bool no_p2p = false;
  long nccl_bytes = 1l << 30;
  bool no_nccl = false;
  std::vector<std::string> check;
};

// The argument form `plumb fleet` writes (it validated the user's options already).
std::optional<Options> parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    if (a == "--") {
      for (++i; i < argc; ++i) o.check.emplace_back(argv[i]);
      break;
    }
    if (a == "--no-p2p") {
      o.no_p2p = true;
      continue;
    }
    if (a == "--no-nccl") {
      o.no_nccl = true;
      continue;
    }
    auto v = next();
    if (!v) return std::nullopt;
    if (a == "--plumb") o.plumb = *v;
    else if (a == "--format") o.format = *v;
    else if (a == "--lang") o.lang = *v;
    else if (a == "--out") o.out = *v;
    else if (a == "--config") o.config = *v;
    else if (a == "--deadline") o.deadline_s = static_cast<int>(parse_int(*v).value_or(120));
    else if (a == "--p2p-bytes") o.p2p_bytes = static_cast<long>(parse_int(*v).value_or(4l << 20));
    else if (a == "--p2p-iters") o.p2p_iters = static_cast<int>(parse_int(*v).value_or(20));
    else if (a == "--nccl-bytes") o.nccl_bytes = static_cast<long>(parse_int(*v).value_or(1l << 30));
    else return std::nullopt;
  }
  if (o.plumb.empty()) return std::nullopt;
  return o;
}

// Buffers of requests abandoned at a deadline stay alive until the process ends (MPI may still
// touch them).
std::deque<std::vector<char>>& parked() {
  static std::deque<std::vector<char>> p;
  return p;
}

// Polls `req` until it completes (true) or the deadline passes (cancelled, false).
bool wait_until(MPI_Request& req, Clock::time_point deadline, bool spin) {
  while (true) {
    int done = 0;
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done != 0) return true;
    if (Clock::now() >= deadline) {
      MPI_Cancel(&req);
      MPI_Request_free(&req);
      return false;
    }
    // Spinning (the sweep) yields the core: ranks oversubscribed on one host must not starve the pair measuring.
    if (spin) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  }
}

// Every rank's text at rank 0: the length, then the bytes; rank 0 polls all receives until the
// deadline. Elsewhere the result is empty.
// `answered`, when given, counts the ranks whose answer (or refusal) arrived, for a progress line.
std::vector<std::optional<std::string>> gather_texts(const std::string& mine, int rank, int size, Gather g, Clock::time_point deadline,
                                                     std::atomic<int>* answered = nullptr) {
  std::vector<std::optional<std::string>> out(static_cast<std::size_t>(size));
  if (rank != 0) {
    auto& len_buf = parked().emplace_back(sizeof(std::uint64_t));
    std::uint64_t len = mine.size();
    std::memcpy(len_buf.data(), &len, sizeof len);
    auto& body = parked().emplace_back(mine.begin(), mine.end());
    MPI_Request r1 = MPI_REQUEST_NULL, r2 = MPI_REQUEST_NULL;
    MPI_Isend(len_buf.data(), 1, MPI_UINT64_T, 0, gather_tag(kTagLength, g), MPI_COMM_WORLD, &r1);
    MPI_Isend(body.data(), static_cast<int>(body.size()), MPI_CHAR, 0, gather_tag(kTagBytes, g), MPI_COMM_WORLD, &r2);
    bool sent = wait_until(r1, deadline, false);
    (void)wait_until(r2, sent ? deadline : Clock::now(), false);  // cancelled at once when the length was not taken
    return out;
  }
  out[0] = mine;
  struct Pending {
    MPI_Request req = MPI_REQUEST_NULL;
    std::vector<char>* buf = nullptr;
    bool body = false;
    bool done = false;
  };
  std::vector<Pending> p(static_cast<std::size_t>(size));
  for (int r = 1; r < size; ++r) {
    auto& pr = p[static_cast<std::size_t>(r)];
    pr.buf = &parked().emplace_back(sizeof(std::uint64_t));
    MPI_Irecv(pr.buf->data(), 1, MPI_UINT64_T, r, gather_tag(kTagLength, g), MPI_COMM_WORLD, &pr.req);
  }
  int open = size - 1;
  while (open > 0 && Clock::now() < deadline) {
    bool progress = false;
    for (int r = 1; r < size; ++r) {
      auto& pr = p[static_cast<std::size_t>(r)];
      if (pr.done) continue;
      int flag = 0;
      MPI_Test(&pr.req, &flag, MPI_STATUS_IGNORE);
      if (flag == 0) continue;
      progress = true;
      if (!pr.body) {
        std::uint64_t len = 0;
        std::memcpy(&len, pr.buf->data(), sizeof len);
        if (len > kMaxPayload) {
          out[static_cast<std::size_t>(r)] = std::string("Nsnapshot of ") + std::to_string(len) + " bytes is too large";
          pr.done = true;
          --open;
          if (answered != nullptr) ++*answered;
          continue;
        }
        pr.body = true;
        pr.buf = &parked().emplace_back(static_cast<std::size_t>(len));
        MPI_Irecv(pr.buf->data(), static_cast<int>(len), MPI_CHAR, r, gather_tag(kTagBytes, g), MPI_COMM_WORLD, &pr.req);
      } else {
        out[static_cast<std::size_t>(r)] = std::string(pr.buf->begin(), pr.buf->end());
        std::vector<char>().swap(*pr.buf);
        pr.done = true;
        --open;
        if (answered != nullptr) ++*answered;
      }
    }
    if (!progress) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  for (auto& pr : p) {
    if (!pr.done && pr.req != MPI_REQUEST_NULL) {
      MPI_Cancel(&pr.req);
      MPI_Request_free(&pr.req);
    }
  }
  return out;
}

// `argv` as a child process under `budget` (at most 1 MiB of output kept): "S" + its output when it
// exits with at most `max_ok_exit`, else "N" + why in the words the report prints. `what` names
// the work in them ("the NCCL probe timed out after 60 s"); the node's check passes "", the report
// already saying "no result from <node>: timed out after 120 s". A child that hangs in a driver or
// in NCCL is killed at the budget; the rank goes on.
std::string child_answer(const std::vector<std::string>& argv, std::chrono::seconds budget, const std::string& what, int max_ok_exit) {
  RunOptions ro;
  ro.timeout = budget;
  ro.max_output = 1u << 20;
  auto r = run_program(argv, ro);
  const std::string lead = what.empty() ? std::string() : what + " ";
  std::string late = "N" + lead + "timed out after " + std::to_string(budget.count()) + " s";
  if (!r) {
    return r.error().kind == ErrorKind::timed_out ? late
                                                  : "Ncould not run " + (what.empty() ? std::string("plumb check") : what) + ": " +
                                                        first_line(r.error().message);
  }
  if (r->timed_out) return late;
  if (r->signal != 0) return "N" + lead + "crashed (signal " + std::to_string(r->signal) + ")";
  if (r->exit_code < 0 || r->exit_code > max_ok_exit) {
    return "N" + (what.empty() ? std::string("check") : what) + " failed (exit " + std::to_string(r->exit_code) +
           "): " + first_line(r->err.empty() ? r->out : r->err);
  }
  return "S" + r->out;
}

// This node's check in a child process: "S" + snapshot, or "N" + why there is none (exit 1, some
// finding failed, is a result).
std::string run_rank_check(const Options& o) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "plumb-fleet-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return "Ncannot create a temporary directory: " + errno_text(errno);
  std::string file = tmpl + "/snapshot.json";
  std::vector<std::string> argv{o.plumb, "check"};
  argv.insert(argv.end(), o.check.begin(), o.check.end());
  argv.insert(argv.end(), {"--no-history", "--format", "json", "--lang", "en", "--out", file});
  std::string msg = child_answer(argv, std::chrono::seconds(o.deadline_s), "", 1);
  if (msg[0] == 'S') {
    auto text = read_user_file(file, kMaxPayload);
    msg = text ? "S" + *text : "Nno snapshot written: " + text.error().message;
  }
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);
  return msg;
}

// ---- node-to-node sweep ---------------------------------------------------------------------

long delay_ms() {
  // Test knob: slows this rank's side of every bandwidth message (docs/fleet.md).
  const char* v = std::getenv("PLUMB_FLEET_P2P_DELAY_MS");  // NOLINT(concurrency-mt-unsafe): read once, single thread
  return v == nullptr ? 0 : static_cast<long>(parse_int(v).value_or(0));
}

bool xfer(bool send, char* buf, int n, int peer, int tag, Clock::time_point deadline) {
  MPI_Request req = MPI_REQUEST_NULL;
  if (send) {
    MPI_Isend(buf, n, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &req);
  } else {
    MPI_Irecv(buf, n, MPI_CHAR, peer, tag, MPI_COMM_WORLD, &req);
  }
  return wait_until(req, deadline, true);
}

// One pair: `first` measures latency (8-byte ping-pong) and bandwidth (iters messages, then an
// ack) towards `second`; returns the measurement on `first`.
FleetPair exchange(int me, int first, int second, int pass, const Options& o, std::vector<char>& buf) {
  FleetPair p;
  p.pass = pass;
  bool sender = me == first;
  int peer = sender ? second : first;
  // Each pass has its own tags: a late message of an exchange abandoned in the first pass is never
  // taken for one of the second.
  const int ping = kTagPing + 100 * pass, data = kTagData + 100 * pass, ack = kTagAck + 100 * pass;
  auto deadline = Clock::now() + kPairBudget;
  long slow = delay_ms();
  char small[8] = {};
  constexpr int kPings = 50, kWarm = 5;
  bool ok = true;
  auto t0 = Clock::now();
  for (int i = 0; ok && i < kPings + kWarm; ++i) {
    if (i == kWarm) t0 = Clock::now();
    ok = sender ? xfer(true, small, 8, peer, ping, deadline) && xfer(false, small, 8, peer, ping, deadline)
                : xfer(false, small, 8, peer, ping, deadline) && xfer(true, small, 8, peer, ping, deadline);
  }
  double lat_us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / kPings / 2;
  int n = static_cast<int>(o.p2p_bytes);
  double gbps = 0;
  for (int i = 0; ok && i <= o.p2p_iters; ++i) {  // message 0 warms up
    if (i == 1) t0 = Clock::now();
    if (slow > 0) std::this_thread::sleep_for(std::chrono::milliseconds(slow));
    ok = xfer(sender, buf.data(), n, peer, data, deadline);
  }
  if (ok) ok = xfer(!sender, small, 1, peer, ack, deadline);
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (ok && s > 0) gbps = static_cast<double>(n) * o.p2p_iters / s / 1e9;
  p.latency_us = lat_us;
  p.gbytes_per_s = gbps;
  if (!ok) p.error = "timed out";
  return p;
}

// Runs `pairs` in rounds (no rank twice in a round); each rank returns the lines it measured.
std::string run_pairs(int me, const std::vector<RankPair>& pairs, int pass, const Options& o) {
  std::vector<char> buf(static_cast<std::size_t>(o.p2p_bytes));
  std::ostringstream lines;
  for (const auto& round : schedule_rounds(pairs)) {
    for (const auto& [a, b] : round) {
      if (me != a && me != b) continue;
      FleetPair p = exchange(me, a, b, pass, o, buf);
      if (me == a) lines << a << ' ' << b << ' ' << pass << ' ' << p.gbytes_per_s << ' ' << p.latency_us << ' ' << (p.error.empty() ? "-" : p.error) << '\n';
    }
  }
  return lines.str();
}

void parse_pairs(const std::string& text, const std::vector<std::string>& names, FleetNetwork& net) {
  for (auto line : split_lines(text)) {
    auto f = split_ws(line);
    if (f.size() < 6) continue;
    auto a = parse_int(f[0]), b = parse_int(f[1]), pass = parse_int(f[2]);
    auto g = parse_double(f[3]), l = parse_double(f[4]);
    if (!a || !b || !pass || *a < 0 || *b < 0 || *a >= static_cast<long>(names.size()) || *b >= static_cast<long>(names.size())) continue;
    FleetPair p{names[static_cast<std::size_t>(*a)], names[static_cast<std::size_t>(*b)], static_cast<int>(*pass), g.value_or(0), l.value_or(0), ""};
    if (f[5] != "-") p.error = "timed out";
    net.pairs.push_back(p);
  }
}

// Rank 0 decides the second pass; every rank receives it (count + pairs), polled until the deadline.
std::vector<RankPair> share_plan(std::vector<RankPair> plan, int rank, int size, Clock::time_point deadline) {
  auto& buf = parked().emplace_back(sizeof(int) * static_cast<std::size_t>(1 + 2 * size), 0);
  auto* v = reinterpret_cast<int*>(buf.data());
  if (rank == 0) {
    v[0] = static_cast<int>(std::min<std::size_t>(plan.size(), static_cast<std::size_t>(size)));
    for (int i = 0; i < v[0]; ++i) {
      v[1 + 2 * i] = plan[static_cast<std::size_t>(i)].first;
      v[2 + 2 * i] = plan[static_cast<std::size_t>(i)].second;
    }
  }
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Ibcast(v, 1 + 2 * size, MPI_INT, 0, MPI_COMM_WORLD, &req);
  if (!wait_until(req, deadline, false)) return {};
  std::vector<RankPair> out;
  for (int i = 0; i < v[0] && i < size; ++i) out.emplace_back(v[1 + 2 * i], v[2 + 2 * i]);
  return out;
}

// ---- multi-node NCCL ------------------------------------------------------------------------

constexpr std::chrono::seconds kProbeBudget{60};  // the child's CUDA and NCCL probe
constexpr std::chrono::seconds kIdBudget{30};     // ncclGetUniqueId at rank 0
constexpr std::size_t kIdHex = 256;

// This executable again as a child (--nccl-probe, --nccl-join ...).
std::string run_self(std::vector<std::string> args, std::chrono::seconds budget, const std::string& what) {
  std::string exe = self_executable();
  if (exe.empty()) return "Ncannot read /proc/self/exe";
  args.insert(args.begin(), exe);
  return child_answer(args, budget, what, 0);
}

std::string list_some(const std::vector<std::string>& items) {
  constexpr std::size_t kShown = 3;
  std::vector<std::string> shown(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(std::min(items.size(), kShown)));
  std::string s = join(shown, "; ");
  if (items.size() > kShown) s += "; and " + std::to_string(items.size() - kShown) + " more";
  return s;
}

// NCCL all-reduce over every GPU of every node: each rank's child probes its GPUs, rank 0 takes a
// unique id and broadcasts it with every rank's first NCCL rank, each rank's child joins and runs
// the sweep, rank 0 gathers the answers. The outcome is meaningful at rank 0.
FleetNccl run_fleet_nccl(const Options& o, int rank, int size, const std::vector<std::string>& hosts) {
  FleetNccl out;
  if (o.no_nccl) {
    out.why = "--no-nccl";
    return out;
  }
  if (size < 2) {
    out.why = "one node: plumb bench allreduce measures the GPUs of one machine";
    return out;
  }
  auto started = Clock::now();
  NcclWorldProbe mine;
  std::string probe = run_self({"--nccl-probe"}, kProbeBudget, "the NCCL probe");
  if (probe[0] == 'S') {
    auto p = parse_probe(probe.substr(1));
    if (p) mine = *p;
    else mine.why = p.error().message;
  } else {
    mine.why = probe.substr(1);
  }
  auto probes = gather_texts(format_probe(mine), rank, size, Gather::nccl_probe, started + kProbeBudget + kGrace);

  const std::size_t ints = 2 + static_cast<std::size_t>(size);
  auto& buf = parked().emplace_back(sizeof(int) * ints + kIdHex, 0);
  std::vector<int> plan(ints, 0);  // go, world, first NCCL rank of each MPI rank
  if (rank == 0) {
    std::vector<std::string> cannot;
    int world = 0;
    for (int r = 0; r < size; ++r) {
      const auto& t = probes[static_cast<std::size_t>(r)];
      NcclWorldProbe p;
      if (!t) {
        p.why = "no answer from its NCCL probe";
      } else if (auto q = parse_probe(*t)) {
        p = *q;
      } else {
        p.why = q.error().message;
      }
      const std::string& host = r < static_cast<int>(hosts.size()) ? hosts[static_cast<std::size_t>(r)] : "rank " + std::to_string(r);
      if (p.devices <= 0) cannot.push_back(host + ": " + p.why);
      plan[2 + static_cast<std::size_t>(r)] = world;
      world += std::max(0, p.devices);
    }
    if (static_cast<int>(cannot.size()) == size) {
      out.why = "no GPUs on any node (" + cannot.front() + ")";
    } else if (!cannot.empty()) {
      out.why = std::to_string(cannot.size()) + " of " + std::to_string(size) + " nodes cannot join: " + list_some(cannot);
    } else {
      auto id = run_with_deadline<Result<std::string>>([] { return nccl_unique_id_hex(); }, kIdBudget);
      if (!id) {
        out.why = "ncclGetUniqueId did not return within " + std::to_string(kIdBudget.count()) + " s";
      } else if (!*id) {
        out.why = first_line(id->error().message);
      } else if ((*id)->size() == kIdHex) {
        plan[0] = 1;
        plan[1] = world;
        std::memcpy(buf.data() + sizeof(int) * ints, (*id)->data(), kIdHex);
      }
    }
    std::memcpy(buf.data(), plan.data(), sizeof(int) * ints);
  }
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Ibcast(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, 0, MPI_COMM_WORLD, &req);
  if (!wait_until(req, started + kProbeBudget + kIdBudget + 2 * kGrace, false)) {
    if (out.why.empty()) out.why = "the NCCL plan did not reach every rank in time";
    return out;
  }
  std::memcpy(plan.data(), buf.data(), sizeof(int) * ints);
  if (plan[0] != 1) return out;
  int world = plan[1];
  std::string id(buf.data() + sizeof(int) * ints, kIdHex);
  auto budget = std::chrono::seconds(o.deadline_s);
  std::string result = run_self({"--nccl-join", id, std::to_string(plan[2 + static_cast<std::size_t>(rank)]), std::to_string(world),
                                  std::to_string(mine.devices), std::to_string(o.nccl_bytes), std::to_string(o.p2p_iters)},
                                 budget, "the NCCL all-reduce");
  auto results = gather_texts(result, rank, size, Gather::nccl_sweep, Clock::now() + budget + kGrace);
  if (rank != 0) return out;
  std::vector<std::string> failed;
  for (int r = 0; r < size; ++r) {
    const auto& t = results[static_cast<std::size_t>(r)];
    const std::string& host = r < static_cast<int>(hosts.size()) ? hosts[static_cast<std::size_t>(r)] : "rank " + std::to_string(r);
    if (!t) failed.push_back(host + ": no answer");
    else if (t->empty() || (*t)[0] != 'S') failed.push_back(host + ": " + (t->empty() ? std::string("empty answer") : t->substr(1)));
  }
  out.world = world;
  out.nodes = size;
  if (!failed.empty()) {
    out.status = "failed";
    out.why = list_some(failed);
    return out;
  }
  auto parsed = parse_nccl_world(results[0]->substr(1));
  if (!parsed) {
    out.status = "failed";
    out.why = (hosts.empty() ? std::string("rank 0") : hosts[0]) + ": " + parsed.error().message;
    return out;
  }
  out.status = "measured";
  out.run = nccl_world_run(*parsed, world, size, "NCCL all-reduce, " + std::to_string(world) + " GPUs on " + std::to_string(size) + " nodes");
  out.why = std::to_string(world) + " GPUs on " + std::to_string(size) + " nodes, NCCL " + parsed->nccl;
  BusbwSummary sum = summarize(*out.run);
  if (sum.peak) out.why += ", peak busbw " + fmt_num(*sum.peak, 1) + " GB/s at " + human_bytes(sum.peak_size);
  return out;
}

// The children: `--nccl-probe` prints what this node can bring; `--nccl-join ID FIRST WORLD
// DEVICES MAX_BYTES ITERATIONS` joins the communicator and prints the sweep. Errors: one line on
// stdout, exit 1.
int nccl_child(int argc, char** argv) {
  std::string mode = argv[1];
  if (mode == "--nccl-probe" && argc == 2) {
    std::cout << format_probe(probe_nccl_world()) << "\n";
    return 0;
  }
  if (mode != "--nccl-join" || argc != 8) {
    std::cout << "plumb-fleet: bad NCCL child arguments\n";
    return 2;
  }
  NcclWorldSpec spec;
  spec.id_hex = argv[2];
  auto first = parse_int(argv[3]), world = parse_int(argv[4]), devices = parse_int(argv[5]), bytes = parse_int(argv[6]),
       iters = parse_int(argv[7]);
  if (!first || !world || !devices || !bytes || !iters || *bytes < 4 || *iters < 1 || *world > 1'000'000) {
    std::cout << "plumb-fleet: bad NCCL child arguments\n";
    return 2;
  }
  spec.first_rank = static_cast<int>(*first);
  spec.world = static_cast<int>(*world);
  spec.devices = static_cast<int>(*devices);
  spec.max_bytes = static_cast<std::uint64_t>(*bytes);
  spec.iterations = static_cast<int>(*iters);
  auto r = run_nccl_world(spec);
  if (!r) {
    std::cout << first_line(r.error().message) << "\n";
    return 1;
  }
  std::cout << *r << std::flush;
  return 0;
}

int rank_main(const Options& o, int rank, int size) {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> names_buf(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names_buf.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);

  std::string mine = run_rank_check(o);
  auto deadline = Clock::now() + std::chrono::seconds(o.deadline_s) + kGrace;
  std::vector<std::optional<std::string>> texts;
  {
    // Rank 0 on a terminal: how many nodes have answered, once the wait passes two seconds.
    std::atomic<int> answered{1};
    auto started = Clock::now();
    std::unique_ptr<ProgressLine> line;
    if (rank == 0) {
      line = std::make_unique<ProgressLine>("plumb fleet", std::chrono::seconds(2), [&, lang = detect_lang(o.lang)] {
        return progress_nodes(lang, answered.load(), size, std::chrono::duration<double>(Clock::now() - started).count());
      });
    }
    texts = gather_texts(mine, rank, size, Gather::snapshots, deadline, &answered);
  }
  std::string().swap(mine);

  Config cfg;
  std::vector<NodeSnapshot> nodes;
  std::vector<std::string> hosts;
  if (rank == 0) {
    if (!o.config.empty()) {
      auto c = load_config(o.config);
      if (c) cfg = std::move(c.value());
    }
    std::vector<std::string> proc(static_cast<std::size_t>(size));
    std::map<std::string, int> per_host;
    for (int r = 0; r < size; ++r) {
      proc[static_cast<std::size_t>(r)] = std::string(names_buf.data() + static_cast<std::ptrdiff_t>(r) * MPI_MAX_PROCESSOR_NAME);
      ++per_host[proc[static_cast<std::size_t>(r)]];
    }
    std::vector<FleetInput> inputs;
    for (int r = 0; r < size; ++r) {
      const auto& t = texts[static_cast<std::size_t>(r)];
      FleetInput in;
      in.origin = "rank " + std::to_string(r);
      const std::string& pn = proc[static_cast<std::size_t>(r)];
      in.host = per_host[pn] > 1 ? pn + ":rank" + std::to_string(r) : pn;
      if (!t) {
        in.no_result = "timed out after " + std::to_string(o.deadline_s) + " s (no answer from the rank)";
      } else if (!t->empty() && (*t)[0] == 'S') {
        in.text = t->substr(1);
      } else {
        in.no_result = t->empty() ? std::string("empty answer") : t->substr(1);
      }
      inputs.push_back(std::move(in));
    }
    texts.clear();
    nodes = read_fleet_inputs(std::move(inputs), cfg);
    unique_hosts(nodes);
    for (const auto& n : nodes) hosts.push_back(n.node.host);
  }

  FleetRun run;
  run.mode = "mpi";
  bool one_host = true;
  for (int r = 1; r < size; ++r) {
    one_host = one_host && std::string(names_buf.data() + static_cast<std::ptrdiff_t>(r) * MPI_MAX_PROCESSOR_NAME) ==
                               std::string(names_buf.data());
  }
  if (o.no_p2p || size < 2) {
    run.network.status = "skipped";
    run.network.why = size < 2 ? "one rank: no pair to measure" : "--no-p2p";
  } else {
    auto sweep_deadline = Clock::now() + kPairBudget * 4;
    std::string lines = run_pairs(rank, ring_pairs(size), 1, o);
    auto got = gather_texts(lines, rank, size, Gather::sweep, sweep_deadline);
    FleetNetwork& net = run.network;
    net.status = "measured";
    net.loopback = one_host;
    net.message_bytes = o.p2p_bytes;
    net.iterations = o.p2p_iters;
    std::vector<RankPair> plan;
    if (rank == 0) {
      for (const auto& g : got) {
        if (g) parse_pairs(*g, hosts, net);
      }
      FleetFacts ff = build_fleet(nodes);
      net.line_rate_gbytes_per_s = ff.network.line_rate_gbytes_per_s;
      net.line_rate_source = ff.network.line_rate_source;
      bool line = net.line_rate_gbytes_per_s > 0 && !net.loopback;
      double fraction = cfg.thresholds.get(line ? "fleet.p2p_min_percent" : "fleet.p2p_median_min_percent") / 100.0;
      plan = second_pass_pairs(net, hosts, fraction);
    }
    plan = share_plan(plan, rank, size, Clock::now() + kPairBudget);
    if (!plan.empty()) {
      std::string second = run_pairs(rank, plan, 2, o);
      auto got2 = gather_texts(second, rank, size, Gather::second_sweep, Clock::now() + kPairBudget * 4);
      if (rank == 0) {
        for (const auto& g : got2) {
          if (g) parse_pairs(*g, hosts, net);
        }
      }
    }
  }

  run.nccl = run_fleet_nccl(o, rank, size, hosts);
  run.one_host = one_host;

  int code = 0;
  if (rank == 0) {
    Report r = judge_fleet(std::move(nodes), run, cfg);
    RenderOptions ro;
    ro.lang = detect_lang(o.lang);
    ro.color = o.out.empty() && o.format == "term" && ::isatty(1) != 0 && std::getenv("NO_COLOR") == nullptr;  // NOLINT(concurrency-mt-unsafe)
    const RendererInfo* renderer = find_renderer(o.format);
    if (renderer == nullptr) {
      std::cerr << "plumb fleet: unknown format " << o.format << "\n";
      code = 2;
    } else {
      // Other nodes' names and values reach the launching terminal: shown, never obeyed.
      std::string text = render_report(*renderer, r, ro);
      if (o.out.empty()) {
        std::cout << text << std::flush;
        code = exit_code_for(r.findings);
      } else {
        auto w = write_file_atomic(o.out, text);
        if (!w) std::cerr << "plumb fleet: " << terminal_text(w.error().message) << "\n";
        code = w ? exit_code_for(r.findings) : 2;
      }
    }
  }
  MPI_Request bar = MPI_REQUEST_NULL;
  MPI_Ibarrier(MPI_COMM_WORLD, &bar);
  if (!wait_until(bar, Clock::now() + kGrace, false)) {
    if (rank == 0) {
      std::cerr << "plumb fleet: a rank did not finish; ending the job (exit " << code << ")\n";
      MPI_Abort(MPI_COMM_WORLD, code);
    }
    return 0;
  }
  MPI_Finalize();
  return rank == 0 ? code : 0;
}

}  // namespace
}  // namespace plumb
// NOLINTEND(clang-analyzer-optin.mpi.MPI-Checker)

int main(int argc, char** argv) {
  if (argc >= 2 && std::strncmp(argv[1], "--nccl-", 7) == 0) return plumb::nccl_child(argc, argv);
  auto o = plumb::parse_args(argc, argv);
  if (!o) {
    std::fprintf(stderr, "plumb-fleet: started by `plumb fleet` under mpirun or srun; run that instead\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  try {
    return plumb::rank_main(*o, rank, size);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "plumb fleet: rank %d: %s\n", rank, plumb::terminal_text(e.what()).c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
  }
}
