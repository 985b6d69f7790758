// The AFL++ custom-mutator library, loaded the way afl-fuzz loads it
// (dlopen + dlsym of the afl_custom_* names) and driven through the hook
// sequence afl-fuzz 4.04c uses: init, fuzz (with and without a splice
// buffer), describe, the trimming loop of trim_case_custom, deinit.
#include <gtest/gtest.h>
#include <malloc.h>

#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "dualfuzz/harness/script.h"
#include "dualfuzz/http/protocol.h"
#include "dualfuzz/mutator/afl_custom_mutator.h"
#include "support/afl_library.h"

namespace {

std::string read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
const std::string& seed_script() {
  static const std::string s =
      read(DUALFUZZ_SOURCE_DIR "/corpora/http/conditional-put.txt");
  return s;
}
const std::string& other_script() {
  static const std::string s =
      read(DUALFUZZ_SOURCE_DIR "/corpora/fuzz/http_inprocess_fuzzer/two-conns.txt");
  return s;
}
const dualfuzz::harness::FunctionRegistry& fns() {
  static const auto p = dualfuzz::http::protocol();
  return p.functions;
}
bool parses(const std::string& s) {
  return bool(dualfuzz::harness::parse_script(s, fns()));
}

#ifdef DUALFUZZ_AFL_MUTATOR_SO
// The hooks as afl-fuzz sees them: resolved by name from the shared object.
const dualfuzz::testing::AflLibrary& hooks() {
  static const dualfuzz::testing::AflLibrary h(DUALFUZZ_AFL_MUTATOR_SO);
  return h;
}

// (An empty result also stands for a NULL *out_buf: both fail the tests.)
std::string fuzz_once(void* st, const std::string& in, const std::string* splice,
                      std::size_t max_size) {
  return hooks().fuzz_once(st, in, splice, max_size);
}

// afl-fuzz's trim_case_custom: `same` plays the target and says whether the
// coverage is unchanged. Returns the final input; counts the executions.
std::string afl_trim(void* st, std::string input,
                     const std::function<bool(const std::string&)>& same, int* execs) {
  const std::size_t orig_len = input.size();
  std::vector<uint8_t> in_buf(input.begin(), input.end());
  int32_t stage_max = hooks().init_trim(st, in_buf.data(), in_buf.size());
  EXPECT_GE(stage_max, 0);
  int32_t stage_cur = 0;
  *execs = 0;
  while (stage_cur < stage_max) {
    uint8_t* ret = nullptr;
    std::size_t len = hooks().trim(st, &ret);
    EXPECT_NE(ret, nullptr);
    EXPECT_LE(len, orig_len) << "afl-fuzz memcpy()s it over the input";
    std::string cand(reinterpret_cast<char*>(ret), len);
    EXPECT_TRUE(parses(cand)) << cand;
    ++*execs;
    EXPECT_LT(*execs, 10000) << "trimming does not converge";
    if (*execs >= 10000) break;
    bool ok = len && same(cand);
    if (ok) input = cand;
    int32_t next = hooks().post_trim(st, ok);
    EXPECT_GE(next, stage_cur) << "progress never goes back";
    EXPECT_LE(next, stage_max);
    stage_cur = next;
  }
  return input;
}

std::size_t step_count(const std::string& s) {
  auto p = dualfuzz::harness::parse_script(s, fns());
  return p ? p->steps.size() : 0;
}

class AflMutator : public dualfuzz::testing::AflStateTest {
 protected:
  AflMutator() : AflStateTest(hooks(), 42) {}
};

TEST_F(AflMutator, ExportsOnlyTheHooks) {
  // Optional hooks we leave to afl-fuzz's defaults (see the header).
  EXPECT_EQ(dlsym(hooks().dl, "afl_custom_fuzz_count"), nullptr);
  EXPECT_EQ(dlsym(hooks().dl, "afl_custom_post_process"), nullptr);
  // The static libraries inside stay hidden (--exclude-libs).
  EXPECT_EQ(dlsym(hooks().dl, "_ZN8dualfuzz7harness12print_scriptERKNS0_6ScriptE"),
            nullptr);
}

TEST_F(AflMutator, FuzzOutputsParseFitAndAreNeverEmpty) {
  std::mt19937_64 rng(7);
  std::string cur = seed_script();
  const std::size_t tiny[] = {1, 2, 10, 40, 60};
  for (int i = 0; i < 2000; ++i) {
    std::size_t max = i % 10 == 0 ? tiny[(i / 10) % 5] : 16 + rng() % 4096;
    const std::string* splice = i % 3 == 0 ? nullptr : &other_script();
    std::string out = fuzz_once(st, cur, splice, max);
    ASSERT_GT(out.size(), 0u) << "4.04c skips an empty result";
    ASSERT_LE(out.size(), max);
    auto s = dualfuzz::harness::parse_script(out, fns());
    ASSERT_TRUE(s) << out << s.error();
    ASSERT_EQ(dualfuzz::harness::validate(*s), std::nullopt) << out;
    cur = i % 100 == 99 ? seed_script() : out;
  }
}

TEST_F(AflMutator, AcceptsGarbageAndNulls) {
  for (std::string in : {std::string("\x00\x01\xff garbage", 11), std::string("req 1 on"),
                         std::string()}) {
    std::string out = fuzz_once(st, in, nullptr, 4096);
    EXPECT_GT(out.size(), 0u);
    EXPECT_TRUE(parses(out)) << out;
  }
  // afl-fuzz may hand a NULL input pointer for an empty buffer.
  uint8_t* out = nullptr;
  std::size_t n = hooks().fuzz(st, nullptr, 0, &out, nullptr, 0, 4096);
  ASSERT_NE(out, nullptr);
  EXPECT_GT(n, 0u);
  EXPECT_TRUE(parses(std::string(reinterpret_cast<char*>(out), n)));
}

TEST_F(AflMutator, SameSeedSameMutations) {
  void* other = hooks().init(nullptr, 42);
  ASSERT_NE(other, nullptr);
  std::string a = seed_script(), b = seed_script();
  for (int i = 0; i < 200; ++i) {
    a = fuzz_once(st, a, &other_script(), 4096);
    b = fuzz_once(other, b, &other_script(), 4096);
    ASSERT_EQ(a, b);
  }
  hooks().deinit(other);
}

TEST_F(AflMutator, DescribesTheLastMutationForFileNames) {
  fuzz_once(st, seed_script(), nullptr, 4096);
  std::string d = hooks().describe(st, 200);
  EXPECT_FALSE(d.empty());
  EXPECT_EQ(d.find('/'), std::string::npos);
  EXPECT_EQ(d.find(' '), std::string::npos);
  EXPECT_LE(std::string(hooks().describe(st, 3)).size(), 3u);
}

// Z3-targeted mutation: the library replays inputs on a reference server of
// its own; some outputs are the solver's rewrite of a failing If-Match,
// named so in the file names. DUALFUZZ_TARGETED=0 turns it off.
TEST_F(AflMutator, SomeOutputsAreTargetedRewrites) {
  const std::string input = R"(req 1 on c0: {"method":"PUT","path":"/doc","body":"v1"}
wait 1
req 3 on c0: {"method":"PUT","path":"/doc","body":"v2","headers":{"if-match":"\"wrong\""}}
wait 3
)";
  auto count_targeted = [&](void* state) {
    int n = 0;
    for (int i = 0; i < 64; ++i) {
      std::string out = fuzz_once(state, input, nullptr, 4096);
      if (std::string(hooks().describe(state, 200)).rfind("targeted-", 0) == 0) {
        ++n;
        EXPECT_NE(out.find(R"("if-match":"\"1\"")"), std::string::npos) << out;
      }
    }
    return n;
  };
  const int targeted = count_targeted(st);
  EXPECT_GE(targeted, 2) << "about one call in 8";
  EXPECT_LT(targeted, 24);

  setenv("DUALFUZZ_TARGETED", "0", 1);
  void* off = hooks().init(nullptr, 42);
  unsetenv("DUALFUZZ_TARGETED");
  ASSERT_NE(off, nullptr);
  EXPECT_EQ(count_targeted(off), 0);
  hooks().deinit(off);
}

TEST_F(AflMutator, TrimmingKeepsOnlyWhatTheCoverageNeeds) {
  // "Coverage" here: the conditional PUT must still be sent.
  auto needs_if_match = [](const std::string& s) {
    return s.find("\"if-match\"") != std::string::npos;
  };
  int execs = 0;
  std::string out = afl_trim(st, seed_script(), needs_if_match, &execs);
  EXPECT_TRUE(needs_if_match(out));
  EXPECT_EQ(step_count(out), 1u) << out;
  EXPECT_LE(execs, static_cast<int>(step_count(seed_script())) + 1);
}

TEST_F(AflMutator, TrimmingConvergesEitherWay) {
  int execs = 0;
  // Nothing can go: the input comes back unchanged, each step tried once.
  std::string out = afl_trim(
      st, seed_script(), [](const std::string&) { return false; }, &execs);
  EXPECT_EQ(out, seed_script());
  EXPECT_LE(execs, static_cast<int>(step_count(seed_script())));
  // Everything may go: down to one step (an empty input is no test).
  out = afl_trim(
      st, seed_script(), [](const std::string&) { return true; }, &execs);
  EXPECT_EQ(step_count(out), 1u) << out;
  // Not a script: no trimming steps at all.
  std::string junk = "\x01\x02 not a script";
  std::vector<uint8_t> buf(junk.begin(), junk.end());
  EXPECT_EQ(hooks().init_trim(st, buf.data(), buf.size()), 0);
}

TEST_F(AflMutator, TrimsWhatTheMutatorProduced) {
  std::string cur = seed_script();
  for (int round = 0; round < 30; ++round) {
    for (int i = 0; i < 5; ++i) cur = fuzz_once(st, cur, &other_script(), 4096);
    int execs = 0;
    std::size_t before = step_count(cur);
    // Keep any script that still has a GET.
    auto has_get = [](const std::string& s) {
      return s.find("\"GET\"") != std::string::npos;
    };
    if (!has_get(cur)) continue;
    std::string out = afl_trim(st, cur, has_get, &execs);
    EXPECT_TRUE(has_get(out));
    EXPECT_LE(step_count(out), before);
    EXPECT_LE(out.size(), cur.size());
  }
}

TEST(AflMutatorMemory, DeinitFreesEverything) {
  ASSERT_NE(hooks().dl, nullptr) << hooks().error;
  auto cycle = [] {
    void* st = hooks().init(nullptr, 1);
    std::string cur = seed_script();
    for (int i = 0; i < 50; ++i) cur = fuzz_once(st, cur, &other_script(), 4096);
    int execs = 0;
    afl_trim(
        st, cur, [](const std::string&) { return true; }, &execs);
    hooks().deinit(st);
  };
  cycle();  // first use builds the library's lazily initialized statics
  std::size_t before = mallinfo2().uordblks;
  for (int i = 0; i < 30; ++i) cycle();
  std::size_t after = mallinfo2().uordblks;
  // Under ASan mallinfo2 reports nothing and LeakSanitizer checks instead.
  EXPECT_LT(after, before + 64 * 1024)
      << "a leak of " << (after - before) / 30 << " B per instance";
}
#else
TEST(AflMutator, NotBuilt) {
  GTEST_SKIP() << "configured with DUALFUZZ_BUILD_AFL_MUTATOR=OFF";
}
#endif

}  // namespace
