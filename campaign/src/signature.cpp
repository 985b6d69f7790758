// identity_of (signature.h): a finding's name from its verdict and the
// shape of its shrunk script.
#include "dualfuzz/campaign/signature.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dualfuzz::campaign {
namespace {

using harness::Json;
using Outcome = harness::RunResult::Outcome;

// Indices and numbers in a location ("response.items[2]") as N.
std::string location_shape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      while (i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) ++i;
      out += 'N';
    } else {
      out += s[i];
    }
  }
  return out;
}

bool is_status(const std::string& location) {
  return location == "response.status" || location.ends_with(".status");
}

// A value's class: a status is its own class; any other value "value",
// "absent" when there is none.
std::string value_class(const std::string& location, const std::string& v) {
  if (v == "missing" || v == "no value" || v.empty()) return "absent";
  return is_status(location) ? v : "value";
}

// An expected pattern ("\"1\" or no value") as its alternatives' classes.
std::string expected_class(const std::string& location, const std::string& e) {
  std::set<std::string> classes;
  std::size_t i = 0;
  for (;;) {
    const std::size_t j = e.find(" or ", i);
    classes.insert(
        value_class(location, e.substr(i, j == std::string::npos ? j : j - i)));
    if (j == std::string::npos) break;
    i = j + 4;
  }
  std::string out;
  for (const auto& c : classes) out += (out.empty() ? "" : "|") + c;
  return out;
}

// A reason every answer has: the model's refusal, a weaker consistency's
// busy answer (their clauses say so).
bool incidental(const oracle::Reason& x) {
  return x.clause.find("(a refusal)") != std::string::npos ||
         x.clause.starts_with("consistency ");
}

// A status a server answers when it does not do what was asked (4xx, 5xx).
bool error_status(const std::string& location, const std::string& expected) {
  return is_status(location) && (expected.starts_with('4') || expected.starts_with('5'));
}

// A reason that says where the answer went wrong: a mismatch, or a
// contradiction with what earlier messages revealed.
bool is_located(const oracle::Reason& x) {
  return x.kind == oracle::Reason::Kind::Mismatch ||
         x.kind == oracle::Reason::Kind::Contradiction;
}

// How an observed value is named in a finding's name.
enum class Observed {
  kExact,  // its class (value_class: a status is its own class)
  kOther,  // a status as "other": the answer a server gave instead of a
           // refusal is incidental
  kClass,  // a status as its class ("2xx") when no status expected shares
           // it: a precondition ignored is one defect whether the method
           // then answered 200, 204 or 206
  kNone,   // left out: what was broken, not how (Lighter's check)
};

// The class of a status code ("2xx"), or "" when it is none.
std::string status_class(const std::string& v) {
  return v.size() == 3 && std::isdigit(static_cast<unsigned char>(v[0]))
             ? std::string(1, v[0]) + "xx"
             : std::string();
}

// One place of a mismatch as its classes: "location: expected-class
// expected, observed-class observed".
std::string place_part(const std::string& location, const std::string& expected,
                       const std::string& observed, Observed how = Observed::kExact) {
  std::string out =
      location_shape(location) + ": " + expected_class(location, expected) + " expected";
  if (how == Observed::kNone) return out;
  std::string seen = value_class(location, observed);
  if (is_status(location) && how == Observed::kOther) seen = "other";
  if (is_status(location) && how == Observed::kClass) {
    const std::string c = status_class(seen);
    const std::string e = "|" + expected_class(location, expected);
    // (An expected status of the observed one's class: "200|204" for 206.)
    if (!c.empty() && e.find("|" + c.substr(0, 1)) == std::string::npos) seen = c;
  }
  return out + ", " + seen + " observed";
}

// Does a place of `x` find a field missing (where an alternative matched
// the observed status: a 405 without the Allow it MUST carry)?
bool field_missing(const oracle::Reason& x) {
  return std::ranges::any_of(x.places, [](const oracle::Reason::Place& p) {
    return !is_status(p.location) && value_class(p.location, p.observed) == "absent";
  });
}

// The places a mismatch names. With several (alternatives that went wrong
// at different places), an error status that one alternative allowed (a
// proxy's 502 in place of its relay) is the server's latitude, not what went
// wrong, whenever another place is left: the relay's missing field decides.
// A field missing decides over the statuses other alternatives wanted:
// otherwise each method's own set of expected statuses would name one defect
// once per method.
std::vector<std::pair<std::string, std::string>> mismatch_places(const oracle::Reason& x,
                                                                 Observed how) {
  std::vector<std::pair<std::string, std::string>> out;
  const bool missing = field_missing(x);
  for (const oracle::Reason::Place& p : x.places)
    if (!error_status(p.location, p.expected) && !(missing && is_status(p.location)))
      out.emplace_back(p.location, place_part(p.location, p.expected, p.observed, how));
  if (out.empty())
    out.emplace_back(x.location, place_part(x.location, x.expected, x.observed, how));
  return out;
}

