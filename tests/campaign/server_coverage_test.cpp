// campaign::ServerCoverage against a server in a process of its own
// (server_coverage_fixture.c, linked with harness/coverage/sancov_shm.c):
// its edges arrive in the map, are zeroed per execution, reach the engine's
// counters, and a killed or restarted server is told apart from a live one;
// a server that forks its workers (nginx) counts theirs in the same map.
#include "dualfuzz/campaign/server_coverage.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <set>
#include <string>

extern "C" {
__attribute__((weak)) extern std::uint8_t __start___libfuzzer_extra_counters;
__attribute__((weak)) extern std::uint8_t __stop___libfuzzer_extra_counters;
}

namespace dualfuzz::campaign {
namespace {

// The fixture on two pipes: command() sends one line and waits for "ok".
class Fixture {
 public:
  explicit Fixture(const std::string& shm) {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::close(in[1]);
      ::close(out[0]);
      ::setenv(DUALFUZZ_COVERAGE_ENV, shm.c_str(), 1);
      ::execl(FIXTURE_PATH, FIXTURE_PATH, static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = ::fdopen(out[0], "r");
  }
  ~Fixture() { kill(); }
  // The answer to one command line ("" when there is none).
  std::string ask(const std::string& c) {
    const std::string line = c + "\n";
    if (::write(to_, line.data(), line.size()) != static_cast<ssize_t>(line.size()))
      return "";
    char buf[32];
    return from_ && std::fgets(buf, sizeof buf, from_) ? std::string(buf) : "";
  }
  bool command(const std::string& c) { return ask(c) == "ok\n"; }
  // Has the fixture fork a worker (as nginx's master does); its pid, or -1.
  int worker() {
    int pid = -1;
    return std::sscanf(ask("worker").c_str(), "worker %d", &pid) == 1 ? pid : -1;
  }
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);  // reaped: gone, not a zombie
    pid_ = -1;
    ::close(to_);
    if (from_) std::fclose(from_);
    from_ = nullptr;
  }
  int pid() const { return pid_; }

 private:
  int pid_ = -1, to_ = -1;
  std::FILE* from_ = nullptr;
};

std::set<std::size_t> hit_set(const ServerCoverage& c) {
  std::set<std::size_t> s;
  const auto h = c.hits();
  for (std::size_t i = 0; i < h.size(); ++i)
    if (h[i]) s.insert(i);
  return s;
}

class ServerCoverageTest : public ::testing::Test {
 protected:
  void SetUp() override { ::shm_unlink(name_.c_str()); }
  void TearDown() override { ::shm_unlink(name_.c_str()); }
  const std::string name_ = "/dualfuzz-covtest-" + std::to_string(::getpid());
};

TEST_F(ServerCoverageTest, NoMapIsAnErrorThatSaysHowToMakeOne) {
  auto c = ServerCoverage::open(name_);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().find(DUALFUZZ_COVERAGE_ENV), std::string::npos) << c.error();
}

TEST_F(ServerCoverageTest, CountersArriveAndAreZeroedPerExecution) {
  Fixture server(name_);
  ASSERT_TRUE(server.command("nothing"));  // (its runtime has made the map)
  auto cov = ServerCoverage::open(name_);
  ASSERT_TRUE(cov) << cov.error();
  EXPECT_EQ(cov->pid(), server.pid());
  EXPECT_GE(cov->guards(), 5u);

  cov->begin();
  EXPECT_TRUE(hit_set(*cov).empty()) << "begin() zeroes what main() hit";
  ASSERT_TRUE(server.command("a"));
  const auto a = hit_set(*cov);
  EXPECT_FALSE(a.empty());

  cov->begin();
  EXPECT_TRUE(hit_set(*cov).empty());
  ASSERT_TRUE(server.command("b"));
  const auto b = hit_set(*cov);
  EXPECT_FALSE(b.empty());
  EXPECT_NE(a, b);
  const auto h = cov->hits();
  EXPECT_EQ(*std::max_element(h.begin(), h.end()), 255) << "a 300-times loop saturates";

  cov->begin();
  ASSERT_TRUE(server.command("nothing"));
  for (std::size_t i : a) EXPECT_EQ(cov->hits()[i], 0) << "edge " << i << " leaked";

  std::set<std::size_t> both = a;
  both.insert(b.begin(), b.end());
  EXPECT_GE(cov->edges_ever(), both.size());
  EXPECT_LE(cov->edges_ever(), cov->guards());
  EXPECT_EQ(cov->health(), ServerCoverage::Health::Up);
}

TEST_F(ServerCoverageTest, ExecutionCountersReachLibFuzzersExtraCounters) {
  ASSERT_NE(&__start___libfuzzer_extra_counters, nullptr) << "no extra-counters section";
  std::uint8_t* begin = &__start___libfuzzer_extra_counters;
  const std::size_t n = &__stop___libfuzzer_extra_counters - begin;
  ASSERT_EQ(n, libfuzzer_server_slots());
  Fixture server(name_);
  ASSERT_TRUE(server.command("nothing"));
  auto cov = ServerCoverage::open(name_);
  ASSERT_TRUE(cov) << cov.error();

  cov->begin();
  std::fill(begin, begin + n, 0);  // (what libFuzzer does before each input)
  ASSERT_TRUE(server.command("a"));
  forward_to_engine(*cov);
  const auto a = hit_set(*cov);
  ASSERT_FALSE(a.empty());
  for (std::size_t i : a) EXPECT_EQ(begin[i % n], 1) << "edges, not hit counts";
  EXPECT_EQ(static_cast<std::size_t>(
                std::count_if(begin, begin + n, [](std::uint8_t x) { return x != 0; })),
            a.size());

  // Nothing played: nothing forwarded.
  cov->begin();
  std::fill(begin, begin + n, 0);
  forward_to_engine(*cov);
  EXPECT_TRUE(std::all_of(begin, begin + n, [](std::uint8_t x) { return x == 0; }));
  EXPECT_EQ(afl_server_slots(), 0u) << "not under AFL++";
}

