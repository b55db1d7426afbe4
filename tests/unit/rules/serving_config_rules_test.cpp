// Serving lint: the config.pbtxt parser on the model repository fixture (written after Triton's
// model configuration guide and the onnxruntime_backend README), the pools of a server against the
// CPUs granted (l3.serving.thread_demand) and each model's configuration (l3.serving.triton_config).
#include <gtest/gtest.h>

#include "collect/triton_config.h"
#include "core/registry.h"
#include "core/thresholds.h"
#include "../../test_util.h"

namespace plumb {
namespace {

std::vector<Finding> judge_serving_config(const std::string& id, const Facts& f) {
  Selection sel;
  sel.only = {id};
  return judge(f, Thresholds(), sel);
}

std::map<std::string, TritonModel> repo() {
  auto models = read_model_repository(test::fixture("serving/model_repo"));
  EXPECT_TRUE(models) << models.error().message;
  std::map<std::string, TritonModel> by;
  if (models) {
    for (auto& m : *models) by[m.name] = m;
  }
  return by;
}

TEST(TritonConfig, ReadsInstanceGroupsBatchingParametersGraphLevelAndAccelerators) {
  auto by = repo();
  ASSERT_EQ(by.size(), 5u);
  const auto& r = by["resnet_ort"];
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.platform, "onnxruntime_onnx");
  EXPECT_EQ(r.instances, 2);
  EXPECT_EQ(r.instance_groups, std::vector<std::string>{"2 x KIND_CPU"});
  EXPECT_TRUE(r.dynamic_batching);
  EXPECT_EQ(r.max_queue_delay_us, "100");
  EXPECT_EQ(r.max_batch_size, 8);
  EXPECT_EQ(r.parameters.at("execution_mode"), "0");
  const auto& d = by["densenet_opt_off"];
  EXPECT_TRUE(d.has_graph_level);
  EXPECT_EQ(d.graph_level, 2);
  EXPECT_EQ(d.parameters.at("intra_op_thread_count"), "2");
  EXPECT_EQ(d.accelerators.at("gpu:tensorrt"), "precision_mode=FP16, max_workspace_size_bytes=1073741824");
  const auto& t = by["bert_torch"];
  EXPECT_EQ(t.instance_groups, std::vector<std::string>{"1 x KIND_CPU"});  // `< ... >` message delimiters
  EXPECT_EQ(t.parameters.at("INTRA_OP_THREAD_COUNT"), "4");
  EXPECT_NE(by["broken"].error.find("expected ',' or ']' in the list of instance_group"), std::string::npos) << by["broken"].error;
  EXPECT_NE(by["no_config"].error.find("no config.pbtxt"), std::string::npos);
}

TEST(TritonConfig, BoundsDepthSizeAndFieldCount) {
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += "a {";
  auto r = parse_pbtxt(deep);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("nesting"), std::string::npos);
  PbLimits few;
  few.max_fields = 3;
  EXPECT_FALSE(parse_pbtxt("a: 1 b: 2 c: 3 d: 4", few));
  EXPECT_FALSE(parse_pbtxt("name: \"unterminated"));
  EXPECT_TRUE(parse_pbtxt("# only a comment\n"));
  auto s = parse_pbtxt("name: \"a\" 'b' # comment\n list: [1, 2, 3]");
  ASSERT_TRUE(s);
  EXPECT_EQ((*s)[0].value, "ab");
  EXPECT_EQ(s->size(), 4u);
}

Facts server(std::vector<TritonModel> models, double cgroup_cpus, int cores) {
  Facts f;
  f.serving_config.collected = true;
  f.serving_config.cmdline = Fact<std::vector<std::string>>::of({"tritonserver", "--model-repository=/models"}, "/proc/42/cmdline");
  f.serving_config.triton_models = Fact<std::vector<TritonModel>>::of(std::move(models), "/models");
  f.host.cpu.physical_cores = Fact<int>::of(cores, "/proc/cpuinfo");
  f.host.cpu.logical_cpus = Fact<int>::of(cores * 2, "/sys/devices/system/cpu/online");
  f.host.cgroup.effective_cpus = Fact<double>::of(cgroup_cpus, "/sys/fs/cgroup/cpu.max");
  f.host.cgroup.cpu_quota_cpus = Fact<double>::of(cgroup_cpus, "/sys/fs/cgroup/cpu.max");
  f.host.process.environ = Fact<std::map<std::string, std::string>>::of({}, "/proc/42/environ");
  return f;
}

