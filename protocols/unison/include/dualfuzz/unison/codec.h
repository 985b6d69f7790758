// The tester <-> synchronizer-harness wire: one JSON object per line each
// way (the harness is in this process; the "wire" is its Transport). A
// response line that is not a JSON object fails the stream: the run reports
// a protocol violation, never a crash.
//
//   std::string line = unison::print_request(ir);   // "{...}\n"
//   JsonLineParser p;  p.feed(bytes);  while (auto r = p.next()) use(*r);
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "dualfuzz/harness/ir.h"

namespace dualfuzz::unison {

std::string print_request(const harness::Json& ir);
std::string print_response(const harness::Json& answer);

class JsonLineParser {
 public:
  static constexpr std::size_t kMaxLine = 1 << 20;
  void feed(std::string_view bytes);
  void on_eof();
  std::optional<harness::Json> next();
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  std::string buffer_;
  std::deque<harness::Json> ready_;
  std::string error_;
};

}  // namespace dualfuzz::unison
