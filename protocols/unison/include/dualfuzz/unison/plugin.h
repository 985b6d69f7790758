// The file synchronizer as a campaign plug-in (`--spec unison`). Its
// in-process "server" is the harness with a synchronizer behind it:
//   --target inprocess[:BUG]          the reference synchronizer, in memory,
//                                     with a planted bug (`dualfuzz bugs --spec unison`)
//   --target inprocess:unison         the real Unison on two temporary directories
//   --target inprocess:unison-fastcheck   the same with -fastcheck true
//   --target inprocess:reference-disk the reference synchronizer on disk (checks the
//   harness)
// `real`: how the real Unison runs (its binary: $DUALFUZZ_UNISON through
// protocols::builtin; the plug-in reads no environment); fastcheck is the
// target's choice.
//
//   campaign::Registry r;  r.add(dualfuzz::unison::plugin());
#pragma once

#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/unison/unison_process.h"

namespace dualfuzz::unison {
campaign::Plugin plugin(UnisonOptions real = {});
}