TEST(ServingThreadDemand, DefaultOrtPoolsOfTwoInstancesOverAFourCpuQuotaFail) {
  auto by = repo();
  Facts f = server({by["resnet_ort"]}, 4.0, 32);
  auto v = judge_serving_config("l3.serving.thread_demand", f);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, Status::fail);
  EXPECT_EQ(v[0].variant, "over_quota");
  EXPECT_EQ(v[0].args.at("threads"), "64");  // 2 instances x 32 physical cores
  EXPECT_EQ(v[0].args.at("cpus"), "4");
}

TEST(ServingThreadDemand, ExplicitPoolsWithinTheGrantPassAndNothingToCountSkips) {
  auto by = repo();
  TritonModel m = by["resnet_ort"];
  m.parameters["intra_op_thread_count"] = "2";
  Facts f = server({m}, 4.0, 32);
  auto v = judge_serving_config("l3.serving.thread_demand", f);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].status, Status::pass);
  EXPECT_EQ(v[0].args.at("threads"), "4");
  // The command line of a server without a model repository: ONNX Runtime options counted once.
  Facts g = server({}, 2.0, 16);
  g.serving_config.triton_models = Fact<std::vector<TritonModel>>::none("no --model-repo given");
  g.serving_config.cmdline = Fact<std::vector<std::string>>::of({"python3", "serve.py", "--intra-op-num-threads", "8"}, "/proc/7/cmdline");
  g.host.process.environ = Fact<std::map<std::string, std::string>>::of({{"OMP_NUM_THREADS", "4"}}, "/proc/7/environ");
  auto w = judge_serving_config("l3.serving.thread_demand", g);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].status, Status::fail);
  EXPECT_EQ(w[0].args.at("threads"), "12");
  g.serving_config.cmdline = Fact<std::vector<std::string>>::of({"nginx"}, "/proc/7/cmdline");
  EXPECT_TRUE(judge_serving_config("l3.serving.thread_demand", g).empty());  // not a model server: nothing to say
  g.serving_config.triton_models = Fact<std::vector<TritonModel>>::of({}, "/models");
  auto s = judge_serving_config("l3.serving.thread_demand", g);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].status, Status::skip);
}

TEST(TritonConfigRule, GraphLevelTwoFailsDefaultThreadsWarnAndParseErrorsWarn) {
  auto by = repo();
  std::vector<TritonModel> all;
  for (auto& [k, m] : by) all.push_back(m);
  Facts f = server(all, 4.0, 32);
  std::map<std::string, Finding> got;
  for (auto& x : judge_serving_config("l3.serving.triton_config", f)) got[x.subject] = x;
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got["densenet_opt_off"].status, Status::fail);
  EXPECT_EQ(got["densenet_opt_off"].variant, "opt_off");
  EXPECT_EQ(got["resnet_ort"].status, Status::warn);
  EXPECT_EQ(got["resnet_ort"].variant, "default_threads");
  EXPECT_EQ(got["bert_torch"].variant, "no_batching");  // max_batch_size 16 without dynamic_batching
  EXPECT_EQ(got["broken"].variant, "unreadable");
  EXPECT_EQ(got["no_config"].status, Status::info);
  // Same repository on a host whose 2 physical cores fit the grant: the default pools are fine.
  Facts small = server(all, 8.0, 2);
  for (auto& x : judge_serving_config("l3.serving.triton_config", small)) {
    if (x.subject == "resnet_ort") {
      EXPECT_EQ(x.status, Status::pass);
    }
  }
  Facts none;
  none.serving_config.collected = true;
  none.serving_config.triton_models = Fact<std::vector<TritonModel>>::none("no --model-repo given");
  EXPECT_TRUE(judge_serving_config("l3.serving.triton_config", none).empty());
  none.serving_config.triton_models = Fact<std::vector<TritonModel>>::none("absent: /models: not a directory", "/models");
  auto s = judge_serving_config("l3.serving.triton_config", none);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].status, Status::skip);
}

}  // namespace
}  // namespace plumb
