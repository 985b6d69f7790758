// --target for run/fuzz: `inprocess[:ARG]` (the plug-in's own server in this
// process, fresh per execution) or `HOST:PORT` (an external server over TCP;
// each execution gets its own namespace, Protocol::namespace_request, so runs
// do not see each other).
//
//   auto t = Target::make(plugin, "127.0.0.1:8080");
//   opts.run_namespace = (*t)->reset();
//   harness::Executor ex(plugin.protocol, (*t)->transport(), opts);
#pragma once

#include <unistd.h>

#include <boost/asio.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "dualfuzz/campaign/plugin.h"
#include "dualfuzz/harness/tcp_transport.h"
#include "dualfuzz/result.h"

namespace dualfuzz::campaign {

class Target {
 public:
  static Result<std::unique_ptr<Target>> make(const Plugin& plugin,
                                              const std::string& spec) {
    auto t = std::unique_ptr<Target>(new Target());
    if (spec == "inprocess" || spec.rfind("inprocess:", 0) == 0) {
      if (!plugin.in_process)
        return make_error("--target inprocess: protocol '" + plugin.protocol.name +
                          "' has no in-process server; give HOST:PORT");
      const std::string arg = spec.size() > 10 ? spec.substr(10) : "";
      auto server = plugin.in_process(arg);
      if (!server) return make_error(server.error());
      t->server_ = std::move(*server);
      return t;
    }
    auto hp = harness::parse_host_port(spec);
    if (!hp) return make_error("--target: " + hp.error() + " (or inprocess[:ARG])");
    t->tcp_ = std::make_unique<harness::TcpTransport>(t->io_, hp->first, hp->second);
    if (const auto& origin = plugin.protocol.origin) {
      // The server connects back to the tester (a proxy to its origin).
      if (origin->listen.empty())
        return make_error("--target " + spec + ": protocol '" + plugin.protocol.name +
                          "' has the tester play the origin too; give the address to "
                          "listen on with --origin HOST:PORT ($DUALFUZZ_ORIGIN)");
      auto at = harness::parse_host_port(origin->listen);
      if (!at) return make_error("--origin: " + at.error());
      auto bound = t->tcp_->listen(at->first, at->second);
      if (!bound) return make_error("--origin: " + bound.error());
      // What the previous execution's clients caused must be over before
      // the next one's origin connections are counted.
      t->set_drain(true);
    }
    return t;
  }
  // Before each execution: a fresh in-process server (in its namespace, if
  // it has one), or a fresh namespace.
  std::string reset() {
    // (Up to 2 s for the server to close what the last execution opened,
    // but no longer than 100 ms of silence: a proxy that keeps a half-closed
    // connection open cost 2 s per execution. What it forwards later still
    // is told apart by the namespace, Protocol::Origin::of_another_run.)
    if (tcp_ && drain_)
      tcp_->drain(std::chrono::seconds(2), std::chrono::milliseconds(100));
    if (tcp_) tcp_->forget_accepted();
    if (server_) {
      server_->reset();
      return server_->path_namespace();
    }
    return "dualfuzz-" + std::to_string(::getpid()) + "-" + std::to_string(++runs_) + "-";
  }
  harness::Transport& transport() { return server_ ? server_->transport() : *tcp_; }
  bool external() const { return !server_; }
  // An external server: each reset() first waits until the server has
  // closed the previous execution's connections (after answering what was
  // sent on them), so nothing of that execution runs after the reset.
  void set_drain(bool on) {
    drain_ = on;
    if (tcp_) tcp_->set_drain_on_close(on);
  }

 private:
  Target() = default;
  boost::asio::io_context io_;
  std::unique_ptr<InProcessServer> server_;
  std::unique_ptr<harness::TcpTransport> tcp_;
  std::uint64_t runs_ = 0;
  bool drain_ = false;
};

}  // namespace dualfuzz::campaign
