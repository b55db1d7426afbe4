// The words of the progress lines (core/progress.h) in both languages: what a long command is
// doing while the user waits. A file is named by its last path component.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/i18n.h"

namespace plumb {

// "train.log: 1.2 GB read"
std::string progress_log_read(Lang lang, const std::string& path, std::uint64_t bytes);
// "3 of 8 traces read (1.2 GB of 3.4 GB)"; one file: "reading rank0.json (2.3 GB), 4 s"
std::string progress_traces(Lang lang, std::size_t done, std::size_t total, std::uint64_t bytes_done,
                            std::uint64_t bytes_total, const std::string& first, double seconds);
// "results from 12 of 64 nodes, 8 s"
std::string progress_nodes(Lang lang, int answered, int total, double seconds);

}  // namespace plumb
