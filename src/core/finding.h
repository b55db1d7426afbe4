// Finding: one judged statement about the machine, with its evidence. Words come from the
// catalogue (core/catalog.h); a finding only carries the facts that fill them in.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/json_fwd.h"

namespace plumb {

// Ordered by how much attention they need in a report: fail first.
enum class Status { fail, warn, skip, info, pass };
enum class Layer { L1, L2, L3 };
enum class Pillar { data, compute, memory, comm, serving, platform };
// Sections of the health report, in report order (the health report template).
enum class Section { environment, gpu, framework, data, distributed, baseline };

const char* status_name(Status s);
const char* layer_name(Layer l);
const char* pillar_name(Pillar p);
const char* section_name(Section s);
bool parse_status(const std::string& s, Status& out);
bool parse_layer(const std::string& s, Layer& out);
bool parse_pillar(const std::string& s, Pillar& out);
bool parse_section(const std::string& s, Section& out);

struct Evidence {
  std::string what;    // "scheduler", "memory.max", "OMP_NUM_THREADS"
  std::string value;   // as read, with unit where it has one
  std::string source;  // "/sys/block/nvme0n1/queue/scheduler" (never root-prefixed)
  bool operator==(const Evidence&) const = default;
};
PLUMB_JSON(Evidence, what, value, source)

struct Finding {
  std::string id;                          // stable dotted id, a catalogue row
  Status status = Status::info;
  std::string subject = "host";            // host | nvme0n1 | gpu 0000:3b:00.0 | rank 3 ...
  std::string variant;                     // message variant; empty: the status name
  std::map<std::string, std::string> args; // values for the {placeholders} of the message/fix/verify
  std::vector<Evidence> evidence;
  std::string threshold;                   // "== none", ">= 1 GiB" (language-neutral)
  bool operator==(const Finding&) const = default;

  Finding& arg(const std::string& k, std::string v) { args[k] = std::move(v); return *this; }
  Finding& add(std::string what, std::string value, std::string source) {
    evidence.push_back({std::move(what), std::move(value), std::move(source)});
    return *this;
  }
};

// The exit code of a judged report: 1 when any finding failed, else 0.
int exit_code_for(const std::vector<Finding>& findings);

// A status as its name in JSON ("fail"); reading an unknown name throws (core/finding.cpp).
void to_json(json& j, Status s);
void from_json(const json& j, Status& s);
PLUMB_JSON(Finding, id, status, subject, variant, args, evidence, threshold)

}  // namespace plumb
