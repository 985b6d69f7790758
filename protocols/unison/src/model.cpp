#include "dualfuzz/unison/model.h"

#include <functional>
#include <vector>

#include "dualfuzz/oracle/itree.h"
#include "dualfuzz/unison/query.h"
#include "dualfuzz/unison/reconcile.h"

namespace dualfuzz::unison {
// (ModelState: printable and hashable.)
void to_json(Json& j, const Sigma& s) {
  j = Json{{"A", s.a.to_json()}, {"B", s.b.to_json()}, {"O", s.o.to_json()}};
}
}  // namespace dualfuzz::unison

template <>
struct std::hash<dualfuzz::unison::Sigma> {
  std::size_t operator()(const dualfuzz::unison::Sigma& s) const {
    return s.a.hash() * 31 + s.b.hash() * 17 + s.o.hash();
  }
};

namespace dualfuzz::unison {
using namespace oracle;

namespace {

constexpr Clause kFileOp = "thesis Fig. 6.4 (file system)";
constexpr Clause kBadQuery = "thesis Fig. 6.5 (not a query: refused)";
constexpr Clause kSync = "thesis §6.2.1 (reconcile: Balasubramaniam & Pierce)";
constexpr Clause kPartial = "thesis §6.2.2 (loosened: exit 2 after any subset)";

Sym refused() { return Sym::object({{"ok", Sym::lit(false)}}); }

Sym answer_pattern(const Json& answer) {
  if (!answer.value("ok", false)) return refused();
  std::vector<std::pair<std::string, Sym>> fields;
  for (auto it = answer.begin(); it != answer.end(); ++it)
    fields.emplace_back(it.key(), Sym::lit(*it));
  return Sym::object(std::move(fields));
}

Sym sync_pattern(const Sigma& s, Sym exit) {
  static const Sym::Fields kShape = Sym::fields({"exit", "A", "B"});
  return Sym::object(kShape,
                     {std::move(exit), Sym::lit(s.a.to_json()), Sym::lit(s.b.to_json())});
}

Tree choose_all(std::vector<Tree>& ts, std::size_t lo, std::size_t hi) {
  if (hi - lo == 1) return ts[lo];
  const std::size_t mid = lo + (hi - lo) / 2;
  return choose(choose_all(ts, lo, mid), choose_all(ts, mid, hi));
}

Tree serve(const ModelState& state);

constexpr std::size_t kMaxOptional = 10;

// Any answer to anything from here on.
Tree unknown() {
  return recv(ModelState(Json("unknown")), [](const Request& r, const Tree& self) {
    return send(r.conn, Sym::object(std::vector<std::pair<std::string, Sym>>{}), self);
  });
}

Tree sync(ConnId conn, const Sigma& s) {
  const std::vector<SyncItem> items = reconcile(s);
  bool conflict = false;
  std::vector<const SyncItem*> optional;  // what a failed run may have left undone
  for (const SyncItem& i : items) {
    conflict = conflict || i.kind == SyncItem::Kind::Conflict;
    if (i.kind != SyncItem::Kind::Conflict) optional.push_back(&i);
  }
  // Outcome 1: the whole sync; outcome 2: exit 2 after any subset.
  struct Outcome {
    Sigma s;
    std::vector<int> exits;
  };
  std::vector<Outcome> outcomes;
  auto add = [&outcomes](Sigma t, int exit) {
    for (Outcome& o : outcomes)
      if (o.s == t) {
        o.exits.push_back(exit);
        return;
      }
    outcomes.push_back({std::move(t), {exit}});
  };
  Sigma full = s;
  for (const SyncItem& i : items) apply(full, i);
  add(std::move(full), conflict ? 1 : 0);
  std::vector<Tree> branches;
  if (optional.size() > kMaxOptional) {
    // Too many subsets to list: after an exit 2 the model no longer knows
    // the replicas and accepts whatever follows (never a false alarm).
    static const Sym::Fields kExit = Sym::fields({"exit"});
    branches.push_back(
        send(conn, Sym::object(kExit, {Sym::lit(2)}), unknown(), kPartial));
  } else {
    for (std::size_t mask = 0; mask < (std::size_t{1} << optional.size()); ++mask) {
      Sigma t = s;
      for (std::size_t k = 0; k < optional.size(); ++k)
        if (mask >> k & 1) apply(t, *optional[k]);
      add(std::move(t), 2);
    }
  }
  for (Outcome& o : outcomes) {
    std::vector<Sym> codes;
    for (int e : o.exits) codes.push_back(Sym::lit(e));
    const bool strict = o.exits.front() != 2;
    Sym exit = codes.size() == 1 ? codes.front() : Sym::alt(std::move(codes));
    Sym pattern = sync_pattern(o.s, std::move(exit));  // (before o.s moves)
    branches.push_back(send(conn, std::move(pattern), serve(ModelState(std::move(o.s))),
                            strict ? kSync : kPartial));
  }
  return choose_all(branches, 0, branches.size());
}

Tree serve(const ModelState& state) {
  return recv(state, [state](const Request& r, const Tree& self) -> Tree {
    auto q = parse_query(r.json());
    if (!q) return send(r.conn, refused(), self, kBadQuery);
    const Sigma& s = *state.get<Sigma>();
    if (q->op == Query::Op::Sync) return sync(r.conn, s);
    Sigma t = s;
    Sym answer = answer_pattern(apply_file_op(q->replica ? t.b : t.a, *q));
    if (t == s) return send(r.conn, std::move(answer), self, kFileOp);
    return send(r.conn, std::move(answer), serve(ModelState(std::move(t))), kFileOp);
  });
}

}  // namespace

ServerModel server_model() {
  return ServerModel{"unison", [] { return serve(ModelState(Sigma{})); }, nullptr};
}

}  // namespace dualfuzz::unison
