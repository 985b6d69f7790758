#include "dualfuzz/unison/file_tree.h"

#include <functional>

namespace dualfuzz::unison {

const Node* FileTree::find(const std::string& path) const {
  auto it = nodes_.find(path);
  return it == nodes_.end() ? nullptr : &it->second;
}

bool FileTree::is_dir(const std::string& path) const {
  if (path.empty()) return true;
  const Node* n = find(path);
  return n && n->is_dir();
}

// The paths below `path` follow it in the map's order: "a" < "a/..." and
// every "a/x" sorts before "a0" ('/' < '0'), but "a-b" sorts between them,
// so each candidate is checked with within().
void FileTree::erase_subtree(const std::string& path) {
  if (path.empty()) {
    nodes_.clear();
    return;
  }
  for (auto it = nodes_.lower_bound(path); it != nodes_.end();) {
    if (it->first.compare(0, path.size(), path) != 0) break;
    if (within(it->first, path))
      it = nodes_.erase(it);
    else
      ++it;
  }
}

FileTree::Map FileTree::subtree(const std::string& path) const {
  if (path.empty()) return nodes_;
  Map out;
  for (auto it = nodes_.lower_bound(path); it != nodes_.end(); ++it) {
    if (it->first.compare(0, path.size(), path) != 0) break;
    if (within(it->first, path)) out.insert(*it);
  }
  return out;
}

void FileTree::copy_subtree(const std::string& path, const FileTree& from) {
  erase_subtree(path);
  for (auto& [p, n] : from.subtree(path)) nodes_[p] = n;
}

std::vector<std::string> FileTree::children(const std::string& path) const {
  std::vector<std::string> out;
  for (const auto& [p, n] : nodes_)
    if (!p.empty() && parent_of(p) == path)
      out.push_back(p.substr(path.empty() ? 0 : path.size() + 1));
  return out;
}

Json FileTree::to_json() const {
  Json j = Json::object();
  for (const auto& [p, n] : nodes_) j[p] = node_json(n);
  return j;
}

std::size_t FileTree::hash() const {
  std::size_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](const std::string& s) {
    h ^= std::hash<std::string>{}(s) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  };
  for (const auto& [p, n] : nodes_) {
    mix(p);
    mix(n.content);
    mix(n.mode);
    mix(std::string(1, static_cast<char>('0' + static_cast<int>(n.kind))));
  }
  return h;
}

std::string parent_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string join(const std::string& parent, const std::string& name) {
  return parent.empty() ? name : parent + "/" + name;
}

bool within(const std::string& path, const std::string& ancestor) {
  if (ancestor.empty()) return true;
  return path.size() >= ancestor.size() &&
         path.compare(0, ancestor.size(), ancestor) == 0 &&
         (path.size() == ancestor.size() || path[ancestor.size()] == '/');
}

bool valid_path(std::string_view path, bool root_ok) {
  if (path.empty()) return root_ok;
  std::size_t depth = 0;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = path.find('/', start);
    const std::string_view part = path.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty() || part.size() > 8) return false;
    for (char c : part)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    if (++depth > kMaxDepth) return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

bool valid_mode(std::string_view mode) {
  if (mode.size() != 3) return false;
  for (char c : mode)
    if (c < '0' || c > '7') return false;
  return true;
}

Json node_json(const Node& n) {
  switch (n.kind) {
    case Node::Kind::File:
      return Json{{"type", "file"}, {"content", n.content}, {"mode", n.mode}};
    case Node::Kind::Dir:
      return Json{{"type", "dir"}, {"mode", n.mode}};
    default:
      return Json{{"type", "other"}, {"mode", n.mode}};
  }
}

}  // namespace dualfuzz::unison
