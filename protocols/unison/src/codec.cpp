#include "dualfuzz/unison/codec.h"

namespace dualfuzz::unison {

std::string print_request(const harness::Json& ir) {
  return harness::dump_json(ir) + "\n";
}
std::string print_response(const harness::Json& a) {
  return harness::dump_json(a) + "\n";
}

void JsonLineParser::feed(std::string_view bytes) {
  if (failed()) return;
  buffer_ += bytes;
  std::size_t start = 0;
  for (std::size_t nl; (nl = buffer_.find('\n', start)) != std::string::npos;
       start = nl + 1) {
    auto j = harness::Json::parse(buffer_.begin() + static_cast<std::ptrdiff_t>(start),
                                  buffer_.begin() + static_cast<std::ptrdiff_t>(nl),
                                  nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      error_ = "an answer line that is not a JSON object";
      buffer_.clear();
      return;
    }
    ready_.push_back(std::move(j));
  }
  buffer_.erase(0, start);
  if (buffer_.size() > kMaxLine) {
    error_ = "an answer line longer than 1 MiB";
    buffer_.clear();
  }
}

void JsonLineParser::on_eof() {
  if (!failed() && !buffer_.empty()) error_ = "the harness closed mid-answer";
}

std::optional<harness::Json> JsonLineParser::next() {
  if (ready_.empty()) return std::nullopt;
  harness::Json j = std::move(ready_.front());
  ready_.pop_front();
  return j;
}

}  // namespace dualfuzz::unison
