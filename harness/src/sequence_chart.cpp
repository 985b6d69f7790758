#include "dualfuzz/harness/sequence_chart.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace dualfuzz::harness {
namespace {

using Outcome = RunResult::Outcome;
using oracle::Event;

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Pass:
      return "pass";
    case Outcome::ModelViolation:
      return "model";
    case Outcome::ProtocolViolation:
      return "protocol";
    case Outcome::LivenessViolation:
      return "liveness";
    case Outcome::Trouble:
      return "trouble";
    case Outcome::InternalError:
      return "internal-error";
  }
  return "?";
}

// Numbers and quoted strings blanked: what stays is the shape of a sentence
// ("expected N, observed N"), which shrinking does not change.
std::string shape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    if (ch == '"') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != '"') j += (s[j] == '\\') ? 2 : 1;
      out += "S";
      i = std::min(j, s.size());
    } else if (std::isdigit(static_cast<unsigned char>(ch))) {
      while (i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) ++i;
      out += "N";
    } else {
      out += ch;
    }
  }
  return out;
}

// A message in a few words, as the protocol names it ("PUT /a", "412").
// On a connection the server opened to the tester (a proxy's origin side),
// what the tester sends is an answer and what it receives a request.
bool carries_request(const Event& e) {
  return (e.kind == Event::Kind::Request) != is_accepted_conn(e.conn);
}
std::string summary(const Protocol& p, const Event& e) {
  if (e.kind == Event::Kind::Request || e.kind == Event::Kind::Response)
    return oracle::clip_text(
        carries_request(e) ? p.request_label(e.payload()) : p.response_label(e.payload()),
        30);
  return oracle::clip_text(dump_json(e.payload()), 30);
}

// An arrow's tooltip: the message as the report describes it, then its
// payload in full (the description may leave values out).
std::string tooltip(const Protocol& p, const Event& e) {
  std::string d = carries_request(e) ? p.describe_request(e.payload())
                                     : p.describe_response(e.payload());
  // (A protocol without the hook: its JSON is already in the payload.)
  if (d == Protocol::default_describe(e.payload())) return e.describe();
  return d + "\n" + e.describe();
}

// The request a response answers (for its method), from the events.
const Event* request_for(const std::vector<Event>& events, const Event& resp) {
  if (resp.label == 0) return nullptr;
  for (const Event& e : events)
    if (e.kind == Event::Kind::Request && e.label == request_of(resp.label)) return &e;
  return nullptr;
}

std::vector<std::string> wrap_lines(const std::string& text, std::size_t width) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    std::string line =
        text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    // Continuation lines are indented under their first line.
    std::string indent;
    while (indent.size() < line.size() && line[indent.size()] == ' ') indent += ' ';
    indent += "    ";
    while (line.size() > width) {
      std::size_t cut = line.rfind(' ', width);
      if (cut == std::string::npos || cut <= indent.size()) cut = width;
      out.push_back(line.substr(0, cut));
      line = indent + line.substr(cut + (line[cut] == ' ' ? 1 : 0));
    }
    out.push_back(line);
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  while (!out.empty() && out.back().empty()) out.pop_back();
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

// Lifelines: connections in order of appearance (the server is drawn apart).
std::vector<ConnId> lifelines(const RunResult& r) {
  std::vector<ConnId> conns;
  for (const Event& e : r.events)
    if (std::find(conns.begin(), conns.end(), e.conn) == conns.end())
      conns.push_back(e.conn);
  return conns;
}

std::string lifeline_name(const RunResult& r, ConnId mc) {
  // A reopened connection has a model id above kMaxConn; its script
  // connection is the one its requests were sent on.
  if (mc <= kMaxConn) return "c" + std::to_string(mc);
  if (is_accepted_conn(mc))
    return "origin " + oracle::origin_name(mc);
  for (const Event& e : r.events)
    if (e.conn == mc && e.kind == Event::Kind::Request)
      if (auto c = r.trace.conn_of(e.label)) return "c" + std::to_string(*c) + " (again)";
  return "conn " + std::to_string(mc);
}

