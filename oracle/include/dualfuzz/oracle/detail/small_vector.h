// boost::container::small_vector, included once for the whole project.
//
// GCC 12 takes the move of a small_vector's inline storage (boost 1.74,
// container/detail/copy_move_algo.hpp) for a read past its end: a false
// -Wstringop-overread, printed for every translation unit that moves one
// (the oracle's ready lists). Silenced here, at the header it comes from,
// and nowhere else.
#ifndef DUALFUZZ_ORACLE_DETAIL_SMALL_VECTOR_H_
#define DUALFUZZ_ORACLE_DETAIL_SMALL_VECTOR_H_

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#include <boost/container/small_vector.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif  // DUALFUZZ_ORACLE_DETAIL_SMALL_VECTOR_H_