// A refusal that lacks a field its status MUST carry (a 405 without Allow,
// a 401 without a challenge).
bool broke_a_refusal(const harness::RunResult& r) {
  return std::ranges::any_of(r.reasons(), [](const oracle::Reason& x) {
    return x.kind == oracle::Reason::Kind::Mismatch && incidental(x) && field_missing(x);
  });
}

// The decisive reasons of a verdict, each with the places it names (a
// reason that is no mismatch: its location, or none).
struct Decisive {
  std::vector<std::string> parts;      // as verdict_part joins them
  std::vector<std::string> locations;  // every place they name
  std::vector<std::vector<std::string>> part_locations;  // per part, its places
};
Decisive decisive_of(const harness::RunResult& r, Observed how = Observed::kExact) {
  // An error the model also allowed (a 409 kept alive by a nested path, a
  // 400 by an invalid field) is a latitude of the server: when a success
  // was expected too, or another reason decided (a contradiction), that
  // decides.
  bool success_expected = false;
  for (const oracle::Reason& x : r.reasons())
    if (((x.kind == oracle::Reason::Kind::Mismatch && is_status(x.location)) ||
         x.kind == oracle::Reason::Kind::Contradiction) &&
        !incidental(x) && !error_status(x.location, x.expected))
      success_expected = true;
  // A refusal that lacks a field its status MUST carry (a 405 without Allow,
  // a 401 without a challenge): the server refused, and broke the refusal's
  // own rule; that decides, not the answers a served request would get.
  const bool refusal_broken = broke_a_refusal(r);
  std::set<std::string> decisive, all;
  std::vector<std::string> locations, all_locations;
  std::map<std::string, std::vector<std::string>> places_of;
  for (const oracle::Reason& x : r.reasons()) {
    std::string one;
    std::vector<std::string> at;
    if (x.kind == oracle::Reason::Kind::Mismatch) {
      for (auto& [loc, part] : mismatch_places(x, how)) {
        one += (one.empty() ? "" : " or ") + part;
        at.push_back(loc);
      }
    } else {
      one = std::string(oracle::kind_name(x.kind)) +
            (x.location.empty() ? "" : " at " + location_shape(x.location));
      at.push_back(x.location);
    }
    if (!x.clause.empty()) one += " (" + x.clause + ")";
    places_of[one].insert(places_of[one].end(), at.begin(), at.end());
    all.insert(one);
    all_locations.insert(all_locations.end(), at.begin(), at.end());
    const bool decides =
        refusal_broken ? x.kind == oracle::Reason::Kind::Mismatch && incidental(x) &&
                             field_missing(x)
                       : is_located(x) && !incidental(x) &&
                             !(success_expected && error_status(x.location, x.expected));
    if (decides) {
      decisive.insert(one);
      locations.insert(locations.end(), at.begin(), at.end());
    }
  }
  Decisive d;
  const bool none = decisive.empty();
  for (const auto& s : none ? all : decisive) {
    d.parts.push_back(s);
    d.part_locations.push_back(places_of[s]);
  }
  d.locations = none ? std::move(all_locations) : std::move(locations);
  return d;
}

// The decisive reasons as one text ("" for none).
std::string joined(const Decisive& d) {
  std::string out;
  for (const auto& s : d.parts) out += (out.empty() ? "" : "; ") + s;
  return out;
}

std::string verdict_part(const harness::RunResult& r, Observed how = Observed::kExact) {
  const std::string out = joined(decisive_of(r, how));
  return out.empty() ? "no reason" : out;
}

// The header fields of a request IR (an object under "headers"), if any.
const Json* headers_of(const Json& ir) {
  if (!ir.is_object()) return nullptr;
  auto it = ir.find("headers");
  return it != ir.end() && it->is_object() ? &*it : nullptr;
}

}  // namespace

std::string finding_shape(const harness::Protocol& p, const Json& ir) {
  std::string s = p.request_shape(ir);
  if (s.empty()) s = p.request_kind(ir);
  for (std::size_t i; (i = s.find("(invalid)")) != std::string::npos;) s.erase(i, 9);
  return s;
}

