// Parser of `scontrol show node` output (see slurm_node.h).
#include "collect/slurm_node.h"

#include <algorithm>
#include <array>
#include <map>

#include "core/text.h"

namespace plumb {

namespace {

// Keys slurm_sprint_node_table prints (Slurm 22.05 to 24.05). Inside a value that may hold
// spaces (OS, Reason, Comment, Extra) only these end the value, so a reason such as
// "bad dimm slot=3" stays whole.
constexpr auto kKnownKeys = std::to_array<std::string_view>({
    "NodeName", "Arch", "CoresPerSocket", "CPUAlloc", "CPUEfctv", "CPUTot", "CPULoad",
    "AvailableFeatures", "ActiveFeatures", "Gres", "GresDrain", "GresUsed", "NodeAddr",
    "NodeHostName", "BcastAddr", "Port", "Version", "OS", "RealMemory", "AllocMem", "FreeMem",
    "Sockets", "Boards", "CoreSpecCount", "CPUSpecList", "MemSpecLimit", "State",
    "ThreadsPerCore", "TmpDisk", "Weight", "Owner", "MCS_label", "NextState", "Partitions",
    "BootTime", "SlurmdStartTime", "LastBusyTime", "ResumeAfterTime", "CfgTRES", "AllocTRES",
    "CapWatts", "CurrentWatts", "AveWatts", "ExtSensorsJoules", "ExtSensorsWatts",
    "ExtSensorsTemp", "Reason", "Comment", "Extra", "InstanceId", "InstanceType", "Topology",
    "Cluster", "Tres", "GresCfg", "ReservationName", "Features", "Power", "LastBusy",
    "NodeFeatures", "CpuBind", "MemoryRatio", "AllocTres", "Energy"});

bool known_key(std::string_view k) {
  return std::find(kKnownKeys.begin(), kKnownKeys.end(), k) != kKnownKeys.end();
}

bool multi_word(std::string_view k) { return k == "OS" || k == "Reason" || k == "Comment" || k == "Extra"; }

// Whether `key` ends the multi-word value of `current`. Reason, Comment and Extra are printed
// last (in that order), so inside them only a later key ends the value: an operator's reason
// "bad dimm slot=3 State=ok" stays whole. Inside OS any known key does.
bool ends_value(std::string_view current, std::string_view key) {
  if (current == "Reason") return key == "Comment" || key == "Extra" || key == "NodeName";
  if (current == "Comment") return key == "Extra" || key == "NodeName";
  if (current == "Extra") return key == "NodeName";
  return known_key(key);
}

// "Key=value" -> Key, when the token has the shape of a Slurm key ("Foo_bar=...").
std::string_view key_of(std::string_view token) {
  auto eq = token.find('=');
  if (eq == std::string_view::npos || eq == 0) return {};
  auto k = token.substr(0, eq);
  if ((k.front() < 'A' || k.front() > 'Z') && (k.front() < 'a' || k.front() > 'z')) return {};
  for (char c : k) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return {};
  }
  return k;
}

using Record = std::map<std::string, std::string, std::less<>>;

// Splits the reason's trailing " [user@2024-05-01T10:00:00]" stamp off.
void split_stamp(const std::string& reason, SlurmNode& n) {
  n.reason = reason;
  if (reason.empty() || reason.back() != ']') return;
  auto open = reason.rfind('[');
  if (open == std::string::npos) return;
  auto inner = std::string_view(reason).substr(open + 1, reason.size() - open - 2);
  auto at = inner.find('@');
  if (at == std::string_view::npos) return;
  n.reason_by = std::string(inner.substr(0, at));
  auto end = open;
  while (end > 0 && reason[end - 1] == ' ') --end;
  n.reason = reason.substr(0, end);
}

SlurmNode node_of(const Record& r) {
  SlurmNode n;
  auto get = [&](std::string_view k) {
    auto it = r.find(k);
    return it == r.end() ? std::string() : it->second;
  };
  n.name = get("NodeName");
  n.state = get("State");
  auto parts = split(n.state, '+');
  if (!parts.empty()) n.base_state = std::string(parts.front());
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (!parts[i].empty()) n.flags.emplace_back(parts[i]);
  }
  // sinfo-style suffixes on the base state ("DOWN*", "IDLE~") carry no extra meaning here.
  while (!n.base_state.empty() && (n.base_state.back() == '*' || n.base_state.back() == '~' ||
                                   n.base_state.back() == '#' || n.base_state.back() == '$' ||
                                   n.base_state.back() == '@' || n.base_state.back() == '^' ||
                                   n.base_state.back() == '-' || n.base_state.back() == '!' ||
                                   n.base_state.back() == '%')) {
    n.base_state.pop_back();
  }
  split_stamp(get("Reason"), n);
  return n;
}

}  // namespace

bool SlurmNode::has_flag(std::string_view f) const { return std::find(flags.begin(), flags.end(), f) != flags.end(); }

bool SlurmNode::unavailable() const {
  return has_flag("DRAIN") || has_flag("FAIL") || base_state == "DOWN" || base_state == "DRAINED" ||
         base_state == "DRAINING" || base_state == "DRAIN" || base_state == "FAIL";
}

Result<std::vector<SlurmNode>> parse_scontrol_nodes(std::string_view text) {
  std::vector<Record> records;
  for (auto line : split_lines(text)) {
    std::string* current = nullptr;
    std::string_view current_key;
    for (auto token : split_ws(line)) {
      auto key = key_of(token);
      bool starts = !key.empty() && (current == nullptr || !multi_word(current_key) || ends_value(current_key, key));
      if (starts) {
        if (key == "NodeName") records.emplace_back();
        if (records.empty()) {  // fields before any NodeName= belong to no node
          current = nullptr;
          continue;
        }
        auto& rec = records.back();
        auto value = std::string(token.substr(key.size() + 1));
        auto [it, fresh] = rec.try_emplace(std::string(key), value);
        current = fresh ? &it->second : nullptr;  // a repeated key keeps its first value
        current_key = key;
        continue;
      }
      if (current != nullptr) {
        if (!current->empty()) *current += ' ';
        *current += std::string(token);
      }
    }
  }
  if (records.empty()) return make_error(ErrorKind::invalid, "scontrol output holds no NodeName= record");
  std::vector<SlurmNode> nodes;
  nodes.reserve(records.size());
  for (const auto& r : records) nodes.push_back(node_of(r));
  return nodes;
}

Result<SlurmNode> parse_scontrol_node(std::string_view text, const std::string& name) {
  auto nodes = parse_scontrol_nodes(text);
  if (!nodes) return nodes.error();
  if (name.empty()) {
    if (nodes->size() == 1) return nodes->front();
    return make_error(ErrorKind::invalid, "scontrol output holds " + std::to_string(nodes->size()) + " nodes");
  }
  for (auto& n : *nodes) {
    if (n.name == name) return std::move(n);
  }
  return make_error(ErrorKind::absent, "scontrol output holds no node named " + name);
}

}  // namespace plumb
