// Names of statuses, layers, pillars and sections as they appear in JSON and ids.
#include "core/finding.h"

#include <array>
#include <stdexcept>

#include "core/json.h"

namespace plumb {

namespace {
template <class E, std::size_t N>
bool parse_enum(const std::array<const char*, N>& names, const std::string& s, E& out) {
  for (std::size_t i = 0; i < N; ++i) {
    if (s == names[i]) {
      out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}
constexpr std::array<const char*, 5> kFindingStatus{"fail", "warn", "skip", "info", "pass"};
constexpr std::array<const char*, 3> kLayer{"L1", "L2", "L3"};
constexpr std::array<const char*, 6> kPillar{"data", "compute", "memory", "comm", "serving", "platform"};
constexpr std::array<const char*, 6> kSection{"environment", "gpu", "framework", "data", "distributed", "baseline"};
}  // namespace

const char* status_name(Status s) { return kFindingStatus.at(static_cast<std::size_t>(s)); }
const char* layer_name(Layer l) { return kLayer.at(static_cast<std::size_t>(l)); }
const char* pillar_name(Pillar p) { return kPillar.at(static_cast<std::size_t>(p)); }
const char* section_name(Section s) { return kSection.at(static_cast<std::size_t>(s)); }
bool parse_status(const std::string& s, Status& out) { return parse_enum(kFindingStatus, s, out); }
bool parse_layer(const std::string& s, Layer& out) { return parse_enum(kLayer, s, out); }
bool parse_pillar(const std::string& s, Pillar& out) { return parse_enum(kPillar, s, out); }
bool parse_section(const std::string& s, Section& out) { return parse_enum(kSection, s, out); }

void to_json(json& j, Status s) { j = status_name(s); }
void from_json(const json& j, Status& s) {
  if (!parse_status(j.get<std::string>(), s)) throw std::runtime_error("unknown status " + j.dump());
}

int exit_code_for(const std::vector<Finding>& findings) {
  for (const auto& f : findings) {
    if (f.status == Status::fail) return 1;
  }
  return 0;
}

}  // namespace plumb
