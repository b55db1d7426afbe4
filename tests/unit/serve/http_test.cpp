// The exporter's HTTP request parsing, listen addresses and response heads.
#include <gtest/gtest.h>

#include "serve/http.h"

namespace plumb {
namespace {

http::Parsed parse(const std::string& s, http::Limits l = {}) { return http::parse_request_head(s, l); }

TEST(HttpParse, GetWithHeadersAndKeepAlive) {
  auto p = parse("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\nrest");
  ASSERT_EQ(p.kind, http::Parsed::Kind::ok);
  EXPECT_EQ(p.request.path, "/metrics");
  EXPECT_EQ(p.request.target, "/metrics?x=1");
  EXPECT_TRUE(p.request.keep_alive);
  EXPECT_EQ(p.request.headers[0].first, "host");
  EXPECT_EQ(p.consumed, std::string("GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n").size());
  EXPECT_FALSE(parse("GET / HTTP/1.0\r\n\r\n").request.keep_alive);
  EXPECT_FALSE(parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").request.keep_alive);
  EXPECT_TRUE(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").request.keep_alive);
}

TEST(HttpParse, IncompleteThenErrors) {
  EXPECT_EQ(parse("GET /metrics HTTP/1.1\r\nHost:").kind, http::Parsed::Kind::incomplete);
  EXPECT_EQ(parse("").kind, http::Parsed::Kind::incomplete);
  EXPECT_EQ(parse("POST /metrics HTTP/1.1\r\n\r\n").status, 405);
  EXPECT_EQ(parse("DELETE / HTTP/1.1\r\n\r\n").status, 405);
  EXPECT_EQ(parse("GET /metrics HTTP/2.0\r\n\r\n").status, 505);
  EXPECT_EQ(parse("GET metrics HTTP/1.1\r\n\r\n").status, 400);
  EXPECT_EQ(parse("GET  /metrics HTTP/1.1\r\n\r\n").status, 400);
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nBad Header\r\n\r\n").status, 400);
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n").status, 400);
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\n").status, 400);
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").status, 400);
  EXPECT_EQ(parse("GET / HTTP/1.1\nHost: a\n\n").status, 400);
  EXPECT_EQ(parse(std::string("GET /\x01 HTTP/1.1\r\n\r\n")).status, 400);
}

TEST(HttpParse, BoundsOnSizeAndHeaderCount) {
  http::Limits l;
  l.max_head_bytes = 64;
  l.max_headers = 2;
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nX-Long: " + std::string(100, 'a'), l).status, 431);
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", l).status, 431);
  EXPECT_EQ(parse("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\n\r\n", l).kind, http::Parsed::Kind::ok);
}

TEST(HttpListen, AddressesAndLoopback) {
  EXPECT_EQ(*http::parse_listen("127.0.0.1:9464"), (std::pair<std::string, int>{"127.0.0.1", 9464}));
  EXPECT_EQ(*http::parse_listen("9464"), (std::pair<std::string, int>{"127.0.0.1", 9464}));
  EXPECT_EQ(*http::parse_listen("[::1]:80"), (std::pair<std::string, int>{"::1", 80}));
  EXPECT_EQ(http::parse_listen("0.0.0.0:9464")->first, "0.0.0.0");
  EXPECT_EQ(*http::parse_listen(":9464"), (std::pair<std::string, int>{"0.0.0.0", 9464}));
  EXPECT_FALSE(http::parse_listen("localhost:9464").ok());
  EXPECT_FALSE(http::parse_listen("127.0.0.1:99999").ok());
  EXPECT_FALSE(http::parse_listen("::1:80").ok());
  EXPECT_TRUE(http::is_loopback("127.0.0.1"));
  EXPECT_TRUE(http::is_loopback("::1"));
  EXPECT_FALSE(http::is_loopback("0.0.0.0"));
}

TEST(HttpSerialize, HeadHasNoBody) {
  http::Response r{200, "text/plain", "hello", {}};
  std::string full = http::serialize(r, true, false);
  EXPECT_NE(full.find("Content-Length: 5\r\n"), std::string::npos);
  EXPECT_NE(full.find("\r\n\r\nhello"), std::string::npos);
  std::string head = http::serialize(r, false, true);
  EXPECT_EQ(head.find("hello"), std::string::npos);
  EXPECT_NE(head.find("Connection: close"), std::string::npos);
}

}  // namespace
}  // namespace plumb
