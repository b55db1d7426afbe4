// Request bodies and reply readers of the serving protocols `plumb bench serve` speaks:
// KServe Open Inference Protocol v2 (`POST /v2/models/M/infer`, JSON), OpenAI-compatible
// completions and chat completions (streamed as Server-Sent Events), and Triton's
// `GET /v2/models/M/stats` (queue vs compute time). Pure functions; no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace plumb::serving {

// One OIP input tensor filled with deterministic values ("BOOL", "UINT8".."UINT64",
// "INT8".."INT64", "FP16", "FP32", "FP64", "BYTES"; the spec's names).
struct OipInput {
  std::string name = "input";
  std::vector<std::int64_t> shape;  // every dimension >= 1
  std::string datatype = "FP32";
};
Result<std::vector<std::int64_t>> parse_shape(std::string_view text);  // "1,3,224,224" or "1x3x224x224"
bool known_oip_datatype(const std::string& dt);
// {"inputs":[{"name":..,"shape":[..],"datatype":..,"data":[..]}]}; at most 16 M elements.
Result<std::string> oip_infer_body(const OipInput& in);
// "/v2/models/M/infer" and "/v2/models/M/stats" (model names are path-escaped).
std::string oip_infer_path(const std::string& model);
std::string oip_stats_path(const std::string& model);
// A reply of an infer call: {"model_name":..,"outputs":[{"name","shape","datatype","data"}]}.
// Error: what is wrong with it (the server's {"error": ...} message when there is one).
Result<std::size_t> check_oip_reply(std::string_view body);  // number of outputs

enum class OpenAiApi { completions, chat };
struct OpenAiRequest {
  OpenAiApi api = OpenAiApi::completions;
  std::string model;
  std::string prompt = "Say hello.";
  int max_tokens = 64;
  bool stream = true;
};
std::string openai_path(OpenAiApi api);  // /v1/completions or /v1/chat/completions
std::string openai_body(const OpenAiRequest& r);

// One `data:` payload of a streamed reply. `done` for "[DONE]"; `text` is the piece of output it
// carries (choices[0].text, or choices[0].delta.content for chat); `usage_completion_tokens`
// when the server reports usage (vLLM with stream_options.include_usage, the last chunk).
struct StreamChunk {
  bool done = false;
  std::string text;
  std::optional<std::int64_t> usage_completion_tokens;
};
Result<StreamChunk> parse_openai_chunk(std::string_view data);
// A non-streamed reply: completion tokens from "usage" (nullopt when it has none).
Result<std::optional<std::int64_t>> parse_openai_reply(std::string_view body);

// Triton's statistics extension: the cumulative counters of one model.
struct TritonStats {
  std::uint64_t success_count = 0, success_ns = 0;
  std::uint64_t queue_count = 0, queue_ns = 0;
  std::uint64_t compute_input_ns = 0, compute_infer_ns = 0, compute_output_ns = 0;
  std::uint64_t inference_count = 0, execution_count = 0;
};
// The first entry of "model_stats" (a version the run touched); Error when absent or malformed.
Result<TritonStats> parse_triton_stats(std::string_view body);
// Per-request means between two readings, in milliseconds; nullopt when nothing succeeded.
struct TritonSplit {
  std::uint64_t requests = 0;
  double queue_ms = 0, compute_ms = 0, total_ms = 0;
  double batch_mean = 0;  // inference_count / execution_count: requests per model execution
};
std::optional<TritonSplit> triton_split(const TritonStats& before, const TritonStats& after);

}  // namespace plumb::serving
