#include "dualfuzz/unison/unison_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace dualfuzz::unison {
namespace {

// The last lines of Unison's output, without its banner and blank lines.
std::string shorten(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.empty() || line.find("Donations") != std::string::npos ||
        line.find("bcpierce") != std::string::npos)
      continue;
    out += (out.empty() ? "" : " | ") + line;
  }
  return out.size() > 400 ? "..." + out.substr(out.size() - 397) : out;
}

}  // namespace

UnisonProcess::UnisonProcess(UnisonOptions o) : o_(std::move(o)) { reset(); }

void UnisonProcess::reset() { home_ = std::make_unique<TempDir>(); }

std::vector<std::string> UnisonProcess::command(const std::string& a,
                                                const std::string& b) const {
  std::vector<std::string> c = {o_.binary,
                                a,
                                b,
                                "-batch",
                                "-silent",
                                "-confirmbigdel=false",
                                "-fastcheck",
                                o_.fastcheck ? "true" : "false",
                                "-log=false",
                                "-contactquietly"};
  c.insert(c.end(), o_.extra_args.begin(), o_.extra_args.end());
  return c;
}

SyncOutcome UnisonProcess::sync(Replica& ra, Replica& rb) {
  SyncOutcome out;
  out.fastcheck = o_.fastcheck;
  const auto a = ra.directory(), b = rb.directory();
  if (!a || !b) {
    out.exit = 127;
    out.log = "unison needs replicas on disk";
    return out;
  }
  const std::vector<std::string> cmd = command(*a, *b);
  std::vector<char*> argv;
  for (const std::string& s : cmd) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  // The environment: ours, with a private HOME and UNISON.
  std::vector<std::string> env_s = {"HOME=" + home_->path(),
                                    "UNISON=" + home_->path() + "/.unison"};
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "HOME=", 5) != 0 && std::strncmp(*e, "UNISON=", 7) != 0)
      env_s.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& s : env_s) envp.push_back(s.data());
  envp.push_back(nullptr);

  const std::string log_path = home_->path() + "/output.txt";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const int rc =
      ::posix_spawnp(&pid, cmd[0].c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    out.exit = 127;
    out.log = "cannot start " + cmd[0] + ": " + std::strerror(rc);
    return out;
  }
  const auto deadline = std::chrono::steady_clock::now() + o_.timeout;
  int status = 0;
  bool hung = false;
  for (auto pause = std::chrono::microseconds(200);;) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      status = 0;
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      hung = true;
      break;
    }
    std::this_thread::sleep_for(pause);
    if (pause < std::chrono::milliseconds(2)) pause *= 2;
  }
  std::ifstream in(log_path);
  std::stringstream ss;
  ss << in.rdbuf();
  if (hung) {
    out.exit = -1;
    out.log = "no answer after " + std::to_string(o_.timeout.count()) + " ms: killed. " +
              shorten(ss.str());
  } else if (WIFSIGNALED(status)) {
    out.exit = 128 + WTERMSIG(status);
    out.log =
        "killed by signal " + std::to_string(WTERMSIG(status)) + ". " + shorten(ss.str());
  } else {
    out.exit = WEXITSTATUS(status);
    if (out.exit != 0) out.log = shorten(ss.str());
  }
  return out;
}

}  // namespace dualfuzz::unison
