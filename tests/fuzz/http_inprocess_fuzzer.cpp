// The coverage-guided functional fuzz target: the input is a script, played
// against the in-process reference server (fresh state per execution; a
// planted bug from $DUALFUZZ_BUG) — or against an external server at
// $DUALFUZZ_TARGET=HOST:PORT — and judged by the oracle. A violation prints
// the report and aborts, so every engine saves it as a crash;
// `dualfuzz replay --target inprocess:BUG CRASHFILE` prints the same report.
// Just before the report, one line counts what this process played since it
// started (bench/eval_libfuzzer.py reads it: messages to detection):
//   ==dualfuzz== played since start: 120 scripts, 2311 messages; mutator replays: 9 (4
//   rewritten)
// (the custom mutator's targeted-mutation replays are not in the first two
// counts). It is not part of the report, which stays identical on replay.
//   DUALFUZZ_BUG=lost-update ./http_inprocess_fuzzer corpus/
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "dualfuzz/protocols/builtin.h"

// The custom mutator's targeted-mutation counters (mutator_hooks.cpp;
// weak: the target also links without the hooks).
extern "C" __attribute__((weak)) void dualfuzz_targeted_stats(std::uint64_t* runs,
                                                              std::uint64_t* rewrites);

namespace {
// Scripts played and messages (requests sent + responses received) since the
// process started, the violating script included.
std::uint64_t played_scripts = 0, played_messages = 0;

dualfuzz::campaign::Player& player() {
  static std::unique_ptr<dualfuzz::campaign::Player> p = [] {
    auto made = dualfuzz::protocols::player_from_env();
    if (!made) {
      std::fprintf(
          stderr, "==dualfuzz== bad DUALFUZZ_PROTOCOL/DUALFUZZ_BUG/DUALFUZZ_TARGET: %s\n",
          made.error().c_str());
      std::exit(2);
    }
    return std::move(*made);
  }();
  return *p;
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  player();  // a bad environment stops the run before the first input
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  dualfuzz::campaign::Player& p = player();
  auto script = p.parse(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!script) return 0;  // not a script: nothing to play
  auto r = p.play(*script);
  ++played_scripts;
  played_messages += r.trace.size();
  if (r.violation()) {
    std::uint64_t runs = 0, rewrites = 0;
    if (dualfuzz_targeted_stats) dualfuzz_targeted_stats(&runs, &rewrites);
    std::fprintf(stderr,
                 "==dualfuzz== played since start: %llu scripts, %llu messages; "
                 "mutator replays: %llu (%llu rewritten)\n",
                 static_cast<unsigned long long>(played_scripts),
                 static_cast<unsigned long long>(played_messages),
                 static_cast<unsigned long long>(runs),
                 static_cast<unsigned long long>(rewrites));
    std::fputs(p.report(*script, r).c_str(), stderr);
    std::abort();
  }
  return 0;
}
