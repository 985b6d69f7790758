// Content codings (RFC 9110 §8.4): a response's content may be a coded form
// of the representation (gzip, deflate, br...), chosen by proactive
// negotiation on Accept-Encoding (§12.5.3). The model compares the decoded
// bytes with the content it expects, and needs to know whether a request
// let the server pick a coded representation at all.
//
//   decode_content("gzip", gzipped)      == "hello"       (zlib)
//   decode_content("br", bytes)          == std::nullopt  (not decoded here)
//   admits_coding("gzip;q=1.0, br, *;q=0") == true
//   admits_coding("identity") == false; admits_coding("gzip;q=0") == false
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dualfuzz::http {

// Whether a Content-Encoding value names a coding other than identity.
bool is_coded(std::string_view content_encoding);

// The content with every coding of `content_encoding` undone (the last
// applied first), when each is gzip, x-gzip or deflate and the bytes decode;
// nullopt otherwise (another coding, or data that is not of that format).
// A decoded size past `limit` is nullopt too (a decompression bomb).
std::optional<std::string> decode_content(std::string_view content_encoding,
                                          std::string_view body,
                                          std::size_t limit = 64u << 20);

// Whether an Accept-Encoding value lets the server send a coding other than
// identity (some coding or "*" with a q-value above 0). A value that does
// not parse admits one (what the server made of it is its own).
bool admits_coding(std::string_view accept_encoding);

}  // namespace dualfuzz::http
