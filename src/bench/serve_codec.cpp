// KServe OIP v2, OpenAI-compatible streaming and Triton statistics: bodies and reply readers.
// Field names follow the KServe "Open Inference Protocol (V2)" REST spec, OpenAI's API reference
// (completions / chat completions, stream chunks) and Triton's statistics extension
// (docs/protocol/extension_statistics.md).
#include "bench/serve_codec.h"

#include <cctype>
#include <algorithm>
#include <cmath>

#include "core/json.h"
#include "core/text.h"

namespace plumb::serving {

namespace {

constexpr std::uint64_t kMaxElements = 16ULL * 1024 * 1024;

std::string path_escape(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string o;
  for (unsigned char c : s) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      o.push_back(static_cast<char>(c));
    } else {
      o.push_back('%');
      o.push_back(hex[c >> 4]);
      o.push_back(hex[c & 15]);
    }
  }
  return o;
}

std::uint64_t u64(const json& j, const char* a, const char* b) {
  if (!j.is_object() || !j.contains(a) || !j[a].is_object() || !j[a].contains(b)) return 0;
  const json& v = j[a][b];
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) return static_cast<std::uint64_t>(std::max<std::int64_t>(0, v.get<std::int64_t>()));
  // Triton's JSON writer emits 64-bit counters as numbers; some proxies stringify them.
  if (v.is_string()) return parse_uint(v.get<std::string>()).value_or(0);
  return 0;
}

}  // namespace

Result<std::vector<std::int64_t>> parse_shape(std::string_view text) {
  std::vector<std::int64_t> shape;
  std::string t(text);
  for (char& c : t) {
    if (c == 'x' || c == 'X') c = ',';
  }
  std::uint64_t elements = 1;
  for (auto part : split(t, ',')) {
    auto v = parse_uint(part);
    if (!v || *v == 0 || *v > kMaxElements) return make_error(ErrorKind::invalid, "--shape " + std::string(text) + ": expected positive dimensions such as 1,3,224,224");
    elements *= *v;
    if (elements > kMaxElements) return make_error(ErrorKind::invalid, "--shape " + std::string(text) + ": more than 16M elements");
    shape.push_back(static_cast<std::int64_t>(*v));
  }
  if (shape.empty() || shape.size() > 16) return make_error(ErrorKind::invalid, "--shape " + std::string(text) + ": expected 1 to 16 dimensions");
  return shape;
}

bool known_oip_datatype(const std::string& dt) {
  static const char* k[] = {"BOOL", "UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32", "INT64", "FP16", "FP32", "FP64", "BYTES"};
  for (const char* x : k) {
    if (dt == x) return true;
  }
  return false;
}

Result<std::string> oip_infer_body(const OipInput& in) {
  if (!known_oip_datatype(in.datatype)) {
    return make_error(ErrorKind::invalid, "--datatype " + in.datatype + ": expected one of BOOL, UINT8..UINT64, INT8..INT64, FP16, FP32, FP64, BYTES");
  }
  std::uint64_t n = 1;
  for (auto d : in.shape) {
    if (d < 1) return make_error(ErrorKind::invalid, "--shape: dimensions must be at least 1");
    n *= static_cast<std::uint64_t>(d);
    if (n > kMaxElements) return make_error(ErrorKind::invalid, "--shape: more than 16M elements");
  }
  // Written by hand, not through json, so a 1×3×224×224 tensor costs one pass of appends.
  std::string b = "{\"inputs\":[{\"name\":" + json(in.name).dump() + ",\"shape\":[";
  for (std::size_t i = 0; i < in.shape.size(); ++i) b += (i ? "," : "") + std::to_string(in.shape[i]);
  b += "],\"datatype\":\"" + in.datatype + "\",\"data\":[";
  bool fp = in.datatype.rfind("FP", 0) == 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (i) b.push_back(',');
    if (in.datatype == "BOOL") b += (i % 2 == 0 ? "true" : "false");
    else if (in.datatype == "BYTES") b += "\"plumb\"";
    else if (fp) b += fmt_num(static_cast<double>(i % 256) / 256.0, 4);
    else b += std::to_string(i % 100);
  }
  b += "]}]}";
  return b;
}

std::string oip_infer_path(const std::string& model) { return "/v2/models/" + path_escape(model) + "/infer"; }
std::string oip_stats_path(const std::string& model) { return "/v2/models/" + path_escape(model) + "/stats"; }

Result<std::size_t> check_oip_reply(std::string_view body) {
  json j = parse_outside_json(body).value_or(json());
  if (!j.is_object()) return make_error(ErrorKind::invalid, "OIP reply is not a JSON object");
  if (j.contains("error") && j["error"].is_string()) return make_error(ErrorKind::invalid, "server error: " + j["error"].get<std::string>().substr(0, 200));
  if (!j.contains("outputs") || !j["outputs"].is_array()) return make_error(ErrorKind::invalid, "OIP reply without an \"outputs\" array");
  for (const auto& o : j["outputs"]) {
    if (!o.is_object() || !o.contains("name") || !o.contains("shape") || !o["shape"].is_array()) {
      return make_error(ErrorKind::invalid, "OIP output without name or shape");
    }
  }
  return j["outputs"].size();
}

std::string openai_path(OpenAiApi api) { return api == OpenAiApi::chat ? "/v1/chat/completions" : "/v1/completions"; }

