// Faults that recur across reboots: the same hardware fault (kind, subject, code: Xid 79 on GPU
// 0000:3b:00) in the stored events of more than one boot is reset-then-watch; after
// history.reboots_to_inspect reboots it goes to hardware inspection. Acknowledged events do not count.
#include "rules/history.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "collect/error_counters.h"
#include "core/catalog.h"
#include "core/iso_time.h"
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

std::string failing_key(const Finding& f) { return f.id + "|" + f.subject; }

namespace {

const char* kRecurringId = "l3.platform.recurring_fault";
const char* kRisingId = "l3.platform.rising_counter";
const char* kFlapsId = "l3.platform.link_flaps";

// The checks whose failure is a link state, which a node passes through while it boots or a
// cable is reseated: they fail only once the state has held for history.persist_minutes.
const std::set<std::string> kPersistent{"l3.comm.ib_ports"};

long long seconds_of(const std::string& iso) { return parse_iso8601(iso).value_or(0); }

std::string minutes_text(long long seconds) { return fmt_num(static_cast<double>(seconds) / 60.0, seconds % 60 == 0 ? 0 : 1); }

// The action and re-check of a counter, by its family.
void counter_advice(Finding& x, const CounterSample& c) {
  const std::string family = c.counter.substr(0, c.counter.find('.'));
  const std::string key = "history.counter_fix_" + family;
  x.arg("action", tr(Lang::en, key)).arg("action_zh", tr(Lang::zh, key));
  if (family == "gpu") x.arg("verify_cmd", "nvidia-smi -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER -i " + c.subject);
  else x.arg("verify_cmd", "cat " + c.source);
}

// A counter that rose within the window: from its reading at the window's start (the last one
// at or before it, or the boot's first) to its latest.
std::vector<Finding> judge_rising_counter(const Facts& f, const Thresholds& th) {
  const auto& h = f.events;
  if (!h.collected) return {};
  const long long window = static_cast<long long>(th.get("history.counter_window_minutes") * 60.0);
  const double soft_fail = th.get("history.correctable_rise_fail");
  const long long now = seconds_of(h.now);
  const std::string threshold = "uncorrectable, fatal, link_downed: any rise; correctable: >= " + fmt_num(soft_fail, 0) + " in " +
                                minutes_text(window) + " min (history.correctable_rise_fail, history.counter_window_minutes)";
  std::map<std::pair<std::string, std::string>, std::vector<const CounterSample*>> series;
  for (const auto& c : h.samples) series[{c.counter, c.subject}].push_back(&c);
  std::vector<Finding> out;
  for (const auto& [key, v] : series) {
    const CounterSample* last = v.back();
    const CounterSample* base = v.front();
    for (const CounterSample* c : v) {
      if (seconds_of(c->time) <= now - window) base = c;
    }
    const std::int64_t rise = last->value - base->value;
    if (base == last || rise <= 0) continue;  // one reading, or a counter reset by its driver
    const bool hard = is_hard_counter(key.first);
    Finding x;
    x.id = kRisingId;
    x.subject = key.second + " " + key.first;
    x.threshold = threshold;
    x.status = hard || static_cast<double>(rise) >= soft_fail ? Status::fail : Status::warn;
    x.variant = hard ? "hard" : (x.status == Status::fail ? "fail" : "warn");
    const long long span = std::max(0LL, seconds_of(last->time) - seconds_of(base->time));
    x.arg("counter", key.first).arg("device", key.second).arg("rise", std::to_string(rise)).arg("minutes", minutes_text(span));
    x.arg("from", std::to_string(base->value)).arg("to", std::to_string(last->value)).arg("limit", fmt_num(soft_fail, 0));
    x.arg("from_time", base->time).arg("to_time", last->time);
    counter_advice(x, *last);
    x.add(key.first + " at " + base->time, std::to_string(base->value), base->source);
    x.add(key.first + " at " + last->time, std::to_string(last->value), last->source);
    out.push_back(std::move(x));
  }
  if (out.empty()) {
    Finding p;
    p.id = kRisingId;
    p.status = Status::pass;
    p.threshold = threshold;
    p.arg("counters", std::to_string(series.size())).arg("readings", std::to_string(h.samples.size()));
    p.add("counter readings of this boot", std::to_string(h.samples.size()), h.state_db);
    out.push_back(std::move(p));
  }
  return out;
}

// A link that went down again and again within the window (acknowledged events left out).
std::vector<Finding> judge_link_flaps(const Facts& f, const Thresholds& th) {
  const auto& h = f.events;
  if (!h.collected) return {};
  const long long window = static_cast<long long>(th.get("history.flap_window_minutes") * 60.0);
  const double limit = th.get("history.flaps_fail");
  const long long now = seconds_of(h.now);
  const std::string threshold = ">= " + fmt_num(limit, 0) + " downs in " + minutes_text(window) + " min (history.flaps_fail, history.flap_window_minutes)";
  std::map<std::pair<std::string, std::string>, std::vector<const NodeEvent*>> downs;
  for (const auto& e : h.events) {
    if (e.acked || (e.kind != "ib_link" && e.kind != "nvlink") || e.code != "down") continue;
    if (seconds_of(e.time) < now - window) continue;
    downs[{e.kind, e.subject}].push_back(&e);
  }
  std::vector<Finding> out;
  for (const auto& [key, v] : downs) {
    if (v.size() < 2) continue;
    Finding x;
    x.id = kFlapsId;
    x.subject = key.second + " " + key.first;
    x.threshold = threshold;
    x.status = static_cast<double>(v.size()) >= limit ? Status::fail : Status::warn;
    x.arg("device", key.second).arg("kind", key.first).arg("downs", std::to_string(v.size()));
    x.arg("minutes", minutes_text(window)).arg("limit", fmt_num(limit, 0));
    x.arg("first", v.front()->time).arg("last", v.back()->time);
    for (const NodeEvent* e : v) x.add("link down at " + e->time, e->evidence, e->source + " (event " + std::to_string(e->id) + ")");
    out.push_back(std::move(x));
  }
  if (out.empty()) {
    Finding p;
    p.id = kFlapsId;
    p.status = Status::pass;
    p.threshold = threshold;
    p.arg("minutes", minutes_text(window));
    p.add("stored events", std::to_string(h.events.size()), h.state_db);
    out.push_back(std::move(p));
  }
  return out;
}

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

void hold_until_persistent(std::vector<Finding>& findings, const NodeEventFacts& h, const Thresholds& th) {
  if (!h.collected) return;
  const long long need = static_cast<long long>(th.get("history.persist_minutes") * 60.0);
  const long long now = seconds_of(h.now);
  for (auto& f : findings) {
    if ((f.status != Status::fail && f.status != Status::warn) || kPersistent.count(f.id) == 0) continue;
    // Since when it has held: the earliest cycle of the unbroken run of earlier cycles that show
    // it, this one's time when none does.
    std::string since = h.now;
    const std::string key = failing_key(f);
    for (auto it = h.cycles.rbegin(); it != h.cycles.rend(); ++it) {
      if (std::find(it->failing.begin(), it->failing.end(), key) == it->failing.end()) break;
      since = it->time;
    }
    const bool persisted = now - seconds_of(since) >= need;
    f.status = persisted ? Status::fail : Status::warn;
    if (!persisted) f.arg("held", "1");
    f.add("failing since", since, "plumb agent cycles of boot " + h.boot_id);
    f.add("fails after", minutes_text(need) + " min (history.persist_minutes)", h.state_db);
  }
}

void rules_history_tables(Tables& t) {
  t.add_thresholds({{"history.reboots_to_inspect", 2, "count",
                     {"reboots a hardware fault may survive before plumb agent sends the node to hardware inspection",
                      "硬件故障在 plumb agent 要求硬件检修之前可经历的重启次数"}},
                    {"history.retention_days", 30, "days",
                     {"how long plumb agent keeps events and results in its state database",
                      "plumb agent 在状态数据库中保留事件和结果的天数"}},
                    {"history.max_db_mb", 256, "MiB",
                     {"the most the rows of plumb agent's state database may take; past it the oldest go first",
                      "plumb agent 状态数据库中数据行最多占用的空间；超出时先删除最旧的行"}},
                    {"history.counter_window_minutes", 60, "minutes",
                     {"the window over which plumb agent judges how much an error counter rose",
                      "plumb agent 判断错误计数器增长量的时间窗口"}},
                    {"history.correctable_rise_fail", 100, "count",
                     {"correctable errors (IB symbol errors, PCIe AER correctable, ECC corrected) in one window that fail",
                      "一个窗口内判定为失败的可纠正错误数（IB 符号错误、PCIe AER 可纠正错误、ECC 已纠正错误）"}},
                    {"history.flap_window_minutes", 60, "minutes",
                     {"the window over which plumb agent counts a link's downs", "plumb agent 统计链路断开次数的时间窗口"}},
                    {"history.flaps_fail", 3, "count",
                     {"downs of one link within the window that fail (two warn)", "窗口内同一链路断开达到此次数即判定失败（两次为警告）"}},
                    {"history.persist_minutes", 5, "minutes",
                     {"how long a link-state failure must hold in plumb agent's cycles before it fails (a port down at boot is not a fault)",
                      "链路状态故障须在 plumb agent 的各轮检查中持续多久才判定失败（启动时端口未就绪不算故障）"}}});
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
        {kRisingId, Layer::L3, Pillar::platform, Section::environment,
         {"Error counters that rise over time (plumb agent)", "随时间上升的错误计数器（plumb agent）"},
         {{"pass",
           {"no error counter rose ({counters} counters, {readings} stored readings in this boot).",
            "没有错误计数器上升（本次启动共 {counters} 个计数器、{readings} 条已存储读数）。"}},
          {"hard",
           {"{counter} on {device} rose by {rise} in {minutes} min ({from} at {from_time}, {to} at {to_time}); every increase of this counter is a fault.",
            "{device} 的 {counter} 在 {minutes} 分钟内增加了 {rise}（{from_time} 为 {from}，{to_time} 为 {to}）；该计数器的每次增加都是故障。"}},
          {"fail",
           {"{counter} on {device} rose by {rise} in {minutes} min ({from} at {from_time}, {to} at {to_time}), at or above {limit} per window: the link or device is degrading.",
            "{device} 的 {counter} 在 {minutes} 分钟内增加了 {rise}（{from_time} 为 {from}，{to_time} 为 {to}），达到每窗口 {limit} 的阈值：链路或设备正在劣化。"}},
          {"warn",
           {"{counter} on {device} rose by {rise} in {minutes} min ({from} at {from_time}, {to} at {to_time}), below {limit} per window; the agent keeps watching the rate.",
            "{device} 的 {counter} 在 {minutes} 分钟内增加了 {rise}（{from_time} 为 {from}，{to_time} 为 {to}），低于每窗口 {limit}；agent 将继续观察增长速度。"}}},
         {"{action}", "{action_zh}"},
         "{verify_cmd}",
         {},
         {"l2.comm.allreduce_slow"}},
        {kFlapsId, Layer::L3, Pillar::comm, Section::distributed,
         {"Links that flap (plumb agent)", "反复断开的链路（plumb agent）"},
         {{"pass",
           {"no link went down more than once in the last {minutes} min.", "最近 {minutes} 分钟内没有链路断开超过一次。"}},
          {"warn",
           {"{kind} {device} went down {downs} times in {minutes} min ({first} to {last}), below the {limit} that fail.",
            "{kind} {device} 在 {minutes} 分钟内断开 {downs} 次（{first} 至 {last}），未达到判定失败的 {limit} 次。"}},
          {"fail",
           {"{kind} {device} went down {downs} times in {minutes} min ({first} to {last}): a link that flaps stalls every collective that crosses it.",
            "{kind} {device} 在 {minutes} 分钟内断开 {downs} 次（{first} 至 {last}）：反复断开的链路会使经过它的每个集合通信停顿。"}}},
         {"Reseat or replace the cable or transceiver of {device} and check the switch port (ibstat, mlxlink -d {device} -m, iblinkinfo); "
          "drain the node while it flaps; after the repair acknowledge the events (plumb events ack ID --reason TEXT)",
          "重新插拔或更换 {device} 的线缆或光模块并检查交换机端口（ibstat、mlxlink -d {device} -m、iblinkinfo）；"
          "链路反复断开期间排空节点；修复后确认这些事件（plumb events ack ID --reason TEXT）"},
         "plumb events --kind {kind} --since {minutes}m",
         {},
         {"l2.comm.allreduce_slow"}},
    };
  });
  t.add_ui([] {
    return std::vector<UiString>{
        {"history.action_reset",
         {"reset the GPU (nvidia-smi -r) or reboot the node, then let the agent watch the next boot",
          "重置 GPU（nvidia-smi -r）或重启节点，然后由 agent 观察下一次启动"}},
        {"history.counter_fix_ib",
         {"check the cable, transceiver and switch port of the IB/RoCE port (ibstat, mlxlink -m, ibdiagnet); reseat or replace what the "
          "counters point at",
          "检查该 IB/RoCE 端口的线缆、光模块和交换机端口（ibstat、mlxlink -m、ibdiagnet）；重新插拔或更换计数器指向的部件"}},
        {"history.counter_fix_pcie",
         {"reseat the card and check its slot and riser (lspci -vv: the AER status of the function); errors that keep rising need "
          "a hardware inspection",
          "重新插拔该卡并检查插槽和转接卡（lspci -vv：该设备的 AER 状态）；持续上升的错误需要硬件检修"}},
        {"history.counter_fix_gpu",
         {"drain the GPU: rising uncorrectable ECC errors, retired pages or remapped rows mean failing memory (NVIDIA's dynamic "
          "page retirement and row remapping guides); reset the GPU to apply pending retirements, and send it for replacement if they keep rising",
          "排空该 GPU：不可纠正 ECC 错误、退役页或重映射行持续上升表示显存故障（NVIDIA 动态页退役与行重映射文档）；"
          "重置 GPU 以应用待处理的退役，若仍持续上升则送修更换"}},
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
        {"{counter} at {time}", "{counter}（{time}）"},
        {"counter readings of this boot", "本次启动的计数器读数"},
        {"link down at {time}", "链路断开于 {time}"},
        {"{source} (event {id})", "{source}（事件 {id}）"},
        {"failing since", "故障开始于"},
        {"fails after", "判定失败的持续时间"},
        {"{n} min (history.persist_minutes)", "{n} 分钟（history.persist_minutes）"},
        {"plumb agent cycles of boot {id}", "启动 {id} 中 plumb agent 的各轮检查"},
        {"uncorrectable, fatal, link_downed: any rise; correctable: >= {n} in {m} min (history.correctable_rise_fail, history.counter_window_minutes)",
         "不可纠正、致命、link_downed：任何增加；可纠正：{m} 分钟内 >= {n}（history.correctable_rise_fail、history.counter_window_minutes）"},
        {">= {n} downs in {m} min (history.flaps_fail, history.flap_window_minutes)", "{m} 分钟内断开 >= {n} 次（history.flaps_fail、history.flap_window_minutes）"},
    };
  });
  t.add_rule({kRecurringId, {}, judge_recurring_fault, "agent"});
  t.add_rule({kRisingId, {}, judge_rising_counter, "agent"});
  t.add_rule({kFlapsId, {}, judge_link_flaps, "agent"});
}

}  // namespace plumb
