#include "dualfuzz/http/message_rules.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "dualfuzz/http/connection_options.h"
#include "dualfuzz/http/date.h"
#include "dualfuzz/http/detail/field_text.h"
#include "dualfuzz/http/field_grammar.h"
#include "dualfuzz/http/status_fields.h"
#include "dualfuzz/oracle/json_text.h"

namespace dualfuzz::http {
namespace {

using harness::Json;
using RuleBreak = harness::Protocol::RuleBreak;

// Fields whose definition allows no list: a sender MUST NOT repeat their
// line (RFC 9110 §5.3). Those a response may carry.
constexpr std::string_view kSingletons[] = {
    "age",         "content-length", "content-location", "content-range", "content-type",
    "date",        "etag",           "expires",          "last-modified", "location",
    "retry-after", "server"};

// The fields a 304 must repeat from the 200 the same request would have got
// (RFC 9110 §15.4.5), and those a 206 must (§15.3.7).
constexpr std::string_view k304Fields[] = {"content-location", "date",   "etag", "vary",
                                           "cache-control",    "expires"};
constexpr std::string_view k206Fields[] = {"date",    "cache-control",    "etag",
                                           "expires", "content-location", "vary"};
// Fields a HEAD's answer and a GET's may differ in without notice: framing,
// the connection, and what is new at each answer.
constexpr std::string_view kHeadGetExempt[] = {"content-length", "transfer-encoding",
                                               "connection",     "keep-alive",
                                               "date",           "age",
                                               "set-cookie",     "expires"};

std::string text_of(const Json& m, const char* key) {
  const auto it = m.find(key);
  return it != m.end() && it->is_string() ? it->get<std::string>() : std::string();
}
const Json* headers_of(const Json& m) {
  const auto it = m.find("headers");
  return it != m.end() && it->is_object() ? &*it : nullptr;
}
bool has_field(const Json& m, std::string_view name) {
  const Json* h = headers_of(m);
  return h && h->contains(name);
}
std::string field(const Json& m, std::string_view name) {
  const Json* h = headers_of(m);
  if (!h) return "";
  const auto it = h->find(std::string(name));
  return it != h->end() && it->is_string() ? it->get<std::string>() : std::string();
}
bool safe(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "OPTIONS" ||
         method == "TRACE" || method == "PROPFIND";
}
int status_of(const Json& r) {
  const auto it = r.find("status");
  return it != r.end() && it->is_number_integer() ? it->get<int>() : 0;
}
// Every field line as sent: "fields" when the codec kept them, else the
// merged headers (one line each). Views into `m`.
using Line = std::pair<std::string_view, std::string_view>;
std::vector<Line> lines_of(const Json& m) {
  std::vector<Line> out;
  if (const auto it = m.find("fields"); it != m.end() && it->is_array()) {
    out.reserve(it->size());
    for (const Json& l : *it)
      if (l.is_array() && l.size() == 2 && l[0].is_string() && l[1].is_string())
        out.emplace_back(l[0].get_ref<const std::string&>(),
                         l[1].get_ref<const std::string&>());
    return out;
  }
  if (const Json* h = headers_of(m))
    for (const auto& [k, v] : h->items())
      if (v.is_string()) out.emplace_back(k, v.get_ref<const std::string&>());
  return out;
}
std::size_t content_length(const Json& r) {
  const auto it = r.find("body");
  return it != r.end() && it->is_string() ? it->get_ref<const std::string&>().size() : 0;
}
std::string clip(const std::string& s) { return oracle::clip_text(s, 80); }

// An answer as later rules compare with it.
struct Shown {
  std::set<std::string> names;
  std::size_t length = 0;
};
Shown shown(const Json& r) {
  Shown s;
  for (const auto& [n, v] : lines_of(r)) s.names.emplace(n);
  s.length = content_length(r);
  return s;
}

class Checker final : public harness::Protocol::MessageRules {
 public:
  void sent(const Json& q) override {
    if (!q.is_object() || safe(text_of(q, "method"))) return;
    ++writes_in_flight_;
    shown_.clear();  // a write may change any representation
  }

