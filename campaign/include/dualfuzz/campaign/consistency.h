// Which promise a violation broke. A protocol's model takes every request
// as atomic, so a trace must be linearizable; most specifications (RFC 9110
// among them) do not ask that of a server. A model violation that one of the
// protocol's weaker consistencies (harness::Protocol::weaker, e.g. HTTP's
// "interval": a write takes effect over an interval) explains broke only
// atomicity: the server is *not linearizable*. One that no weaker
// consistency explains broke the protocol itself (the clause its reasons
// name). Protocol and liveness violations (a malformed or missing answer)
// are the protocol's too.
//
//   harness::RunResult r = player.play(script);           // a violation
//   campaign::Classification c = campaign::classify(protocol, r);
//   std::cout << c.text;  // "not linearizable: explained under consistency
//                         //  'interval'; overlapping requests 3, 5"
//
//   // Test against a weaker consistency instead (`--consistency interval`):
//   auto weaker = campaign::with_consistency(plugin.protocol, "interval");
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/result.h"

namespace dualfuzz::campaign {

struct Classification {
  enum class Kind {
    None,             // not a violation
    Protocol,         // no weaker consistency explains it: the protocol's clause
    NotLinearizable,  // a weaker consistency explains it
    Undecided,        // a weaker consistency's check ran out of budget
  };
  Kind kind = Kind::None;
  // NotLinearizable: the strongest weaker consistency that explains the
  // trace; Undecided: the one whose check gave up; Protocol: empty, or a
  // consistency that explains it but does not classify (Consistency::
  // classifies: HTTP's "torn").
  std::string consistency;
  // Requests with the killing request's race key that were in flight at
  // once with another on a different connection, in the order sent.
  std::vector<harness::Label> overlapping;
  std::string text;  // one line, for reports
};

// "protocol", "not-linearizable", "undecided", "none" (the JSON findings'
// "class").
const char* class_name(Classification::Kind k);

// Re-checks a model violation's trace, up to the event that decided it,
// under each of `p.weaker` in turn (a whole-trace check, budget `options`).
// Never a guess: a check that gives up makes the class Undecided.
Classification classify(const harness::Protocol& p, const harness::RunResult& r,
                        const oracle::OracleOptions& options = {});

// `p` tested under its weaker consistency `name`: that consistency's model
// becomes `p.model`, and only the ones weaker still are left in `p.weaker`.
// `name` may also be `p.consistency` itself (no change). An unknown name is
// an error that lists the known ones.
Result<harness::Protocol> with_consistency(harness::Protocol p, std::string_view name);

// The same for a plug-in (its in-process server unchanged).
Result<Plugin> with_consistency(Plugin plugin, std::string_view name);

// "atomic, interval, torn": `p`'s consistency and the weaker ones, for help
// texts.
std::string consistency_names(const harness::Protocol& p);

// Races apart (the default of `dualfuzz fuzz` and the fuzz targets): a
// finding classed NotLinearizable is reported and counted, but it is no
// violation (it neither stops a run nor makes it exit 1, and a fuzz target
// does not abort on it), and the run looks past it for the protocol's own
// violations (past_races). A real server's races would otherwise end most
// runs before any RFC bug is met (issue 47: 22 of 24 runs on mutants of
// Apache stopped on a race the unpatched server shows). Races stop a run as
// any violation with `--stop-on-races`, or when the consistency is named
// and held strictly (`--consistency atomic --strict`: a strict reading of a
// named promise keeps every way to break it).
bool stop_on_races(bool stop_on_races_flag, std::string_view consistency,
                   bool strict_reading);

// `p` judged past its races: under its weakest consistency that classifies
// (HTTP: "interval"), so that whatever it rejects no classifying consistency
// explains (a finding of class Protocol or, for a non-classifying weaker
// one, one that says what would explain it). A script whose play showed a
// race is played again under it, and a protocol violation is shrunk under
// it (a shrink under the atomic model could end in a race). Nullopt when no
// weaker consistency classifies (HTTP under `--consistency interval`): no
// finding is a race there.
std::optional<harness::Protocol> past_races(const harness::Protocol& p);

// What the user tells the tester about the server (harness::Protocol::
// assumptions, `--assume NAME`): its models replaced by ones that take
// `name` for granted. Apply before with_consistency. An unknown name is an
// error that lists the known ones.
//   auto p = campaign::assume(plugin.protocol, "writable");
Result<harness::Protocol> assume(harness::Protocol p, std::string_view name);
Result<Plugin> assume(Plugin plugin, std::string_view name);
// "writable (...)": the assumptions `p` offers, for help texts.
std::string assumption_names(const harness::Protocol& p);

// `p` judged by its recommended model (`--strict`): every SHOULD a MUST,
// so what would be an advisory is a violation. No change for a protocol
// without one.
harness::Protocol strict(harness::Protocol p);
Plugin strict(Plugin plugin);

// The plug-in judged as the user asked (`--assume`, `--consistency`,
// `--strict`, in that order): assume() each name, with_consistency(), then
// strict() when asked. The first error stops it.
Result<Plugin> judged_as(Plugin plugin, const std::vector<std::string>& assumptions,
                         std::string_view consistency, bool strict_reading);

}  // namespace dualfuzz::campaign
