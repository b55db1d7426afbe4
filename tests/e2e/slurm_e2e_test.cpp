// `plumb check --slurm` as the HealthCheckProgram of a real Slurm: munged, slurmctld and slurmd
// (Debian's slurm-wlm 22.05) started here on loopback with a private key, configuration, state
// directory and ports. A failing fixture host drains the node with a "plumb:" reason, a healthy
// one resumes it, and a node an operator drained stays drained. Every daemon is this test's own
// child, stopped by its process id when the test ends, whatever the outcome; every wait is bounded.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "collect/slurm_node.h"
#include "golden.h"
#include "../net_util.h"
#include "../test_util.h"

extern char** environ;

namespace plumb {
namespace {

namespace fs = std::filesystem;
using test::free_loopback_port;
using namespace std::chrono_literals;

const char* const kMunged = "/usr/sbin/munged";
const char* const kMungekey = "/usr/sbin/mungekey";
const char* const kSlurmctld = "/usr/sbin/slurmctld";
const char* const kSlurmd = "/usr/sbin/slurmd";
const char* const kScontrol = "/usr/bin/scontrol";
const char* const kNode = "plumbnode";

// A daemon run in the foreground as this test's child, output to a log file.
class Daemon {
 public:
  Daemon() = default;
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;
  ~Daemon() { stop(); }

