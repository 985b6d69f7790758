#include "dualfuzz/unison/protocol.h"

#include "dualfuzz/unison/codec.h"
#include "dualfuzz/unison/heuristics.h"
#include "dualfuzz/unison/model.h"
#include "dualfuzz/unison/triage.h"

namespace dualfuzz::unison {
namespace {
class LineStream final : public harness::ResponseStream {
 public:
  void expect(const harness::Json&) override {}
  void feed(std::string_view b) override { parser_.feed(b); }
  void on_eof() override { parser_.on_eof(); }
  std::optional<harness::Json> next() override { return parser_.next(); }
  bool failed() const override { return parser_.failed(); }
  std::string error() const override { return parser_.error(); }

 private:
  JsonLineParser parser_;
};
}  // namespace

harness::Protocol protocol() {
  harness::Protocol p;
  p.name = "unison";
  p.print_request = print_request;
  p.new_response_stream = [] { return std::make_unique<LineStream>(); };
  p.model = server_model;
  p.generate_request = generate_request;
  p.mutate_request = mutate_request;
  p.required_fields = {"op"};
  p.request_label = request_label;
  p.response_label = response_label;
  p.describe_request = describe_request;
  p.describe_response = describe_response;
  p.request_kind = request_kind;
  p.request_shape = request_kind;
  p.response_shape = response_shape;
  return p;
}

}  // namespace dualfuzz::unison
