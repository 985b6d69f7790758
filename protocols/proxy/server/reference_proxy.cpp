#include "dualfuzz/proxy/reference_proxy.h"

#include <algorithm>
#include <stdexcept>

namespace dualfuzz::proxy {
namespace {

const char* const kVia = "1.1 dualfuzz";

std::string str(const Json& m, const char* k, const char* def = "") {
  return m.is_object() && m.contains(k) && m[k].is_string() ? m[k].get<std::string>()
                                                            : def;
}
bool conditional(std::string_view n) {
  return n == "if-match" || n == "if-none-match" || n == "if-modified-since" ||
         n == "if-unmodified-since" || n == "if-range";
}

}  // namespace

const std::vector<http::BugInfo>& planted_bugs() {
  static const std::vector<http::BugInfo> bugs = {
      {"connection-listed", "connection",
       "forwards the fields the client's Connection names (RFC 9110 §7.6.1)"},
      {"hop-by-hop", "connection",
       "forwards Keep-Alive, Proxy-Connection, TE and Upgrade even when Connection "
       "names them (§7.6.1)"},
      {"response-hop-by-hop", "connection",
       "relays the fields the origin's Connection names (§7.6.1)"},
      {"max-forwards-ignored", "max-forwards",
       "forwards TRACE/OPTIONS with Max-Forwards as received, 0 included (§7.6.2)"},
      {"no-via", "via", "forwards requests without Via (§7.6.3)"},
      {"no-via-response", "via", "relays responses without Via (§7.6.3)"},
      {"method-rewrite", "method", "forwards HEAD as GET (RFC 9110 §9.3.2)"},
      {"cross-talk", "mapping",
       "relays an origin's answer to the client of another busy origin connection"},
      {"drop-pipelined", "pipeline",
       "drops a request pipelined behind an unanswered one (RFC 9112 §9.3.2)"},
      {"chunked-body-lost", "framing",
       "relays a chunked answer with an empty body (RFC 9112 §7.1)"},
      {"out-of-order", "order",
       "relays answers as they come, not in request order (RFC 9112 §9.3.2)"},
      {"host-kept", "host",
       "forwards the client's Host instead of the target's authority (RFC 9112 §3.2.2)"},
      {"conditional-dropped", "conditional",
       "drops If-Match / If-None-Match / If-*-Since / If-Range (RFC 9110 §13)"},
  };
  return bugs;
}

bool is_known_bug(std::string_view name) {
  if (name.empty() || name == "none") return true;
  for (const auto& b : planted_bugs())
    if (b.name == name) return true;
  return false;
}

ReferenceProxy::ReferenceProxy(ReferenceOptions options)
    : bug_(options.bug == "none" ? "" : options.bug), mode_(options.mode) {
  if (!is_known_bug(bug_))
    throw std::invalid_argument("unknown planted proxy bug '" + bug_ + "'");
}

void ReferenceProxy::reset() {
  clients_.clear();
  origins_.clear();
  idle_.clear();
  next_origin_ = 0;
  next_slot_ = 1;
  out_.clear();
}

void ReferenceProxy::on_client_data(ConnId c, std::string_view bytes) {
  Client& cl = clients_[c];
  if (cl.closing) return;
  cl.parser.feed(bytes);
  std::vector<Json> got;
  while (auto q = cl.parser.next()) got.push_back(std::move(*q));
  for (Json& q : got) {
    // (A request behind an unanswered one of the same client is pipelined.)
    if (bug("drop-pipelined") && !cl.owed.empty()) continue;
    serve(c, std::move(q));
  }
  if (cl.parser.failed()) {
    cl.owed.push_back({next_slot_++,
                       http::print_response({{"status", 400},
                                             {"reason", "Bad Request"},
                                             {"headers", {{"connection", "close"}}}}),
                       true});
    cl.closing = true;
    flush(c);
  }
}

void ReferenceProxy::on_client_close(ConnId c) {
  clients_.erase(c);
  // What was not yet sent on it goes nowhere (a reopened connection with
  // the same number is another connection).
  std::erase_if(out_, [c](const Output& o) { return !o.to_origin && o.conn == c; });
}

void ReferenceProxy::serve(ConnId c, Json q) {
  Client& cl = clients_[c];
  const std::uint64_t slot = next_slot_++;
  const bool close =
      connection_options(q).count("close") > 0 || str(q, "version") == "HTTP/1.0";
  cl.owed.push_back({slot, std::nullopt, close});
  if (close) cl.closing = true;
  if (answered_by_proxy(q) && !bug("max-forwards-ignored")) {
    // "respond as the final recipient" (§7.6.2).
    Json r = {{"status", 200}, {"reason", "OK"}, {"headers", {{"via", kVia}}}};
    if (str(q, "method") == "OPTIONS") {
      r["headers"]["allow"] = "GET, HEAD, PUT, POST, DELETE, OPTIONS, TRACE";
    } else {
      r["headers"]["content-type"] = "message/http";
      r["body"] = str(q, "method") + " " + str(q, "path") + " HTTP/1.1";
    }
    fill({c, slot, str(q, "method")}, http::print_response(r), close);
    return;
  }
  forward(c, slot, q);
}

Json ReferenceProxy::forwarded_request(const Json& q) const {
  const auto listed = connection_options(q);
  const Target target = split_target(str(q, "path"));
  Json fwd = {{"method", str(q, "method", "GET")},
              {"path", forwarded_target(q, mode_)},
              {"headers", Json::object()},
              {"body", str(q, "body")}};
  if (bug("method-rewrite") && fwd["method"] == "HEAD") fwd["method"] = "GET";
  Json& h = fwd["headers"];
  std::string via;
  if (q.contains("headers") && q["headers"].is_object())
    for (const auto& [k, v] : q["headers"].items()) {
      if (k == "connection" || k == "content-length" || k == "transfer-encoding")
        continue;
      // (The bug: the names it knows are hop-by-hop are always passed on,
      // the others named in Connection never.)
      if (known_hop_by_hop(k) ? !bug("hop-by-hop")
                              : listed.count(k) && !bug("connection-listed"))
        continue;
      if (conditional(k) && bug("conditional-dropped")) continue;
      if (k == "via") {
        via = v.get<std::string>();
        continue;
      }
      h[k] = v;
    }
  if (mode_ == Mode::Forward && target.absolute && !bug("host-kept"))
    h["host"] = target.authority;
  if (auto n = max_forwards(q);
      n && *n > 0 && honours_max_forwards(q) && !bug("max-forwards-ignored"))
    h["max-forwards"] = std::to_string(*n - 1);
  if (!bug("no-via"))
    h["via"] = via.empty() ? kVia : via + ", " + kVia;
  else if (!via.empty())
    h["via"] = via;
  return fwd;
}

void ReferenceProxy::forward(ConnId c, std::uint64_t slot, const Json& q) {
  Json fwd = forwarded_request(q);
  ConnId o;
  if (!idle_.empty()) {
    o = idle_.back();
    idle_.pop_back();
  } else {
    o = next_origin_++;
  }
  Origin& org = origins_[o];
  org.parser.expect(fwd["method"].get<std::string>());
  org.carrying = Carried{c, slot, str(q, "method", "GET")};
  out_.push_back({true, o, http::print_request(fwd), false});
}

void ReferenceProxy::on_origin_data(ConnId o, std::string_view bytes) {
  auto it = origins_.find(o);
  if (it == origins_.end()) return;
  it->second.parser.feed(bytes);
  while (auto r = it->second.parser.next()) relay(o, std::move(*r));
  if (it->second.parser.failed()) on_origin_close(o);
}

void ReferenceProxy::on_origin_close(ConnId o) {
  auto it = origins_.find(o);
  if (it == origins_.end()) return;
  std::optional<Carried> lost = it->second.carrying;
  origins_.erase(it);
  std::erase(idle_, o);
  out_.push_back({true, o, "", true});
  if (lost)
    fill(*lost,
         http::print_response(
             {{"status", 502}, {"reason", "Bad Gateway"}, {"headers", {{"via", kVia}}}}));
}

std::string ReferenceProxy::relayed_response(const Json& a,
                                             const std::string& method) const {
  const auto listed = connection_options(a);
  Json r = {{"status", a.value("status", 502)},
            {"reason", str(a, "reason", "Relayed")},
            {"headers", Json::object()},
            {"body", str(a, "body")}};
  std::string via;
  if (a.contains("headers") && a["headers"].is_object())
    for (const auto& [k, v] : a["headers"].items()) {
      if (k == "connection" || k == "content-length" || k == "transfer-encoding")
        continue;
      if ((listed.count(k) || known_hop_by_hop(k)) && !bug("response-hop-by-hop"))
        continue;
      if (k == "via") {
        via = v.get<std::string>();
        continue;
      }
      r["headers"][k] = v;
    }
  if (!bug("no-via-response"))
    r["headers"]["via"] = via.empty() ? kVia : via + ", " + kVia;
  else if (!via.empty())
    r["headers"]["via"] = via;
  if (bug("chunked-body-lost") && a.contains("headers") &&
      a["headers"].value("transfer-encoding", "") == "chunked")
    r["body"] = "";
  return http::print_response(r, {.chunked = false, .head = method == "HEAD"});
}

void ReferenceProxy::relay(ConnId o, Json answer) {
  Origin& org = origins_[o];
  if (!org.carrying) return;  // an answer nobody asked for
  Carried to = *org.carrying;
  org.carrying.reset();
  if (bug("cross-talk"))
    for (auto& [other, busy] : origins_)
      if (other != o && busy.carrying && busy.carrying->client != to.client) {
        std::swap(to, *busy.carrying);
        break;
      }
  const bool close = connection_options(answer).count("close") > 0;
  fill(to, relayed_response(answer, to.method));
  if (close) {
    on_origin_close(o);
  } else {
    idle_.push_back(o);
  }
}

void ReferenceProxy::fill(const Carried& to, std::string bytes, bool close_after) {
  auto it = clients_.find(to.client);
  if (it == clients_.end()) return;  // the client is gone
  for (Slot& s : it->second.owed)
    if (s.id == to.slot) {
      s.bytes = std::move(bytes);
      s.close_after = s.close_after || close_after;
    }
  flush(to.client);
}

void ReferenceProxy::flush(ConnId c) {
  Client& cl = clients_[c];
  while (!cl.owed.empty()) {
    auto ready = cl.owed.begin();
    if (bug("out-of-order"))
      ready = std::find_if(cl.owed.begin(), cl.owed.end(),
                           [](const Slot& s) { return s.bytes.has_value(); });
    if (ready == cl.owed.end() || !ready->bytes) return;
    const bool close = ready->close_after;
    out_.push_back({false, c, std::move(*ready->bytes), close});
    cl.owed.erase(ready);
    if (close) {
      cl.owed.clear();
      return;
    }
  }
}

std::vector<ReferenceProxy::Output> ReferenceProxy::poll() {
  std::vector<Output> out;
  out.swap(out_);
  return out;
}

}  // namespace dualfuzz::proxy
