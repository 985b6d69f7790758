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

// The script rules, one step at a time, so parsing stays linear.
class Rules {
 public:
  std::optional<std::string> check(const Step& st) {
    if (++steps_ > kMaxSteps) return "more than " + std::to_string(kMaxSteps) + " steps";
    if (const auto* r = std::get_if<RequestStep>(&st)) {
      if (!is_request_label(r->label) || r->label > kMaxLabel)
        return "request labels are odd, 1.." + std::to_string(kMaxLabel);
      if (!seen_.insert(r->label).second || answers_.count(r->label))
        return "label " + std::to_string(r->label) + " used twice";
      if (r->conn > kMaxConn) return "connections are c0..c" + std::to_string(kMaxConn);
    } else if (const auto* a = std::get_if<AnswerStep>(&st)) {
      if (!is_request_label(a->label) || a->label > kMaxLabel)
        return "answer labels are odd, 1.." + std::to_string(kMaxLabel);
      if (!answers_.insert(a->label).second || seen_.count(a->label))
        return "label " + std::to_string(a->label) + " used twice";
    } else if (const auto* w = std::get_if<WaitStep>(&st)) {
      if (!seen_.count(w->label))
        return "wait " + std::to_string(w->label) + " names no earlier request";
    } else if (const auto* c = std::get_if<CloseStep>(&st)) {
      if (c->conn > kMaxConn) return "connections are c0..c" + std::to_string(kMaxConn);
    } else if (std::get<CommentStep>(st).text.find_first_of(std::string("\r\n\0", 3)) !=
               std::string::npos) {
      return "a comment is one line without NUL";
    }
    return std::nullopt;
  }

 private:
  std::set<Label> seen_;     // requests (what `wait` may name)
  std::set<Label> answers_;  // answer steps (same label space)
  std::size_t steps_ = 0;
};

// What makes a body built in code print as text that parses back to it.
std::optional<std::string> printable(const Jexp& body, const FunctionRegistry* fns) {
  if (jexp_depth(body) > kMaxJexpDepth)
    return "nesting deeper than " + std::to_string(kMaxJexpDepth);
  for (const Jexp::Ref& r : references(body)) {
    if (r.label == 0 || r.label > kMaxLabel)
      return "reference label " + std::to_string(r.label) + " outside 1.." +
             std::to_string(kMaxLabel);
    auto p = parse_jpath(r.path.print());
    if (!p || !(*p == r.path)) return "Jpath " + r.path.print() + " does not print back";
    if (!FunctionRegistry::valid_name(r.function))
      return "bad function name `" + r.function + "`";
    if (fns && !fns->find(r.function)) return "unknown function `" + r.function + "`";
  }
  if (print_jexp(body).size() + 32 > kMaxLine) return "line longer than 64 KiB";
  return std::nullopt;
}

std::optional<std::string> check_all(const Script& s, const FunctionRegistry* fns) {
  Rules rules;
  for (std::size_t k = 0; k < s.steps.size(); ++k) {
    auto e = rules.check(s.steps[k]);
    if (!e) {
      if (const auto* r = std::get_if<RequestStep>(&s.steps[k]))
        e = printable(r->body, fns);
      else if (const auto* a = std::get_if<AnswerStep>(&s.steps[k]))
        e = printable(a->body, fns);
    }
    if (e) return "step " + std::to_string(k + 1) + ": " + *e;
  }
  return std::nullopt;
}

}  // namespace

std::string print_step(const Step& st) {
  if (const auto* r = std::get_if<RequestStep>(&st))
    return "req " + std::to_string(r->label) + " on c" + std::to_string(r->conn) + ": " +
           print_jexp(r->body);
  if (const auto* a = std::get_if<AnswerStep>(&st))
    return "answer " + std::to_string(a->label) + ": " + print_jexp(a->body);
  if (const auto* w = std::get_if<WaitStep>(&st))
    return "wait " + std::to_string(w->label);
  if (const auto* c = std::get_if<CloseStep>(&st))
    return "close c" + std::to_string(c->conn);
  return "#" + std::get<CommentStep>(st).text;
}

