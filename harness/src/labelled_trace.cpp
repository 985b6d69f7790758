#include "dualfuzz/harness/labelled_trace.h"

namespace dualfuzz::harness {

void LabelledTrace::add(Label label, ConnId conn, Json ir) {
  msgs_.push_back({label, conn, std::move(ir)});
}

// A linear scan: traces hold at most a few thousand messages (scripts are
// capped at 1024 steps) and are scanned far less often than appended.
const LabelledTrace::Message* LabelledTrace::find_message(Label label) const {
  for (const Message& m : msgs_)
    if (m.label == label) return &m;
  return nullptr;
}

const Json* LabelledTrace::find(Label label) const {
  const Message* m = find_message(label);
  return m ? &m->ir : nullptr;
}

std::optional<ConnId> LabelledTrace::conn_of(Label label) const {
  const Message* m = find_message(label);
  return m ? std::optional<ConnId>(m->conn) : std::nullopt;
}

}  // namespace dualfuzz::harness
