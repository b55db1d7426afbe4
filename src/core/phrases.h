// Phrases: English words that rules and collectors keep as data (evidence labels such as "RDMA
// devices", thresholds such as "every listed HCA exists and has an active port", the reason a
// value could not be read such as "libnvidia-ml.so.1 not found: no NVIDIA driver installed"), with
// their zh-CN text. The renderers translate them when they print a report; the data (JSON,
// snapshots) keeps the English.
//
// A row matches a whole text: either exactly, or as a pattern whose {name} parts match any text
// and are copied into the translation (each part is itself looked up, so a reason inside a reason
// is translated too; a part that matches nothing, like a path or a value, is copied as it is).
// A part named with a leading '=' ({=list}) is copied without a look-up (a list of values).
// The vocabulary follows docs/glossary.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/i18n.h"

namespace plumb {

struct Phrase {
  std::string en;  // "RDMA devices" | "{lib} not found: no NVIDIA driver installed"
  std::string zh;  // "RDMA 设备"    | "未找到 {lib}：未安装 NVIDIA 驱动"
};

const std::vector<Phrase>& phrases();

// The text in `lang`: itself in English, or when no row matches.
std::string localize(Lang lang, std::string_view text);
// The zh-CN text by `rows` alone (tests); a duplicate English text throws std::logic_error.
std::string localize_with(std::vector<Phrase> rows, std::string_view text);

}  // namespace plumb
