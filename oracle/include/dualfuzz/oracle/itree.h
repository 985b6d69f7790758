// Interaction trees (thesis §4.1): a server model as a persistent value,
//   Tree = Ret(value) | Vis(event, k),   k : answer -> Tree.
// Because trees are values, the oracle forks a hypothesis at a
// nondeterministic branch by calling `k` again; nothing is re-run.
//
//   Tree serve(Counter s) {
//     return recv(ModelState(s), [s](const Request& q) {
//       return choose(send(q.conn, Sym::lit(s.n), serve(s)),        // or: either
//                     fresh(Sort::Int, "n", [q, s](Sym n) {         // an unknown
//                       return send(q.conn, n, serve(s));
//                     }));
//     });
//   }
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>

#include "dualfuzz/oracle/reason.h"
#include "dualfuzz/oracle/server_model.h"
#include "dualfuzz/oracle/symbolic.h"

namespace dualfuzz::oracle {

// The server model's events (thesis Fig. 4.5's qaE ⊕ nondetE ⊕ choiceE ⊕ branchE).
enum class EventKind : std::uint8_t {
  Recv,     // receive a request (answer: Request); carries the model state
  Send,     // send a symbolic response on a connection (answer: none)
  Fresh,    // an internal choice: a new symbolic variable (answer: Sym)
  Decide,   // IFX: branch on a symbolic condition (answer: bool)
  Or,       // a free nondeterministic branch (answer: bool)
  Assume,   // a fact about hidden choices (e.g. a new version differs from the
            // old one); explanations where it cannot hold die (answer: none)
  Resolve,  // a term as this explanation knows it: its bound variables
            // replaced by their values (answer: Sym)
};

struct ServerEvent {
  EventKind kind;
  ModelState state;        // Recv
  ConnId conn = 0;         // Send
  Sym sym;                 // Send: the response pattern; Decide: the condition
  Sort sort = Sort::Json;  // Fresh
  // Fresh: a name for explanations ("version"), static text as a clause is
  // (a std::string here cost every node, of every kind, its construction).
  const char* hint = nullptr;
  Clause clause = nullptr;  // Send: the specification clause it implements
};

// A request answered by reference: the oracle steps a model with a request
// it keeps (in the network) in every hypothesis, so the answer need not copy
// it (a Request's copy counts two references).
struct RequestRef {
  const Request* request;
};
using Answer = std::variant<std::monostate, Request, Sym, bool, RequestRef>;
// The request a Recv's answer carries (by value or by reference).
inline const Request& answered_request(const Answer& a) {
  if (const RequestRef* r = std::get_if<RequestRef>(&a)) return *r->request;
  return std::get<Request>(a);
}

class Tree {
 public:
  Tree();  // Ret(null)

  static Tree ret(Sym value);
  // `k`: any callable Tree(const Answer&); it is stored in the node itself
  // (one allocation per node: the oracle builds a node per model step).
  template <class K>
  static Tree vis(ServerEvent event, K k) {
    return Tree(std::make_shared<const Vis<K>>(std::move(event), std::move(k)));
  }

  bool is_ret() const { return node_->is_ret; }
  const Sym& ret_value() const { return node_->event.sym; }  // (Ret: its value)
  const ServerEvent& event() const { return node_->event; }
  Tree step(const Answer& a) const { return node_->step(a, *this); }
  // A Recv's step with `r`, which must outlive the call (not copied).
  Tree step(const Request& r) const { return node_->step(Answer(RequestRef{&r}), *this); }

