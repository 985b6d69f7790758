// --target for run/fuzz: `inprocess[:BUG]` (the reference server in this
// process, fresh per execution) or `HOST:PORT` (an external server over TCP;
// each execution gets its own path namespace so runs do not see each other).
#pragma once

#include <unistd.h>

#include <memory>
#include <string>
#include <utility>

#include <boost/asio.hpp>

#include "dualfuzz/harness/tcp_transport.h"
#include "dualfuzz/result.h"
#include "dualfuzz/http/in_process_transport.h"

namespace dualfuzz::cli {

class Target {
 public:
  static Result<std::unique_ptr<Target>> make(const std::string& spec) {
    auto t = std::unique_ptr<Target>(new Target());
    if (spec.rfind("inprocess", 0) == 0) {
      std::string bug = spec.size() > 10 ? spec.substr(10) : "";
      try {
        t->core_ = std::make_unique<http::HttpServerCore>(http::ServerOptions{bug});
      } catch (const std::exception& e) {
        return make_error(e.what());
      }
      t->transport_ = std::make_unique<http::InProcessTransport>(*t->core_);
      return t;
    }
    auto hp = harness::parse_host_port(spec);
    if (!hp) return make_error("--target: " + hp.error() + " (or inprocess[:BUG])");
    t->transport_ =
        std::make_unique<harness::TcpTransport>(t->io_, hp->first, hp->second);
    return t;
  }
  // Before each execution: a fresh in-process server, or a fresh namespace.
  std::string reset() {
    if (core_) {
      core_->reset();
      return "";
    }
    return "dualfuzz-" + std::to_string(::getpid()) + "-" + std::to_string(++runs_) + "-";
  }
  harness::Transport& transport() { return *transport_; }
  bool external() const { return !core_; }

 private:
  Target() = default;
  boost::asio::io_context io_;
  std::unique_ptr<http::HttpServerCore> core_;
  std::unique_ptr<harness::Transport> transport_;
  std::uint64_t runs_ = 0;
};

}  // namespace dualfuzz::cli
