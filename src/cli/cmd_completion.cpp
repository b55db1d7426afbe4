// `plumb man` and `plumb completion bash|zsh`: the manual page (roff) and the shell completion
// scripts, written from the registered subcommands and their CLI11 options, so they list exactly
// what `plumb COMMAND --help` accepts. The build runs them to make the files of the Debian package
// (cmake/Packaging.cmake); docs/packaging.md describes them.
#include <cstddef>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/subcommand.h"
#include "core/text.h"

namespace plumb {
namespace {

// One command of the tree: `check`, or `fleet report` (path "fleet report").
struct Cmd {
  std::string path;
  CLI::App* app = nullptr;
};

bool shown(const CLI::App* a) { return !a->get_group().empty(); }

std::vector<Cmd> commands(CLI::App& root) {
  std::vector<Cmd> out;
  std::vector<Cmd> todo;
  for (CLI::App* s : root.get_subcommands([](CLI::App* a) { return shown(a); })) todo.push_back({s->get_name(), s});
  for (std::size_t i = 0; i < todo.size(); ++i) {
    out.push_back(todo[i]);
    for (CLI::App* s : todo[i].app->get_subcommands([](CLI::App* a) { return shown(a); })) {
      out.push_back({todo[i].path + " " + s->get_name(), s});
    }
  }
  return out;
}

std::vector<const CLI::Option*> options_of(const CLI::App* a, bool positional) {
  return a->get_options([positional](const CLI::Option* o) { return o->nonpositional() != positional; });
}

// A flag expects no value (CLI11 gives flags a type size of 1 but an expected count of 0).
bool takes_value(const CLI::Option* o) { return o->get_expected_max() != 0; }

std::vector<std::string> names_of(const CLI::Option* o) {
  std::vector<std::string> n;
  for (const auto& l : o->get_lnames()) n.push_back("--" + l);
  for (const auto& s : o->get_snames()) n.push_back("-" + s);
  return n;
}

bool value_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.'; }

// The values an option or argument accepts, as its help states them: a CLI11 IsMember check
// ("TEXT:{quick,none}") or a list "a|b|c" after a colon in the description ("output format:
// term|md|json|html"). Empty when it takes free text (a file, a number).
std::vector<std::string> value_list(const CLI::Option* o) {
  std::vector<std::string> v;
  const std::string type = o->get_type_name();
  if (auto b = type.find(":{"); b != std::string::npos) {
    auto e = type.find('}', b);
    std::string item;
    for (std::size_t i = b + 2; i < e && i < type.size(); ++i) {
      if (type[i] == ',') {
        if (!item.empty()) v.push_back(item);
        item.clear();
      } else if (type[i] != ' ') {
        item += type[i];
      }
    }
    if (!item.empty()) v.push_back(item);
    return v;
  }
  const std::string& d = o->get_description();
  auto colon = d.find(": ");
  if (colon == std::string::npos) return v;
  std::size_t i = colon + 2;
  std::string item;
  bool bar = false;
  for (; i < d.size() && (value_char(d[i]) || d[i] == '|'); ++i) {
    if (d[i] == '|') {
      bar = true;
      v.push_back(item);
      item.clear();
    } else {
      item += d[i];
    }
  }
  v.push_back(item);
  for (const auto& s : v) {
    if (s.empty()) return {};
  }
  return bar ? v : std::vector<std::string>{};
}


// ---- roff ----

std::string roff(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (c == '\\') {
      s += "\\e";
    } else if (c == '-') {
      s += "\\-";
    } else {
      s += c;
    }
  }
  if (!s.empty() && (s[0] == '.' || s[0] == '\'')) s.insert(0, "\\&");
  return s;
}

void man_options(std::ostream& o, const CLI::App* a) {
  for (const CLI::Option* p : options_of(a, true)) {
    o << ".TP\n.I " << roff(p->get_name(true)) << "\n" << roff(p->get_description()) << "\n";
  }
  for (const CLI::Option* p : options_of(a, false)) {
    o << ".TP\n.B " << roff(join(names_of(p), ", "));
    if (takes_value(p)) {
      const std::string type = p->get_type_name();
      if (!type.empty()) o << " \\fI" << roff(type) << "\\fR";
    }
    o << "\n" << roff(p->get_description());
    if (!p->get_default_str().empty()) o << " (default: " << roff(p->get_default_str()) << ")";
    o << "\n";
  }
}

std::string man_page(CLI::App& root) {
  std::ostringstream o;
  o << ".TH PLUMB 1 \"\" \"plumb " << plumb_version() << "\" \"User Commands\"\n"
    << ".SH NAME\nplumb \\- " << roff(root.get_description().substr(root.get_description().find(':') + 2)) << "\n"
    << ".SH SYNOPSIS\n.B plumb\n.I COMMAND\n[\\fIOPTIONS\\fR]\n"
    << ".SH DESCRIPTION\n"
    << "plumb checks AI training and serving machines and explains what it finds in three layers: "
       "symptoms (L1), runtime behaviour (L2) and configuration defects (L3). Start with\n.BR \"plumb check\" .\n"
    << ".SH COMMANDS\n";
  for (CLI::App* s : root.get_subcommands([](CLI::App* a) { return shown(a); })) {
    o << ".TP\n.B " << roff(s->get_name()) << "\n" << roff(s->get_description()) << "\n";
  }
  o << ".SH GLOBAL OPTIONS\n";
  man_options(o, &root);
  for (const Cmd& c : commands(root)) {
    o << ".SH \"PLUMB " << roff(c.path) << "\"\n" << roff(c.app->get_description()) << "\n";
    o << ".PP\n.B plumb " << roff(c.path) << "\n[\\fIOPTIONS\\fR]";
    for (const CLI::Option* p : options_of(c.app, true)) o << " \\fI" << roff(p->get_name(true)) << "\\fR";
    o << "\n";
    man_options(o, c.app);
  }
  o << ".SH EXIT STATUS\n"
    << ".TP\n.B 0\nno check failed\n.TP\n.B 1\nat least one check failed\n.TP\n.B 2\nplumb could not run (bad input, "
       "unreadable file, unknown option)\n"
    << ".SH FILES\n"
    << ".TP\n.I /etc/plumb/plumb.toml\nthe machine's thresholds (read first; see\n.BR \"plumb check \\-\\-print\\-config\" )\n"
    << ".TP\n.I $XDG_CONFIG_HOME/plumb/plumb.toml\nthe user's thresholds (~/.config/plumb/plumb.toml when XDG_CONFIG_HOME is "
       "unset), read after /etc/plumb/plumb.toml\n"
    << ".SH ENVIRONMENT\n"
    << ".TP\n.B PLUMB_NO_DEFAULT_CONFIG\nset to 1: read only the file of \\-\\-config\n"
    << ".TP\n.B NO_COLOR\nset: no colour in the terminal report\n"
    << ".SH SEE ALSO\n/usr/share/doc/plumb/examples (Slurm, node-problem-detector, Prometheus and Kubernetes examples)\n";
  return o.str();
}

// ---- bash ----

std::string sh_words(const std::vector<std::string>& v) { return "\"" + join(v, " ") + "\""; }

std::string bash_script(CLI::App& root) {
  std::ostringstream o;
  std::vector<std::string> top;
  for (CLI::App* s : root.get_subcommands([](CLI::App* a) { return shown(a); })) top.push_back(s->get_name());
  const std::vector<Cmd> cmds = commands(root);
  o << "# bash completion for plumb, written by `plumb completion bash`\n"
    << "_plumb() {\n"
    << "  local cur prev path w i words=\"\" opts=\"\"\n"
    << "  COMPREPLY=()\n"
    << "  cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
    << "  prev=\"\"\n"
    << "  (( COMP_CWORD > 0 )) && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
    << "  path=\"\"\n"
    << "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
    << "    w=\"${COMP_WORDS[i]}\"\n"
    << "    case \"$path:$w\" in\n";
  for (const Cmd& c : cmds) {
    auto sp = c.path.rfind(' ');
    std::string parent = sp == std::string::npos ? "" : c.path.substr(0, sp);
    std::string leaf = sp == std::string::npos ? c.path : c.path.substr(sp + 1);
    o << "      \"" << parent << ":" << leaf << "\") path=\"" << c.path << "\" ;;\n";
  }
  o << "    esac\n"
    << "  done\n"
    << "  case \"$path\" in\n";
  auto emit_case = [&o](const std::string& path, const CLI::App* a, const std::vector<std::string>& subs) {
    std::vector<std::string> opts;
    std::vector<std::string> words = subs;
    std::ostringstream values;
    for (const CLI::Option* p : options_of(a, false)) {
      auto n = names_of(p);
      opts.insert(opts.end(), n.begin(), n.end());
      auto v = value_list(p);
      if (!v.empty() && takes_value(p)) values << "        " << join(n, "|") << ") COMPREPLY=($(compgen -W " << sh_words(v) << " -- \"$cur\")); return 0 ;;\n";
    }
    for (const CLI::Option* p : options_of(a, true)) {
      auto v = value_list(p);
      words.insert(words.end(), v.begin(), v.end());
    }
    o << "    \"" << path << "\")\n"
      << "      opts=" << sh_words(opts) << "\n"
      << "      words=" << sh_words(words) << "\n";
    if (!values.str().empty()) o << "      case \"$prev\" in\n" << values.str() << "      esac\n";
    o << "      ;;\n";
  };
  emit_case("", &root, top);
  for (const Cmd& c : cmds) {
    std::vector<std::string> subs;
    for (CLI::App* s : c.app->get_subcommands([](CLI::App* a) { return shown(a); })) subs.push_back(s->get_name());
    emit_case(c.path, c.app, subs);
  }
  o << "  esac\n"
    << "  if [[ \"$cur\" == -* ]]; then\n"
    << "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
    << "  elif [[ -n \"$words\" ]]; then\n"
    << "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
    << "  fi\n"
    << "  return 0\n"
    << "}\n"
    << "complete -o default -F _plumb plumb\n";
  return o.str();
}

// ---- zsh ----

// Text inside a single-quoted _arguments spec: brackets and colons escaped, quotes closed and reopened.
std::string zsh_text(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') {
      s += '\\';
      s += c;
    } else if (c == '\'') {
      s += "'\\''";
    } else {
      s += c;
    }
  }
  return s;
}

