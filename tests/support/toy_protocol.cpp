#include "support/toy_protocol.h"

#include <map>
#include <optional>
#include <random>
#include <string_view>
#include <utility>
#include <vector>

#include "dualfuzz/oracle/itree.h"

namespace dualfuzz::toy {

using harness::Jexp;
using harness::Json;

namespace {

// ---- codec --------------------------------------------------------------

std::string field(const Json& ir, const char* name) {
  if (!ir.is_object()) return "";
  auto it = ir.find(name);
  if (it == ir.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}
// A token the line syntax can carry: no blanks, never empty.
std::string token(std::string s) {
  for (char& c : s)
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0') c = '_';
  return s.empty() ? "_" : s;
}

std::string print_request(const Json& ir) {
  const std::string op = field(ir, "op");
  if (op == "get") return "GET " + token(field(ir, "key")) + "\n";
  if (op == "put")
    return "PUT " + token(field(ir, "key")) + " " + token(field(ir, "value")) + "\n";
  return "NOP\n";  // (never throws: what cannot be sent is repaired)
}

// The IR the server reads from a printed line.
Json parse_request(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  const auto sp = line.find(' ');
  const std::string_view verb = line.substr(0, sp);
  const std::string_view rest = sp == line.npos ? "" : line.substr(sp + 1);
  if (verb == "GET") return {{"op", "get"}, {"key", std::string(rest)}};
  if (verb == "PUT") {
    const auto sp2 = rest.find(' ');
    return {{"op", "put"},
            {"key", std::string(rest.substr(0, sp2))},
            {"value", sp2 == rest.npos ? "" : std::string(rest.substr(sp2 + 1))}};
  }
  return {{"op", "nop"}};
}

class ToyStream final : public harness::ResponseStream {
 public:
  void expect(const Json&) override {}
  void feed(std::string_view bytes) override { buf_ += bytes; }
  void on_eof() override {}
  std::optional<Json> next() override {
    const auto nl = buf_.find('\n');
    if (nl == std::string::npos || failed()) return std::nullopt;
    const std::string line = buf_.substr(0, nl);
    buf_.erase(0, nl + 1);
    if (line.rfind("VALUE ", 0) == 0)
      return Json{{"status", "value"}, {"value", line.substr(6)}};
    if (line == "NONE") return Json{{"status", "none"}};
    if (line == "OK") return Json{{"status", "ok"}};
    if (line == "ERR") return Json{{"status", "error"}};
    error_ = "not a response: " + line;
    return std::nullopt;
  }
  bool failed() const override { return !error_.empty(); }
  std::string error() const override { return error_; }

 private:
  std::string buf_, error_;
};

// ---- server model -------------------------------------------------------

// The store: key -> value (a JSON object, hashable and printable as it is).
oracle::Tree serve(Json store) {
  return oracle::recv(oracle::ModelState(store), [store](const oracle::Request& q,
                                                         const oracle::Tree& self) {
    const Json& r = q.json();
    const std::string op = field(r, "op"), key = field(r, "key");
    if (op == "get") {
      const auto it = store.find(key);
      if (it == store.end())
        return oracle::send(q.conn, oracle::Sym::lit({{"status", "none"}}), self,
                            "toy: GET of an absent key");
      return oracle::send(q.conn, oracle::Sym::lit({{"status", "value"}, {"value", *it}}),
                          self, "toy: GET returns the last value PUT");
    }
    if (op == "put") {
      Json next = store;
      next[key] = field(r, "value");
      return oracle::send(q.conn, oracle::Sym::lit({{"status", "ok"}}),
                          serve(std::move(next)), "toy: PUT stores the value");
    }
    return oracle::send(q.conn, oracle::Sym::lit({{"status", "error"}}), self,
                        "toy: anything else is an error");
  });
}

// ---- generation heuristics ----------------------------------------------

// Few keys and values, so that requests meet on the same state.
const char* const kKeys[] = {"a", "b", "c"};
const char* const kValues[] = {"1", "2", "3", "x"};

Jexp request(std::string op, std::string key, std::optional<std::string> value) {
  std::vector<std::pair<std::string, Jexp>> f = {{"op", Jexp::scalar(std::move(op))},
                                                 {"key", Jexp::scalar(std::move(key))}};
  if (value) f.emplace_back("value", Jexp::scalar(std::move(*value)));
  return Jexp::object(std::move(f));
}

Jexp generate_request(std::mt19937_64& rng, const harness::Protocol::Context&) {
  const std::string key = kKeys[rng() % 3];
  if (rng() % 2) return request("get", key, std::nullopt);
  return request("put", key, kValues[rng() % 4]);
}

Jexp mutate_request(std::mt19937_64& rng, const Jexp& req,
                    const harness::Protocol::Context& ctx) {
  if (req.kind() != Jexp::Kind::Object) return generate_request(rng, ctx);
  std::string op = harness::string_field(req, "op"),
              key = harness::string_field(req, "key");
  switch (rng() % 3) {
    case 0:
      op = op == "get" ? "put" : "get";
      break;
    case 1:
      key = kKeys[rng() % 3];
      break;
    default:
      return request("put", key, kValues[rng() % 4]);
  }
  return request(op, key, op == "put" ? std::optional(kValues[rng() % 4]) : std::nullopt);
}

// ---- the in-process server ----------------------------------------------

class ToyServer final : public campaign::InProcessServer, public harness::Transport {
 public:
  explicit ToyServer(bool lost_overwrite) : lost_overwrite_(lost_overwrite) {}
  harness::Transport& transport() override { return *this; }
  void reset() override {
    store_.clear();
    inbox_.clear();
    outbox_.clear();
  }
  Result<bool> open(harness::ConnId c) override {
    inbox_[c].clear();
    return true;
  }
  void send(harness::ConnId c, std::string_view bytes) override {
    std::string& in = inbox_[c];
    in += bytes;
    for (auto nl = in.find('\n'); nl != std::string::npos; nl = in.find('\n')) {
      outbox_.push_back({c, answer(parse_request(in.substr(0, nl))), false, {}});
      in.erase(0, nl + 1);
    }
  }
  void close(harness::ConnId c) override { inbox_.erase(c); }
  std::vector<Incoming> receive(std::chrono::milliseconds) override {
    return std::exchange(outbox_, {});
  }

 private:
  std::string answer(const Json& q) {
    const std::string op = field(q, "op"), key = field(q, "key");
    if (op == "get") {
      const auto it = store_.find(key);
      return it == store_.end() ? "NONE\n" : "VALUE " + it->second + "\n";
    }
    if (op == "put") {
      // The planted bug: an overwrite is acknowledged and dropped.
      if (!(lost_overwrite_ && store_.count(key))) store_[key] = field(q, "value");
      return "OK\n";
    }
    return "ERR\n";
  }

  bool lost_overwrite_;
  std::map<std::string, std::string> store_;
  std::map<harness::ConnId, std::string> inbox_;
  std::vector<Incoming> outbox_;
};

}  // namespace

harness::Protocol protocol() {
  harness::Protocol p;
  p.name = "toy";
  p.print_request = print_request;
  p.canonical_request = [](const Json&, std::string_view printed) {
    return parse_request(printed);
  };
  p.new_response_stream = [] { return std::make_unique<ToyStream>(); };
  p.model = [] {
    return oracle::ServerModel{"toy-kv", [] { return serve(Json::object()); }, nullptr};
  };
  p.generate_request = generate_request;
  p.mutate_request = mutate_request;
  p.required_fields = {"op"};
  p.request_kind = [](const Json& q) { return field(q, "op"); };
  p.race_key = [](const Json& q) { return field(q, "key"); };
  return p;
}

campaign::Plugin plugin() {
  campaign::Plugin p;
  p.protocol = protocol();
  p.in_process =
      [](const std::string& arg) -> Result<std::unique_ptr<campaign::InProcessServer>> {
    if (!arg.empty() && arg != kLostOverwrite)
      return make_error("toy: no planted bug '" + arg + "'");
    return std::unique_ptr<campaign::InProcessServer>(new ToyServer(!arg.empty()));
  };
  p.in_process_help = std::string("a planted bug: ") + kLostOverwrite;
  p.planted_bugs = [] {
    return std::vector<campaign::Plugin::PlantedBug>{
        {kLostOverwrite, "storage",
         "a PUT over an existing value is acknowledged, not stored"}};
  };
  return p;
}

}  // namespace dualfuzz::toy
