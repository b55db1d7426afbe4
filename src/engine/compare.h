// `plumb compare` and `plumb history`: their options and pipelines (engine/compare.cpp).
#pragma once

#include <string>
#include <vector>

#include "engine/history.h"
#include "engine/output.h"

namespace plumb {

struct CompareOptions {
  std::string run;
  HistoryOptions history;
  OutputOptions output;
  std::string config;
  double warn_pct = -1, fail_pct = -1;
};


struct HistoryListOptions {
  std::string metric;
  int limit = 30;
  HistoryOptions history;
  OutputOptions output;
};


int run_compare(const CompareOptions& a);
int run_history(const HistoryListOptions& a);

}  // namespace plumb
