// The coverage-guided functional fuzz target: the input is a script, played
// against the in-process reference server (fresh state per execution; a
// planted bug from $DUALFUZZ_BUG) and judged by the oracle. A violation
// prints the report and aborts, so every engine saves it as a crash.
//   DUALFUZZ_BUG=lost-update ./http_inprocess_fuzzer corpus/
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "dualfuzz/harness/executor.h"
#include "dualfuzz/servers/in_process_transport.h"
#include "dualfuzz/specs/http_protocol.h"

namespace {
struct Target {
  dualfuzz::harness::Protocol http = dualfuzz::specs::http_protocol();
  std::string bug = std::getenv("DUALFUZZ_BUG") ? std::getenv("DUALFUZZ_BUG") : "";
  // One Z3 context for all executions (creating one costs ~10 ms).
  std::shared_ptr<dualfuzz::oracle::Solver> solver = std::make_shared<dualfuzz::oracle::Solver>();
};
Target& target() {
  static Target t;
  return t;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Target& t = target();
  auto script = dualfuzz::harness::parse_script(
      std::string_view(reinterpret_cast<const char*>(data), size), t.http.functions);
  if (!script) return 0;  // not a script: nothing to play
  dualfuzz::servers::HttpServerCore server({t.bug});
  dualfuzz::servers::InProcessTransport transport(server);
  dualfuzz::harness::RunOptions opts;
  opts.check_liveness = true;  // in-process, silence means a dropped request
  dualfuzz::harness::Executor ex(t.http, transport, opts, t.solver);
  auto r = ex.run(*script);
  if (r.violation()) {
    std::fprintf(stderr, "==dualfuzz== functional violation (server bug: %s)\n--- script\n%s--- %s\n",
                 t.bug.empty() ? "none planted" : t.bug.c_str(),
                 dualfuzz::harness::print_script(*script).c_str(), r.report().c_str());
    std::abort();
  }
  return 0;
}
