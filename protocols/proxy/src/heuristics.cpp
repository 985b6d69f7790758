#include "dualfuzz/proxy/heuristics.h"

#include <array>

#include "dualfuzz/harness/jpath.h"
#include "dualfuzz/http/heuristics.h"

namespace dualfuzz::proxy {
namespace {
using harness::Jexp;
using harness::Json;
using harness::with_member;

std::size_t pick(std::mt19937_64& rng, std::size_t n) { return n ? rng() % n : 0; }

Jexp field(const Jexp& e, const std::string& key) {
  const Jexp* v = e.find(key);
  return v ? *v : Jexp::object({});
}
Jexp with_header(const Jexp& req, const std::string& name, const std::string& value) {
  Jexp h = field(req, "headers");
  if (h.kind() != Jexp::Kind::Object) h = Jexp::object({});
  return with_member(req, "headers", with_member(h, name, Jexp::scalar(value)));
}

// One of the things a proxy must handle on its own.
Jexp proxy_twist(std::mt19937_64& rng, Jexp q, Mode mode) {
  switch (pick(rng, mode == Mode::Forward ? 8 : 7)) {
    case 0: {  // a field named in Connection (removed, §7.6.1)
      const std::string name =
          std::array{"x-hop", "x-session", "keep-alive"}[pick(rng, 3)];
      q = with_header(q, "connection", pick(rng, 3) ? name : "keep-alive, " + name);
      return with_header(q, name, "1");
    }
    case 1:  // a hop-by-hop field not listed (SHOULD be removed)
      return with_header(
          q, std::array{"keep-alive", "proxy-connection", "upgrade"}[pick(rng, 3)],
          "timeout=5");
    case 2: {  // Max-Forwards on TRACE/OPTIONS (§7.6.2)
      q = with_member(q, "method", Jexp::scalar(pick(rng, 2) ? "OPTIONS" : "TRACE"));
      // Now and then with the content it had: a client MUST NOT send it
      // (§9.3.7, §9.3.8), a proxy must survive it (forward it or refuse).
      if (pick(rng, 4)) q = with_member(q, "body", Jexp::scalar(""));
      return with_header(q, "max-forwards", std::to_string(pick(rng, 3)));
    }
    case 3:  // an earlier hop's Via (appended to, §7.6.3)
      return with_header(q, "via", "1.0 earlier");
    case 4:  // a Host that is not the target's (replaced, RFC 9112 §3.2.2)
      return with_header(q, "host", "elsewhere.example");
    case 5:  // end-to-end fields (passed on as they are)
      return with_header(q, std::array{"x-e2e", "cache-control", "accept"}[pick(rng, 3)],
                         "v1");
    case 7:  // (forward proxy) an absolute-form target with an empty path:
             // "/" forwarded, or "*" for OPTIONS (RFC 9112 §3.2.1, §3.2.4)
      q = with_member(q, "method", Jexp::scalar(pick(rng, 3) ? "OPTIONS" : "GET"));
      q = with_member(q, "body", Jexp::scalar(""));
      return with_member(q, "path", Jexp::scalar(""));
    default: {
      const std::string m = std::array{"HEAD", "POST", "PATCH"}[pick(rng, 3)];
      q = with_member(q, "method", Jexp::scalar(m));
      return m == "HEAD" ? with_member(q, "body", Jexp::scalar("")) : q;
    }
  }
}

// A proxy MAY transform the content of a message without a no-transform
// directive (RFC 9110 §7.7), so only with it are the bytes it forwards
// judged: most requests with content and most answers carry it.
Jexp no_transform(std::mt19937_64& rng, Jexp m) {
  const Jexp h = field(m, "headers");
  if (pick(rng, 4) == 0 || (h.kind() == Jexp::Kind::Object && h.find("cache-control")))
    return m;
  return with_header(m, "cache-control", "no-transform");
}

}  // namespace

Jexp generate_request(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                      Mode mode) {
  Jexp q = http::generate_request(rng, ctx);
  for (std::size_t k = pick(rng, 3); k > 0; --k) q = proxy_twist(rng, q, mode);
  if (!harness::string_field(q, "body").empty()) q = no_transform(rng, std::move(q));
  return q;
}

Jexp mutate_request(std::mt19937_64& rng, const Jexp& request,
                    const harness::Protocol::Context& ctx, Mode mode) {
  if (pick(rng, 2)) return proxy_twist(rng, request, mode);
  return http::mutate_well_formed(rng, request, ctx);
}

Jexp generate_answer(std::mt19937_64& rng, harness::Label forwarded) {
  // Now and then the origin hangs up instead (harness::is_abort): the proxy
  // answers 502, or retries what it may retry (RFC 9110 §9.2.2).
  if (pick(rng, 256) == 0) return Jexp::object({{"abort", Jexp::scalar(true)}});
  static constexpr std::array kStatus = {200, 200, 201, 204, 304, 404, 500, 302};
  std::vector<std::pair<std::string, Jexp>> headers;
  switch (pick(rng, 5)) {
    case 0:
      headers.emplace_back("connection", Jexp::scalar("x-origin-hop"));
      headers.emplace_back("x-origin-hop", Jexp::scalar("1"));
      break;
    case 1:
      headers.emplace_back("keep-alive", Jexp::scalar("timeout=5"));
      break;
    case 2:
      headers.emplace_back("etag", Jexp::scalar("\"" + std::to_string(forwarded) + "\""));
      break;
    default:
      break;
  }
  headers.emplace_back("x-answer", Jexp::scalar(std::to_string(forwarded)));
  // The body names what it answers (a mixed-up relay shows), read from the
  // forwarded request itself, so the answer stays meaningful when shrunk.
  Jexp body = Jexp::scalar("answer " + std::to_string(forwarded));
  if (pick(rng, 2))
    if (auto path = harness::parse_jpath("this@\"path\""))
      body = Jexp::ref({forwarded, *path, "id"});
  std::vector<std::pair<std::string, Jexp>> answer = {
      {"status", Jexp::scalar(kStatus[pick(rng, kStatus.size())])},
      {"headers", Jexp::object(std::move(headers))},
      {"body", body},
      {"chunked", Jexp::scalar(pick(rng, 2) == 0)}};
  // One answer in 4 hangs up if what it answers is not idempotent: what a
  // proxy MUST NOT retry (RFC 9110 §9.2.2), at no cost to the others (one
  // in 16 left a gateway's retried POST unfound by 1 seed of 3 in 60 s).
  if (pick(rng, 4) == 0)
    if (auto path = harness::parse_jpath("this@\"method\""))
      answer.emplace_back("abort", Jexp::ref({forwarded, *path, "nonidempotent"}));
  return no_transform(rng, Jexp::object(std::move(answer)));
}

}  // namespace dualfuzz::proxy
