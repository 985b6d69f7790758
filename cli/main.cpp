// dualfuzz: functional fuzzing of networked servers by dualization.
//   dualfuzz history --format jepsen-etcd FILE
//   dualfuzz run --target inprocess:lost-update SCRIPT
//   dualfuzz replay --target inprocess:lost-update crash-1234 --chart crash.html
//   dualfuzz minimize --target inprocess:lost-update crash-1234 -o small.txt
//   dualfuzz bugs
#include <exception>
#include <functional>
#include <iostream>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "dualfuzz: find functional bugs in networked servers (testing by dualization)"};
  app.require_subcommand(1);
  std::function<int()> run;
  dualfuzz::cli::add_history_command(app, run);
  dualfuzz::cli::add_run_command(app, run);
  dualfuzz::cli::add_fuzz_command(app, run,
                                  std::vector<std::string>(argv + 1, argv + argc));
  dualfuzz::cli::add_replay_command(app, run);
  dualfuzz::cli::add_minimize_command(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : dualfuzz::cli::kTrouble;
  }
  try {
    return run ? run() : dualfuzz::cli::kTrouble;
  } catch (const std::exception& e) {
    std::cerr << "dualfuzz: " << e.what() << "\n";
    return dualfuzz::cli::kTrouble;
  }
}
