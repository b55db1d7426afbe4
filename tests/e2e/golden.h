// Golden reports of `plumb check --root tests/fixtures/hosts/<case>`: the run, what is taken out of a
// report before it is compared (the parts that change from run to run), and compare-or-rewrite.
// PLUMB_UPDATE_GOLDEN=1 rewrites tests/e2e/golden/<case>.<lang>.<md|json|html> (review the diff).
//
// Normalised, and nothing else:
// - Markdown and HTML: dates and ISO 8601 times (the title, "generated at"), this checkout's
//   absolute test directory (→ <tests>), plumb's version string (→ <version>).
// - JSON: tool.version and facts.meta.tool_version (→ "<version>"), facts.meta.started_at
//   (→ "<time>"), every "duration_ms" (→ 0: the run and each collector), and this checkout's test
//   directory inside any string (→ <tests>: facts.meta.root, --kmsg paths, evidence sources).
//   The host name is not normalised: with --root it is read from the tree's proc/sys/kernel/hostname
//   or etc/hostname, so a report showing this machine's name is a bug the golden must catch.
// The NVML library is named explicitly (a path inside the fixture tree where no library exists), so
// a machine with an NVIDIA driver writes the same report as one without.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "core/json.h"
#include "core/version.h"
#include "../test_util.h"

namespace plumb::golden {

// The fixture hosts that have golden reports.
inline const std::vector<std::string>& cases() {
  static const std::vector<std::string> c{"healthy", "nvme-misconfigured", "docker-v1", "oom-xid"};
  return c;
}

// The kernel log of a case, when its tree comes with one: `--kmsg` makes the run independent of /dev/kmsg.
inline std::vector<std::string> kmsg_args(const std::string& name) {
  for (const std::string& p : {test::fixture("kmsg/" + name + "-dmesg.log"), test::host_fixture(name + "/kmsg.log")}) {
    if (std::filesystem::is_regular_file(p)) return {"--kmsg", p};
  }
  return {};
}

// `plumb check` on a fixture host, with every input that could come from this machine pinned.
inline std::vector<std::string> check_args(const std::string& name, const std::vector<std::string>& extra) {
  std::vector<std::string> a{"check", "--root", test::host_fixture(name), "--nvml-lib",
                             test::host_fixture(name) + "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"};
  auto k = kmsg_args(name);
  a.insert(a.end(), k.begin(), k.end());
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

inline void replace_all(std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
}

// Markdown and HTML reports.
inline std::string normalise_text(std::string text) {
  text = std::regex_replace(text, std::regex(R"(\d{4}-\d{2}-\d{2}(T[0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?)"), "YYYY-MM-DD");
  replace_all(text, test::test_dir(), "<tests>");
  replace_all(text, std::string("plumb ") + plumb_version(), "plumb <version>");
  return text;
}

namespace detail {
inline void normalise_strings(json& j) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    replace_all(s, test::test_dir(), "<tests>");
    j = s;
  } else if (j.is_structured()) {
    for (auto& [key, v] : j.items()) {
      if (key == "duration_ms" && v.is_number()) {
        v = 0;
      } else {
        normalise_strings(v);
      }
    }
  }
}
}  // namespace detail

// JSON reports: parsed, the volatile fields replaced, dumped again with two-space indent.
// Text that is not JSON is returned as it is, so the comparison fails and shows it.
inline std::string normalise_json(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return text;
  if (j.contains("tool") && j["tool"].is_object() && j["tool"].contains("version")) j["tool"]["version"] = "<version>";
  if (j.contains("facts") && j["facts"].is_object() && j["facts"].contains("meta") && j["facts"]["meta"].is_object()) {
    json& meta = j["facts"]["meta"];
    if (meta.contains("tool_version")) meta["tool_version"] = "<version>";
    if (meta.contains("started_at")) meta["started_at"] = "<time>";
  }
  detail::normalise_strings(j);
  return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

inline std::string path(const std::string& name, const std::string& lang, const std::string& ext) {
  return test::test_dir() + "/e2e/golden/" + name + "." + lang + "." + ext;
}

// Compares `got` with the golden file, or rewrites the file under PLUMB_UPDATE_GOLDEN=1.
// A missing golden is a failure, never a pass.
inline void expect_matches(const std::string& file, const std::string& got) {
  if (test::update_golden()) {
    std::filesystem::create_directories(std::filesystem::path(file).parent_path());
    std::ofstream(file, std::ios::binary) << got;
    return;
  }
  auto want = read_user_file(file);
  ASSERT_TRUE(want.ok()) << "missing golden " << file << ": run PLUMB_UPDATE_GOLDEN=1 ctest --test-dir build/debug -R Golden";
  EXPECT_EQ(got, *want) << "golden differs: " << file << " (PLUMB_UPDATE_GOLDEN=1 rewrites it; review the diff)";
}

}  // namespace plumb::golden
