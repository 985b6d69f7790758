// The protocol plug-ins that ship with dualfuzz, as one registry: what
// `--spec NAME` and $DUALFUZZ_PROTOCOL choose from. A new plug-in adds one
// line to builtin.cpp (and one to protocols/CMakeLists.txt).
//
//   campaign::Registry r = protocols::builtin();
//   auto plugin = protocols::from_env(r);   // $DUALFUZZ_PROTOCOL, default http
#pragma once

#include <memory>
#include <string>

#include "dualfuzz/campaign/fuzz_environment.h"
#include "dualfuzz/campaign/player.h"
#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/mutator/script_mutator.h"
#include "dualfuzz/result.h"

namespace dualfuzz::protocols {

inline constexpr const char* kDefault = "http";

// The plug-ins as the environment sets them up: the proxies' origin
// listener ($DUALFUZZ_ORIGIN) and refusals ($DUALFUZZ_PROXY_REFUSALS), the
// unison binary ($DUALFUZZ_UNISON); the plug-ins themselves read none.
// `origin`: HOST:PORT the proxy plug-ins' tester listens on as the origin
// (`--origin`), over $DUALFUZZ_ORIGIN.
campaign::Registry builtin(
    const campaign::FuzzEnvironment& env = campaign::FuzzEnvironment::read());
campaign::Registry builtin(const std::string& origin);
// The plug-in named `name`, or an error that lists the registered ones.
Result<const campaign::Plugin*> find(const campaign::Registry& r,
                                     const std::string& name);
// $DUALFUZZ_PROTOCOL (the fuzz targets' and engine plug-ins' choice), else kDefault.
Result<const campaign::Plugin*> from_env(
    const campaign::Registry& r,
    const campaign::FuzzEnvironment& env = campaign::FuzzEnvironment::read());

// A copy of the plug-in $DUALFUZZ_PROTOCOL names (kDefault when unset),
// with what $DUALFUZZ_ASSUME says of the server (`--assume`'s names,
// comma-separated: DUALFUZZ_ASSUME=writable), tested under the consistency
// $DUALFUZZ_CONSISTENCY names (its protocol's own when unset;
// campaign::judged_as), for a fuzz target that outlives the registry:
//   DUALFUZZ_FUZZ_TARGET(protocols::plugin_from_env(), campaign::Player::spec_from_env())
Result<campaign::Plugin> plugin_from_env(
    const campaign::FuzzEnvironment& env = campaign::FuzzEnvironment::read());

// What the fuzz targets and the engine plug-ins (libFuzzer hooks, AFL++
// library) build from their environment: $DUALFUZZ_PROTOCOL,
// $DUALFUZZ_CONSISTENCY, $DUALFUZZ_TARGET / $DUALFUZZ_BUG
// (campaign::Player::spec_from_env).
Result<std::unique_ptr<campaign::Player>> player_from_env(
    const campaign::FuzzEnvironment& env = campaign::FuzzEnvironment::read());
// The custom mutator; an environment that makes no player gives the plain
// structural mutator of the default protocol.
mutator::ScriptMutator engine_mutator_from_env(
    const campaign::FuzzEnvironment& env = campaign::FuzzEnvironment::read());

}  // namespace dualfuzz::protocols
