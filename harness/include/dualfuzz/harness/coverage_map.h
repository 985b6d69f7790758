/* The shared-memory map through which a server built with
 * -fsanitize-coverage=trace-pc-guard and harness/coverage/sancov_shm.c
 * (a process of its own, e.g. a real HTTP server) tells the fuzz target
 * which of its edges an execution hit. C and C++: the runtime that writes it
 * is C, linked into the server; campaign::ServerCoverage reads it.
 *
 *   DUALFUZZ_COVERAGE_SHM=/lighttpd-cov lighttpd -D -f conf   (creates it)
 *   DUALFUZZ_SERVER_COVERAGE=/lighttpd-cov fuzz_target ...     (reads it)
 *
 * Layout: a header, then `hits` (per execution: the fuzz target zeroes it
 * before each one) and `ever` (1 once an edge was hit since the map was
 * made: the same measure of edges reached for every engine, black-box
 * included), each of `capacity` bytes. Guard 0 is no edge. */
#ifndef DUALFUZZ_HARNESS_COVERAGE_MAP_H_
#define DUALFUZZ_HARNESS_COVERAGE_MAP_H_

#include <stdint.h>

#define DUALFUZZ_COVERAGE_ENV "DUALFUZZ_COVERAGE_SHM"
#define DUALFUZZ_COVERAGE_MAGIC 0x31564f435a464444ULL /* "DDFZCOV1" */
#define DUALFUZZ_COVERAGE_CAPACITY (1u << 18)

struct dualfuzz_coverage_header {
  uint64_t magic;
  uint32_t capacity; /* bytes of each of hits and ever */
  uint32_t guards;   /* highest guard index assigned + 1 */
  int32_t pid;       /* the process writing it (updated after a fork) */
  uint32_t starts;   /* processes that attached: one more per (re)start */
  uint32_t dropped;  /* guards past capacity (not counted) */
  uint32_t reserved[9];
};

#define DUALFUZZ_COVERAGE_HITS_OFFSET (sizeof(struct dualfuzz_coverage_header))
#define DUALFUZZ_COVERAGE_EVER_OFFSET \
  (DUALFUZZ_COVERAGE_HITS_OFFSET + DUALFUZZ_COVERAGE_CAPACITY)
#define DUALFUZZ_COVERAGE_BYTES \
  (DUALFUZZ_COVERAGE_EVER_OFFSET + DUALFUZZ_COVERAGE_CAPACITY)

#endif /* DUALFUZZ_HARNESS_COVERAGE_MAP_H_ */
