// HTTP/1.1 response and SSE parsers of the load generator (RFC 9112 message framing).
#include "bench/http_client.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace plumb::httpc {

namespace {

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool contains_token(std::string_view list, std::string_view token) {
  for (auto part : split(list, ',')) {
    if (iequals(trim_ows(part), token)) return true;
  }
  return false;
}

}  // namespace

std::string Url::host_header() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return port == 80 ? h : h + ":" + std::to_string(port);
}

Result<Url> parse_url(std::string_view text) {
  std::string_view s = text;
  if (starts_with(s, "https://")) {
    return make_error(ErrorKind::unsupported, "URL " + std::string(text) + ": https is not supported (plumb speaks plain HTTP/1.1; put the load generator next to a TLS-terminating proxy's plain port)");
  }
  if (!starts_with(s, "http://")) return make_error(ErrorKind::invalid, "URL " + std::string(text) + ": expected http://HOST[:PORT]/PATH");
  s.remove_prefix(7);
  std::size_t slash = s.find_first_of("/?");
  std::string_view authority = s.substr(0, slash);
  Url u;
  u.target = slash == std::string_view::npos ? "/" : std::string(s.substr(slash));
  if (u.target.front() == '?') u.target = "/" + u.target;
  if (authority.find('@') != std::string_view::npos) return make_error(ErrorKind::invalid, "URL " + std::string(text) + ": credentials in the URL are not supported");
  std::string_view port;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string_view::npos) return make_error(ErrorKind::invalid, "URL " + std::string(text) + ": unclosed [ in the host");
    u.host = std::string(authority.substr(1, close - 1));
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return make_error(ErrorKind::invalid, "URL " + std::string(text) + ": bad text after the host");
      port = rest.substr(1);
      has_port = true;
    }
  } else {
    auto colon = authority.rfind(':');
    u.host = std::string(authority.substr(0, colon));
    if (u.host.find(':') != std::string::npos) return make_error(ErrorKind::invalid, "URL " + std::string(text) + ": an IPv6 host goes in brackets, http://[::1]:8000/");
    if (colon != std::string_view::npos) {
      port = authority.substr(colon + 1);
      has_port = true;
    }
  }
  if (u.host.empty()) return make_error(ErrorKind::invalid, "URL " + std::string(text) + ": no host");
  for (char c : u.host) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '.' && c != '-' && c != ':' && c != '_') {
      return make_error(ErrorKind::invalid, "URL " + std::string(text) + ": bad character in the host");
    }
  }
  if (has_port) {
    auto p = parse_uint(port);
    if (!p || *p == 0 || *p > 65535) return make_error(ErrorKind::invalid, "URL " + std::string(text) + ": bad port '" + std::string(port) + "'");
    u.port = static_cast<int>(*p);
  }
  for (char c : u.target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return make_error(ErrorKind::invalid, "URL " + std::string(text) + ": spaces or control characters in the path");
  }
  return u;
}

Result<std::pair<std::string, std::string>> parse_header_arg(std::string_view text) {
  auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) return make_error(ErrorKind::invalid, "--header '" + std::string(text) + "': expected 'Name: value'");
  std::string_view name = text.substr(0, colon);
  for (char c : name) {
    if (!is_token_char(c)) return make_error(ErrorKind::invalid, "--header '" + std::string(text) + "': bad character in the name");
  }
  std::string_view value = trim_ows(text.substr(colon + 1));
  for (char c : value) {
    if (c == '\r' || c == '\n' || c == '\0') return make_error(ErrorKind::invalid, "--header '" + std::string(name) + "': line breaks are not allowed in a value");
  }
  std::string n = to_lower(name);
  if (n == "content-length" || n == "transfer-encoding" || n == "host") {
    return make_error(ErrorKind::invalid, "--header " + std::string(name) + ": set by plumb itself");
  }
  return std::make_pair(std::string(name), std::string(value));
}

std::string build_request(const std::string& method, const Url& url,
                          const std::vector<std::pair<std::string, std::string>>& headers, std::string_view body) {
  std::string r = method + " " + url.target + " HTTP/1.1\r\nHost: " + url.host_header() + "\r\n";
  bool has_ua = false;
  for (const auto& [k, v] : headers) {
    r.append(k).append(": ").append(v).append("\r\n");
    has_ua |= to_lower(k) == "user-agent";
  }
  if (!has_ua) r += "User-Agent: plumb-bench-serve\r\n";
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  r += "\r\n";
  r.append(body);
  return r;
}

ResponseParser::ResponseParser(Limits l) : lim_(l) {}

void ResponseParser::reset(bool no_body) {
  state_ = State::head;
  no_body_ = no_body;
  head_.clear();
  line_.clear();
  error_.clear();
  status_ = 0;
  keep_alive_ = true;
  body_kind_ = Body::none;
  chunk_ = Chunk::size;
  remaining_ = 0;
  body_bytes_ = 0;
  body_.clear();
  content_type_.clear();
  headers_ = 0;
}