std::string openai_body(const OpenAiRequest& r) {
  json j;
  j["model"] = r.model;
  if (r.api == OpenAiApi::chat) j["messages"] = json::array({{{"role", "user"}, {"content", r.prompt}}});
  else j["prompt"] = r.prompt;
  j["max_tokens"] = r.max_tokens;
  j["stream"] = r.stream;
  // Ask for the token count in the last chunk (OpenAI and vLLM honour it; others ignore it).
  if (r.stream) j["stream_options"] = {{"include_usage", true}};
  return j.dump();
}

Result<StreamChunk> parse_openai_chunk(std::string_view data) {
  StreamChunk c;
  std::string_view d = data;
  while (!d.empty() && (d.front() == ' ' || d.front() == '\t')) d.remove_prefix(1);
  while (!d.empty() && (d.back() == ' ' || d.back() == '\t')) d.remove_suffix(1);
  if (d == "[DONE]") {
    c.done = true;
    return c;
  }
  json j = parse_outside_json(d).value_or(json());
  if (!j.is_object()) return make_error(ErrorKind::invalid, "stream chunk is not JSON");
  if (j.contains("error")) {
    const json& e = j["error"];
    std::string m = e.is_object() && e.contains("message") && e["message"].is_string() ? e["message"].get<std::string>() : e.dump();
    return make_error(ErrorKind::invalid, "server error in the stream: " + m.substr(0, 200));
  }
  if (j.contains("choices") && j["choices"].is_array() && !j["choices"].empty() && j["choices"][0].is_object()) {
    const json& ch = j["choices"][0];
    if (ch.contains("text") && ch["text"].is_string()) c.text = ch["text"].get<std::string>();
    if (ch.contains("delta") && ch["delta"].is_object() && ch["delta"].contains("content") && ch["delta"]["content"].is_string()) {
      c.text = ch["delta"]["content"].get<std::string>();
    }
  }
  if (j.contains("usage") && j["usage"].is_object() && j["usage"].contains("completion_tokens") && j["usage"]["completion_tokens"].is_number_integer()) {
    c.usage_completion_tokens = j["usage"]["completion_tokens"].get<std::int64_t>();
  }
  return c;
}

Result<std::optional<std::int64_t>> parse_openai_reply(std::string_view body) {
  json j = parse_outside_json(body).value_or(json());
  if (!j.is_object()) return make_error(ErrorKind::invalid, "reply is not a JSON object");
  if (j.contains("error")) return make_error(ErrorKind::invalid, "server error: " + j["error"].dump().substr(0, 200));
  if (!j.contains("choices") || !j["choices"].is_array()) return make_error(ErrorKind::invalid, "reply without \"choices\"");
  std::optional<std::int64_t> tokens;
  if (j.contains("usage") && j["usage"].is_object() && j["usage"].contains("completion_tokens") && j["usage"]["completion_tokens"].is_number_integer()) {
    tokens = j["usage"]["completion_tokens"].get<std::int64_t>();
  }
  return tokens;
}

Result<TritonStats> parse_triton_stats(std::string_view body) {
  json j = parse_outside_json(body).value_or(json());
  if (!j.is_object()) return make_error(ErrorKind::invalid, "Triton statistics: not a JSON object");
  if (!j.contains("model_stats") || !j["model_stats"].is_array() || j["model_stats"].empty() || !j["model_stats"][0].is_object()) {
    return make_error(ErrorKind::invalid, "Triton statistics: no \"model_stats\" entry");
  }
  const json& m = j["model_stats"][0];
  if (!m.contains("inference_stats") || !m["inference_stats"].is_object()) return make_error(ErrorKind::invalid, "Triton statistics: no \"inference_stats\"");
  const json& s = m["inference_stats"];
  TritonStats t;
  t.success_count = u64(s, "success", "count");
  t.success_ns = u64(s, "success", "ns");
  t.queue_count = u64(s, "queue", "count");
  t.queue_ns = u64(s, "queue", "ns");
  t.compute_input_ns = u64(s, "compute_input", "ns");
  t.compute_infer_ns = u64(s, "compute_infer", "ns");
  t.compute_output_ns = u64(s, "compute_output", "ns");
  auto top = [&](const char* k) -> std::uint64_t {
    if (!m.contains(k)) return 0;
    if (m[k].is_number_unsigned()) return m[k].get<std::uint64_t>();
    if (m[k].is_number_integer()) return static_cast<std::uint64_t>(std::max<std::int64_t>(0, m[k].get<std::int64_t>()));
    if (m[k].is_string()) return parse_uint(m[k].get<std::string>()).value_or(0);
    return 0;
  };
  t.inference_count = top("inference_count");
  t.execution_count = top("execution_count");
  return t;
}

std::optional<TritonSplit> triton_split(const TritonStats& b, const TritonStats& a) {
  if (a.success_count <= b.success_count || a.success_ns < b.success_ns) return std::nullopt;
  TritonSplit s;
  s.requests = a.success_count - b.success_count;
  auto d = [](std::uint64_t x, std::uint64_t y) { return y >= x ? static_cast<double>(y - x) : 0.0; };
  double n = static_cast<double>(s.requests);
  s.queue_ms = d(b.queue_ns, a.queue_ns) / n / 1e6;
  s.compute_ms = (d(b.compute_input_ns, a.compute_input_ns) + d(b.compute_infer_ns, a.compute_infer_ns) +
                  d(b.compute_output_ns, a.compute_output_ns)) / n / 1e6;
  s.total_ms = d(b.success_ns, a.success_ns) / n / 1e6;
  double ex = d(b.execution_count, a.execution_count);
  s.batch_mean = ex > 0 ? d(b.inference_count, a.inference_count) / ex : 0;
  return s;
}

}  // namespace plumb::serving
