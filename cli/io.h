// Helpers shared by the subcommands that play single scripts (replay,
// minimize, run): charts, exit codes (and file_io.h). Defined in
// replay_command.cpp.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "dualfuzz/campaign/player.h"
#include "dualfuzz/campaign/race_skeleton.h"
#include "dualfuzz/campaign/signature.h"
#include "dualfuzz/campaign/target.h"
#include "dualfuzz/harness/executor.h"
#include "file_io.h"

namespace dualfuzz::cli {

// The campaign library's names, as the subcommands use them.
using campaign::concurrent;
using campaign::count_requests;
using campaign::distilled;
using campaign::finding_json;
using campaign::killing_request;
using campaign::kind_name;
using campaign::model_key;
using campaign::Player;
using campaign::quick_key;
using campaign::race_candidates;
using campaign::sequential_candidates;
using campaign::signature_of;
using campaign::Target;

// Help text of --target for the commands that default to the fuzz target's
// environment.
inline constexpr const char* kTargetHelp =
    "inprocess[:BUG] (the reference server, optionally with a planted bug) or HOST:PORT; "
    "default: as the fuzz target, from $DUALFUZZ_TARGET / $DUALFUZZ_BUG";

// Help text of --origin (the proxy plug-ins: the tester as the origin).
inline constexpr const char* kOriginHelp =
    "HOST:PORT to listen on as the origin server when --target HOST:PORT is a proxy "
    "(--spec proxy|gateway; the proxy must forward there); default $DUALFUZZ_ORIGIN";

// Help text of --strict (fuzz, run); --assume's is the plug-ins'
// (plugin_help.h).
inline constexpr const char* kStrictHelp =
    "judge every SHOULD of the specification as a MUST: advisories (a 400 for an unknown "
    "method, a redirect without Location...) become violations";

// A chart of the run: HTML (chart, script, report) for *.html / *.htm, SVG otherwise.
bool write_chart(const std::string& path, const harness::Protocol& protocol,
                 const harness::Script& script, const harness::RunResult& r,
                 const std::string& title);
// 0 no violation, 1 violation, 2 the run could not be made.
int exit_code(const harness::RunResult& r);

struct Loaded {
  std::unique_ptr<Player> player;
  harness::Script script;
};
// The player for `target` (protocol: $DUALFUZZ_PROTOCOL, as the fuzz
// targets) and the parsed script from `file`; on failure a
// message "dualfuzz CMD: ..." on stderr and nullopt (exit 2).
std::optional<Loaded> load(const char* cmd, const std::string& target,
                           const std::string& file);

}  // namespace dualfuzz::cli
