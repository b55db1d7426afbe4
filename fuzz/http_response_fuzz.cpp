// Fuzzes the load generator's HTTP/1.1 response parser: the input is split at a position taken
// from its first byte (split reads), parsed under small caps, then the connection "closes".
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/http_client.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::size_t cut = in.empty() ? 0 : data[0] % (in.size() + 1);
  plumb::httpc::Limits l;
  l.max_head_bytes = 512;
  l.max_headers = 16;
  l.max_body_bytes = 4096;
  l.keep_body_bytes = 256;
  plumb::httpc::ResponseParser p(l);
  p.reset(data[0] & 1);
  std::size_t streamed = 0;
  p.on_body = [&](std::string_view s) { streamed += s.size(); };
  std::size_t used = p.feed(in.substr(0, cut));
  if (!p.done() && p.state() != plumb::httpc::ResponseParser::State::error) used += p.feed(in.substr(cut));
  if (used > in.size()) __builtin_trap();
  p.on_eof();
  if (p.body_bytes() > l.max_body_bytes || p.body().size() > l.keep_body_bytes || streamed != p.body_bytes()) __builtin_trap();
  (void)plumb::httpc::parse_url(in);
  (void)plumb::httpc::parse_header_arg(in);
  return 0;
}
