// The load generator's HTTP/1.1 response parser and SSE parser (framing, caps, split reads) and
// the serving codecs: KServe OIP v2 bodies and replies, OpenAI stream chunks, Triton statistics.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/http_client.h"
#include "bench/serve_codec.h"
#include "core/json.h"

namespace plumb {
namespace {

using httpc::ResponseParser;

// Feeds `wire` in pieces of `step` bytes (1 exercises every boundary).
ResponseParser parse_in_steps(const std::string& wire, std::size_t step, std::size_t* used_total = nullptr, httpc::Limits l = {}) {
  ResponseParser p(l);
  p.reset();
  std::size_t used = 0;
  for (std::size_t i = 0; i < wire.size() && !p.done() && p.state() != ResponseParser::State::error; i += step) {
    used += p.feed(std::string_view(wire).substr(i, std::min(step, wire.size() - i)));
  }
  if (used_total) *used_total = used;
  return p;
}

TEST(HttpResponseParser, ContentLengthAtEverySplit) {
  std::string wire = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\nhello world";
  for (std::size_t step : {1, 2, 7, 1000}) {
    std::size_t used = 0;
    auto p = parse_in_steps(wire + "HTTP/1.1", step, &used);
    ASSERT_TRUE(p.done()) << step << " " << p.error();
    EXPECT_EQ(p.status(), 200);
    EXPECT_EQ(p.body(), "hello world");
    EXPECT_TRUE(p.keep_alive());
    EXPECT_EQ(p.content_type(), "application/json");
    if (step == 1000) {
      EXPECT_EQ(used, wire.size());  // the next response's bytes are left alone
    }
  }
}

TEST(HttpResponseParser, ChunkedWithExtensionsAndTrailers) {
  std::string wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n";
  for (std::size_t step : {1, 3, 1000}) {
    std::string streamed;
    ResponseParser p;
    p.reset();
    p.on_body = [&](std::string_view s) { streamed.append(s); };
    for (std::size_t i = 0; i < wire.size() && !p.done(); i += step) p.feed(std::string_view(wire).substr(i, std::min(step, wire.size() - i)));
    ASSERT_TRUE(p.done()) << p.error();
    EXPECT_EQ(p.body(), "hello world");
    EXPECT_EQ(streamed, "hello world");
  }
}

TEST(HttpResponseParser, ReadUntilCloseAndHttp10) {
  auto p = parse_in_steps("HTTP/1.0 200 OK\r\n\r\nabc", 4);
  EXPECT_FALSE(p.done());
  p.on_eof();
  ASSERT_TRUE(p.done());
  EXPECT_EQ(p.body(), "abc");
  EXPECT_FALSE(p.keep_alive());
  auto q = parse_in_steps("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", 100);
  EXPECT_TRUE(q.done());
  EXPECT_FALSE(q.keep_alive());
  auto c = parse_in_steps("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", 5);
  ASSERT_TRUE(c.done());
  EXPECT_EQ(c.status(), 404);
}

TEST(HttpResponseParser, RefusesBrokenFramingAndOversizedParts) {
  auto bad = [](const std::string& wire, httpc::Limits l = {}) {
    auto p = parse_in_steps(wire, 1000, nullptr, l);
    p.on_eof();
    return p.state() == ResponseParser::State::error ? p.error() : std::string();
  };
  EXPECT_NE(bad("HTTP/2 200 OK\r\n\r\n"), "");
  EXPECT_NE(bad("HTTP/1.1 20 OK\r\n\r\n"), "");
  EXPECT_NE(bad("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"), "");
  EXPECT_NE(bad("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"), "");
  EXPECT_NE(bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"), "");
  EXPECT_NE(bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"), "");
  EXPECT_NE(bad("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"), "");  // closed inside the body
  httpc::Limits small;
  small.max_head_bytes = 64;
  small.max_headers = 2;
  small.max_body_bytes = 8;
  EXPECT_NE(bad("HTTP/1.1 200 OK\r\nX-Long: " + std::string(100, 'a') + "\r\n\r\n", small), "");
  EXPECT_NE(bad("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", small), "");
  EXPECT_NE(bad("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n123456789", small), "");
  EXPECT_NE(bad("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\n123456789\r\n0\r\n\r\n", small), "");
  EXPECT_EQ(bad("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n12345678", small), "");
}

TEST(HttpClient, UrlsHeadersAndRequests) {
  auto u = httpc::parse_url("http://127.0.0.1:8080/v2/models/x/infer?a=1");
  ASSERT_TRUE(u) << u.error().message;
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, 8080);
  EXPECT_EQ(u->target, "/v2/models/x/infer?a=1");
  auto v6 = httpc::parse_url("http://[::1]:9000");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->target, "/");
  EXPECT_EQ(v6->host_header(), "[::1]:9000");
  EXPECT_FALSE(httpc::parse_url("https://example.com/"));
  EXPECT_FALSE(httpc::parse_url("http://host:99999/"));
  EXPECT_FALSE(httpc::parse_url("http://host:/"));
  EXPECT_FALSE(httpc::parse_url("http:///x"));
  EXPECT_FALSE(httpc::parse_url("ftp://x/"));
  EXPECT_FALSE(httpc::parse_url("http://a b/"));
  EXPECT_TRUE(httpc::parse_header_arg("Authorization: Bearer x"));
  EXPECT_FALSE(httpc::parse_header_arg("Bad Name: x"));
  EXPECT_FALSE(httpc::parse_header_arg("X: a\r\nInjected: 1"));
  EXPECT_FALSE(httpc::parse_header_arg("Content-Length: 5"));
  std::string r = httpc::build_request("POST", *u, {{"X-A", "1"}}, "{}");
  EXPECT_EQ(r, "POST /v2/models/x/infer?a=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-A: 1\r\nUser-Agent: plumb-bench-serve\r\nContent-Length: 2\r\n\r\n{}");
}

TEST(SseParser, EventsAcrossSplitsAndLineEndings) {
  std::string stream = ": comment\r\ndata: {\"a\":1}\r\n\r\ndata:line1\ndata: line2\n\nevent: x\rdata: cr\r\r" "data: [DONE]\n\n";
  for (std::size_t step : {1, 5, 1000}) {
    httpc::SseParser p;
    std::vector<std::string> ev;
    p.on_event = [&](std::string_view d) { ev.emplace_back(d); };
    for (std::size_t i = 0; i < stream.size(); i += step) ASSERT_TRUE(p.feed(std::string_view(stream).substr(i, std::min(step, stream.size() - i))));
    ASSERT_EQ(ev.size(), 4U) << step;
    EXPECT_EQ(ev[0], "{\"a\":1}");
    EXPECT_EQ(ev[1], "line1\nline2");
    EXPECT_EQ(ev[2], "cr");
    EXPECT_EQ(ev[3], "[DONE]");
  }
  httpc::SseParser small(16);
  EXPECT_FALSE(small.feed("data: " + std::string(40, 'x')));
  EXPECT_NE(small.error(), "");
}

TEST(ServingCodec, OipBodyIsValidJsonWithTheShape) {
  serving::OipInput in;
  in.name = "x";
  auto shape = serving::parse_shape("1x3x2x2");
  ASSERT_TRUE(shape);
  in.shape = *shape;
  for (std::string dt : {"FP32", "INT64", "BOOL", "BYTES"}) {
    in.datatype = dt;
    auto b = serving::oip_infer_body(in);
    ASSERT_TRUE(b) << dt;
    json j = json::parse(*b);
    EXPECT_EQ(j["inputs"][0]["name"], "x");
    EXPECT_EQ(j["inputs"][0]["shape"], json::array({1, 3, 2, 2}));
    EXPECT_EQ(j["inputs"][0]["datatype"], dt);
    EXPECT_EQ(j["inputs"][0]["data"].size(), 12U);
  }
  in.datatype = "FP8";
  EXPECT_FALSE(serving::oip_infer_body(in));
  EXPECT_FALSE(serving::parse_shape("1,0,3"));
  EXPECT_FALSE(serving::parse_shape("100000,100000"));
  EXPECT_EQ(serving::oip_infer_path("res net/1"), "/v2/models/res%20net%2F1/infer");
  // A reply in the spec's shape; an error object; garbage.
  EXPECT_EQ(*serving::check_oip_reply(R"({"model_name":"m","outputs":[{"name":"y","shape":[1,2],"datatype":"FP32","data":[0.5,0.5]}]})"), 1U);
  auto err = serving::check_oip_reply(R"({"error":"unknown model 'm'"})");
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().message.find("unknown model"), std::string::npos);
  EXPECT_FALSE(serving::check_oip_reply("not json"));
}

TEST(ServingCodec, OpenAiBodiesAndStreamChunks) {
  serving::OpenAiRequest rq;
  rq.model = "m";
  rq.api = serving::OpenAiApi::chat;
  json j = json::parse(serving::openai_body(rq));
  EXPECT_EQ(j["messages"][0]["role"], "user");
  EXPECT_EQ(j["stream"], true);
  EXPECT_EQ(j["stream_options"]["include_usage"], true);
  EXPECT_EQ(serving::openai_path(rq.api), "/v1/chat/completions");
  // Chunks as vLLM's OpenAI server streams them (completions and chat), and the usage chunk.
  auto c1 = serving::parse_openai_chunk(R"({"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":" Hello","finish_reason":null}]})");
  ASSERT_TRUE(c1);
  EXPECT_EQ(c1->text, " Hello");
  auto c2 = serving::parse_openai_chunk(R"({"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]})");
  ASSERT_TRUE(c2);
  EXPECT_EQ(c2->text, "Hi");
  auto c3 = serving::parse_openai_chunk(R"({"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":17}})");
  ASSERT_TRUE(c3);
  EXPECT_EQ(c3->usage_completion_tokens.value_or(0), 17);
  EXPECT_TRUE(serving::parse_openai_chunk(" [DONE]")->done);
  EXPECT_FALSE(serving::parse_openai_chunk(R"({"error":{"message":"overloaded"}})"));
  EXPECT_FALSE(serving::parse_openai_chunk("{broken"));
  auto whole = serving::parse_openai_reply(R"({"choices":[{"text":"x"}],"usage":{"completion_tokens":3}})");
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->value_or(0), 3);
}

