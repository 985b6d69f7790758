/* lighttpd linked into a program (scripts/subjects/build-inprocess.sh):
 * its server.c with main() renamed, the modules compiled in (LIGHTTPD_STATIC).
 * One server per process: lighttpd keeps its state in globals.
 *
 *   char *argv[] = {"lighttpd", "-D", "-f", "/tmp/x/lighttpd.conf", NULL};
 *   std::thread t([&] { lighttpd_inprocess_main(4, argv); });  // serves until stopped
 *   ...
 *   lighttpd_inprocess_stop(); t.join();
 *
 * What differs from the executable (so that it can share a process with a
 * fuzzing engine): it installs no signal handler but SIGPIPE's SIG_IGN
 * (SIGALRM, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGCHLD and SIGBUS stay the
 * engine's: libFuzzer's -timeout is a SIGALRM), and it leaves stdin, stdout
 * and stderr open (the executable points them at /dev/null). Give -D (no
 * daemon: it would fork) and an error log file in the configuration. */
#ifndef LIGHTTPD_INPROCESS_H
#define LIGHTTPD_INPROCESS_H
#ifdef __cplusplus
extern "C" {
#endif

/* lighttpd's main(): returns when the server stops (0) or cannot start (<0). */
int lighttpd_inprocess_main(int argc, char **argv);
/* Asks the server to stop: its loop ends within about a second (its poll
 * timeout). Safe from any thread. */
void lighttpd_inprocess_stop(void);

#ifdef __cplusplus
}
#endif
#endif
