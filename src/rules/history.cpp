// Faults that recur across reboots: the same hardware fault (kind, subject, code: Xid 79 on GPU
// 0000:3b:00) in the stored events of more than one boot is reset-then-watch; after
// history.reboots_to_inspect reboots it goes to hardware inspection. Acknowledged events do not count.
#include "rules/history.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/catalog.h"
#include "core/knowledge/xid.h"
#include "core/registry.h"
#include "core/tables.h"
#include "core/text.h"

namespace plumb {

std::string finding_for_event_kind(const std::string& kind, const std::string& code) {
  if (kind == "xid") return "l3.gpu.xid";
  if (kind == "oom_kill") return "l3.kernel.oom_kills";
  if (is_hardware_fault(kind, code)) return "l3.platform.recurring_fault";
  return "";
}

bool is_hardware_fault(const std::string& kind, const std::string& code) {
  static const std::set<std::string> hardware{"xid", "sxid", "nvlink", "pcie_aer", "ecc", "gpu_lost"};
  if (hardware.count(kind) == 0) return false;
  if (kind == "xid") {
    auto n = parse_int(code);
    const XidInfo* info = n ? find_xid(static_cast<int>(*n)) : nullptr;
    if (info != nullptr && info->app) return false;
  }
  return true;
}

namespace {

const char* kRecurringId = "l3.platform.recurring_fault";

// One fault's boots, in the order first seen, with the first event of each.
struct Recurrence {
  std::vector<std::string> boots;
  std::map<std::string, const NodeEvent*> first;
};

std::vector<Finding> judge_recurring_fault(const Facts& f, const Thresholds& th) {
  const auto& h = f.events;
  if (!h.collected) return {};
  const double limit = th.get("history.reboots_to_inspect");
  const std::string threshold = "hardware inspection after " + fmt_num(limit, 0) + " reboots (history.reboots_to_inspect)";
  std::map<std::tuple<std::string, std::string, std::string>, Recurrence> faults;
  std::set<std::string> boots;
  // Oldest first, so each boot's first event and the boots' order are those of the log.
  std::vector<const NodeEvent*> order;
  order.reserve(h.events.size());
  for (const auto& e : h.events) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const NodeEvent* a, const NodeEvent* b) { return a->time != b->time ? a->time < b->time : a->id < b->id; });
  for (const NodeEvent* e : order) {
    boots.insert(e->boot_id);
    if (e->acked || !is_hardware_fault(e->kind, e->code)) continue;
    Recurrence& r = faults[{e->kind, e->subject, e->code}];
    if (r.first.emplace(e->boot_id, e).second) r.boots.push_back(e->boot_id);
  }
  std::vector<Finding> out;
  for (const auto& [key, r] : faults) {
    if (r.boots.size() < 2) continue;
    const auto& [kind, subject, code] = key;
    const double reboots = static_cast<double>(r.boots.size() - 1);
    Finding x;
    x.id = kRecurringId;
    x.subject = subject + " " + kind + (code.empty() ? "" : " " + code);
    x.threshold = threshold;
    const bool inspect = reboots >= limit;
    x.status = inspect ? Status::fail : Status::warn;
    x.variant = inspect ? "inspect" : "reset";
    std::string list;
    for (const auto& b : r.boots) list += (list.empty() ? "" : ", ") + b + " (" + r.first.at(b)->time + ")";
    x.arg("kind", kind).arg("code", code).arg("device", subject).arg("boots", std::to_string(r.boots.size()));
    x.arg("reboots", fmt_num(reboots, 0)).arg("limit", fmt_num(limit, 0)).arg("boot_list", list);
    const std::string action = inspect ? "history.action_inspect" : "history.action_reset";
    x.arg("action", tr(Lang::en, action)).arg("action_zh", tr(Lang::zh, action));
    for (const auto& b : r.boots) {
      const NodeEvent* e = r.first.at(b);
      x.add("boot id " + b, e->evidence, e->source + " (event " + std::to_string(e->id) + ", " + e->time + ")");
    }
    out.push_back(std::move(x));
  }
  if (out.empty()) {
    Finding p;
    p.id = kRecurringId;
    p.status = Status::pass;
    p.threshold = threshold;
    p.arg("events", std::to_string(h.events.size())).arg("boots", std::to_string(boots.size()));
    p.add("stored events", std::to_string(h.events.size()), h.state_db);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

void rules_history_tables(Tables& t) {
  t.add_thresholds({{"history.reboots_to_inspect", 2, "count",
                     {"reboots a hardware fault may survive before plumb agent sends the node to hardware inspection",
                      "硬件故障在 plumb agent 要求硬件检修之前可经历的重启次数"}},
                    {"history.retention_days", 30, "days",
                     {"how long plumb agent keeps events and results in its state database",
                      "plumb agent 在状态数据库中保留事件和结果的天数"}}});
  t.add_findings([] {
    return std::vector<CatalogEntry>{
        {kRecurringId, Layer::L3, Pillar::platform, Section::environment,
         {"Hardware faults that recur across reboots (plumb agent)", "跨重启反复出现的硬件故障（plumb agent）"},
         {{"pass",
           {"no hardware fault recurred across boots ({events} events stored over {boots} boot(s)).",
            "没有跨重启反复出现的硬件故障（共存储 {events} 个事件，涉及 {boots} 次启动）。"}},
          {"reset",
           {"{kind} {code} on {device} came back after a reboot: seen in {boots} boots ({boot_list}); "
            "{reboots} reboot(s), below the {limit} after which it goes to hardware inspection.",
            "{device} 上的 {kind} {code} 在重启后再次出现：共出现在 {boots} 次启动中（{boot_list}）；"
            "已重启 {reboots} 次，未达到要求硬件检修的 {limit} 次。"}},
          {"inspect",
           {"{kind} {code} on {device} survived {reboots} reboots: seen in {boots} boots ({boot_list}); "
            "at {limit} reboots (history.reboots_to_inspect) a reset no longer counts as a fix: hardware inspection.",
            "{device} 上的 {kind} {code} 经历 {reboots} 次重启仍然出现：共出现在 {boots} 次启动中（{boot_list}）；"
            "达到 {limit} 次重启（history.reboots_to_inspect）后重置不再算作修复：需要硬件检修。"}}},
         {"{action}", "{action_zh}"},
         "plumb events --kind {kind}",
         {},
         {}},
    };
  });
  t.add_ui([] {
    return std::vector<UiString>{
        {"history.action_reset",
         {"reset the GPU (nvidia-smi -r) or reboot the node, then let the agent watch the next boot",
          "重置 GPU（nvidia-smi -r）或重启节点，然后由 agent 观察下一次启动"}},
        {"history.action_inspect",
         {"drain the node and send it to hardware inspection (reseat or replace the part in the evidence); after the "
          "repair acknowledge the events: plumb events ack ID --reason TEXT",
          "排空节点并送硬件检修（重新插拔或更换证据中的部件）；修复后确认这些事件：plumb events ack ID --reason TEXT"}},
    };
  });
  t.add_phrases([] {
    return std::vector<Phrase>{
        {"boot id {id}", "启动 ID {id}"},
        {"stored events", "已存储的事件"},
        {"{source} (event {id}, {time})", "{source}（事件 {id}，{time}）"},
        {"hardware inspection after {n} reboots (history.reboots_to_inspect)", "重启 {n} 次后需硬件检修（history.reboots_to_inspect）"},
    };
  });
  t.add_rule({kRecurringId, {}, judge_recurring_fault, "agent"});
}

}  // namespace plumb