  std::vector<RuleBreak> received(const Json* q, const Json& r) override {
    out_.clear();
    if (!r.is_object()) return out_;
    const int status = status_of(r);
    const std::string method = q && q->is_object() ? text_of(*q, "method") : "";
    // Rules on the message itself: its field lines, then its 1xx's.
    lines(r, status);
    if (const auto it = r.find("interim"); it != r.end() && it->is_array())
      for (const Json& i : *it)
        if (i.is_object()) lines(i, status_of(i));
    if (status == 205)
      if (const std::size_t n = content_length(r); n > 0)
        must("RFC 9110 §15.3.6", "content in a 205 response",
             std::to_string(n) + " bytes");
    required(r, status);
    date(r, status);
    if (q && q->is_object()) exchange(*q, r, status, method);
    if (q && q->is_object() && !safe(method)) {
      if (writes_in_flight_ > 0) --writes_in_flight_;
      shown_.clear();
    }
    return out_;
  }

 private:
  void must(std::string_view clause, std::string_view text, std::string detail = "") {
    out_.push_back(RuleBreak{std::string(clause), true, std::string(text), clip(detail)});
  }
  void should(std::string_view clause, std::string_view text, std::string detail = "") {
    out_.push_back(
        RuleBreak{std::string(clause), false, std::string(text), clip(detail)});
  }

  // Each field line: its characters, its grammar; no singleton twice; no
  // Content-Length or Transfer-Encoding in a 1xx or 204.
  void lines(const Json& m, int status) {
    int count[std::size(kSingletons)] = {};
    bool length = false, coding = false;
    for (const auto& [name, value] : lines_of(m)) {
      for (std::size_t i = 0; i < std::size(kSingletons); ++i)
        count[i] += name == kSingletons[i];
      length = length || name == "content-length";
      coding = coding || name == "transfer-encoding";
      if (!field_value_chars(value)) {
        must("RFC 9110 §5.5", "a control character in a field value",
             std::string(name) + ": " + std::string(value));
        continue;
      }
      if (const FieldGrammar* g = field_grammar(name); g && !g->check(value))
        must(g->clause,
             "a " + std::string(g->name) + " field that does not match its grammar (" +
                 std::string(g->grammar) + ")",
             std::string(name) + ": " + std::string(value));
    }
    for (std::size_t i = 0; i < std::size(kSingletons); ++i)
      if (count[i] > 1)
        must("RFC 9110 §5.3",
             "more than one " + std::string(kSingletons[i]) + " field line",
             std::to_string(count[i]) + " lines");
    if ((status >= 100 && status < 200) || status == 204) {
      const std::string what = status == 204 ? "204" : "1xx";
      if (length)
        must("RFC 9110 §8.6", "Content-Length in a " + what + " response",
             std::to_string(status));
      if (coding)
        must("RFC 9112 §6.1", "Transfer-Encoding in a " + what + " response",
             std::to_string(status));
    }
  }

  // Fields a status code requires (MUST) or recommends (SHOULD): the
  // error statuses' MUSTs are the models' (status_fields.h).
  void required(const Json& r, int status) {
    for (const StatusField& f : status_fields())
      if (f.status == status && !has_field(r, f.field))
        must(f.clause, "a " + std::to_string(status) + " response without " + f.field);
    struct Need {
      int status;
      std::string_view field;
      std::string_view clause;
      bool must;
    };
    static constexpr Need kNeeds[] = {
        {101, "upgrade", "RFC 9110 §7.8", true},
        {301, "location", "RFC 9110 §15.4.2", false},
        {302, "location", "RFC 9110 §15.4.3", false},
        {303, "location", "RFC 9110 §15.4.4", false},
        {307, "location", "RFC 9110 §15.4.8", false},
        {308, "location", "RFC 9110 §15.4.9", false},
    };
    for (const Need& n : kNeeds)
      if (n.status == status && !has_field(r, n.field)) {
        const std::string text =
            "a " + std::to_string(status) + " response without " + std::string(n.field);
        n.must ? must(n.clause, text) : should(n.clause, text);
      }
    // "A sender that generates a message containing content SHOULD generate
    // a Content-Type header field" (§8.3).
    if (content_length(r) > 0 && !has_field(r, "content-type"))
      should("RFC 9110 §8.3", "content without Content-Type");
  }

