// `plumb diff`: its options and its pipeline (engine/diff.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/output.h"

namespace plumb {

struct DiffOptions {
  std::string a, b;
  OutputOptions output;
};


int run_diff(const DiffOptions& args);

}  // namespace plumb
