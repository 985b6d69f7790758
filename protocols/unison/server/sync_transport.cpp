#include "dualfuzz/unison/sync_transport.h"

#include "dualfuzz/unison/codec.h"
#include "dualfuzz/unison/query.h"

namespace dualfuzz::unison {

SyncTransport::SyncTransport(Replicas kind, std::unique_ptr<Synchronizer> sync)
    : kind_(kind), sync_(std::move(sync)) {
  reset();
}

void SyncTransport::reset() {
  a_.reset();
  b_.reset();
  dir_.reset();
  if (kind_ == Replicas::Disk) {
    dir_ = std::make_unique<TempDir>();
    a_ = std::make_unique<DiskReplica>(dir_->path() + "/A");
    b_ = std::make_unique<DiskReplica>(dir_->path() + "/B");
  } else {
    a_ = std::make_unique<MemoryReplica>();
    b_ = std::make_unique<MemoryReplica>();
  }
  sync_->reset();
  partial_.clear();
  out_.clear();
}

harness::Json SyncTransport::perform(const harness::Json& request) {
  auto q = parse_query(request);
  if (!q) return failure(q.error());
  if (q->op != Query::Op::Sync) return (q->replica ? *b_ : *a_).apply(*q);
  const SyncOutcome o = sync_->sync(*a_, *b_);
  harness::Json answer = {
      {"exit", o.exit}, {"A", a_->snapshot().to_json()}, {"B", b_->snapshot().to_json()}};
  if (!o.log.empty()) answer["log"] = o.log;
  if (o.fastcheck) answer["fastcheck"] = true;
  return answer;
}

void SyncTransport::send(harness::ConnId c, std::string_view bytes) {
  std::string& buf = partial_[c];
  buf += bytes;
  std::size_t start = 0;
  for (std::size_t nl; (nl = buf.find('\n', start)) != std::string::npos;
       start = nl + 1) {
    auto j = harness::Json::parse(buf.begin() + static_cast<std::ptrdiff_t>(start),
                                  buf.begin() + static_cast<std::ptrdiff_t>(nl), nullptr,
                                  /*allow_exceptions=*/false);
    const harness::Json answer = j.is_discarded() ? failure("not JSON") : perform(j);
    out_.push_back({c, print_response(answer), false, {}});
  }
  buf.erase(0, start);
}

std::vector<harness::Transport::Incoming> SyncTransport::receive(
    std::chrono::milliseconds) {
  std::vector<Incoming> in;
  in.swap(out_);
  return in;
}

}  // namespace dualfuzz::unison
