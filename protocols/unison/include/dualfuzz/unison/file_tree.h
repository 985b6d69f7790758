// A replica's file system as a value (thesis Fig. 6.4, plus permission
// bits): a flat map from a path ("a", "a/b") to its node, a file (content,
// mode) or a directory (mode). The root "" is an implicit directory. Shared
// by the model, the reference synchronizer and the harness (which reads a
// real directory into one to report what a sync left behind).
//
//   FileTree t;
//   t.put("a", Node::dir());  t.put("a/b", Node::file("x"));
//   t.subtree("a") == other.subtree("a");  t.to_json();
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dualfuzz::unison {

using Json = nlohmann::json;

struct Node {
  enum class Kind {
    File,
    Dir,
    Other
  };  // Other: a symlink, fifo... (never made by the tester)
  Kind kind = Kind::File;
  std::string content;  // File
  std::string mode;     // three octal digits, "644"
  static Node file(std::string content, std::string mode = "644") {
    return {Kind::File, std::move(content), std::move(mode)};
  }
  static Node dir(std::string mode = "755") { return {Kind::Dir, {}, std::move(mode)}; }
  bool is_dir() const { return kind == Kind::Dir; }
  bool is_file() const { return kind == Kind::File; }
  friend bool operator==(const Node&, const Node&) = default;
};

class FileTree {
 public:
  using Map = std::map<std::string, Node>;
  const Node* find(const std::string& path) const;
  bool exists(const std::string& path) const { return find(path) != nullptr; }
  // "" (the root) and directories.
  bool is_dir(const std::string& path) const;
  void put(const std::string& path, Node n) { nodes_[path] = std::move(n); }
  // Removes `path` and everything below it.
  void erase_subtree(const std::string& path);
  // `path` and everything below it, as they are here ("" is the whole tree).
  Map subtree(const std::string& path) const;
  // Replaces the subtree at `path` with `from`'s subtree at `path`.
  void copy_subtree(const std::string& path, const FileTree& from);
  // The names directly below `path`, sorted.
  std::vector<std::string> children(const std::string& path) const;
  const Map& nodes() const { return nodes_; }
  Json to_json() const;
  std::size_t hash() const;
  friend bool operator==(const FileTree&, const FileTree&) = default;

 private:
  Map nodes_;
};

// "a/b" -> "a" ("" for a top-level name); "" -> "".
std::string parent_of(const std::string& path);
// parent "" + "a" -> "a"; "a" + "b" -> "a/b".
std::string join(const std::string& parent, const std::string& name);
// Whether `path` is `ancestor` itself or below it ("" is above everything).
bool within(const std::string& path, const std::string& ancestor);

// The requests' vocabulary, checked alike by the model and the harness
// (what a script may name, not what the synchronizer does): 1-3 components
// of 1-8 characters [a-z0-9_]; the root "" only where `root_ok`.
inline constexpr std::size_t kMaxDepth = 3;
inline constexpr std::size_t kMaxContent = 256;
bool valid_path(std::string_view path, bool root_ok = false);
// Three octal digits.
bool valid_mode(std::string_view mode);

// Node as JSON: {"type":"file","content":"x","mode":"644"} / {"type":"dir","mode":"755"}.
Json node_json(const Node& n);

}  // namespace dualfuzz::unison
