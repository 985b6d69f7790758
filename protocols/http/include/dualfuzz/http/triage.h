// How HTTP messages are named, shown and told apart: the presentation and
// triage hooks of the HTTP plug-in (harness::Protocol's request_label ...
// race_key). A signature is built from these, so two violations are one bug
// when they give the same answer to the same kind of request.
//
//   request_shape({{"method","PUT"},{"headers",{{"if-match","x"}}}})
//       == "PUT if-match(invalid)"
//   describe_request(q)   == "PUT /doc  if-match: \"1\"  (2 bytes)"
//   describe_response(r)  == "204  etag: \"2\""
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/harness/ir.h"
#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::http {

using Json = harness::Json;

// Sets the presentation and triage hooks above (labels, descriptions,
// kind and shapes) on `p`: shared by the plug-ins whose messages are HTTP.
void set_presentation(harness::Protocol& p);

// Is `v` a well-formed `"*" / #entity-tag` (RFC 9110 §13.1.1, §8.8.3)?
bool valid_etag_field(const std::string& v);

std::string request_label(const Json& q);   // "PUT /a"
std::string response_label(const Json& r);  // "412"
std::string describe_request(const Json& q);
std::string describe_response(const Json& r);
// The method: what stays put while a counterexample shrinks.
std::string request_kind(const Json& q);
// The method and which precondition fields the request carries, each marked
// "(invalid)" when malformed: the RFC treats a malformed precondition
// differently from a false one (§13.1.4: ignore an invalid
// If-Unmodified-Since), so the two are different bugs. Values are left out:
// `If-Match: *` and `If-Match: "x"` ignored are one bug.
std::string request_shape(const Json& q);
std::string response_shape(const Json& r);  // the status code
// The target resource: requests on different paths never race (the model
// keeps one independent server per path).
std::string race_key(const Json& q);
// A script path under the run's namespace: "/a/b" -> "/<prefix>a/b" (and
// the Destination likewise). The first segment gets the prefix, the rest
// keeps its hierarchy, so a real server's collections are exercised: a
// PROPFIND of a directory, a COPY of a tree. The model's reach (model.cpp)
// holds what a tree allows that independent paths do not: a file may serve
// the paths below it as path info, a write may make its missing parents.
Json namespace_request(Json q, std::string_view prefix);
// The request without one of its precondition headers, for each it has;
// and, for an entity-tag precondition (If-Match, If-None-Match, If-Range),
// the request with it naming a tag no server makes ("dualfuzz-unrelated").
std::vector<harness::Protocol::Lighter> lighter(const harness::Jexp& body,
                                                const Json& sent);
// The request as a GET, its fields and content kept (Protocol::plainer);
// nullopt for a GET, or a request whose method is not a plain string.
std::optional<harness::Jexp> plainer(const harness::Jexp& body);

// The bodies with one path below a collection moved to the top, as its last
// segment (Protocol::flatter): /a/b becomes /b in every request whose path
// (or Destination) is /a/b or below it, one list per such path; none where
// the top name is taken by another path of the script or a path is not
// plain text.
std::vector<std::vector<harness::Jexp>> flatter(const std::vector<harness::Jexp>& bodies);
// An entity tag with its weakness flipped: the tag a weak/strong comparison
// bug is most likely to confuse with it.
std::vector<Json> related_values(const Json& v);
// A response's ETag and Last-Modified values (Protocol::validators).
std::vector<std::string> validators(const Json& response_ir);
// A GET of the request's path (and Host, when it names one) whose ETag
// gives `value` (Protocol::probe): for an entity tag, through "weak" when
// it is weak and "strong" when not, so that either kind of tag the server
// gives matches; for a list of them, its member most like a server's (the
// longest: the reference then stands for the whole list, whose other
// members a fuzzer made up). Nullopt for anything else, for the tag
// `lighter` names (made up on purpose), for tags under 8 characters, and
// for a request without a path.
std::optional<harness::Protocol::Probe> probe(const harness::Jexp& request,
                                              const Json& value);

}  // namespace dualfuzz::http
