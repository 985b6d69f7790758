// The labelled trace (thesis Fig. 5.7): every message of a run with its
// label — requests odd, each response its request's label + 1 — and its
// connection, in the order the tester saw them.
//
//   LabelledTrace t;
//   t.add(3, /*conn=*/0, q2);  t.add(4, 0, a2);
//   const Json* a = t.find(4);
#pragma once

#include <vector>

#include "dualfuzz/harness/ir.h"

namespace dualfuzz::harness {

class LabelledTrace {
 public:
  struct Message {
    Label label;
    ConnId conn;
    Json ir;
  };
  void add(Label label, ConnId conn, Json ir) {
    msgs_.push_back({label, conn, std::move(ir)});
  }
  const Json* find(Label label) const {
    for (const Message& m : msgs_)
      if (m.label == label) return &m.ir;
    return nullptr;
  }
  const std::vector<Message>& messages() const { return msgs_; }
  std::size_t size() const { return msgs_.size(); }

 private:
  std::vector<Message> msgs_;
};

}  // namespace dualfuzz::harness
