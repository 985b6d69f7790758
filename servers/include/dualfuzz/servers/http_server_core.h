// The reference HTTP/1.1 server as a sans-IO core: bytes in per connection,
// bytes out, no clocks, no threads, no randomness — so a fuzz execution is
// deterministic and costs no context switch. Correct by default; a planted
// bug is selected by name (planted_bugs() lists them).
//
//   HttpServerCore server({.bug = "etag-reuse"});
//   server.on_data(0, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
//   for (auto& out : server.poll()) send(out.conn, out.bytes);
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dualfuzz::servers {

using ConnId = std::uint32_t;

struct BugInfo {
  std::string name;
  std::string category;
  std::string description;
};
// Every planted bug, in a stable order.
const std::vector<BugInfo>& planted_bugs();

struct ServerOptions {
  std::string bug;  // "" or "none": the correct server
};

class HttpServerCore {
 public:
  struct Output {
    ConnId conn;
    std::string bytes;
    bool close_after = false;
  };
  // Throws std::invalid_argument for an unknown bug name (misuse).
  explicit HttpServerCore(ServerOptions options = {});

  void on_open(ConnId c) { conns_[c]; }
  void on_data(ConnId c, std::string_view bytes);
  void on_close(ConnId c) { conns_.erase(c); }
  // Processes every complete request received so far, in arrival order per
  // connection (connections in ascending order), and returns what to send.
  std::vector<Output> poll();
  // A fresh server: no resources, clock and tag counter back to the start.
  void reset();

 private:
  struct Resource {
    std::string body;
    std::string etag;
    long long modified;
    int versions = 1;
    std::string previous;  // body before the last replace (for stale reads)
  };
  struct Conn {
    std::string in;
    bool closing = false;
  };
  struct Request {
    std::string method, path;
    std::map<std::string, std::string> headers;  // lowercase names
    std::string body;
  };
  // Parses one request from c.in; nullopt when incomplete; sets `bad` on
  // malformed input.
  std::optional<Request> take_request(Conn& c, bool& bad);
  std::string handle(const Request& q);
  std::string respond(int status,
                      const std::vector<std::pair<std::string, std::string>>& headers,
                      const std::string& body, bool head = false);
  bool bug(std::string_view name) const { return bug_ == name; }

  std::string bug_;
  std::map<ConnId, Conn> conns_;
  std::map<std::string, Resource> files_;
  long long clock_ = 0;
  int next_tag_ = 1;
};

}  // namespace dualfuzz::servers
