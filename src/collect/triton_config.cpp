// Triton config.pbtxt reader and the serving-configuration collector. The text format follows
// protobuf's text format specification (protobuf.dev/reference/protobuf/textformat-spec); the
// fields follow Triton's model_config.proto and the ONNX Runtime backend's README
// (triton-inference-server/onnxruntime_backend: `parameters { key: "intra_op_thread_count" value:
// { string_value: "0" } }`, `optimization { graph { level: 2 } }` = all optimisations off).
#include "collect/triton_config.h"

#include <algorithm>
#include <filesystem>

#include "core/host_root.h"
#include "core/registry.h"
#include "core/text.h"
#include "core/tables.h"

namespace plumb {

namespace {

class PbParser {
 public:
  PbParser(std::string_view s, const PbLimits& l) : s_(s), limits_(l) {}

  Result<std::vector<PbField>> top() {
    std::vector<PbField> out;
    auto r = message(out, '\0', 0);
    if (!r) return r.error();
    return out;
  }

 private:
  std::string_view s_;
  const PbLimits& limits_;
  std::size_t i_ = 0;
  std::size_t fields_ = 0;

  Error err(const std::string& what) const {
    std::size_t line = 1 + static_cast<std::size_t>(std::count(s_.begin(), s_.begin() + static_cast<std::ptrdiff_t>(std::min(i_, s_.size())), '\n'));
    return make_error(ErrorKind::invalid, "line " + std::to_string(line) + ": " + what);
  }
  void skip() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '#') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++i_;
      } else {
        return;
      }
    }
  }
  bool at(char c) {
    skip();
    return i_ < s_.size() && s_[i_] == c;
  }
  static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-' || c == '+'; }

  Result<std::string> scalar() {
    skip();
    if (i_ >= s_.size()) return err("expected a value");
    char q = s_[i_];
    if (q == '"' || q == '\'') {
      std::string out;
      // Adjacent string literals concatenate.
      while (at('"') || at('\'')) {
        q = s_[i_++];
        while (true) {
          if (i_ >= s_.size() || s_[i_] == '\n') return err("unterminated string");
          char c = s_[i_++];
          if (c == q) break;
          if (c == '\\' && i_ < s_.size()) {
            char e = s_[i_++];
            switch (e) {
              case 'n': out += '\n'; break;
              case 't': out += '\t'; break;
              case 'r': out += '\r'; break;
              default: out += e; break;  // \" \' \\ and anything else kept literally
            }
          } else {
            out += c;
          }
          if (out.size() > 65536) return err("string longer than 64 KiB");
        }
      }
      return out;
    }
    std::size_t start = i_;
    while (i_ < s_.size() && ident_char(s_[i_])) ++i_;
    if (i_ == start) return err(std::string("unexpected '") + s_[i_] + "'");
    return std::string(s_.substr(start, i_ - start));
  }

  // Fields until `close` ('\0' = end of input).
  Result<bool> message(std::vector<PbField>& out, char close, std::size_t depth) {
    if (depth > limits_.max_depth) return err("nesting deeper than " + std::to_string(limits_.max_depth));
    while (true) {
      skip();
      if (i_ >= s_.size()) {
        if (close == '\0') return true;
        return err(std::string("expected '") + close + "' before the end");
      }
      if (close != '\0' && s_[i_] == close) {
        ++i_;
        return true;
      }
      std::size_t start = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) != 0 || s_[i_] == '_')) ++i_;
      if (i_ == start) return err(std::string("expected a field name, found '") + s_[i_] + "'");
      std::string name(s_.substr(start, i_ - start));
      bool colon = false;
      if (at(':')) {
        ++i_;
        colon = true;
      }
      if (at('[')) {
        ++i_;
        if (at(']')) {
          ++i_;
        } else {
          while (true) {
            auto r = one(out, name, depth, true);
            if (!r) return r.error();
            if (at(',')) {
              ++i_;
              continue;
            }
            if (at(']')) {
              ++i_;
              break;
            }
            return err("expected ',' or ']' in the list of " + name);
          }
        }
      } else {
        if (!colon && !at('{') && !at('<')) return err("expected ':' or '{' after " + name);
        auto r = one(out, name, depth, colon);
        if (!r) return r.error();
      }
      if (at(',') || at(';')) ++i_;
    }
  }

  Result<bool> one(std::vector<PbField>& out, const std::string& name, std::size_t depth, bool /*colon*/) {
    if (++fields_ > limits_.max_fields) return err("more than " + std::to_string(limits_.max_fields) + " fields");
    PbField f;
    f.name = name;
    if (at('{') || at('<')) {
      char close = s_[i_] == '{' ? '}' : '>';
      ++i_;
      f.message = true;
      auto r = message(f.fields, close, depth + 1);
      if (!r) return r.error();
    } else {
      auto v = scalar();
      if (!v) return v.error();
      f.value = std::move(v.value());
    }
    out.push_back(std::move(f));
    return true;
  }
};

const PbField* first(const std::vector<PbField>& fs, const char* name) {
  for (const auto& f : fs) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string scalar_of(const std::vector<PbField>& fs, const char* name) {
  const PbField* f = first(fs, name);
  return f != nullptr && !f->message ? f->value : std::string();
}

long long int_of(const std::string& v, long long fallback) {
  if (v.empty()) return fallback;
  bool neg = v[0] == '-';
  auto n = parse_uint(neg ? v.substr(1) : v);
  if (!n || *n > (1ull << 62)) return fallback;
  return neg ? -static_cast<long long>(*n) : static_cast<long long>(*n);
}

// `parameters { key: "k" value: { string_value: "v" } }` (model parameters) or
// `parameters { key: "k" value: "v" }` (accelerator parameters, a map<string, string>).
std::pair<std::string, std::string> key_value(const PbField& p) {
  std::string key = scalar_of(p.fields, "key");
  const PbField* v = first(p.fields, "value");
  std::string value;
  if (v != nullptr) value = v->message ? scalar_of(v->fields, "string_value") : v->value;
  return {key, value};
}

}  // namespace

