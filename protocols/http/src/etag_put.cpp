#include "dualfuzz/http/etag_put.h"

#include <map>

#include "dualfuzz/specs/detail/sym_state.h"
#include "dualfuzz/http/entity_tag.h"

namespace dualfuzz::http {
using oracle::Json;
using oracle::Request;
using oracle::Sort;
using oracle::Sym;
using oracle::Tree;

namespace {
struct Resource {
  Json body;
  Sym etag;
  friend bool operator==(const Resource&, const Resource&) = default;
};
struct State {
  std::map<std::string, Resource> res;
  friend bool operator==(const State&, const State&) = default;
};
void to_json(Json& j, const State& s) {
  j = Json::object();
  for (const auto& [p, r] : s.res)
    j[p] = {{"body", r.body}, {"etag", specs::detail::SymState{r.etag}}};
}
}  // namespace
}  // namespace dualfuzz::http

template <>
struct std::hash<dualfuzz::http::State> {
  std::size_t operator()(const dualfuzz::http::State& s) const {
    std::size_t h = 0;
    for (const auto& [p, r] : s.res)
      h = h * 31 + std::hash<std::string>{}(p) + r.etag.hash() * 7 +
          std::hash<std::string>{}(dualfuzz::oracle::dump_json(r.body));
    return h;
  }
};

namespace dualfuzz::http {
namespace {
Sym str_field(const Json& r, const char* k) {
  return Sym::lit(r.contains(k) && r[k].is_string() ? r[k] : Json(""));
}

Tree serve(const State& st);

// A new representation gets a new tag: a fresh one, distinct from the tag of
// every different content, or none ("").
Tree put(const State& st, const Request& q, const std::string& path, const Json& body) {
  auto commit = [st, q, path, body](Sym tag) {
    State next = st;
    next.res[path] = Resource{body, tag};
    return oracle::send(q.conn, Sym::object({{"status", Sym::lit(200)}}), serve(next));
  };
  Tree fresh_tag = oracle::fresh(Sort::Str, "etag", [st, body, commit](const Sym& t) {
    Sym distinct = Sym::lit(true);
    for (const auto& [p, r] : st.res)
      if (r.body != body) distinct = oracle::and_(distinct, oracle::neq(t, r.etag));
    return oracle::assume(oracle::and_(distinct, oracle::neq(t, Sym::lit(""))),
                          commit(t));
  });
  return oracle::choose(fresh_tag, commit(Sym::lit("")));
}

Tree serve(const State& st) {
  return oracle::recv(oracle::ModelState(st), [st](const Request& q) -> Tree {
    const Json& r = q.json();
    const std::string method = r.is_object() ? r.value("method", "") : "";
    const std::string path = r.is_object() ? r.value("path", "/") : "/";
    auto it = st.res.find(path);
    auto respond = [&](int status) {
      return oracle::send(q.conn, Sym::object({{"status", Sym::lit(status)}}), serve(st));
    };
    if (method == "GET") {
      if (it == st.res.end()) return respond(404);
      const Resource res = it->second;
      auto ok = [st, q, res] {
        return oracle::send(q.conn,
                            Sym::object({{"status", Sym::lit(200)},
                                         {"etag", res.etag},
                                         {"body", Sym::lit(res.body)}}),
                            serve(st));
      };
      if (!r.contains("if-none-match")) return ok();
      return oracle::ifx(
          weak_match(str_field(r, "if-none-match"), res.etag),
          [st, q] {
            return oracle::send(q.conn, Sym::object({{"status", Sym::lit(304)}}),
                                serve(st));
          },
          ok);
    }
    if (method == "PUT") {
      Json body = r.value("body", Json(""));
      if (!r.contains("if-match")) return put(st, q, path, body);
      if (it == st.res.end()) return respond(412);
      return oracle::ifx(
          strong_match(str_field(r, "if-match"), it->second.etag),
          [st, q, path, body] { return put(st, q, path, body); },
          [st, q] {
            return oracle::send(q.conn, Sym::object({{"status", Sym::lit(412)}}),
                                serve(st));
          });
    }
    return respond(405);
  });
}
}  // namespace

oracle::ServerModel etag_put_model() {
  return {"ETag PUT", [] { return serve(State{}); }, nullptr, nullptr, entity_tags()};
}

}  // namespace dualfuzz::http
