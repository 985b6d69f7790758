// Generation heuristics for HTTP (thesis §5.2): state-based (paths the
// script already touched), trace-based (ETags and Last-Modified values of
// earlier responses, as J-expression references), plus a few literals.
#include "dualfuzz/specs/http_heuristics.h"

namespace dualfuzz::specs {
using harness::Jexp;
using harness::Jpath;
using harness::Json;

namespace {
std::size_t pick(std::mt19937_64& rng, std::size_t n) { return n ? rng() % n : 0; }

const char* kPaths[] = {"/a", "/b", "/a/b", "/c/d/e"};
const char* kMethods[] = {"GET", "PUT", "PUT", "GET", "HEAD", "DELETE", "POST"};
const char* kBodies[] = {"", "x", "hello", "0123456789", "y"};
const char* kTags[] = {"*", "\"1\"", "\"2\"", "W/\"1\"", "\"1\", \"2\""};
const char* kDates[] = {"Mon, 01 Jan 2001 00:00:00 GMT", "Fri, 01 Jan 2100 00:00:00 GMT",
                        "not a date"};

std::vector<std::string> known_paths(const harness::Protocol::Context& ctx) {
  std::vector<std::string> out;
  for (const Jexp& e : ctx.earlier)
    if (e.kind() == Jexp::Kind::Object)
      for (std::size_t i = 0; i < e.keys().size(); ++i)
        if (e.keys()[i] == "path" && e.items()[i].kind() == Jexp::Kind::Scalar &&
            e.items()[i].value().is_string())
          out.push_back(e.items()[i].value().get<std::string>());
  return out;
}

// A reference to a header of the response to an earlier request.
Jexp header_ref(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                const char* name, const char* fn) {
  harness::Label l = ctx.earlier_labels[pick(rng, ctx.earlier_labels.size())] + 1;
  return Jexp::ref({l, Jpath({Jpath::Field{"headers"}, Jpath::Field{name}}), fn});
}

Jexp tag_value(std::mt19937_64& rng, const harness::Protocol::Context& ctx) {
  if (!ctx.earlier_labels.empty() && pick(rng, 3) != 0)
    return header_ref(rng, ctx, "etag", pick(rng, 4) == 0 ? "weak" : "id");
  return Jexp::scalar(kTags[pick(rng, std::size(kTags))]);
}
Jexp date_value(std::mt19937_64& rng, const harness::Protocol::Context& ctx) {
  if (!ctx.earlier_labels.empty() && pick(rng, 2) == 0)
    return header_ref(rng, ctx, pick(rng, 2) ? "last-modified" : "date", "id");
  return Jexp::scalar(kDates[pick(rng, std::size(kDates))]);
}

Jexp headers(std::mt19937_64& rng, const harness::Protocol::Context& ctx) {
  std::vector<std::pair<std::string, Jexp>> h;
  static const char* kConds[] = {"if-match", "if-none-match", "if-modified-since",
                                 "if-unmodified-since"};
  for (std::size_t n = pick(rng, 3); n > 0; --n) {
    std::string name = kConds[pick(rng, 4)];
    h.emplace_back(name, name.find("since") != std::string::npos ? date_value(rng, ctx)
                                                                 : tag_value(rng, ctx));
  }
  return Jexp::object(std::move(h));
}
}  // namespace

Jexp http_generate_request(std::mt19937_64& rng, const harness::Protocol::Context& ctx) {
  auto paths = known_paths(ctx);
  std::string path = !paths.empty() && pick(rng, 3) != 0
                         ? paths[pick(rng, paths.size())]
                         : kPaths[pick(rng, std::size(kPaths))];
  std::string method = kMethods[pick(rng, std::size(kMethods))];
  std::vector<std::pair<std::string, Jexp>> f = {{"method", Jexp::scalar(method)},
                                                 {"path", Jexp::scalar(path)}};
  if (method == "PUT" || method == "POST")
    f.emplace_back("body", Jexp::scalar(kBodies[pick(rng, std::size(kBodies))]));
  if (pick(rng, 2) == 0) f.emplace_back("headers", headers(rng, ctx));
  return Jexp::object(std::move(f));
}

Jexp http_mutate_request(std::mt19937_64& rng, const Jexp& req,
                         const harness::Protocol::Context& ctx) {
  if (req.kind() != Jexp::Kind::Object) return http_generate_request(rng, ctx);
  std::vector<std::pair<std::string, Jexp>> f;
  for (std::size_t i = 0; i < req.keys().size(); ++i)
    f.emplace_back(req.keys()[i], req.items()[i]);
  auto set = [&](const std::string& k, Jexp v) {
    for (auto& [key, val] : f)
      if (key == k) {
        val = std::move(v);
        return;
      }
    f.emplace_back(k, std::move(v));
  };
  switch (pick(rng, 5)) {
    case 0:
      set("method", Jexp::scalar(kMethods[pick(rng, std::size(kMethods))]));
      break;
    case 1: {
      auto paths = known_paths(ctx);
      set("path", Jexp::scalar(!paths.empty() && pick(rng, 2)
                                   ? paths[pick(rng, paths.size())]
                                   : kPaths[pick(rng, std::size(kPaths))]));
      break;
    }
    case 2:
      set("body", Jexp::scalar(kBodies[pick(rng, std::size(kBodies))]));
      break;
    case 3:
      set("headers", headers(rng, ctx));
      break;
    default:
      std::erase_if(f, [](const auto& kv) { return kv.first == "headers"; });
      break;
  }
  return Jexp::object(std::move(f));
}

}  // namespace dualfuzz::specs