void ResponseParser::fail(std::string why) {
  state_ = State::error;
  error_ = std::move(why);
  keep_alive_ = false;
}

void ResponseParser::take_body(std::string_view piece) {
  if (piece.empty()) return;
  body_bytes_ += piece.size();
  if (body_bytes_ > lim_.max_body_bytes) {
    fail("response body over " + std::to_string(lim_.max_body_bytes) + " bytes");
    return;
  }
  if (body_.size() < lim_.keep_body_bytes) body_.append(piece.substr(0, lim_.keep_body_bytes - body_.size()));
  if (on_body) on_body(piece);
}

bool ResponseParser::parse_head(std::string_view head) {
  auto lines = split(head, '\n');
  if (lines.empty()) {
    fail("empty response head");
    return false;
  }
  auto clean = [](std::string_view l) {
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    return l;
  };
  std::string_view status_line = clean(lines[0]);
  // "HTTP/1.1 200 OK": version, space, three digits, then an optional reason.
  if (status_line.size() < 12 || !starts_with(status_line, "HTTP/1.") || status_line[8] != ' ' ||
      (status_line.size() > 12 && status_line[12] != ' ')) {
    fail("bad status line");
    return false;
  }
  bool http10 = status_line[7] == '0';
  if (!http10 && status_line[7] != '1') {
    fail("unsupported HTTP version");
    return false;
  }
  auto code = parse_uint(status_line.substr(9, 3));
  if (!code || *code < 100 || *code > 999 || std::isdigit(static_cast<unsigned char>(status_line[9])) == 0) {
    fail("bad status code");
    return false;
  }
  status_ = static_cast<int>(*code);
  keep_alive_ = !http10;
  bool chunked = false;
  bool have_length = false;
  std::uint64_t length = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    std::string_view l = clean(lines[i]);
    if (l.empty()) continue;
    if (++headers_ > lim_.max_headers) {
      fail("more than " + std::to_string(lim_.max_headers) + " header fields");
      return false;
    }
    auto colon = l.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      fail("header line without a name");
      return false;
    }
    std::string_view raw_name = l.substr(0, colon);
    if (!std::all_of(raw_name.begin(), raw_name.end(), is_token_char)) {
      fail("bad header name");
      return false;
    }
    std::string_view name = raw_name;
    std::string_view value = trim_ows(l.substr(colon + 1));
    if (iequals(name, "content-length")) {
      auto v = parse_uint(value);
      if (!v || value.empty() || !std::all_of(value.begin(), value.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
        fail("bad Content-Length");
        return false;
      }
      if (have_length && *v != length) {
        fail("conflicting Content-Length fields");
        return false;
      }
      have_length = true;
      length = *v;
    } else if (iequals(name, "transfer-encoding")) {
      chunked = contains_token(value, "chunked");
      if (!chunked) {
        fail("unsupported Transfer-Encoding '" + std::string(value) + "'");
        return false;
      }
    } else if (iequals(name, "connection")) {
      if (contains_token(value, "close")) keep_alive_ = false;
      if (http10 && contains_token(value, "keep-alive")) keep_alive_ = true;
    } else if (iequals(name, "content-type")) {
      content_type_ = std::string(value.substr(0, 200));
    }
  }
  if (no_body_ || status_ == 204 || status_ == 304 || (status_ >= 100 && status_ < 200)) {
    body_kind_ = Body::none;
  } else if (chunked) {
    body_kind_ = Body::chunked;  // RFC 9112 6.3: chunked wins over Content-Length
  } else if (have_length) {
    if (length > lim_.max_body_bytes) {
      fail("response body of " + std::to_string(length) + " bytes over the " + std::to_string(lim_.max_body_bytes) + "-byte cap");
      return false;
    }
    body_kind_ = length == 0 ? Body::none : Body::length;
    remaining_ = length;
  } else {
    body_kind_ = Body::until_close;
    keep_alive_ = false;
  }
  return true;
}

