// A folder's entry names filtered before they are copied: a folder of thousands of libraries
// scanned for a few (collect.cuda's /usr/lib/x86_64-linux-gnu) then costs no allocation per name.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_root.h"
#include "core/result.h"

namespace plumb {

// The entry names of a folder under the root that `keep` accepts (each offered once; "." and ".."
// never), sorted. HostRoot::list is this with every name kept.
Result<std::vector<std::string>> list_names(const HostRoot& root, std::string_view abs,
                                            const std::function<bool(std::string_view)>& keep);

}  // namespace plumb
