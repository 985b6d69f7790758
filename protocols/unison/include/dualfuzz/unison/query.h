// The tester's queries (thesis Fig. 6.5): a file operation on one replica,
// or `sync`. A request IR is a JSON object:
//   {"op":"write","replica":"A","path":"a/b","content":"x"}   (+ "same_time":true)
//   {"op":"mkdir"|"rm"|"read","replica":"B","path":"a"}
//   {"op":"chmod","replica":"A","path":"a","mode":"555"}
//   {"op":"ls","replica":"A","path":""}
//   {"op":"sync"}
// `same_time`: the write keeps the file's modification time (a write within
// one timestamp tick, thesis §6.2.2), which only a real file system sees.
//
// Answers: {"ok":true} / {"ok":true,"content":"x"} / {"ok":true,"names":[..]},
// {"ok":false,"why":".."} for a failed operation or a request that is not a
// query; sync: {"exit":N,"A":{path:node..},"B":{..}} (+ "log").
//
//   auto q = parse_query(ir);                 // Result<Query>
//   Json answer = apply_file_op(tree, *q);    // the POSIX-like semantics
#pragma once

#include <string>

#include "dualfuzz/result.h"
#include "dualfuzz/unison/file_tree.h"

namespace dualfuzz::unison {

struct Query {
  enum class Op { Write, Mkdir, Rm, Chmod, Read, Ls, Sync };
  Op op = Op::Sync;
  int replica = 0;  // 0: A, 1: B
  std::string path;
  std::string content;  // Write
  std::string mode;     // Chmod
  bool same_time = false;
};

// The query `ir` names, or why it is none (then the answer is
// {"ok":false,"why":..} with no effect).
Result<Query> parse_query(const Json& ir);
// A file operation's effect on `t` and its answer (never throws): write
// needs an existing parent directory and no directory at `path` (a new file
// gets mode 644, a rewritten one keeps its mode); mkdir a parent and no
// node (mode 755); rm and chmod an existing node (rm is recursive); read a
// file; ls a directory (names sorted).
Json apply_file_op(FileTree& t, const Query& q);
// The failure answer.
Json failure(const std::string& why);

}  // namespace dualfuzz::unison