  // "An origin server with a clock MUST generate a Date header field in all
  // 2xx (Successful), 3xx (Redirection), and 4xx (Client Error) responses"
  // (§6.6.1); one without a clock MUST NOT. A server that sent a Date in
  // this run has a clock; until then a missing Date is only an advisory.
  void date(const Json& r, int status) {
    const bool dated = has_field(r, "date");
    if (status >= 200 && status < 500 && !dated) {
      if (clock_)
        must("RFC 9110 §6.6.1",
             "a 2xx-4xx response without Date from a server with a clock",
             std::to_string(status));
      else
        should("RFC 9110 §6.6.1", "a 2xx-4xx response without Date (no clock shown)",
               std::to_string(status));
    }
    clock_ = clock_ || dated;
    // "An origin server with a clock ... MUST NOT generate a Last-Modified
    // date that is later than the server's time of message origination
    // (Date)" (§8.8.2.1): a future mtime MUST be replaced by the Date. One
    // second later is only an advisory: a server's two clocks (a coarse
    // time() for Date, a file system's finer timestamps: Linux's multigrain
    // mtimes) may disagree by less than a second, which whole seconds show
    // as one; the Beast example's PUTs do so.
    if (dated) {
      const auto d = parse_http_date(field(r, "date"));
      const auto lm = parse_http_date(field(r, "last-modified"));
      if (d && lm && *lm > *d + 1)
        must("RFC 9110 §8.8.2.1", "a Last-Modified later than the response's Date",
             field(r, "last-modified") + " > " + field(r, "date"));
      else if (d && lm && *lm > *d)
        should("RFC 9110 §8.8.2.1",
               "a Last-Modified one second after the response's Date (two clocks)",
               field(r, "last-modified") + " > " + field(r, "date"));
    }
  }

  // Rules that read the request too.
  void exchange(const Json& q, const Json& r, int status, const std::string& method) {
    const std::string upgrade = field(q, "upgrade");
    if (status == 101) {
      // "A server MUST NOT switch to a protocol that was not indicated by
      // the client in the corresponding request's Upgrade header field"
      // (§7.8); "If a server receives both an Upgrade and an Expect header
      // field with the 100-continue expectation, the server MUST send a 100
      // (Continue) response before sending a 101" (§7.8).
      const auto asked = detail::list_members(upgrade);
      for (const std::string& p : detail::list_members(field(r, "upgrade")))
        if (std::find(asked.begin(), asked.end(), p) == asked.end())
          must("RFC 9110 §7.8", "a 101 switching to a protocol the request did not offer",
               p + (upgrade.empty() ? " (no Upgrade sent)"
                                    : " (offered: " + upgrade + ")"));
      // (Only for a request with content: "A client MUST NOT generate a
      // 100-continue expectation in a request that does not include
      // content" (§10.1.1); sent without, it asks for nothing to wait for.)
      const auto body = q.find("body");
      const bool content =
          q.contains("chunks") ||
          (body != q.end() && !body->is_null() &&
           !(body->is_string() && body->get_ref<const std::string&>().empty()));
      if (content &&
          detail::lower(field(q, "expect")).find("100-continue") != std::string::npos) {
        bool continued = false;
        if (const auto it = r.find("interim"); it != r.end() && it->is_array())
          for (const Json& i : *it) continued = continued || status_of(i) == 100;
        if (!continued)
          must("RFC 9110 §7.8", "a 101 to Expect: 100-continue without a 100");
      }
    }
    if (text_of(q, "version") == "HTTP/1.0" && has_field(r, "transfer-encoding"))
      must("RFC 9112 §6.1", "Transfer-Encoding in the answer to an HTTP/1.0 request");
    if (method == "CONNECT" && status >= 200 && status < 300) {
      if (has_field(r, "content-length"))
        must("RFC 9110 §8.6", "Content-Length in a 2xx response to CONNECT");
      if (has_field(r, "transfer-encoding"))
        must("RFC 9112 §6.1", "Transfer-Encoding in a 2xx response to CONNECT");
    }
    // "When this status code is generated in response to a byte-range
    // request, the sender SHOULD generate a Content-Range header field"
    // (§15.5.17).
    if (status == 416 && has_field(q, "range") && !has_field(r, "content-range"))
      should("RFC 9110 §15.5.17", "a 416 to a byte-range request without Content-Range");
    // "The server SHOULD send a "close" connection option in its final
    // response on that connection" (RFC 9112 §9.6).
    if (status >= 200 && has_field(q, "connection") &&
        connection_options(q).count("close") && !connection_options(r).count("close"))
      should("RFC 9112 §9.6", "no close option in the answer to a request that closes");
    compare(q, r, status, method);
  }

