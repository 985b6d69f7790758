// A protocol plugs into dualfuzz with three things (DESIGN.md): a codec
// (bytes <-> IR), a server model, and generation heuristics (functions for
// J-expression references; generators come with the mutator).
//
//   Protocol http = dualfuzz::http::protocol();
//   auto parser = http.new_response_stream();
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/harness/function_registry.h"
#include "dualfuzz/harness/jexp.h"
#include "dualfuzz/oracle/server_model.h"

namespace dualfuzz::harness {

// Incremental response decoding for one connection.
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  virtual void expect(const Json& request_ir) = 0;  // per request sent, in order
  virtual void feed(std::string_view bytes) = 0;
  virtual void on_eof() = 0;
  virtual std::optional<Json> next() = 0;  // response IR, normalized for the model
  virtual bool failed() const = 0;
  virtual std::string error() const = 0;
};

struct Protocol {
  std::string name;
  std::function<std::string(const Json& request_ir)> print_request;
  // The IR the server parses from `printed` = print_request(ir): what the
  // trace and the model see. Optional (identity), but a printer that repairs
  // or drops anything needs it, or the model judges a request never sent.
  std::function<Json(const Json& request_ir, std::string_view printed)> canonical_request;
  std::function<std::unique_ptr<ResponseStream>()> new_response_stream;
  // Whether the server must close the connection once `response` (to
  // `request`) is sent and process no request after it (HTTP: a close
  // option in either message, RFC 9112 §9.6). The tester then closes it as
  // soon as it has read that response, as a client must; requests it had
  // pipelined behind are those of a closed connection (never answered,
  // perhaps never processed), and a later request on the same connection
  // name opens a new one. Null: never.
  std::function<bool(const Json& request, const Json& response)> closes_after;
  // Rules each message must follow on its own, beside the model's judgement
  // of the server's state (optional; HTTP: RFC 9110/9112's rules on a
  // response, e.g. a 405's Allow, no Content-Length in a 204, field
  // grammars). One checker per run, told each request as sent and each
  // response as received, in that order. A broken MUST stops the run as a
  // protocol violation (RuleBreak::text is its identity); a broken SHOULD
  // is an advisory (RunResult::advisory), or a violation when `strict_rules`.
  struct RuleBreak {
    std::string clause;  // "RFC 9110 §8.6"
    bool must = true;    // MUST / MUST NOT; false: SHOULD / SHOULD NOT
    std::string text;    // what is wrong, without the values seen (stable)
    std::string detail;  // the values seen
  };
  class MessageRules {
   public:
    virtual ~MessageRules() = default;
    virtual void sent(const Json& request) = 0;
    // `request`: the one `response` answers (null when none was pending).
    virtual std::vector<RuleBreak> received(const Json* request,
                                            const Json& response) = 0;
  };
  std::function<std::unique_ptr<MessageRules>()> new_message_rules;
  bool strict_rules = false;  // every rule a MUST (--strict)
  std::function<oracle::ServerModel()> model;
  // `model` with every SHOULD of the specification read as a MUST
  // (optional). A trace `model` accepts and this one rejects departs from a
  // recommendation only: an advisory (RunResult::advisory), reported apart
  // and never a violation; `--strict` judges by it (campaign::strict).
  std::function<oracle::ServerModel()> recommended;
  // Weaker consistencies than `model`'s, strongest first. `model` takes
  // every request as atomic (a trace must be linearizable); a protocol's
  // specification seldom demands that (RFC 9110 does not), so it may offer
  // the same model with requests that take effect over an interval. A model
  // violation that a weaker consistency explains broke atomicity only, not
  // the protocol (campaign::classify); `--consistency NAME` tests against
  // one of them instead (campaign::with_consistency).
  struct Consistency {
    std::string name;     // "interval"
    std::string summary;  // one line, for --help and reports
    std::function<oracle::ServerModel()> model;
    std::function<oracle::ServerModel()> recommended;  // as Protocol::recommended
    // Whether a trace it explains counts as merely not linearizable. False
    // for a consistency so weak that explaining is no evidence (a user may
    // still test against it): its findings stay the protocol's, with a note.
    bool classifies = true;
  };
  std::vector<Consistency> weaker;
  // The name of `model`'s consistency, for reports.
  std::string consistency = "atomic";
  // What a user may tell the tester about their server (`--assume NAME`,
  // campaign::assume): each sets the models (`model`, `recommended`,
  // `weaker`) to ones that take it for granted. HTTP: "writable", a server
  // that never refuses PUT or DELETE. Applied before a consistency is picked.
  struct Assumption {
    std::string name;
    std::string summary;  // one line, for --help and reports
    std::function<void(Protocol&)> apply;
  };
  std::vector<Assumption> assumptions;
  // Optional: the name of an assumption an answer of the server implies
  // (HTTP: "http10" for an answer in HTTP/1.0, whose sender claims
  // HTTP/1.0's requirements only), or "". `dualfuzz fuzz` and `run` read
  // one answer first and take it.
  std::function<std::string(const Json& response_ir)> implied_assumption;
  // The assumptions applied so far, for reports ("" : none).
  std::string assumed;
  FunctionRegistry functions = FunctionRegistry::with_builtins();
  // Generation heuristics (thesis §5.2): a new request given the requests
  // before it (state-based: paths already used; trace-based: references to
  // labels of earlier responses), and a small change to an existing one.
  struct Context {
    std::vector<Jexp> earlier;          // earlier request bodies, in order
    std::vector<Label> earlier_labels;  // their labels
  };
  std::function<Jexp(std::mt19937_64&, const Context&)> generate_request;
  std::function<Jexp(std::mt19937_64&, const Jexp&, const Context&)> mutate_request;
  // Optional: a request that changes what the answer to `source` described
  // (HTTP: other content at its path), or nullopt. The mutator puts one
  // between a response and a later request that refers to it, so that the
  // reference names the state before a change: a stale validator, which a
  // server that remembers old tags answers 304 to (thesis §5.2's
  // trace-based generation, aimed at the shape a fresh reference lacks).
  std::function<std::optional<Jexp>(std::mt19937_64&, const Jexp& source, const Context&)>
      supersede;
  // Targeted mutation (optional): in `request_ir` as sent, the field that
  // carried `old_value` as the model read it (an entity tag, a date as
  // seconds), rewritten to carry `new_value`: {field name, new text}.
  struct Retarget {
    std::string field;
    std::string text;
  };
  std::function<std::optional<Retarget>(const Json& request_ir, const Json& old_value,
                                        const Json& new_value)>
      retarget;
  // ... and that field written into `request`, a script's request (e.g. a
  // header into HTTP's "headers" object, replacing one of the same name):
  // where the protocol keeps its fields is its own. Nullopt when `request`
  // cannot carry it. Targeted mutation needs both hooks.
  std::function<std::optional<Jexp>(const Jexp& request, const Retarget& field)>
      apply_retarget;
  // Values worth trying next to one the solver picked for a hidden choice
  // (e.g. the same tag with a protocol's marker added or removed).
  std::function<std::vector<Json>(const Json& value)> related_values = [](const Json&) {
    return std::vector<Json>{};
  };
  // The values in a response that name the state it answered from (HTTP:
  // its ETag and Last-Modified, not its Date, a clock reading): a request
  // field equal to one (or to a related_values of one) is classed
  // "current" ("related") in a finding's identity (campaign/signature.h).
  // Unset: every string value of the response's "headers".
  std::function<std::vector<std::string>(const Json& response_ir)> validators;
  // Fields of a request object the shrinker never drops (a request without
  // them is not a request of this protocol).
  std::vector<std::string> required_fields;
  // Functions (of `functions`) that move a copied value one step (HTTP:
  // "earlier", "later", a date a second either way). The shrinker tries a
  // reference that copies a value as it is through each, last: a violation
  // that showed only when a comparison fell on its boundary (a Date within
  // the second of the file's time) shows off it on every replay.
  std::vector<std::string> nudges;
  // A request that reads, without changing it, the state `request` (a
  // script's request) acts on, and where its answer gives a value like
  // `value` (`function` of `field`). The shrinker asks for one for each
  // literal of a failing request that no earlier answer of its run gave:
  // a value the fuzzer carried over from another run (nginx's entity tag, a
  // file's time in hex, when nginx's 201 carries none) matches only within
  // its second. Sent first, with its answer awaited, and the literal made a
  // reference to it, the request asks the same on every replay. HTTP: a GET
  // of the path, for a value that is an entity tag. Unset or nullopt: none.
  struct Probe {
    Jexp request;
    Jpath field;
    std::string function = "id";
  };
  std::function<std::optional<Probe>(const Jexp& request, const Json& value)> probe;
  // Per-run namespacing against an external server: `request_ir` rewritten
  // so that runs with different `run_prefix`es touch disjoint state.
  std::function<Json(Json request_ir, std::string_view run_prefix)> namespace_request =
      [](Json q, std::string_view) { return q; };