namespace {

// `ir`'s shape followed by one entry per header field, sorted and braced:
// `entry(name, value)` with the name in lower case (an empty entry leaves
// the field out). Nothing for no fields.
template <class Entry>
std::string with_fields(std::string shape, const Json& ir, Entry entry) {
  const Json* h = headers_of(ir);
  if (!h || h->empty()) return shape;
  std::set<std::string> entries;
  for (const auto& [k, v] : h->items()) {
    std::string n = k;
    for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::string e = entry(n, v); !e.empty()) entries.insert(std::move(e));
  }
  if (entries.empty()) return shape;
  std::string list;
  for (const auto& e : entries) list += (list.empty() ? "" : ",") + e;
  return shape + " {" + list + "}";
}

// The string values of a response IR's header fields.
std::set<std::string> field_values(const Json& ir) {
  std::set<std::string> out;
  if (const Json* h = headers_of(ir))
    for (const auto& [k, v] : h->items())
      if (v.is_string()) out.insert(v.get<std::string>());
  return out;
}

// The killing request with each field's value class against the newest 2xx
// answer on its path received before its own (requests may be pipelined:
// sent before the answers they come after).
std::string killing_part(const harness::Protocol& p, const harness::RunResult& r,
                         const Json& kill, harness::Label answer) {
  const std::string key = p.race_key(kill);
  std::set<std::string> current;
  for (const auto& m : r.trace.messages()) {
    if (m.label == answer) break;
    if (harness::is_request_label(m.label)) continue;
    const Json* q = r.trace.find(harness::request_of(m.label));
    if (!q || p.race_key(*q) != key) continue;
    if (!p.response_shape(m.ir).starts_with('2')) continue;
    if (p.validators) {
      const std::vector<std::string> v = p.validators(m.ir);
      current = std::set<std::string>(v.begin(), v.end());
    } else {
      current = field_values(m.ir);
    }
  }
  // A request the server must refuse whatever else it asks ("* host"):
  // only the fields its shape names are the defect's; the others beside
  // them would split one cause into as many identities (a baseline then
  // missed the same invalid Host sent with an If-None-Match).
  const std::string shape = finding_shape(p, kill);
  const bool refused = refused_whatever(shape);
  auto named = [&](const std::string& n) {
    for (std::size_t at = shape.find(n); at != std::string::npos;
         at = shape.find(n, at + 1))
      if ((at == 0 || shape[at - 1] == ' ') &&
          (at + n.size() == shape.size() || shape[at + n.size()] == ' ' ||
           shape[at + n.size()] == '('))
        return true;
    return false;
  };
  return with_fields(shape, kill, [&](const std::string& n, const Json& v) {
    if (refused && !named(n)) return std::string();
    std::string cls = "other";
    if (v.is_string()) {
      if (current.count(v.get<std::string>())) {
        cls = "current";
      } else {
        for (const Json& rel : p.related_values(v))
          if (rel.is_string() && current.count(rel.get<std::string>())) cls = "related";
      }
    }
    return n + ":" + cls;
  });
}

// The other requests by their shapes: the methods and conditions the
// shrinker could not remove, not the fields beside them (an Expect, a
// Content-Type).
std::string rest_part(const harness::Protocol& p, const harness::RunResult& r,
                      const Json* kill) {
  std::set<std::string> others;
  for (const auto& m : r.trace.messages())
    if (harness::is_request_label(m.label) && &m.ir != kill)
      others.insert(finding_shape(p, m.ir));
  if (others.empty()) return "alone";
  std::string out = "with ";
  bool first = true;
  for (const auto& o : others) {
    out += (first ? "" : ", ") + o;
    first = false;
  }
  return out;
}

}  // namespace

// How far a forward matched the client request an explanation paired it
// with, in the order a proxy's forward pattern is checked (method, target,
// then fields and content): an explanation that died at a field paired the
// forward with a request of its own method and target.
int pairing_depth(const std::string& location) {
  if (location == "response.method") return 0;
  if (location == "response.path") return 1;
  return 2;
}

std::string forward_key(const harness::RunResult& r) {
  // The explanations that paired the forward with another client request
  // (one of another method or target, still in flight) died at its method
  // or target: noise beside what the forward broke when paired with its
  // own request, which the deepest reasons name (HAProxy's Connection-listed
  // field took a second identity with a "method" reason from the request
  // pipelined beside it).
  Decisive d = decisive_of(r);
  int deepest = -1;
  std::vector<int> depth;
  for (const auto& at : d.part_locations) {
    int k = at.empty() ? 2 : 0;
    for (const std::string& loc : at) k = std::max(k, pairing_depth(loc));
    depth.push_back(k);
    deepest = std::max(deepest, k);
  }
  // (Only a field decides so: a forward of the wrong method paired with a
  // request of that method but another target dies at the target, which
  // names nothing the forward broke.)
  Decisive kept;
  for (std::size_t i = 0; i < d.parts.size(); ++i)
    if (deepest < 2 || depth[i] == 2) kept.parts.push_back(d.parts[i]);
  const std::string v = joined(kept);
  return std::string(kind_name(r.outcome)) + ": a forwarded request | " +
         (v.empty() ? "no reason" : v);
}

