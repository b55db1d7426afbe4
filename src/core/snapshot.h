// The snapshot document that `plumb check --save` and every `--format json` report write
// ({"schema_version": 1, "tool", "summary", "facts": {...}, "findings": [...]}), and its one reader:
// `plumb report`, diagnose, diff, baseline, compare and the fleet all read a snapshot here.
#pragma once

#include <string>
#include <string_view>

#include "core/facts.h"
#include "core/json_fwd.h"
#include "core/result.h"

namespace plumb {

inline constexpr int kSchemaVersion = 1;

// The parsed document, checked: its nesting before the library parses it (parse_outside_json),
// a facts object ("facts", or the document itself when it is a bare Facts object with "meta"),
// schema_version 1 when it names one. Errors name `origin` and the problem in one line.
Result<json> read_snapshot(std::string_view text, const std::string& origin);
// The facts object of a document read_snapshot accepted.
const json& snapshot_facts(const json& doc);
// Its facts, typed; a value of the wrong type is "malformed facts (...)".
Result<Facts> facts_from_snapshot(std::string_view text, const std::string& origin);

}  // namespace plumb
