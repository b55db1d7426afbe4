// Text for a terminal, made safe from the bytes of outside values it carries: a process's name or
// environment, a file name, a kernel name in a trace, a line of a job's log. plumb runs as root on
// shared nodes, and a control sequence in such a value would otherwise reach the terminal of the
// person reading the report: OSC 52 writes the clipboard, a carriage return or cursor movement
// overwrites what was printed, an SGR "conceal" hides it (ECMA-48; xterm's ctlseqs).
//
// What passes: printable text, valid UTF-8, newline and tab, and (where colours are kept) the
// SGR sequences of plain attributes and foreground colours plus the two sequences the live view of
// `plumb watch` clears the screen with (ESC [ H, ESC [ 2 J). Everything else is shown, not obeyed:
// a C0 control or DEL as its Unicode control picture (ESC as U+241B), a C1 control or a byte that
// is not UTF-8 as U+FFFD.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

namespace plumb {

class TerminalFilter {
 public:
  explicit TerminalFilter(bool keep_colour) : keep_colour_(keep_colour) {}
  // Appends the safe form of `chunk` to `out`. A sequence the chunk ends inside of (an escape
  // sequence, a UTF-8 character) is held until the next chunk completes or ends it.
  void feed(std::string_view chunk, std::string& out);
  // Appends what is held, shown as above.
  void finish(std::string& out);

 private:
  // Appends the safe form of data[i...] up to what is complete; returns where the held part starts.
  std::size_t filter(std::string_view data, std::string& out, bool last) const;
  bool keep_colour_;
  std::string held_;
};

// The whole of `text` at once.
std::string terminal_text(std::string_view text, bool keep_colour = false);

// While alive, std::cout and std::cerr pass through a TerminalFilter when each is a terminal
// (colours kept on standard output, whose renderers colour only a terminal; none on standard error,
// whose messages carry none). Restores both and prints what is held when it ends.
class TerminalStreams {
 public:
  TerminalStreams();
  ~TerminalStreams();
  TerminalStreams(const TerminalStreams&) = delete;
  TerminalStreams& operator=(const TerminalStreams&) = delete;

 private:
  class Buf;
  std::unique_ptr<Buf> out_, err_;
};

// Standard error without the filter (std::cerr when none is installed): for a progress line that
// redraws itself with carriage returns and makes its own text safe with terminal_text().
std::ostream& unfiltered_stderr();

}  // namespace plumb
