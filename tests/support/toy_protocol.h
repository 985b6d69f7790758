// A toy protocol that proves the engine stands alone: a line-based
// key-value store, with its codec, a server model written with the
// oracle's interaction trees, generation heuristics, and an in-process
// server with one planted bug. It links only dualfuzz::campaign (and what
// that links: mutator, harness, oracle), never a protocol plug-in.
//
//   requests   GET key\n            PUT key value\n
//   responses  VALUE value\n | NONE\n (GET)    OK\n (PUT)    ERR\n (other)
//   IR         {"op":"get","key":"a"}  {"op":"put","key":"a","value":"1"}
//              {"status":"value","value":"1"} {"status":"none"} {"status":"ok"} ...
//
//   campaign::Plugin p = dualfuzz::toy::plugin();
//   auto c = campaign::FuzzCampaign::make(p, {.target = "inprocess:lost-overwrite"});
#pragma once

#include <memory>
#include <string>

#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/harness/protocol.h"

namespace dualfuzz::toy {

// The planted bug `inprocess:lost-overwrite` plants: a PUT to a key that
// already holds a value is answered OK but not stored.
inline constexpr const char* kLostOverwrite = "lost-overwrite";

harness::Protocol protocol();
// The protocol with its in-process server (`inprocess[:lost-overwrite]`).
campaign::Plugin plugin();

}  // namespace dualfuzz::toy
