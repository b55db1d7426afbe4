// A catalogue row of a benchmark judgement (an L2 row in the Baseline comparison section), shared
// by the benchmark and load-test rules.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "core/catalog.h"

namespace plumb {

inline CatalogEntry bench_row(std::string id, Pillar p, Text title, std::map<std::string, Text> msgs, Text fix,
                              std::string verify, Text gain = {}) {
  CatalogEntry e;
  e.id = std::move(id);
  e.layer = Layer::L2;
  e.pillar = p;
  e.section = Section::baseline;
  e.title = std::move(title);
  e.messages = std::move(msgs);
  e.fix = std::move(fix);
  e.verify = std::move(verify);
  e.gain = std::move(gain);
  return e;
}

}  // namespace plumb
