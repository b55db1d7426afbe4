// `plumb h5`: its options and its pipeline (engine/h5.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/artefact.h"

namespace plumb {

struct H5Options {
  std::vector<std::string> files;
  std::string lib;
  std::string timeout = "2m";
  ArtefactOptions common;
};


int run_h5(const H5Options& a);

}  // namespace plumb
