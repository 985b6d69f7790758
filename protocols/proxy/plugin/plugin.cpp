#include "dualfuzz/proxy/plugin.h"

#include <iostream>

#include "dualfuzz/proxy/asio_proxy.h"
#include "dualfuzz/proxy/in_process_transport.h"
#include "dualfuzz/proxy/reference_proxy.h"
#include "dualfuzz/proxy/protocol.h"

namespace dualfuzz::proxy {
namespace detail {
extern const char kJudgementsJson[];  // judgements.json (dualfuzz_judgements)
}  // namespace detail
namespace {
class Reference final : public campaign::InProcessServer {
 public:
  Reference(const std::string& bug, Mode mode)
      : proxy_({bug, mode}), transport_(proxy_) {}
  harness::Transport& transport() override { return transport_; }
  void reset() override { proxy_.reset(); }

 private:
  ReferenceProxy proxy_;
  InProcessTransport transport_;
};
}  // namespace

campaign::Plugin plugin(Mode mode, std::string origin) {
  ProtocolOptions o;
  o.mode = mode;
  o.origin = std::move(origin);
  return plugin(std::move(o));
}

campaign::Plugin plugin(ProtocolOptions o) {
  const Mode mode = o.mode;
  campaign::Plugin p;
  p.protocol = protocol(std::move(o));
  p.in_process =
      [mode](
          const std::string& bug) -> Result<std::unique_ptr<campaign::InProcessServer>> {
    try {
      return std::unique_ptr<campaign::InProcessServer>(new Reference(bug, mode));
    } catch (const std::exception& e) {
      return make_error(e.what());
    }
  };
  p.in_process_help =
      "the reference proxy, ARG a planted bug (`dualfuzz bugs --spec proxy`)";
  p.judgements = detail::kJudgementsJson;
  p.describe_in_process = [](const std::string& bug) {
    return "reference proxy, bug: " + (bug.empty() ? std::string("none planted") : bug);
  };
  p.planted_bugs = [] {
    std::vector<campaign::Plugin::PlantedBug> out;
    for (const http::BugInfo& b : planted_bugs())
      out.push_back({b.name, b.category, b.description});
    return out;
  };
  p.serve = [mode](std::uint16_t port, const std::string& bug, const std::string& origin) {
    if (origin.empty()) {
      std::cerr << "dualfuzz serve: a proxy needs --origin HOST:PORT\n";
      return 2;
    }
    return run_standalone(port, origin, bug, mode);
  };
  return p;
}

}  // namespace dualfuzz::proxy
