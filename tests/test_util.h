// Helpers shared by unit and end-to-end tests: fixture paths and running the plumb binary.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/host_root.h"
#include "core/subprocess.h"

namespace plumb::test {

inline std::string test_dir() { return PLUMB_TEST_DIR; }
inline std::string fixture(const std::string& rel) { return test_dir() + "/fixtures/" + rel; }
inline std::string host_fixture(const std::string& name) { return fixture("hosts/" + name); }
inline std::string read_fixture(const std::string& rel) {
  auto r = read_user_file(fixture(rel));
  return r ? *r : std::string("<missing fixture ") + rel + ">";
}
// Set PLUMB_UPDATE_GOLDEN=1 to rewrite golden files instead of comparing.
inline bool update_golden() {
  const char* v = std::getenv("PLUMB_UPDATE_GOLDEN");  // NOLINT(concurrency-mt-unsafe)
  return v != nullptr && std::string(v) == "1";
}

#ifdef PLUMB_BINARY
inline RunOutput run_plumb(const std::vector<std::string>& args, std::map<std::string, std::string> env = {}) {
  std::vector<std::string> argv{PLUMB_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions o;
  o.timeout = std::chrono::milliseconds(120000);
  env.emplace("LANG", "C");
  env.emplace("LC_ALL", "");
  env.emplace("NO_COLOR", "1");
  env.emplace("COLUMNS", "");  // unwrapped, whatever the shell that runs the tests exports
  // Live runs record into the history database: keep the tests' runs out of the user's own.
  env.emplace("PLUMB_DB", "/tmp/plumb-e2e-history-" + std::to_string(::getpid()) + ".db");
  o.extra_env = env;
  auto r = run_program(argv, o);
  if (!r) {
    RunOutput bad;
    bad.err = r.error().describe();
    return bad;
  }
  return *r;
}
#endif

}  // namespace plumb::test