struct Extra {  // a red arrow for something that never became a message
  ConnId conn;
  std::string text;
};
// Unanswered requests (liveness) or the unparseable response; may add the
// connection of the latter to `conns`.
std::vector<Extra> missing_messages(const RunResult& r, std::vector<ConnId>& conns) {
  std::vector<Extra> extras;
  if (r.outcome == Outcome::LivenessViolation) {
    std::set<Label> answered;
    for (const Event& e : r.events)
      if (e.kind == Event::Kind::Response) answered.insert(request_of(e.label));
    for (const Event& e : r.events)
      if (e.kind == Event::Kind::Request && !answered.count(e.label))
        extras.push_back({e.conn, "no response to " + std::to_string(e.label)});
  } else if (r.outcome == Outcome::ProtocolViolation) {
    std::size_t at = r.detail.find(" on c");
    if (at != std::string::npos) {
      ConnId c = static_cast<ConnId>(std::atoi(r.detail.c_str() + at + 5));
      if (std::find(conns.begin(), conns.end(), c) == conns.end()) conns.push_back(c);
      extras.push_back({c, "unparseable response"});
    }
  }
  return extras;
}

// The <svg> element's opening, arrow markers, styles and title.
std::string svg_head(double width, double height, double left, std::string_view title) {
  std::string s;
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sequence-chart\" width=\"" +
       num(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(width) +
       " " + num(height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  s += "<defs>"
       "<marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
       "markerWidth=\"9\" markerUnits=\"userSpaceOnUse\" "
       "markerHeight=\"9\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" "
       "fill=\"#333\"/></marker>"
       "<marker id=\"arrow-kill\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
       "markerWidth=\"9\" markerHeight=\"9\" markerUnits=\"userSpaceOnUse\" "
       "orient=\"auto-start-reverse\"><path "
       "d=\"M0,0 L10,5 L0,10 z\" fill=\"#d00\"/></marker>"
       "</defs>\n";
  s += "<style>.kill line{stroke:#d00;stroke-width:2.5}.kill "
       "text{fill:#d00;font-weight:bold}"
       ".explanation{font-family:monospace;white-space:pre}</style>\n";
  s += "<text class=\"title\" x=\"" + num(left) +
       "\" y=\"22\" font-size=\"15\" "
       "font-weight=\"bold\">" +
       xml_escape(title) + "</text>\n";

  return s;
}

std::string svg_body(const Protocol& p, const RunResult& r, std::string_view title) {
  const auto& ev = r.events;
  std::vector<ConnId> conns = lifelines(r);
  auto name_of = [&](ConnId mc) { return lifeline_name(r, mc); };
  // The highlighted messages.
  std::optional<std::size_t> kill;
  if (r.outcome == Outcome::ModelViolation && r.verdict.event_index < ev.size())
    kill = r.verdict.event_index;
  const std::vector<Extra> extras = missing_messages(r, conns);

  const double col = 180, left = 30, top = 40, head_h = 26, row = 30;
  const double server_x = left + col * static_cast<double>(conns.size()) + 60;
  auto x_of = [&](ConnId c) {
    auto it = std::find(conns.begin(), conns.end(), c);
    return left + 40 + col * static_cast<double>(it - conns.begin());
  };
  std::size_t rows = extras.size();
  for (const Event& e : ev) rows += e.kind != Event::Kind::Open;
  const double body_top = top + head_h + 24;
  const double body_bottom = body_top + row * static_cast<double>(rows) + 10;

  std::string explanation = r.detail;
  if (r.outcome == Outcome::Pass) explanation = "no violation\n" + explanation;
  if (r.outcome == Outcome::Trouble) explanation = "could not run: " + explanation;
  const std::size_t wrap = 130;
  std::vector<std::string> lines = wrap_lines(explanation, wrap);
  const double line_h = 15;
  const double width = std::max(server_x + 80, left + 7.3 * wrap + 20);
  const double height =
      body_bottom + 30 + line_h * static_cast<double>(lines.size()) + 20;

  std::string s = svg_head(width, height, left, title);
  auto lifeline = [&](double x, const std::string& name, bool server) {
    s += "<g class=\"lifeline" + std::string(server ? " server" : "") + "\">";
    s += "<rect x=\"" + num(x - 45) + "\" y=\"" + num(top) + "\" width=\"90\" height=\"" +
         num(head_h) + "\" rx=\"4\" fill=\"" + (server ? "#dde8f5" : "#eee") +
         "\" stroke=\"#555\"/>";
    s += "<text x=\"" + num(x) + "\" y=\"" + num(top + 17) +
         "\" text-anchor=\"middle\">" + xml_escape(name) + "</text>";
    s += "<line x1=\"" + num(x) + "\" y1=\"" + num(top + head_h) + "\" x2=\"" + num(x) +
         "\" y2=\"" + num(body_bottom) + "\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>";
    s += "</g>\n";
  };
  for (ConnId c : conns) lifeline(x_of(c), name_of(c), false);
  lifeline(server_x, "server", true);

  double y = body_top;
  auto arrow = [&](const std::string& cls, double x1, double x2, const std::string& label,
                   const std::string& tooltip, bool red, bool dashed) {
    s += "<g class=\"msg " + cls + (red ? " kill" : "") + "\">";
    s += "<title>" + xml_escape(tooltip) + "</title>";
    s += "<line x1=\"" + num(x1) + "\" y1=\"" + num(y) + "\" x2=\"" + num(x2) +
         "\" y2=\"" + num(y) + "\" stroke=\"#333\" stroke-width=\"1.3\"" +
         (dashed ? " stroke-dasharray=\"6 3\"" : "") + " marker-end=\"url(#" +
         (red ? "arrow-kill" : "arrow") + ")\"/>";
    s += "<text x=\"" + num(std::min(x1, x2) + 8) + "\" y=\"" + num(y - 5) + "\">" +
         xml_escape(label) + "</text>";
    s += "</g>\n";
    y += row;
  };
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    const double cx = x_of(e.conn);
    const bool red = kill && *kill == i;
    switch (e.kind) {
      case Event::Kind::Open:
        break;
      case Event::Kind::Request:
        arrow("request", cx, server_x, std::to_string(e.label) + " " + summary(p, e),
              tooltip(p, e), red, false);
        break;
      case Event::Kind::Response: {
        std::string lab = e.label ? std::to_string(e.label) + " " : "(unsolicited) ";
        std::string text = summary(p, e);
        if (const Event* q = request_for(ev, e)) {
          std::string m = p.request_kind(q->payload());
          if (!m.empty() && text.size() < 6) text += " (" + m + ")";
        }
        arrow("response", server_x, cx, lab + text, tooltip(p, e), red, false);
        break;
      }
      case Event::Kind::Close:
        s += "<g class=\"close" + std::string(red ? " kill" : "") + "\"><title>" +
             xml_escape(e.describe()) + "</title>";
        s += "<line x1=\"" + num(cx - 6) + "\" y1=\"" + num(y - 6) + "\" x2=\"" +
             num(cx + 6) + "\" y2=\"" + num(y + 6) +
             "\" stroke=\"#333\" stroke-width=\"2\"/>";
        s += "<line x1=\"" + num(cx - 6) + "\" y1=\"" + num(y + 6) + "\" x2=\"" +
             num(cx + 6) + "\" y2=\"" + num(y - 6) +
             "\" stroke=\"#333\" stroke-width=\"2\"/>";
        s += "<text x=\"" + num(cx + 10) + "\" y=\"" + num(y + 4) +
             "\">close</text></g>\n";
        y += row;
        break;
    }
  }
  for (const Extra& x : extras)
    arrow("missing", server_x, x_of(x.conn), x.text, x.text, true, true);

  double ty = body_bottom + 30;
  s += "<g class=\"explanation\">";
  for (const std::string& l : lines) {
    s += "<text x=\"" + num(left) + "\" y=\"" + num(ty) + "\" xml:space=\"preserve\">" +
         xml_escape(l) + "</text>";
    ty += line_h;
  }
  s += "</g>\n</svg>\n";
  return s;
}

}  // namespace

