// The labelled trace (thesis Fig. 5.7): every message of a run with its
// label — requests odd, each response its request's label + 1 — and its
// connection, in the order the tester saw them. Labels come from the script,
// not from positions, so they stay put when other steps are deleted.
//
//   LabelledTrace t;
//   t.add_request(3, /*conn=*/0, q2);
//   t.add_response(3, 0, a2);               // labelled 4
//   const Json* a = t.find(4);              // a2
//   std::optional<ConnId> c = t.conn_of(4); // 0
#pragma once

#include <optional>
#include <vector>

#include "dualfuzz/harness/ir.h"

namespace dualfuzz::harness {

class LabelledTrace {
 public:
  struct Message {
    Label label;
    ConnId conn;
    Json ir;
    friend bool operator==(const Message&, const Message&) = default;
  };

  // Appends in observation order. Any label is accepted (the executor
  // records a response nobody asked for under label 0); lookups find the
  // first message with a label.
  void add(Label label, ConnId conn, Json ir);
  // The request labelled `label` (odd).
  void add_request(Label label, ConnId conn, Json ir) { add(label, conn, std::move(ir)); }
  // The response to request `request_label`, labelled request_label + 1.
  void add_response(Label request_label, ConnId conn, Json ir) {
    add(response_label(request_label), conn, std::move(ir));
  }

  const Json* find(Label label) const;
  const Message* find_message(Label label) const;
  bool contains(Label label) const { return find_message(label) != nullptr; }
  std::optional<ConnId> conn_of(Label label) const;

  const std::vector<Message>& messages() const { return msgs_; }
  // Keeps the first n messages.
  void truncate(std::size_t n) {
    if (n < msgs_.size()) msgs_.resize(n);
  }
  std::size_t size() const { return msgs_.size(); }
  bool empty() const { return msgs_.empty(); }
  friend bool operator==(const LabelledTrace&, const LabelledTrace&) = default;

 private:
  std::vector<Message> msgs_;
};

}  // namespace dualfuzz::harness
