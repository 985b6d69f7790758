// The AFL++ custom-mutator library of a protocol, in one macro, the way
// DUALFUZZ_FUZZ_TARGET (dualfuzz/fuzz_target.h) makes the fuzz target: the
// structure-aware script mutator, crossover and step-wise trimming over
// the protocol's scripts, for afl-fuzz to dlopen() through
// AFL_CUSTOM_MUTATOR_LIBRARY.
//
//   // my_afl_mutator.cpp, built by the CMake function
//   //   dualfuzz_add_afl_custom_mutator(my_afl_mutator SOURCES my_afl_mutator.cpp
//   //                                   LIBS my_protocol)
//   #include "dualfuzz/mutator/afl_custom_mutator.h"
//   #include "my_protocol.h"
//
//   DUALFUZZ_AFL_CUSTOM_MUTATOR(my::protocol())
//
//   export AFL_CUSTOM_MUTATOR_LIBRARY=$PWD/build/libmy_afl_mutator.so
//   AFL_CUSTOM_MUTATOR_ONLY=1 afl-fuzz -i seeds -o out -- ./my_fuzzer
//
// The argument is a harness::Protocol (plain structural mutation) or a
// mutator::ScriptMutator (e.g. one with Z3-targeted mutation,
// campaign::Player::engine_mutator); it is evaluated at each
// afl_custom_init. libdualfuzz_afl_mutator.so is this macro over the
// built-in registry ($DUALFUZZ_PROTOCOL chooses the plug-in).
//
// Below, the AFL++ 4.04c custom-mutator ABI (docs/custom_mutators.md; the
// hooks of `struct custom_mutator` in include/afl-fuzz.h). Debian's afl++
// package ships no headers, so the prototypes are declared here, with AFL's
// u8/u32/s32 spelled as the fixed-width types they are typedefs of. Every
// buffer handed back stays owned by the library and valid until the next
// call of the same hook on the same state (AFL copies what it keeps).
#pragma once

#include <stddef.h>
#include <stdint.h>

// The library is built with hidden visibility; only these hooks are exported.
#define DUALFUZZ_AFL_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

typedef struct afl_state afl_state_t;  // opaque: the shim never looks inside

// Returns the mutator state (NULL on failure, which afl-fuzz treats as fatal
// only when a hook is then called with it, so init never returns NULL
// unless out of memory). `seed` seeds the mutator's std::mt19937_64.
DUALFUZZ_AFL_API void* afl_custom_init(afl_state_t* afl, unsigned int seed);
DUALFUZZ_AFL_API void afl_custom_deinit(void* data);

// afl_custom_fuzz_count is deliberately not exported: without it afl-fuzz
// sizes the stage from the entry's performance score and doubles it while
// the entry keeps finding new paths, which suits a slow (oracle-checked)
// target better than any fixed count.

// One structural mutation of `buf` (or a crossover with `add_buf`, which may
// be NULL). *out_buf is set to a library-owned buffer; the result always
// parses as a script, is at most max_size bytes, and is never empty (0 would
// make 4.04c skip the execution; a NULL *out_buf is fatal).
DUALFUZZ_AFL_API size_t afl_custom_fuzz(void* data, uint8_t* buf, size_t buf_size,
                                        uint8_t** out_buf, uint8_t* add_buf,
                                        size_t add_buf_size, size_t max_size);

// The last mutation, for the names of queue and crash files.
DUALFUZZ_AFL_API const char* afl_custom_describe(void* data, size_t max_description_len);

// Step-level trimming: init_trim returns the number of steps of `buf` (0 if
// it is no script: nothing to try); each trim proposes `buf` with one more
// step deleted (never longer than `buf`); post_trim(success) keeps the
// deletion when coverage was unchanged and returns the progress index,
// which reaches init_trim's count when every step has been tried.
DUALFUZZ_AFL_API int32_t afl_custom_init_trim(void* data, uint8_t* buf, size_t buf_size);
DUALFUZZ_AFL_API size_t afl_custom_trim(void* data, uint8_t** out_buf);
DUALFUZZ_AFL_API int32_t afl_custom_post_trim(void* data, uint8_t success);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
#include "dualfuzz/mutator/detail/afl_hooks.h"

// Defines the afl_custom_* hooks above over one AflAdapter per afl-fuzz
// instance, made from `mutator...` (a harness::Protocol or a
// mutator::ScriptMutator). Use it once per shared library.
#define DUALFUZZ_AFL_CUSTOM_MUTATOR(...)                                                \
  extern "C" DUALFUZZ_AFL_API void* afl_custom_init(afl_state_t*, unsigned int seed) {  \
    return ::dualfuzz::mutator::detail::afl_init(                                       \
        seed, [] { return ::dualfuzz::mutator::ScriptMutator(__VA_ARGS__); });          \
  }                                                                                     \
  extern "C" DUALFUZZ_AFL_API void afl_custom_deinit(void* data) {                      \
    ::dualfuzz::mutator::detail::afl_deinit(data);                                      \
  }                                                                                     \
  extern "C" DUALFUZZ_AFL_API size_t afl_custom_fuzz(                                   \
      void* data, uint8_t* buf, size_t buf_size, uint8_t** out_buf, uint8_t* add_buf,   \
      size_t add_buf_size, size_t max_size) {                                           \
    return ::dualfuzz::mutator::detail::afl_fuzz(data, buf, buf_size, out_buf, add_buf, \
                                                 add_buf_size, max_size);               \
  }                                                                                     \
  extern "C" DUALFUZZ_AFL_API const char* afl_custom_describe(void* data,               \
                                                              size_t max_len) {         \
    return ::dualfuzz::mutator::detail::afl_describe(data, max_len);                    \
  }                                                                                     \
  extern "C" DUALFUZZ_AFL_API int32_t afl_custom_init_trim(void* data, uint8_t* buf,    \
                                                           size_t buf_size) {           \
    return ::dualfuzz::mutator::detail::afl_init_trim(data, buf, buf_size);             \
  }                                                                                     \
  extern "C" DUALFUZZ_AFL_API size_t afl_custom_trim(void* data, uint8_t** out_buf) {   \
    return ::dualfuzz::mutator::detail::afl_trim(data, out_buf);                        \
  }                                                                                     \
  extern "C" DUALFUZZ_AFL_API int32_t afl_custom_post_trim(void* data,                  \
                                                           uint8_t success) {           \
    return ::dualfuzz::mutator::detail::afl_post_trim(data, success);                   \
  }
#endif