Result<Script> parse_script(std::string_view text, const FunctionRegistry& fns) {
  Script s;
  Rules rules;
  std::size_t lineno = 0, start = 0;
  auto err = [&](std::size_t col, const std::string& m) {
    return make_error("line " + std::to_string(lineno) + ", column " +
                      std::to_string(col + 1) + ": " + m);
  };
  // `c<N>` with N in 0..kMaxConn; the error points at what is wrong.
  auto read_conn = [&](Cursor& c) -> Result<ConnId> {
    if (!c.word("c")) return err(c.i, "expected a connection `c<N>`");
    std::size_t at = c.i;
    auto conn = c.number();
    if (!conn || *conn > kMaxConn) return err(at, "expected a connection number 0..63");
    return static_cast<ConnId>(*conn);
  };
  // The J-expression from the cursor to the end of the line; its errors'
  // columns re-anchored to the line.
  auto read_body = [&](Cursor& c) -> Result<Jexp> {
    std::size_t at = c.i;
    auto body = parse_jexp(c.line.substr(at), fns);
    if (body) return body;
    std::string e = body.error();
    if (e.rfind("column ", 0) == 0) {
      std::size_t n = std::stoul(e.substr(7));
      return err(at + n - 1, e.substr(e.find(':') + 2));
    }
    return err(at, e);
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
    if (c.line[c.i] == '#') {
      s.steps.emplace_back(std::in_place_type<CommentStep>,
                           CommentStep{std::string(c.line.substr(c.i + 1))});
    } else if (c.word("req ")) {
      c.ws();
      auto label = c.number();
      if (!label || *label > kMaxLabel) return err(c.i, "expected a request label");
      c.ws();
      if (!c.word("on")) return err(c.i, "expected `on c<N>`");
      c.ws();
      auto conn = read_conn(c);
      if (!conn) return make_error(conn.error());
      c.ws();
      if (!c.word(":")) return err(c.i, "expected `:` before the request");
      auto body = read_body(c);
      if (!body) return make_error(body.error());
      s.steps.emplace_back(
          std::in_place_type<RequestStep>,
          RequestStep{static_cast<Label>(*label), *conn, std::move(*body)});
    } else if (c.word("answer ")) {
      c.ws();
      auto label = c.number();
      if (!label || *label > kMaxLabel) return err(c.i, "expected an answer label");
      c.ws();
      if (!c.word(":")) return err(c.i, "expected `:` before the answer");
      auto body = read_body(c);
      if (!body) return make_error(body.error());
      s.steps.emplace_back(std::in_place_type<AnswerStep>,
                           AnswerStep{static_cast<Label>(*label), std::move(*body)});
    } else if (c.word("wait ")) {
      c.ws();
      auto label = c.number();
      if (!label || *label > kMaxLabel) return err(c.i, "expected a request label");
      s.steps.emplace_back(std::in_place_type<WaitStep>,
                           WaitStep{static_cast<Label>(*label)});
    } else if (c.word("close ")) {
      c.ws();
      auto conn = read_conn(c);
      if (!conn) return make_error(conn.error());
      s.steps.emplace_back(std::in_place_type<CloseStep>, CloseStep{*conn});
    } else {
      return err(c.i, "expected `req`, `answer`, `wait`, `close` or `#`");
    }
    if (!std::holds_alternative<CommentStep>(s.steps.back()) &&
        !std::holds_alternative<RequestStep>(s.steps.back()) &&
        !std::holds_alternative<AnswerStep>(s.steps.back())) {
      c.ws();
      if (c.i != c.line.size()) return err(c.i, "unexpected text at the end of the line");
    }
    if (auto e = rules.check(s.steps.back())) return err(0, *e);
    // Canonical printing can lengthen a line ("1e9" prints as 1000000000.0);
    // what the printer would not be able to read back is refused here.
    if (print_step(s.steps.back()).size() > kMaxLine)
      return err(0, "line longer than 64 KiB once printed");
    if (end == text.size()) break;
  }
  return s;
}

std::string print_script(const Script& s) {
  std::string out;
  for (const Step& st : s.steps) out += print_step(st) + '\n';
  return out;
}

std::optional<std::string> validate(const Script& s) { return check_all(s, nullptr); }

std::optional<std::string> validate(const Script& s, const FunctionRegistry& fns) {
  return check_all(s, &fns);
}

Label next_label(const Script& s) {
  Label next = 1;
  for (const Step& st : s.steps)
    if (const auto* r = std::get_if<RequestStep>(&st))
      next = std::max(next, r->label + 2);
    else if (const auto* a = std::get_if<AnswerStep>(&st))
      next = std::max(next, a->label + 2);
  return next;
}

}  // namespace dualfuzz::harness