Result<std::vector<PbField>> parse_pbtxt(std::string_view text, const PbLimits& limits) {
  if (text.size() > limits.max_bytes) return make_error(ErrorKind::invalid, "larger than " + std::to_string(limits.max_bytes >> 10) + " KiB");
  return PbParser(text, limits).top();
}

TritonModel triton_model_from(const std::vector<PbField>& top) {
  TritonModel m;
  m.platform = scalar_of(top, "platform");
  m.backend = scalar_of(top, "backend");
  m.max_batch_size = int_of(scalar_of(top, "max_batch_size"), 0);
  for (const auto& f : top) {
    if (f.name == "instance_group" && f.message) {
      long long count = int_of(scalar_of(f.fields, "count"), 1);
      std::string kind = scalar_of(f.fields, "kind");
      if (kind.empty()) kind = "KIND_AUTO";
      m.instances += std::max(0LL, count);
      m.instance_groups.push_back(std::to_string(count) + " x " + kind);
    } else if (f.name == "dynamic_batching") {
      m.dynamic_batching = true;
      m.max_queue_delay_us = scalar_of(f.fields, "max_queue_delay_microseconds");
    } else if (f.name == "parameters" && f.message) {
      auto [k, v] = key_value(f);
      if (!k.empty()) m.parameters[k] = v;
    } else if (f.name == "optimization" && f.message) {
      for (const auto& o : f.fields) {
        if (o.name == "graph" && o.message) {
          auto level = scalar_of(o.fields, "level");
          if (!level.empty()) {
            m.has_graph_level = true;
            m.graph_level = int_of(level, 0);
          }
        } else if (o.name == "execution_accelerators" && o.message) {
          for (const auto& side : o.fields) {
            if (!side.message) continue;
            std::string where = side.name == "gpu_execution_accelerator" ? "gpu" : "cpu";
            std::string params;
            for (const auto& p : side.fields) {
              if (p.name != "parameters" || !p.message) continue;
              auto [k, v] = key_value(p);
              params.append(params.empty() ? "" : ", ").append(k).append("=").append(v);
            }
            where.append(":").append(scalar_of(side.fields, "name"));
            m.accelerators[where] = params;
          }
        }
      }
    }
  }
  if (m.instance_groups.empty()) m.instances = 1;  // Triton's default: one instance (per GPU, or on CPU)
  return m;
}

TritonModel parse_triton_config(std::string_view text, const std::string& name, const std::string& path) {
  auto top = parse_pbtxt(text);
  TritonModel m;
  if (!top) {
    m.error = top.error().message;
  } else {
    m = triton_model_from(*top);
  }
  m.name = name;
  m.config = path;
  return m;
}

Result<std::vector<TritonModel>> read_model_repository(const std::string& repo) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(repo, ec)) return make_error(ErrorKind::absent, repo + ": not a directory");
  std::vector<std::string> dirs;
  for (auto it = fs::directory_iterator(repo, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->is_directory(ec)) dirs.push_back(it->path().filename().string());
    if (dirs.size() > 1024) return make_error(ErrorKind::invalid, repo + ": more than 1024 model directories");
  }
  if (ec) return make_error(error_kind_from_errno(ec.value()), repo + ": " + ec.message());
  std::sort(dirs.begin(), dirs.end());
  std::vector<TritonModel> out;
  for (const auto& d : dirs) {
    std::string path = repo;
    path.append("/").append(d).append("/config.pbtxt");
    auto text = read_user_file(path, 1u << 20);
    if (!text) {
      TritonModel m;
      m.name = d;
      m.config = path;
      m.error = text.error().kind == ErrorKind::absent ? "no config.pbtxt (Triton's auto-complete decides)" : text.error().describe();
      out.push_back(std::move(m));
      continue;
    }
    out.push_back(parse_triton_config(*text, d, path));
  }
  return out;
}

std::vector<std::string> parse_cmdline(std::string_view raw) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : raw) {
    if (c == '\0') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

namespace {


}  // namespace
void collect_triton_config_tables(Tables& t) {
  t.add_collector(
    {"collect.serving", {"model server: command line, Triton model repository (--model-repo)", "模型服务：命令行、Triton 模型仓库（--model-repo）"},
     [](const Context& ctx) -> ApplyFacts {
       ServingConfigFacts s;
       s.collected = true;
       std::string src = ctx.proc_dir() + "/cmdline";
       if (ctx.pid <= 0) {
         // plumb's own command line says nothing about a model server (and differs on every run).
         s.cmdline = Fact<std::vector<std::string>>::none("no --pid: give the model server's process id", src);
       } else {
         auto raw = ctx.root.read(src, 1u << 20);
         s.cmdline = raw ? Fact<std::vector<std::string>>::of(parse_cmdline(*raw), src)
                         : Fact<std::vector<std::string>>::none(raw.error().describe(), src);
       }
       if (ctx.model_repo.empty()) {
         s.triton_models = Fact<std::vector<TritonModel>>::none("no --model-repo given");
       } else {
         auto models = read_model_repository(ctx.model_repo);
         s.triton_models = models ? Fact<std::vector<TritonModel>>::of(std::move(models.value()), ctx.model_repo)
                                  : Fact<std::vector<TritonModel>>::none(models.error().describe(), ctx.model_repo);
       }
       return [s = std::move(s)](Facts& f) { f.serving_config = s; };
     }});
}

}  // namespace plumb
