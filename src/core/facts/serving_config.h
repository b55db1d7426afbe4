// Facts of a model server's configuration: the target process's command line (ONNX Runtime and
// Triton thread options) and the Triton model repository's config.pbtxt files (--model-repo).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/fact.h"
#include "core/json_fwd.h"

namespace plumb {

// One model of a Triton model repository, as its config.pbtxt states it.
struct TritonModel {
  std::string name;                      // the model's directory name
  std::string config;                    // path of its config.pbtxt
  std::string error;                     // why it could not be read or parsed; empty when parsed
  std::string platform;                  // "onnxruntime_onnx", "tensorrt_plan", "pytorch_libtorch", ...
  std::string backend;                   // "onnxruntime", "tensorrt", "python", ...
  long long max_batch_size = 0;
  long long instances = 0;               // instances in all instance_groups (a group without count: 1)
  std::vector<std::string> instance_groups;  // "2 x KIND_CPU", one per group; empty: Triton's default group
  bool dynamic_batching = false;
  std::string max_queue_delay_us;        // dynamic_batching.max_queue_delay_microseconds as written
  bool has_graph_level = false;
  long long graph_level = 0;             // optimization { graph { level } }: -1 basic, 1 extended, 2 all off
  std::map<std::string, std::string> parameters;    // parameters { key value { string_value } }
  std::map<std::string, std::string> accelerators;  // "gpu:tensorrt" -> "precision_mode=FP16, max_workspace_size_bytes=..."
  bool operator==(const TritonModel&) const = default;
};
PLUMB_JSON(TritonModel, name, config, error, platform, backend, max_batch_size, instances, instance_groups,
           dynamic_batching, max_queue_delay_us, has_graph_level, graph_level, parameters, accelerators)

struct ServingConfigFacts {
  bool collected = false;
  Fact<std::vector<std::string>> cmdline;            // /proc/<pid>/cmdline of the target
  Fact<std::vector<TritonModel>> triton_models;      // missing: no --model-repo given, or unreadable
  bool operator==(const ServingConfigFacts&) const = default;
};
PLUMB_JSON(ServingConfigFacts, collected, cmdline, triton_models)

}  // namespace plumb
