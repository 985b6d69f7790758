// Generation heuristics for HTTP (thesis §5.2): state-based (paths the
// script already touched), trace-based (ETags and Last-Modified values of
// earlier responses, as J-expression references), plus a few literals.
#include "dualfuzz/http/heuristics.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "dualfuzz/http/detail/jexp_fields.h"
#include "dualfuzz/http/field_havoc.h"
#include "dualfuzz/http/malformation.h"
#include "dualfuzz/http/model.h"
#include "dualfuzz/http/xml_mutation.h"

namespace dualfuzz::http {
using harness::Jexp;
using harness::Jpath;
using harness::Json;
using harness::string_field;

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
    "bytes=0-4",     "bytes=2-",      "bytes=-3",      "bytes=0-0",         "bytes=30-",
    "bytes=0-1,3-4", "bytes=0-2,1-3", "bytes=4-6,0-1", "bytes=3-1",         "bytes=-0",
    "items=0-1",     "bytes=0-999",   "bytes=1-1, 5-", "bytes=x-y",         "bytes=0-",
    "bytes=-1",      "bytes= 0-1",    "bytes=0-0,-1",  "bytes=1-2,4-5,7-8", "bytes=-30",
    "bytes=5-4,1-1"};
const char* kBodies[] = {"", "x", "hello", "0123456789", "y"};
// Lists with the likely current tag first and not first (every member counts);
// "*" is drawn apart (tag_value).
const char* kTags[] = {"\"1\"", "\"2\"", "W/\"1\"", "\"1\", \"2\"", "\"9\", \"1\""};
// All three HTTP-date formats (RFC 9110 §5.6.7: a recipient MUST accept
// each), before and after any date the server uses, and one that is none.
const char* kDates[] = {"Mon, 01 Jan 2001 00:00:00 GMT",  "Fri, 01 Jan 2100 00:00:00 GMT",
                        "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                        "Thu Dec 31 23:59:59 2099",       "not a date"};
// Expectations (RFC 9110 §10.1.1): the one HTTP defines, in both cases,
// and others a server may refuse with 417 (kept out of the proxy's
// requests: a message-level edit like the Host's and the defects).
const char* kExpects[] = {"100-continue", "100-Continue",      "100-continue",
                          "foo",          "100-continue, x=1", ""};
// How a date an answer carried is sent back: as it was, in an obsolete
// format, or a second off (protocol.cpp's functions).
const char* kDateFormats[] = {"id", "id", "rfc850", "asctime", "earlier", "later"};

std::string random_method(std::mt19937_64& rng) {
  std::string m = kMethods[pick(rng, std::size(kMethods))];
  return m.empty() ? kOtherMethods[pick(rng, std::size(kOtherMethods))] : m;
}

std::string random_range(std::mt19937_64& rng) {
  if (pick(rng, 2) == 0) return kRanges[pick(rng, std::size(kRanges))];
  std::string r = "bytes=";
  // (Offsets in steps of 40 one time in four: parts far apart in a long body.)
  const std::size_t step = pick(rng, 4) == 0 ? 40 : 1;
  for (std::size_t n = 1 + (pick(rng, 4) == 0 ? pick(rng, 3) : 0); n > 0; --n) {
    const std::size_t first = pick(rng, 12) * step;
    switch (pick(rng, 3)) {
      case 0:
        r += std::to_string(first) + "-";
        break;
      case 1:
        r += "-" + std::to_string(pick(rng, 12) * step);
        break;
      default:
        r += std::to_string(first) + "-" + std::to_string(first + pick(rng, 9));
    }
    if (n > 1) r += ",";
  }
  return r;
}

std::string path_of(const Jexp& e) { return string_field(e, "path"); }

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
// different bodies of one length are common; one in sixteen 100-400 bytes,
// so that ranges far apart in one representation exist: a server sends
// multipart/byteranges only for parts more than its overhead apart
// (lighttpd: 80 bytes, http_range.c), which no short body allows.
std::string random_body(std::mt19937_64& rng) {
  if (pick(rng, 3) == 0) return kBodies[pick(rng, std::size(kBodies))];
  std::size_t len = pick(rng, 16) == 0 ? 100 + pick(rng, 301)
                    : pick(rng, 2)     ? pick(rng, 8)
                                       : pick(rng, 25);
  std::string b;
  for (std::size_t i = 0; i < len; ++i) b += "abXY"[pick(rng, 4)];
  return b;
}

// Trace-based: a header of the response to an earlier request — most often
// the latest one on the same path (the resource's current validators), else
// as often any earlier one on that path (a stale validator: what a server
// that remembers old tags answers 304 or 206 to) as any earlier response.
Jexp header_ref(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                const std::string& path, const char* name, const char* fn) {
  harness::Label l = ctx.earlier_labels[pick(rng, ctx.earlier_labels.size())] + 1;
  std::vector<std::size_t> same;  // earlier requests on `path`, latest first
  for (std::size_t i = ctx.earlier.size(); i-- > 0;)
    if (path_of(ctx.earlier[i]) == path) same.push_back(i);
  if (!same.empty()) {
    const std::size_t roll = pick(rng, 6);
    if (roll < 4) l = ctx.earlier_labels[same.front()] + 1;
    if (roll == 4) l = ctx.earlier_labels[same[pick(rng, same.size())]] + 1;
  }
  return Jexp::ref({l, Jpath({Jpath::Field{"headers"}, Jpath::Field{name}}), fn});
}

Jexp tag_value(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
               const std::string& path) {
  if (!ctx.earlier_labels.empty() && pick(rng, 3) != 0)
    return header_ref(rng, ctx, path, "etag", pick(rng, 4) == 0 ? "weak" : "id");
  // "*" a third of the time: If-None-Match: * is how a client creates
  // without replacing (RFC 9110 §13.1.2), If-Match: * how it replaces only.
  if (pick(rng, 3) == 0) return Jexp::scalar("*");
  return Jexp::scalar(kTags[pick(rng, std::size(kTags))]);
}
Jexp date_value(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                const std::string& path) {
  if (!ctx.earlier_labels.empty() && pick(rng, 2) == 0)
    return header_ref(rng, ctx, path, pick(rng, 2) ? "last-modified" : "date",
                      kDateFormats[pick(rng, std::size(kDateFormats))]);
  return Jexp::scalar(kDates[pick(rng, std::size(kDates))]);
}

// The body of the script's latest PUT to `path` before this request ("" if
// none): the content the path holds, as far as the script knows.
std::string latest_put_body(const harness::Protocol::Context& ctx,
                            const std::string& path) {
  for (std::size_t i = ctx.earlier.size(); i-- > 0;)
    if (path_of(ctx.earlier[i]) == path &&
        string_field(ctx.earlier[i], "method") == "PUT")
      return string_field(ctx.earlier[i], "body");
  return "";
}

// State-based: a Range for `path`. When the script's latest PUT there sent a
// long body, half the time two parts far apart in it (a byte near the start,
// another past byte 100): what a server answers with multipart/byteranges,
// which parts closer than its overhead (lighttpd: 80 bytes) never get.
std::string range_value(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                        const std::string& path) {
  const std::size_t len = latest_put_body(ctx, path).size();
  if (len < 100 || pick(rng, 2) != 0) return random_range(rng);
  const std::size_t a = pick(rng, 10), b = 100 + pick(rng, len - 99);
  return "bytes=" + std::to_string(a) + "-" + std::to_string(a + pick(rng, 8)) + "," +
         std::to_string(b) + "-" + (pick(rng, 2) ? std::to_string(b + pick(rng, 8)) : "");
}

// A fresh value for header `name` (of those header_fields makes), or nullopt.
std::optional<Jexp> header_value(std::mt19937_64& rng, const std::string& name,
                                 const harness::Protocol::Context& ctx,
                                 const std::string& path) {
  if (name == "if-match" || name == "if-none-match") return tag_value(rng, ctx, path);
  if (name == "if-modified-since" || name == "if-unmodified-since")
    return date_value(rng, ctx, path);
  if (name == "if-range")
    return pick(rng, 2) ? tag_value(rng, ctx, path) : date_value(rng, ctx, path);
  if (name == "range") return Jexp::scalar(range_value(rng, ctx, path));
  return std::nullopt;
}

using detail::Fields;
using detail::fields_of;

Fields header_fields(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                     const std::string& path) {
  Fields h;
  static const char* kConds[] = {"if-match", "if-none-match", "if-modified-since",
                                 "if-unmodified-since"};
  for (std::size_t n = pick(rng, 3); n > 0; --n) {
    std::string name = kConds[pick(rng, 4)];
    h.emplace_back(name, *header_value(rng, name, ctx, path));
  }
  // A Range, sometimes conditional on a validator (If-Range: a tag or a
  // date, most often the resource's latest ones).
  if (pick(rng, 3) == 0) {
    h.emplace_back("range", Jexp::scalar(range_value(rng, ctx, path)));
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
  return h;
}
Jexp headers(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
             const std::string& path) {
  return Jexp::object(header_fields(rng, ctx, path));
}

// One header field added, changed or removed, the others kept: the small
// step a coverage-guided engine climbs by. A script kept for the branch an
// If-None-Match reached keeps it while an If-Modified-Since is added;
// replacing the whole set (`headers`) lost what the kept input had gained,
// so two-header conditions were found only by drawing both at once.
Fields edit_one_header(std::mt19937_64& rng, const Jexp* old,
                       const harness::Protocol::Context& ctx, const std::string& path) {
  Fields h = fields_of(old);
  const std::size_t what = h.empty() ? 0 : pick(rng, 3);
  if (what == 0) {  // add one (or replace the field of that name)
    static const char* kNames[] = {
        "if-match", "if-none-match", "if-modified-since", "if-unmodified-since",
        "range",    "if-range"};
    const std::string name = kNames[pick(rng, std::size(kNames))];
    std::erase_if(h, [&](const auto& kv) { return kv.first == name; });
    h.emplace_back(name, *header_value(rng, name, ctx, path));
  } else if (what == 1) {  // a new value for one of them
    auto& [name, value] = h[pick(rng, h.size())];
    if (auto v = header_value(rng, name, ctx, path)) value = std::move(*v);
  } else {  // drop one
    h.erase(h.begin() + static_cast<std::ptrdiff_t>(pick(rng, h.size())));
  }
  return h;
}

// The Host field edited (host.h): one of a few starting points, valid and
// invalid, or one character of the present value inserted, replaced or
// removed, so a coverage-guided engine can walk a server's host parser a
// step at a time; or dropped (back to the tester's default).
Fields edit_host(std::mt19937_64& rng, const Jexp* old) {
  Fields h = fields_of(old, {"host"});
  const Jexp* host =
      old && old->kind() == Jexp::Kind::Object ? old->find("host") : nullptr;
  const bool had =
      host && host->kind() == Jexp::Kind::Scalar && host->value().is_string();
  std::string value = had ? host->value().get<std::string>() : std::string();
  static const char* kStarts[] = {"localhost",
                                  "LocalHost",
                                  "localhost:80",
                                  "127.0.0.1",
                                  "[::1]",
                                  "[::1]:80",
                                  "[::ffff:127.0.0.1]",
                                  "example.com",
                                  "local host",
                                  "localhost/",
                                  "a@localhost",
                                  "[::1",
                                  "%6cocalhost",
                                  "localhost:8o",
                                  "[v1.x]",
                                  ""};
  static constexpr std::string_view kChars = "az09.:-_~%[]@/ ?#!$&'()*+,;=vF\t\"";
  const std::size_t what = had ? pick(rng, 8) : 0;
  if (what == 0) {
    value = kStarts[pick(rng, std::size(kStarts))];
  } else if (what == 7) {
    return h;
  } else if (what <= 2 || value.empty()) {
    value.insert(pick(rng, value.size() + 1), 1, kChars[pick(rng, kChars.size())]);
  } else if (what <= 4) {
    value[pick(rng, value.size())] = kChars[pick(rng, kChars.size())];
  } else {
    value.erase(pick(rng, value.size()), 1);
  }
  h.emplace_back("host", Jexp::scalar(value));
  return h;
}

// ---- WebDAV (RFC 4918): the methods a DAV server spends most of its code
// on, with the headers and XML bodies that steer it.
const char* kDavMethods[] = {"PROPFIND", "PROPFIND", "PROPPATCH", "MKCOL", "COPY",
                             "MOVE",     "LOCK",     "LOCK",      "UNLOCK"};
#define DAV_XML "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
// PROPFIND (§9.1, §14.20): none (allprop), allprop, propname, live and dead
// properties by name, allprop with include, and malformed ones.
const char* kPropfindBodies[] = {
    "",
    DAV_XML "<D:propfind xmlns:D=\"DAV:\"><D:allprop/></D:propfind>",
    DAV_XML "<D:propfind xmlns:D=\"DAV:\"><D:propname/></D:propfind>",
    DAV_XML
    "<D:propfind xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:prop><D:getetag/>"
    "<D:getcontentlength/><D:getlastmodified/><D:getcontenttype/><D:resourcetype/>"
    "<D:displayname/><D:creationdate/><D:lockdiscovery/><D:supportedlock/>"
    "<Z:color/></D:prop></D:propfind>",
    "<D:propfind xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:prop><Z:color/><Z:size/>"
    "</D:prop></D:propfind>",
    "<D:propfind xmlns:D=\"DAV:\"><D:allprop/><D:include><D:supportedlock/>"
    "</D:include></D:propfind>",
    "<D:propfind xmlns:D=\"DAV:\"><D:prop>",
    "<propfind><prop><getetag/></prop></propfind>",
    "not xml"};
// PROPPATCH (§9.2, §14.19): set and remove dead properties, a protected
// live one, several at once, malformed.
const char* kProppatchBodies[] = {
    DAV_XML
    "<D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:set><D:prop>"
    "<Z:color>red</Z:color></D:prop></D:set></D:propertyupdate>",
    DAV_XML
    "<D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:set><D:prop>"
    "<Z:size>12</Z:size><Z:color>blue</Z:color></D:prop></D:set></D:propertyupdate>",
    DAV_XML
    "<D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:remove><D:prop>"
    "<Z:color/></D:prop></D:remove></D:propertyupdate>",
    DAV_XML
    "<D:propertyupdate xmlns:D=\"DAV:\" xmlns:Z=\"urn:z\"><D:set><D:prop>"
    "<Z:color>green</Z:color></D:prop></D:set><D:remove><D:prop><Z:size/>"
    "</D:prop></D:remove></D:propertyupdate>",
    DAV_XML
    "<D:propertyupdate xmlns:D=\"DAV:\"><D:set><D:prop><D:getetag>x</D:getetag>"
    "</D:prop></D:set></D:propertyupdate>",
    "<D:propertyupdate xmlns:D=\"DAV:\"><D:set>",
    ""};
// LOCK (§9.10, §14.11): exclusive or shared write locks, with an owner.
const char* kLockBodies[] = {
    DAV_XML
    "<D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:exclusive/></D:lockscope>"
    "<D:locktype><D:write/></D:locktype><D:owner>dualfuzz</D:owner></D:lockinfo>",
    DAV_XML
    "<D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:shared/></D:lockscope>"
    "<D:locktype><D:write/></D:locktype><D:owner><D:href>urn:df</D:href></D:owner>"
    "</D:lockinfo>",
    "<D:lockinfo xmlns:D=\"DAV:\"><D:lockscope><D:exclusive/></D:lockscope>"
    "</D:lockinfo>",
    "<D:lockinfo xmlns:D=\"DAV:\">"};
#undef DAV_XML
const char* kDepths[] = {"0", "1", "infinity"};
// Depth and Overwrite (§10.2, §10.6) as mutations send them: valid, and
// values a server must refuse or may read its own way.
const char* kOddDepths[] = {"0", "1", "infinity", "Infinity", "2", "-1", "", "1,0", " 0"};
const char* kOddOverwrites[] = {"T", "F", "t", "f", "X", "", "TF"};
// (RFC 4918 §10.7's example is "Infinite, Second-4100000000"; in that order
// it sends lighttpd 1.4.69 into an endless loop (mod_webdav_lock never steps
// past the comma), which would stop any campaign against it: a list is
// sent with Second- first.)
const char* kTimeouts[] = {"Second-60", "Infinite", "Second-1",
                           "Second-4100000000, Infinite"};

// Trace-based: the Lock-Token of an earlier LOCK's answer (§10.5), most often
// the latest one on `path`, through `fn` ("id": as sent, "lockif": as an If
// state list); a made-up token when the script has no LOCK yet.
Jexp lock_token(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                const std::string& path, const char* fn) {
  std::optional<std::size_t> any, same;
  for (std::size_t i = ctx.earlier.size(); i-- > 0;)
    if (string_field(ctx.earlier[i], "method") == "LOCK") {
      if (!any) any = i;
      if (!same && path_of(ctx.earlier[i]) == path) same = i;
    }
  std::optional<std::size_t> at = same && pick(rng, 4) != 0 ? same : any;
  if (!at || pick(rng, 8) == 0) {
    std::string t = "<opaquelocktoken:00000000-0000-0000-0000-000000000000>";
    return Jexp::scalar(std::string(fn) == "lockif" ? "(" + t + ")" : t);
  }
  return Jexp::ref({ctx.earlier_labels[*at] + 1,
                    Jpath({Jpath::Field{"headers"}, Jpath::Field{"lock-token"}}), fn});
}

// A Destination (§10.3) on the server the request goes to: an absolute URI
// with the request's own Host (the printer sends "Host: localhost"), now
// and then an absolute path, which RFC 4918 allows too.
Jexp destination(std::mt19937_64& rng, const harness::Protocol::Context& ctx) {
  std::string to = choose_path(rng, ctx);
  return Jexp::scalar(pick(rng, 6) == 0 ? to : "http://localhost" + to);
}

Jexp dav_request(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                 const std::string& path, std::string method) {
  Fields h;
  std::string body;
  if (method == "PROPFIND") {
    if (pick(rng, 4) != 0) h.emplace_back("depth", Jexp::scalar(kDepths[pick(rng, 3)]));
    body = kPropfindBodies[pick(rng, std::size(kPropfindBodies))];
  } else if (method == "PROPPATCH") {
    body = kProppatchBodies[pick(rng, std::size(kProppatchBodies))];
  } else if (method == "MKCOL") {
    if (pick(rng, 8) == 0) body = "x";  // a body MKCOL cannot read: 415 (§9.3)
  } else if (method == "COPY" || method == "MOVE") {
    h.emplace_back("destination", destination(rng, ctx));
    if (pick(rng, 2) == 0)
      h.emplace_back("overwrite", Jexp::scalar(pick(rng, 2) ? "T" : "F"));
    if (pick(rng, 4) == 0)
      h.emplace_back("depth",
                     Jexp::scalar(method == "COPY" && pick(rng, 2) ? "0" : "infinity"));
  } else if (method == "LOCK") {
    if (pick(rng, 5) == 0) {  // a refresh: no body, the lock's token (§9.10.2)
      h.emplace_back("if", lock_token(rng, ctx, path, "lockif"));
    } else {
      body = kLockBodies[pick(rng, std::size(kLockBodies))];
      if (pick(rng, 2) == 0)
        h.emplace_back("depth", Jexp::scalar(pick(rng, 2) ? "0" : "infinity"));
    }
    if (pick(rng, 2) == 0)
      h.emplace_back("timeout", Jexp::scalar(kTimeouts[pick(rng, std::size(kTimeouts))]));
  } else if (method == "UNLOCK") {
    h.emplace_back("lock-token", lock_token(rng, ctx, path, "id"));
  }
  if (!body.empty() && pick(rng, 4) != 0)
    h.emplace_back("content-type", Jexp::scalar("application/xml; charset=utf-8"));
  // Now and then the preconditions of RFC 9110 as well.
  if (pick(rng, 6) == 0)
    for (auto& f : header_fields(rng, ctx, path)) h.push_back(std::move(f));
  Fields f = {{"method", Jexp::scalar(method)}, {"path", Jexp::scalar(path)}};
  if (!body.empty()) f.emplace_back("body", Jexp::scalar(body));
  if (!h.empty()) f.emplace_back("headers", Jexp::object(std::move(h)));
  return Jexp::object(std::move(f));
}

// A write that submits a lock's token (§10.4): PUT or DELETE with If; one
// time in three its state list tests the resource's entity tag instead
// ("([etag])", "(Not [etag])", §10.4.2), the tag an earlier answer carried.
Jexp locked_write(std::mt19937_64& rng, const harness::Protocol::Context& ctx,
                  const std::string& path) {
  const bool put = pick(rng, 3) != 0;
  Fields f = {{"method", Jexp::scalar(put ? "PUT" : "DELETE")},
              {"path", Jexp::scalar(path)}};
  if (put) f.emplace_back("body", Jexp::scalar(random_body(rng)));
  Jexp cond =
      !ctx.earlier.empty() && pick(rng, 3) == 0
          ? header_ref(rng, ctx, path, "etag", pick(rng, 2) ? "ifetag" : "ifnotetag")
          : lock_token(rng, ctx, path, "lockif");
  f.emplace_back("headers", Jexp::object({{"if", std::move(cond)}}));
  return Jexp::object(std::move(f));
}

// State-based: a server with a hierarchy refuses a write below a collection
// that does not exist (409, RFC 4918 §9.7.1), so one time in four a deep write
// the script has not prepared becomes a MKCOL of its shallowest ancestor
// the script never made (a later draw makes the next level). Without it,
// deep resources hardly ever existed on a real server.
std::optional<Jexp> parent_first(std::mt19937_64& rng,
                                 const harness::Protocol::Context& ctx,
                                 const std::string& path) {
  if (pick(rng, 4) != 0) return std::nullopt;
  auto made_by = [&](const std::string& p, const char* method) {
    return std::any_of(ctx.earlier.begin(), ctx.earlier.end(), [&](const Jexp& e) {
      return path_of(e) == p && string_field(e, "method") == method;
    });
  };
  for (std::size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1)) {
    const std::string ancestor = path.substr(0, slash);
    // An ancestor the script PUT is a file: the write below it stays as it
    // is (a server with independent paths takes it — the planted bug
    // delete-prefix needs a file below a file — one with a hierarchy
    // refuses it, and a MKCOL there would be refused too).
    if (made_by(ancestor, "PUT")) return std::nullopt;
    if (!made_by(ancestor, "MKCOL"))
      return Jexp::object(
          {{"method", Jexp::scalar("MKCOL")}, {"path", Jexp::scalar(ancestor)}});
  }
  return std::nullopt;
}

// State-based: whether the children outlive their parent (RFC 4918 §9.6.1:
// a collection's members go with it; RFC 9110 §9.3.5: a plain DELETE
// removes only its target) is a question only a parent's DELETE after a
// child's write asks. Drawn at random among known paths it came 1 time in
// 12, and the planted bug delete-prefix (DELETE /p also deletes what is
// under /p/) hid from 2 seeds in 3. So one DELETE in two goes to a known
// path the script has used something below, if there is one. (Sending
// more PUTs below known paths, 1 in 4 or half of those to new paths, made
// the validator bugs slow: if-range-stale from 2-15 s to 15-30 s and more.)
std::optional<std::string> known_parent(std::mt19937_64& rng,
                                        const harness::Protocol::Context& ctx) {
  if (pick(rng, 2) != 0) return std::nullopt;
  const auto paths = known_paths(ctx);
  std::vector<std::string> parents;
  for (const std::string& p : paths)
    if (std::any_of(paths.begin(), paths.end(), [&](const std::string& q) {
          return q.size() > p.size() + 1 && q.compare(0, p.size(), p) == 0 &&
                 q[p.size()] == '/';
        }))
      parents.push_back(p);
  if (parents.empty()) return std::nullopt;
  return parents[pick(rng, parents.size())];
}
}  // namespace