  // The tester as an origin server as well (optional; a proxy's origin,
  // docs/proxy.md): the server under test connects to the tester and
  // forwards requests, which `answer` steps (or default_answer) answer.
  struct Origin {
    // Decodes the requests forwarded on one accepted connection, in order
    // (a ResponseStream whose messages are requests; expect() is not called).
    std::function<std::unique_ptr<ResponseStream>()> new_forward_stream;
    // The bytes of an answer to `forwarded`, and the IR the server parses
    // from them (what the trace and the model see).
    std::function<std::string(const Json& answer_ir, const Json& forwarded_ir)>
        print_answer;
    std::function<Json(const Json& answer_ir, const Json& forwarded_ir,
                       std::string_view printed)>
        canonical_answer;
    // The answer to a forwarded request no `answer` step is left for.
    std::function<Json(const Json& forwarded_ir)> default_answer;
    // Whether the server must answer `request_ir` itself and never forward
    // it (HTTP: TRACE or OPTIONS with Max-Forwards 0, RFC 9110 §7.6.2), so
    // that no `answer` step waits for its forward; a server that forwards it
    // anyway is still seen, its forward read when it comes. Null: any
    // request may be forwarded.
    std::function<bool(const Json& request_ir)> never_forwarded;
    // Whether `request_ir` ends its connection once answered (HTTP: a
    // `close` option or HTTP/1.0, RFC 9112 §9.6): the server SHOULD NOT
    // process what is pipelined behind it, so no `answer` step waits for
    // those forwards either. Null: none does.
    std::function<bool(const Json& request_ir)> ends_connection;
    // Whether the origin must close the connection once this answer is sent
    // (HTTP: a `close` connection option in either message, RFC 9112 §9.6);
    // null: never.
    std::function<bool(const Json& forwarded_ir, const Json& answer_ir)> closes_after;
    // Whether `forwarded_ir` was made for another run than the one whose
    // namespace is `run_prefix` (Protocol::namespace_request): a request of
    // an earlier execution the server forwards late (a proxy may still
    // forward what a closed client had pipelined). The executor answers it
    // with default_answer and neither records nor judges it
    // (RunResult::late_forwards). Null: none is told apart.
    std::function<bool(const Json& forwarded_ir, std::string_view run_prefix)>
        of_another_run;
    // Optional: whether a forwarded request names no run's namespace at all
    // ("*", or the "/" of an absolute-form with an empty path). In a run
    // that sent no request outside its namespace, such a forward is an
    // earlier run's too. Null: it is judged.
    std::function<bool(const Json& forwarded_ir, std::string_view run_prefix)>
        names_no_run;
    // A new answer body for the forwarded request labelled `forwarded`
    // (the mutator inserts `answer` steps with it; null: it does not).
    std::function<Jexp(std::mt19937_64&, Label forwarded)> generate_answer;
    // HOST:PORT where the tester listens as the origin when the server runs
    // outside this process (the address a real proxy is configured to
    // forward to); empty: only an in-process server can be tested.
    std::string listen;
    // The clause a forwarded request breaks when no request the server
    // received explains it (the oracle's "nothing outstanding" on an origin
    // connection: a request the server made up, sent twice, or changed past
    // recognition). Empty: such a reason names none.
    std::string unexplained_clause;
  };
  std::optional<Origin> origin;