std::string xml_escape(std::string_view in) {
  std::string out;
  out.reserve(in.size() + 16);
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  const std::size_t n = in.size();
  for (std::size_t i = 0; i < n;) {
    unsigned char c = p[i];
    if (c < 0x80) {
      switch (c) {
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '"':
          out += "&quot;";
          break;
        case '\'':
          out += "&#39;";
          break;
        case '\n':
        case '\t':
          out += static_cast<char>(c);
          break;
        default:
          if (c < 0x20 || c == 0x7f)
            out += "\xEF\xBF\xBD";  // not allowed in XML
          else
            out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence is copied; anything else becomes U+FFFD.
    std::size_t len = (c >= 0xC2 && c <= 0xDF)   ? 2
                      : (c >= 0xE0 && c <= 0xEF) ? 3
                      : (c >= 0xF0 && c <= 0xF4) ? 4
                                                 : 0;
    bool ok = len > 0 && i + len <= n;
    for (std::size_t k = 1; ok && k < len; ++k) ok = (p[i + k] & 0xC0) == 0x80;
    if (ok && len == 3) {
      ok = !(c == 0xE0 && p[i + 1] < 0xA0) && !(c == 0xED && p[i + 1] >= 0xA0);
    } else if (ok && len == 4) {
      ok = !(c == 0xF0 && p[i + 1] < 0x90) && !(c == 0xF4 && p[i + 1] >= 0x90);
    }
    if (ok) {
      out.append(in.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

namespace {
std::string report_head(const Script& script, const RunResult& r,
                        std::string_view target) {
  std::string head;
  switch (r.outcome) {
    case Outcome::Pass:
      head = "no violation";
      break;
    case Outcome::Trouble:
      head = "could not run";
      break;
    case Outcome::InternalError:
      head = "internal error";
      break;
    default:
      head = "functional violation";
  }
  return "==dualfuzz== " + head + " (" + std::string(target) + ")\n--- script\n" +
         print_script(script) + "--- ";
}
}  // namespace

std::string run_report(const Script& script, const RunResult& r,
                       std::string_view target) {
  return report_head(script, r, target) + r.report();
}

std::string run_report(const Protocol& p, const Script& script, const RunResult& r,
                       std::string_view target, TraceFormat f) {
  return report_head(script, r, target) + r.report(p, f);
}

std::string violation_key(const Protocol& p, const RunResult& r) {
  if (!r.violation()) return "";
  std::string key = outcome_name(r.outcome);
  if (r.outcome == Outcome::ProtocolViolation) {
    // "PROTOCOL VIOLATION on cN: <what>": the what, without offsets or bytes.
    std::string first = r.detail.substr(0, r.detail.find('\n'));
    std::size_t colon = first.find(": ");
    return key + ": " +
           shape(colon == std::string::npos ? first : first.substr(colon + 2));
  }
  if (r.outcome != Outcome::ModelViolation) return key;
  if (r.verdict.event_index < r.events.size()) {
    const Event& e = r.events[r.verdict.event_index];
    switch (e.kind) {
      case Event::Kind::Open:
        key += " open";
        break;
      case Event::Kind::Close:
        key += " close";
        break;
      case Event::Kind::Request:
        key += " request " + p.request_kind(e.payload());
        break;
      case Event::Kind::Response: {
        const Event* q = request_for(r.events, e);
        key += " response " + (q ? p.request_kind(q->payload()) : std::string("?")) +
               " " + p.response_shape(e.payload());
        break;
      }
    }
  }
  // What was wrong, per reason the explanations died for: not the values,
  // nor how many hypotheses said it.
  for (const auto& x : reason_keys(r)) key += "\n" + x;
  return key;
}

std::set<std::string> reason_keys(const RunResult& r) {
  std::set<std::string> out;
  if (r.outcome != Outcome::ModelViolation) return out;
  for (const oracle::Reason& x : r.reasons())
    out.insert(x.kind == oracle::Reason::Kind::Mismatch
                   ? shape(x.location)
                   : std::string(oracle::kind_name(x.kind)));
  return out;
}

std::string sequence_chart_svg(const Protocol& p, const RunResult& r,
                               std::string_view title) {
  return svg_body(p, r, title);
}

std::string sequence_chart_html(const Protocol& p, const Script& script,
                                const RunResult& r, std::string_view title) {
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
      xml_escape(title) +
      "</title>\n<style>body{font-family:sans-serif;margin:1.5em}pre{background:#f6f6f6;"
      "padding:.8em;overflow-x:auto}</style>\n</head>\n<body>\n";
  s += svg_body(p, r, title);
  s += "<h2>Script</h2>\n<pre class=\"script\">" + xml_escape(print_script(script)) +
       "</pre>\n";
  s += "<h2>Report</h2>\n<pre class=\"report\">" + xml_escape(r.report(p)) + "</pre>\n";
  s += "</body>\n</html>\n";
  return s;
}

}  // namespace dualfuzz::harness
