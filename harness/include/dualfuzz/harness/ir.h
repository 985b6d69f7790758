// The IR: one JSON value per message (thesis §5.3.1), plus the label and
// connection vocabulary shared by scripts, traces and the harness.
//
//   Json q = {{"method", "GET"}, {"path", "/a"}};
//   Label l = 3;  bool req = is_request_label(l);  Label a = response_label(l);  // 4
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "dualfuzz/oracle/json_text.h"

namespace dualfuzz::harness {

using Json = nlohmann::json;
// Requests are labelled 1, 3, 5, ...; the response to request l is l + 1.
using Label = std::uint32_t;
using ConnId = std::uint32_t;

// Compact JSON text; invalid UTF-8 (bytes a server sent) is replaced rather
// than thrown on, so printing never fails.
using oracle::dump_json;

// Largest label a script or reference may name: nine decimal digits keep
// every label printable and parseable without overflow.
inline constexpr Label kMaxLabel = 999'999'999;

constexpr bool is_request_label(Label l) { return l % 2 == 1; }
constexpr Label response_label(Label request) { return request + 1; }
// The request a label belongs to: itself for a request, label - 1 for a response.
constexpr Label request_of(Label l) { return is_request_label(l) || l == 0 ? l : l - 1; }

}  // namespace dualfuzz::harness
