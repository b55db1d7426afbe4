// Triton model configuration files (config.pbtxt): a bounded parser for the subset of the protobuf
// text format they use (fields `name: value`, messages `name { ... }` or `name < ... >`, lists
// `[ ... ]`, strings, numbers, enums, # comments), and the facts plumb lints: platform/backend,
// instance groups, dynamic batching, ONNX Runtime parameters, graph optimisation level and
// execution accelerators. The checks are in rules/serving_config.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/context.h"
#include "core/facts/serving_config.h"
#include "core/result.h"

namespace plumb {

// One field of a text-format message: a scalar (`value`, strings unescaped) or a message.
struct PbField {
  std::string name;
  bool message = false;
  std::string value;
  std::vector<PbField> fields;
};

struct PbLimits {
  std::size_t max_bytes = 1u << 20;
  std::size_t max_depth = 32;
  std::size_t max_fields = 100000;
};

// Errors name the line: "config.pbtxt line 7: expected '}'".
Result<std::vector<PbField>> parse_pbtxt(std::string_view text, const PbLimits& limits = {});

// The facts of one model from its parsed configuration (name and path filled by the caller).
TritonModel triton_model_from(const std::vector<PbField>& top);

// Parses one config.pbtxt text; a parse error lands in TritonModel::error.
TritonModel parse_triton_config(std::string_view text, const std::string& name, const std::string& path);

// Every <repo>/<model>/config.pbtxt (at most 1024 models; a directory without one is listed with
// the error "no config.pbtxt (Triton's auto-complete decides)").
Result<std::vector<TritonModel>> read_model_repository(const std::string& repo);

// /proc/<pid>/cmdline (NUL-separated) -> arguments.
std::vector<std::string> parse_cmdline(std::string_view raw);

}  // namespace plumb