bool names_better(const harness::RunResult& from, const harness::RunResult& x) {
  auto located = [](const harness::RunResult& r) {
    return std::ranges::any_of(r.reasons(), is_located);
  };
  return from.outcome == Outcome::ModelViolation && x.outcome == Outcome::ModelViolation &&
         !from.reasons().empty() && !located(from) && located(x);
}

std::string relay_key(const harness::Protocol& p, const harness::RunResult& r) {
  if (!p.origin || r.outcome != Outcome::ModelViolation || blamed_on_a_forward(r) ||
      r.blamed_event() >= r.events.size() ||
      r.events[r.blamed_event()].kind != oracle::Event::Kind::Response)
    return "";
  const Decisive d = decisive_of(r);
  if (d.locations.empty()) return "";
  // (The content stays named by its request: an answer relayed to the
  // wrong client or out of order is wrong in its body, and which requests
  // were in flight is what tells those bugs apart.)
  for (const std::string& at : d.locations)
    if (at.empty() || at == "response" || at == "connection" || is_status(at) ||
        at.ends_with(".body"))
      return "";
  return std::string(kind_name(r.outcome)) + ": an answer to a client | " + joined(d);
}

std::set<std::string> obligations(const harness::RunResult& r) {
  if (r.outcome != Outcome::ModelViolation) return {};
  const Decisive d = decisive_of(r, Observed::kNone);
  return {d.parts.begin(), d.parts.end()};
}

std::string identity_of(const harness::Protocol& p, const harness::RunResult& r) {
  if (!r.violation()) return "";
  if (blamed_on_a_forward(r)) return forward_key(r);
  if (std::string k = relay_key(p, r); !k.empty()) return k;
  if (r.outcome == Outcome::ProtocolViolation) {
    // "PROTOCOL VIOLATION on cN: RFC 9110 §8.6 (MUST): ...": a message rule
    // names itself; anything else as violation_key shapes it.
    const std::string first = r.detail.substr(0, r.detail.find('\n'));
    const std::size_t colon = first.find(": ");
    const std::string what = colon == std::string::npos ? "" : first.substr(colon + 2);
    if (what.starts_with("RFC ")) return "protocol: " + what;
    return harness::violation_key(p, r);
  }
  if (r.outcome == Outcome::LivenessViolation)
    return "liveness | " + rest_part(p, r, nullptr);
  const Json* kill = killing_request(r);
  if (r.outcome != Outcome::ModelViolation || !kill) {
    // (a kill at a request, an open or a close: violation_key's first line)
    const std::string k = harness::violation_key(p, r);
    return k.substr(0, k.find('\n')) + " | " + verdict_part(r) + " | " +
           rest_part(p, r, nullptr);
  }
  std::string answer = p.response_shape(r.events[r.blamed_event()].payload());
  const std::string shape = finding_shape(p, *kill);
  // (One lax Host check showed as 200, 304, 404, 206 and 416.)
  const bool refused = refused_whatever(shape);
  if (refused && !answer.empty()) answer = "(any)";
  // (The verdict names a wrong status; beside a wrong field or content, the
  // answer's class says enough: If-Match ignored by a PUT that answered 200
  // on one server and 204 on another is one defect.)
  if (const std::string c = status_class(answer); !c.empty()) answer = c;
  if (answer.empty()) answer = "?";
  if (!refused && broke_a_refusal(r))
    // A refusal without the field its status must carry breaks the
    // refusal's own rule, whatever the request asked and whatever came
    // before it: named by the method and the answer's class (nginx's 405
    // without Allow took a new identity per precondition an OPTIONS
    // carried and per request before it, each "new" beside a baseline).
    return std::string(kind_name(r.outcome)) + ": " + shape.substr(0, shape.find(' ')) +
           " -> " + answer + " | " + verdict_part(r, Observed::kClass) + " | any script";
  return std::string(kind_name(r.outcome)) + ": " +
         killing_part(p, r, *kill, r.events[r.blamed_event()].label) + " -> " + answer +
         " | " + verdict_part(r, refused ? Observed::kOther : Observed::kClass) + " | " +
         // (A request refused whatever it asks is the defect whatever came
         // before it: lighttpd's two Host lines were a new identity beside a
         // PUT to a baseline that had them alone.)
         (refused            ? std::string("any script")
          : concurrent(p, r) ? std::string(kConcurrent)
                             : rest_part(p, r, kill));
}

}  // namespace dualfuzz::campaign
