#include "dualfuzz/harness/history_chart.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>

#include "dualfuzz/harness/sequence_chart.h"

namespace dualfuzz::harness {
namespace {
using oracle::Event;
using oracle::PartitionOutcome;

const char* status_name(PartitionOutcome::Status s) {
  switch (s) {
    case PartitionOutcome::Status::Explained:
      return "explained";
    case PartitionOutcome::Status::Violated:
      return "VIOLATED";
    case PartitionOutcome::Status::Unknown:
      return "Unknown (out of budget: no verdict)";
    case PartitionOutcome::Status::Unchecked:
      return "not checked";
  }
  return "?";
}

// One operation of a partition: its request, and its response if the
// history shows one (positions among the partition's observations).
struct Op {
  oracle::ConnId conn = 0;
  std::size_t start = 0;
  std::optional<std::size_t> end;
};

std::vector<Op> operations(const std::vector<Event>& trace, const PartitionOutcome& p) {
  std::vector<Op> ops;
  std::map<oracle::ConnId, std::deque<std::size_t>> waiting;  // conn -> ops, FIFO
  for (std::size_t j = 0; j < p.events.size(); ++j) {
    const Event& e = trace[p.events[j]];
    if (e.kind == Event::Kind::Request) {
      waiting[e.conn].push_back(ops.size());
      ops.push_back(Op{e.conn, j, std::nullopt});
    } else if (e.kind == Event::Kind::Response) {
      auto& w = waiting[e.conn];
      if (w.empty()) continue;
      ops[w.front()].end = j;
      w.pop_front();
    }
  }
  return ops;
}

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

// A partition as a timeline (one lane per client, x: the partition's
// observations in order): operations inside the longest explained prefix
// are green, the one whose response no order explains is red, those the
// search never reached grey, unanswered ones open-ended.
std::string partition_svg(const std::vector<Event>& trace, const PartitionOutcome& p) {
  const std::vector<Op> ops = operations(trace, p);
  std::map<oracle::ConnId, std::size_t> lane;
  for (const Op& o : ops) lane.emplace(o.conn, 0);
  std::size_t n = 0;
  for (auto& [c, l] : lane) l = n++;
  constexpr double kLeft = 60, kTop = 8, kStep = 6, kLane = 14;
  const double width = kLeft + kStep * static_cast<double>(p.events.size() + 1) + 10;
  const double height = kTop + kLane * static_cast<double>(n) + 10;
  const bool violated = p.status == PartitionOutcome::Status::Violated;
  std::string s =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"history-chart\" width=\"" +
      num(width) + "\" height=\"" + num(height) + "\">\n";
  for (const auto& [c, l] : lane)
    s += "<text class=\"client\" x=\"4\" y=\"" +
         num(kTop + kLane * static_cast<double>(l) + 10) + "\">client " +
         std::to_string(c) + "</text>\n";
  // The end of the explained prefix.
  const double cut = kLeft + kStep * static_cast<double>(p.explained);
  if (p.explained < p.events.size())
    s += "<line class=\"prefix\" x1=\"" + num(cut) + "\" y1=\"0\" x2=\"" + num(cut) +
         "\" y2=\"" + num(height) + "\"/>\n";
  for (const Op& o : ops) {
    std::string cls = "op ";
    if (o.end && *o.end < p.explained)
      cls += "explained";
    else if (violated && o.end && *o.end == p.explained)
      cls += "kill";
    else if (!o.end && p.status == PartitionOutcome::Status::Explained)
      cls += "explained open";
    else
      cls += o.end ? "beyond" : "beyond open";
    const double x1 = kLeft + kStep * static_cast<double>(o.start);
    const double x2 =
        kLeft + kStep * static_cast<double>(o.end ? *o.end : p.events.size());
    std::string tip = trace[p.events[o.start]].describe();
    if (o.end)
      tip += "\n" + trace[p.events[*o.end]].describe();
    else
      tip += "\n(no response in the history)";
    s += "<g class=\"" + cls + "\"><title>" + xml_escape(tip) + "</title><rect x=\"" +
         num(x1) + "\" y=\"" + num(kTop + kLane * static_cast<double>(lane[o.conn]) + 2) +
         "\" width=\"" + num(std::max(x2 - x1, 2.0)) + "\" height=\"" + num(kLane - 4) +
         "\" rx=\"2\"/></g>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace

std::string history_chart_html(std::string_view title, std::string_view model,
                               const std::vector<Event>& trace,
                               const oracle::HistoryCheck& c) {
  const oracle::Verdict& v = c.verdict;
  const std::string word = v.accepted()                                  ? "ACCEPTED"
                           : v.status == oracle::Verdict::Status::Reject ? "REJECTED"
                                                                         : "INCONCLUSIVE";
  std::string s =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
      xml_escape(title) +
      "</title>\n<style>body{font-family:sans-serif;margin:1.5em}pre{background:#f6f6f6;"
      "padding:.8em;overflow-x:auto}.scroll{overflow-x:auto}"
      ".explained rect{fill:#7c7}.kill rect{fill:#d00}.beyond rect{fill:#ccc}"
      ".open rect{fill-opacity:.4;stroke:#555;stroke-dasharray:2 2}"
      ".prefix{stroke:#d00;stroke-width:1.5;stroke-dasharray:4 3}"
      ".client{font-size:10px;fill:#555}h2.violated{color:#d00}"
      "</style>\n</head>\n<body>\n";
  s += "<h1>" + xml_escape(title) + ": " + word + "</h1>\n<p>Model " + xml_escape(model) +
       ", " + std::to_string(trace.size()) + " events, " +
       std::to_string(c.partitions.size()) +
       " partition(s). Per partition: the operations (bars from request to response, "
       "one lane per client) inside the longest prefix of the partition's history that "
       "some order of its operations explains (green), the operation whose response no "
       "order of the operations before it explains (red), and those past it (grey). A "
       "partition whose search ran out of budget is Unknown: it gives no verdict.</p>\n";
  if (!c.verdict.accepted())
    s += "<pre class=\"report\">" + xml_escape(c.verdict.explanation) + "</pre>\n";
  // Failing partitions first, the verdict's own before the others: they are
  // what a reader looks for.
  auto rank = [&](const PartitionOutcome& p) {
    if (p.status != PartitionOutcome::Status::Violated) return 2;
    const bool verdicts = c.verdict.status == oracle::Verdict::Status::Reject &&
                          p.explained < p.events.size() &&
                          p.events[p.explained] == c.verdict.event_index;
    return verdicts ? 0 : 1;
  };
  std::vector<const PartitionOutcome*> order;
  for (int r = 0; r < 3; ++r)
    for (const PartitionOutcome& p : c.partitions)
      if (rank(p) == r) order.push_back(&p);
  for (const PartitionOutcome* p : order) {
    const std::vector<Op> ops = operations(trace, *p);
    std::size_t explained = 0;
    for (const Op& o : ops) explained += o.end && *o.end < p->explained;
    const bool violated = p->status == PartitionOutcome::Status::Violated;
    s += "<h2" + std::string(violated ? " class=\"violated\"" : "") + ">Partition " +
         xml_escape(p->key.empty() ? "(the whole history)" : "\"" + p->key + "\"") +
         ": " + status_name(p->status) + "</h2>\n<p>" + std::to_string(ops.size()) +
         " operations; the longest explained prefix covers " +
         std::to_string(p->explained) + " of " + std::to_string(p->events.size()) +
         " observations (" + std::to_string(explained) + " completed operations).</p>\n";
    if (violated && p->explained < p->events.size())
      s += "<p>No order places the operation answered by event " +
           std::to_string(p->events[p->explained]) + ": <code>" +
           xml_escape(trace[p->events[p->explained]].describe()) + "</code></p>\n";
    if (!p->reasons.empty()) {
      s += "<pre class=\"reasons\">";
      for (const oracle::Reason& r : p->reasons)
        s += xml_escape("- " + (r.clause.empty() ? std::string() : r.clause + ": ") +
                        r.text) +
             "\n";
      s += "</pre>\n";
    }
    if (p->status != PartitionOutcome::Status::Unchecked)
      s += "<div class=\"scroll\">" + partition_svg(trace, *p) + "</div>\n";
  }
  s += "</body>\n</html>\n";
  return s;
}

}  // namespace dualfuzz::harness
