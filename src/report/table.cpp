// Text tables for the terminal, Markdown and HTML reports, and HTML escaping.
#include "report/table.h"

#include <algorithm>
#include <sstream>

namespace plumb {

std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (std::size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    w += len == 3 ? 2 : 1;
    i += len;
  }
  return w;
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_inline(std::string_view s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    auto open = s.find('`', i);
    auto close = open == std::string_view::npos ? open : s.find('`', open + 1);
    if (close == std::string_view::npos) {
      out += html_escape(s.substr(i));
      break;
    }
    out += html_escape(s.substr(i, open - i));
    out += "<code>" + html_escape(s.substr(open + 1, close - open - 1)) + "</code>";
    i = close + 1;
  }
  return out;
}

std::string block_heading(const std::string& text, const std::string& format) {
  if (format == "term") return "  " + text + ":\n";
  if (format == "html") return "<h4>" + html_escape(text) + "</h4>\n";
  return "#### " + text + "\n\n";
}

std::string block_line(const std::string& text, const std::string& format) {
  if (format == "term") return "  " + text + "\n";
  if (format == "html") return "<p class=\"note\">" + html_inline(text) + "</p>\n";
  return "- " + text + "\n";
}

std::string block_pre(const std::string& text, const std::string& format) {
  if (format == "html") return "<pre>" + html_escape(text) + "</pre>\n";
  if (format == "md") return "```\n" + text + (text.ends_with('\n') ? "" : "\n") + "```\n\n";
  return text;
}

namespace {

std::string md_cell(std::string c) {
  for (auto& ch : c) {
    if (ch == '|') ch = '/';
    if (ch == '\n') ch = ' ';
  }
  return c;
}

}  // namespace

std::string render_table(const TextTable& t, const std::string& format, const std::string& indent) {
  if (t.empty()) return {};
  std::ostringstream os;
  const std::size_t cols = t[0].size();
  if (format == "html") {
    os << "<table>\n<thead><tr>";
    for (const auto& h : t[0]) os << "<th>" << html_escape(h) << "</th>";
    os << "</tr></thead>\n<tbody>\n";
    for (std::size_t r = 1; r < t.size(); ++r) {
      os << "<tr>";
      for (std::size_t c = 0; c < t[r].size(); ++c) {
        os << (c == 0 ? "<th scope=\"row\">" : "<td>") << html_escape(t[r][c]) << (c == 0 ? "</th>" : "</td>");
      }
      os << "</tr>\n";
    }
    os << "</tbody>\n</table>\n";
    return os.str();
  }
  if (format != "term") {
    for (std::size_t r = 0; r < t.size(); ++r) {
      os << "|";
      for (const auto& c : t[r]) os << " " << md_cell(c) << " |";
      os << "\n";
      if (r == 0) {
        os << "|";
        for (std::size_t c = 0; c < cols; ++c) os << (c == 0 ? "---|" : "---:|");
        os << "\n";
      }
    }
    return os.str();
  }
  std::vector<std::size_t> w(cols, 0);
  for (const auto& row : t) {
    for (std::size_t c = 0; c < row.size() && c < cols; ++c) w[c] = std::max(w[c], display_width(row[c]));
  }
  for (const auto& row : t) {
    os << indent;
    for (std::size_t c = 0; c < row.size() && c < cols; ++c) {
      std::string pad(w[c] - display_width(row[c]), ' ');
      os << (c == 0 ? row[c] + pad : "  " + pad + row[c]);
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace plumb
