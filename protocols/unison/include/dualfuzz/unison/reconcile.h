// Reconciliation (Balasubramaniam & Pierce, "What is a file synchronizer?";
// thesis §6.2.1): σ = (A, B, O), two replicas and their last consensus O.
// A path is dirty in a replica when its subtree differs from O's. Top-down:
// a path dirty in one replica only is propagated (its whole subtree) to the
// other; dirty in both: equal subtrees are merely recorded, two directories
// are reconciled node (mode) by node and child by child, anything else is a
// conflict, left untouched in both replicas (and in O).
//
//   Sigma s{a, b, o};
//   for (const SyncItem& i : reconcile(s)) apply(s, i);   // the full sync
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "dualfuzz/unison/file_tree.h"

namespace dualfuzz::unison {

struct Sigma {
  FileTree a, b, o;
  // Per replica (0: A, 1: B), files rewritten since the last sync scanned
  // them by writes that kept their modification time (`same_time`), each
  // with the content that sync saw: a check by time and size (Unison's
  // fastcheck) may still believe that content while the size is the
  // scanned one.
  std::map<std::string, std::string> stealthy[2];
  // Per replica, paths written, made or removed since the last sync (their
  // time stamps are new).
  std::set<std::string> touched[2];
  friend bool operator==(const Sigma&, const Sigma&) = default;
};

struct SyncItem {
  enum class Kind {
    AtoB,       // copy A's subtree at `path` to B (O records it)
    BtoA,       // and back
    PropsAtoB,  // a directory's mode only
    PropsBtoA,
    Equal,     // the same change on both sides: O records it
    DirNode,   // a directory both sides keep alike: O records the node
    Conflict,  // left alone
  };
  Kind kind;
  std::string path;
  // A transfer: something one replica must receive.
  bool transfer() const {
    return kind == Kind::AtoB || kind == Kind::BtoA || kind == Kind::PropsAtoB ||
           kind == Kind::PropsBtoA;
  }
  friend bool operator==(const SyncItem&, const SyncItem&) = default;
};

std::vector<SyncItem> reconcile(const Sigma& s);
// One item's effect on σ (items of one reconcile() touch disjoint parts, so
// any subset applies in any order).
void apply(Sigma& s, const SyncItem& item);

}  // namespace dualfuzz::unison
