/* A "server" in a process of its own for server_coverage_test: it reads one
 * command a line from stdin, runs that command's branch and answers "ok".
 * "worker" does what nginx's master does: reaps the workers that died, forks
 * a new one (which runs branch a, then waits to be killed) and answers
 * "worker PID".
 * Built with -fsanitize-coverage=trace-pc-guard when the C compiler has it
 * (clang), else (gcc) it makes the calls that instrumentation would, on
 * guards of its own: either way through harness/coverage/sancov_shm.c. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Forks a worker that runs branch a and then waits; its pid once it has. */
static int fork_worker(void) {
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
  int ready[2];
  if (pipe(ready) != 0) return -1;
  const pid_t w = fork();
  if (w == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* not left behind by a killed master */
    close(ready[0]);
    branch_a(5);
    (void)!write(ready[1], "x", 1);
    for (;;) pause();
  }
  close(ready[1]);
  char c;
  const int ok = w > 0 && read(ready[0], &c, 1) == 1;
  close(ready[0]);
  return ok ? (int)w : -1;
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
    else if (strncmp(line, "worker", 6) == 0) {
      printf("worker %d\n", fork_worker());
      continue;
    }
    fputs("ok\n", stdout);
  }
  return 0;
}
