#include "dualfuzz/proxy/protocol.h"

#include "dualfuzz/http/codec.h"
#include "dualfuzz/http/detail/field_text.h"
#include "dualfuzz/http/protocol.h"
#include "dualfuzz/http/response_stream.h"
#include "dualfuzz/http/triage.h"
#include "dualfuzz/proxy/forwarding.h"
#include "dualfuzz/proxy/heuristics.h"
#include "dualfuzz/proxy/origin.h"

namespace dualfuzz::proxy {
namespace {

// HTTP's response stream, with the markers (Via, cache directives) the model reads.
class ClientStream final : public harness::ResponseStream {
 public:
  void expect(const Json& q) override { http_->expect(q); }
  void feed(std::string_view b) override { http_->feed(b); }
  void on_eof() override { http_->on_eof(); }
  std::optional<Json> next() override {
    auto r = http_->next();
    if (!r) return std::nullopt;
    return mark_forwarded(std::move(*r));
  }
  bool failed() const override { return http_->failed(); }
  std::string error() const override { return http_->error(); }

 private:
  std::unique_ptr<harness::ResponseStream> http_ = http::new_response_stream();
};

}  // namespace

Json absolute_form(Json q, const std::string& origin) {
  if (!q.is_object()) q = Json::object();
  std::string path =
      q.contains("path") && q["path"].is_string() ? q["path"].get<std::string>() : "/";
  // (An empty path stays empty: "http://origin", the absolute-form whose
  // path a proxy forwards as "/", or "*" for OPTIONS.)
  if (!split_target(path).absolute)
    q["path"] =
        "http://" + origin + (!path.empty() && path.front() != '/' ? "/" : "") + path;
  if (!q.contains("headers") || !q["headers"].is_object()) q["headers"] = Json::object();
  bool host = false;
  for (const auto& [k, v] : q["headers"].items())
    host = host || http::detail::lower(k) == "host";
  if (!host) q["headers"]["host"] = origin;
  return q;
}

harness::Protocol protocol(ProtocolOptions options) {
  harness::Protocol p;
  http::set_presentation(p);
  p.name = options.mode == Mode::Forward ? "proxy" : "gateway";
  // A proxy is a server to its clients; one that gets no answer in time
  // from upstream has its own: 504 (RFC 9110 §15.6.5).
  p.liveness_clause =
      "RFC 9110 §3 (a server, a proxy too, responds to each request it receives; a "
      "proxy without a timely answer from upstream sends 504, §15.6.5) and RFC 9112 "
      "§9.3.2 (in the order received), or closes the connection (§9.5)";
  // (A proxy process, which connects to the tester's listener, may lose a
  // forward on a connection the tester closed: ModelOptions::lost_forwards.)
  const ModelOptions mo{options.mode, options.refusals, !options.origin.empty()};
  const std::string authority =
      options.origin.empty() ? kInProcessOrigin : options.origin;
  if (options.mode == Mode::Forward) {
    p.print_request = [origin = authority](const Json& q) {
      return http::print_request(absolute_form(q, origin));
    };
    p.canonical_request = [origin = authority](const Json& q, std::string_view printed) {
      return http::canonical_request(absolute_form(q, origin), printed);
    };
  } else {
    p.print_request = [](const Json& q) { return http::print_request(q); };
    p.canonical_request = [](const Json& q, std::string_view printed) {
      return http::canonical_request(q, printed);
    };
  }
  // A forward proxy's clients name the origin in Host, as they must (RFC
  // 9112 §3.2.2): that is no "other host" worth a signature of its own.
  p.request_shape = [shape = p.request_shape](const Json& q) {
    std::string s = shape(q);
    if (auto at = s.find(" host(other)"); at != std::string::npos)
      s.erase(at, std::string_view(" host(other)").size());
    return s;
  };
  p.new_response_stream = [] { return std::make_unique<ClientStream>(); };
  p.model = [mo] { return model(mo); };
  // Each run of a campaign against a proxy process in its own namespace, so
  // that a forward the proxy sends late is told apart (of_another_run).
  // (A forward proxy's empty path is the absolute-form with none: no
  // namespace can go in it, so the run's name rides in a field of its own,
  // which a proxy MUST forward as it is, RFC 9110 §7.6; kRunField.)
  p.namespace_request = [mode = options.mode](Json q, std::string_view prefix) {
    if (mode == Mode::Forward && q.is_object() && q.value("path", Json()) == "") {
      if (!prefix.empty()) {
        if (!q.contains("headers") || !q["headers"].is_object())
          q["headers"] = Json::object();
        q["headers"][kRunField] = std::string(prefix);
      }
      return q;
    }
    return namespace_request(std::move(q), prefix);
  };
  p.origin = origin_side();
  p.origin->of_another_run = of_another_run;
  p.origin->names_no_run = names_no_run;
  p.origin->never_forwarded = answered_by_proxy;
  p.origin->ends_connection = [](const Json& q) {
    return http::closes_connection(q, Json::object());
  };
  p.origin->generate_answer = generate_answer;
  p.origin->listen = options.origin;
  p.generate_request = [mode = options.mode](std::mt19937_64& rng,
                                             const harness::Protocol::Context& ctx) {
    return generate_request(rng, ctx, mode);
  };
  p.mutate_request = [mode = options.mode](std::mt19937_64& rng, const harness::Jexp& q,
                                           const harness::Protocol::Context& ctx) {
    return mutate_request(rng, q, ctx, mode);
  };
  p.required_fields = {"method", "path"};
  http::add_functions(p.functions);
  p.nudges = {"earlier", "later"};
  // Whether a method is not idempotent (RFC 9110 §9.2.2): an answer
  // {"abort": L.(this@"method").nonidempotent, ...} hangs up only on what
  // a proxy MUST NOT retry (RFC 9110 §9.2.2), and answers the rest.
  p.functions.add("nonidempotent", [](const Json& m) -> Result<Json> {
    return Json(!m.is_string() || !idempotent_method(m.get<std::string>()));
  });
  return p;
}

}  // namespace dualfuzz::proxy
