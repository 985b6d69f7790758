// Generation heuristics for HTTP (thesis §5.2): state-based (paths the
// script already touched), trace-based (ETags and Last-Modified values of
// earlier responses, as J-expression references), plus a few literals.
#include "dualfuzz/http/heuristics.h"

#include <cctype>

#include "dualfuzz/http/model.h"

namespace dualfuzz::http {
using harness::Jexp;
using harness::Jpath;
using harness::Json;

namespace {
std::size_t pick(std::mt19937_64& rng, std::size_t n) { return n ? rng() % n : 0; }

const char* kPaths[] = {"/a", "/b", "/a/b", "/c/d/e", "/Docs/Item", "/docs/item/x"};
const char* kSegments[] = {"a", "b", "c", "A", "doc", "Doc", "item", "x.txt"};
const char* kMethods[] = {"GET",    "PUT",  "PUT", "GET", "HEAD",
                          "DELETE", "POST", "PUT", "GET", ""};
// The empty slot above: OPTIONS, a known method few servers support on a
// file (405 with Allow), or one no server knows (501) (RFC 9110 §9.1,
// §15.5.6, §15.6.2).
const char* kOtherMethods[] = {"OPTIONS", "OPTIONS", "PATCH", "FOO"};
// Ranges (RFC 9110 §14.1.1) against bodies of 0-24 bytes: within, across
// and past the end, suffixes, several (disjoint, overlapping, unordered),
// and fields a server must ignore or may reject.
const char* kRanges[] = {
    "bytes=0-4",     "bytes=2-",      "bytes=-3",      "bytes=0-0", "bytes=30-",
    "bytes=0-1,3-4", "bytes=0-2,1-3", "bytes=4-6,0-1", "bytes=3-1", "bytes=-0",
    "items=0-1",     "bytes=0-999",   "bytes=1-1, 5-", "bytes=x-y"};
const char* kBodies[] = {"", "x", "hello", "0123456789", "y"};
// Lists with the likely current tag first and not first (every member counts).
const char* kTags[] = {"*", "\"1\"", "\"2\"", "W/\"1\"", "\"1\", \"2\"", "\"9\", \"1\""};
// All three HTTP-date formats (RFC 9110 §5.6.7: a recipient MUST accept
// each), before and after any date the server uses, and one that is none.
const char* kDates[] = {"Mon, 01 Jan 2001 00:00:00 GMT",  "Fri, 01 Jan 2100 00:00:00 GMT",
                        "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                        "Thu Dec 31 23:59:59 2099",       "not a date"};
const char* kDateFormats[] = {"id", "id", "rfc850", "asctime"};

std::string random_method(std::mt19937_64& rng) {
  std::string m = kMethods[pick(rng, std::size(kMethods))];
  return m.empty() ? kOtherMethods[pick(rng, std::size(kOtherMethods))] : m;
}

std::string random_range(std::mt19937_64& rng) {
  if (pick(rng, 2) == 0) return kRanges[pick(rng, std::size(kRanges))];
  std::string r = "bytes=";
  for (std::size_t n = 1 + (pick(rng, 4) == 0 ? pick(rng, 3) : 0); n > 0; --n) {
    const std::size_t first = pick(rng, 12);
    switch (pick(rng, 3)) {
      case 0:
        r += std::to_string(first) + "-";
        break;
      case 1:
        r += "-" + std::to_string(pick(rng, 12));
        break;
      default:
        r += std::to_string(first) + "-" + std::to_string(first + pick(rng, 9));
    }
    if (n > 1) r += ",";
  }
  return r;
}

std::string path_of(const Jexp& e) {
  if (e.kind() == Jexp::Kind::Object)
    for (std::size_t i = 0; i < e.keys().size(); ++i)
      if (e.keys()[i] == "path" && e.items()[i].kind() == Jexp::Kind::Scalar &&
          e.items()[i].value().is_string())
        return e.items()[i].value().get<std::string>();
  return {};
}

std::vector<std::string> known_paths(const harness::Protocol::Context& ctx) {
  std::vector<std::string> out;
  for (const Jexp& e : ctx.earlier)
    if (std::string p = path_of(e); !p.empty()) out.push_back(p);
  return out;
}

// A path of 1-3 segments: short and long, lower and mixed case.
std::string random_path(std::mt19937_64& rng) {
  std::string p;
  for (std::size_t n = 1 + pick(rng, 3); n > 0; --n)
    p += std::string("/") + kSegments[pick(rng, std::size(kSegments))];
  return p;
}

// State-based: a path related to one the script already used — itself
// (most often), a child, its parent, or the same letters in another case
// (paths are case-sensitive, RFC 3986 §6.2.2.1).
std::string choose_path(std::mt19937_64& rng, const harness::Protocol::Context& ctx) {
  auto paths = known_paths(ctx);
  if (paths.empty() || pick(rng, 5) == 0)
    return pick(rng, 4) ? kPaths[pick(rng, std::size(kPaths))] : random_path(rng);
  std::string p = paths[pick(rng, paths.size())];
  switch (pick(rng, 12)) {
    case 0:
      return p + "/" + kSegments[pick(rng, std::size(kSegments))];
    case 1:
      if (auto slash = p.rfind('/'); slash != std::string::npos && slash > 0)
        return p.substr(0, slash);
      return p;
    case 2: {
      std::vector<std::size_t> letters;
      for (std::size_t i = 0; i < p.size(); ++i)
        if (std::isalpha(static_cast<unsigned char>(p[i]))) letters.push_back(i);
      if (!letters.empty()) {
        char& c = p[letters[pick(rng, letters.size())]];
        c = static_cast<char>(std::isupper(static_cast<unsigned char>(c))
                                  ? std::tolower(c)
                                  : std::toupper(c));
      }
      return p;
    }
    default:
      return p;
  }
}

// Bodies of every length from 0 to 24 over a small alphabet, so two
// different bodies of one length are common.
std::string random_body(std::mt19937_64& rng) {
  if (pick(rng, 3) == 0) return kBodies[pick(rng, std::size(kBodies))];
  std::size_t len = pick(rng, 2) ? pick(rng, 8) : pick(rng, 25);
  std::string b;
  for (std::size_t i = 0; i < len; ++i) b += "abXY"[pick(rng, 4)];
  return b;
}

// Trace-based: a header of the response to an earlier request — most often
// the latest one on the same path (the resource's current validators).
Jexp header_ref(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                const std::string& path, const char* name, const char* fn) {
  harness::Label l = ctx.earlier_labels[pick(rng, ctx.earlier_labels.size())] + 1;
  if (pick(rng, 3) != 0)
    for (std::size_t i = ctx.earlier.size(); i-- > 0;)
      if (path_of(ctx.earlier[i]) == path) {
        l = ctx.earlier_labels[i] + 1;
        break;
      }
  return Jexp::ref({l, Jpath({Jpath::Field{"headers"}, Jpath::Field{name}}), fn});
}

Jexp tag_value(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
               const std::string& path) {
  if (!ctx.earlier_labels.empty() && pick(rng, 3) != 0)
    return header_ref(rng, ctx, path, "etag", pick(rng, 4) == 0 ? "weak" : "id");
  return Jexp::scalar(kTags[pick(rng, std::size(kTags))]);
}
Jexp date_value(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                const std::string& path) {
  if (!ctx.earlier_labels.empty() && pick(rng, 2) == 0)
    return header_ref(rng, ctx, path, pick(rng, 2) ? "last-modified" : "date",
                      kDateFormats[pick(rng, std::size(kDateFormats))]);
  return Jexp::scalar(kDates[pick(rng, std::size(kDates))]);
}

Jexp headers(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
             const std::string& path) {
  std::vector<std::pair<std::string, Jexp>> h;
  static const char* kConds[] = {"if-match", "if-none-match", "if-modified-since",
                                 "if-unmodified-since"};
  for (std::size_t n = pick(rng, 3); n > 0; --n) {
    std::string name = kConds[pick(rng, 4)];
    h.emplace_back(name, name.find("since") != std::string::npos
                             ? date_value(rng, ctx, path)
                             : tag_value(rng, ctx, path));
  }
  // A Range, sometimes conditional on a validator (If-Range: a tag or a
  // date, most often the resource's latest ones).
  if (pick(rng, 3) == 0) {
    h.emplace_back("range", Jexp::scalar(random_range(rng)));
    // If-Range compares strongly: the resource's latest tag as sent (true),
    // made weak (false, though a weak comparison would say true), or a
    // literal or date.
    if (pick(rng, 2) == 0) {
      const std::size_t kind = pick(rng, 5);
      h.emplace_back("if-range",
                     !ctx.earlier_labels.empty() && kind < 3
                         ? header_ref(rng, ctx, path, "etag", kind ? "weak" : "id")
                     : kind == 3 ? tag_value(rng, ctx, path)
                                 : date_value(rng, ctx, path));
    }
  }
  // Now and then the client ends its connection after this exchange.
  if (pick(rng, 16) == 0) h.emplace_back("connection", Jexp::scalar("close"));
  return Jexp::object(std::move(h));
}
}  // namespace

Jexp generate_request(std::mt19937_64& rng, const harness::Protocol::Context& ctx) {
  std::string path = choose_path(rng, ctx);
  std::string method = random_method(rng);
  std::vector<std::pair<std::string, Jexp>> f = {{"method", Jexp::scalar(method)},
                                                 {"path", Jexp::scalar(path)}};
  if (method == "PUT" || method == "POST")
    f.emplace_back("body", Jexp::scalar(random_body(rng)));
  if (pick(rng, 2) == 0) f.emplace_back("headers", headers(rng, ctx, path));
  return Jexp::object(std::move(f));
}

Jexp mutate_request(std::mt19937_64& rng, const Jexp& req,
                    const harness::Protocol::Context& ctx) {
  if (req.kind() != Jexp::Kind::Object) return generate_request(rng, ctx);
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
      set("method", Jexp::scalar(random_method(rng)));
      break;
    case 1:
      set("path", Jexp::scalar(choose_path(rng, ctx)));
      break;
    case 2:
      set("body", Jexp::scalar(random_body(rng)));
      break;
    case 3:
      set("headers", headers(rng, ctx, path_of(req)));
      break;
    default:
      std::erase_if(f, [](const auto& kv) { return kv.first == "headers"; });
      break;
  }
  return Jexp::object(std::move(f));
}

std::optional<harness::Protocol::Retarget> retarget(const Json& request_ir,
                                                    const Json& old_value,
                                                    const Json& new_value) {
  if (!request_ir.is_object() || !request_ir.contains("headers") ||
      !request_ir["headers"].is_object())
    return std::nullopt;
  const Json& headers = request_ir["headers"];
  auto text_of = [&](const char* name) -> const std::string* {
    auto it = headers.find(name);
    return it != headers.end() && it->is_string() ? &it->get_ref<const std::string&>()
                                                  : nullptr;
  };
  // An entity tag: the list element equal to it is replaced (RFC 9110 §8.8.3).
  if (old_value.is_string() && new_value.is_string()) {
    const std::string& from = old_value.get_ref<const std::string&>();
    const std::string& to = new_value.get_ref<const std::string&>();
    // A tag must stay one header value (no CR/LF/NUL, RFC 9110 §5.5).
    if (from.empty() || to.find_first_of(std::string("\r\n\0", 3)) != std::string::npos)
      return std::nullopt;
    for (const char* name : {"if-match", "if-none-match", "if-range"})
      if (const std::string* v = text_of(name))
        if (auto at = v->find(from); at != std::string::npos) {
          std::string out = *v;
          out.replace(at, from.size(), to);
          return harness::Protocol::Retarget{name, out};
        }
    return std::nullopt;
  }
  // A date: the model compares seconds (RFC 9110 §5.6.7 IMF-fixdate).
  if (old_value.is_number_integer() && new_value.is_number_integer()) {
    const long long to = new_value.get<long long>();
    if (to < 0 || to > 253402300799LL) return std::nullopt;  // years 1970-9999
    for (const char* name : {"if-modified-since", "if-unmodified-since", "if-range"})
      if (const std::string* v = text_of(name))
        if (parse_http_date(*v) == old_value.get<long long>())
          return harness::Protocol::Retarget{name, format_http_date(to)};
  }
  return std::nullopt;
}

}  // namespace dualfuzz::http
