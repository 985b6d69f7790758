// Presenting one run to a server author: the text report (what the fuzz
// target prints before it aborts, and what `dualfuzz replay` / `minimize`
// print, byte for byte), a key that says which violation a run shows (so a
// shrinker keeps *the same* bug, not any bug), and a message-sequence chart
// of the counterexample as a self-contained SVG or HTML page.
//
//   RunResult r = executor.run(script);
//   std::cerr << run_report(protocol, script, r, "server bug: lost-update");
//   std::string key = violation_key(protocol, r);   // "" when no violation
//   write(file, sequence_chart_html(protocol, script, r, "lost-update"));
//
// Chart: one lifeline per connection plus one for the server; a request is
// an arrow connection -> server labelled `1 PUT /a`, a response an arrow
// server -> connection labelled `2 412`; the message no correct server
// explains is red (class "kill"); the explanation follows the arrows. Every
// payload is XML-escaped; an arrow's tooltip is the message as the report
// describes it (Protocol::describe_request/_response), then its payload in full.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/harness/protocol.h"
#include "dualfuzz/harness/script.h"

namespace dualfuzz::harness {

// "==dualfuzz== functional violation (<target>)\n--- script\n<script>--- <r.report(p,
// f)>". `target` says what was tested, e.g. "server bug: none planted" or "server
// 127.0.0.1:8080". Messages as `p` describes them, or as JSON.
std::string run_report(const Protocol& p, const Script& script, const RunResult& r,
                       std::string_view target, TraceFormat f = TraceFormat::Readable);
// The same with each message as JSON (no protocol at hand).
std::string run_report(const Script& script, const RunResult& r, std::string_view target);

// Which violation a run shows, stable under shrinking: the outcome kind, and
// for a model violation the kind of message that killed the last
// explanation, its request's kind and the response's shape (Protocol::
// request_kind, response_shape: for HTTP the method and status), and where the
// explanations went wrong (RunResult::reasons(): their locations, e.g.
// "response.status", or kinds, e.g. "contradiction"; no values). "" when no
// violation.
std::string violation_key(const Protocol& p, const RunResult& r);
// The last part of a model violation's key: where the explanations went
// wrong, one entry per distinct reason (a mismatch's location without
// indices, "response.status"; otherwise the reason's kind, "contradiction").
// Empty for other outcomes.
std::set<std::string> reason_keys(const RunResult& r);

// The chart as a standalone SVG document.
std::string sequence_chart_svg(const Protocol& p, const RunResult& r,
                               std::string_view title);
// An HTML page holding the chart, the script and the text report (readable).
std::string sequence_chart_html(const Protocol& p, const Script& script,
                                const RunResult& r, std::string_view title);

// `&`, `<`, `>`, `"`, `'` as entities; control characters and invalid UTF-8
// replaced (so any bytes a server sent give a well-formed document).
std::string xml_escape(std::string_view s);

}  // namespace dualfuzz::harness
