// The reference HTTP proxy as a sans-IO core: client connections in, origin
// connections out, no sockets, clocks or threads (a fuzz execution is
// deterministic). Correct by default; a planted bug is chosen by name.
//
//   proxy::ReferenceProxy p({.bug = "no-via"});
//   p.on_client_data(0, "GET http://o/a HTTP/1.1\r\nHost: o\r\n\r\n");
//   for (auto& out : p.poll())   // {origin: true, conn: 0, bytes: "GET /a ..."}
//     ...;
//   p.on_origin_data(0, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx");
//
// Semantics of the correct proxy: every request it receives is forwarded at
// once (an idle origin connection is reused, else a new one is opened; one
// request per origin connection at a time), with an origin-form target, Host
// from the absolute-form target (forward mode), the fields named in
// Connection and the hop-by-hop fields removed, Max-Forwards decremented on
// TRACE/OPTIONS (which it answers itself at 0) and "1.1 dualfuzz" appended
// to Via. Each answer is relayed to the client it was forwarded for, in
// request order per client connection, re-framed with Content-Length,
// without hop-by-hop fields, with Via. An origin that closes before
// answering gets the client a 502; a malformed client request a 400 and a
// close.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/http/codec.h"
#include "dualfuzz/http/server_core.h"
#include "dualfuzz/proxy/forwarding.h"

namespace dualfuzz::proxy {

using ConnId = std::uint32_t;

// Every planted bug, in a stable order (http::BugInfo: name, category,
// description; categories: connection, max-forwards, via, method, mapping,
// pipeline, framing, host, conditional, order).
const std::vector<http::BugInfo>& planted_bugs();
bool is_known_bug(std::string_view name);  // also "" and "none"

struct ReferenceOptions {
  std::string bug;  // "" or "none": the correct proxy
  Mode mode = Mode::Forward;
};

class ReferenceProxy {
 public:
  struct Output {
    bool to_origin = false;  // an origin connection (numbered 0, 1, ... as opened)
    ConnId conn = 0;
    std::string bytes;
    bool close_after = false;
  };
  // Throws std::invalid_argument for an unknown bug name.
  explicit ReferenceProxy(ReferenceOptions options = {});

  void on_client_data(ConnId c, std::string_view bytes);
  void on_client_close(ConnId c);
  void on_origin_data(ConnId o, std::string_view bytes);
  void on_origin_close(ConnId o);
  std::vector<Output> poll();
  void reset();

 private:
  struct Slot {
    std::uint64_t id = 0;
    std::optional<std::string> bytes;
    bool close_after = false;
  };
  struct Client {
    http::RequestParser parser;
    std::deque<Slot> owed;
    bool closing = false;
  };
  struct Carried {
    ConnId client = 0;
    std::uint64_t slot = 0;
    std::string method;
  };
  struct Origin {
    http::ResponseParser parser;
    std::optional<Carried> carrying;
  };

  bool bug(std::string_view name) const { return bug_ == name; }
  void serve(ConnId c, Json request);
  void forward(ConnId c, std::uint64_t slot, const Json& request);
  void relay(ConnId o, Json answer);
  void fill(const Carried& to, std::string bytes, bool close_after = false);
  void flush(ConnId c);
  Json forwarded_request(const Json& request) const;
  std::string relayed_response(const Json& answer, const std::string& method) const;

  std::string bug_;
  Mode mode_;
  std::map<ConnId, Client> clients_;
  std::map<ConnId, Origin> origins_;
  std::vector<ConnId> idle_;
  ConnId next_origin_ = 0;
  std::uint64_t next_slot_ = 1;
  std::vector<Output> out_;
};

}  // namespace dualfuzz::proxy