TEST_F(ServerCoverageTest, FoldsIntoASmallerArrayByModulo) {
  Fixture server(name_);
  ASSERT_TRUE(server.command("nothing"));
  auto cov = ServerCoverage::open(name_);
  ASSERT_TRUE(cov) << cov.error();
  cov->begin();
  ASSERT_TRUE(server.command("b"));  // (a 300-times loop among its edges)
  for (auto counting :
       {ServerCoverage::Counting::Edges, ServerCoverage::Counting::HitCounts}) {
    std::uint8_t out[3] = {0, 0, 0};
    cov->fold_into(out, counting);
    std::uint8_t expect[3] = {0, 0, 0};
    const auto h = cov->hits();
    for (std::size_t i = 1; i < h.size(); ++i)
      if (h[i])
        expect[i % 3] = std::max<std::uint8_t>(
            expect[i % 3], counting == ServerCoverage::Counting::Edges ? 1 : h[i]);
    EXPECT_TRUE(std::equal(out, out + 3, expect));
    EXPECT_TRUE(std::any_of(out, out + 3, [](std::uint8_t x) { return x != 0; }));
    EXPECT_EQ(*std::max_element(out, out + 3),
              counting == ServerCoverage::Counting::Edges ? 1 : 255);
  }
}

TEST_F(ServerCoverageTest, KilledServerIsDownAndARestartIsSeen) {
  auto first = std::make_unique<Fixture>(name_);
  ASSERT_TRUE(first->command("nothing"));
  auto cov = ServerCoverage::open(name_);
  ASSERT_TRUE(cov) << cov.error();
  cov->begin();
  ASSERT_TRUE(first->command("a"));
  const auto a = hit_set(*cov);
  EXPECT_EQ(cov->health(), ServerCoverage::Health::Up);

  first->kill();
  EXPECT_EQ(cov->health(), ServerCoverage::Health::Down);
  EXPECT_FALSE(cov->wait_until_up(50));

  Fixture second(name_);  // a supervisor restarts it
  ASSERT_TRUE(second.command("nothing"));
  EXPECT_TRUE(cov->wait_until_up(1000));
  EXPECT_EQ(cov->pid(), second.pid());
  EXPECT_EQ(cov->health(), ServerCoverage::Health::Restarted) << "since begin()";
  cov->begin();
  EXPECT_EQ(cov->health(), ServerCoverage::Health::Up);
  ASSERT_TRUE(second.command("a"));
  EXPECT_EQ(hit_set(*cov), a)
      << "a restarted server counts its edges at the same indices";
}

TEST_F(ServerCoverageTest, ForkedWorkersCountInTheMapAndARespawnIsARestart) {
  // nginx: the master attaches (its constructors run the runtime), then
  // forks the worker that serves; the worker inherits the mapping.
  Fixture master(name_);
  ASSERT_TRUE(master.command("nothing"));
  auto cov = ServerCoverage::open(name_);
  ASSERT_TRUE(cov) << cov.error();
  cov->begin();
  const int w1 = master.worker();
  ASSERT_GT(w1, 0);
  EXPECT_EQ(cov->pid(), w1) << "the map names the newest child: the one serving";
  const auto first = hit_set(*cov);
  EXPECT_FALSE(first.empty()) << "the worker's edges reach the map";
  cov->begin();
  EXPECT_EQ(cov->health(), ServerCoverage::Health::Up);

  ::kill(w1, SIGKILL);  // a crash in the worker; the master is alive
  bool down = false;
  for (int i = 0; i < 100 && !down; ++i) {
    down = cov->health() == ServerCoverage::Health::Down;
    if (!down) ::usleep(10'000);
  }
  EXPECT_TRUE(down) << "a dead worker is a dead server, though its master lives";

  const int w2 = master.worker();  // the master respawns it
  ASSERT_GT(w2, 0);
  EXPECT_NE(w2, w1);
  EXPECT_EQ(cov->pid(), w2);
  EXPECT_EQ(cov->health(), ServerCoverage::Health::Restarted) << "since begin()";
  const auto second = hit_set(*cov);
  cov->begin();
  ASSERT_TRUE(master.command("nothing"));
  const auto idle = hit_set(*cov);  // (the master's loop: hit around any answer)
  std::set<std::size_t> forked;
  std::set_difference(first.begin(), first.end(), idle.begin(), idle.end(),
                      std::inserter(forked, forked.end()));
  EXPECT_FALSE(forked.empty());
  EXPECT_TRUE(std::includes(second.begin(), second.end(), forked.begin(), forked.end()))
      << "the respawned worker counts its edges at the same indices";
  ::kill(w2, SIGKILL);
}

}  // namespace
}  // namespace dualfuzz::campaign