  // Rules against the 200 the same request got earlier in the run.
  void compare(const Json& q, const Json& r, int status, const std::string& method) {
    if (q.contains("havoc") || q.contains("malformed")) return;  // not "the same request"
    if (method != "GET" && method != "HEAD") return;
    const std::string key = method + " " + text_of(q, "path") + "\n" +
                            field(q, "accept") + "\n" + field(q, "accept-encoding") +
                            "\n" + field(q, "accept-language") + "\n" +
                            field(q, "authorization");
    const std::string get_key = "GET" + key.substr(method.size());
    const std::string head_key = "HEAD" + key.substr(method.size());
    if (writes_in_flight_ > 0) return;
    const auto earlier = shown_.find(get_key);
    if (status == 200) {
      const Shown now = shown(r);
      // "The server SHOULD send the same header fields in response to a
      // HEAD request as it would have sent if the request method had been
      // GET" (§9.3.2).
      const auto other = shown_.find(method == "GET" ? head_key : get_key);
      if (other != shown_.end()) {
        std::string differ;
        auto only_in = [&differ](const std::set<std::string>& a,
                                 const std::set<std::string>& b) {
          for (const std::string& n : a)
            if (std::find(std::begin(kHeadGetExempt), std::end(kHeadGetExempt), n) ==
                    std::end(kHeadGetExempt) &&
                !b.count(n))
              differ += (differ.empty() ? "" : ", ") + n;
        };
        only_in(now.names, other->second.names);
        only_in(other->second.names, now.names);
        if (!differ.empty())
          should("RFC 9110 §9.3.2", "HEAD and GET answered with different fields",
                 differ);
      }
      // (Conditions or a range the server ignored: still a 200 to this request.)
      shown_[key] = now;
      return;
    }
    if (earlier == shown_.end() || method != "GET") return;
    const Shown& ok = earlier->second;
    const Shown now = shown(r);
    auto missing = [&](const auto& fields) {
      std::string m;
      for (std::string_view f : fields)
        if (ok.names.count(std::string(f)) && !now.names.count(std::string(f)))
          m += (m.empty() ? "" : ", ") + std::string(f);
      return m;
    };
    if (status == 304) {
      if (std::string m = missing(k304Fields); !m.empty())
        must("RFC 9110 §15.4.5", "a 304 without a field its 200 had", m);
      // "a server MUST NOT send Content-Length in such a response unless its
      // field value equals the decimal number of octets that would have been
      // sent in the content of a 200 (OK) response to the same request" (§8.6).
      const std::string cl = field(r, "content-length");
      if (!cl.empty() && cl != std::to_string(ok.length))
        must("RFC 9110 §8.6",
             "a 304's Content-Length other than its 200's content length",
             cl + " (the 200 had " + std::to_string(ok.length) + " bytes)");
    } else if (status == 206) {
      if (std::string m = missing(k206Fields); !m.empty())
        must("RFC 9110 §15.3.7", "a 206 without a field its 200 had", m);
    }
  }