std::size_t ResponseParser::feed_chunked(std::string_view data) {
  std::size_t used = 0;
  while (used < data.size() && state_ == State::body) {
    std::string_view rest = data.substr(used);
    if (chunk_ == Chunk::data) {
      auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, rest.size()));
      take_body(rest.substr(0, n));
      used += n;
      remaining_ -= n;
      if (remaining_ == 0) chunk_ = Chunk::data_crlf;
      continue;
    }
    // Line-oriented states: the chunk-size line, the CRLF after data, trailer lines.
    auto nl = rest.find('\n');
    std::size_t take = nl == std::string_view::npos ? rest.size() : nl + 1;
    if (line_.size() + take > 1024) {
      fail("chunk-size or trailer line over 1024 bytes");
      return used;
    }
    line_.append(rest.substr(0, take));
    used += take;
    if (nl == std::string_view::npos) continue;
    std::string_view l = line_;
    l.remove_suffix(1);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    if (chunk_ == Chunk::data_crlf) {
      if (!l.empty()) {
        fail("missing CRLF after chunk data");
        return used;
      }
      chunk_ = Chunk::size;
    } else if (chunk_ == Chunk::size) {
      std::string_view hex = l.substr(0, l.find(';'));
      hex = trim_ows(hex);
      if (hex.empty() || hex.size() > 15 || !std::all_of(hex.begin(), hex.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
        fail("bad chunk size");
        return used;
      }
      remaining_ = std::stoull(std::string(hex), nullptr, 16);
      if (remaining_ > lim_.max_body_bytes || body_bytes_ + remaining_ > lim_.max_body_bytes) {
        fail("response body over " + std::to_string(lim_.max_body_bytes) + " bytes");
        return used;
      }
      chunk_ = remaining_ == 0 ? Chunk::trailer : Chunk::data;
    } else {  // trailer: skip fields until the empty line
      if (l.empty()) state_ = State::done;
      else if (++headers_ > lim_.max_headers) fail("more than " + std::to_string(lim_.max_headers) + " header fields");
    }
    line_.clear();
  }
  return used;
}

std::size_t ResponseParser::feed(std::string_view data) {
  std::size_t used = 0;
  while (used < data.size() && (state_ == State::head || state_ == State::body)) {
    std::string_view rest = data.substr(used);
    if (state_ == State::head) {
      // Look for the blank line, including one that straddles the previous piece.
      std::size_t before = head_.size();
      std::size_t take = std::min(rest.size(), lim_.max_head_bytes + 4 - std::min(before, lim_.max_head_bytes + 4));
      head_.append(rest.substr(0, take));
      std::size_t from = before >= 3 ? before - 3 : 0;
      auto end = head_.find("\r\n\r\n", from);
      std::size_t sep = 4;
      auto lf = head_.find("\n\n", from >= 1 ? from : 0);
      if (lf != std::string::npos && (end == std::string::npos || lf < end)) {
        end = lf;
        sep = 2;
      }
      if (end == std::string::npos) {
        used += take;
        if (head_.size() > lim_.max_head_bytes) fail("response head over " + std::to_string(lim_.max_head_bytes) + " bytes");
        continue;
      }
      if (end + sep > lim_.max_head_bytes) {
        fail("response head over " + std::to_string(lim_.max_head_bytes) + " bytes");
        return used;
      }
      used += end + sep - before;
      bool parsed = parse_head(std::string_view(head_).substr(0, end));
      head_.clear();
      if (!parsed) return used;
      if (status_ >= 100 && status_ < 200 && status_ != 101) {  // interim: the real response follows
        bool nb = no_body_;
        reset(nb);
        continue;
      }
      if (status_ == 101) {
        fail("server switched protocols (101)");
        return used;
      }
      state_ = body_kind_ == Body::none ? State::done : State::body;
      continue;
    }
    if (body_kind_ == Body::length) {
      auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, rest.size()));
      take_body(rest.substr(0, n));
      used += n;
      remaining_ -= n;
      if (remaining_ == 0 && state_ == State::body) state_ = State::done;
    } else if (body_kind_ == Body::chunked) {
      used += feed_chunked(rest);
    } else {  // until close
      take_body(rest);
      used += rest.size();
    }
  }
  return used;
}

void ResponseParser::on_eof() {
  if (state_ == State::body && body_kind_ == Body::until_close) {
    state_ = State::done;
    return;
  }
  if (state_ == State::head || state_ == State::body) {
    fail(state_ == State::head && head_.empty() ? "connection closed before a response" : "connection closed inside a response");
  }
}

bool SseParser::feed(std::string_view bytes) {
  if (!error_.empty()) return false;
  for (char c : bytes) {
    if (last_cr_ && c == '\n') {  // the LF of a CRLF already ended the line
      last_cr_ = false;
      continue;
    }
    last_cr_ = c == '\r';
    if (c == '\n' || c == '\r') {
      line(partial_);
      partial_.clear();
      if (!error_.empty()) return false;
      continue;
    }
    if (partial_.size() >= max_) {
      error_ = "event-stream line over " + std::to_string(max_) + " bytes";
      return false;
    }
    partial_.push_back(c);
  }
  return true;
}

void SseParser::line(std::string_view l) {
  if (l.empty()) {
    if (has_data_ && on_event) on_event(data_);
    data_.clear();
    has_data_ = false;
    return;
  }
  if (l.front() == ':') return;  // comment
  auto colon = l.find(':');
  std::string_view field = l.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : l.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field != "data") return;
  if (data_.size() + value.size() + 1 > max_) {
    error_ = "event-stream event over " + std::to_string(max_) + " bytes";
    return;
  }
  if (has_data_) data_.push_back('\n');
  data_.append(value);
  has_data_ = true;
}

}  // namespace plumb::httpc
