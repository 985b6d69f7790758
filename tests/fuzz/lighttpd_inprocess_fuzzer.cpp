// lighttpd 1.4.69 in process: its request handling linked into the fuzz
// target (scripts/subjects/build-inprocess.sh builds it with
// -fsanitize=fuzzer-no-link, so the engine counts lighttpd's own edges), no
// daemon: what OSS-Fuzz allows, the way its nginx harness drives nginx.
// Each input is an HTTP test script played against lighttpd on loopback and
// judged by the oracle of dualfuzz's HTTP/1.1 + WebDAV model; before each,
// the document root and mod_webdav's property and lock tables are emptied,
// so a finding reproduces from its input alone.
//
//   scripts/subjects/build-inprocess.sh lighttpd   # prints DIR
//   cmake -DDUALFUZZ_BUILD_FUZZERS=ON -DDUALFUZZ_LIGHTTPD_INPROCESS=DIR ...
//   ./lighttpd_inprocess_fuzzer -max_total_time=60 corpus/
//
// lighttpd's configuration is subject.sh's (mod_webdav with properties and
// locks, a default MIME type) plus server.stat-cache-engine = "disable": the
// reset removes files behind lighttpd's back, which its stat cache would
// hide for up to a second. $LIGHTTPD_INPROCESS_KEEP=1 keeps the temporary
// directory (configuration, error.log) at exit.
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "dualfuzz/fuzz_target.h"
#include "dualfuzz/http/protocol.h"
#include "lighttpd_inprocess.h"

namespace {

namespace fs = std::filesystem;

// A port on 127.0.0.1 that nothing listens on now (lighttpd binds it next;
// another process could take it in between: the start is retried).
std::uint16_t free_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  const bool ok = s >= 0 && ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  if (s >= 0) ::close(s);
  if (!ok) throw std::runtime_error("no free port on 127.0.0.1");
  return ntohs(a.sin_port);
}

