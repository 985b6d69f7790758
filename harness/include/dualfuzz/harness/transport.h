// How the executor reaches the server under test: per-connection byte
// streams. Implementations: the in-process reference server
// (dualfuzz::http::InProcessTransport) and TCP (Boost.Asio).
//
//   transport.open(0);  transport.send(0, bytes);
//   for (auto& in : transport.receive(std::chrono::milliseconds(100))) ...
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/harness/ir.h"
#include "dualfuzz/oracle/server_model.h"
#include "dualfuzz/result.h"

namespace dualfuzz::harness {

// Connections the server under test opened itself to the tester (a proxy
// connecting to the origin the tester plays, docs/proxy.md) have ids from
// here on, numbered by the transport in order of acceptance: receive()
// delivers their bytes, send() answers on them, close() closes them.
inline constexpr ConnId kFirstAcceptedConn = oracle::kFirstAcceptedConn;
constexpr bool is_accepted_conn(ConnId c) { return c >= kFirstAcceptedConn; }

class Transport {
 public:
  struct Incoming {
    ConnId conn;
    std::string bytes;
    bool eof = false;   // the server closed (or reset) the connection
    std::string error;  // non-empty: how the connection failed
    // With eof, non-empty: a write to the connection failed before (the
    // server reset it: it stopped reading), though what it sent was read
    // to its end (error empty: a clean end of the answers).
    std::string write_error = {};
  };
  virtual ~Transport() = default;
  // Opens connection c (a new one if c was closed before).
  virtual Result<bool> open(ConnId c) = 0;
  virtual void send(ConnId c, std::string_view bytes) = 0;
  virtual void close(ConnId c) = 0;
  // Whatever has arrived, waiting at most `timeout` for the first byte.
  // Empty: nothing arrived in time (an in-process server that has nothing
  // more to say returns at once).
  virtual std::vector<Incoming> receive(std::chrono::milliseconds timeout) = 0;
};

}  // namespace dualfuzz::harness
