#include "dualfuzz/campaign/detail/shared_server.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dualfuzz::campaign::detail {
namespace {

// flock, again when a signal interrupts the wait.
void lock(int fd, int how) {
  while (::flock(fd, how) != 0 && errno == EINTR) {
  }
}

}  // namespace

Result<std::unique_ptr<SharedServer>> SharedServer::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return make_error("cannot open the shared-server lock " + path + ": " +
                      std::strerror(errno));
  return std::unique_ptr<SharedServer>(new SharedServer(fd));
}

SharedServer::~SharedServer() {
  if (fd_ >= 0) ::close(fd_);  // (and its lock with it)
}

SharedServer::Play::Play(SharedServer& s) : s_(s.alone_ ? nullptr : &s) {
  if (s_) lock(s_->fd_, LOCK_SH);
}

SharedServer::Play::~Play() {
  if (s_) lock(s_->fd_, LOCK_UN);
}

void SharedServer::hold_alone() {
  if (alone_) return;
  lock(fd_, LOCK_EX);
  alone_ = true;
}

void SharedServer::release_alone() {
  if (!alone_) return;
  lock(fd_, LOCK_UN);
  alone_ = false;
}

std::uint64_t SharedServer::deaths() const {
  std::uint64_t n = 0;
  if (::pread(fd_, &n, sizeof n, 0) != static_cast<ssize_t>(sizeof n)) return 0;
  return n;
}

void SharedServer::count_death() {
  const std::uint64_t n = deaths() + 1;
  [[maybe_unused]] const ssize_t w = ::pwrite(fd_, &n, sizeof n, 0);
}

}  // namespace dualfuzz::campaign::detail
