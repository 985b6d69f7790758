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
//   step.body = mutator::relinked(step.body, run.trace, step.label, fns);
#pragma once

#include "dualfuzz/harness/function_registry.h"
#include "dualfuzz/harness/jexp.h"
#include "dualfuzz/harness/labelled_trace.h"

namespace dualfuzz::mutator {

// `body`, the request labelled `sent_as` in `trace`, with each string
// literal of at least kMinRelinked characters that a strict reference to a
// response received before it gives — a field of a nested object (HTTP:
// `N.(this@"headers"@"etag")`), through one of `fns` — made that
// reference: the latest such response, the identity function before the
// others. Shorter strings (a "*", a made-up tag) are the script's own
// choice more likely than a copy. A request not in `trace` (not sent) is
// returned as it is.
inline constexpr std::size_t kMinRelinked = 8;
harness::Jexp relinked(const harness::Jexp& body, const harness::LabelledTrace& trace,
                       harness::Label sent_as, const harness::FunctionRegistry& fns);

}  // namespace dualfuzz::mutator
