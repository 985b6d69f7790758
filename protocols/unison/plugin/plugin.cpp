#include "dualfuzz/unison/plugin.h"

#include "dualfuzz/unison/protocol.h"
#include "dualfuzz/unison/reference_synchronizer.h"
#include "dualfuzz/unison/sync_transport.h"
#include "dualfuzz/unison/unison_process.h"

namespace dualfuzz::unison {
namespace {
class Harness final : public campaign::InProcessServer {
 public:
  Harness(SyncTransport::Replicas kind, std::unique_ptr<Synchronizer> s)
      : transport_(kind, std::move(s)) {}
  harness::Transport& transport() override { return transport_; }
  void reset() override { transport_.reset(); }

 private:
  SyncTransport transport_;
};
}  // namespace

campaign::Plugin plugin(UnisonOptions real) {
  campaign::Plugin p;
  p.protocol = protocol();
  p.in_process =
      [real = std::move(real)](
          const std::string& arg) -> Result<std::unique_ptr<campaign::InProcessServer>> {
    try {
      using R = SyncTransport::Replicas;
      if (arg == "unison" || arg == "unison-fastcheck") {
        UnisonOptions o = real;
        o.fastcheck = arg == "unison-fastcheck";
        return std::unique_ptr<campaign::InProcessServer>(
            new Harness(R::Disk, std::make_unique<UnisonProcess>(o)));
      }
      if (arg == "reference-disk")
        return std::unique_ptr<campaign::InProcessServer>(
            new Harness(R::Disk, std::make_unique<ReferenceSynchronizer>()));
      return std::unique_ptr<campaign::InProcessServer>(
          new Harness(R::Memory, std::make_unique<ReferenceSynchronizer>(arg)));
    } catch (const std::exception& e) {
      return make_error(e.what());
    }
  };
  p.in_process_help =
      "the reference synchronizer, ARG a planted bug (`dualfuzz bugs --spec unison`); "
      "`unison` / `unison-fastcheck`: the real Unison on temporary directories";
  p.describe_in_process = [](const std::string& arg) -> std::string {
    if (arg == "unison") return "real Unison";
    if (arg == "unison-fastcheck") return "real Unison, fastcheck on";
    if (arg == "reference-disk") return "reference synchronizer on disk";
    return "reference synchronizer, bug: " +
           (arg.empty() ? std::string("none planted") : arg);
  };
  p.planted_bugs = [] {
    std::vector<campaign::Plugin::PlantedBug> out;
    for (const auto& b : ReferenceSynchronizer::planted_bugs())
      out.push_back({b.name, "", b.description});
    return out;
  };
  return p;
}

}  // namespace dualfuzz::unison