  // The resources the server held before the run (optional; HTTP: the
  // site's own paths, http/site.h), read as they are and judged as unknown
  // but fixed. The fuzz loop's first scripts read them (campaign/site.h):
  // the paths the user named, or those found by following `links` from
  // `start`.
  struct Site {
    std::vector<std::string> start;                     // where discovery begins
    std::function<Json(const std::string& path)> read;  // one plain read
    // The paths an answer to a read of `path` names.
    std::function<std::vector<std::string>(const Json& response_ir,
                                           const std::string& path)>
        links;
    // `shared`: others may write them during the run (--shared-server), so
    // each answer is judged on its own.
    std::function<std::string(const std::vector<std::string>& paths, bool shared)> script;
    // Which resource of the site a request reads (none: not the site's).
    std::function<std::optional<std::string>(const Json& request_ir)> of;
  };
  std::optional<Site> site;

  // A request any live server answers at once, whatever its state (HTTP:
  // HEAD /): after a play in which the server went silent, the fuzz loop
  // sends it on a fresh connection, and no answer means the server hangs
  // (campaign/fuzz_loop.h, ServerOutage). nullopt: no such probe.
  std::optional<Json> liveness_probe;
  // What a liveness violation rests on, for its report: the clause by which
  // a server answers each request it read (the time bound is the tester's,
  // ExecOptions::message_timeout, since no clause gives one).
  std::string liveness_clause;

