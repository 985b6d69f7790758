// Why an explanation of the trace died (or why the oracle gave up), as data:
// consumers (violation keys, reports, JSON findings, evaluation scripts)
// read the fields instead of parsing the sentence.
//
//   Reason r = verdict.reasons.front();  // a store's GET answered "old"
//   // r.kind == Reason::Kind::Mismatch, r.location == "response.value",
//   // r.expected == "\"new\"", r.observed == "\"old\"",
//   // r.clause == "KV §2.1" (what the model's send named; "" if nothing)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dualfuzz/oracle/symbolic.h"

namespace dualfuzz::oracle {

// The specification clause a model's response implements ("KV §2.1"),
// named at its `send`: static text (a string literal), so model
// steps and in-flight responses carry a pointer, never a copy.
using Clause = const char*;

struct Reason {
  enum class Kind : std::uint8_t {
    Mismatch,            // the response differs from the expected one at `location`
    Contradiction,       // it matches, but not with what earlier messages revealed
    NothingOutstanding,  // no request the server could be answering there
    ModelStopped,        // the model finished: it sends nothing more
    Limit,               // a resource limit (Inconclusive, never a rejection)
    Other,
  };
  Kind kind = Kind::Other;
  // Where the response went wrong, as a path into it ("response.value",
  // "response.items[2]"); "response" for a whole-response reason,
  // "connection" for one about the connection, empty for a limit.
  std::string location;
  std::string expected;  // the explanation's pattern there, as text
  std::string observed;  // the observed value there, as text ("missing": absent)
  std::string clause;    // of the response the explanation expected (may be empty)
  // The explanation's model state, as JSON text (may be empty): the state
  // the server was in when it received the request whose response is
  // judged ("server state before the request: ..." in `text`), not the one
  // it would have reached by answering as expected; the current state for
  // a response sent before any request ("server state ...").
  std::string state;
  std::string text;      // the human sentence
  // A mismatch whose alternatives went wrong at several places: each place
  // (its path, what the alternatives expected there, what was observed),
  // in the order met; `location` is then their common place. Empty for one
  // place. A reader may tell them apart: for a proxy's relayed answer,
  // "response.headers.x-hop: absent expected" beside "response.status:
  // 502 or 504" (the 502 it may send instead).
  struct Place {
    std::string location, expected, observed;
    friend bool operator==(const Place&, const Place&) = default;
  };
  std::vector<Place> places;
  friend bool operator==(const Reason&, const Reason&) = default;

  // A reason that is about no part of a response's content.
  static Reason generic(Kind k, std::string location, std::string text) {
    Reason r;
    r.kind = k;
    r.location = std::move(location);
    r.text = std::move(text);
    return r;
  }
};

std::string_view kind_name(Reason::Kind k);
// {"kind","location","expected","observed","clause","state","text"} (for
// nlohmann's conversions: Json(verdict.reasons) is an array of them).
void to_json(Json& j, const Reason& r);

// Printed symbolic text with each quoted constant longer than 60
// characters cut to its first 40 and its length, for reasons that name a
// constraint: `"xxxx...(40)..." (500 characters)`.
std::string brief_constants(const std::string& printed);

}  // namespace dualfuzz::oracle
