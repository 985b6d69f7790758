#include "dualfuzz/http/protocol.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dualfuzz/http/codec.h"
#include "dualfuzz/http/connection_options.h"
#include "dualfuzz/http/heuristics.h"
#include "dualfuzz/http/message_rules.h"
#include "dualfuzz/http/model.h"
#include "dualfuzz/http/response_stream.h"
#include "dualfuzz/http/site.h"
#include "dualfuzz/http/triage.h"

namespace dualfuzz::http {

void add_functions(harness::FunctionRegistry& f) {
  // Trace-based heuristic functions (thesis §5.2.2): reuse a tag weakly or
  // strongly.
  f.add("weak", [](const harness::Json& j) -> Result<harness::Json> {
    if (!j.is_string()) return j;
    std::string s = j.get<std::string>();
    return harness::Json(s.rfind("W/", 0) == 0 ? s : "W/" + s);
  });
  f.add("strong", [](const harness::Json& j) -> Result<harness::Json> {
    if (!j.is_string()) return j;
    std::string s = j.get<std::string>();
    return harness::Json(s.rfind("W/", 0) == 0 ? s.substr(2) : s);
  });
  // A Lock-Token an answer carried ("<token>", RFC 4918 §10.5), as the
  // If header's state list that submits it: "(<token>)" (§10.4).
  f.add("lockif", [](const harness::Json& j) -> Result<harness::Json> {
    if (!j.is_string()) return j;
    return harness::Json("(" + j.get<std::string>() + ")");
  });
  // An entity tag an answer carried, as the If header's state list that
  // tests it (RFC 4918 §10.4.2: "([etag])"), or its negation ("(Not [etag])").
  for (const auto& named : {std::pair{"ifetag", "(["}, std::pair{"ifnotetag", "(Not ["}})
    f.add(named.first,
          [open = named.second](const harness::Json& j) -> Result<harness::Json> {
            if (!j.is_string()) return j;
            return harness::Json(open + j.get<std::string>() + "])");
          });
  // A date an answer carried, sent back in one of the obsolete formats a
  // recipient MUST still accept (RFC 9110 §5.6.7); anything else unchanged.
  for (const auto& named : {std::pair{"rfc850", DateFormat::Rfc850},
                            std::pair{"asctime", DateFormat::Asctime}})
    f.add(named.first,
          [format = named.second](const harness::Json& j) -> Result<harness::Json> {
            if (!j.is_string()) return j;
            const auto t = parse_http_date(j.get_ref<const std::string&>());
            return t ? harness::Json(format_http_date(*t, format)) : j;
          });
  // A date an answer carried, one second before or after: the boundaries of
  // a date comparison (If-Modified-Since one second before Last-Modified
  // asks for the content, equal or after may get a 304), where an
  // off-by-one in a server hides.
  for (const auto& named : {std::pair{"earlier", -1}, std::pair{"later", 1}})
    f.add(named.first,
          [by = named.second](const harness::Json& j) -> Result<harness::Json> {
            if (!j.is_string()) return j;
            const auto t = parse_http_date(j.get_ref<const std::string&>());
            return t && *t + by >= 0 ? harness::Json(format_http_date(*t + by)) : j;
          });
}

// `request` without its "malformed" member when that names `name`.
static harness::Jexp without_malformation(const harness::Jexp& request,
                                          std::string_view name) {
  if (request.kind() != harness::Jexp::Kind::Object) return request;
  std::vector<std::pair<std::string, harness::Jexp>> kept;
  bool dropped = false;
  for (std::size_t i = 0; i < request.keys().size(); ++i) {
    const harness::Jexp& v = request.items()[i];
    if (request.keys()[i] == "malformed" && v.kind() == harness::Jexp::Kind::Scalar &&
        v.value().is_string() && v.value().get<std::string>() == name) {
      dropped = true;
      continue;
    }
    kept.emplace_back(request.keys()[i], v);
  }
  return dropped ? harness::Jexp::object(std::move(kept)) : request;
}

// `p`'s models under assumptions `a` (model.h): the model, its strict
// reading and the weaker consistencies with theirs.
void set_models(harness::Protocol& p, Assumptions a) {
  const Assumptions strict{.writable = a.writable, .strict = true, .http10 = a.http10};
  p.model = [a] { return server_model(Consistency::Atomic, a); };
  p.recommended = [strict] { return server_model(Consistency::Atomic, strict); };
  p.weaker = {
      {"interval",
       "a PUT or DELETE takes effect over an interval: overlapping requests see the old "
       "or the new state, may all pass one precondition, or get 409/423/503",
       [a] { return server_model(Consistency::Interval, a); },
       [strict] { return server_model(Consistency::Interval, strict); }},
      {"torn",
       "interval, and a GET or HEAD overlapping a write may see any intermediate state",
       [a] { return server_model(Consistency::Torn, a); },
       [strict] { return server_model(Consistency::Torn, strict); },
       /*classifies=*/false},
  };
}

harness::Protocol protocol() {
  harness::Protocol p;
  p.name = "http";
  p.print_request = [](const harness::Json& q) { return http::print_request(q); };
  p.canonical_request = [](const harness::Json& q, std::string_view printed) {
    return http::canonical_request(q, printed);
  };
  p.new_response_stream = [] { return new_response_stream(); };
  p.closes_after = closes_connection;
  p.new_message_rules = new_message_rules;
  p.liveness_probe = Json{{"method", "HEAD"}, {"path", "/"}};
  p.liveness_clause =
      "RFC 9110 §3 (a server responds to each request it receives) and RFC 9112 "
      "§9.3.2 (in the order received), or closes the connection (§9.5)";
  p.site = harness::Protocol::Site{
      {"/", "/sitemap.xml"},
      site_read,
      [](const Json& r, const std::string& path) { return site_links(r, path); },
      site_script,
      [](const Json& q) -> std::optional<std::string> {
        if (!q.is_object() || !q.contains("site") || !q.contains("path") ||
            !q["path"].is_string())
          return std::nullopt;
        return q["path"].get<std::string>();
      }};
  set_models(p, {});
  // `q`'s models with `flag` set too: each assumption keeps the ones applied
  // before it (Protocol::assumed names them).
  auto assume = [](harness::Protocol& q, bool Assumptions::*flag) {
    Assumptions a{.writable = q.assumed.find("writable") != std::string::npos,
                  .http10 = q.assumed.find("http10") != std::string::npos};
    a.*flag = true;
    set_models(q, a);
  };
  p.assumptions = {
      {"writable",
       "the server implements and allows PUT and DELETE on every path for this client: "
       "refusing one (401, 403, 405, 501, 503, a redirect...) is a violation",
       [assume](harness::Protocol& q) { assume(q, &Assumptions::writable); }},
      {"http10",
       "the server is conformant to HTTP/1.0 only, as its answers say (RFC 9110 §2.5): "
       "HTTP/1.1's Host checks, If-Match, If-None-Match, If-Unmodified-Since, If-Range "
       "and "
       "Range are its choice (taken by itself when a server answers in HTTP/1.0)",
       [assume](harness::Protocol& q) {
         assume(q, &Assumptions::http10);
         // Such a server may take a request line whose version it cannot
         // read for HTTP/0.9's and answer bare content, no status line
         // (RFC 1945 §3.1; Python's http.server does): nothing to judge, so
         // the tester sends no lowercase HTTP-version to it.
         q.mutate_request = [mutate = q.mutate_request](
                                std::mt19937_64& rng, const harness::Jexp& r,
                                const harness::Protocol::Context& ctx) {
           return without_malformation(mutate(rng, r, ctx), "lowercase-version");
         };
       }},
  };
  // An answer in HTTP/1.0 says the server is conformant to HTTP/1.0 only.
  p.implied_assumption = [](const Json& response) -> std::string {
    return response.is_object() && response.value("version", "") == "HTTP/1.0" ? "http10"
                                                                               : "";
  };
  p.generate_request = generate_request;
  p.mutate_request = mutate_request;
  p.supersede = supersede;
  p.retarget = retarget;
  p.apply_retarget = apply_retarget;
  p.related_values = related_values;
  p.validators = validators;
  p.required_fields = {"method", "path"};
  p.nudges = {"earlier", "later"};
  p.probe = probe;
  p.namespace_request = namespace_request;
  set_presentation(p);
  p.race_key = race_key;
  p.lighter = lighter;
  p.plainer = plainer;
  p.flatter = flatter;
  add_functions(p.functions);
  return p;
}

}  // namespace dualfuzz::http
