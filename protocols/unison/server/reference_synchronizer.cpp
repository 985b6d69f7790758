#include "dualfuzz/unison/reference_synchronizer.h"

#include <set>
#include <stdexcept>

namespace dualfuzz::unison {

const std::vector<PlantedBug>& ReferenceSynchronizer::planted_bugs() {
  static const std::vector<PlantedBug> bugs = {
      {"conflict-a-wins", "a write/write conflict is resolved by copying A over B"},
      {"delete-wins", "a delete/write conflict propagates the deletion"},
      {"lost-deletion", "a deleted file is not deleted in the other replica"},
      {"exit-zero-on-conflict", "exit code 0 although conflicts were left"},
      {"ignore-mode", "a file whose mode alone changed is not seen as changed"},
      {"mode-reset", "a copied file arrives with mode 644"},
      {"shallow-dir-copy", "a new directory is copied without its contents"},
      {"archive-a-on-conflict",
       "a conflict records A's version as consensus, so the next sync overwrites A"},
      {"false-conflict", "the same change on both sides is reported as a conflict"},
      {"wrong-direction", "a file changed only in B is overwritten with A's version"},
  };
  return bugs;
}

ReferenceSynchronizer::ReferenceSynchronizer(std::string bug) : bug_(std::move(bug)) {
  if (bug_.empty()) return;
  for (const PlantedBug& b : planted_bugs())
    if (b.name == bug_) return;
  std::string names;
  for (const PlantedBug& b : planted_bugs())
    names += (names.empty() ? "" : ", ") + b.name;
  throw std::invalid_argument("unknown planted bug '" + bug_ + "' (planted: " + names +
                              ")");
}

// Copies the subtree at `p` (a file's bugs act here), and records it.
void ReferenceSynchronizer::copy(const std::string& p, const FileTree& from,
                                 FileTree& to) {
  const Node* n = from.find(p);
  if (!n && bug("lost-deletion") && to.find(p) && to.find(p)->is_file()) {
    archive_.erase_subtree(p);  // (recorded as deleted, but not deleted)
    return;
  }
  if (n && n->is_dir() && bug("shallow-dir-copy") && !to.find(p)) {
    to.put(p, *n);
    archive_.erase_subtree(p);
    archive_.put(p, *n);
    return;
  }
  to.copy_subtree(p, from);
  if (bug("mode-reset"))
    for (const auto& [q, m] : from.subtree(p))
      if (m.is_file()) to.put(q, Node::file(m.content, "644"));
  archive_.copy_subtree(p, from);
}

void ReferenceSynchronizer::sync_dir(const std::string& dir, FileTree& a, FileTree& b,
                                     int& conflicts) {
  std::set<std::string> names;
  for (const FileTree* t : {&a, &b, &archive_})
    for (auto& n : t->children(dir)) names.insert(join(dir, n));
  for (const std::string& p : names) {
    auto same = [this](const FileTree::Map& x, const FileTree::Map& y) {
      if (!bug("ignore-mode")) return x == y;
      if (x.size() != y.size()) return false;
      for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j)
        if (i->first != j->first || i->second.kind != j->second.kind ||
            i->second.content != j->second.content)
          return false;
      return true;
    };
    const auto sa = a.subtree(p), sb = b.subtree(p), so = archive_.subtree(p);
    const bool changed_a = !same(sa, so), changed_b = !same(sb, so);
    if (!changed_a && !changed_b) continue;
    if (changed_a && !changed_b) {
      copy(p, a, b);
      continue;
    }
    if (!changed_a) {
      const Node* n = b.find(p);
      if (bug("wrong-direction") && n && n->is_file() && a.find(p)) {
        copy(p, a, b);
        continue;
      }
      copy(p, b, a);
      continue;
    }
    // Changed on both sides.
    if (sa == sb) {
      if (bug("false-conflict")) {
        ++conflicts;
        continue;
      }
      archive_.copy_subtree(p, a);
      continue;
    }
    const Node* na = a.find(p);
    const Node* nb = b.find(p);
    if (na && nb && na->is_dir() && nb->is_dir()) {
      const Node* no = archive_.find(p);
      const bool was_dir = no && no->is_dir();
      Node merged = *na;
      if (na->mode == nb->mode) {
        archive_.put(p, merged);
      } else if (was_dir && no->mode == na->mode) {
        merged.mode = nb->mode;
        a.put(p, merged);
        archive_.put(p, merged);
      } else if (was_dir && no->mode == nb->mode) {
        b.put(p, merged);
        archive_.put(p, merged);
      } else {
        ++conflicts;
      }
      sync_dir(p, a, b, conflicts);
      continue;
    }
    // A conflict: both sides keep their version.
    ++conflicts;
    const bool deletion = !na || !nb;
    if (bug("conflict-a-wins") && na && nb && na->is_file() && nb->is_file()) {
      b.copy_subtree(p, a);
    } else if (bug("delete-wins") && deletion) {
      a.erase_subtree(p);
      b.erase_subtree(p);
      archive_.erase_subtree(p);
    } else if (bug("archive-a-on-conflict")) {
      archive_.copy_subtree(p, a);
    }
  }
}

SyncOutcome ReferenceSynchronizer::sync(Replica& ra, Replica& rb) {
  FileTree a = ra.snapshot(), b = rb.snapshot();
  int conflicts = 0;
  sync_dir("", a, b, conflicts);
  ra.assign(a);
  rb.assign(b);
  SyncOutcome o;
  o.exit = conflicts && !bug("exit-zero-on-conflict") ? 1 : 0;
  if (conflicts) o.log = std::to_string(conflicts) + " conflict(s) skipped";
  return o;
}

}  // namespace dualfuzz::unison
