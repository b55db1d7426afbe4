// The JSON type and the PLUMB_JSON(Type, fields...) macro for Facts areas, without the JSON
// library's full header. A header declares its types' to_json/from_json here; core/facts_json.cpp
// (which defines PLUMB_JSON_DEFINE before any include) compiles their bodies once for the whole
// program. Reading back tolerates missing keys: they keep the member's default.
#pragma once

#include <nlohmann/json_fwd.hpp>

namespace plumb {
using json = nlohmann::json;
}

#ifdef PLUMB_JSON_DEFINE
#include <nlohmann/json.hpp>
#define PLUMB_JSON(Type, ...)                                                                        \
  void to_json(::nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t) {                     \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                         \
  }                                                                                                  \
  void from_json(const ::nlohmann::json& nlohmann_json_j, Type& nlohmann_json_t) {                   \
    const Type nlohmann_json_default_obj{};                                                          \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, __VA_ARGS__))          \
  }
#else
#define PLUMB_JSON(Type, ...)                               \
  void to_json(::nlohmann::json& j, const Type& v);         \
  void from_json(const ::nlohmann::json& j, Type& v);
#endif
