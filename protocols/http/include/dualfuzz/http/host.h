// The Host header field (RFC 9110 §7.2: Host = uri-host [ ":" port ], with
// uri-host and port from RFC 3986 §3.2.2–3.2.3). A server MUST answer 400 to
// an HTTP/1.1 request whose Host value is invalid (RFC 9112 §3.2), so the
// model needs the exact grammar: a value called invalid here that a correct
// server accepts would be a false alarm.
//
//   valid_host("localhost:8080")     // true
//   valid_host("[::ffff:1.2.3.4]")   // true: an IPv6 literal
//   valid_host("a,b")                // true: sub-delims are reg-name characters
//   valid_host("local host")         // false: SP is not
//   valid_host("localhost:80:80")    // false: a port is digits only
//   default_host(" LocalHost ")      // true: the name the tester sends
//   classify_host("a@b")             // HostField::kInvalid
#pragma once

#include <string_view>

namespace dualfuzz::http {

// Does a Host field value (optional whitespace around it allowed: the
// field's OWS) match uri-host [ ":" port ]? An empty value is valid (a
// request-target without authority, RFC 9112 §3.2).
bool valid_host(std::string_view value);

// Is it the host the tester names by default ("localhost", in any case, no
// port): the one every server under test serves, where the model's state
// applies? A valid other one may be another site, or refused (421).
bool default_host(std::string_view value);

// Both at once, as the model and the signatures read a Host value.
enum class HostField { kDefault, kOther, kInvalid };
HostField classify_host(std::string_view value);

}  // namespace dualfuzz::http
