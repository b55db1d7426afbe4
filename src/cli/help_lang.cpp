// Help texts in the user's language (see cli/help_lang.h).
#include "cli/help_lang.h"

#include "core/phrases.h"
#include "core/tables.h"

namespace plumb {

namespace {


void localize_app(CLI::App& app, Lang lang) {
  app.description(localize(lang, app.get_description()));
  if (app.get_group() == "Subcommands") app.group(tr(lang, "help.group_subcommands"));
  for (CLI::Option* o : app.get_options([](const CLI::Option*) { return true; })) {
    o->description(localize(lang, o->get_description()));
    if (o->get_group() == "Options") o->group(tr(lang, "help.group_options"));
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) localize_app(*sub, lang);
}

}  // namespace

Lang help_lang(const std::vector<std::string>& args) {
  std::string flag;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--lang" && i + 1 < args.size()) flag = args[i + 1];
    if (args[i].rfind("--lang=", 0) == 0) flag = args[i].substr(7);
  }
  return detect_lang(flag);
}

void localize_help(CLI::App& app, Lang lang) {
  if (lang == Lang::en) return;
  auto fmt = app.get_formatter();
  for (const auto& [key, label] : {std::pair{"Usage", "help.usage"}, {"OPTIONS", "help.options"},
                                   {"SUBCOMMAND", "help.subcommand"}, {"Positionals", "help.positionals"},
                                   {"REQUIRED", "help.required"}, {"Excludes", "help.excludes"}, {"Needs", "help.needs"}}) {
    fmt->label(key, tr(lang, label));
  }
  localize_app(app, lang);
}

void cli_help_lang_tables(Tables& t) {
  t.add_ui([] {
  return std::vector<UiString>{
    {"help.usage", {"Usage", "用法"}},
    {"help.options", {"OPTIONS", "选项"}},
    {"help.subcommand", {"SUBCOMMAND", "子命令"}},
    {"help.positionals", {"Positionals", "位置参数"}},
    {"help.required", {"REQUIRED", "必需"}},
    {"help.excludes", {"Excludes", "互斥"}},
    {"help.needs", {"Needs", "依赖"}},
    {"help.group_options", {"Options", "选项"}},
    {"help.group_subcommands", {"Subcommands", "子命令"}},
    {"help.start", {"Start with `plumb check`; `plumb help COMMAND` (or `plumb COMMAND --help`) lists a command's options.",
                    "从 `plumb check` 开始；`plumb help COMMAND`（或 `plumb COMMAND --help`）列出某个命令的选项。"}},
};
});
}

}  // namespace plumb
