// Whole files read and written by the subcommands (scripts, charts, --jobs
// workers' outputs). Defined in file_io.cpp.
//
//   if (auto text = read_file(path)) parse(*text);
#pragma once

#include <optional>
#include <string>

namespace dualfuzz::cli {

// nullopt: the file cannot be read.
std::optional<std::string> read_file(const std::string& path);
// false: it could not be written whole.
bool write_file(const std::string& path, const std::string& text);

}  // namespace dualfuzz::cli
