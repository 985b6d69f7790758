// Help texts that depend on the protocol plug-ins, made from the registry
// (their names, consistencies and assumptions), so that the program says
// nothing of any one protocol itself.
//
//   const campaign::Registry r = protocols::builtin();
//   sub->add_option("--assume", o->assume, assume_help(r));
#pragma once

#include <string>

#include "dualfuzz/campaign/plugin.h"

namespace dualfuzz::cli {

// --spec: "protocol plug-in: NAME (the default), NAME2, ...", in the
// registry's order.
std::string spec_help(const campaign::Registry& r, const std::string& default_name);
// --consistency: `what` ("judge against a weaker consistency than atomic
// requests"), then each plug-in's weaker consistencies by name.
std::string consistency_help(const campaign::Registry& r, const std::string& what);
// --assume: what a user may tell of their server, each plug-in's names with
// their one-line summaries.
std::string assume_help(const campaign::Registry& r);
// --as-stated: the plug-ins' summaries (assume_help) say which assumption a
// server's first answer implies.
inline constexpr const char* kAsStatedHelp =
    "only the assumptions given: none the server's first answer implies (each "
    "assumption's summary under --assume says what implies it)";

}  // namespace dualfuzz::cli
