#include "dualfuzz/campaign/server_death.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "dualfuzz/campaign/signature.h"

extern char** environ;

namespace dualfuzz::campaign {

using harness::RunResult;
using harness::Script;

const char* death_kind_name(DeathKind k) {
  switch (k) {
    case DeathKind::Crash:
      return "crash";
    case DeathKind::Hang:
      return "hang";
    default:
      return "none";
  }
}

const char* death_headline(DeathKind k) {
  switch (k) {
    case DeathKind::Crash:
      return "the server died";
    case DeathKind::Hang:
      return "the server hung";
    default:
      return "the server is up";
  }
}

namespace {
bool cannot_open(const RunResult& r) {
  return r.outcome == RunResult::Outcome::Trouble &&
         r.detail.rfind("cannot open connection", 0) == 0;
}
bool timed_out(const std::string& error) {
  return error.find(" timed out") != std::string::npos;
}
// Requests of the tester's own connections (not a proxy's origin side).
bool client_request(const harness::LabelledTrace::Message& m) {
  return harness::is_request_label(m.label) && !harness::is_accepted_conn(m.conn);
}
}  // namespace

bool unreachable(const RunResult& r) { return cannot_open(r) && r.trace.size() == 0; }

bool refused(const RunResult& r) { return cannot_open(r) && !timed_out(r.detail); }

bool lost_answers(const RunResult& r) {
  if (r.went_silent || cannot_open(r)) return true;
  for (const auto& m : r.trace.messages())
    if (client_request(m) && !r.trace.contains(harness::response_label(m.label)))
      return true;
  return false;
}

bool answered_nothing(const RunResult& r) {
  return std::ranges::none_of(r.trace.messages(), [](const auto& m) {
    return !harness::is_request_label(m.label);
  });
}

Probe probe(const harness::Protocol& p, Target& t, std::chrono::milliseconds wait) {
  using Seen = Probe::Seen;
  if (!p.liveness_probe || p.origin) {
    // (A proxy's probe would be forwarded to the origin the tester plays.)
    auto ok = t.transport().open(harness::kMaxConn);
    if (!ok) return {timed_out(ok.error()) ? Seen::Silent : Seen::Refused, ok.error()};
    t.transport().close(harness::kMaxConn);
    return {Seen::Answered, "it accepted a connection"};
  }
  Script s;
  s.steps.push_back(
      harness::RequestStep{1, 0, harness::Jexp::from_json(*p.liveness_probe)});
  harness::RunOptions opts;
  opts.oracle = false;
  opts.message_timeout = wait;
  opts.run_namespace = t.reset();
  harness::Executor ex(p, t.transport(), opts);
  const RunResult r = ex.run(s);
  const std::string what = p.describe_request ? p.describe_request(*p.liveness_probe)
                                              : harness::dump_json(*p.liveness_probe);
  if (cannot_open(r)) {
    const std::string error = r.detail.substr(r.detail.find(": ") + 2);
    return {timed_out(error) ? Seen::Silent : Seen::Refused, error};
  }
  for (const auto& m : r.trace.messages())
    if (!harness::is_request_label(m.label)) return {Seen::Answered, "answered " + what};
  // Bytes that are no answer (a garbage status line) come from a server
  // that lives: the play's protocol violation is the finding, not a hang.
  if (r.outcome == RunResult::Outcome::ProtocolViolation)
    return {Seen::Answered, "answered " + what + " with bytes that are no response"};
  if (r.went_silent)
    return {Seen::Silent, what + " unanswered for " + std::to_string(wait.count()) +
                              " ms on a fresh connection"};
  return {Seen::Closed, "a fresh connection closed without an answer to " + what};
}

std::string refused_detail(const std::string& error) {
  return "it refused connections after it had taken requests (" + error + ")";
}

std::string refused_detail(const RunResult& r) {
  const auto colon = r.detail.find(": ");
  return refused_detail(colon == std::string::npos ? r.detail
                                                   : r.detail.substr(colon + 2));
}

Death confirm_death(const harness::Protocol& p, Target& t,
                    std::chrono::milliseconds wait) {
  using Seen = Probe::Seen;
  if (!t.external()) return {};
  int silent = 0;
  std::string seen;
  for (int i = 0; i < 3; ++i) {
    const Probe pr = probe(p, t, wait);
    switch (pr.seen) {
      case Seen::Answered:
        return {};
      case Seen::Refused:
        return {DeathKind::Crash, refused_detail(pr.detail)};
      case Seen::Silent:
        if (++silent == 2)
          return {DeathKind::Hang, "it accepted connections and answered nothing (" +
                                       pr.detail + ", twice)"};
        break;
      case Seen::Closed:
        // (It may be on its way out: the next look may be refused.)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        break;
    }
    seen += (seen.empty() ? "" : "; ") + pr.detail;
  }
  return {DeathKind::Hang, "it answered nothing (" + seen + ")"};
}

std::string request_signature(const harness::Protocol& p, const harness::Json& q) {
  std::string s = finding_shape(p, q);
  if (s.empty()) s = "request";
  // A field sent blind ("blind(if)") kills as the same field sent by its
  // generator would: npm webdav-server's untagged If list was two findings.
  for (std::size_t i; (i = s.find("blind(")) != std::string::npos;)
    if (const std::size_t close = s.find(')', i); close != std::string::npos)
      s = s.substr(0, i) + s.substr(i + 6, close - i - 6) + s.substr(close + 1);
    else
      break;
  if (!q.is_object() || !q.contains("headers") || !q["headers"].is_object()) return s;
  // The shape's words (a precondition, "blind(if)" names "if" too).
  std::set<std::string> named;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = s.find(' ', i);
    if (j == std::string::npos) j = s.size();
    std::string w = s.substr(i, j - i);
    if (auto open = w.find('('); open != std::string::npos) {
      named.insert(w.substr(0, open));
      if (w.back() == ')') named.insert(w.substr(open + 1, w.size() - open - 2));
    } else {
      named.insert(w);
    }
    i = j + 1;
  }
  std::set<std::string> names;
  for (const auto& [k, v] : q["headers"].items()) {
    std::string n = k;
    std::transform(n.begin(), n.end(), n.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (!named.count(n)) names.insert(n);
  }
  for (const std::string& n : names) s += " " + n;
  return s;
}

std::string death_signature(const harness::Protocol& p, DeathKind k,
                            const RunResult& run) {
  std::string list;
  for (const auto& m : run.trace.messages())
    if (client_request(m))
      list += (list.empty() ? "" : " ; ") + request_signature(p, m.ir);
  return std::string(death_kind_name(k)) + ": " + (list.empty() ? "(no request)" : list);
}

std::string death_quick_key(const harness::Protocol& p, DeathKind k,
                            const RunResult& run) {
  const harness::Json* pick = nullptr;
  for (const auto& m : run.trace.messages()) {
    if (!client_request(m)) continue;
    pick = &m.ir;
    if (!run.trace.contains(harness::response_label(m.label))) break;
  }
  return std::string(death_kind_name(k)) + ": " +
         (pick ? request_signature(p, *pick) : "(no request)");
}

Script taken(const Script& s, const RunResult& run) {
  Script out;
  bool any = false;
  for (const auto& st : s.steps) {
    if (const auto* q = std::get_if<harness::RequestStep>(&st)) {
      if (!run.trace.contains(q->label)) continue;
      any = true;
    } else if (const auto* w = std::get_if<harness::WaitStep>(&st)) {
      if (!run.trace.contains(w->label)) continue;
    } else if (const auto* a = std::get_if<harness::AnswerStep>(&st)) {
      if (!run.trace.contains(a->label)) continue;
    }
    out.steps.push_back(st);
  }
  // (Closes and comments after the last request sent say nothing.)
  while (!out.steps.empty() &&
         (std::holds_alternative<harness::CloseStep>(out.steps.back()) ||
          std::holds_alternative<harness::CommentStep>(out.steps.back())))
    out.steps.pop_back();
  if (!any || harness::validate(out)) return s;
  return out;
}

Restarter::~Restarter() { ended(); }

std::optional<std::string> Restarter::ended() {
  if (status_ || pid_ <= 0) return status_;
  int st = 0;
  if (::waitpid(pid_, &st, WNOHANG) != pid_) return std::nullopt;
  status_ = WIFEXITED(st) ? "exit " + std::to_string(WEXITSTATUS(st))
                          : "signal " + std::to_string(WTERMSIG(st));
  return status_;
}

Result<bool> Restarter::start() {
  if (pid_ > 0) {
    // What the previous start left in its group (a hung server it ran).
    if (::kill(-pid_, 0) == 0) ::kill(-pid_, SIGKILL);
    if (!ended()) {
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
  }
  pid_ = -1;
  status_.reset();
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t fa;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);
  std::string sh = "sh", c = "-c", cmd = command_;
  char* argv[] = {sh.data(), c.data(), cmd.data(), nullptr};
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return make_error("cannot run the restart command `" + command_ +
                      "`: " + std::strerror(rc));
  pid_ = pid;
  ++starts_;
  return true;
}

std::string death_report(const harness::Protocol& p, DeathKind k,
                         const std::string& detail, const RunResult& run,
                         harness::TraceFormat f) {
  RunResult shown = run;
  // (An outcome whose report adds no verdict line of its own.)
  shown.outcome = RunResult::Outcome::LivenessViolation;
  shown.detail = std::string(death_headline(k)) + ": " + detail + "\n";
  // The run's own notes (which connection closed with what unanswered).
  for (std::size_t i = 0; i < run.detail.size();) {
    std::size_t j = run.detail.find('\n', i);
    if (j == std::string::npos) j = run.detail.size();
    const std::string line = run.detail.substr(i, j - i);
    if (line.rfind("note: ", 0) == 0 || line.rfind("cannot open", 0) == 0)
      shown.detail += line + "\n";
    i = j + 1;
  }
  return shown.report(p, f);
}

}  // namespace dualfuzz::campaign
