// Text tables for the terminal, Markdown and HTML reports, and HTML escaping.
#include "report/table.h"

#include <algorithm>
#include <sstream>
#include <vector>

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

namespace {

// One unit of a line: a word (no spaces; colour escapes kept inside it), or one CJK character,
// after `space` blanks.
struct WrapUnit {
  std::size_t space = 0;
  std::string text;
  std::size_t width = 0;
};

std::size_t utf8_len(unsigned char c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

std::vector<WrapUnit> wrap_units(std::string_view s) {
  std::vector<WrapUnit> out;
  std::size_t space = 0;
  WrapUnit cur;
  auto flush = [&] {
    if (!cur.text.empty()) out.push_back(std::move(cur));
    cur = WrapUnit{};
  };
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == ' ') {
      flush();
      ++space;
      ++i;
      continue;
    }
    if (c == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {  // CSI: no column
      std::size_t e = i + 2;
      while (e < s.size() && (s[e] < 0x40 || s[e] > 0x7e)) ++e;
      e = std::min(e + 1, s.size());
      if (cur.text.empty()) cur.space = space, space = 0;
      cur.text.append(s.substr(i, e - i));
      i = e;
      continue;
    }
    const std::size_t len = std::min(utf8_len(static_cast<unsigned char>(c)), s.size() - i);
    if (len == 3) {  // CJK and full-width punctuation: a unit of its own, breakable on both sides
      if (!cur.text.empty() && cur.width > 0) flush();
      if (cur.text.empty()) cur.space = space, space = 0;
      cur.text.append(s.substr(i, len));
      cur.width += 2;
      flush();
      i += len;
      continue;
    }
    if (cur.text.empty()) cur.space = space, space = 0;
    cur.text.append(s.substr(i, len));
    cur.width += 1;
    i += len;
  }
  flush();
  return out;
}

// Where a wrapped line's continuation starts: under the text after the line's marker.
std::size_t hanging_indent(std::string_view line) {
  std::size_t lead = 0;
  while (lead < line.size() && line[lead] == ' ') ++lead;
  std::string_view rest = line.substr(lead);
  if (rest.starts_with("[")) {
    std::size_t close = rest.find("] ");
    if (close != std::string_view::npos && close < 12) return lead + close + 2;
  }
  if (rest.size() > 3 && rest[0] == 'L' && rest[1] >= '1' && rest[1] <= '3' && rest[2] == ' ') return lead + 3;
  if (rest.starts_with("- ") || rest.starts_with("* ")) return lead + 2;
  return lead + 2;
}

}  // namespace

std::string wrap_to_width(std::string_view text, std::size_t width, const std::vector<std::string>& keep) {
  if (width < 20) return std::string(text);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    std::size_t w = 0;
    for (const auto& u : wrap_units(line)) w += u.space + u.width;
    const std::string_view body = line.substr(std::min(line.find_first_not_of(' '), line.size()));
    const bool whole = std::any_of(keep.begin(), keep.end(), [&](const std::string& k) { return !k.empty() && body.starts_with(k); });
    if (w <= width || whole) {
      out.append(line);
    } else {
      std::size_t lead = 0;
      while (lead < line.size() && line[lead] == ' ') ++lead;
      std::size_t hang = std::min(hanging_indent(line), width / 2);
      auto units = wrap_units(line.substr(lead));
      out.append(lead, ' ');
      std::size_t col = lead;
      bool first = true;
      for (const auto& u : units) {
        const std::size_t gap = first ? 0 : u.space;
        if (!first && col + gap + u.width > width) {
          out += '\n';
          out.append(hang, ' ');
          col = hang;
        } else {
          out.append(gap, ' ');
          col += gap;
        }
        out += u.text;
        col += u.width;
        first = false;
      }
    }
    if (nl == std::string_view::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
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
