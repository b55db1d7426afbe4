// Fuzzes the Server-Sent Events parser and the OpenAI stream-chunk reader behind it (TTFT and
// inter-token timing read every event a server streams).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bench/http_client.h"
#include "bench/serve_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  plumb::httpc::SseParser p(1024);
  std::size_t events = 0;
  p.on_event = [&](std::string_view ev) {
    if (ev.size() > 1024) __builtin_trap();
    ++events;
    (void)plumb::serving::parse_openai_chunk(ev);
  };
  for (std::size_t i = 0; i < in.size(); i += 7) {
    if (!p.feed(in.substr(i, 7))) break;
  }
  (void)plumb::serving::parse_triton_stats(in);
  (void)plumb::serving::check_oip_reply(in);
  (void)events;
  return 0;
}
