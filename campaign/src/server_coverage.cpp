#include "dualfuzz/campaign/server_coverage.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>
#include <utility>

namespace dualfuzz::campaign {
namespace {

// kill(pid, 0) succeeds on a zombie: a crashed server whose parent has not
// reaped it yet is dead all the same.
bool process_alive(int pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno != EPERM) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;  // no /proc: trust kill()
  const auto paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) return true;
  const char state = line[paren + 2];
  return state != 'Z' && state != 'X';
}

}  // namespace

Result<ServerCoverage> ServerCoverage::open(const std::string& name) {
  const int fd = ::shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0)
    return make_error("server coverage map " + name + ": " + std::strerror(errno) +
                      " (start the instrumented server with " DUALFUZZ_COVERAGE_ENV "=" +
                      name + " first)");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(DUALFUZZ_COVERAGE_BYTES)) {
    ::close(fd);
    return make_error("server coverage map " + name +
                      " is too small: not a coverage map");
  }
  void* m =
      ::mmap(nullptr, DUALFUZZ_COVERAGE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED)
    return make_error("server coverage map " + name + ": mmap: " + std::strerror(errno));
  const auto* h = static_cast<const dualfuzz_coverage_header*>(m);
  if (h->magic != DUALFUZZ_COVERAGE_MAGIC || h->capacity != DUALFUZZ_COVERAGE_CAPACITY) {
    ::munmap(m, DUALFUZZ_COVERAGE_BYTES);
    return make_error("server coverage map " + name +
                      " has another layout (a server built with another runtime?)");
  }
  return ServerCoverage(name, m);
}

ServerCoverage::ServerCoverage(ServerCoverage&& o) noexcept
    : name_(std::move(o.name_)),
      map_(std::exchange(o.map_, nullptr)),
      starts_at_begin_(o.starts_at_begin_),
      pid_at_begin_(o.pid_at_begin_) {}

ServerCoverage& ServerCoverage::operator=(ServerCoverage&& o) noexcept {
  if (this != &o) {
    if (map_) ::munmap(map_, DUALFUZZ_COVERAGE_BYTES);
    name_ = std::move(o.name_);
    map_ = std::exchange(o.map_, nullptr);
    starts_at_begin_ = o.starts_at_begin_;
    pid_at_begin_ = o.pid_at_begin_;
  }
  return *this;
}

ServerCoverage::~ServerCoverage() {
  if (map_) ::munmap(map_, DUALFUZZ_COVERAGE_BYTES);
}

void ServerCoverage::begin() {
  std::memset(hits_mut(), 0, guards());
  starts_at_begin_ = __atomic_load_n(&header().starts, __ATOMIC_RELAXED);
  pid_at_begin_ = pid();
}

ServerCoverage::Health ServerCoverage::health() const {
  if (!process_alive(pid())) return Health::Down;
  if (__atomic_load_n(&header().starts, __ATOMIC_RELAXED) != starts_at_begin_ ||
      pid() != pid_at_begin_)
    return Health::Restarted;
  return Health::Up;
}

bool ServerCoverage::wait_until_up(int timeout_ms) const {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!process_alive(pid())) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

int ServerCoverage::pid() const {
  return __atomic_load_n(&header().pid, __ATOMIC_RELAXED);
}

std::size_t ServerCoverage::guards() const {
  return std::min<std::size_t>(header().guards, DUALFUZZ_COVERAGE_CAPACITY);
}

std::span<const std::uint8_t> ServerCoverage::hits() const {
  return {hits_mut(), guards()};
}

std::size_t ServerCoverage::edges_ever() const {
  const auto* ever =
      static_cast<const std::uint8_t*>(map_) + DUALFUZZ_COVERAGE_EVER_OFFSET;
  return static_cast<std::size_t>(
      std::count_if(ever, ever + guards(), [](std::uint8_t b) { return b != 0; }));
}

void ServerCoverage::fold_into(std::span<std::uint8_t> out, Counting c) const {
  if (out.empty()) return;
  const auto h = hits();
  for (std::size_t i = 1; i < h.size(); ++i)
    if (h[i]) {
      std::uint8_t& o = out[i % out.size()];
      o = std::max<std::uint8_t>(o, c == Counting::Edges ? 1 : h[i]);
    }
}

}  // namespace dualfuzz::campaign