  std::vector<RuleBreak> out_;
  bool clock_ = false;
  int writes_in_flight_ = 0;
  std::map<std::string, Shown> shown_;  // the last 200 per request (method, path, ...)
};

}  // namespace

std::unique_ptr<harness::Protocol::MessageRules> new_message_rules() {
  return std::make_unique<Checker>();
}

const std::vector<MessageRule>& message_rules() {
  static const std::vector<MessageRule> rules = [] {
    std::vector<MessageRule> v = {
        {"field-value-chars", "RFC 9110 §5.5", true,
         "a control character in a field value"},
        {"content-length-1xx-204", "RFC 9110 §8.6", true,
         "Content-Length in a 1xx or 204 response"},
        {"transfer-encoding-1xx-204", "RFC 9112 §6.1", true,
         "Transfer-Encoding in a 1xx or 204 response"},
        {"content-205", "RFC 9110 §15.3.6", true, "content in a 205 response"},
        {"upgrade-101", "RFC 9110 §7.8", true, "a 101 without Upgrade"},
        {"switch-unoffered", "RFC 9110 §7.8", true,
         "a 101 switching to a protocol the request did not offer"},
        {"continue-before-101", "RFC 9110 §7.8", true,
         "a 101 to Expect: 100-continue without a 100"},
        {"www-authenticate-401", "RFC 9110 §15.5.2", true,
         "a 401 without WWW-Authenticate"},
        {"allow-405", "RFC 9110 §15.5.6", true, "a 405 without Allow"},
        {"proxy-authenticate-407", "RFC 9110 §15.5.8", true,
         "a 407 without Proxy-Authenticate"},
        {"upgrade-426", "RFC 9110 §15.5.22", true, "a 426 without Upgrade"},
        {"location-3xx", "RFC 9110 §15.4.2-9", false,
         "a 301/302/303/307/308 without Location"},
        {"content-type", "RFC 9110 §8.3", false, "content without Content-Type"},
        {"date", "RFC 9110 §6.6.1", true,
         "a 2xx-4xx response without Date from a server with a clock"},
        {"last-modified-after-date", "RFC 9110 §8.8.2.1", true,
         "a Last-Modified later than the response's Date"},
        {"last-modified-tick", "RFC 9110 §8.8.2.1", false,
         "a Last-Modified one second after the response's Date (two clocks)"},
        {"transfer-encoding-http10", "RFC 9112 §6.1", true,
         "Transfer-Encoding in the answer to an HTTP/1.0 request"},
        {"connect-2xx-framing", "RFC 9110 §8.6, RFC 9112 §6.1", true,
         "Content-Length or Transfer-Encoding in a 2xx response to CONNECT"},
        {"content-range-416", "RFC 9110 §15.5.17", false,
         "a 416 to a byte-range request without Content-Range"},
        {"close-option", "RFC 9112 §9.6", false,
         "no close option in the answer to a request that closes"},
        {"head-get-fields", "RFC 9110 §9.3.2", false,
         "HEAD and GET answered with different fields"},
        {"fields-304", "RFC 9110 §15.4.5", true, "a 304 without a field its 200 had"},
        {"content-length-304", "RFC 9110 §8.6", true,
         "a 304's Content-Length other than its 200's content length"},
        {"fields-206", "RFC 9110 §15.3.7", true, "a 206 without a field its 200 had"},
    };
    for (std::string_view s : kSingletons)
      v.push_back(
          {s, "RFC 9110 §5.3", true, "more than one field line of a singleton field"});
    for (const FieldGrammar& g : field_grammars())
      v.push_back({g.name, g.clause, true, g.grammar});
    return v;
  }();
  return rules;
}

}  // namespace dualfuzz::http
