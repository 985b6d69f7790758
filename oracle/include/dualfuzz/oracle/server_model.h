// What a spec writer sees: requests, model states, and a ServerModel bundle.
//
//   struct Reg { std::optional<int> v; bool operator==(const Reg&) const = default; };
//   // (std::hash<Reg> and to_json(Reg) must exist)
//   Tree serve(Reg s) {
//     return recv(ModelState(s), [s](const Request& q) {
//       return send(q.conn, Sym::object({{"value", Sym::lit(s.v ? Json(*s.v) :
//       Json())}}),
//                   serve(s));
//     });
//   }
//   ServerModel m{"register", [] { return serve(Reg{}); }};
//
// Contract: the ModelState passed to `recv` determines the rest of the
// server's behaviour. The oracle merges hypotheses whose servers wait in equal
// states, so two equal states must have equivalent continuations.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <typeinfo>
#include <vector>

#include "dualfuzz/oracle/symbolic.h"
#include "dualfuzz/oracle/theory.h"

namespace dualfuzz::oracle {

using ConnId = std::uint32_t;
// Connections the server under test opened to the tester (a proxy's to the
// origin the tester plays) have ids from here on (harness::kFirstAcceptedConn
// is this one); reports name them o1, o2, ...
inline constexpr ConnId kFirstAcceptedConn = 1u << 20;
// "connection 3", or "origin connection o1" for one the server opened.
// An origin connection's short name, "o1" for the first the server opened
// (scripts, traces, charts).
inline std::string origin_name(ConnId c) {
  return "o" + std::to_string(c - kFirstAcceptedConn + 1);
}
inline std::string connection_name(ConnId c) {
  return c >= kFirstAcceptedConn ? "origin connection " + origin_name(c)
                                 : "connection " + std::to_string(c);
}
using Label = std::uint32_t;

// What a model reads from a request, decoded once per distinct request by
// ServerModel::decode (the oracle runs the model on every request in every
// hypothesis, so decoding per run would repeat the same field lookups and
// date parsing). A model derives its own view from this and casts back.
struct DecodedRequest {
  virtual ~DecodedRequest() = default;
  // True if the request, its response never observed, changes nothing a
  // later observation can tell (HTTP: GET and HEAD, whose steps only bind
  // what their answer would show). On a connection the tester closed, the
  // oracle then never processes it: trying each such request processed and
  // not processed made 2^k equivalent hypotheses (a server that reset a
  // connection with 14 pipelined reads unanswered).
  virtual bool unobservable_unanswered() const { return false; }
};
using RequestDecoder =
    std::function<std::shared_ptr<const DecodedRequest>(const Json& request)>;

// A request the tester sent, as the server receives it.
struct Request {
  ConnId conn = 0;
  Label label = 0;
  std::shared_ptr<const Json> body;
  // ServerModel::decode's view of `body` (null without a decoder). Not part
  // of the request's identity: it is a function of `body`.
  std::shared_ptr<const DecodedRequest> decoded = nullptr;
  const Json& json() const { return *body; }
  // The decoded view as the model's type, or null (no decoder, other type).
  template <typename T>
  const T* decoded_as() const {
    const DecodedRequest* d = decoded.get();
    if (!d) return nullptr;
    // (The exact type is the common case: a type comparison, not a search
    // of the class hierarchy; the model reads it at every step.)
    if (typeid(*d) == typeid(T)) return static_cast<const T*>(d);
    return dynamic_cast<const T*>(d);
  }
};

// The server's state at a `recv`, type-erased but hashable and comparable
// (for merging hypotheses) and printable (for explanations and the
// state-based generation heuristics of thesis §5.2.1).
class ModelState {
 public:
  // (The null state is held as no pointer: a default state, e.g. in every
  // event that is not a Recv, costs no reference count.)
  ModelState() = default;
  template <typename S>
  explicit ModelState(S state)
      : impl_(std::make_shared<const Model<S>>(std::move(state))) {}

