// The AFL++ 4.04c custom-mutator ABI (docs/custom_mutators.md; the hooks of
// `struct custom_mutator` in include/afl-fuzz.h). Debian's afl++ package ships
// no headers, so the prototypes are declared here, with AFL's u8/u32/s32
// spelled as the fixed-width types they are typedefs of. afl-fuzz dlsym()s
// these names from libdualfuzz_afl_mutator.so:
//
//   export AFL_CUSTOM_MUTATOR_LIBRARY=$PWD/build-afl/mutator/libdualfuzz_afl_mutator.so
//   AFL_CUSTOM_MUTATOR_ONLY=1 afl-fuzz -i corpora/http -o out -- ./http_inprocess_fuzzer
//
// Every buffer handed back stays owned by the library and valid until the
// next call of the same hook on the same state (AFL copies what it keeps).
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
