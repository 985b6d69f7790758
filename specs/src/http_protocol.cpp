#include "dualfuzz/specs/http_protocol.h"

#include "dualfuzz/harness/http_codec.h"
#include "dualfuzz/specs/http.h"
#include "dualfuzz/specs/http_heuristics.h"

namespace dualfuzz::specs {
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
  harness::http::ResponseParser parser_;
};

}  // namespace

harness::Protocol http_protocol() {
  harness::Protocol p;
  p.name = "http";
  p.print_request = [](const harness::Json& q) {
    return harness::http::print_request(q);
  };
  p.canonical_request = [](const harness::Json& q, std::string_view printed) {
    return harness::http::canonical_request(q, printed);
  };
  p.new_response_stream = [] { return std::make_unique<HttpStream>(); };
  p.model = http_model;
  p.generate_request = http_generate_request;
  p.mutate_request = http_mutate_request;
  p.retarget = http_retarget;
  // Trace-based heuristic functions (thesis §5.2.2): reuse a tag weakly or
  // strongly.
  p.functions.add("weak", [](const harness::Json& j) -> Result<harness::Json> {
    if (!j.is_string()) return j;
    std::string s = j.get<std::string>();
    return harness::Json(s.rfind("W/", 0) == 0 ? s : "W/" + s);
  });
  p.functions.add("strong", [](const harness::Json& j) -> Result<harness::Json> {
    if (!j.is_string()) return j;
    std::string s = j.get<std::string>();
    return harness::Json(s.rfind("W/", 0) == 0 ? s.substr(2) : s);
  });
  return p;
}

}  // namespace dualfuzz::specs
