// A file the user names (a baseline, a known-violations list), read whole.
//
//   Result<std::string> t = detail::read_text_file(path, "baseline file");
//   // error: "cannot read the baseline file PATH"
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "dualfuzz/result.h"

namespace dualfuzz::campaign::detail {

inline Result<std::string> read_text_file(const std::string& path,
                                          std::string_view what) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path, ec))
    return make_error("cannot read the " + std::string(what) + " " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace dualfuzz::campaign::detail
