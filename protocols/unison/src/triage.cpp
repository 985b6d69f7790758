#include "dualfuzz/unison/triage.h"

namespace dualfuzz::unison {
namespace {
std::string str(const harness::Json& j, const char* name) {
  if (!j.is_object()) return {};
  auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// {a=x(644) a/b/ (755)}: files with their content, directories with a slash.
std::string tree(const harness::Json& t) {
  if (!t.is_object()) return harness::dump_json(t);
  std::string s = "{";
  for (auto it = t.begin(); it != t.end(); ++it) {
    if (s.size() > 1) s += " ";
    const std::string type = str(*it, "type");
    s += it.key() + (type == "dir"    ? "/"
                     : type == "file" ? "=" + str(*it, "content")
                                      : "?");
    if (const std::string m = str(*it, "mode"); m != (type == "dir" ? "755" : "644"))
      s += "(" + m + ")";
  }
  return s + "}";
}
}  // namespace

std::string request_kind(const harness::Json& q) { return str(q, "op"); }

std::string request_label(const harness::Json& q) {
  const std::string op = str(q, "op");
  if (op == "sync" || op.empty()) return op.empty() ? "?" : op;
  return op + " " + str(q, "replica") + " " + str(q, "path");
}

std::string describe_request(const harness::Json& q) {
  std::string s = request_label(q);
  if (q.is_object() && q.contains("content"))
    s += " := " + harness::dump_json(q["content"]);
  if (q.is_object() && q.contains("mode")) s += " " + str(q, "mode");
  if (q.is_object() && q.value("same_time", false)) s += "  (same timestamp)";
  return s;
}

std::string response_shape(const harness::Json& r) {
  if (r.is_object() && r.contains("exit") && r["exit"].is_number_integer())
    return "exit " + std::to_string(r["exit"].get<long long>());
  if (r.is_object() && r.contains("ok")) return r.value("ok", false) ? "ok" : "refused";
  return "?";
}

std::string response_label(const harness::Json& r) { return response_shape(r); }

std::string describe_response(const harness::Json& r) {
  std::string s = response_shape(r);
  if (!r.is_object()) return s;
  if (r.contains("content")) s += " " + harness::dump_json(r["content"]);
  if (r.contains("names")) s += " " + harness::dump_json(r["names"]);
  if (r.contains("A")) s += "  A" + tree(r["A"]);
  if (r.contains("B")) s += "  B" + tree(r["B"]);
  if (r.contains("log") && r["log"].is_string() && !r["log"].get<std::string>().empty())
    s += "  log: " + r["log"].get<std::string>();
  return s;
}

}  // namespace dualfuzz::unison