  // Presentation and triage.
  // A message in a few words, for charts: "PUT /a", "412".
  std::function<std::string(const Json& request_ir)> request_label = default_label;
  std::function<std::string(const Json& response_ir)> response_label = default_label;
  // A message on one line with what matters to a reader, for reports and
  // chart tooltips (`PUT /doc  if-match: "1"  (2 bytes)`). The default is the
  // IR as compact JSON, as `--json` shows it.
  std::function<std::string(const Json& request_ir)> describe_request = default_describe;
  std::function<std::string(const Json& response_ir)> describe_response =
      default_describe;
  // What kind of request this is, values left out (a signature's unit:
  // two requests of one shape answered alike are one bug), and the kind
  // of answer. `request_kind` is the coarse part that stays put while a
  // counterexample shrinks (HTTP: the method).
  std::function<std::string(const Json& request_ir)> request_kind = no_key;
  std::function<std::string(const Json& request_ir)> request_shape = no_key;
  std::function<std::string(const Json& response_ir)> response_shape = no_key;
  // Variants of a request that each drop one part of its shape (HTTP: one
  // precondition header), with the request as it would then be sent: a
  // signature keeps the shape, so the shrinker tries these on its own.
  struct Lighter {
    Jexp body;
    Json sent;
    // The part kept, with a value that asks less of the server (HTTP: a
    // precondition naming no representation): a violation that shares a
    // reason with the original is the same defect shown more simply.
    bool restates = false;
  };
  std::function<std::vector<Lighter>(const Jexp& body, const Json& sent)> lighter =
      [](const Jexp&, const Json&) { return std::vector<Lighter>{}; };
  // The same request with the protocol's plainest kind (HTTP: the method
  // GET), the rest as it was; nullopt when it is that kind already. A
  // shrinker tries it where the kind may not matter (a request that kills
  // the server, one that only reads the state a violation needs), so that
  // one defect is not named once per method it was met with.
  std::function<std::optional<Jexp>(const Jexp& body)> plainer = [](const Jexp&) {
    return std::optional<Jexp>{};
  };
  // The script's request bodies (in order) with one resource moved up its
  // protocol's hierarchy (HTTP: a path below a collection, /a/b, renamed /b
  // in every request that names it or a path below it), one list per
  // resource that can move; none without a hierarchy. A shrinker tries them
  // so that a violation met under a collection is named as one met at the
  // top: the request that made the collection then goes, and one defect is
  // not named once per depth it was met at.
  std::function<std::vector<std::vector<Jexp>>(const std::vector<Jexp>& bodies)> flatter =
      [](const std::vector<Jexp>&) { return std::vector<std::vector<Jexp>>{}; };
  // The part of the server's state a request touches: requests with
  // different keys never race (HTTP: the path). "" for all: all may race.
  std::function<std::string(const Json& request_ir)> race_key = no_key;

  static std::string default_label(const Json& ir);     // JSON text, cut to 30 bytes
  static std::string default_describe(const Json& ir);  // JSON text, cut to 300 bytes
  static std::string no_key(const Json&) { return ""; }
};

}  // namespace dualfuzz::harness