  bool start(std::vector<std::string> argv, const std::string& log) {
    std::vector<char*> a;
    a.reserve(argv.size() + 1);
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    int rc = ::posix_spawn(&pid_, a[0], &fa, nullptr, a.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) pid_ = -1;
    return pid_ > 0;
  }
  [[nodiscard]] bool running() {
    if (pid_ <= 0) return false;
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    return true;
  }
  // SIGTERM, up to 10 s to exit, then SIGKILL.
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    auto end = std::chrono::steady_clock::now() + 10s;
    int st = 0;
    while (std::chrono::steady_clock::now() < end) {
      if (::waitpid(pid_, &st, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(50ms);
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &st, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

bool wait_for(const std::function<bool()>& ok, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (ok()) return true;
    std::this_thread::sleep_for(200ms);
  }
  return ok();
}

std::string slurp(const fs::path& p) {
  auto r = read_user_file(p.string());
  return r ? *r : std::string();
}

bool failed(std::string& why, const std::string& reason) {
  why = reason;
  return false;
}

// munged + slurmctld + slurmd with HealthCheckProgram = a wrapper that runs
// `plumb check --slurm` on the fixture host the symlink dir/host points at.
class SlurmCluster {
 public:
  fs::path dir;

  SlurmCluster() : dir(fs::path(::testing::TempDir()) / ("plumb_slurm_e2e_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    for (const char* d : {"munge", "run", "state", "spool", "log"}) fs::create_directories(dir / d);
    // munged wants its key private and its socket's directory searchable by everyone.
    fs::permissions(dir / "munge", fs::perms::owner_all, fs::perm_options::replace);
    fs::permissions(dir / "run", fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec | fs::perms::group_read |
                                     fs::perms::others_read,
                    fs::perm_options::replace);
  }
  ~SlurmCluster() {
    slurmd_.stop();
    // A health check slurmd started just before it stopped ends on its own: plumb on a fixture
    // takes well under a second, and its budget bounds it anyway.
    wait_for([&] { return health_runs_started() == health_runs_ended(); }, 15s);
    slurmctld_.stop();
    munged_.stop();
    std::error_code ec;
    if (!::testing::Test::HasFailure()) fs::remove_all(dir, ec);
  }
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  void point_at(const std::string& host) {
    std::error_code ec;
    fs::remove(dir / "host", ec);
    fs::create_directory_symlink(test::host_fixture(host), dir / "host");
  }

  // Writes the key, the wrapper and slurm.conf, starts the three daemons; false with the reason.
  bool start(std::string& why) {
    std::string conf = (dir / "slurm.conf").string();
    auto key = run_program({kMungekey, "--create", "--keyfile", (dir / "munge/munge.key").string(), "--bits", "1024"});
    if (!key || key->exit_code != 0) return failed(why, "mungekey failed: " + (key ? key->err : key.error().describe()));
    std::string sock = (dir / "run/munge.socket").string();
    if (!munged_.start({kMunged, "--foreground", "--key-file", (dir / "munge/munge.key").string(), "--socket", sock, "--pid-file",
                        (dir / "munge/munged.pid").string(), "--seed-file", (dir / "munge/seed").string(), "--log-file",
                        (dir / "log/munged.log").string()},
                       (dir / "log/munged.out").string())) {
      return failed(why, "munged did not start");
    }
    if (!wait_for([&] { return fs::exists(sock); }, 10s)) return failed(why, "munged socket never appeared: " + slurp(dir / "log/munged.log"));

    // The HealthCheckProgram: slurm.conf takes a path without arguments, so a wrapper holds them.
    std::ofstream w(dir / "health.sh");
    w << "#!/bin/sh\n"
      << "echo start >> '" << (dir / "health.runs").string() << "'\n"
      << "'" << PLUMB_BINARY << "' check --slurm --root '" << (dir / "host").string() << "' --nvml-lib '"
      << (dir / "host/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1").string() << "' --kmsg /dev/null"
      << " --no-history --slurm-conf '" << conf << "' --scontrol " << kScontrol << " >> '" << (dir / "health.log").string()
      << "' 2>&1\n"
      << "echo \"end $?\" >> '" << (dir / "health.runs").string() << "'\n";
    w.close();
    fs::permissions(dir / "health.sh", fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);

    int ctld_port = free_loopback_port();
    int slurmd_port = free_loopback_port();
    std::ofstream c(conf);
    c << "ClusterName=plumbtest\n"
      << "SlurmctldHost=localhost(127.0.0.1)\n"
      << "SlurmctldPort=" << ctld_port << "\nSlurmdPort=" << slurmd_port << "\n"
      << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << sock << "\n"
      << "SlurmUser=root\nSlurmdUser=root\n"
      << "StateSaveLocation=" << (dir / "state").string() << "\nSlurmdSpoolDir=" << (dir / "spool").string() << "\n"
      << "SlurmctldPidFile=" << (dir / "slurmctld.pid").string() << "\nSlurmdPidFile=" << (dir / "slurmd.pid").string() << "\n"
      << "SlurmctldLogFile=" << (dir / "log/slurmctld.log").string() << "\nSlurmdLogFile=" << (dir / "log/slurmd.log").string() << "\n"
      << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\nSchedulerType=sched/builtin\n"
      << "JobCompType=jobcomp/none\nAccountingStorageType=accounting_storage/none\nMpiDefault=none\nReturnToService=2\n"
      << "HealthCheckProgram=" << (dir / "health.sh").string() << "\nHealthCheckInterval=2\nHealthCheckNodeState=ANY\n"
      << "NodeName=" << kNode << " NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=1 RealMemory=100 State=UNKNOWN\n"
      << "PartitionName=debug Nodes=" << kNode << " Default=YES MaxTime=INFINITE State=UP\n";
    c.close();
    if (!slurmctld_.start({kSlurmctld, "-D", "-i", "-f", conf}, (dir / "log/slurmctld.out").string())) return failed(why, "slurmctld did not start");
    if (!wait_for([&] { return scontrol({"ping"}).find("UP") != std::string::npos; }, 20s)) {
      return failed(why, "slurmctld never answered: " + slurp(dir / "log/slurmctld.log"));
    }
    if (!slurmd_.start({kSlurmd, "-D", "-N", kNode, "-f", conf}, (dir / "log/slurmd.out").string())) return failed(why, "slurmd did not start");
    return true;
  }

  std::string scontrol(const std::vector<std::string>& args) {
    std::vector<std::string> argv{kScontrol};
    argv.insert(argv.end(), args.begin(), args.end());
    RunOptions o;
    o.timeout = 10s;
    o.extra_env = {{"SLURM_CONF", (dir / "slurm.conf").string()}};
    auto r = run_program(argv, o);
    return r ? r->out + r->err : r.error().describe();
  }
  std::optional<SlurmNode> node() {
    auto n = parse_scontrol_node(scontrol({"-o", "show", "node", kNode}), kNode);
    return n ? std::optional<SlurmNode>(*n) : std::nullopt;
  }
  int health_runs_started() { return count_lines("start"); }
  int health_runs_ended() { return count_lines("end"); }
  std::string diagnostics() {
    return "node: " + scontrol({"-o", "show", "node", kNode}) + "\nplumb: " + slurp(dir / "health.log") + "\nslurmd: " +
           slurp(dir / "log/slurmd.log");
  }
  bool daemons_running() { return munged_.running() && slurmctld_.running() && slurmd_.running(); }

 private:
  int count_lines(const std::string& prefix) {
    std::istringstream in(slurp(dir / "health.runs"));
    int n = 0;
    for (std::string l; std::getline(in, l);) n += l.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  }
  // Declared in start order, destroyed (stopped) in reverse by ~SlurmCluster explicitly.
  Daemon munged_, slurmctld_, slurmd_;
};

bool missing_tools(std::string& which) {
  for (const char* p : {kMunged, kMungekey, kSlurmctld, kSlurmd, kScontrol}) {
    if (::access(p, X_OK) != 0) {
      which = p;
      return true;
    }
  }
  return false;
}

TEST(SlurmE2E, HealthCheckDrainsResumesAndLeavesOperatorDrainsAlone) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: slurmctld and slurmd run as root with a private config (CI runs as root)";
  std::string which;
  if (missing_tools(which)) GTEST_SKIP() << which << " not installed (Debian packages: slurm-wlm, munge)";
  SlurmCluster cluster;
  cluster.point_at("nvme-misconfigured");  // fails l3.memory.cgroup_oom_kills
  std::string why;
  ASSERT_TRUE(cluster.start(why)) << why;

  // 1. A failing host: plumb drains the node and says why.
  bool drained = wait_for([&] {
    auto n = cluster.node();
    return n && n->unavailable() && n->reason.rfind("plumb: ", 0) == 0;
  }, 40s);
  ASSERT_TRUE(drained) << cluster.diagnostics();
  auto n = cluster.node();
  ASSERT_TRUE(n);
  EXPECT_TRUE(n->has_flag("DRAIN")) << n->state;
  EXPECT_NE(n->reason.find("l3.memory.cgroup_oom_kills"), std::string::npos) << n->reason;

  // 2. The host is healthy again: plumb resumes the node it drained.
  cluster.point_at("healthy");
  bool resumed = wait_for([&] {
    auto m = cluster.node();
    return m && !m->unavailable() && m->reason.empty();
  }, 40s);
  ASSERT_TRUE(resumed) << cluster.diagnostics();

  // 3. An operator drains the node for their own reason: plumb never resumes it, on a healthy host
  // or a failing one, however many health checks run.
  cluster.scontrol({"update", std::string("NodeName=") + kNode, "State=DRAIN", "Reason=operator: reseat GPU 3"});
  for (const char* host : {"healthy", "nvme-misconfigured"}) {
    cluster.point_at(host);
    int before = cluster.health_runs_ended();
    ASSERT_TRUE(wait_for([&] { return cluster.health_runs_ended() >= before + 2; }, 30s)) << cluster.diagnostics();
    auto m = cluster.node();
    ASSERT_TRUE(m) << cluster.diagnostics();
    EXPECT_TRUE(m->has_flag("DRAIN")) << host << ": " << m->state;
    EXPECT_EQ(m->reason, "operator: reseat GPU 3") << host << "\n" << cluster.diagnostics();
  }
  EXPECT_NE(slurp(cluster.dir / "health.log").find("plumbnode left alone"), std::string::npos) << cluster.diagnostics();
  EXPECT_TRUE(cluster.daemons_running()) << cluster.diagnostics();
}

}  // namespace
}  // namespace plumb