void zsh_arguments(std::ostream& o, const CLI::App* a, const std::vector<std::string>& subs, const std::string& indent) {
  o << indent << "_arguments -s -S \\\n";
  for (const CLI::Option* p : options_of(a, false)) {
    auto n = names_of(p);
    std::string action;
    if (takes_value(p)) {
      auto v = value_list(p);
      action = ":" + zsh_text(n.front().substr(n.front().find_first_not_of('-'))) + ":" +
               (v.empty() ? std::string("_files") : "(" + join(v, " ") + ")");
    }
    std::string excl = n.size() > 1 ? "(" + join(n, " ") + ")" : "";
    for (const auto& name : n) {
      o << indent << "  '" << excl << name << "[" << zsh_text(p->get_description()) << "]" << action << "' \\\n";
    }
  }
  if (!subs.empty()) {
    o << indent << "  '1:command:(" << join(subs, " ") << ")' \\\n";
  } else {
    int i = 1;
    for (const CLI::Option* p : options_of(a, true)) {
      auto v = value_list(p);
      o << indent << "  '" << i++ << ":" << zsh_text(p->get_name(true)) << ":" << (v.empty() ? "_files" : "(" + join(v, " ") + ")")
        << "' \\\n";
    }
  }
  o << indent << "  '*:file:_files'\n";
}

