// The reference HTTP/1.1 server as a sans-IO core: bytes in per connection,
// bytes out, no clocks, no threads, no randomness — so a fuzz execution is
// deterministic and costs no context switch. Correct by default; a planted
// bug is selected by name (planted_bugs() lists them).
//
//   auto server = HttpServerCore::make({.bug = "etag-reuse"});  // Result<>
//   server->on_open(0);
//   server->on_data(0, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
//   for (auto& out : server->poll()) send(out.conn, out.bytes, out.close_after);
//   server->reset();  // next fuzz execution
//
// Semantics of the correct server (RFC 9110 subset): resources are a map
// path -> {body, strong ETag "<n>" from a global counter, Last-Modified from a
// logical clock ticking once per modification from 2023-11-14T22:13:20Z}.
// GET/HEAD 200 (404 when missing), PUT 201 on create and 204 on replace,
// DELETE 204 (404 when missing), OPTIONS 204 with Allow, POST, PATCH, TRACE
// and CONNECT 405 with Allow, other methods 501, unparseable requests 400
// and close. A GET's Range (bytes, with If-Range) gets a 206 (one part, or
// multipart/byteranges for several ascending, disjoint ones), a 416 when
// none is satisfiable, and the full 200 otherwise. Preconditions in the order of RFC 9110
// §13.2.2. Requests of all connections are served round-robin, one per connection per
// round, responses strictly in request order per connection; `Connection: close` (and
// HTTP/1.0 without keep-alive) closes after the response.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/http/codec.h"
#include "dualfuzz/result.h"

namespace dualfuzz::http {

using ConnId = std::uint32_t;
using Json = harness::Json;

struct BugInfo {
  std::string name;
  std::string category;  // framing, conditional, range, method, storage, etag, status,
                         // connection, concurrency
  std::string description;
};
// Every planted bug, in a stable order.
const std::vector<BugInfo>& planted_bugs();
// True for "", "none" (the correct server) and every planted bug's name.
bool is_known_bug(std::string_view name);

struct ServerOptions {
  std::string bug;         // "" or "none": the correct server
  std::uint64_t seed = 0;  // shifts the first ETag number and the start date
};

class HttpServerCore {
 public:
  struct Output {
    ConnId conn;
    std::string bytes;
    bool close_after = false;  // the server closes the connection after writing
  };
  // Validates the bug name.
  static Result<HttpServerCore> make(ServerOptions options);
  // Throws std::invalid_argument for an unknown bug name (a usage error;
  // make() reports it as a value instead).
  explicit HttpServerCore(ServerOptions options = {});

  void on_open(ConnId c) { conns_[c]; }
  void on_data(ConnId c, std::string_view bytes);
  // The peer closed: requests not yet served on c are abandoned.
  void on_close(ConnId c) { conns_.erase(c); }
  // Serves every complete request received so far and returns what to send.
  std::vector<Output> poll();
  // A fresh server: no connections or resources, clock and tags from the start.
  void reset();
  const std::string& bug() const { return bug_; }

 private:
  struct Resource {
    std::string body;
    std::string etag;
    long long modified = 0;
    int versions = 1;
    std::string previous;  // body before the last replace (stale-read)
  };
  struct Reply {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool head = false;  // send the headers of `body` but not the body
  };
  // The second half of a PUT a concurrency bug split in two.
  struct PendingPut {
    Json request;
    std::string path;
    // two-step-writes: what was decided when the write was received (the
    // status follows from it), and whether it is a DELETE.
    bool existed = true;
    bool remove = false;
  };
  struct Conn {
    http::RequestParser parser;
    std::deque<Json> queue;  // parsed, not yet served
    bool bad = false;        // the parser failed: 400 and close after the queue
    bool closing = false;    // nothing more is sent on this connection
    int served_this_poll = 0;
    std::optional<PendingPut> pending;
    std::optional<Output> held;  // pipeline-reorder: a response held back
  };

  bool bug(std::string_view name) const { return bug_ == name; }
  // One request (or pending half) of connection c; false when c had nothing.
  bool step(ConnId id, Conn& c, std::vector<Output>& out);
  // Serves q; nullopt when a concurrency bug deferred the rest to `pending`.
  std::optional<Reply> handle(const Json& q, Conn& c);
  std::optional<Reply> preconditions(const Json& q, const Resource* r);
  Reply put(const Json& q, const std::string& path);
  Reply range(const Json& q, const Resource& r, Reply full);
  void emit(ConnId id, Conn& c, const Json* q, Reply reply, std::vector<Output>& out);
  std::string render(const Reply& reply, bool close) const;
  std::string key(std::string path) const;
  std::string new_tag(const std::string& body);

  std::string bug_;
  std::uint64_t seed_ = 0;
  std::map<ConnId, Conn> conns_;
  std::map<std::string, Resource> files_;
  long long clock_ = 0;
  std::uint64_t next_tag_ = 1;
};

}  // namespace dualfuzz::http
