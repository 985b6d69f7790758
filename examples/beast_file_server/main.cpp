// The Beast file server as a program, to fuzz it from outside
// (`dualfuzz fuzz --target 127.0.0.1:PORT`) or to try it with curl:
//   beast_file_server [PORT [ROOT [--fast-etags]]]
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "file_server.h"

int main(int argc, char** argv) {
  file_server::Options o;
  if (argc > 1) o.port = static_cast<std::uint16_t>(std::atoi(argv[1]));
  if (argc > 2) o.root = argv[2];
  o.fast_etags = argc > 3 && std::string(argv[3]) == "--fast-etags";
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);  // (before the server's thread starts)
  try {
    file_server::Server s(o);
    std::printf("listening on 127.0.0.1:%u\n", s.port());
    std::fflush(stdout);
    int sig = 0;
    sigwait(&stop, &sig);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "beast_file_server: %s\n", e.what());
    return 2;
  }
  return 0;
}
