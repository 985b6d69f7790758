// Literals a run's trace gave, made references again (thesis §5.2: values
// taken from the trace are references, re-evaluated on every run). A value
// a server sent — an entity tag, a Last-Modified, a Date — written into a
// script as a literal is the value of the run it came from: on a later
// replay the server sends another tag or date, and the request asks another
// question (a stale tag, an older date). Targeted mutation writes the
// solver's pick as a literal, and shrinking may meet one; written as a
// reference to the answer that carried it, the script asks the same
// question on every replay.
//
//   if (auto seen = mutator::trace_before(run.trace, step.label))
//     step.body = mutator::relinked(step.body, *seen, fns);
#pragma once

#include <optional>

#include "dualfuzz/harness/function_registry.h"
#include "dualfuzz/harness/jexp.h"
#include "dualfuzz/harness/labelled_trace.h"

namespace dualfuzz::mutator {

// `body` with each string literal of at least kMinRelinked characters that
// a strict reference to a response in `seen` gives — a field of a nested
// object (HTTP: `N.(this@"headers"@"etag")`), through one of `fns` — made
// that reference: the latest such response, the identity function before
// the others. Shorter strings (a "*", a made-up tag) are the script's own
// choice more likely than a copy.
inline constexpr std::size_t kMinRelinked = 8;
// The trace as it was when request `label` was sent (what its references
// were evaluated against); nullopt when it was not sent.
std::optional<harness::LabelledTrace> trace_before(const harness::LabelledTrace& t,
                                                   harness::Label label);
harness::Jexp relinked(const harness::Jexp& body, const harness::LabelledTrace& seen,
                       const harness::FunctionRegistry& fns);

}  // namespace dualfuzz::mutator
