// The rules of RFC 9110/9112 a response must follow on its own, whatever
// the server's state: the per-message layer beside the model (which judges
// what a response says about the resources). Each rule carries its clause
// and level; a broken MUST is a protocol violation, a broken SHOULD an
// advisory (harness::Protocol::MessageRules).
//
//   auto rules = http::new_message_rules();
//   rules->sent(request_ir);
//   for (const auto& b : rules->received(&request_ir, response_ir))
//     report(b.clause, b.must, b.text);   // "RFC 9110 §8.6", true,
//                                         // "Content-Length in a 204 response"
//
// A response IR as the codec makes it (codec.h): "fields" (every field line
// as sent) and "interim" (the 1xx before it) are read where the rule is
// about the wire (repeated lines, a 1xx's fields). Some rules compare with
// an earlier 200 to the same request in the same run (a 304's or 206's
// fields, a 304's Content-Length, HEAD's fields): only when no request that
// may change a resource was sent in between.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::http {

std::unique_ptr<harness::Protocol::MessageRules> new_message_rules();

// The rules, for documentation and the evaluation's table: an identifier,
// the clause, the level, and what breaks it.
struct MessageRule {
  std::string_view id;
  std::string_view clause;
  bool must;
  std::string_view text;
};
const std::vector<MessageRule>& message_rules();

}  // namespace dualfuzz::http
