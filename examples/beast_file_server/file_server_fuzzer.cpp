// A fuzz target for the Beast file server, as its author would write it:
// every input is an HTTP test script, played against a fresh server on
// loopback in this process and judged by the oracle that dualfuzz derives
// from its HTTP/1.1 model. The server's own code is instrumented, so
// libFuzzer keeps the scripts that reach new server code.
//
//   ./file_server_fuzzer -max_total_time=60 corpus/   # finds the planted bug
//   FILE_SERVER_FIXED=1 ./file_server_fuzzer ...       # the server without it
#include <cstdlib>

#include "dualfuzz/fuzz_target.h"
#include "dualfuzz/http/protocol.h"
#include "file_server.h"

namespace {
file_server::Options options() {
  file_server::Options o;
  const char* fixed = std::getenv("FILE_SERVER_FIXED");
  o.fast_etags = !(fixed && *fixed == '1');  // the planted bug, unless fixed
  return o;
}
}  // namespace

DUALFUZZ_FUZZ_TARGET(dualfuzz::http::protocol(),
                     dualfuzz::loopback<file_server::Server>(options()))
