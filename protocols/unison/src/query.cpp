#include "dualfuzz/unison/query.h"

namespace dualfuzz::unison {
namespace {
const std::string* text(const Json& ir, const char* name) {
  auto it = ir.find(name);
  return it != ir.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}
}  // namespace

Json failure(const std::string& why) { return Json{{"ok", false}, {"why", why}}; }

Result<Query> parse_query(const Json& ir) {
  if (!ir.is_object()) return make_error("not an object");
  const std::string* op = text(ir, "op");
  if (!op) return make_error("no op");
  Query q;
  static const std::pair<const char*, Query::Op> kOps[] = {
      {"write", Query::Op::Write}, {"mkdir", Query::Op::Mkdir}, {"rm", Query::Op::Rm},
      {"chmod", Query::Op::Chmod}, {"read", Query::Op::Read},   {"ls", Query::Op::Ls},
      {"sync", Query::Op::Sync}};
  bool known = false;
  for (const auto& [name, o] : kOps)
    if (*op == name) {
      q.op = o;
      known = true;
    }
  if (!known) return make_error("unknown op");
  if (q.op == Query::Op::Sync) return q;
  const std::string* replica = text(ir, "replica");
  if (!replica || (*replica != "A" && *replica != "B")) return make_error("bad replica");
  q.replica = *replica == "B" ? 1 : 0;
  const std::string* path = text(ir, "path");
  if (!path || !valid_path(*path, q.op == Query::Op::Ls)) return make_error("bad path");
  q.path = *path;
  if (q.op == Query::Op::Write) {
    const std::string* content = text(ir, "content");
    if (!content || content->size() > kMaxContent) return make_error("bad content");
    q.content = *content;
    auto st = ir.find("same_time");
    q.same_time = st != ir.end() && st->is_boolean() && st->get<bool>();
  }
  if (q.op == Query::Op::Chmod) {
    const std::string* mode = text(ir, "mode");
    if (!mode || !valid_mode(*mode)) return make_error("bad mode");
    q.mode = *mode;
  }
  return q;
}

Json apply_file_op(FileTree& t, const Query& q) {
  const Node* n = t.find(q.path);
  const bool parent_dir = t.is_dir(parent_of(q.path));
  switch (q.op) {
    case Query::Op::Write:
      if (!parent_dir) return failure("no parent directory");
      if (n && !n->is_file()) return failure("not a file");
      t.put(q.path, Node::file(q.content, n ? n->mode : "644"));
      return Json{{"ok", true}};
    case Query::Op::Mkdir:
      if (!parent_dir) return failure("no parent directory");
      if (n) return failure("exists");
      t.put(q.path, Node::dir());
      return Json{{"ok", true}};
    case Query::Op::Rm:
      if (!n) return failure("no such path");
      t.erase_subtree(q.path);
      return Json{{"ok", true}};
    case Query::Op::Chmod: {
      if (!n) return failure("no such path");
      Node changed = *n;
      changed.mode = q.mode;
      t.put(q.path, std::move(changed));
      return Json{{"ok", true}};
    }
    case Query::Op::Read:
      if (!n || !n->is_file()) return failure("not a file");
      return Json{{"ok", true}, {"content", n->content}};
    case Query::Op::Ls:
      if (!t.is_dir(q.path)) return failure("not a directory");
      return Json{{"ok", true}, {"names", t.children(q.path)}};
    case Query::Op::Sync:
      break;
  }
  return failure("not a file operation");
}

}  // namespace dualfuzz::unison
