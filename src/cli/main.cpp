// plumb: entry point. Parses the command line, runs one subcommand, maps failures to exit codes
// (0 no failure, 1 at least one failing finding, 2 plumb could not run).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "engine/machine.h"
#include "cli/help_lang.h"
#include "cli/subcommand.h"
#include "core/deadline.h"
#include "core/phrases.h"
#include "core/suggest.h"
#include "core/terminal_text.h"
#include "report/report.h"

namespace {

int run_plumb(int argc, char** argv) {
  using namespace plumb;
  CLI::App app{"plumb: is it the model, or is the infrastructure under it loose?", "plumb"};
  app.set_version_flag("--version", std::string("plumb ") + plumb_version());
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, std::function<int()>>> runners;
  const auto& subs = subcommands();
  // Only the command the line names gets its options built (CLI11 builds hundreds of option
  // objects for all of them otherwise, a third of a short command's start). plumb's own options
  // are flags (--help, --version), so the command is the line's first word that is not an option.
  // A line that names none (`plumb --help`, `plumb --version`) builds none: the list of commands
  // needs only their names; one that names a command reading every command's options (the manual
  // page, the shell completion) builds them all.
  const char* const* word = std::find_if(argv + 1, argv + argc, [](const char* a) { return a[0] != '-'; });
  const std::string first = word != argv + argc ? *word : "";
  auto named = std::find_if(subs.begin(), subs.end(), [&](const SubcommandInfo& s) { return s.name == first; });
  const bool all = named != subs.end() && named->reads_every_command;
  for (const auto& s : subs) {
    CLI::App* sub = app.add_subcommand(s.name, s.help);
    if (all || s.name == first) runners.emplace_back(sub, s.setup(*sub));
  }
  const Lang lang = help_lang(std::vector<std::string>(argv + 1, argv + argc));
  localize_help(app, lang);
  // `plumb` alone: a short list of commands instead of CLI11's "A subcommand is required".
  if (argc == 1) {
    std::cout << "plumb " << plumb_version() << ": "
              << localize(lang, "is it the model, or is the infrastructure under it loose?") << "\n\n"
              << tr(lang, "help.usage_line") << "\n\n" << tr(lang, "help.commands") << ":\n";
    std::size_t width = 0;
    for (const auto& s : subs) width = std::max(width, s.name.size());
    for (const auto& s : subs) {
      std::cout << "  " << s.name << std::string(width + 2 - s.name.size(), ' ') << localize(lang, s.help) << "\n";
    }
    std::cout << "\n" << tr(lang, "help.start") << "\n";
    return 0;
  }
  // A mistyped subcommand gets a hint instead of CLI11's generic message.
  if (argc > 1 && argv[1][0] != '-') {
    if (named == subs.end()) {  // argv[1] is the line's first word
      std::vector<std::string> names;
      names.reserve(subs.size());
      for (const auto& s : subs) names.push_back(s.name);
      std::string hint = closest(first, names);
      std::cerr << "plumb: unknown command '" << first << "'" << (hint.empty() ? "" : " (did you mean '" + hint + "'?)")
                << "; see plumb --help\n";
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    // An unknown option: name it and suggest the closest one the command has.
    for (auto& [sub, run] : runners) {
      if (!sub->parsed()) continue;
      std::vector<std::string> known;
      for (const CLI::Option* o : sub->get_options()) {
        for (const auto& l : o->get_lnames()) known.push_back("--" + l);
        for (const auto& n : o->get_snames()) known.push_back("-" + n);
      }
      for (const auto& extra : sub->remaining()) {
        if (extra.size() < 2 || extra[0] != '-') continue;
        std::string name = extra.substr(0, extra.find('='));
        std::string hint = closest(name, known);
        std::cerr << "plumb " << sub->get_name() << ": unknown option '" << name << "'"
                  << (hint.empty() ? "" : " (did you mean '" + hint + "'?)") << "; see plumb " << sub->get_name()
                  << " --help\n";
        return 2;
      }
      if (!sub->remaining().empty()) {
        std::cerr << "plumb " << sub->get_name() << ": unexpected argument '" << sub->remaining().front() << "'; see plumb "
                  << sub->get_name() << " --help\n";
        return 2;
      }
    }
    std::cerr << "plumb: " << e.what() << "\n";
    return 2;
  } catch (const CLI::ParseError& e) {
    std::cerr << "plumb: " << e.what() << "\n";
    return 2;
  }
  try {
    for (auto& [sub, run] : runners) {
      if (sub->parsed()) return run();
    }
  } catch (const UsageError& e) {
    std::cerr << "plumb: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "plumb: internal error: " << e.what() << "\n";
    return 2;
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int rc = 2;
  try {
    // Outside values reach a terminal as text, never as control sequences (core/terminal_text.h).
    plumb::TerminalStreams terminal;
    rc = run_plumb(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "plumb: internal error: %s\n", plumb::terminal_text(e.what()).c_str());
  } catch (...) {
    std::fputs("plumb: internal error\n", stderr);
  }
  if (plumb::threads_abandoned()) plumb::exit_past_deadline(rc);
  return rc;
}
