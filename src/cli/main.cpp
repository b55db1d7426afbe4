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

// The words a user types for help and the version, as other tools take them: `plumb` alone and
// `plumb help` are `plumb --help`, `plumb help CMD` is `plumb CMD --help`, `plumb version` and
// `plumb -V` are `plumb --version`.
std::vector<std::string> spelled_out(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  if (args.size() == 1) return {args[0], "--help"};
  if (args[1] == "help") return args.size() == 2 ? std::vector<std::string>{args[0], "--help"} : std::vector<std::string>{args[0], args[2], "--help"};
  if (args[1] == "version" && args.size() == 2) return {args[0], "--version"};
  return args;
}

// CLI11's "snapshot is required" names the positional by its variable: name it by what it wants.
int missing_argument(const std::vector<std::pair<CLI::App*, std::function<int()>>>& runners) {
  for (const auto& [sub, run] : runners) {
    if (!sub->parsed()) continue;
    for (const CLI::Option* o : sub->get_options()) {
      if (!o->get_positional() || !o->get_required() || o->count() > 0) continue;
      std::cerr << "plumb " << sub->get_name() << ": missing " << o->get_name() << ": " << o->get_description() << "; see plumb "
                << sub->get_name() << " --help\n";
      return 2;
    }
  }
  return -1;
}

int run_plumb(int real_argc, char** real_argv) {
  using namespace plumb;
  std::vector<std::string> words = spelled_out(real_argc, real_argv);
  std::vector<char*> word_ptrs;
  for (auto& w : words) word_ptrs.push_back(w.data());
  const int argc = static_cast<int>(word_ptrs.size());
  char** argv = word_ptrs.data();
  CLI::App app{"plumb: is it the model, or is the infrastructure under it loose?", "plumb"};
  app.set_version_flag("-V,--version", std::string("plumb ") + plumb_version());
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
  app.footer(tr(lang, "help.start"));
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
  } catch (const CLI::RequiredError& e) {
    if (int rc = missing_argument(runners); rc >= 0) return rc;
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
