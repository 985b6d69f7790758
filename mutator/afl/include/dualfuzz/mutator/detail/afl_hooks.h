// The bodies of the AFL++ custom-mutator hooks that DUALFUZZ_AFL_CUSTOM_MUTATOR
// (afl_custom_mutator.h) defines: each extern "C" hook of a library is a
// one-line forward to one of these, so a library of any protocol behaves as
// the built-in one. None throws: afl-fuzz is C, and 4.04c aborts on a NULL
// buffer from fuzz or trim and on a negative count from init_trim or
// post_trim, so each answers a valid no-op instead.
//
//   extern "C" size_t afl_custom_fuzz(void* d, uint8_t* b, size_t n, uint8_t** o,
//                                     uint8_t* a, size_t an, size_t max) {
//     return dualfuzz::mutator::detail::afl_fuzz(d, b, n, o, a, an, max);
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "dualfuzz/mutator/script_mutator.h"

namespace dualfuzz::mutator::detail {

// A new AflAdapter over make()'s mutator, seeded with `seed`; null (with
// why on stderr) when make() throws.
void* afl_init(unsigned int seed, const std::function<ScriptMutator()>& make) noexcept;
void afl_deinit(void* data) noexcept;
std::size_t afl_fuzz(void* data, std::uint8_t* buf, std::size_t buf_size,
                     std::uint8_t** out_buf, std::uint8_t* add_buf,
                     std::size_t add_buf_size, std::size_t max_size) noexcept;
const char* afl_describe(void* data, std::size_t max_description_len) noexcept;
std::int32_t afl_init_trim(void* data, std::uint8_t* buf, std::size_t buf_size) noexcept;
std::size_t afl_trim(void* data, std::uint8_t** out_buf) noexcept;
std::int32_t afl_post_trim(void* data, std::uint8_t success) noexcept;

}  // namespace dualfuzz::mutator::detail
