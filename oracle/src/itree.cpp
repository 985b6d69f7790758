#include "dualfuzz/oracle/itree.h"

#include <stdexcept>

namespace dualfuzz::oracle {

Tree::Tree() {
  // (Per thread, as Sym's constants: every hypothesis starts with one.)
  static thread_local const std::shared_ptr<const Node> null_ret = ret(Sym()).node_;
  node_ = null_ret;
}

Tree Tree::ret(Sym value) { return Tree(std::make_shared<const Node>(std::move(value))); }

Tree Tree::Node::step(const Answer&, const Tree&) const {
  throw std::logic_error("Tree::step on a Ret node: the model has stopped");
}

Tree bind(const Tree& t, std::function<Tree(const Sym&)> f) {
  if (t.is_ret()) return f(t.ret_value());
  return Tree::vis(t.event(), [t, f = std::move(f)](const Answer& a) -> Tree {
    return oracle::bind(t.step(a), f);  // qualified: ADL would find std::bind
  });
}

Tree ret(Sym value) { return Tree::ret(std::move(value)); }

Tree send(ConnId conn, Sym response, Tree next, Clause clause) {
  ServerEvent e{EventKind::Send, {}, conn, std::move(response), Sort::Json, {}, clause};
  return Tree::vis(std::move(e),
                   [next = std::move(next)](const Answer&) { return next; });
}

Tree choose(Tree a, Tree b) {
  ServerEvent e{EventKind::Or, {}, 0, {}, Sort::Bool, {}, nullptr};
  return Tree::vis(std::move(e), [a = std::move(a), b = std::move(b)](const Answer& x) {
    return std::get<bool>(x) ? a : b;
  });
}

Tree assume(Sym cond, Tree next) {
  if (cond.is_true()) return next;
  ServerEvent e{EventKind::Assume, {}, 0, std::move(cond), Sort::Bool, {}, nullptr};
  return Tree::vis(std::move(e),
                   [next = std::move(next)](const Answer&) { return next; });
}

}  // namespace dualfuzz::oracle
