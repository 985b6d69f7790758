/* The sanitizer-coverage runtime linked into a server under test (built
 * with -fsanitize-coverage=trace-pc-guard): each edge the server executes
 * counts in the shared-memory map named by $DUALFUZZ_COVERAGE_SHM
 * (dualfuzz/harness/coverage_map.h), which the fuzz target reads and hands
 * to its engine. Build it as a shared library the server's executable and
 * its modules all link, so dlopen()ed modules share one index space:
 *
 *   clang -O2 -fPIC -shared -I harness/include harness/coverage/sancov_shm.c \
 *     -o libdualfuzz_sancov.so
 *
 * Without the variable, or when the map cannot be made, every guard stays 0
 * and the server runs as if uninstrumented (one test per edge). Indices are
 * assigned in the order the modules initialize, so a restarted server with
 * the same configuration counts the same edge at the same index. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dualfuzz/harness/coverage_map.h"

static struct dualfuzz_coverage_header* header;
static uint8_t* hits;
static uint8_t* ever;
static uint32_t next_guard = 1;
static int attach_tried;

static void after_fork_in_child(void) {
  if (header) header->pid = (int32_t)getpid();
}

/* Opens (or creates) the map once; NULL header when there is none. */
static void attach(void) {
  if (attach_tried) return;
  attach_tried = 1;
  const char* name = getenv(DUALFUZZ_COVERAGE_ENV);
  if (!name || !*name) return;
  int fd = shm_open(name, O_RDWR | O_CREAT, 0666);
  if (fd < 0) {
    fprintf(stderr, "dualfuzz-sancov: shm_open(%s): %s\n", name, strerror(errno));
    return;
  }
  (void)fchmod(fd, 0666); /* the fuzz target may run as another user */
  struct stat st;
  if (fstat(fd, &st) != 0 ||
      (st.st_size < (off_t)DUALFUZZ_COVERAGE_BYTES &&
       ftruncate(fd, (off_t)DUALFUZZ_COVERAGE_BYTES) != 0)) {
    fprintf(stderr, "dualfuzz-sancov: cannot size %s: %s\n", name, strerror(errno));
    close(fd);
    return;
  }
  void* m = mmap(NULL, DUALFUZZ_COVERAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) {
    fprintf(stderr, "dualfuzz-sancov: mmap(%s): %s\n", name, strerror(errno));
    return;
  }
  struct dualfuzz_coverage_header* h = (struct dualfuzz_coverage_header*)m;
  if (h->magic == 0) { /* a new map (ftruncate zeroed it) */
    h->capacity = DUALFUZZ_COVERAGE_CAPACITY;
    h->magic = DUALFUZZ_COVERAGE_MAGIC;
  } else if (h->magic != DUALFUZZ_COVERAGE_MAGIC || h->capacity != DUALFUZZ_COVERAGE_CAPACITY) {
    fprintf(stderr, "dualfuzz-sancov: %s is not a coverage map of this layout\n", name);
    munmap(m, DUALFUZZ_COVERAGE_BYTES);
    return;
  }
  header = h;
  hits = (uint8_t*)m + DUALFUZZ_COVERAGE_HITS_OFFSET;
  ever = (uint8_t*)m + DUALFUZZ_COVERAGE_EVER_OFFSET;
  header->pid = (int32_t)getpid();
  __atomic_fetch_add(&header->starts, 1, __ATOMIC_RELAXED);
  /* A server that daemonizes forks after the constructors ran. */
  pthread_atfork(NULL, NULL, after_fork_in_child);
}

/* Called by each instrumented module's constructor (and again by a module
 * that is loaded twice: its guards are then already set). */
void __sanitizer_cov_trace_pc_guard_init(uint32_t* start, uint32_t* stop) {
  if (start == stop || *start) return;
  attach();
  for (uint32_t* g = start; g < stop; ++g) {
    if (header && next_guard < DUALFUZZ_COVERAGE_CAPACITY) {
      *g = next_guard++;
    } else {
      *g = 0;
      if (header) ++header->dropped;
    }
  }
  if (header && header->guards < next_guard) header->guards = next_guard;
}

void __sanitizer_cov_trace_pc_guard(uint32_t* guard) {
  const uint32_t i = *guard;
  if (!i) return;
  /* Saturating, so a loop run 256 times does not look like one never run. */
  const uint8_t c = hits[i];
  hits[i] = (uint8_t)(c + (c != 255));
  if (!ever[i]) ever[i] = 1;
}
