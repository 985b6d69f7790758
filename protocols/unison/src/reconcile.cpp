#include "dualfuzz/unison/reconcile.h"

#include <set>

namespace dualfuzz::unison {
namespace {

std::set<std::string> child_names(const Sigma& s, const std::string& dir) {
  std::set<std::string> names;
  for (const FileTree* t : {&s.a, &s.b, &s.o})
    for (auto& n : t->children(dir)) names.insert(n);
  return names;
}

void walk(const Sigma& s, const std::string& dir, std::vector<SyncItem>& out) {
  for (const std::string& name : child_names(s, dir)) {
    const std::string p = join(dir, name);
    const auto sa = s.a.subtree(p), sb = s.b.subtree(p), so = s.o.subtree(p);
    const bool dirty_a = sa != so, dirty_b = sb != so;
    if (!dirty_a && !dirty_b) continue;
    if (dirty_a && !dirty_b) {
      out.push_back({SyncItem::Kind::AtoB, p});
      continue;
    }
    if (!dirty_a && dirty_b) {
      out.push_back({SyncItem::Kind::BtoA, p});
      continue;
    }
    if (sa == sb) {
      out.push_back({SyncItem::Kind::Equal, p});
      continue;
    }
    const Node* a = s.a.find(p);
    const Node* b = s.b.find(p);
    if (a && b && a->is_dir() && b->is_dir()) {
      const Node* o = s.o.find(p);
      const bool o_dir = o && o->is_dir();
      if (a->mode == b->mode)
        out.push_back({SyncItem::Kind::DirNode, p});
      else if (o_dir && o->mode == a->mode)
        out.push_back({SyncItem::Kind::PropsBtoA, p});
      else if (o_dir && o->mode == b->mode)
        out.push_back({SyncItem::Kind::PropsAtoB, p});
      else
        out.push_back({SyncItem::Kind::Conflict, p});
      walk(s, p, out);
      continue;
    }
    out.push_back({SyncItem::Kind::Conflict, p});
  }
}

void set_mode(FileTree& t, const std::string& p, const std::string& mode) {
  if (const Node* n = t.find(p)) {
    Node m = *n;
    m.mode = mode;
    t.put(p, std::move(m));
  }
}

}  // namespace

std::vector<SyncItem> reconcile(const Sigma& s) {
  std::vector<SyncItem> out;
  walk(s, "", out);
  return out;
}

void apply(Sigma& s, const SyncItem& i) {
  switch (i.kind) {
    case SyncItem::Kind::AtoB:
      s.b.copy_subtree(i.path, s.a);
      s.o.copy_subtree(i.path, s.a);
      break;
    case SyncItem::Kind::BtoA:
      s.a.copy_subtree(i.path, s.b);
      s.o.copy_subtree(i.path, s.b);
      break;
    case SyncItem::Kind::Equal:
      s.o.copy_subtree(i.path, s.a);
      break;
    case SyncItem::Kind::PropsAtoB:
      set_mode(s.b, i.path, s.a.find(i.path)->mode);
      s.o.put(i.path, *s.a.find(i.path));
      break;
    case SyncItem::Kind::PropsBtoA:
      set_mode(s.a, i.path, s.b.find(i.path)->mode);
      s.o.put(i.path, *s.b.find(i.path));
      break;
    case SyncItem::Kind::DirNode:
      s.o.put(i.path, *s.a.find(i.path));
      break;
    case SyncItem::Kind::Conflict:
      break;
  }
}

}  // namespace dualfuzz::unison
