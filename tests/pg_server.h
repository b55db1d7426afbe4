// A real PostgreSQL 15 server for tests: initdb into a temporary directory, postgres on a private
// unix-socket directory and a free port (no TCP listener), stopped and removed at the end. initdb
// and postgres refuse to run as root, so as root the server runs as nobody (setpriv) in
// directories it owns. Absent binaries: available() is false and why() says so (GTEST_SKIP).
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/subprocess.h"

namespace plumb::test {

class PgServer {
 public:
  static constexpr const char* kBin = "/usr/lib/postgresql/15/bin";

  PgServer() {
    namespace fs = std::filesystem;
    for (const char* b : {"initdb", "pg_ctl", "postgres", "psql"}) {
      if (!fs::exists(std::string(kBin) + "/" + b)) {
        why_ = std::string(kBin) + "/" + b + " not found (install postgresql-15)";
        return;
      }
    }
    if (::geteuid() == 0 && !fs::exists("/usr/bin/setpriv")) {
      why_ = "running as root and /usr/bin/setpriv is missing (PostgreSQL refuses to run as root)";
      return;
    }
    char tmpl[] = "/tmp/plumb-pg-XXXXXX";  // short: a unix socket path has at most 107 bytes
    if (::mkdtemp(tmpl) == nullptr) {
      why_ = "mkdtemp failed";
      return;
    }
    dir_ = tmpl;
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
    fs::create_directories(dir_ + "/data");
    fs::create_directories(dir_ + "/sock");
    if (::geteuid() == 0) {
      for (const char* d : {"/data", "/sock"}) {
        if (::chown((dir_ + d).c_str(), 65534, 65534) != 0) why_ = "chown to nobody failed";
      }
    }
    port_ = free_port();
    auto init = pg({std::string(kBin) + "/initdb", "-D", dir_ + "/data", "-A", "trust", "-U", "plumb", "-E", "UTF8", "--no-sync"});
    if (init.exit_code != 0) {
      why_ = "initdb failed: " + init.err + init.out;
      return;
    }
    ok_ = start();
    if (!ok_) why_ = "pg_ctl start failed";
  }
  ~PgServer() {
    if (ok_) stop();
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  PgServer(const PgServer&) = delete;
  PgServer& operator=(const PgServer&) = delete;

  [[nodiscard]] bool available() const { return ok_; }
  [[nodiscard]] const std::string& why() const { return why_; }
  [[nodiscard]] std::string url(const std::string& db = "postgres") const {
    return "postgresql://plumb@/" + db + "?host=" + dir_ + "/sock&port=" + std::to_string(port_);
  }

  bool start() {
    auto r = pg({std::string(kBin) + "/pg_ctl", "-D", dir_ + "/data", "-l", dir_ + "/data/server.log", "-w", "-t", "30", "-o",
                 "-k " + dir_ + "/sock -p " + std::to_string(port_) + " -c listen_addresses='' -c fsync=off", "start"});
    return r.exit_code == 0;
  }
  bool stop() {
    auto r = pg({std::string(kBin) + "/pg_ctl", "-D", dir_ + "/data", "-m", "fast", "-w", "-t", "30", "stop"});
    return r.exit_code == 0;
  }
  // One psql query's unaligned rows ("" on error, with the error in the result's err).
  RunOutput sql(const std::string& query) const {
    return pg({std::string(kBin) + "/psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-d", url(), "-c", query});
  }

 private:
  static int free_port() {
    int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof a;
    int port = 54329;
    if (s >= 0 && ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &n) == 0) {
      port = ntohs(a.sin_port);
    }
    if (s >= 0) ::close(s);
    return port;
  }
  // Runs a PostgreSQL program, as nobody when this process is root.
  RunOutput pg(std::vector<std::string> argv) const {
    if (::geteuid() == 0) argv.insert(argv.begin(), {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
    RunOptions o;
    o.timeout = std::chrono::seconds(60);
    o.extra_env = {{"LANG", "C"}, {"LC_ALL", "C"}};
    auto r = run_program(argv, o);
    if (!r) {
      RunOutput bad;
      bad.err = r.error().message;
      return bad;
    }
    return *r;
  }

  std::string dir_, why_;
  int port_ = 0;
  bool ok_ = false;
};

}  // namespace plumb::test
