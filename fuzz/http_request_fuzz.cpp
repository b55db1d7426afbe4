// Fuzzes the exporter's HTTP request-head parser (the part of the HTTP handling that is ours).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "serve/http.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  plumb::http::Limits l;
  l.max_head_bytes = 1024;
  l.max_headers = 16;
  auto p = plumb::http::parse_request_head(std::string_view(reinterpret_cast<const char*>(data), size), l);
  if (p.kind == plumb::http::Parsed::Kind::ok && p.consumed > size) __builtin_trap();
  (void)plumb::http::parse_listen(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
