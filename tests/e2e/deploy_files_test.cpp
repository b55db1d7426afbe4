// The files under deploy/ are checked against the real tools and the real binary: the Prometheus
// alert rules with promtool (syntax and unit tests) and against the metrics plumb exposes, the
// node-problem-detector plugin config against NPD's own validation rules and by running every
// command in it, the exporter and agent DaemonSets' and the agent's systemd unit's command lines
// against the binary (and the unit against `systemd-analyze verify`).
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>
#include <map>
#include <set>

#include "core/i18n.h"
#include "core/json.h"
#include "golden.h"
#include "watch_spawn.h"
#include "../scratch_root.h"
#include "../test_util.h"

namespace plumb {
namespace {

namespace fs = std::filesystem;
using test::run_plumb;

std::string deploy(const std::string& rel) { return test::test_dir() + "/../deploy/" + rel; }

std::string read_deploy(const std::string& rel) {
  auto r = read_user_file(deploy(rel));
  return r ? *r : std::string();
}

TEST(DeployAlerts, PromtoolAcceptsTheRules) {
  std::string tool = test::promtool();
  if (tool.empty()) GTEST_SKIP() << "promtool not installed (Debian package: prometheus)";
  auto r = run_program({tool, "check", "rules", deploy("prometheus/plumb-alerts.yml")});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
  EXPECT_NE(r->out.find("SUCCESS"), std::string::npos) << r->out;
}

TEST(DeployAlerts, PromtoolUnitTestsOfTheRulesPass) {
  std::string tool = test::promtool();
  if (tool.empty()) GTEST_SKIP() << "promtool not installed (Debian package: prometheus)";
  auto r = run_program({tool, "test", "rules", deploy("prometheus/plumb-alerts.test.yml")});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
}

// Every plumb_* name in the rules is a metric plumb writes: each exposed metric has its HELP row
// (prom.help.<name>), and the exposition takes the HELP text from that row.
TEST(DeployAlerts, EveryMetricNamedIsOnePlumbExposes) {
  std::string text = read_deploy("prometheus/plumb-alerts.yml");
  ASSERT_FALSE(text.empty());
  std::regex name(R"(\bplumb_[a-z0-9_]+)");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator(); ++it) names.insert(it->str());
  ASSERT_GE(names.size(), 5u);
  const auto& ui = ui_strings();
  for (const auto& n : names) EXPECT_TRUE(ui.count("prom.help." + n) == 1) << n << " is not a metric plumb exposes";
  // And the check metrics really come out of `plumb check --format prom`.
  auto r = run_plumb(golden::check_args("nvme-misconfigured", {"--format", "prom"}));
  ASSERT_EQ(r.exit_code, 1) << r.err;
  for (const char* m : {"plumb_finding_status{", "plumb_check_timestamp_seconds ", "plumb_collector_success{"}) {
    EXPECT_NE(r.out.find(m), std::string::npos) << m;
  }
}

// Go's time.ParseDuration for the forms the config uses ("90s", "10m", "1h"), in seconds.
std::optional<double> go_duration(const std::string& s) {
  std::smatch m;
  if (!std::regex_match(s, m, std::regex(R"(([0-9]+)(ms|s|m|h))"))) return std::nullopt;
  double v = std::stod(m[1].str());
  const std::string u = m[2].str();
  return u == "ms" ? v / 1000 : u == "s" ? v : u == "m" ? v * 60 : v * 3600;
}

// What NPD's CustomPluginConfig.Validate() and ApplyConfiguration() require
// (pkg/custompluginmonitor/types/config.go), plus plumb's own: the budget ends plumb first.
TEST(DeployNpd, PluginConfigFollowsNodeProblemDetectorRules) {
  json j = json::parse(read_deploy("npd/plumb-plugin.json"), nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.value("plugin", ""), "custom");
  ASSERT_TRUE(j.contains("pluginConfig"));
  const auto& pc = j["pluginConfig"];
  auto interval = go_duration(pc.value("invoke_interval", ""));
  auto global_timeout = go_duration(pc.value("timeout", ""));
  ASSERT_TRUE(interval && global_timeout);
  EXPECT_LE(*global_timeout, *interval);
  EXPECT_EQ(pc.value("max_output_length", 0), 80);
  EXPECT_FALSE(j.value("source", "").empty());
  std::set<std::string> conditions;
  for (const auto& c : j["conditions"]) {
    EXPECT_FALSE(c.value("reason", "").empty());
    EXPECT_FALSE(c.value("message", "").empty());
    conditions.insert(c.value("type", ""));
  }
  ASSERT_FALSE(j["rules"].empty());
  for (const auto& rule : j["rules"]) {
    std::string type = rule.value("type", "");
    EXPECT_TRUE(type == "permanent" || type == "temporary") << type;
    if (type == "permanent") {
      EXPECT_EQ(conditions.count(rule.value("condition", "")), 1u) << rule.dump();
    }
    EXPECT_FALSE(rule.value("reason", "").empty());
    EXPECT_EQ(rule.value("path", "").front(), '/') << "NPD runs the path as given: it must be absolute";
    auto timeout = go_duration(rule.value("timeout", ""));
    ASSERT_TRUE(timeout) << rule.dump();
    EXPECT_LE(*timeout, *global_timeout) << rule.dump();
    auto args = rule["args"].get<std::vector<std::string>>();
    auto b = std::find(args.begin(), args.end(), "--budget");
    ASSERT_NE(b, args.end()) << "each rule bounds plumb below its timeout";
    ASSERT_NE(b + 1, args.end());
    EXPECT_LT(std::stod(*(b + 1)), *timeout);
  }
}

// Runs every rule's command line with the real binary on fixture hosts (the node's / mounted at
// /host becomes a fixture tree): one line of at most 80 bytes, exit 0, 1 or 2.
TEST(DeployNpd, EveryRuleIsARealPlumbCommandLine) {
  json j = json::parse(read_deploy("npd/plumb-plugin.json"), nullptr, false);
  ASSERT_TRUE(j.is_object());
  std::map<std::string, int> worst;  // host case -> highest exit code over the rules
  for (const std::string host : {"healthy", "nvme-misconfigured"}) {
    for (const auto& rule : j["rules"]) {
      auto args = rule["args"].get<std::vector<std::string>>();
      for (auto& a : args) {
        if (a == "/host") a = test::host_fixture(host);
      }
      auto pinned = golden::check_args(host, {});  // --nvml-lib and --kmsg of the fixture
      args.insert(args.end(), pinned.begin() + 3, pinned.end());
      auto r = run_plumb(args);
      SCOPED_TRACE(host + ": " + rule.dump());
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 2) << r.exit_code << r.err;
      EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
      EXPECT_LE(r.out.size(), 81u) << r.out;
      EXPECT_EQ(r.err, "");
      worst[host] = std::max(worst[host], r.exit_code == 1 ? 3 : r.exit_code);
    }
  }
  EXPECT_LE(worst["healthy"], 2) << "a healthy host has no problem in any layer";
  EXPECT_EQ(worst["nvme-misconfigured"], 3) << "a misconfigured host has a problem in some layer";
}

