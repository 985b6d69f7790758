#include "stop_signal.h"

#include <signal.h>

#include <csignal>

namespace dualfuzz::cli {
namespace {

// A signal handler can only reach a flag of static storage: the one mutable
// global of the program, written by the handler alone.
volatile std::sig_atomic_t stop_flag = 0;

void on_stop(int) { stop_flag = 1; }

}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // (the second signal: the default action)
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool stop_requested() { return stop_flag != 0; }

}  // namespace dualfuzz::cli
