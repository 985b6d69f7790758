// Oracle cost per fuzz execution: a typical 10-request HTTP script on two
// connections (creates, revealed ETags, conditional PUT/GET, a pipelined
// pair), checked incrementally with a shared solver, as the fuzz target does.
// Prints microseconds per execution and solver queries per execution.
#include <chrono>
#include <cstdio>
#include <memory>

#include "dualfuzz/http/model.h"
#include "dualfuzz/oracle/oracle.h"

using namespace dualfuzz;
using oracle::Event;
using oracle::Json;

namespace {
Json req(const char* m, const char* p, Json h = Json::object(),
         const char* body = nullptr) {
  Json q = {{"method", m}, {"path", p}, {"headers", h}};
  if (body) q["body"] = body;
  return q;
}
Json resp(int s, Json h = Json::object(), const char* body = "") {
  return http::normalize_response({{"status", s}, {"headers", h}, {"body", body}});
}
Json tag(const char* t, long long lm) {
  return {{"etag", t}, {"last-modified", http::format_http_date(lm)}, {"date", "x"}};
}

std::vector<Event> script() {
  const long long t = 1'700'000'000;
  return {
      Event::request(1, 1, req("PUT", "/a", {}, "x")),
      Event::response(1, 2, resp(201)),
      Event::request(2, 3, req("PUT", "/b", {}, "y")),
      Event::response(2, 4, resp(201)),
      Event::request(1, 5, req("GET", "/a")),
      Event::response(1, 6, resp(200, tag("\"1\"", t), "x")),
      Event::request(2, 7, req("PUT", "/a", {{"if-match", "\"1\""}}, "z")),
      Event::request(1, 9, req("GET", "/a", {{"if-none-match", "\"1\""}})),
      Event::response(2, 8, resp(204)),
      Event::response(1, 10, resp(200, tag("\"2\"", t + 1), "z")),
      Event::request(1, 11, req("PUT", "/a", {{"if-match", "\"1\""}}, "w")),
      Event::request(1, 13, req("GET", "/b")),
      Event::response(1, 12, resp(412)),
      Event::response(1, 14, resp(200, tag("\"3\"", t), "y")),
      Event::request(2, 15, req("DELETE", "/b")),
      Event::response(2, 16, resp(204)),
      Event::request(2, 17, req("GET", "/b")),
      Event::response(2, 18, resp(404)),
      Event::request(1, 19, req("POST", "/a")),
      Event::response(1, 20, resp(405, {{"allow", "GET, HEAD, PUT, DELETE"}})),
  };
}
}  // namespace

int main() {
  auto solver = std::make_shared<oracle::Solver>(500, http::server_model().strings);
  auto trace = script();
  const int n = 2000;
  std::uint64_t q0 = solver->stats().queries;
  auto t0 = std::chrono::steady_clock::now();
  int accepted = 0;
  for (int i = 0; i < n; ++i) {
    oracle::Oracle o(http::server_model(), {}, solver);
    for (const Event& e : trace) o.observe(e);
    accepted += o.verdict().accepted();
  }
  double us =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e6 /
      n;
  std::printf(
      "oracle, 10-request HTTP script: %.1f us/execution, %.1f solver queries/execution, "
      "%d/%d accepted\n",
      us, double(solver->stats().queries - q0) / n, accepted, n);
  return accepted == n ? 0 : 1;
}
