// Host lists in the compact range notation of Slurm and pdsh: "gpu[01-60,62],login1" for the
// hosts gpu01..gpu60, gpu62 and login1, so a report names 60 nodes in one short cell.
#pragma once

#include <string>
#include <vector>

namespace plumb {

// Groups names by their text before a trailing number (keeping the number's zero padding) and
// folds consecutive numbers into ranges; names without a trailing number stay as they are.
// Output order: by prefix, then number; duplicates are dropped.
std::string compact_hosts(const std::vector<std::string>& hosts);

}  // namespace plumb