Jexp generate_request(std::mt19937_64& rng, const harness::Protocol::Context& ctx) {
  std::string path = choose_path(rng, ctx);
  // One request in five is WebDAV's (the rest keeps RFC 9110's mix, which
  // the planted bugs need).
  if (pick(rng, 5) == 0) {
    if (pick(rng, 8) == 0) return locked_write(rng, ctx, path);
    return dav_request(rng, ctx, path, kDavMethods[pick(rng, std::size(kDavMethods))]);
  }
  std::string method = random_method(rng);
  if (method == "PUT")
    if (auto mkcol = parent_first(rng, ctx, path)) return std::move(*mkcol);
  if (method == "DELETE")
    if (auto parent = known_parent(rng, ctx)) path = std::move(*parent);
  std::vector<std::pair<std::string, Jexp>> f = {{"method", Jexp::scalar(method)},
                                                 {"path", Jexp::scalar(path)}};
  if (method == "PUT" || method == "POST")
    f.emplace_back("body", Jexp::scalar(random_body(rng)));
  if (pick(rng, 2) == 0) f.emplace_back("headers", headers(rng, ctx, path));
  return Jexp::object(std::move(f));
}

std::optional<Jexp> supersede(std::mt19937_64& rng, const Jexp& source,
                              const harness::Protocol::Context& ctx) {
  const std::string path = path_of(source);
  if (path.empty()) return std::nullopt;
  if (pick(rng, 6) == 0)
    return Jexp::object(
        {{"method", Jexp::scalar("DELETE")}, {"path", Jexp::scalar(path)}});
  const std::string last = latest_put_body(ctx, path);
  std::string body = random_body(rng);
  for (int tries = 0; body == last && tries < 8; ++tries) body = random_body(rng);
  if (body == last) body += "Y";
  return Jexp::object({{"method", Jexp::scalar("PUT")},
                       {"path", Jexp::scalar(path)},
                       {"body", Jexp::scalar(body)}});
}

