// Blind byte edits of one header field: where a coverage-guided engine
// pays. The structural mutator reaches every request the model can judge
// within minutes (docs/evaluation-journal.md: black-box reached 99 % of all engines'
// lighttpd edges in 10 min); a server's field parsers (ranges, entity tags,
// dates, WebDAV's If, Destination, Timeout...) have branches only
// byte-level edits reach, and only feedback keeps the edits that get
// further. A request IR may carry one such field:
//
//   {"method": "GET", "path": "/a",
//    "havoc": {"name": "range", "value": "bytes=0-1,-"}}
//
// print_request sends it as a field line (in place of a "headers" field of
// the same name); canonical_request keeps the "havoc" member, and the
// model judges nothing of such a request (any answer, the state it may
// write unknown): its meaning is whatever the server's parser made of the
// bytes. Only the field is blind, never the framing: its value is one line
// (no CR, LF or NUL) and it never names a field that frames the message or
// the connection (Content-Length, Transfer-Encoding, Connection, Expect,
// Upgrade...), so the bytes stay one request under any reading.
//
//   std::mt19937_64 rng(seed);
//   std::string v = dualfuzz::http::havoc_bytes("bytes=0-1", "range", rng);
#pragma once

#include <cstddef>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>

#include "dualfuzz/harness/ir.h"

namespace dualfuzz::http {

inline constexpr std::size_t kMaxHavocValue = 512;

// A field a server parses, with a well-formed value to start from.
struct HavocField {
  std::string_view name;  // lowercase
  std::string_view seed;
};
std::span<const HavocField> havoc_fields();

// The field line the IR's "havoc" member asks for, cleaned (a token name,
// a one-line value of at most kMaxHavocValue bytes); nullopt when there is
// none or it names a protected field.
struct FieldLine {
  std::string name;
  std::string value;
};
std::optional<FieldLine> havoc_line(const harness::Json& ir);

// A protected field (framing, the connection, interim responses).
bool havoc_protected(std::string_view lowercase_name);

// One to four byte-level edits of `value` (a byte changed, inserted,
// deleted, repeated; a digit run swapped for an edge number; a token of
// the field's grammar inserted). `name` picks the tokens ("" for a request
// target). Every output is printable ASCII or HTAB, at most kMaxHavocValue
// bytes; deterministic for a given rng state.
std::string havoc_bytes(std::string value, std::string_view name, std::mt19937_64& rng);

}  // namespace dualfuzz::http