// Whether lighttpd answers a request on the port, not only accepts: it
// listens before its plugins are set up (mod_webdav making its tables), and
// only its main loop answers. Taken for started once it accepted, it could
// still fail: the first reset() racing mod_webdav's CREATE TABLE made it give
// up ("database is locked", plugins failed), about one start in four under
// ASan, and the fuzzer then ran on with no lighttpd at all.
bool serves(std::uint16_t port) {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  timeval timeout{1, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  static constexpr char request[] = "GET / HTTP/1.0\r\n\r\n";
  char answer[5] = {};
  const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                  ::send(s, request, sizeof request - 1, MSG_NOSIGNAL) ==
                      static_cast<ssize_t>(sizeof request - 1) &&
                  ::recv(s, answer, sizeof answer, MSG_WAITALL) == sizeof answer &&
                  std::string(answer, sizeof answer) == "HTTP/";
  ::close(s);
  return ok;
}

// The one lighttpd of the process, serving in a thread of its own from the
// first use until exit. A function-local static because lighttpd keeps its
// server in C globals (server.c's statics, the log's): a second instance
// cannot exist, so the fuzz target's server and the mutator's (targeted
// replays) share this one, one after the other (the engine calls them in
// turn, never at once), each resetting it first.
class Lighttpd final {
 public:
  static Lighttpd& instance() {
    static Lighttpd l;
    return l;
  }
  std::uint16_t port() const { return port_; }
  // Which reset() this is (the namespace of the execution that follows).
  std::uint64_t generation() const { return generation_; }

  // The state every execution starts from: no file, no dead property, no
  // lock. Called once the previous execution's connections are closed, so
  // lighttpd is idle in its poll.
  void reset() {
    ++generation_;
    std::error_code ec;
    for (const fs::path& d : {dir_ / "root", dir_ / "tmp"})
      for (const auto& e : fs::directory_iterator(d, ec)) fs::remove_all(e.path(), ec);
    // mod_webdav's own connection to the same file; SQLite serialises the
    // two (the tables exist: mod_webdav made them at start-up).
    // Only when there is something to delete: a write transaction commits
    // with fsync()s, tens of ms, more than the execution itself.
    sqlite3_stmt* any = nullptr;
    bool dirty = true;
    if (sqlite3_prepare_v2(db_,
                           "SELECT EXISTS (SELECT 1 FROM properties) OR "
                           "EXISTS (SELECT 1 FROM locks)",
                           -1, &any, nullptr) == SQLITE_OK &&
        sqlite3_step(any) == SQLITE_ROW)
      dirty = sqlite3_column_int(any, 0) != 0;
    sqlite3_finalize(any);
    // One autocommit statement each, never a transaction left open: a
    // statement of mod_webdav's that finds the database locked spins on
    // SQLITE_BUSY for good (webdav_lock_delete_uri's `while (SQLITE_DONE !=
    // sqlite3_step(stmt))`), and a failed COMMIT in here did hang lighttpd.
    if (dirty)
      for (const char* sql : {"DELETE FROM properties", "DELETE FROM locks"})
        sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  }

  Lighttpd(const Lighttpd&) = delete;
  Lighttpd& operator=(const Lighttpd&) = delete;

 private:
  Lighttpd() {
    // Before lighttpd's thread can: mod_webdav asks for
    // SQLITE_CONFIG_SINGLETHREAD, which is refused once SQLite is initialised
    // (lighttpd logs it and goes on). Refused is what this needs: reset()
    // uses SQLite from another thread (and both initialising at once left one
    // without its VFS, "no such vfs", now and then).
    sqlite3_initialize();
    char tmpl[] = "/tmp/dualfuzz-lighttpd-XXXXXX";
    if (!::mkdtemp(tmpl)) throw std::runtime_error("cannot make a temporary directory");
    dir_ = tmpl;
    fs::create_directories(dir_ / "root");
    fs::create_directories(dir_ / "tmp");
    std::string why;
    for (int attempt = 0; attempt < 5 && !running_; ++attempt) why = start();
    if (!running_) throw std::runtime_error("lighttpd did not start: " + why);
    if (sqlite3_open((dir_ / "webdav.db").c_str(), &db_) != SQLITE_OK) {
      lighttpd_inprocess_stop();
      thread_.join();
      throw std::runtime_error("cannot open mod_webdav's database " +
                               (dir_ / "webdav.db").string() + ": " +
                               sqlite3_errmsg(db_));
    }
    sqlite3_busy_timeout(db_, 2000);
    // (A scratch database: no fsync() for this connection's commits.)
    sqlite3_exec(db_, "PRAGMA synchronous = OFF", nullptr, nullptr, nullptr);
  }
  ~Lighttpd() {
    lighttpd_inprocess_stop();  // (its loop polls with a 1-s timeout)
    // A lighttpd stuck in a request (a hang is a finding, reported as a
    // liveness violation) never returns: the process is exiting, leave it.
    for (int i = 0; i < 150 && !exited_; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (exited_)
      thread_.join();
    else
      thread_.detach();
    sqlite3_close(db_);
    const char* keep = std::getenv("LIGHTTPD_INPROCESS_KEEP");
    std::error_code ec;
    if (!(keep && *keep == '1')) fs::remove_all(dir_, ec);
  }

  // One try on a fresh port: "" when lighttpd serves, else why not.
  std::string start() {
    port_ = free_port();
    const fs::path conf = dir_ / "lighttpd.conf";
    const std::string d = dir_.string();
    std::ofstream(conf) << "server.modules = (\"mod_webdav\")\n"
                        << "server.document-root = \"" << d << "/root\"\n"
                        << "server.bind = \"127.0.0.1\"\n"
                        << "server.port = " << port_ << "\n"
                        << "server.errorlog = \"" << d << "/error.log\"\n"
                        << "server.upload-dirs = (\"" << d << "/tmp\")\n"
                        << "server.max-keep-alive-requests = 100000\n"
                        << "server.stat-cache-engine = \"disable\"\n"
                        << "webdav.activate = \"enable\"\n"
                        << "webdav.is-readonly = \"disable\"\n"
                        << "webdav.sqlite-db-name = \"" << d << "/webdav.db\"\n"
                        << "mimetype.assign = (\"\" => \"application/octet-stream\")\n";
    args_ = {"lighttpd", "-D", "-f", conf.string()};
    argv_.clear();
    for (auto& a : args_) argv_.push_back(a.data());
    argv_.push_back(nullptr);
    exited_ = false;
    // The thread blocks the signals the engine handles, so that the kernel
    // delivers them to the engine's threads (libFuzzer's -timeout alarm, ^C).
    sigset_t block, old;
    sigemptyset(&block);
    for (int s : {SIGALRM, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGCHLD})
      sigaddset(&block, s);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    thread_ = std::thread([this] {
      exit_code_ =
          lighttpd_inprocess_main(static_cast<int>(argv_.size()) - 1, argv_.data());
      exited_ = true;
    });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    for (int i = 0; i < 500 && !exited_; ++i) {  // 10 s
      if (serves(port_)) {
        running_ = true;
        return "";
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!exited_) lighttpd_inprocess_stop();
    thread_.join();
    return "exit code " + std::to_string(exit_code_) + " (see " + d + "/error.log)";
  }

  fs::path dir_;
  std::uint16_t port_ = 0;
  std::vector<std::string> args_;
  std::vector<char*> argv_;
  std::thread thread_;
  std::atomic<bool> exited_{false};
  int exit_code_ = 0;
  bool running_ = false;
  sqlite3* db_ = nullptr;
  std::uint64_t generation_ = 0;
};

// What dualfuzz::loopback<> makes, once for the fuzz target and once for the
// mutator: a handle on the one lighttpd.
class LighttpdServer {
 public:
  LighttpdServer() : l_(Lighttpd::instance()) {}
  std::uint16_t port() const { return l_.port(); }
  void reset() { l_.reset(); }
  // Paths under a namespace as on an external lighttpd (`/a/b` ->
  // `/dualfuzz-N-a/b`). A namespace per execution, fixed width: a request of the previous
  // execution that lighttpd serves after reset() (a LOCK behind a closed connection)
  // cannot reach this one's resources. With one namespace for all, such a
  // late LOCK made a later PUT of the same path 423 (a false alarm).
  std::string path_namespace() const {
    char ns[32];
    std::snprintf(ns, sizeof ns, "dualfuzz-%06llu-",
                  static_cast<unsigned long long>(l_.generation() % 1000000));
    return ns;
  }

 private:
  Lighttpd& l_;
};

}  // namespace

DUALFUZZ_FUZZ_TARGET(dualfuzz::http::protocol(), dualfuzz::loopback<LighttpdServer>())