namespace {
// `f` with member `k` set to `v` (added at the end when it is missing).
void set_field(Fields& f, const std::string& k, Jexp v) {
  for (auto& [key, val] : f)
    if (key == k) {
      val = std::move(v);
      return;
    }
  f.emplace_back(k, std::move(v));
}

// Byte-level edits (field_havoc.h): of the request target one time in
// three (a path that is not plain, which the model judges as any resource),
// else of a field sent blind: the one the request has, or a new one
// starting from the request's own value of that field or a well-formed one.
Jexp blind_edit(std::mt19937_64& rng, const Jexp& req, Fields f) {
  const Jexp* old = req.find("havoc");
  if (!old && pick(rng, 3) == 0) {
    set_field(f, "path", Jexp::scalar(havoc_bytes(path_of(req), "", rng)));
    return Jexp::object(std::move(f));
  }
  std::string name, value;
  if (old && old->kind() == Jexp::Kind::Object) {
    name = string_field(*old, "name");
    value = string_field(*old, "value");
  }
  if (name.empty()) {
    const auto all = havoc_fields();
    const HavocField& h = all[pick(rng, all.size())];
    name = std::string(h.name);
    const Jexp* headers = req.find("headers");
    const Jexp* own =
        headers && headers->kind() == Jexp::Kind::Object ? headers->find(name) : nullptr;
    value = own && own->kind() == Jexp::Kind::Scalar && own->value().is_string()
                ? own->value().get<std::string>()
                : std::string(h.seed);
  }
  value = havoc_bytes(std::move(value), name, rng);
  set_field(f, "havoc",
            Jexp::object({{"name", Jexp::scalar(name)}, {"value", Jexp::scalar(value)}}));
  return Jexp::object(std::move(f));
}

// The forms of request an origin server rarely sees but answers by the RFC
// all the same (message_rules.h checks the answers): TRACE (RFC 9110
// §9.3.8; no content, a client MUST NOT send it), CONNECT to an authority
// that never resolves (§9.3.6; ".invalid", RFC 6761; its Host is that
// authority, RFC 9112 §3.2), OPTIONS * (§9.3.7), and an offer to switch
// to h2c (§7.8), with or without the Upgrade connection option, and with
// Expect: 100-continue when it has content (a 100 then comes before a 101).
// Syntax mutations only: a proxy would open the tunnel's connection.
Jexp other_form(std::mt19937_64& rng, const Jexp& req, Fields f) {
  auto drop = [&f](std::initializer_list<std::string_view> keys) {
    std::erase_if(f, [keys](const auto& kv) {
      return std::find(keys.begin(), keys.end(), kv.first) != keys.end();
    });
  };
  switch (pick(rng, 4)) {
    case 0:
      drop({"body", "chunks", "chunk-ext"});
      set_field(f, "method", Jexp::scalar("TRACE"));
      return Jexp::object(std::move(f));
    case 1: {
      const std::string authority = "dualfuzz.invalid:80";
      return Jexp::object(
          {{"method", Jexp::scalar("CONNECT")},
           {"path", Jexp::scalar(authority)},
           {"headers", Jexp::object({{"host", Jexp::scalar(authority)}})}});
    }
    case 2:
      return Jexp::object(
          {{"method", Jexp::scalar("OPTIONS")}, {"path", Jexp::scalar("*")}});
    default: {
      Fields h = fields_of(req.find("headers"),
                           {"upgrade", "connection", "http2-settings", "expect"});
      h.emplace_back("upgrade", Jexp::scalar("h2c"));
      h.emplace_back("http2-settings", Jexp::scalar("AAMAAABkAAQAoAAAAAIAAAAA"));
      if (pick(rng, 3) != 0)
        h.emplace_back("connection", Jexp::scalar("Upgrade, HTTP2-Settings"));
      if (!string_field(req, "body").empty() && pick(rng, 2) == 0)
        h.emplace_back("expect", Jexp::scalar("100-continue"));
      set_field(f, "headers", Jexp::object(std::move(h)));
      return Jexp::object(std::move(f));
    }
  }
}

Jexp mutate(std::mt19937_64& rng, const Jexp& req, const harness::Protocol::Context& ctx,
            bool syntax) {
  if (req.kind() != Jexp::Kind::Object) return generate_request(rng, ctx);
  std::vector<std::pair<std::string, Jexp>> f;
  for (std::size_t i = 0; i < req.keys().size(); ++i)
    f.emplace_back(req.keys()[i], req.items()[i]);
  auto set = [&f](const std::string& k, Jexp v) { set_field(f, k, std::move(v)); };
  // A WebDAV request keeps its method and path and changes what only the
  // server reads (model.cpp: bodies, Depth and Overwrite are the
  // server's): its XML body, most often, or one of those headers.
  const std::string method = string_field(req, "method");
  // Now and then a COPY, MOVE or PROPFIND names its resource with a trailing
  // slash, as a collection's URI is written (RFC 4918 §5.2): a server copies
  // or moves a collection only so (lighttpd answers 308 to "/a" when /a is a
  // directory, and its collection copy was never reached). Any answer is
  // right for a path that is not plain, but such a COPY or MOVE writes only
  // its Destination (model.cpp's reach), so the rest stays judged. Syntax
  // mutations only: never for a proxy.
  if (syntax && (method == "COPY" || method == "MOVE" || method == "PROPFIND") &&
      pick(rng, 8) == 0) {
    const std::string path = path_of(req);
    if (!path.empty() && path.back() != '/') {
      set("path", Jexp::scalar(path + "/"));
      return Jexp::object(std::move(f));
    }
  }
  if ((method == "PROPFIND" || method == "PROPPATCH" || method == "LOCK" ||
       method == "COPY" || method == "MOVE") &&
      pick(rng, 2) == 0) {
    const bool xml = method != "COPY" && method != "MOVE";
    if (xml && pick(rng, 4) != 0) {
      set("body", Jexp::scalar(mutate_xml(string_field(req, "body"), rng)));
    } else {
      Fields h = fields_of(req.find("headers"), {"depth", "overwrite"});
      if (pick(rng, 4) != 0)
        h.emplace_back("depth",
                       Jexp::scalar(kOddDepths[pick(rng, std::size(kOddDepths))]));
      if (!xml && pick(rng, 2) == 0)
        h.emplace_back(
            "overwrite",
            Jexp::scalar(kOddOverwrites[pick(rng, std::size(kOddOverwrites))]));
      set("headers", Jexp::object(std::move(h)));
    }
    return Jexp::object(std::move(f));
  }
  // A field sent blind is edited further half the time: the stacks of edits
  // a coverage-guided engine keeps are where it gets past a parser's checks.
  if (syntax && req.find("havoc") && pick(rng, 2) == 0) return blind_edit(rng, req, f);
  switch (pick(rng, syntax ? 15 : 10)) {
    case 14:
      return other_form(rng, req, f);
    case 13:
      return blind_edit(rng, req, f);
    case 0:
      set("method", Jexp::scalar(random_method(rng)));
      break;
    case 10: {  // a defect of its syntax (malformation.h), or none again
      const bool had = req.find("malformed") != nullptr;
      std::erase_if(f, [](const auto& kv) { return kv.first == "malformed"; });
      if (had && pick(rng, 2) == 0) break;
      const auto all = malformations();
      f.emplace_back("malformed",
                     Jexp::scalar(std::string(all[pick(rng, all.size())].name)));
      break;
    }
    case 11:
      set("headers", Jexp::object(edit_host(rng, req.find("headers"))));
      break;
    case 12: {  // an Expect field (RFC 9110 §10.1.1), or none again
      const Jexp* old = req.find("headers");
      const bool had = old && old->kind() == Jexp::Kind::Object && old->find("expect");
      Fields h = fields_of(old, {"expect"});
      if (!had || pick(rng, 2) == 0)
        h.emplace_back("expect", Jexp::scalar(kExpects[pick(rng, std::size(kExpects))]));
      set("headers", Jexp::object(std::move(h)));
      break;
    }
    case 7:
    case 8:
    case 9:  // one header field added, changed or removed
      set("headers",
          Jexp::object(edit_one_header(rng, req.find("headers"), ctx, path_of(req))));
      break;
    case 6: {  // the same content, framed chunked or back (codec.h)
      const bool had = req.find("chunks") != nullptr;
      std::erase_if(f, [](const auto& kv) {
        return kv.first == "chunks" || kv.first == "chunk-ext";
      });
      if (had && pick(rng, 2) == 0) break;
      std::vector<Jexp> sizes;
      for (std::size_t n = pick(rng, 4); n > 0; --n)
        sizes.push_back(Jexp::scalar(1 + pick(rng, 8)));
      f.emplace_back("chunks", Jexp::array(std::move(sizes)));
      static const char* kExts[] = {"a=b", "x", "n=1;m", "ext=\"v\""};
      if (pick(rng, 3) == 0)
        f.emplace_back("chunk-ext", Jexp::scalar(kExts[pick(rng, std::size(kExts))]));
      if (string_field(req, "body").empty()) set("body", Jexp::scalar(random_body(rng)));
      break;
    }
    case 5: {  // the same path, as a WebDAV request
      std::string path = path_of(req);
      if (path.empty()) path = choose_path(rng, ctx);
      return dav_request(rng, ctx, path, kDavMethods[pick(rng, std::size(kDavMethods))]);
    }
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
}  // namespace

Jexp mutate_request(std::mt19937_64& rng, const Jexp& req,
                    const harness::Protocol::Context& ctx) {
  return mutate(rng, req, ctx, /*syntax=*/true);
}
Jexp mutate_well_formed(std::mt19937_64& rng, const Jexp& req,
                        const harness::Protocol::Context& ctx) {
  return mutate(rng, req, ctx, /*syntax=*/false);
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

std::optional<Jexp> apply_retarget(const Jexp& request,
                                   const harness::Protocol::Retarget& field) {
  if (request.kind() != Jexp::Kind::Object) return std::nullopt;
  auto same_name = [&](const std::string& name) {
    return name.size() == field.field.size() &&
           std::equal(name.begin(), name.end(), field.field.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) ==
                    std::tolower(static_cast<unsigned char>(y));
           });
  };
  std::vector<std::pair<std::string, Jexp>> fields;
  bool placed = false;
  for (std::size_t i = 0; i < request.keys().size(); ++i) {
    const Jexp& v = request.items()[i];
    if (request.keys()[i] != "headers") {
      fields.emplace_back(request.keys()[i], v);
      continue;
    }
    if (v.kind() != Jexp::Kind::Object) return std::nullopt;
    std::vector<std::pair<std::string, Jexp>> hs;
    for (std::size_t j = 0; j < v.keys().size(); ++j)
      if (!same_name(v.keys()[j])) hs.emplace_back(v.keys()[j], v.items()[j]);
    hs.emplace_back(field.field, Jexp::scalar(field.text));
    fields.emplace_back("headers", Jexp::object(std::move(hs)));
    placed = true;
  }
  if (!placed)
    fields.emplace_back("headers",
                        Jexp::object({{field.field, Jexp::scalar(field.text)}}));
  return Jexp::object(std::move(fields));
}

}  // namespace dualfuzz::http
