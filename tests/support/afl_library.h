// An AFL++ custom-mutator library loaded the way afl-fuzz loads it: dlopen()
// and dlsym() of the afl_custom_* names. For the tests of every library made
// with DUALFUZZ_AFL_CUSTOM_MUTATOR.
//
//   static const AflLibrary lib(PATH_OF_THE_SO);  // (afl-fuzz never unloads it)
//   void* st = lib.init(nullptr, 42);
//   std::string out = lib.fuzz_once(st, seed, nullptr, 4096);
//   lib.deinit(st);
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "dualfuzz/mutator/afl_custom_mutator.h"

namespace dualfuzz::testing {

struct AflLibrary {
  void* dl = nullptr;
  std::string error;  // dlerror() when dl is null
  decltype(&afl_custom_init) init = nullptr;
  decltype(&afl_custom_deinit) deinit = nullptr;
  decltype(&afl_custom_fuzz) fuzz = nullptr;
  decltype(&afl_custom_describe) describe = nullptr;
  decltype(&afl_custom_init_trim) init_trim = nullptr;
  decltype(&afl_custom_trim) trim = nullptr;
  decltype(&afl_custom_post_trim) post_trim = nullptr;

  explicit AflLibrary(const std::string& path) {
    dl = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
      const char* e = dlerror();
      error = e ? e : "dlopen failed";
      return;
    }
    init = reinterpret_cast<decltype(init)>(dlsym(dl, "afl_custom_init"));
    deinit = reinterpret_cast<decltype(deinit)>(dlsym(dl, "afl_custom_deinit"));
    fuzz = reinterpret_cast<decltype(fuzz)>(dlsym(dl, "afl_custom_fuzz"));
    describe = reinterpret_cast<decltype(describe)>(dlsym(dl, "afl_custom_describe"));
    init_trim = reinterpret_cast<decltype(init_trim)>(dlsym(dl, "afl_custom_init_trim"));
    trim = reinterpret_cast<decltype(trim)>(dlsym(dl, "afl_custom_trim"));
    post_trim = reinterpret_cast<decltype(post_trim)>(dlsym(dl, "afl_custom_post_trim"));
  }
  AflLibrary(const AflLibrary&) = delete;
  AflLibrary& operator=(const AflLibrary&) = delete;
  bool complete() const {
    return dl && init && deinit && fuzz && describe && init_trim && trim && post_trim;
  }

  // One afl_custom_fuzz on a mutable copy of `in` (as afl-fuzz passes it),
  // with `splice` as the add buffer when given.
  std::string fuzz_once(void* st, const std::string& in, const std::string* splice,
                        std::size_t max_size) const {
    std::vector<std::uint8_t> buf(in.begin(), in.end());
    std::vector<std::uint8_t> add =
        splice ? std::vector<std::uint8_t>(splice->begin(), splice->end())
               : std::vector<std::uint8_t>();
    std::uint8_t* out = nullptr;
    std::size_t n = fuzz(st, buf.data(), buf.size(), &out, splice ? add.data() : nullptr,
                         add.size(), max_size);
    return out ? std::string(reinterpret_cast<char*>(out), n) : std::string();
  }
};

// A test whose every case holds one afl_custom_init state of a library, as
// afl-fuzz holds one per run; deinit after the case.
//   class TheirMutator : public AflStateTest {
//    protected:
//     TheirMutator() : AflStateTest(library(), 42) {}
//   };
class AflStateTest : public ::testing::Test {
 protected:
  AflStateTest(const AflLibrary& lib, unsigned int seed) : lib_(lib), seed_(seed) {}
  void SetUp() override {
    ASSERT_NE(lib_.dl, nullptr) << lib_.error;
    ASSERT_TRUE(lib_.complete());
    st = lib_.init(nullptr, seed_);
    ASSERT_NE(st, nullptr);
  }
  void TearDown() override {
    if (st) lib_.deinit(st);
  }
  void* st = nullptr;

 private:
  const AflLibrary& lib_;
  unsigned int seed_;
};

}  // namespace dualfuzz::testing
