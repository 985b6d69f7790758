#include "dualfuzz/unison/model.h"

#include <functional>
#include <set>
#include <vector>

#include "dualfuzz/oracle/itree.h"
#include "dualfuzz/unison/query.h"
#include "dualfuzz/unison/reconcile.h"

namespace dualfuzz::unison {
// (ModelState: printable and hashable.)
void to_json(Json& j, const Sigma& s) {
  j = Json{{"A", s.a.to_json()}, {"B", s.b.to_json()}, {"O", s.o.to_json()}};
  if (!s.stealthy[0].empty() || !s.stealthy[1].empty())
    j["stealthy"] = Json{{"A", s.stealthy[0]}, {"B", s.stealthy[1]}};
  if (!s.touched[0].empty() || !s.touched[1].empty())
    j["touched"] = Json{{"A", s.touched[0]}, {"B", s.touched[1]}};
}
}  // namespace dualfuzz::unison

template <>
struct std::hash<dualfuzz::unison::Sigma> {
  std::size_t operator()(const dualfuzz::unison::Sigma& s) const {
    std::size_t h = s.a.hash() * 31 + s.b.hash() * 17 + s.o.hash();
    for (const auto& st : s.stealthy)
      for (const auto& [p, c] : st) h = h * 131 + std::hash<std::string>{}(p + "\n" + c);
    for (const auto& t : s.touched)
      for (const auto& p : t) h = h * 137 + std::hash<std::string>{}(p);
    return h;
  }
};

