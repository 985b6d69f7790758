#include "dualfuzz/http/response_stream.h"

#include "dualfuzz/http/codec.h"
#include "dualfuzz/http/model.h"

namespace dualfuzz::http {
namespace {

class HttpStream final : public harness::ResponseStream {
 public:
  void expect(const harness::Json& q) override {
    parser_.expect(q.is_object() && q.contains("method") && q["method"].is_string()
                       ? q["method"].get<std::string>()
                       : "GET");
  }
  void feed(std::string_view b) override { parser_.feed(b); }
  void on_eof() override { parser_.on_eof(); }
  std::optional<harness::Json> next() override {
    auto r = parser_.next();
    if (!r) return std::nullopt;
    return normalize_response(std::move(*r));
  }
  bool failed() const override { return parser_.failed(); }
  std::string error() const override { return parser_.error(); }

 private:
  http::ResponseParser parser_;
};

}  // namespace

std::unique_ptr<harness::ResponseStream> new_response_stream() {
  return std::make_unique<HttpStream>();
}

}  // namespace dualfuzz::http
