// The bodies of every Facts and Finding JSON conversion, compiled once for the whole program
// (headers only declare them: see core/json_fwd.h).
#define PLUMB_JSON_DEFINE
#include "core/json.h"

#include "core/facts.h"
#include "core/finding.h"
