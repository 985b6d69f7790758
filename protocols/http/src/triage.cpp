#include "dualfuzz/http/triage.h"

#include <algorithm>
#include <iterator>

#include "dualfuzz/http/codec.h"
#include "dualfuzz/http/destination.h"
#include "dualfuzz/http/detail/field_text.h"
#include "dualfuzz/http/detail/jexp_fields.h"
#include "dualfuzz/http/field_grammar.h"
#include "dualfuzz/http/field_havoc.h"
#include "dualfuzz/http/host.h"
#include "dualfuzz/http/malformation.h"
#include "dualfuzz/http/model.h"
#include "dualfuzz/oracle/json_text.h"

namespace dualfuzz::http {
namespace {
std::string str_field(const Json& v, const char* k) {
  if (v.is_object() && v.contains(k) && v[k].is_string()) return v[k].get<std::string>();
  return "";
}
const char* const kPreconditions[] = {"if-match", "if-none-match", "if-modified-since",
                                      "if-unmodified-since", "if-range"};

// "  name: value" for each header, then "  (N bytes)" for a body.
std::string headers_and_body(const Json& m) {
  std::string s;
  if (m.is_object() && m.contains("headers") && m["headers"].is_object())
    for (const auto& [k, v] : m["headers"].items())
      s += "  " + k + ": " +
           oracle::clip_text(v.is_string() ? v.get<std::string>() : harness::dump_json(v), 60);
  if (m.is_object() && m.contains("body") && m["body"].is_string() &&
      !m["body"].get_ref<const std::string&>().empty())
    s += "  (" + std::to_string(m["body"].get_ref<const std::string&>().size()) +
         " bytes)";
  return s;
}
// The precondition fields of a request step's "headers" (as the script
// spells them), and the step without one of them.
bool is_precondition(std::string name) {
  std::erase_if(name, [](char c) { return c <= ' ' || c == ':' || c >= 0x7f; });
  name = detail::lower(name);
  return std::find(std::begin(kPreconditions), std::end(kPreconditions), name) !=
         std::end(kPreconditions);
}
std::vector<std::string> precondition_keys(const harness::Jexp& body) {
  std::vector<std::string> out;
  if (body.kind() != harness::Jexp::Kind::Object) return out;
  for (std::size_t i = 0; i < body.keys().size(); ++i)
    if (body.keys()[i] == "headers" &&
        body.items()[i].kind() == harness::Jexp::Kind::Object)
      for (const std::string& k : body.items()[i].keys())
        if (is_precondition(k)) out.push_back(k);
  return out;
}
// `body` with header `name` set to `*by`, or without it when `by` is null.
harness::Jexp with_header(const harness::Jexp& body, const std::string& name,
                          const harness::Jexp* by) {
  std::vector<std::pair<std::string, harness::Jexp>> fields;
  for (std::size_t i = 0; i < body.keys().size(); ++i) {
    const harness::Jexp& v = body.items()[i];
    if (body.keys()[i] != "headers" || v.kind() != harness::Jexp::Kind::Object) {
      fields.emplace_back(body.keys()[i], v);
      continue;
    }
    std::vector<std::pair<std::string, harness::Jexp>> headers;
    for (std::size_t j = 0; j < v.keys().size(); ++j)
      if (v.keys()[j] != name)
        headers.emplace_back(v.keys()[j], v.items()[j]);
      else if (by)
        headers.emplace_back(v.keys()[j], *by);
    fields.emplace_back("headers", harness::Jexp::object(std::move(headers)));
  }
  return harness::Jexp::object(std::move(fields));
}
// An entity tag no server makes: a precondition that names it names no
// representation, whatever the run stored.
constexpr const char* kUnrelatedTag = "\"dualfuzz-unrelated\"";
}  // namespace

std::vector<harness::Protocol::Lighter> lighter(const harness::Jexp& body,
                                                const Json& sent) {
  std::vector<harness::Protocol::Lighter> out;
  if (body.kind() != harness::Jexp::Kind::Object) return out;
  // The request without its syntax defect, or without its field sent
  // blind: request_shape names either, so a violation that does not need
  // it (an ETag reused, whatever the request's framing) would otherwise
  // keep it and split into one finding per defect the fuzzer happened to
  // send (issue 47: etag-reuse as `PUT`, `PUT malformed(many-fields)`,
  // `PUT malformed(content-length-list)`).
  for (const char* part : {"malformed", "havoc"}) {
    if (!body.find(part)) continue;
    Json s = sent;
    if (s.is_object()) s.erase(part);
    out.push_back({harness::Jexp::object(detail::fields_of(&body, {part})), std::move(s)});
  }
  for (const std::string& name : precondition_keys(body)) {
    std::string lower = detail::lower(name);
    std::erase_if(lower, [](char c) { return c <= ' ' || c >= 0x7f; });
    const bool has = sent.is_object() && sent.contains("headers") &&
                     sent["headers"].is_object() && sent["headers"].contains(lower);
    Json s = sent;
    if (has) s["headers"].erase(lower);
    out.push_back({with_header(body, name, nullptr), std::move(s)});
    // The same precondition naming no representation at all: a violation
    // that stays is one of ignoring the field, not of comparing the tag it
    // named (a weak comparison shows only with a related tag). The two
    // defects then shrink to two counterexamples.
    if ((lower == "if-match" || lower == "if-none-match" || lower == "if-range") && has &&
        sent["headers"][lower] != kUnrelatedTag) {
      Json u = sent;
      u["headers"][lower] = kUnrelatedTag;
      const harness::Jexp unrelated = harness::Jexp::scalar(kUnrelatedTag);
      out.push_back(
          {with_header(body, name, &unrelated), std::move(u), /*restates=*/true});
    }
  }
  return out;
}

namespace {
// The member of a list of entity tags (RFC 9110 §13.1.1: `#entity-tag`)
// most like a server's own: the longest (made of a file's time and size,
// nginx's W/"6b0f7d09-7" beside a fuzzer's "1"), the last of equals; "" if
// a member is no entity tag, or none is long enough to be a server's.
std::string servers_tag(const std::string& list) {
  std::string best;
  for (const std::string& m : detail::etag_list(list)) {
    if (!entity_tag(m)) return "";
    if (m != kUnrelatedTag && m.size() >= best.size()) best = m;
  }
  return best.size() >= 8 ? best : "";
}
}  // namespace

std::optional<harness::Protocol::Probe> probe(const harness::Jexp& request,
                                              const Json& value) {
  if (request.kind() != harness::Jexp::Kind::Object || !value.is_string()) return {};
  const std::string tag = servers_tag(value.get_ref<const std::string&>());
  if (tag.empty()) return {};
  const harness::Jexp* path = request.find("path");
  if (!path) return {};
  std::vector<std::pair<std::string, harness::Jexp>> fields{
      {"method", harness::Jexp::scalar("GET")}, {"path", *path}};
  // (The same Host: a virtual host serves another tree.)
  if (const harness::Jexp* headers = request.find("headers");
      headers && headers->kind() == harness::Jexp::Kind::Object)
    for (std::size_t i = 0; i < headers->keys().size(); ++i)
      if (detail::lower(headers->keys()[i]) == "host")
        fields.emplace_back("headers", harness::Jexp::object(
                                           {{headers->keys()[i], headers->items()[i]}}));
  return harness::Protocol::Probe{
      harness::Jexp::object(std::move(fields)),
      harness::Jpath({harness::Jpath::Field{"headers"}, harness::Jpath::Field{"etag"}}),
      tag.starts_with("W/") ? "weak" : "strong"};
}

std::optional<harness::Jexp> plainer(const harness::Jexp& body) {
  if (body.kind() != harness::Jexp::Kind::Object) return std::nullopt;
  const std::string method = harness::string_field(body, "method");
  if (method.empty() || method == "GET") return std::nullopt;
  return harness::with_member(body, "method", harness::Jexp::scalar("GET"));
}

namespace {
// `path` with the resource `from` (or a path below it) renamed `to`;
// nullopt when it is neither.
std::optional<std::string> moved(const std::string& path, const std::string& from,
                                 const std::string& to) {
  if (path == from) return to;
  if (path.starts_with(from) && path.size() > from.size() && path[from.size()] == '/')
    return to + path.substr(from.size());
  return std::nullopt;
}

harness::Jexp renamed(const harness::Jexp& body, const std::string& from,
                      const std::string& to) {
  if (body.kind() != harness::Jexp::Kind::Object) return body;
  harness::Jexp out = body;
  if (auto p = moved(harness::string_field(body, "path"), from, to))
    out = harness::with_member(out, "path", harness::Jexp::scalar(*p));
  // A COPY's or MOVE's Destination names a resource too (its path after
  // the authority).
  const harness::Jexp* headers = out.find("headers");
  if (!headers) return out;
  const std::string d = harness::string_field(*headers, "destination");
  const std::size_t scheme = d.find("://");
  const std::size_t slash = d.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (slash == std::string::npos) return out;
  if (auto p = moved(d.substr(slash), from, to)) {
    const harness::Jexp dest = harness::Jexp::scalar(d.substr(0, slash) + *p);
    out = with_header(out, "destination", &dest);
  }
  return out;
}
}  // namespace

std::vector<std::vector<harness::Jexp>> flatter(
    const std::vector<harness::Jexp>& bodies) {
  std::vector<std::string> paths;
  for (const auto& b : bodies)
    if (std::string p = harness::string_field(b, "path");
        !p.empty() && std::find(paths.begin(), paths.end(), p) == paths.end())
      paths.push_back(std::move(p));
  std::vector<std::vector<harness::Jexp>> out;
  for (const std::string& from : paths) {
    const std::size_t last = from.find_last_of('/');
    if (from.front() != '/' || last == 0 || last == std::string::npos ||
        last + 1 == from.size())
      continue;  // at the top already, or a collection's name ending in '/'
    const std::string to = from.substr(last);
    const bool taken = std::any_of(paths.begin(), paths.end(), [&](const std::string& p) {
      return moved(p, to, to) && !moved(p, from, from);
    });
    if (taken) continue;
    std::vector<harness::Jexp> c;
    for (const auto& b : bodies) c.push_back(renamed(b, from, to));
    out.push_back(std::move(c));
  }
  return out;
}

bool valid_etag_field(const std::string& v) {
  std::size_t i = 0, tags = 0;
  auto skip = [&] {
    while (i < v.size() && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) ++i;
  };
  skip();
  if (v.substr(i) == "*") return true;
  while (i < v.size()) {
    if (v.compare(i, 2, "W/") == 0) i += 2;
    if (i >= v.size() || v[i] != '"') return false;
    std::size_t close = v.find('"', i + 1);
    if (close == std::string::npos) return false;
    for (std::size_t k = i + 1; k < close; ++k)
      if (static_cast<unsigned char>(v[k]) < 0x21 || v[k] == 0x7f) return false;
    i = close + 1;
    ++tags;
    while (i < v.size() && (v[i] == ' ' || v[i] == '\t')) ++i;
    if (i < v.size() && v[i] != ',') return false;
    skip();
  }
  return tags > 0;
}

std::string request_label(const Json& q) {
  std::string m = str_field(q, "method"), p = str_field(q, "path");
  if (m.empty() && p.empty()) return harness::Protocol::default_label(q);
  return oracle::clip_text(m + " " + p, 30);
}

std::string response_label(const Json& r) {
  std::string st = response_shape(r);
  return st.empty() ? harness::Protocol::default_label(r) : st;
}

std::string describe_request(const Json& q) {
  std::string m = str_field(q, "method"), p = str_field(q, "path");
  if (m.empty() && p.empty()) return harness::Protocol::default_describe(q);
  std::string defect;
  if (q.is_object() && q.contains("malformed") && q["malformed"].is_string())
    defect = " (sent with " + q["malformed"].get<std::string>() + ")";
  if (auto blind = havoc_line(q))
    defect +=
        " (sent blind: " + blind->name + ": " + escape_bytes(blind->value, 60) + ")";
  return m + " " + p + defect + headers_and_body(q);
}

std::string describe_response(const Json& r) {
  std::string st = response_shape(r);
  if (st.empty()) return harness::Protocol::default_describe(r);
  return st + headers_and_body(r);
}

std::string request_kind(const Json& q) { return str_field(q, "method"); }

std::string request_shape(const Json& q) {
  std::string s = q.is_object() && q.contains("method") && q["method"].is_string()
                      ? q["method"].get<std::string>()
                      : "?";
  if (!q.is_object()) return s;
  // A message a server MUST refuse whatever it asks (an invalid Host, RFC
  // 9112 §3.2; a defect of kMustReject): one root cause, whatever the
  // method and the fields: "* host(invalid)". (Seven methods of one nginx
  // gave seven findings of one missing check.)
  const Malformation* m = q.contains("malformed") && q["malformed"].is_string()
                              ? find_malformation(q["malformed"].get<std::string>())
                              : nullptr;
  if (m && m->latitude == Latitude::kMustReject)
    return "* malformed(" + q["malformed"].get<std::string>() + ")";
  // (A defect a server may serve beside it changes nothing of that; in
  // absolute-form the Host is ignored, so it is not the cause there.)
  if ((!m || m->latitude != Latitude::kMustServe) && q.contains("headers") &&
      q["headers"].is_object() && q["headers"].contains("host") &&
      q["headers"]["host"].is_string() &&
      classify_host(q["headers"]["host"].get<std::string>()) == HostField::kInvalid)
    return "* host(invalid)";
  // A defect of its syntax, and a Host field, name different bugs than
  // the request's meaning (malformation.h, host.h).
  if (q.contains("malformed") && q["malformed"].is_string())
    s += " malformed(" + q["malformed"].get<std::string>() + ")";
  // A field sent blind (field_havoc.h): its name, so that each field's
  // answers (416, 400, 200...) count as kinds of their own.
  if (auto blind = havoc_line(q)) s += " blind(" + detail::lower(blind->name) + ")";
  if (!q.contains("headers") || !q["headers"].is_object()) return s;
  const Json& h = q["headers"];
  if (h.contains("host") && h["host"].is_string()) {
    const std::string& v = h["host"].get_ref<const std::string&>();
    const HostField f = classify_host(v);
    s += f == HostField::kInvalid ? " host(invalid)"
         : f == HostField::kOther ? " host(other)"
                                  : "";
  }
  for (const char* name : kPreconditions) {
    if (!h.contains(name)) continue;
    const std::string v = h[name].is_string() ? h[name].get<std::string>() : "";
    const bool date = std::string_view(name).ends_with("since");
    const bool ok = h[name].is_string() &&
                    (date ? parse_http_date(v).has_value() : valid_etag_field(v));
    s += std::string(" ") + name + (ok ? "" : "(invalid)");
  }
  return s;
}

std::string response_shape(const Json& r) {
  if (r.is_object() && r.contains("status") && r["status"].is_number_integer())
    return std::to_string(r["status"].get<long long>());
  return "";
}

std::string race_key(const Json& q) { return str_field(q, "path"); }

Json namespace_request(Json q, std::string_view prefix) {
  if (prefix.empty() || !q.is_object() || !q.contains("path") || !q["path"].is_string())
    return q;
  // A read of the site's own resources (--paths, discovery) goes to the path
  // as it is; anything else that names one (a mutant's PUT) goes to the
  // run's namespace instead, so that a run never writes the user's files.
  if (q.contains("site")) {  // (true, or "shared": --shared-server)
    const Json& m = q.contains("method") ? q["method"] : Json();
    if (m == "GET" || m == "HEAD" || m == "OPTIONS") return q;
    q.erase("site");
  }
  // A target that names no resource of the server stays as it is: CONNECT's
  // authority (RFC 9112 §3.2.3) and OPTIONS's asterisk (§3.2.4).
  if (q.value("method", Json()) == "CONNECT" || q["path"] == "*") return q;
  // The first segment gets the prefix, the rest keeps its hierarchy, so a
  // server's collections are collections (PROPFIND of a directory, COPY of
  // a tree) and a path's parent is its parent's image.
  auto rebase = [prefix](std::string path) {
    if (path.starts_with('/')) path.erase(0, 1);
    return "/" + std::string(prefix) + path;
  };
  q["path"] = rebase(q["path"].get<std::string>());
  // WebDAV's Destination names a path too (RFC 4918 §10.3): the same run's
  // namespace, so COPY and MOVE stay within it.
  if (q.contains("headers") && q["headers"].is_object())
    for (auto& [k, v] : q["headers"].items())
      if (v.is_string() && (k == "destination" || k == "Destination"))
        v = rebase_destination(v.get<std::string>(), rebase);
  return q;
}

std::vector<Json> related_values(const Json& v) {
  if (!v.is_string()) return {};
  const std::string& t = v.get_ref<const std::string&>();
  return {t.rfind("W/", 0) == 0 ? Json(t.substr(2)) : Json("W/" + t)};
}

std::vector<std::string> validators(const Json& response_ir) {
  std::vector<std::string> out;
  if (!response_ir.is_object() || !response_ir.contains("headers")) return out;
  const Json& h = response_ir["headers"];
  if (!h.is_object()) return out;
  for (const char* name : {"etag", "last-modified"})
    if (h.contains(name) && h[name].is_string())
      out.push_back(h[name].get<std::string>());
  return out;
}

void set_presentation(harness::Protocol& p) {
  p.request_label = request_label;
  p.response_label = response_label;
  p.describe_request = describe_request;
  p.describe_response = describe_response;
  p.request_kind = request_kind;
  p.request_shape = request_shape;
  p.response_shape = response_shape;
}

}  // namespace dualfuzz::http
