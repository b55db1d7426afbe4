// The engine of `plumb bench serve`: a few threads, each with its own epoll loop, keep-alive
// HTTP/1.1 connections (one request in flight per connection, no pipelining) and its share of
// the arrival schedule. Open loop: request k is due at its scheduled time whatever happened to
// the earlier ones; latency is counted from that intended time and, separately, from the moment
// its bytes were handed to the kernel. Closed loop: N connections each send the next request
// when the previous answer arrived (what wrk and most tools do). Every wait has a deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/histogram.h"
#include "bench/http_client.h"
#include "bench/serve_schedule.h"
#include "core/result.h"

namespace plumb {

struct LoadPlan {
  httpc::Url url;
  std::string request;                 // the serialised request, sent as is every time
  bool head_request = false;           // HEAD: replies have no body
  bool closed_loop = false;
  double rate = 0;                     // open loop: requests per second
  Arrival arrival = Arrival::poisson;
  unsigned concurrency = 0;            // closed loop: connections, each with one request in flight
  unsigned connections = 256;          // open loop: most connections open at once (all threads)
  unsigned threads = 2;
  std::chrono::nanoseconds warmup{std::chrono::seconds(1)};
  std::chrono::nanoseconds duration{std::chrono::seconds(10)};
  std::chrono::nanoseconds request_timeout{std::chrono::seconds(10)};
  std::chrono::nanoseconds connect_timeout{std::chrono::seconds(3)};
  std::chrono::nanoseconds late_after{std::chrono::milliseconds(1)};
  bool sse = false;                    // replies are event streams of OpenAI chunks (TTFT, ITL)
  std::uint64_t seed = 1;
  unsigned windows = 10;               // the measured span cut into this many windows (stability)
  httpc::Limits limits;
  const std::atomic<bool>* stop = nullptr;
};

struct LoadWindow {
  std::uint64_t ok = 0;                // successful replies of requests due in this window
  double p50_ms = 0, p99_ms = 0;       // from the intended send time
};

struct LoadResult {
  LatencyHistogram from_intended;      // measured requests answered 2xx/3xx
  LatencyHistogram from_sent;
  LatencyHistogram ttft;               // streams: first token, from the actual send
  LatencyHistogram itl;                // streams: gaps between tokens
  std::uint64_t scheduled = 0;         // measured requests due (open) or sent (closed)
  std::uint64_t sent = 0;
  std::uint64_t ok = 0;
  std::uint64_t late = 0;              // sent more than late_after after their intended time
  std::uint64_t err_connect = 0, err_timeout = 0, err_4xx = 0, err_5xx = 0, err_protocol = 0;
  std::uint64_t unsent = 0;            // due but never sent (counted as timeouts too)
  std::uint64_t output_tokens = 0;
  std::uint64_t connections_opened = 0;
  std::uint64_t peak_connections = 0;  // most open at once (sum of each thread's peak)
  bool hit_connection_cap = false;     // some thread had a request due and every connection busy at its cap
  std::uint64_t warmup_requests = 0;
  double measured_s = 0;               // length of the measured span
  double max_send_lag_ms = 0;
  std::string first_error;             // one example, for the report
  std::vector<LoadWindow> windows;
  [[nodiscard]] std::uint64_t errors() const { return err_connect + err_timeout + err_4xx + err_5xx + err_protocol; }
};

// One request on a fresh connection, answered or abandoned within `deadline` (the probe before a
// run, Triton's statistics before and after). Error: could not connect, no reply in time, or a
// reply that breaks HTTP/1.1 framing or the caps.
struct OnceReply {
  int status = 0;
  std::string body;          // the first limits.keep_body_bytes of it
  std::string content_type;
  double ms = 0;
};
Result<OnceReply> fetch_once(const httpc::Url& url, const std::string& request, std::chrono::milliseconds deadline,
                             const httpc::Limits& limits = {});

// Resolves the URL's host once, then runs the plan. Error: the host does not resolve, or the
// plan is impossible (no rate, no concurrency).
Result<LoadResult> run_load(const LoadPlan& plan);

}  // namespace plumb
