// RFC 9112 message syntax broken on purpose, one defect per request. A
// request IR may name one ("malformed": "obs-fold"); print_request sends the
// request with that defect, canonical_request keeps the name, and the model
// judges the answer by what the RFC allows a server to do with it:
//
//   kMustReject  only 400 (e.g. whitespace between a field name and its
//                colon, RFC 9112 §5.1; a second Host line, §3.2);
//   kMayReject   an error status that changes nothing, or the request served
//                as if it were well-formed (obsolete line folding: reject or
//                replace with SP, §5.2);
//   kShouldServe served as if well-formed, or (a SHOULD only: an advisory,
//                a violation under --strict) refused like kMayReject (an
//                empty line before the request line, §2.2);
//   kMustServe   served as if well-formed (absolute-form, §3.2.2).
//
// Every defect keeps the bytes one request under any reading a server may
// take of them (a Content-Length read leniently is the right length), so a
// lenient server is judged on its answer, not desynchronized by the tester.
// Defects on fields use a field no server interprets (X-Dualfuzz), so
// serving "as if well-formed" is the request without it; but for a line
// preceded by whitespace after the request line, which a server MUST either
// refuse or ignore whole (§2.2): it is a Range line, which no plain request
// of the tester's has, so a server that read it shows it (a 206).
//
//   const Malformation* m = find_malformation("space-before-colon");
//   std::optional<std::string> bytes = malform(print_request(ir), *m);
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace dualfuzz::http {

enum class Latitude { kMustReject, kMayReject, kShouldServe, kMustServe };

struct Malformation {
  std::string_view name;
  Latitude latitude;
  std::string_view clause;  // where the RFC says what a server does with it
};

// The vocabulary, in a fixed order (the mutator draws from it).
std::span<const Malformation> malformations();
const Malformation* find_malformation(std::string_view name);

// `printed` (one well-formed request, as print_request makes it) with `m`'s
// defect; nullopt when `m` does not apply to it (a Content-Length defect on
// chunked content, a chunked one on a request that is not chunked).
std::optional<std::string> malform(std::string_view printed, const Malformation& m);

}  // namespace dualfuzz::http
