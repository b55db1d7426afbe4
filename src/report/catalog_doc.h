// The check list (`plumb check --list`) and docs/findings.md, both generated from the registries
// and the catalogue so documentation cannot drift from the code.
#pragma once

#include <string>

#include "core/i18n.h"

namespace plumb {

// format: "text" (one line per check) or "md" (the finding catalogue document).
std::string render_catalog(Lang lang, const std::string& format);

}  // namespace plumb
