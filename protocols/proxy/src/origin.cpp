#include "dualfuzz/proxy/origin.h"

#include "dualfuzz/http/codec.h"
#include "dualfuzz/http/model.h"
#include "dualfuzz/proxy/forwarding.h"

namespace dualfuzz::proxy {
namespace {

std::string method_of(const Json& q) {
  return q.is_object() && q.contains("method") && q["method"].is_string()
             ? q["method"].get<std::string>()
             : "GET";
}

// The requests the proxy forwards on one origin connection.
class ForwardStream final : public harness::ResponseStream {
 public:
  void expect(const Json&) override {}
  void feed(std::string_view b) override { parser_.feed(b); }
  void on_eof() override {
    // A proxy that closes between requests is done, not broken; one that
    // closes in the middle of a request gave up forwarding it (its client
    // went away: Squid aborts a POST whose client closed), which any
    // party may do at any time (RFC 9112 §9.5). The origin drops the part
    // it read, as a server does with an incomplete request; for the model
    // that request was not forwarded. (Bytes that are no request at all
    // stay a protocol violation: the parser failed before the end.) So the
    // end of the stream is no error here.
  }
  std::optional<Json> next() override {
    auto q = parser_.next();
    if (!q) return std::nullopt;
    // HTTP/1.1 is the default; an HTTP/1.0 request is kept so (its answer is
    // framed and closed as RFC 9112 §6.1 and §9.3 have it).
    if ((*q)["version"] != "HTTP/1.0") q->erase("version");
    return mark_forwarded(std::move(*q));
  }
  bool failed() const override { return parser_.failed(); }
  std::string error() const override { return parser_.error(); }

 private:
  http::RequestParser parser_;
};

http::ResponseFraming framing(const Json& answer, const Json& forwarded) {
  http::ResponseFraming f;
  // "A server MUST NOT send a response containing Transfer-Encoding unless
  // the corresponding request indicates HTTP/1.1" (RFC 9112 §6.1).
  const bool old = forwarded.is_object() && forwarded.contains("version") &&
                   forwarded["version"] == "HTTP/1.0";
  f.chunked = !old && answer.is_object() && answer.contains("chunked") &&
              answer["chunked"] == true;
  f.head = method_of(forwarded) == "HEAD";
  return f;
}

}  // namespace

harness::Protocol::Origin origin_side() {
  harness::Protocol::Origin o;
  o.unexplained_clause = kUnexplainedForwardClause;
  o.new_forward_stream = [] { return std::make_unique<ForwardStream>(); };
  o.print_answer = [](const Json& a, const Json& fwd) {
    return http::print_response(a, framing(a, fwd));
  };
  o.canonical_answer = [](const Json& a, const Json& fwd, std::string_view printed) {
    http::ResponseParser p;
    p.expect(method_of(fwd));
    p.feed(printed);
    auto r = p.next();
    if (!r) return a;  // unreachable: the printer frames one response
    r->erase("version");
    return http::normalize_response(std::move(*r));
  };
  o.default_answer = [](const Json& fwd) {
    const std::string path =
        fwd.is_object() && fwd.contains("path") && fwd["path"].is_string()
            ? fwd["path"].get<std::string>()
            : "/";
    // (no-transform: the proxy MUST NOT change these bytes, RFC 9110 §7.7.)
    return Json{{"status", 200},
                {"headers", {{"content-type", "text/plain"}, {"cache-control", "no-transform"}}},
                {"body", method_of(fwd) + " " + path},
                {"chunked", path.size() % 2 == 1}};
  };
  o.closes_after = http::closes_connection;
  return o;
}

}  // namespace dualfuzz::proxy
