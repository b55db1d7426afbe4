// `plumb outdiff`: its options and its pipeline (engine/outdiff.cpp).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "engine/artefact.h"

namespace plumb {

struct OutdiffCommandOptions {
  std::string a, b;
  std::string mode = "numpy";
  double atol = std::nan("");
  double rtol = std::nan("");
  bool equal_nan = false;
  ArtefactOptions common;
};


int run_outdiff(const OutdiffCommandOptions& a);

}  // namespace plumb
