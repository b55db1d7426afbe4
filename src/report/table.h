// Text tables and escaping shared by the report blocks: one table model rendered as aligned
// terminal columns, a Markdown pipe table or an HTML <table>.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/i18n.h"

namespace plumb {

// First row is the header; cells are plain text (each format escapes what it must).
using TextTable = std::vector<std::vector<std::string>>;

// "term": aligned columns (first left, the rest right-aligned) each line prefixed by `indent`;
// "md": a pipe table; "html": a <table> with the first column as row headers.
std::string render_table(const TextTable& t, const std::string& format, const std::string& indent = "");

// A report block's heading and one line of prose under it, in the block's format ("term", "md",
// "html"): an indented line, a Markdown heading or bullet, an HTML <h4> or paragraph.
std::string block_heading(const std::string& text, const std::string& format);
std::string block_line(const std::string& text, const std::string& format);
// Preformatted text (the topology matrix): indented lines, a fenced block or <pre>.
std::string block_pre(const std::string& text, const std::string& format);

// A complete, self-contained HTML page (the report's head, style and CSP) around HTML blocks, for
// outputs that are not a Report (`plumb history`).
std::string render_html_page(const std::string& title, const std::string& body, Lang lang);

// Display width of UTF-8 text in a terminal (µ counts 1 column, CJK 2).
std::size_t display_width(std::string_view s);

// A terminal report wrapped to `width` columns: a longer line breaks at spaces (and between CJK
// characters, which take two columns each), its continuation lines indented under its text
// (after a "[FAIL] ", "L3 " or "- " marker); colour escapes take no column; a word longer
// than the line stays whole. Lines that fit are unchanged.
// A line whose text (after its indentation) starts with one of `keep` (the "Verify:" label: a
// command to paste) is left whole.
std::string wrap_to_width(std::string_view text, std::size_t width, const std::vector<std::string>& keep = {});

// Text escaped for HTML element content and attribute values.
std::string html_escape(std::string_view s);
// Escaped text with `code` spans (the catalogue's Markdown-style inline code) turned into <code>.
std::string html_inline(std::string_view s);

}  // namespace plumb
