// The file synchronizer as a campaign plug-in (`--spec unison`). Its
// in-process "server" is the harness with a synchronizer behind it:
//   --target inprocess[:BUG]          the reference synchronizer, in memory,
//                                     with a planted bug (`dualfuzz bugs --spec unison`)
//   --target inprocess:unison         the real Unison on two temporary directories
//   --target inprocess:unison-fastcheck   the same with -fastcheck true
//   --target inprocess:reference-disk the reference synchronizer on disk (checks the
//   harness)
// $DUALFUZZ_UNISON names another unison binary.
//
//   campaign::Registry r;  r.add(dualfuzz::unison::plugin());
#pragma once

#include "dualfuzz/campaign/plugin.h"

namespace dualfuzz::unison {
campaign::Plugin plugin();
}
