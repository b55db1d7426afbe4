// The command line's help in the user's language: --lang zh anywhere on the command line, else
// LC_ALL/LC_MESSAGES/LANG (core/i18n.h). The texts are phrase rows keyed by the English
// (cli/help_zh.cpp); an option without a row keeps its English description.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/i18n.h"

namespace plumb {

// The language a help or usage text should be in, from the raw arguments and the environment.
Lang help_lang(const std::vector<std::string>& args);
// Translates the descriptions, option groups and CLI11 labels of `app` and its subcommands.
void localize_help(CLI::App& app, Lang lang);

}  // namespace plumb