TEST(ServingCodec, AServersErrorNestedAMillionLevelsDeepIsRefusedNotPrinted) {
  // The error value is printed into the message: nested this deep it would overflow the stack.
  const std::string deep = R"({"error": )" + std::string(1000000, '[') + std::string(1000000, ']') + "}";
  EXPECT_FALSE(serving::parse_openai_reply(deep));
  EXPECT_FALSE(serving::parse_openai_chunk(deep));
  EXPECT_FALSE(serving::check_oip_reply(deep));
  EXPECT_FALSE(serving::parse_triton_stats(deep));
  auto shallow = serving::parse_openai_reply(R"({"error": [[["overloaded"]]]})");
  ASSERT_FALSE(shallow);
  EXPECT_EQ(shallow.error().message, R"(server error: [[["overloaded"]]])");
}

TEST(ServingCodec, TritonStatsSplitQueueFromCompute) {
  // The shape of Triton's GET /v2/models/M/stats (statistics extension).
  auto stats = [](int n, int queue_us, int infer_us) {
    json s = {{"model_stats", json::array({{{"name", "m"}, {"version", "1"}, {"inference_count", n * 2}, {"execution_count", n},
                                            {"inference_stats", {{"success", {{"count", n}, {"ns", n * (queue_us + infer_us + 30) * 1000}}},
                                                                 {"queue", {{"count", n}, {"ns", n * queue_us * 1000}}},
                                                                 {"compute_input", {{"count", n}, {"ns", n * 10 * 1000}}},
                                                                 {"compute_infer", {{"count", n}, {"ns", n * infer_us * 1000}}},
                                                                 {"compute_output", {{"count", n}, {"ns", n * 20 * 1000}}}}}}})}};
    return s.dump();
  };
  auto a = serving::parse_triton_stats(stats(100, 500, 2000));
  auto b = serving::parse_triton_stats(stats(300, 500, 2000));
  ASSERT_TRUE(a && b);
  auto split = serving::triton_split(*a, *b);
  ASSERT_TRUE(split);
  EXPECT_EQ(split->requests, 200U);
  EXPECT_NEAR(split->queue_ms, 0.5, 1e-9);
  EXPECT_NEAR(split->compute_ms, 2.03, 1e-9);
  EXPECT_NEAR(split->batch_mean, 2.0, 1e-9);
  EXPECT_FALSE(serving::triton_split(*b, *a));
  EXPECT_FALSE(serving::parse_triton_stats(R"({"model_stats":[]})"));
  EXPECT_FALSE(serving::parse_triton_stats("[]"));
}

}  // namespace
}  // namespace plumb
