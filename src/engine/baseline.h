// `plumb baseline`: its options and its pipeline (engine/baseline.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/history.h"
#include "engine/output.h"

namespace plumb {

struct BaselineOptions {
  std::string action, arg;
  bool no_set = false;
  std::string run;
  HistoryOptions history;
  std::string lang;
};


int run_baseline(const BaselineOptions& a);

}  // namespace plumb
