// `plumb diff A.json B.json`: the differences between two snapshots that matter for
// reproducibility and speed, grouped with why each group matters. Exit 0: none, 1: some, 2: bad input.
#include <memory>
#include <sstream>

#include "analyze/snapshot_diff.h"
#include "cli/subcommand.h"
#include "core/host_root.h"

namespace plumb {

namespace {

struct DiffArgs {
  std::string a, b;
  OutputOptions output;
};

struct Side {
  std::string file;
  Facts facts;
};

Side load(const std::string& file) {
  auto text = read_user_file(file, 256u << 20);
  if (!text) throw UsageError("cannot read snapshot " + text.error().message);
  auto facts = facts_from_snapshot(*text, file);
  if (!facts) throw UsageError(facts.error().message);
  return {file, std::move(facts.value())};
}

std::string describe(const Side& s) {
  const auto& m = s.facts.meta;
  std::string d = s.file;
  std::string extra;
  if (!m.hostname.empty()) extra += m.hostname;
  if (!m.started_at.empty()) extra += (extra.empty() ? "" : ", ") + m.started_at;
  if (!m.tool_version.empty()) extra += (extra.empty() ? "" : ", ") + std::string("plumb ") + m.tool_version;
  return extra.empty() ? d : d + " (" + extra + ")";
}

int total(const std::map<std::string, int>& m) {
  int n = 0;
  for (const auto& [k, v] : m) n += v;
  return n;
}

std::string identical_line(const SnapshotDiff& d, Lang lang) {
  std::string s;
  for (const auto& g : diff_groups()) {
    auto it = d.identical.find(g);
    if (it == d.identical.end()) continue;
    s += (s.empty() ? "" : ", ") + tr(lang, "diff.group." + g) + " " + std::to_string(it->second);
  }
  return s;
}

std::string render_text(const Side& a, const Side& b, const SnapshotDiff& d, Lang lang, bool md) {
  std::ostringstream os;
  os << (md ? "## " : "") << "plumb diff: " << tr(lang, "diff.title") << "\n\n";
  os << (md ? "- " : "  ") << "A: " << describe(a) << "\n" << (md ? "- " : "  ") << "B: " << describe(b) << "\n\n";
  if (d.differences.empty()) {
    os << tr(lang, "diff.none") << "\n";
  } else {
    os << fill(tr(lang, "diff.summary"), {{"n", std::to_string(d.differences.size())},
                                          {"same", std::to_string(total(d.identical))}})
       << "\n";
  }
  std::string group;
  for (const auto& it : d.differences) {
    if (it.group != group) {
      group = it.group;
      if (md) {
        os << "\n### " << tr(lang, "diff.group." + group) << "\n\n_" << tr(lang, "diff.why") << ": "
           << tr(lang, "diff.why." + group) << "_\n\n| | A | B |\n|---|---|---|\n";
      } else {
        os << "\n" << tr(lang, "diff.group." + group) << "  (" << tr(lang, "diff.why") << ": "
           << tr(lang, "diff.why." + group) << ")\n";
      }
    }
    if (md) {
      auto cell = [](std::string s) {
        for (auto& c : s) {
          if (c == '|') c = '/';
          if (c == '`') c = '\'';
        }
        return "`" + s + "`";
      };
      os << "| " << it.path << " | " << cell(it.a) << " | " << cell(it.b) << " |\n";
    } else {
      os << "  " << it.path << "\n      A: " << it.a << "\n      B: " << it.b << "\n";
    }
  }
  std::string same = identical_line(d, lang);
  if (!same.empty()) os << "\n" << (md ? "**" : "") << tr(lang, "diff.identical") << (md ? "**" : "") << ": " << same << "\n";
  return os.str();
}

std::string render_json_diff(const Side& a, const Side& b, const SnapshotDiff& d, Lang lang) {
  auto side = [](const Side& s) {
    return json{{"file", s.file},
                {"hostname", s.facts.meta.hostname},
                {"started_at", s.facts.meta.started_at},
                {"tool_version", s.facts.meta.tool_version}};
  };
  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["tool"] = {{"name", "plumb"}, {"version", plumb_version()}};
  doc["lang"] = lang_code(lang);
  doc["a"] = side(a);
  doc["b"] = side(b);
  json arr = json::array();
  for (const auto& it : d.differences) {
    arr.push_back({{"group", it.group},
                   {"group_title", tr(lang, "diff.group." + it.group)},
                   {"why", tr(lang, "diff.why." + it.group)},
                   {"path", it.path},
                   {"a", it.a},
                   {"b", it.b}});
  }
  doc["differences"] = arr;
  doc["identical"] = d.identical;
  doc["exit_code"] = d.differences.empty() ? 0 : 1;
  return doc.dump(2) + "\n";
}

int run_diff(const DiffArgs& args) {
  RenderOptions ro = render_options(args.output);
  const std::string& fmt = args.output.format;
  if (fmt != "term" && fmt != "md" && fmt != "json") {
    throw UsageError("unknown format '" + fmt + "' for diff (use term, md or json)");
  }
  Side a = load(args.a);
  Side b = load(args.b);
  SnapshotDiff d = diff_facts(a.facts, b.facts);
  write_output(fmt == "json" ? render_json_diff(a, b, d, ro.lang) : render_text(a, b, d, ro.lang, fmt == "md"),
               args.output.out);
  return d.differences.empty() ? 0 : 1;
}

const bool kDiff = register_subcommand(
    {"diff", "differences between two snapshots that matter for reproducibility and speed", 65, [](CLI::App& app) {
       auto a = std::make_shared<DiffArgs>();
       app.add_option("a", a->a, "snapshot A (plumb check --save)")->required();
       app.add_option("b", a->b, "snapshot B")->required();
       add_output_options(app, a->output);
       return [a] { return run_diff(*a); };
     }});

}  // namespace
}  // namespace plumb
