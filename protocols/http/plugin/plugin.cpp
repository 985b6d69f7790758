#include "dualfuzz/http/plugin.h"

#include "dualfuzz/http/asio_server.h"
#include "dualfuzz/http/in_process_transport.h"
#include "dualfuzz/http/protocol.h"
#include "dualfuzz/http/server_core.h"

namespace dualfuzz::http {
namespace detail {
extern const char kJudgementsJson[];  // judgements.json (dualfuzz_judgements)
}  // namespace detail
namespace {
// The reference server's sans-IO core and the transport over it.
class ReferenceServer final : public campaign::InProcessServer {
 public:
  explicit ReferenceServer(const std::string& bug)
      : core_(ServerOptions{bug}), transport_(core_) {}
  harness::Transport& transport() override { return transport_; }
  void reset() override { core_.reset(); }

 private:
  HttpServerCore core_;
  InProcessTransport transport_;
};
}  // namespace

campaign::Plugin plugin() {
  campaign::Plugin p;
  p.protocol = protocol();
  p.in_process =
      [](const std::string& bug) -> Result<std::unique_ptr<campaign::InProcessServer>> {
    try {
      return std::unique_ptr<campaign::InProcessServer>(new ReferenceServer(bug));
    } catch (const std::exception& e) {
      return make_error(e.what());
    }
  };
  p.in_process_help = "the reference server, ARG a planted bug (`dualfuzz bugs`)";
  p.judgements = detail::kJudgementsJson;
  p.describe_in_process = [](const std::string& bug) {
    return "server bug: " + (bug.empty() ? std::string("none planted") : bug);
  };
  p.planted_bugs = [] {
    std::vector<campaign::Plugin::PlantedBug> out;
    for (const BugInfo& b : planted_bugs()) out.push_back({b.name, b.category, b.description});
    return out;
  };
  p.serve = [](std::uint16_t port, const std::string& bug, const std::string&) {
    return run_standalone(port, bug);
  };
  return p;
}

}  // namespace dualfuzz::http