  // Computed once, when the state is made: hypotheses are hashed often.
  std::size_t hash() const { return impl().hash_; }
  Json to_json() const { return impl().to_json(); }
  friend bool operator==(const ModelState& a, const ModelState& b) {
    const Concept &x = a.impl(), &y = b.impl();
    return &x == &y || (x.hash_ == y.hash_ && x.equals(y));
  }
  template <typename S>
  const S* get() const {
    // (Model<S> is final: its type is the whole test. A model reads its
    // state at every step.)
    const Concept& c = impl();
    return typeid(c) == typeid(Model<S>) ? &static_cast<const Model<S>&>(c).state
                                         : nullptr;
  }

 private:
  struct Concept {
    explicit Concept(std::size_t h) : hash_(h) {}
    virtual ~Concept() = default;
    virtual Json to_json() const = 0;
    virtual bool equals(const Concept& o) const = 0;
    const std::size_t hash_;
  };
  template <typename S>
  struct Model final : Concept {
    // (The base is initialized first, so `s` is hashed before it moves.)
    explicit Model(S s) : Concept(std::hash<S>{}(s)), state(std::move(s)) {}
    Json to_json() const override { return Json(state); }
    bool equals(const Concept& o) const override {
      return typeid(o) == typeid(Model<S>) &&
             static_cast<const Model<S>&>(o).state == state;
    }
    S state;
  };
  // The default (null) state, shared.
  static const std::shared_ptr<const Concept>& null_state() {
    static const std::shared_ptr<const Concept> null =
        std::make_shared<const Model<Json>>(Json(nullptr));
    return null;
  }
  const Concept& impl() const { return impl_ ? *impl_ : *null_state(); }
  std::shared_ptr<const Concept> impl_;  // null: the null state
};

class Tree;

// A protocol's server model. `partition`, when set, declares the model a
// product of independent per-partition servers (P-compositionality, e.g. one
// register per key): the oracle then checks each partition separately, which
// is exact for linearizability (Herlihy & Wing's locality) but forgets the
// FIFO order between requests of different partitions pipelined on one
// connection (more permissive: it can only miss bugs, never raise false alarms).
struct ServerModel {
  std::string name;
  std::function<Tree()> initial;
  std::function<std::optional<std::string>(const Json& request)> partition;
  // Optional: decodes a request once for all runs of the model on it
  // (Request::decoded); the model must behave the same without it.
  RequestDecoder decode = nullptr;
  // The theory the model's string matches are made in (theory.h); the
  // oracle's own solver reads strings in it. The Match nodes carry their
  // theory, so a shared solver made without it still decides them exactly.
  StringTheory strings = {};
  // Optional, with `partition`: a request whose effect may reach other
  // partitions (WebDAV's COPY writes its Destination, a DELETE of a
  // collection its members). The oracle gives such a request, wrapped as
  // {"foreign": request}, to every existing partition it reaches, with its
  // response, and starts every partition made later below a key it reached
  // from `unknown` (PartitionRouter).
  struct Reach {
    // Keys whose partition, or any partition below them (key + "/"), the
    // request may change; "" reaches every key that starts with "/".
    std::vector<std::string> changes;
    // Keys whose own partition the request may change, but nothing below
    // them (a PUT that makes its missing parent collections: nginx's
    // create_full_put_path).
    std::vector<std::string> touches;
    // Keys that may now have partitions below them (a collection made).
    std::vector<std::string> parents;
    // The request changes the partitions below its own key when that key
    // is, or is below, one of `parents` so far.
    bool own_subtree = false;
  };
  std::function<Reach(const Json& request)> reach = nullptr;
  // The tree of a partition whose state another partition's request may
  // have changed before its first request (required with `reach`).
  std::function<Tree()> unknown = nullptr;
};

}  // namespace dualfuzz::oracle
