// HTTP messages as the model reads them, for hand-written traces in the
// model's tests:
//   req("PUT", "/a", {{"if-match", "\"1\""}}, "x")   // a request IR
//   resp(201, {{"etag", "\"1\""}})                    // a normalized response IR
//   judged(server_model(), one_connection({{req(...), resp(...)}, ...}))
#pragma once

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "dualfuzz/http/model.h"
#include "dualfuzz/oracle/oracle.h"

namespace dualfuzz::http::test {

inline oracle::Json req(const char* method, const char* path,
                        oracle::Json headers = oracle::Json::object(),
                        const char* body = nullptr) {
  oracle::Json q = {{"method", method}, {"path", path}, {"headers", headers}};
  if (body) q["body"] = body;
  return q;
}
inline oracle::Json resp(int status, oracle::Json headers = oracle::Json::object(),
                         const char* body = nullptr) {
  if (headers.is_null()) headers = oracle::Json::object();  // (`{}` reads as null)
  return normalize_response(
      {{"status", status}, {"headers", headers}, {"body", body ? body : ""}});
}

// Request, response, request, response, ... on one connection.
inline std::vector<oracle::Event> one_connection(
    const std::vector<std::pair<oracle::Json, oracle::Json>>& exchanges) {
  std::vector<oracle::Event> t;
  oracle::Label l = 1;
  for (const auto& [q, r] : exchanges) {
    t.push_back(oracle::Event::request(1, l, q));
    t.push_back(oracle::Event::response(1, l + 1, r));
    l += 2;
  }
  return t;
}
// `t` judged online, up to the first event no explanation gets past.
inline oracle::Verdict online(const oracle::ServerModel& m,
                              const std::vector<oracle::Event>& t) {
  oracle::Oracle o(m);
  for (const oracle::Event& e : t)
    if (!o.observe(e).accepted()) break;
  return o.verdict();
}
// Online, and offline (a whole-trace check) too: the two must agree.
inline oracle::Verdict judged(const oracle::ServerModel& m,
                              const std::vector<oracle::Event>& t) {
  oracle::Verdict v = online(m, t);
  const oracle::Verdict offline = oracle::check(m, t);
  EXPECT_EQ(v.status, offline.status) << offline.explanation;
  return v;
}

}  // namespace dualfuzz::http::test
