// The test script: the fuzz input format. Human-readable text, one step
// per line (docs/script-language.md):
//
//   # create, then read back on another connection
//   req 1 on c0: {"method":"PUT","path":"/a","body":"x"}
//   wait 1
//   req 3 on c1: {"method":"GET","path":"/a","if":2.(this@"etag").id}
//   close c0
//
// `req L on cN: JEXP` sends a request (label L, odd, unique) on connection N;
// `answer L: JEXP` answers the next request the server forwarded to the
// tester (a proxy's origin side, docs/proxy.md);
// `wait L` blocks until the response to request L has arrived, so the script
// — not luck — decides the causal order across connections; `close cN`
// closes a connection. Comments are kept as steps, so print(parse(s)) is the
// canonical form of s and parse(print(x)) == x.
//
//   auto s = parse_script(text, fns);   // Result<Script>, errors "line L, column C: ..."
//   std::string canonical = print_script(*s);
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dualfuzz/harness/jexp.h"

namespace dualfuzz::harness {

struct RequestStep {
  Label label;
  ConnId conn;
  Jexp body;
  friend bool operator==(const RequestStep&, const RequestStep&) = default;
};
struct WaitStep {
  Label label;  // of the request whose response to wait for
  friend bool operator==(const WaitStep&, const WaitStep&) = default;
};
struct CloseStep {
  ConnId conn;
  friend bool operator==(const CloseStep&, const CloseStep&) = default;
};
// The tester as an origin server (a proxy's, docs/proxy.md): takes the next
// request the server under test forwarded to the tester (arrival order, any
// accepted connection), labels it `label`, and answers it with `body`
// evaluated against the trace (labelled label + 1). Only for protocols with
// an origin side (Protocol::origin); others skip it.
// An answer `{"abort": true}` answers nothing: the tester hangs up on the
// connection instead (either side may close at any time, RFC 9112 §9.5),
// and the trace records the abort as the tester's message.
struct AnswerStep {
  Label label;  // odd, unique among request and answer labels
  Jexp body;
  friend bool operator==(const AnswerStep&, const AnswerStep&) = default;
};
inline bool is_abort(const Json& answer) {
  if (!answer.is_object()) return false;
  const auto it = answer.find("abort");
  return it != answer.end() && *it == true;
}
struct CommentStep {
  std::string text;  // after the '#', verbatim (no newline)
  friend bool operator==(const CommentStep&, const CommentStep&) = default;
};
using Step = std::variant<RequestStep, WaitStep, CloseStep, CommentStep, AnswerStep>;

struct Script {
  std::vector<Step> steps;
  friend bool operator==(const Script&, const Script&) = default;
};

inline constexpr std::size_t kMaxSteps = 1024;
inline constexpr ConnId kMaxConn = 63;
inline constexpr std::size_t kMaxLine = 64 * 1024;

// Limits: kMaxSteps steps, kMaxLine bytes per line (as read and as
// printed), Jexp nesting kMaxJexpDepth, labels 1..kMaxLabel.
Result<Script> parse_script(std::string_view text, const FunctionRegistry& fns);
// Canonical text: one line per step, each ending in '\n'.
std::string print_script(const Script& s);
std::string print_step(const Step& st);  // without the '\n'
// Checks what parse_script enforces, for scripts built in code (the
// mutator): odd unique labels, waits for earlier requests, limits, and that
// every body prints as text that parses back to it. "step N: why" or
// nullopt. With `fns`, reference functions must also be registered.
std::optional<std::string> validate(const Script& s);
std::optional<std::string> validate(const Script& s, const FunctionRegistry& fns);
// The smallest odd label greater than every label in the script: the label
// of a new request. Existing labels never change (no renumbering), so
// references stay valid when steps are deleted or moved.
Label next_label(const Script& s);

}  // namespace dualfuzz::harness
