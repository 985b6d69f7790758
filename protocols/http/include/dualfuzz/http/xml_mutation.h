// Structure-aware mutation of WebDAV's XML request bodies (RFC 4918 §14:
// propfind, propertyupdate, lockinfo). A server spends most of its DAV code
// on what these bodies name, so the mutator works on their structure rather
// than on bytes: an element renamed from the DAV vocabulary, inserted,
// dropped, duplicated or swapped with its neighbour, a text value changed, a
// namespace declaration changed, now and then a raw edit that breaks the
// XML on purpose. Feedback is what makes it pay: a coverage-guided engine
// keeps the bodies that reach new server code and mutates them further.
//
//   std::mt19937_64 rng(seed);
//   std::string next = dualfuzz::http::mutate_xml(body, rng);
//
// The model judges WebDAV answers without reading these bodies (model.cpp:
// Depth, bodies and 207 content are the server's), so any output is safe
// to send. Deterministic for a given rng state; every output is printable
// ASCII (scripts are JSON text) and at most kMaxXmlBody bytes.
#pragma once

#include <cstddef>
#include <random>
#include <string>
#include <string_view>

namespace dualfuzz::http {

inline constexpr std::size_t kMaxXmlBody = 1024;

// One mutation of `body` (any bytes: it need not be XML); an empty or
// unusable body becomes one of the vocabulary's documents.
std::string mutate_xml(std::string_view body, std::mt19937_64& rng);

}  // namespace dualfuzz::http
