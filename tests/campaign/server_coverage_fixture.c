/* A "server" in a process of its own for server_coverage_test: it reads one
 * command a line from stdin, runs that command's branch and answers "ok".
 * Built with -fsanitize-coverage=trace-pc-guard when the C compiler has it
 * (clang), else (gcc) it makes the calls that instrumentation would, on
 * guards of its own: either way through harness/coverage/sancov_shm.c. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef FIXTURE_INSTRUMENTED
#define EDGE(n) ((void)0)
#else
void __sanitizer_cov_trace_pc_guard_init(uint32_t* start, uint32_t* stop);
void __sanitizer_cov_trace_pc_guard(uint32_t* guard);
static uint32_t guards[8];
#define EDGE(n) __sanitizer_cov_trace_pc_guard(&guards[n])
#endif

/* noinline: each branch keeps edges of its own under optimization. */
__attribute__((noinline)) static int branch_a(int x) {
  EDGE(1);
  volatile int v = x;
  if (v > 3) {
    EDGE(2);
    v *= 7;
  }
  return v;
}

__attribute__((noinline)) static int branch_b(int x) {
  EDGE(3);
  volatile int v = x;
  for (int i = 0; i < 300; ++i) {
    EDGE(4); /* 300 times: the counter saturates at 255 */
    v += i;
  }
  return v;
}

int main(void) {
#ifndef FIXTURE_INSTRUMENTED
  __sanitizer_cov_trace_pc_guard_init(guards, guards + 8);
#endif
  char line[64];
  setvbuf(stdout, NULL, _IONBF, 0);
  while (fgets(line, sizeof line, stdin)) {
    if (strncmp(line, "a", 1) == 0) branch_a(5);
    else if (strncmp(line, "b", 1) == 0) branch_b(1);
    else if (strncmp(line, "exit", 4) == 0) return 0;
    fputs("ok\n", stdout);
  }
  return 0;
}