 private:
  struct Node {
    explicit Node(Sym v)
        : is_ret(true), event{EventKind::Or, {}, 0,      std::move(v),
                              Sort::Json,    {}, nullptr} {}
    explicit Node(ServerEvent e) : is_ret(false), event(std::move(e)) {}
    virtual ~Node() = default;
    // `self`: the tree this node is (for continuations that go back to it).
    virtual Tree step(const Answer&, const Tree& self) const;  // (Ret: none)
    bool is_ret = true;
    // (A Ret node keeps its value in event.sym: one Sym fewer to make and
    // release per node, and the oracle makes a node per model step.)
    ServerEvent event{EventKind::Or, {}, 0, {}, Sort::Json, {}, nullptr};
  };
  template <class K>
  struct Vis final : Node {
    Vis(ServerEvent e, K c) : Node(std::move(e)), k(std::move(c)) {}
    Tree step(const Answer& a, const Tree& self) const override {
      if constexpr (std::is_invocable_v<const K&, const Answer&, const Tree&>)
        return k(a, self);
      else
        return k(a);
    }
    K k;
  };
  explicit Tree(std::shared_ptr<const Node> n) : node_(std::move(n)) {}
  std::shared_ptr<const Node> node_;
};

// Monadic bind: run `t`, then continue with its returned value.
Tree bind(const Tree& t, std::function<Tree(const Sym&)> f);

// Spec-writer combinators.
Tree ret(Sym value = Sym());
// (recv, fresh and decide take any callable: it becomes the node's
// continuation as it is, without a second std::function around it.)
// `k`: Tree(const Request&), or Tree(const Request&, const Tree& self),
// where `self` is this very recv tree: an answer that leaves the state as
// it was continues with `self` instead of building the same tree again.
template <class K>
Tree recv(ModelState state, K k) {
  ServerEvent e{EventKind::Recv, std::move(state), 0, {}, Sort::Json, {}, nullptr};
  if constexpr (std::is_invocable_v<const K&, const Request&, const Tree&>)
    return Tree::vis(std::move(e),
                     [k = std::move(k)](const Answer& a, const Tree& self) -> Tree {
                       return k(answered_request(a), self);
                     });
  else
    return Tree::vis(std::move(e), [k = std::move(k)](const Answer& a) -> Tree {
      return k(answered_request(a));
    });
}
// `clause` (static text, may be null): the specification clause this answer
// implements, named in the reason of an explanation that dies on it.
Tree send(ConnId conn, Sym response, Tree next, Clause clause = nullptr);
template <class K>  // Tree(const Sym&); `hint`: static text
Tree fresh(Sort sort, const char* hint, K k) {
  ServerEvent e{EventKind::Fresh, {}, 0, {}, sort, hint, nullptr};
  return Tree::vis(std::move(e), [k = std::move(k)](const Answer& a) -> Tree {
    return k(std::get<Sym>(a));
  });
}
template <class K>  // Tree(bool)
Tree decide(Sym cond, K k) {
  // A concrete condition is an ordinary `if`: no branch for the oracle.
  if (cond.is_true()) return k(true);
  if (cond.is_false()) return k(false);
  ServerEvent e{EventKind::Decide, {}, 0, std::move(cond), Sort::Bool, {}, nullptr};
  return Tree::vis(std::move(e), [k = std::move(k)](const Answer& a) -> Tree {
    return k(std::get<bool>(a));
  });
}
// `k(v)`, where `v` is `term` with each variable the explanation has bound
// (an earlier answer showed its value) replaced by that value: what the
// model may read of a hidden choice once it was shown, e.g. the bytes of a
// representation it saw, to slice them. No branch: every explanation gets
// its own reading. A constant term is passed as it is.
//   resolve(content, [](const Sym& c) { return c.is_const() ? known(c) : open(); })
template <class K>  // Tree(const Sym&)
Tree resolve(Sym term, K k) {
  if (term.is_const()) return k(term);
  ServerEvent e{EventKind::Resolve, {}, 0, std::move(term), Sort::Json, {}, nullptr};
  return Tree::vis(std::move(e), [k = std::move(k)](const Answer& a) -> Tree {
    return k(std::get<Sym>(a));
  });
}
// IFX cond THEN a ELSE b, with both branches built lazily (`then_` and
// `else_` are callables returning a Tree). A concrete condition is an
// ordinary `if`: the branch is built at once, no continuation allocated.
template <class Then, class Else>
Tree ifx(Sym cond, Then then_, Else else_) {
  if (cond.is_true()) return then_();
  if (cond.is_false()) return else_();
  return decide(std::move(cond),
                [then_ = std::move(then_), else_ = std::move(else_)](bool b) -> Tree {
                  return b ? then_() : else_();
                });
}
// or: behaves as either tree.
Tree choose(Tree a, Tree b);
// Continue as `next` under the assumption `cond` (a property the server
// guarantees about its own choices, such as version strings being unique).
Tree assume(Sym cond, Tree next);

}  // namespace dualfuzz::oracle
