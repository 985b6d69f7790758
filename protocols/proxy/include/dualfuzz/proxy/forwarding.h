// The forwarding obligations of an HTTP proxy (RFC 9110 §7.6, RFC 9112
// §3.2): what a forwarded request and a relayed response must look like,
// as response patterns of the oracle's symbolic language. The proxy model
// (model.h) says when they are sent and on which connection.
//
//   Sym fwd = forwarded_pattern(client_request, Mode::Forward);
//   // method, origin-form target, Host from the target, end-to-end fields,
//   // content; no Connection-listed or hop-by-hop field; Via present;
//   // Max-Forwards one less for TRACE and OPTIONS.
//   Sym back = relayed_pattern(origin_answer, "GET", Mode::Forward);
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "dualfuzz/harness/ir.h"
#include "dualfuzz/http/connection_options.h"
#include "dualfuzz/oracle/symbolic.h"

namespace dualfuzz::proxy {

using Json = harness::Json;

// A forward proxy (clients send absolute-form targets, RFC 9112 §3.2.2) or a
// gateway / reverse proxy (origin-form targets, one configured origin).
enum class Mode { Forward, Reverse };

// The connection options of a message (the tokens of its Connection field,
// lower-case): fields a proxy MUST remove before forwarding (§7.6.1).
using http::connection_options;
// Fields known to be connection-specific that a proxy SHOULD remove even
// when Connection does not list them (§7.6.1): Keep-Alive,
// Proxy-Connection, TE, Upgrade (Transfer-Encoding is framing: re-done).
bool known_hop_by_hop(std::string_view lower_name);

// Whether a proxy MAY transform the message's content: its Cache-Control
// has no no-transform directive (RFC 9110 §7.7). The patterns below then
// also accept a changed body (and a 203 for a 200), without the fields that
// describe the content.
bool may_transform(const Json& message);

// A request target split into authority and origin-form (RFC 9112 §3.2):
// "http://h:1/a?b" -> {"h:1", "/a?b", true}; "/a" -> {"", "/a", false}.
struct Target {
  std::string authority;
  std::string path;
  bool absolute = false;
  bool empty_path = false;  // absolute-form with no path and no query ("/" above)
};
Target split_target(std::string_view target);

// The request target a proxy in `mode` forwards `request` with: a forward
// proxy's origin-form of the absolute-form target, or "*" for an OPTIONS
// whose absolute-form has no path and no query (RFC 9112 §3.2.4: a MUST of
// the last proxy, which the proxy under test is); a gateway's as received.
std::string forwarded_target(const Json& request, Mode mode);

// A run's namespace (Protocol::namespace_request) in a proxy client's
// request: the path's first segment gets `prefix`, in origin-form or after
// an absolute-form's authority ("http://h/a" -> "http://h/PREFIXa"); an
// absolute-form with no path, "*" and CONNECT's authority stay as they are.
Json namespace_request(Json request, std::string_view prefix);
// Whether a forwarded request names a path of another run's namespace than
// `prefix` (run namespaces are WORD-...-N-: the same first word, another
// name): a late forward of an earlier execution (Origin::of_another_run).
bool of_another_run(const Json& forwarded, std::string_view prefix);
// Whether it names no run's namespace at all: "*", "/" (an absolute-form's
// empty path), any path outside the runs' first word, and no kRunField
// (Origin::names_no_run).
bool names_no_run(const Json& forwarded, std::string_view prefix);
// The field that names a run in a request whose path cannot (an
// absolute-form with an empty path): an end-to-end field, forwarded as it is.
inline constexpr const char* kRunField = "x-dualfuzz-run";

// GET, HEAD, OPTIONS, TRACE, PUT, DELETE (RFC 9110 §9.2.2) and WebDAV's
// PROPFIND, PROPPATCH, MKCOL, COPY, MOVE, UNLOCK (the HTTP Method Registry,
// RFC 4918; not LOCK): a proxy MAY
// retry them when a connection fails; others it MUST NOT (§9.2.2: "A proxy
// MUST NOT automatically retry non-idempotent requests"; RFC 9112 §9.3.1).
bool idempotent_method(std::string_view method);

// Max-Forwards as a number when it is one (1*DIGIT, §7.6.2).
std::optional<long long> max_forwards(const Json& request);
// TRACE and OPTIONS: the methods whose Max-Forwards a proxy must honour.
bool honours_max_forwards(const Json& request);
// A TRACE/OPTIONS with Max-Forwards 0: the proxy answers it itself.
bool answered_by_proxy(const Json& request);
// What a proxy process may refuse with any status of a wider set than
// policy_refusal_pattern's, the RFC leaving the refusal to it:
//  - content in a GET, HEAD or DELETE, which "might lead some
//    implementations to reject the request" (RFC 9110 §9.3.1, §9.3.2,
//    §9.3.5; a client SHOULD NOT send it), in a TRACE (a client MUST NOT,
//    §9.3.8) or in an OPTIONS without Content-Type (MUST have one, §9.3.7):
//    any client error (Squid: 411);
//  - Max-Forwards 0 on another method, which "a recipient MAY ignore"
//    (§7.6.2), or honour as for TRACE and OPTIONS, answering as the final
//    recipient: any error of its own (Apache: 400, "proxy loop?").
// nullopt: none of these.
std::optional<oracle::Sym> open_refusal_pattern(const Json& request);

// The markers the model reads from a message a proxy sent (a forwarded
// request, a relayed answer), where a pattern cannot say "any value" or "at
// least these": a Via field gives "via": {"present": true}; a Cache-Control
// field gives "cache-directives", each directive (lower case) with its
// argument (unquoted) or true:
//   Cache-Control: no-transform, max-age=60
//   -> "cache-directives": {"no-transform": true, "max-age": "60"}
// (A proxy MUST pass every directive through, RFC 9111 §5.2, and nothing
// forbids it to add its own: an object pattern allows other members.)
Json mark_forwarded(Json message);

// What the proxy must forward for `request` (a client's request IR as sent).
oracle::Sym forwarded_pattern(const Json& request, Mode mode);
// What the proxy must relay to the client for the origin's `answer` (IR as
// the proxy parsed it) to a request with `method` and Range field `range`
// ("" none).
oracle::Sym relayed_pattern(const Json& answer, std::string_view method, Mode mode,
                            std::string_view range = "");
// A response the proxy makes itself: any (Max-Forwards 0, "as the final
// recipient"), or an error status of its own (a refusal).
oracle::Sym own_answer_pattern();
// What no forwarded request matches (it names a member none has): the
// expectation of a forward the proxy must not make, so that making it breaks
// a send that names the clause.
oracle::Sym never_forwarded_pattern();
oracle::Sym refusal_pattern();
// What a proxy process may answer instead of forwarding, read clause by
// clause (RFC 9110 §15): a refusal by policy, each status with the field it
// MUST carry (401 WWW-Authenticate, §11.6.1; 407 Proxy-Authenticate,
// §11.7.1, §15.5.8; 405 Allow, §15.5.6): 401, 403, 407, 451 (RFC 7725),
// 413, 414, 431 (limits), 429 and 503 (load); 502 and 504 (lost_pattern);
// to a method other than GET and HEAD also 405, 411, 417 and 501 ("All
// general-purpose servers MUST support the methods GET and HEAD", §9.1).
// Not 400 (the tester's requests are well-formed: 400 says the client
// erred) nor 500 (the proxy failed): those stay violations.
oracle::Sym policy_refusal_pattern(bool get_or_head);
// A proxy's answer when its connection to the origin failed (502: a pooled
// connection the origin had closed, RFC 9112 §9.5, where a non-idempotent
// request MUST NOT be retried, §9.3.1) or the origin's answer did not come
// in the proxy's time (504).
oracle::Sym lost_pattern();

// The clauses the model's sends name.
inline constexpr const char* kForwardClause =
    "RFC 9110 §7.6 (forwarded request: same method, origin-form target, end-to-end "
    "fields and content; §7.6.1 no Connection-listed or hop-by-hop field; §7.6.2 "
    "Max-Forwards decremented; §7.6.3 Via)";
inline constexpr const char* kRelayClause =
    "RFC 9110 §7.6 (relayed response: the origin's status, end-to-end fields and "
    "content, in request order per connection, RFC 9112 §9.3.2; §7.6.1 no "
    "Connection-listed or hop-by-hop field; §7.6.3 Via)";
inline constexpr const char* kMaxForwardsClause =
    "RFC 9110 §7.6.2 (Max-Forwards: 0 on TRACE/OPTIONS: answered by the proxy, not "
    "forwarded)";
inline constexpr const char* kUnexplainedForwardClause =
    "RFC 9110 §7.6 (a forwarded request: each one a request a client sent, forwarded "
    "once)";
inline constexpr const char* kAbortedClause =
    "RFC 9110 §15.6.3 (the origin hung up without answering: 502), §9.2.2 (a proxy MUST "
    "NOT automatically retry non-idempotent requests; RFC 9112 §9.3.1)";
inline constexpr const char* kRefusalClause =
    "RFC 9110 §15 (a request the proxy refuses gets an error status of its own)";
inline constexpr const char* kPolicyRefusalClause =
    "RFC 9110 §15.5, §15.6 (a refusal: a proxy's own error, with the field its status "
    "MUST carry; or 502/504 for a lost forward, RFC 9112 §9.3.1)";
inline constexpr const char* kOpenRefusalClause =
    "RFC 9110 §15.5, §15.6 (a refusal by policy, as above), §9.3.1, §9.3.2, §9.3.5, "
    "§9.3.7, §9.3.8 (content in a GET, HEAD, DELETE or TRACE, or in an OPTIONS without "
    "Content-Type, may be rejected), §7.6.2 (Max-Forwards 0 on another method MAY be "
    "ignored, or honoured)";

}  // namespace dualfuzz::proxy
