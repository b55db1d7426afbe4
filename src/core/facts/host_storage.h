// Host facts: block devices, IO schedulers, read-ahead, data-path file systems, /dev/shm (owner: host helper A).
#pragma once

#include "core/json.h"

namespace plumb {

struct StorageFacts {
  bool collected = false;  // placeholder until the collector fills it
  bool operator==(const StorageFacts&) const = default;
};
PLUMB_JSON(StorageFacts, collected)

}  // namespace plumb