std::string zsh_script(CLI::App& root) {
  std::ostringstream o;
  o << "#compdef plumb\n"
    << "# zsh completion for plumb, written by `plumb completion zsh`\n"
    << "_plumb() {\n"
    << "  local curcontext=\"$curcontext\" state line\n"
    << "  local -a commands\n"
    << "  commands=(\n";
  for (CLI::App* s : root.get_subcommands([](CLI::App* a) { return shown(a); })) {
    o << "    '" << zsh_text(s->get_name()) << ":" << zsh_text(s->get_description()) << "'\n";
  }
  o << "  )\n"
    << "  _arguments -C '(- *)--help[print help]' '(- *)--version[print the version]' '1: :->command' '*:: :->args'\n"
    << "  case $state in\n"
    << "    command) _describe -t commands 'plumb command' commands ;;\n"
    << "    args)\n"
    << "      case \"${words[1]}${words[2]:+ }${words[2]}\" in\n";
  const std::vector<Cmd> cmds = commands(root);
  // Nested commands first: "fleet report *" must match before "fleet *".
  for (auto it = cmds.rbegin(); it != cmds.rend(); ++it) {
    std::vector<std::string> subs;
    for (CLI::App* s : it->app->get_subcommands([](CLI::App* a) { return shown(a); })) subs.push_back(s->get_name());
    o << "        '" << it->path << "'|'" << it->path << " '*)\n";
    // A nested command's own arguments start after its name.
    if (it->path.find(' ') != std::string::npos) o << "          shift words; (( CURRENT-- ))\n";
    zsh_arguments(o, it->app, subs, "          ");
    o << "          ;;\n";
  }
  o << "      esac\n"
    << "      ;;\n"
    << "  esac\n"
    << "}\n"
    << "_plumb \"$@\"\n";
  return o.str();
}

CLI::App& root_of(CLI::App& app) {
  CLI::App* a = &app;
  while (a->get_parent() != nullptr) a = a->get_parent();
  return *a;
}



}  // namespace
CommandRun man_command(CLI::App& app) {
  return [&app] {
    std::cout << man_page(root_of(app));
    return 0;
  };
}

CommandRun completion_command(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  app.add_option("shell", *shell, "shell: bash|zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  return [&app, shell] {
    CLI::App& root = root_of(app);
    std::cout << (*shell == "zsh" ? zsh_script(root) : bash_script(root));
    return 0;
  };
}

}  // namespace plumb
