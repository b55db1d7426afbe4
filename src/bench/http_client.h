// The bounded HTTP/1.1 client side of `plumb bench serve`: URL parsing, request building, an
// incremental response parser (Content-Length, chunked, read-until-close) with caps on the head,
// the header count and the body, and a Server-Sent Events parser. No I/O here: the event loop
// (bench/serve_loop.*) owns the sockets and deadlines, so every byte these parsers see came
// through a bounded read.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace plumb::httpc {

struct Url {
  std::string host;   // name or IPv4/IPv6 literal (without brackets)
  int port = 80;
  std::string target; // path + query, at least "/"
  [[nodiscard]] std::string host_header() const;
};
// "http://host[:port][/path]". https:// is refused with a one-line reason (no TLS in plumb).
Result<Url> parse_url(std::string_view text);

// "Name: value" from the command line; the name must be a token, the value free of CR/LF.
Result<std::pair<std::string, std::string>> parse_header_arg(std::string_view text);

// One request, serialised once and sent many times: "METHOD target HTTP/1.1", Host,
// Content-Length when there is a body, the user's headers.
std::string build_request(const std::string& method, const Url& url,
                          const std::vector<std::pair<std::string, std::string>>& headers, std::string_view body);

struct Limits {
  std::size_t max_head_bytes = std::size_t{16} * 1024;
  std::size_t max_headers = 100;
  std::uint64_t max_body_bytes = 64ULL * 1024 * 1024;
  std::size_t keep_body_bytes = std::size_t{1024} * 1024;  // bytes of the body kept for inspection (JSON replies)
};

class ResponseParser {
 public:
  enum class State { head, body, done, error };
  explicit ResponseParser(Limits l = {});
  // Ready for the next response on the connection; `no_body`: the request was HEAD.
  void reset(bool no_body = false);
  // Consumes bytes of the stream; returns how many belong to this response (the rest, after
  // state() == done, starts the next one). Never reads past its caps.
  std::size_t feed(std::string_view data);
  // The peer closed the connection: completes a body delimited by the close, else an error.
  void on_eof();

  [[nodiscard]] State state() const { return state_; }
  [[nodiscard]] bool done() const { return state_ == State::done; }
  [[nodiscard]] const std::string& error() const { return error_; }
  [[nodiscard]] int status() const { return status_; }
  [[nodiscard]] bool keep_alive() const { return keep_alive_; }
  [[nodiscard]] const std::string& body() const { return body_; }        // the first keep_body_bytes
  [[nodiscard]] std::uint64_t body_bytes() const { return body_bytes_; } // decoded length
  [[nodiscard]] const std::string& content_type() const { return content_type_; }
  [[nodiscard]] std::size_t header_count() const { return headers_; }
  // Called with each piece of the decoded body as it arrives (SSE timing).
  std::function<void(std::string_view)> on_body;

 private:
  enum class Body { none, length, chunked, until_close };
  enum class Chunk { size, data, data_crlf, trailer };
  bool parse_head(std::string_view head);
  void fail(std::string why);
  void take_body(std::string_view piece);
  std::size_t feed_chunked(std::string_view data);

  Limits lim_;
  State state_ = State::head;
  bool no_body_ = false;
  std::string head_;
  std::string line_;  // partial chunk-size / trailer line
  std::string error_;
  int status_ = 0;
  bool keep_alive_ = true;
  Body body_kind_ = Body::none;
  Chunk chunk_ = Chunk::size;
  std::uint64_t remaining_ = 0;
  std::uint64_t body_bytes_ = 0;
  std::string body_;
  std::string content_type_;
  std::size_t headers_ = 0;
};

// Server-Sent Events (WHATWG HTML, "Parsing an event stream"): lines end in LF, CRLF or CR;
// "data:" lines are joined with LF; a blank line dispatches the event. Comments and other fields
// are skipped. A line or an event over `max_bytes` is an error (the stream is then abandoned).
class SseParser {
 public:
  explicit SseParser(std::size_t max_bytes = std::size_t{1024} * 1024) : max_(max_bytes) {}
  std::function<void(std::string_view data)> on_event;
  // false once the stream broke a cap; the reason is error().
  bool feed(std::string_view bytes);
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  void line(std::string_view l);
  std::size_t max_;
  std::string partial_;
  std::string data_;
  bool has_data_ = false;
  bool last_cr_ = false;
  std::string error_;
};

}  // namespace plumb::httpc