// The DaemonSet: valid YAML of a DaemonSet, read-only host mounts, and a container command line
// that `plumb exporter` accepts (each option is one it lists).
TEST(DeployKubernetes, ExporterDaemonSetIsReadOnlyAndItsOptionsExist) {
  std::string path = deploy("kubernetes/plumb-exporter-daemonset.yaml");
  auto py = run_program({"/usr/bin/python3", "-c",
                         "import json,sys,yaml\n"
                         "d=yaml.safe_load(open(sys.argv[1]))\n"
                         "print(json.dumps(d))\n",
                         path});
  if (!py || py->exit_code != 0) GTEST_SKIP() << "python3 with PyYAML not available (Debian package: python3-yaml)";
  json d = json::parse(py->out, nullptr, false);
  ASSERT_TRUE(d.is_object());
  EXPECT_EQ(d.value("kind", ""), "DaemonSet");
  const auto& spec = d["spec"]["template"]["spec"];
  EXPECT_TRUE(spec.value("hostPID", false));
  const auto& c = spec["containers"][0];
  for (const auto& m : c["volumeMounts"]) EXPECT_TRUE(m.value("readOnly", false)) << m.dump();
  auto args = c["args"].get<std::vector<std::string>>();
  ASSERT_FALSE(args.empty());
  EXPECT_EQ(args.front(), "exporter");
  auto root = std::find(args.begin(), args.end(), "--root");
  ASSERT_NE(root, args.end());
  ASSERT_NE(root + 1, args.end());
  EXPECT_EQ(c["volumeMounts"][0].value("mountPath", ""), *(root + 1));
  auto help = run_plumb({"exporter", "--help"});
  for (const auto& a : args) {
    if (a.rfind("--", 0) == 0) {
      EXPECT_NE(help.out.find("  " + a + " "), std::string::npos) << a;
    }
  }
  // The listen address and port agree with the container port and the probes.
  auto listen = std::find(args.begin(), args.end(), "--listen");
  ASSERT_NE(listen, args.end());
  std::string port = std::to_string(c["ports"][0].value("containerPort", 0));
  EXPECT_EQ((listen + 1)->substr((listen + 1)->rfind(':') + 1), port);
  EXPECT_EQ(std::to_string(c["livenessProbe"]["httpGet"].value("port", 0)), port);
}


