// A small HTTP/1.1 file server on Boost.Beast, of the kind a project embeds:
// GET, HEAD, PUT and DELETE on the files of one directory, with entity tags,
// Last-Modified and conditional requests (RFC 9110 §13). It stands for "your
// server" in dualfuzz's fuzz-target example; dualfuzz knows nothing of it.
//
//   file_server::Server s(file_server::Options{});  // 127.0.0.1, any free port,
//   std::uint16_t port = s.port();                  // a fresh temporary root
//   s.reset();                                      // every file removed
//
// One planted functional bug, off by default: `fast_etags` makes entity tags
// from the modification time (whole seconds) and the size, as several real
// servers do, so two contents of one size written within a second share a
// *strong* tag (RFC 9110 §8.8.3 forbids that) and an If-Match meant for the
// old content lets a write through (a lost update).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

namespace file_server {

struct Options {
  std::filesystem::path root;  // empty: a fresh temporary directory, removed at the end
  std::uint16_t port = 0;      // 0: any free port on 127.0.0.1
  bool fast_etags = false;     // the planted bug (see above)
};

class Server {
 public:
  explicit Server(Options options = {});
  ~Server();  // stops serving and joins its thread
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  std::uint16_t port() const;
  // Waits until every connection has ended (requests in flight on a
  // connection its client closed are served first), then removes every
  // file, in the server's own thread.
  void reset();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace file_server
