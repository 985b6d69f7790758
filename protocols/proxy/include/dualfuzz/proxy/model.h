// The proxy model (thesis §6.1): a nondeterministic proxy whose inputs are
// the clients' requests and the origin's answers (both sent by the tester)
// and whose outputs are forwarded requests and relayed responses. Which
// origin connection carries which client's request is a hidden choice of
// each hypothesis (docs/proxy.md): wherever the model waits, it may first
// forward any pending request on any origin connection that is free.
//
//   oracle::Oracle o(proxy::model({.mode = Mode::Forward}));
//   o.observe(Event::request(0, 1, client_request));
//   o.observe(Event::request(kFirstAcceptedConn, 0, {{"origin", "accepted"}}));
//   o.observe(Event::response(kFirstAcceptedConn, 1, forwarded));  // checked
//   o.observe(Event::request(kFirstAcceptedConn, 2, answer));
//   o.observe(Event::response(0, 2, relayed));                      // checked
#pragma once

#include "dualfuzz/oracle/server_model.h"
#include "dualfuzz/proxy/forwarding.h"

namespace dualfuzz::proxy {

struct ModelOptions {
  Mode mode = Mode::Forward;
  // A proxy may refuse a request with an error of its own instead of
  // forwarding it. With lost_forwards (a proxy process), a refusal by
  // policy (policy_refusal_pattern: the statuses a policy gives, each with
  // the field it MUST carry); with `refusals`, any 4xx or 5xx
  // (refusal_pattern). Neither for the reference proxy in process, which
  // forwards everything: a refusal is then a violation.
  bool refusals = false;
  // The proxy's connections to the origin may fail under it: the tester
  // closes every origin connection between executions, so a proxy that
  // pools them may send a request on one it has not yet seen closed, and a
  // forwarded request may wait on the tester's `answer` step longer than
  // the proxy waits. So any request may get 502 or 504 instead of being
  // forwarded or relayed (lost_pattern). On for a proxy process (the tester
  // listens as its origin), off in process, where nothing closes under the
  // reference proxy and the tester answers at once.
  bool lost_forwards = false;
};

oracle::ServerModel model(ModelOptions options = {});

// The origin side's first message on a connection the proxy opened.
inline bool is_acceptance(const Json& m) {
  return m.is_object() && m.contains("origin") && m["origin"] == "accepted";
}

}  // namespace dualfuzz::proxy