// Each --option of a command line is one `plumb CMD --help` lists.
void expect_options_exist(const std::vector<std::string>& args) {
  ASSERT_FALSE(args.empty());
  auto help = run_plumb({args.front(), "--help"});
  for (const auto& a : args) {
    if (a.rfind("--", 0) != 0) continue;
    EXPECT_TRUE(std::regex_search(help.out, std::regex("[ ,]" + a + "[ =\\n]"))) << a << " is not an option of plumb " << args.front();
  }
}

// The agent's DaemonSet: the node's / read-only at --root, the state directory the only writable
// mount and a hostPath (the history outlives the pod), the server on loopback with the probe on
// the same port.
TEST(DeployKubernetes, AgentDaemonSetKeepsItsStateOnTheNodeAndItsOptionsExist) {
  std::string path = deploy("kubernetes/plumb-agent-daemonset.yaml");
  auto py = run_program({"/usr/bin/python3", "-c", "import json,sys,yaml\nprint(json.dumps(yaml.safe_load(open(sys.argv[1]))))\n", path});
  if (!py || py->exit_code != 0) GTEST_SKIP() << "python3 with PyYAML not available (Debian package: python3-yaml)";
  json d = json::parse(py->out, nullptr, false);
  ASSERT_TRUE(d.is_object());
  EXPECT_EQ(d.value("kind", ""), "DaemonSet");
  const auto& spec = d["spec"]["template"]["spec"];
  const auto& c = spec["containers"][0];
  auto args = c["args"].get<std::vector<std::string>>();
  EXPECT_EQ(args.front(), "agent");
  expect_options_exist(args);
  auto value_of = [&](const std::string& opt) {
    auto it = std::find(args.begin(), args.end(), opt);
    return it == args.end() || it + 1 == args.end() ? std::string() : *(it + 1);
  };
  std::map<std::string, std::string> host_path;
  for (const auto& v : spec["volumes"]) host_path[v.value("name", "")] = v["hostPath"].value("path", "");
  for (const auto& m : c["volumeMounts"]) {
    const std::string at = m.value("mountPath", "");
    if (at == value_of("--root")) {
      EXPECT_TRUE(m.value("readOnly", false)) << m.dump();
      EXPECT_EQ(host_path[m.value("name", "")], "/");
    } else {
      EXPECT_EQ(at, value_of("--state-dir")) << "the only writable mount is the state directory: " << m.dump();
      EXPECT_EQ(host_path[m.value("name", "")], "/var/lib/plumb");
    }
  }
  const std::string listen = value_of("--listen");
  EXPECT_EQ(listen.rfind("127.0.0.1:", 0), 0U) << listen;
  EXPECT_EQ(listen.substr(listen.rfind(':') + 1), std::to_string(c["livenessProbe"]["httpGet"].value("port", 0)));
}

// The systemd unit: systemd's own verifier accepts it (with the unit's ExecStart pointed at the
// binary under test), its command line is one the agent accepts, and its state directory is the
// one the agent writes.
TEST(DeploySystemd, AgentUnitVerifiesAndItsCommandLineExists) {
  const std::string unit = read_deploy("systemd/plumb-agent.service");
  ASSERT_FALSE(unit.empty());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(unit, m, std::regex("\nExecStart=/usr/bin/plumb ([^\n]*)\n")));
  std::vector<std::string> args;
  std::istringstream words(m[1].str());
  for (std::string w; words >> w;) args.push_back(w);
  expect_options_exist(args);
  auto sd = std::find(args.begin(), args.end(), "--state-dir");
  ASSERT_NE(sd, args.end());
  EXPECT_NE(unit.find("\nReadWritePaths=" + *(sd + 1) + "\n"), std::string::npos);
  EXPECT_NE(unit.find("\nStateDirectory=plumb\n"), std::string::npos);
  if (!fs::exists("/usr/bin/systemd-analyze")) GTEST_SKIP() << "systemd-analyze not installed (Debian package: systemd)";
  test::ScratchRoot dir("deploy_systemd");
  std::string local = std::regex_replace(unit, std::regex("ExecStart=/usr/bin/plumb"), "ExecStart=" + std::string(PLUMB_BINARY));
  dir.write("plumb-agent.service", local);
  auto v = run_program({"/usr/bin/systemd-analyze", "verify", "--man=no", dir.path() + "/plumb-agent.service"});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->exit_code, 0) << v->out << v->err;
  EXPECT_EQ(v->err, "") << "systemd-analyze warned";
}

}  // namespace
}  // namespace plumb
