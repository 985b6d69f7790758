#include "dualfuzz/unison/heuristics.h"

#include <optional>
#include <string>
#include <vector>

namespace dualfuzz::unison {
using harness::Jexp;
using harness::Jpath;
using harness::string_field;

namespace {
std::size_t pick(std::mt19937_64& rng, std::size_t n) { return n ? rng() % n : 0; }

const char* kPaths[] = {"a", "b", "a/a", "a/b", "b/a", "b/b"};
const char* kContents[] = {"x", "y", "xy", "", "z"};
const char* kModes[] = {"644", "600", "444", "755", "555", "700"};

// State-based: a path the script used (most often), its parent or a child,
// or one of the small universe.
std::string choose_path(std::mt19937_64& rng, const harness::Protocol::Context& ctx) {
  std::vector<std::string> used;
  for (const Jexp& e : ctx.earlier)
    if (std::string p = string_field(e, "path"); !p.empty()) used.push_back(p);
  if (used.empty() || pick(rng, 3) == 0) return kPaths[pick(rng, std::size(kPaths))];
  std::string p = used[pick(rng, used.size())];
  switch (pick(rng, 8)) {
    case 0:
      if (auto s = p.rfind('/'); s != std::string::npos) return p.substr(0, s);
      return p;
    case 1:
      if (p.find('/') == std::string::npos) return p + "/" + (pick(rng, 2) ? "a" : "b");
      return p;
    default:
      return p;
  }
}

// The replica: the other one than an earlier request on the same path
// half of the time (the same path changed on both sides), else either.
std::string choose_replica(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                           const std::string& path) {
  if (pick(rng, 2) == 0)
    for (std::size_t i = ctx.earlier.size(); i-- > 0;)
      if (string_field(ctx.earlier[i], "path") == path) {
        const std::string r = string_field(ctx.earlier[i], "replica");
        if (!r.empty()) return r == "A" ? "B" : "A";
      }
  return pick(rng, 2) ? "A" : "B";
}

// Trace-based: the content an earlier read answered (that read's label + 1),
// else a literal.
Jexp content(std::mt19937_64& rng, const harness::Protocol::Context& ctx) {
  std::vector<harness::Label> reads;
  for (std::size_t i = 0; i < ctx.earlier.size(); ++i)
    if (string_field(ctx.earlier[i], "op") == "read")
      reads.push_back(ctx.earlier_labels[i] + 1);
  if (!reads.empty() && pick(rng, 3) == 0)
    return Jexp::ref(
        {reads[pick(rng, reads.size())], Jpath({Jpath::Field{"content"}}), "id"});
  return Jexp::scalar(kContents[pick(rng, std::size(kContents))]);
}

Jexp file_op(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
             const std::string& op) {
  const std::string path = choose_path(rng, ctx);
  std::vector<std::pair<std::string, Jexp>> f = {
      {"op", Jexp::scalar(op)},
      {"replica", Jexp::scalar(choose_replica(rng, ctx, path))},
      {"path", Jexp::scalar(op == "ls" && pick(rng, 2) ? "" : path)}};
  if (op == "write") {
    // A rewrite of a written path: often within one timestamp tick and of
    // the same size, with other bytes (what a check by time and size cannot
    // tell apart).
    std::optional<std::string> before;
    for (const Jexp& e : ctx.earlier)
      if (string_field(e, "op") == "write" && string_field(e, "path") == path)
        before = string_field(e, "content");
    if (before && pick(rng, 2) == 0) {
      std::string c = before->empty() ? "x" : *before;
      c[0] = c[0] == 'x' ? "yz"[pick(rng, 2)] : 'x';
      f.emplace_back("content", Jexp::scalar(c));
      f.emplace_back("same_time", Jexp::scalar(true));
    } else {
      f.emplace_back("content", content(rng, ctx));
      if (pick(rng, 4) == 0) f.emplace_back("same_time", Jexp::scalar(true));
    }
  }
  if (op == "chmod")
    f.emplace_back("mode", Jexp::scalar(kModes[pick(rng, std::size(kModes))]));
  return Jexp::object(std::move(f));
}

const char* kOps[] = {"write", "write", "write", "write", "sync",  "sync", "sync",
                      "mkdir", "mkdir", "rm",    "rm",    "chmod", "read", "ls"};
}  // namespace

Jexp generate_request(std::mt19937_64& rng, const harness::Protocol::Context& ctx) {
  const std::string op = kOps[pick(rng, std::size(kOps))];
  if (op == "sync") return Jexp::object({{"op", Jexp::scalar("sync")}});
  return file_op(rng, ctx, op);
}

Jexp mutate_request(std::mt19937_64& rng, const Jexp& req,
                    const harness::Protocol::Context& ctx) {
  if (req.kind() != Jexp::Kind::Object || string_field(req, "op") == "sync" ||
      pick(rng, 4) == 0)
    return generate_request(rng, ctx);
  std::vector<std::pair<std::string, Jexp>> f;
  for (std::size_t i = 0; i < req.keys().size(); ++i)
    f.emplace_back(req.keys()[i], req.items()[i]);
  auto set = [&f](const std::string& k, Jexp v) {
    for (auto& [key, val] : f)
      if (key == k) {
        val = std::move(v);
        return;
      }
    f.emplace_back(k, std::move(v));
  };
  switch (pick(rng, 4)) {
    case 0:
      set("replica", Jexp::scalar(string_field(req, "replica") == "A" ? "B" : "A"));
      break;
    case 1:
      set("path", Jexp::scalar(choose_path(rng, ctx)));
      break;
    case 2:
      if (string_field(req, "op") == "write")
        set("content", content(rng, ctx));
      else if (string_field(req, "op") == "chmod")
        set("mode", Jexp::scalar(kModes[pick(rng, std::size(kModes))]));
      break;
    default:
      if (string_field(req, "op") == "write")
        set("same_time", Jexp::scalar(pick(rng, 2) == 0));
      break;
  }
  return Jexp::object(std::move(f));
}

}  // namespace dualfuzz::unison
