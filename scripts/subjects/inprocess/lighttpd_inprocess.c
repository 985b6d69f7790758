/* lighttpd's server.c, compiled for a program that links lighttpd in
 * (lighttpd_inprocess.h): main() renamed, and the calls that would take the
 * process over from its host diverted here. Included rather than patched, so
 * that a mutant or fix patch of server.c still applies; compiled with the
 * flags of lighttpd's own server.o (build-inprocess.sh). */
#include "first.h"

#include <signal.h>
#include <string.h>

#include "fdevent.h"
#include "lighttpd_inprocess.h"

/* Signal dispositions are the process's: only SIGPIPE's SIG_IGN is taken
 * (lighttpd writes to sockets whose peer may be gone; the engine does not
 * care about SIGPIPE). The rest would replace the fuzzing engine's handlers
 * (libFuzzer's SIGALRM is its -timeout, SIGINT/SIGTERM its exit with stats). */
static int inprocess_sigaction(int sig, const struct sigaction *act,
                               struct sigaction *old) {
    if (sig == SIGPIPE) return sigaction(sig, act, old);
    if (old) memset(old, 0, sizeof(*old));
    return 0;
}
typedef void (*inprocess_handler)(int);
static inprocess_handler inprocess_signal(int sig, inprocess_handler h) {
    return sig == SIGPIPE ? signal(sig, h) : SIG_DFL;
}
#define sigaction(sig, act, old) inprocess_sigaction((sig), (act), (old))
#define signal(sig, h) inprocess_signal((sig), (h))
/* The host's stdin/stdout/stderr stay (the executable dup2()s /dev/null over
 * them: the engine's output would vanish). */
#define fdevent_set_stdin_stdout_stderr(in, out, err) ((void)(in), (void)(out), (void)(err), 0)
#define main lighttpd_inprocess_main

#include "server.c"

#undef main
void lighttpd_inprocess_stop(void) {
    srv_shutdown = 1;
}
