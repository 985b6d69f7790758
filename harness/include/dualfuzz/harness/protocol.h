// A protocol plugs into dualfuzz with three things (DESIGN.md): a codec
// (bytes <-> IR), a server model, and generation heuristics (functions for
// J-expression references; generators come with the mutator).
//
//   Protocol http = dualfuzz::http::protocol();
//   auto parser = http.new_response_stream();
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "dualfuzz/harness/function_registry.h"
#include "dualfuzz/harness/jexp.h"
#include "dualfuzz/oracle/server_model.h"

namespace dualfuzz::harness {

// Incremental response decoding for one connection.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  virtual void expect(const Json& request_ir) = 0;  // per request sent, in order
  virtual void feed(std::string_view bytes) = 0;
  virtual void on_eof() = 0;
  virtual std::optional<Json> next() = 0;  // response IR, normalized for the model
  virtual bool failed() const = 0;
  virtual std::string error() const = 0;
};

struct Protocol {
  std::string name;
  std::function<std::string(const Json& request_ir)> print_request;
  // The IR the server parses from `printed` = print_request(ir): what the
  // trace and the model see. Optional (identity), but a printer that repairs
  // or drops anything needs it, or the model judges a request never sent.
  std::function<Json(const Json& request_ir, std::string_view printed)> canonical_request;
  std::function<std::unique_ptr<ResponseStream>()> new_response_stream;
  std::function<oracle::ServerModel()> model;
  FunctionRegistry functions = FunctionRegistry::with_builtins();
  // Generation heuristics (thesis §5.2): a new request given the requests
  // before it (state-based: paths already used; trace-based: references to
  // labels of earlier responses), and a small change to an existing one.
  struct Context {
    std::vector<Jexp> earlier;          // earlier request bodies, in order
    std::vector<Label> earlier_labels;  // their labels
  };
  std::function<Jexp(std::mt19937_64&, const Context&)> generate_request;
  std::function<Jexp(std::mt19937_64&, const Jexp&, const Context&)> mutate_request;
  // Targeted mutation (optional): in `request_ir` as sent, the field that
  // carried `old_value` as the model read it (an entity tag, a date as
  // seconds), rewritten to carry `new_value`: {field name, new text}.
  struct Retarget {
    std::string field;
    std::string text;
  };
  std::function<std::optional<Retarget>(const Json& request_ir, const Json& old_value,
                                        const Json& new_value)>
      retarget;
};

}  // namespace dualfuzz::harness
