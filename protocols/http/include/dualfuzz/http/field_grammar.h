// The grammar of HTTP response fields as a sender must generate them (RFC
// 9110 §2.2: "A sender MUST NOT generate protocol elements that do not match
// the grammar defined by the corresponding ABNF rules"), for the fields
// whose grammar the message rules check (message_rules.h).
//
//   field_grammar("etag")->check("W/\"1\"") == true
//   field_grammar("etag")->check("1") == false      // no quotes
//   field_grammar("date")->check("Sun, 06 Nov 1994 08:49:37 GMT") == true
//   field_grammar("x-mine") == nullptr                // not checked
#pragma once

#include <span>
#include <string_view>

namespace dualfuzz::http {

struct FieldGrammar {
  std::string_view name;     // lower case
  std::string_view clause;   // where its ABNF is defined ("RFC 9110 §8.8.3")
  std::string_view grammar;  // the ABNF, briefly, for reports
  bool (*check)(std::string_view value);  // one field line's value (OWS trimmed)
};

// The grammar of field `name` (lower case), or null when it has none here.
const FieldGrammar* field_grammar(std::string_view name);
// Every grammar checked here, by field name.
std::span<const FieldGrammar> field_grammars();

// Pieces other rules use.
bool imf_fixdate(std::string_view v);  // RFC 9110 §5.6.7
bool entity_tag(std::string_view v);   // §8.8.3
bool token(std::string_view v);        // §5.6.2
// A field line value has no control characters but HTAB (§5.5).
bool field_value_chars(std::string_view v);

}  // namespace dualfuzz::http
