// SIGINT and SIGTERM end a long command with its summary instead of killing
// it: the first one only raises a flag that the command's loop reads
// (campaign::FuzzOptions::stop_requested); a second one kills as usual.
//
//   install_stop_handlers();
//   options.stop_requested = stop_requested;
#pragma once

namespace dualfuzz::cli {

void install_stop_handlers();
bool stop_requested();

}  // namespace dualfuzz::cli
