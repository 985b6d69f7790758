#include "dualfuzz/harness/script.h"

#include <set>

namespace dualfuzz::harness {
namespace {

struct Cursor {
  std::string_view line;
  std::size_t i = 0;
  void ws() {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  }
  bool word(std::string_view w) {
    if (line.substr(i, w.size()) != w) return false;
    i += w.size();
    return true;
  }
  std::optional<std::uint64_t> number() {
    std::size_t j = i;
    while (j < line.size() && j - i < 10 && line[j] >= '0' && line[j] <= '9') ++j;
    if (j == i) return std::nullopt;
    std::uint64_t v = std::stoull(std::string(line.substr(i, j - i)));
    i = j;
    return v;
  }
};

std::optional<std::string> check_rules(const std::vector<Step>& steps, std::size_t* bad) {
  std::set<Label> seen;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    *bad = k;
    if (const auto* r = std::get_if<RequestStep>(&steps[k])) {
      if (!is_request_label(r->label)) return "request labels are odd";
      if (!seen.insert(r->label).second)
        return "label " + std::to_string(r->label) + " used twice";
      if (r->conn > kMaxConn) return "connections are c0..c" + std::to_string(kMaxConn);
    } else if (const auto* w = std::get_if<WaitStep>(&steps[k])) {
      if (!seen.count(w->label))
        return "wait " + std::to_string(w->label) + " names no earlier request";
    } else if (const auto* c = std::get_if<CloseStep>(&steps[k])) {
      if (c->conn > kMaxConn) return "connections are c0..c" + std::to_string(kMaxConn);
    } else if (std::get<CommentStep>(steps[k]).text.find_first_of("\r\n") !=
               std::string::npos) {
      return "a comment is one line";
    }
  }
  if (steps.size() > kMaxSteps)
    return "more than " + std::to_string(kMaxSteps) + " steps";
  return std::nullopt;
}

}  // namespace

Result<Script> parse_script(std::string_view text, const FunctionRegistry& fns) {
  Script s;
  std::size_t lineno = 0, start = 0;
  auto err = [&](std::size_t col, const std::string& m) {
    return make_error("line " + std::to_string(lineno) + ", column " +
                      std::to_string(col + 1) + ": " + m);
  };
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    Cursor c{text.substr(start, end - start)};
    ++lineno;
    start = end + 1;
    if (c.line.size() > kMaxLine) return err(0, "line longer than 64 KiB");
    if (!c.line.empty() && c.line.back() == '\r') c.line.remove_suffix(1);
    if (c.line.find('\0') != std::string_view::npos)
      return err(c.line.find('\0'), "NUL byte");
    c.ws();
    if (c.i == c.line.size()) {
      if (end == text.size()) break;
      continue;  // blank line
    }
    if (s.steps.size() >= kMaxSteps) return err(0, "more than 1024 steps");
    if (c.line[c.i] == '#') {
      s.steps.push_back(CommentStep{std::string(c.line.substr(c.i + 1))});
    } else if (c.word("req ")) {
      c.ws();
      auto label = c.number();
      if (!label || *label > 0x7fffffff) return err(c.i, "expected a request label");
      c.ws();
      if (!c.word("on")) return err(c.i, "expected `on c<N>`");
      c.ws();
      if (!c.word("c")) return err(c.i, "expected a connection `c<N>`");
      std::size_t conn_at = c.i;
      auto conn = c.number();
      if (!conn || *conn > kMaxConn)
        return err(conn_at, "expected a connection number 0..63");
      c.ws();
      if (!c.word(":")) return err(c.i, "expected `:` before the request");
      std::size_t at = c.i;
      auto body = parse_jexp(c.line.substr(at), fns);
      if (!body) {
        // Re-anchor the Jexp's column to the line.
        std::string e = body.error();
        if (e.rfind("column ", 0) == 0) {
          std::size_t n = std::stoul(e.substr(7));
          return err(at + n - 1, e.substr(e.find(':') + 2));
        }
        return err(at, e);
      }
      s.steps.push_back(RequestStep{static_cast<Label>(*label),
                                    static_cast<ConnId>(*conn), std::move(*body)});
    } else if (c.word("wait ")) {
      c.ws();
      auto label = c.number();
      if (!label || *label > 0x7fffffff) return err(c.i, "expected a request label");
      s.steps.push_back(WaitStep{static_cast<Label>(*label)});
    } else if (c.word("close ")) {
      c.ws();
      if (!c.word("c")) return err(c.i, "expected a connection `c<N>`");
      std::size_t conn_at = c.i;
      auto conn = c.number();
      if (!conn || *conn > kMaxConn)
        return err(conn_at, "expected a connection number 0..63");
      s.steps.push_back(CloseStep{static_cast<ConnId>(*conn)});
    } else {
      return err(c.i, "expected `req`, `wait`, `close` or `#`");
    }
    if (!std::holds_alternative<CommentStep>(s.steps.back()) &&
        !std::holds_alternative<RequestStep>(s.steps.back())) {
      c.ws();
      if (c.i != c.line.size()) return err(c.i, "unexpected text at the end of the line");
    }
    std::size_t bad = 0;
    if (auto e = check_rules(s.steps, &bad)) return err(0, *e);
    if (end == text.size()) break;
  }
  return s;
}

std::string print_script(const Script& s) {
  std::string out;
  for (const Step& st : s.steps) {
    if (const auto* r = std::get_if<RequestStep>(&st))
      out += "req " + std::to_string(r->label) + " on c" + std::to_string(r->conn) +
             ": " + print_jexp(r->body);
    else if (const auto* w = std::get_if<WaitStep>(&st))
      out += "wait " + std::to_string(w->label);
    else if (const auto* c = std::get_if<CloseStep>(&st))
      out += "close c" + std::to_string(c->conn);
    else
      out += "#" + std::get<CommentStep>(st).text;
    out += '\n';
  }
  return out;
}

std::optional<std::string> validate(const Script& s) {
  std::size_t bad = 0;
  if (auto e = check_rules(s.steps, &bad))
    return "step " + std::to_string(bad + 1) + ": " + *e;
  return std::nullopt;
}

Label next_label(const Script& s) {
  Label next = 1;
  for (const Step& st : s.steps)
    if (const auto* r = std::get_if<RequestStep>(&st))
      next = std::max(next, r->label + 2);
  return next;
}

}  // namespace dualfuzz::harness
