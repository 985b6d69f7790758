// The HTTP/1.1 server model (RFC 9110/9112 subset): a nondeterministic
// reference implementation the oracle is derived from.
//
// Request IR:  {"method":"PUT","path":"/a","headers":{"if-match":"\"x\""},"body":"..."}
// Response IR: {"status":200,"headers":{"etag":...},"body":"...", "dates":{...}}
//   (header names lowercase; `dates` holds every header whose value is an
//   HTTP-date, as seconds since the epoch; `content-range` the Content-Range
//   in canonical form, `multipart` true for multipart/byteranges content,
//   `allow` {"present":true} when an Allow field came — see normalize_response()).
//
// What the model leaves to the server (each a hidden choice the oracle tracks):
// whether a representation has an ETag, and its value (strong or weak,
// unknown until observed; a strong tag never names two different contents of
// one resource); Last-Modified as an unknown time, never decreasing, possibly
// equal for quick successive modifications; 200 vs 204 for a replacing PUT and
// a DELETE; 405 vs 501 for unsupported methods; extra headers (Date, Server…);
// whether it evaluates If-Modified-Since at all (RFC 9110 §13.1.3 lets a
// recipient ignore it when it has no modification date); whether it honours a
// Range (a 200 with everything is always correct, §14.2), coalesces several
// ranges into one part or sends multipart/byteranges (whose parts the model
// does not check), rejects an invalid or overlapping range set, sends
// Content-Range on a 416, and takes its Last-Modified as a strong validator
// for If-Range; whether a HEAD carries Content-Length (if it does, GET's).
//
//   oracle::Oracle o(dualfuzz::http::server_model());
//   o.observe(Event::request(1, 1, {{"method","GET"},{"path","/a"}}));
//   o.observe(Event::response(1, 2, normalize_response(ir)));
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "dualfuzz/http/date.h"
#include "dualfuzz/oracle/itree.h"

namespace dualfuzz::http {

// How much atomicity the model asks of the server. RFC 9110 does not
// require a server to apply requests atomically; the model does by default
// (then two overlapping requests behave as if one came after the other).
//  - Atomic: every request takes effect at one instant (linearizability).
//  - Interval: a write (PUT, DELETE) takes effect over an interval: the
//    server decides its answer when it receives it and stores and answers
//    later; in between, requests of other connections on the path are
//    served against the old state or the new one (so two creating PUTs may
//    both answer 201, two If-Match PUTs with one tag may both succeed), or
//    answered 409/423/503 (busy).
//  - Torn: Interval, and a GET/HEAD during a write may also see any prefix
//    of the new content, with validators of its own.
// A trace with no requests in flight at once on one path is judged alike by
// all three.
enum class Consistency { Atomic, Interval, Torn };

// What the tester may take for granted about the server (`dualfuzz fuzz
// --assume`, `--strict`). The default is any server: one that refuses what
// it does not support or allow, as RFC 9110 lets it.
//   server_model(Consistency::Atomic, {.writable = true});  // a WebDAV store
struct Assumptions {
  // The server implements and allows PUT and DELETE on every path the
  // tester uses, for every client: a refusal (401, 403, 405, 501, 503...)
  // is then a violation. Off, any request may be refused (RFC 9110 §15.4-
  // §15.6) and the refusal changes nothing; every answer that is not a
  // refusal is judged as before.
  bool writable = false;
  // Every SHOULD read as a MUST: the alternatives only a recommendation
  // excludes are gone (a 400 for an unknown method, a redirect without
  // Location, a 416 without Content-Range). A trace the default model
  // accepts and this one rejects departs from a SHOULD: an advisory.
  bool strict = false;
  // The server is conformant to HTTP/1.0 only: its answers say HTTP/1.0,
  // and "the protocol version as a whole indicates the sender's conformance
  // with the set of requirements laid out in that version's corresponding
  // specification(s)" (RFC 9110 §2.5; Python's http.server). HTTP/1.1's
  // additions are then its choice: a request is judged as HTTP/1.1 reads
  // it, or as HTTP/1.0 does (no Host check, RFC 9112 §3.2; no If-Match,
  // If-None-Match, If-Unmodified-Since, If-Range or Range; RFC 9112's
  // syntax MUSTs a defect to refuse or ignore). If-Modified-Since and the
  // rest of RFC 9110 stay judged.
  bool http10 = false;
  // Learned, not assumed (http10 only): per path, the HTTP/1.1 additions
  // the server has shown it honours, and those it has shown it ignores (a
  // bit each, model.cpp's Http11). The model's own; a user sets neither.
  std::uint8_t http11_honoured = 0, http11_ignored = 0;
  friend bool operator==(const Assumptions&, const Assumptions&) = default;
};

oracle::ServerModel server_model(Consistency consistency = Consistency::Atomic,
                                 Assumptions assume = {});

// Adds the `dates` member to a response IR (seconds since the epoch of each
// header that is a valid HTTP-date, date.h). The harness calls it on every response.
oracle::Json normalize_response(oracle::Json response_ir);

// Paths the model serves as plain files: "/seg/seg" with unreserved
// characters. Other paths may be refused with a 4xx by a correct server.
bool plain_path(std::string_view path);

}  // namespace dualfuzz::http