namespace dualfuzz::unison {
using namespace oracle;

namespace {

constexpr Clause kFileOp = "thesis Fig. 6.4 (file system)";
constexpr Clause kBadQuery = "thesis Fig. 6.5 (not a query: refused)";
constexpr Clause kSync = "thesis §6.2.1 (reconcile: Balasubramaniam & Pierce)";
constexpr Clause kPartial = "thesis §6.2.2 (loosened: exit 2 after any subset)";
constexpr Clause kFastcheck =
    "Unison manual, fastcheck: may miss an update that keeps time and length";

Sym refused() { return Sym::object({{"ok", Sym::lit(false)}}); }

Sym answer_pattern(const Json& answer) {
  if (!answer.value("ok", false)) return refused();
  std::vector<std::pair<std::string, Sym>> fields;
  for (auto it = answer.begin(); it != answer.end(); ++it)
    fields.emplace_back(it.key(), Sym::lit(*it));
  return Sym::object(std::move(fields));
}

// `fastcheck`: the answer must say the synchronizer checked by time and size.
Sym sync_pattern(const Sigma& s, Sym exit, bool fastcheck) {
  static const Sym::Fields kShape = Sym::fields({"exit", "A", "B"});
  static const Sym::Fields kFast = Sym::fields({"exit", "A", "B", "fastcheck"});
  if (fastcheck)
    return Sym::object(kFast, {std::move(exit), Sym::lit(s.a.to_json()),
                               Sym::lit(s.b.to_json()), Sym::lit(true)});
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

FileTree& replica(Sigma& s, int r) { return r ? s.b : s.a; }
const FileTree& replica(const Sigma& s, int r) { return r ? s.b : s.a; }

// The replica a transfer writes to (-1: none).
int destination(const SyncItem& i) {
  switch (i.kind) {
    case SyncItem::Kind::AtoB:
    case SyncItem::Kind::PropsAtoB:
      return 1;
    case SyncItem::Kind::BtoA:
    case SyncItem::Kind::PropsBtoA:
      return 0;
    default:
      return -1;
  }
}

constexpr std::size_t kMaxStealthy = 4;

// `s` as a synchronizer that misses the changes in `unseen` sees it: those
// files with the content the last sync scanned (and their current mode).
Sigma view_of(const Sigma& s, const std::vector<std::pair<int, std::string>>& unseen) {
  Sigma view = s;
  for (const auto& [r, p] : unseen) {
    Node n = *replica(s, r).find(p);
    n.content = s.stealthy[r].at(p);
    replica(view, r).put(p, std::move(n));
  }
  return view;
}

// Does item `i` write the bytes of the file `p` of replica `r`? A
// subtree's transfer writes only the files whose source differs from what
// the synchronizer believes the destination holds (`view`): Unison
// propagates path by path, copies no file both sides agree on (a new a/b
// from B leaves A's a/a alone, seen or not), and where only the mode
// differs it sets the mode alone. A directory's mode writes no file.
bool writes_onto(const Sigma& view, const SyncItem& i, int r, const std::string& p) {
  if (destination(i) != r || !within(p, i.path)) return false;
  if (i.kind == SyncItem::Kind::PropsAtoB || i.kind == SyncItem::Kind::PropsBtoA)
    return p == i.path;
  const Node* from = replica(view, 1 - r).find(p);
  const Node* onto = replica(view, r).find(p);
  return !(from && onto && from->kind == onto->kind && from->content == onto->content);
}

// The files of `s` a check by time and size may miss (pairs replica,
// path): rewritten since the last scan keeping their time stamp, now of
// the scanned size but other bytes (Sigma::stealthy).
std::vector<std::pair<int, std::string>> stealthy_files(const Sigma& s) {
  std::vector<std::pair<int, std::string>> out;
  for (int r : {0, 1})
    for (const auto& [p, scanned] : s.stealthy[r]) {
      const Node* now = replica(s, r).find(p);
      if (now && now->is_file() && now->content.size() == scanned.size() &&
          now->content != scanned)
        out.emplace_back(r, p);
    }
  return out;
}

struct Outcome {
  Sigma s;
  std::vector<int> exits;
  bool fastcheck;  // the synchronizer must say it checked by time and size
};

// The outcomes of a sync that does not see the changes in `unseen` (pairs
// replica, path of s.stealthy): it reconciles a view in which those files
// are as O recorded them; a transfer onto an unseen change fails (Unison
// checks the destination just before it writes: exit 2).
void outcomes_for(const Sigma& s, const std::vector<std::pair<int, std::string>>& unseen,
                  std::vector<Outcome>& out, bool subsets) {
  const Sigma view = view_of(s, unseen);
  const std::vector<SyncItem> items = reconcile(view);
  bool conflict = false, blocked = false;
  std::vector<const SyncItem*> optional;  // what a failed run may have left undone
  for (const SyncItem& i : items) {
    conflict = conflict || i.kind == SyncItem::Kind::Conflict;
    if (i.kind == SyncItem::Kind::Conflict) continue;
    bool onto_unseen = false;
    for (const auto& [r, p] : unseen)
      onto_unseen = onto_unseen || writes_onto(view, i, r, p);
    blocked = blocked || onto_unseen;
    if (!onto_unseen) optional.push_back(&i);
  }
  const std::size_t first = out.size();
  // The real replicas after applying some items to the view: an unseen
  // file keeps its bytes (no item wrote them) and takes any mode set.
  auto finish = [&](Sigma t) {
    for (const auto& [r, p] : unseen) {
      Node n = *replica(s, r).find(p);
      if (const Node* now = replica(t, r).find(p)) n.mode = now->mode;
      replica(t, r).put(p, std::move(n));
    }
    // Still unseen: what this sync did not see (the archive keeps the
    // bytes it believes, whatever mode it set).
    for (int r : {0, 1}) {
      t.stealthy[r].clear();
      t.touched[r].clear();
    }
    for (const auto& [r, p] : unseen) t.stealthy[r][p] = s.stealthy[r].at(p);
    return t;
  };
  auto add = [&](Sigma t, int exit) {
    for (std::size_t k = first; k < out.size(); ++k)
      if (out[k].s == t) {
        out[k].exits.push_back(exit);
        return;
      }
    out.push_back({std::move(t), {exit}, !unseen.empty()});
  };
  if (!blocked) {
    Sigma full = view;
    for (const SyncItem& i : items) apply(full, i);
    add(finish(std::move(full)), conflict ? 1 : 0);
  }
  if (!subsets) return;
  for (std::size_t mask = 0; mask < (std::size_t{1} << optional.size()); ++mask) {
    Sigma t = view;
    for (std::size_t k = 0; k < optional.size(); ++k)
      if (mask >> k & 1) apply(t, *optional[k]);
    add(finish(std::move(t)), 2);
  }
}

Tree sync(ConnId conn, const Sigma& s) {
  const std::vector<std::pair<int, std::string>> stealthy = stealthy_files(s);
  std::vector<Tree> branches;
  std::vector<Outcome> outcomes;
  // Too many subsets to list: after an exit 2 (or a sync that may have
  // missed changes) the model no longer knows the replicas and accepts
  // whatever follows (never a false alarm).
  bool give_up = stealthy.size() > kMaxStealthy;
  if (give_up) {
    static const Sym::Fields kFast = Sym::fields({"fastcheck"});
    branches.push_back(
        send(conn, Sym::object(kFast, {Sym::lit(true)}), unknown(), kFastcheck));
  }
  const std::size_t subsets = give_up ? 1 : std::size_t{1} << stealthy.size();
  for (std::size_t mask = 0; mask < subsets; ++mask) {
    std::vector<std::pair<int, std::string>> unseen;
    for (std::size_t k = 0; k < stealthy.size(); ++k)
      if (mask >> k & 1) unseen.push_back(stealthy[k]);
    // Too many items to list the subsets a failed run may leave: after such
    // a run (exit 2), or one that may have missed changes, the model no
    // longer knows the replicas and accepts whatever follows.
    const bool many = reconcile(view_of(s, unseen)).size() > kMaxOptional;
    if (many) {
      static const Sym::Fields kExit = Sym::fields({"exit"});
      static const Sym::Fields kFast = Sym::fields({"fastcheck"});
      branches.push_back(
          unseen.empty()
              ? send(conn, Sym::object(kExit, {Sym::lit(2)}), unknown(), kPartial)
              : send(conn, Sym::object(kFast, {Sym::lit(true)}), unknown(), kFastcheck));
      if (!unseen.empty()) continue;
    }
    outcomes_for(s, unseen, outcomes, /*subsets=*/!many);
  }
  for (Outcome& o : outcomes) {
    std::vector<Sym> codes;
    for (int e : o.exits) codes.push_back(Sym::lit(e));
    const Clause clause = o.fastcheck            ? kFastcheck
                          : o.exits.front() != 2 ? kSync
                                                 : kPartial;
    Sym exit = codes.size() == 1 ? codes.front() : Sym::alt(std::move(codes));
    Sym pattern = sync_pattern(o.s, std::move(exit), o.fastcheck);  // (before o.s moves)
    branches.push_back(
        send(conn, std::move(pattern), serve(ModelState(std::move(o.s))), clause));
  }
  return choose_all(branches, 0, branches.size());
}

// What a file operation leaves a check by time and size unable to see in
// its replica: a file the last sync scanned and nothing stamped anew since,
// rewritten keeping its time (`same_time`), with the bytes that sync saw
// (Sigma::stealthy). The size alone then tells, so the rewrite stays
// unseen while the size is the scanned one, which a later such rewrite may
// bring back (stealthy_files). Any other write stamps the file anew; a
// mode change leaves its stamp alone.
void track_stealth(const Sigma& before, Sigma& after, const Query& q) {
  auto& st = after.stealthy[q.replica];
  auto& touched = after.touched[q.replica];
  const Node* old = replica(before, q.replica).find(q.path);
  switch (q.op) {
    case Query::Op::Write: {
      if (!q.same_time || !old || !old->is_file() || touched.count(q.path)) {
        st.erase(q.path);
        touched.insert(q.path);  // a new stamp: seen
      } else if (!st.count(q.path)) {
        st[q.path] = old->content;  // (unchanged since the scan: what it saw)
      }
      break;
    }
    case Query::Op::Rm:
    case Query::Op::Mkdir:
      std::erase_if(st, [&q](const auto& e) { return within(e.first, q.path); });
      touched.insert(q.path);
      break;
    default:
      break;
  }
}

Tree serve(const ModelState& state) {
  return recv(state, [state](const Request& r, const Tree& self) -> Tree {
    auto q = parse_query(r.json());
    if (!q) return send(r.conn, refused(), self, kBadQuery);
    const Sigma& s = *state.get<Sigma>();
    if (q->op == Query::Op::Sync) return sync(r.conn, s);
    Sigma t = s;
    const Json result = apply_file_op(q->replica ? t.b : t.a, *q);
    if (result.value("ok", false)) track_stealth(s, t, *q);
    Sym answer = answer_pattern(result);
    if (t == s) return send(r.conn, std::move(answer), self, kFileOp);
    return send(r.conn, std::move(answer), serve(ModelState(std::move(t))), kFileOp);
  });
}

}  // namespace

ServerModel server_model() {
  return ServerModel{"unison", [] { return serve(ModelState(Sigma{})); }, nullptr};
}

}  // namespace dualfuzz::unison
