// The fields a status code MUST carry (RFC 9110 §15): a 401's
// WWW-Authenticate (§15.5.2), a 405's Allow (§15.5.6), a 407's
// Proxy-Authenticate (§15.5.8) and a 426's Upgrade (§15.5.22). Every model
// that accepts one of these statuses as an answer demands the field with it,
// so that a refusal the RFC allows is accepted and one missing its MUST is
// named by the field it lacks.
//
//   Json r = mark_status_fields(response);  // {"allow": {"present": true}, ...}
//   Sym p = statuses_with_fields({400, 405});
//   // p matches {"status": 400} and {"status": 405, "allow": {"present": true}}
#pragma once

#include <span>
#include <vector>

#include "dualfuzz/oracle/symbolic.h"
#include "nlohmann/json.hpp"

namespace dualfuzz::http {

// A status and the field it MUST carry, with the clause that says so.
struct StatusField {
  int status;
  const char* field;   // lower-case
  const char* clause;  // "RFC 9110 §15.5.6"
};
// Ascending by status. (The message rules check them on every response too,
// message_rules.h.)
std::span<const StatusField> status_fields();

// The message with {"<field>": {"present": true}} for each of those fields
// its headers hold (the IR's "headers" object), whatever its status.
nlohmann::json mark_status_fields(nlohmann::json message);

// A response with one of `codes`, each carrying the field its status MUST
// carry; on a message that went through mark_status_fields.
oracle::Sym statuses_with_fields(std::vector<int> codes);

}  // namespace dualfuzz::http
