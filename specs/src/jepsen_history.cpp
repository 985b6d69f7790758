#include "dualfuzz/specs/jepsen_history.h"

#include <map>
#include <optional>
#include <sstream>
#include <string>

namespace dualfuzz::specs {
using oracle::ConnId;
using oracle::Event;
using oracle::Json;
using oracle::Label;

namespace {

// Tracks labels and connections while events are appended in file order.
class Builder {
 public:
  void invoke(ConnId c, Json request) {
    if (opened_.insert({c, true}).second) trace_.push_back(Event::open(c));
    Label l = next_;
    next_ += 2;
    pending_[c] = l;
    trace_.push_back(Event::request(c, l, std::move(request)));
  }
  // Returns an error message when there was no matching invoke.
  std::optional<std::string> complete(ConnId c, Json response) {
    auto it = pending_.find(c);
    if (it == pending_.end())
      return "a return for process " + std::to_string(c) + " without a pending invoke";
    trace_.push_back(Event::response(c, it->second + 1, std::move(response)));
    pending_.erase(it);
    return std::nullopt;
  }
  void indeterminate(ConnId c) {
    pending_.erase(c);
    trace_.push_back(Event::close(c));
  }
  // One history entry of either format: `request` is what an invoke sends,
  // `ok` what an :ok return carries. Returns an error message.
  std::optional<std::string> event(const std::string& type, ConnId c, Json request,
                                   Json ok) {
    if (type == ":invoke") {
      invoke(c, std::move(request));
      return std::nullopt;
    }
    if (type == ":ok") return complete(c, std::move(ok));
    if (type == ":fail") return complete(c, Json{{"type", "fail"}});
    if (type == ":info") {
      indeterminate(c);
      return std::nullopt;
    }
    return "unknown event type " + type;
  }
  Trace take() { return std::move(trace_); }

 private:
  Trace trace_;
  std::map<ConnId, bool> opened_;
  std::map<ConnId, Label> pending_;
  Label next_ = 1;
};

Error at(std::size_t line, const std::string& what) {
  return make_error("line " + std::to_string(line) + ": " + what);
}

// etcd values: an integer, nil, [a b], or :timed-out.
std::optional<Json> etcd_value(std::istringstream& in) {
  std::string tok;
  if (!(in >> tok)) return Json(nullptr);
  if (tok == "nil" || tok[0] == ':') return Json(nullptr);
  if (tok[0] == '[') {
    std::string second;
    if (!(in >> second) || second.back() != ']') return std::nullopt;
    tok = tok.substr(1);
    second.pop_back();
    Json a = tok == "nil" ? Json(nullptr) : Json::parse(tok, nullptr, false);
    Json b = second == "nil" ? Json(nullptr) : Json::parse(second, nullptr, false);
    if (a.is_discarded() || b.is_discarded()) return std::nullopt;
    return Json::array({a, b});
  }
  Json v = Json::parse(tok, nullptr, false);
  if (v.is_discarded() || !v.is_number_integer()) return std::nullopt;
  return v;
}

}  // namespace

Result<Trace> parse_jepsen_etcd(std::string_view text) {
  Builder b;
  std::istringstream lines{std::string(text)};
  std::string line;
  std::size_t n = 0;
  while (std::getline(lines, line)) {
    ++n;
    auto dash = line.find(" - ");
    if (dash == std::string::npos) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      return at(n, "expected `INFO  jepsen.util - <process> :type :f value`");
    }
    std::istringstream in(line.substr(dash + 3));
    long long proc = -1;
    std::string type, f;
    if (!(in >> proc >> type >> f) || proc < 0)
      return at(n, "expected `<process> :type :f value`");
    auto value = etcd_value(in);
    if (!value) return at(n, "unreadable value in `" + line + "`");
    if (f != ":read" && f != ":write" && f != ":cas")
      return at(n, "unknown operation " + f);
    ConnId c = static_cast<ConnId>(proc);
    Json q, a;  // (only the one this line makes, as parse_jepsen_kv)
    if (type == ":invoke") {
      q = Json::object();
      q.emplace("f", f.substr(1));
      if (f != ":read") q.emplace("value", *value);
    } else if (type == ":ok") {
      a = Json::object();
      a.emplace("type", "ok");
      if (f == ":read") a.emplace("value", *value);
    }
    if (auto e = b.event(type, c, std::move(q), std::move(a))) return at(n, *e);
  }
  return b.take();
}

namespace {
// The value of `:name` in an EDN map line; strings and nil only (all the kv
// histories hold). Read in place (the 50-client histories have thousands of
// lines, and copying each field was a tenth of checking one); `out` holds
// a string with escapes, which the returned view then shows.
std::optional<std::string_view> edn_field(std::string_view line, std::string_view name,
                                          std::string& out) {
  std::size_t p = 0;
  for (;;) {  // ":" + name + " "
    p = line.find(name, p);
    if (p == std::string_view::npos) return std::nullopt;
    if (p > 0 && line[p - 1] == ':' && p + name.size() < line.size() &&
        line[p + name.size()] == ' ')
      break;
    ++p;
  }
  p += name.size() + 1;
  if (line.substr(p, 3) == "nil") return std::string_view("\x01nil");
  if (p < line.size() && line[p] == '"') {
    const std::size_t end = line.find('"', p + 1);
    const std::size_t esc = line.find('\\', p + 1);
    if (end != std::string_view::npos && (esc == std::string_view::npos || esc > end))
      return line.substr(p + 1, end - p - 1);
    out.clear();
    for (++p; p < line.size() && line[p] != '"'; ++p) {
      if (line[p] == '\\' && p + 1 < line.size()) ++p;
      out += line[p];
    }
    if (p >= line.size()) return std::nullopt;
    return std::string_view(out);
  }
  auto e = line.find_first_of(",}", p);
  return line.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p);
}
}  // namespace

Result<Trace> parse_jepsen_kv(std::string_view text) {
  Builder b;
  std::size_t n = 0;
  std::string buf[5];  // (for fields with escapes)
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    auto proc = edn_field(line, "process", buf[0]);
    auto type = edn_field(line, "type", buf[1]);
    auto f = edn_field(line, "f", buf[2]);
    auto key = edn_field(line, "key", buf[3]);
    auto value = edn_field(line, "value", buf[4]);
    if (!proc || !type || !f || !key || !value)
      return at(n, "expected {:process N, :type T, :f F, :key K, :value V}");
    ConnId c = 0;
    try {
      c = static_cast<ConnId>(std::stoul(std::string(*proc)));
    } catch (const std::exception&) {
      return at(n, "bad process " + std::string(*proc));
    }
    const bool nil = *value == "\x01nil";
    if (*f != ":get" && *f != ":put" && *f != ":append")
      return at(n, "unknown operation " + std::string(*f));
    const std::string_view v = nil ? std::string_view() : *value;
    // Only the message this line is made (an invoke's request, an :ok's
    // response): building both for every line was most of the parse (a
    // 50-client history has 3,500-4,100 lines).
    Json q, a;
    if (*type == ":invoke") {
      q = Json::object();
      q.emplace("f", f->substr(1));
      q.emplace("key", *key);
      if (*f != ":get") q.emplace("value", v);
    } else if (*type == ":ok") {
      a = Json::object();
      a.emplace("type", "ok");
      if (*f == ":get") a.emplace("value", v);
    }
    if (auto e = b.event(std::string(*type), c, std::move(q), std::move(a)))
      return at(n, *e);
  }
  return b.take();
}

}  // namespace dualfuzz::specs
