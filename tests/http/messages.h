// HTTP messages as the model reads them, for hand-written traces in the
// model's tests:
//   req("PUT", "/a", {{"if-match", "\"1\""}}, "x")   // a request IR
//   resp(201, {{"etag", "\"1\""}})                    // a normalized response IR
#pragma once

#include "dualfuzz/http/model.h"

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

}  // namespace dualfuzz::http::test
