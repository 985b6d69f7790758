// The HTTP request generator and mutator (heuristics.cpp) and the trace
// functions they use (protocol.cpp's add_functions).
#include "dualfuzz/http/heuristics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "dualfuzz/http/date.h"
#include "dualfuzz/http/model.h"
#include "dualfuzz/http/protocol.h"

namespace dualfuzz::http {
namespace {

using harness::Jexp;

// The fields of a request's headers object, by name ("" = absent).
std::string header(const Jexp& req, const std::string& name) {
  const Jexp* h = req.find("headers");
  if (!h || h->kind() != Jexp::Kind::Object) return "";
  const Jexp* v = h->find(name);
  return v ? harness::print_jexp(*v) : "";
}
std::size_t header_count(const Jexp& req) {
  const Jexp* h = req.find("headers");
  return h && h->kind() == Jexp::Kind::Object ? h->keys().size() : 0;
}

TEST(HttpHeuristics, MutationAddsAHeaderAndKeepsTheOthers) {
  // A GET kept for what its If-None-Match reached: some mutants keep that
  // field and add a second precondition, the step a two-header condition
  // needs (before, a header mutation drew a whole new set).
  const harness::Protocol p = protocol();
  harness::Protocol::Context ctx;
  ctx.earlier.push_back(
      Jexp::object({{"method", Jexp::scalar("PUT")}, {"path", Jexp::scalar("/a")}}));
  ctx.earlier_labels.push_back(1);
  const Jexp req = Jexp::object(
      {{"method", Jexp::scalar("GET")},
       {"path", Jexp::scalar("/a")},
       {"headers", Jexp::object({{"if-none-match", Jexp::scalar("\"9\"")}})}});
  std::mt19937_64 rng(3);
  int kept_and_added = 0, kept_ims_added = 0, dropped = 0;
  for (int i = 0; i < 8000; ++i) {
    const Jexp m = p.mutate_request(rng, req, ctx);
    if (harness::print_jexp(*m.find("method")) != "\"GET\"") continue;
    const bool kept = header(m, "if-none-match") == "\"\\\"9\\\"\"";
    kept_and_added += kept && header_count(m) == 2;
    kept_ims_added +=
        kept && header_count(m) == 2 && !header(m, "if-modified-since").empty();
    dropped += m.find("headers") && header_count(m) == 0;
  }
  EXPECT_GT(kept_and_added, 400) << kept_and_added;
  EXPECT_GT(kept_ims_added, 60) << kept_ims_added;
  EXPECT_GT(dropped, 80) << dropped;
}

TEST(HttpHeuristics, DeepWritesMakeTheirParentsFirst) {
  // A PUT below a collection the script never made is refused by a server
  // with a hierarchy (409), so the generator makes the missing ancestors
  // first, shallowest first: after a PUT of /c/d/e, MKCOL /c; once /c is
  // made, MKCOL /c/d; never over a file the script PUT.
  const harness::Protocol p = protocol();
  auto req = [](const char* method, const char* path) {
    return Jexp::object({{"method", Jexp::scalar(method)}, {"path", Jexp::scalar(path)}});
  };
  auto mkcols = [&](std::vector<Jexp> earlier, const std::string& path) {
    harness::Protocol::Context ctx;
    for (auto& e : earlier) {
      ctx.earlier.push_back(std::move(e));
      ctx.earlier_labels.push_back(2 * ctx.earlier_labels.size() + 1);
    }
    std::mt19937_64 rng(5);
    int n = 0;
    for (int i = 0; i < 6000; ++i) {
      const Jexp g = p.generate_request(rng, ctx);
      n += harness::print_jexp(g) == harness::print_jexp(req("MKCOL", path.c_str()));
    }
    return n;
  };
  const int c_fresh = mkcols({req("PUT", "/c/d/e")}, "/c");
  const int cd_fresh = mkcols({req("PUT", "/c/d/e")}, "/c/d");
  const int c_made = mkcols({req("MKCOL", "/c"), req("PUT", "/c/d/e")}, "/c");
  const int cd_made = mkcols({req("MKCOL", "/c"), req("PUT", "/c/d/e")}, "/c/d");
  EXPECT_GT(c_fresh, 100);
  EXPECT_GT(cd_made, 50);
  EXPECT_LT(cd_fresh * 4, cd_made);  // not before its parent
  EXPECT_LT(c_made * 4, c_fresh);    // not again
  // Nor over a file the script PUT: the write below it stays a write.
  EXPECT_LT(mkcols({req("PUT", "/c"), req("PUT", "/c/d/e")}, "/c") * 4, c_fresh);
}

TEST(HttpHeuristics, DeletesPreferAParentOfAKnownPath) {
  // After PUT /p, PUT /p/x, PUT /q, PUT /r: a DELETE of /p asks whether /p/x
  // outlives it, the question delete-prefix hides behind. Half the DELETEs
  // go there; without a known child, DELETEs keep their spread.
  const harness::Protocol p = protocol();
  auto deletes_of = [&](std::vector<std::string> puts, const std::string& path) {
    harness::Protocol::Context ctx;
    for (const auto& q : puts) {
      ctx.earlier.push_back(Jexp::object({{"method", Jexp::scalar("PUT")},
                                          {"path", Jexp::scalar(q)},
                                          {"body", Jexp::scalar("b")}}));
      ctx.earlier_labels.push_back(2 * ctx.earlier_labels.size() + 1);
    }
    std::mt19937_64 rng(11);
    int all = 0, there = 0;
    for (int i = 0; i < 6000; ++i) {
      const Jexp g = p.generate_request(rng, ctx);
      if (harness::print_jexp(*g.find("method")) != "\"DELETE\"") continue;
      ++all;
      there += harness::print_jexp(*g.find("path")) == "\"" + path + "\"";
    }
    return std::pair{all, there};
  };
  const auto [all, parent] = deletes_of({"/p", "/p/x", "/q", "/r"}, "/p");
  const auto [all_flat, flat] = deletes_of({"/p", "/px", "/q", "/r"}, "/p");
  ASSERT_GT(all, 200);
  EXPECT_GT(parent * 2, all);         // > 1/2: the preference plus the draw
  EXPECT_LT(flat * 4, all_flat);      // /px is no child of /p
}

TEST(HttpHeuristics, MutationSendsDefectsAndWalksTheHostField) {
  // A defect of the syntax comes and goes (malformation.h), and the Host
  // value changes a character at a time from where it was, so a guided
  // engine can follow a server's host parser.
  const harness::Protocol p = protocol();
  harness::Protocol::Context ctx;
  const Jexp plain =
      Jexp::object({{"method", Jexp::scalar("GET")},
                    {"path", Jexp::scalar("/a")},
                    {"malformed", Jexp::scalar("obs-fold")},
                    {"headers", Jexp::object({{"host", Jexp::scalar("[::1]")}})}});
  std::mt19937_64 rng(5);
  std::set<std::string> defects;
  int removed = 0, one_char_away = 0;
  for (int i = 0; i < 3000; ++i) {
    const Jexp m = p.mutate_request(rng, plain, ctx);
    if (const Jexp* d = m.find("malformed"))
      defects.insert(d->value().get<std::string>());
    else
      removed += harness::print_jexp(*m.find("method")) == "\"GET\"";
    const std::string h = header(m, "host");
    if (h.empty()) continue;
    const std::string v = harness::Json::parse(h).get<std::string>();
    const std::size_t n = std::string("[::1]").size();
    one_char_away += v != "[::1]" && v.size() + 1 >= n && v.size() <= n + 1 &&
                     (v.starts_with("[:") || v.ends_with(":1]"));
  }
  EXPECT_GE(defects.size(), 10u);
  EXPECT_GT(removed, 20);
  EXPECT_GT(one_char_away, 20);
}

TEST(HttpHeuristics, MutationSendsExpectationsButNotToProxies) {
  // An Expect field comes (100-continue and others a server may refuse
  // with 417) and goes; the well-formed mutation the proxy plug-in uses
  // never adds one.
  const harness::Protocol p = protocol();
  harness::Protocol::Context ctx;
  const Jexp put = Jexp::object({{"method", Jexp::scalar("PUT")},
                                 {"path", Jexp::scalar("/a")},
                                 {"body", Jexp::scalar("x")}});
  std::mt19937_64 rng(7);
  std::set<std::string> values;
  for (int i = 0; i < 3000; ++i) {
    const std::string v = header(p.mutate_request(rng, put, ctx), "expect");
    if (!v.empty()) values.insert(v);
    EXPECT_EQ(header(mutate_well_formed(rng, put, ctx), "expect"), "");
  }
  EXPECT_TRUE(values.count("\"100-continue\""));
  EXPECT_TRUE(values.count("\"foo\""));
  const Jexp with =
      Jexp::object({{"method", Jexp::scalar("PUT")},
                    {"path", Jexp::scalar("/a")},
                    {"headers", Jexp::object({{"expect", Jexp::scalar("foo")}})}});
  int dropped = 0;
  for (int i = 0; i < 3000; ++i) {
    const Jexp m = p.mutate_request(rng, with, ctx);
    dropped += harness::string_field(m, "method") == "PUT" &&
               header(m, "expect").empty() && m.find("headers") != nullptr;
  }
  EXPECT_GT(dropped, 20);
}

// The forms of request the message rules need (TRACE, CONNECT, OPTIONS *,
// an h2c offer with and without its connection option, and with Expect:
// 100-continue) come from the syntax mutation; never from the proxy's.
TEST(HttpHeuristics, MutationSendsTheRareFormsButNotToProxies) {
  const harness::Protocol p = protocol();
  harness::Protocol::Context ctx;
  const Jexp put = Jexp::object({{"method", Jexp::scalar("PUT")},
                                 {"path", Jexp::scalar("/a")},
                                 {"body", Jexp::scalar("x")}});
  std::mt19937_64 rng(11);
  std::set<std::string> seen;
  for (int i = 0; i < 4000; ++i) {
    const Jexp m = p.mutate_request(rng, put, ctx);
    const std::string method = harness::string_field(m, "method");
    const std::string path = harness::string_field(m, "path");
    if (method == "TRACE") {
      seen.insert("TRACE");
      EXPECT_EQ(m.find("body"), nullptr);  // (RFC 9110 §9.3.8: a client MUST NOT)
    }
    if (method == "CONNECT") {
      seen.insert("CONNECT " + path);
      EXPECT_EQ(header(m, "host"), "\"" + path + "\"");
    }
    if (method == "OPTIONS" && path == "*") seen.insert("OPTIONS *");
    if (header(m, "upgrade") == "\"h2c\"") {
      seen.insert(header(m, "connection").empty() ? "upgrade alone" : "upgrade");
      if (header(m, "expect") == "\"100-continue\"") seen.insert("upgrade expect");
    }
    const Jexp w = mutate_well_formed(rng, put, ctx);
    EXPECT_NE(harness::string_field(w, "method"), "CONNECT");
    EXPECT_NE(harness::string_field(w, "method"), "TRACE");
    EXPECT_EQ(header(w, "upgrade"), "");
  }
  EXPECT_EQ(seen,
            (std::set<std::string>{"TRACE", "CONNECT dualfuzz.invalid:80", "OPTIONS *",
                                   "upgrade", "upgrade alone", "upgrade expect"}));
}

// Byte-level edits: a field sent blind, or a target that is not plain; a
// request that has a blind field gets it edited further. The well-formed
// mutation (the proxy plug-in's) never makes either.
TEST(HttpHeuristics, MutationSendsFieldsBlindButNotToProxies) {
  const harness::Protocol p = protocol();
  harness::Protocol::Context ctx;
  const Jexp get =
      Jexp::object({{"method", Jexp::scalar("GET")},
                    {"path", Jexp::scalar("/a")},
                    {"headers", Jexp::object({{"range", Jexp::scalar("bytes=0-1")}})}});
  std::mt19937_64 rng(13);
  std::set<std::string> names;
  int odd_targets = 0, from_own = 0;
  for (int i = 0; i < 4000; ++i) {
    const Jexp m = p.mutate_request(rng, get, ctx);
    if (const Jexp* h = m.find("havoc")) {
      const std::string name = harness::string_field(*h, "name");
      names.insert(name);
      // The request's own value is where a blind edit of its field starts.
      if (name == "range" &&
          harness::string_field(*h, "value").find("bytes=") != std::string::npos)
        ++from_own;
    }
    odd_targets += !plain_path(harness::string_field(m, "path"));
    const Jexp w = mutate_well_formed(rng, get, ctx);
    EXPECT_EQ(w.find("havoc"), nullptr);
    EXPECT_TRUE(plain_path(harness::string_field(w, "path")) ||
                harness::string_field(w, "path").empty());
  }
  EXPECT_GT(names.size(), 10u);
  EXPECT_GT(odd_targets, 20);
  EXPECT_GT(from_own, 0);
  // Stacked: most mutants of a blind request edit its value again.
  const Jexp blind = Jexp::object(
      {{"method", Jexp::scalar("GET")},
       {"path", Jexp::scalar("/a")},
       {"havoc",
        Jexp::object({{"name", Jexp::scalar("if")}, {"value", Jexp::scalar("(<a>)")}})}});
  int edited = 0;
  for (int i = 0; i < 1000; ++i) {
    const Jexp m = p.mutate_request(rng, blind, ctx);
    const Jexp* h = m.find("havoc");
    edited += h && harness::string_field(*h, "name") == "if" &&
              harness::string_field(*h, "value") != "(<a>)";
  }
  EXPECT_GT(edited, 450);
}

// Long bodies and ranges far apart in them: what a server's multipart
// byteranges need (lighttpd coalesces parts closer than 80 bytes).
TEST(HttpHeuristics, GeneratesLongBodiesAndRangesFarApart) {
  harness::Protocol::Context ctx;
  std::mt19937_64 rng(5);
  int long_bodies = 0, far_ranges = 0;
  for (int i = 0; i < 12000; ++i) {
    const Jexp q = generate_request(rng, ctx);
    long_bodies += harness::string_field(q, "body").size() >= 100;
    const std::string range = header(q, "range");
    // Two specs whose first offsets are more than 80 apart.
    std::vector<long> firsts;
    for (std::size_t at = range.find('='); at != std::string::npos;
         at = range.find(',', at + 1))
      if (at + 1 < range.size() &&
          std::isdigit(static_cast<unsigned char>(range[at + 1])))
        firsts.push_back(std::stol(range.substr(at + 1)));
    if (firsts.size() >= 2 && *std::max_element(firsts.begin(), firsts.end()) -
                                      *std::min_element(firsts.begin(), firsts.end()) >
                                  80)
      ++far_ranges;
  }
  EXPECT_GT(long_bodies, 20);
  EXPECT_GT(far_ranges, 5);
  // After a PUT of a long body, ranges of that path reach past byte 100.
  const std::string body(300, 'a');
  ctx.earlier.push_back(Jexp::object({{"method", Jexp::scalar("PUT")},
                                      {"path", Jexp::scalar("/a")},
                                      {"body", Jexp::scalar(body)}}));
  ctx.earlier_labels.push_back(1);
  int past_100 = 0, ranges = 0;
  for (int i = 0; i < 3000; ++i) {
    const Jexp q = generate_request(rng, ctx);
    if (harness::string_field(q, "path") != "/a") continue;
    const std::string range = header(q, "range");
    ranges += !range.empty();
    const std::size_t comma = range.find(',');
    past_100 += comma != std::string::npos && comma + 1 < range.size() &&
                std::isdigit(static_cast<unsigned char>(range[comma + 1])) &&
                std::stol(range.substr(comma + 1)) >= 100;
  }
  // (a quarter at least: random ranges alone reach past 100 a few percent)
  EXPECT_GT(past_100 * 4, ranges);
  EXPECT_GT(ranges, 20);
}

TEST(HttpHeuristics, DatesOneSecondOff) {
  const harness::Protocol p = protocol();
  const auto* earlier = p.functions.find("earlier");
  const auto* later = p.functions.find("later");
  ASSERT_TRUE(earlier && later);
  const harness::Json lm = "Sun, 06 Nov 1994 08:49:37 GMT";
  EXPECT_EQ((*earlier)(lm).value(), "Sun, 06 Nov 1994 08:49:36 GMT");
  EXPECT_EQ((*later)(lm).value(), "Sun, 06 Nov 1994 08:49:38 GMT");
  // Any of the three formats in; IMF-fixdate out, across a day.
  EXPECT_EQ((*later)(harness::Json("Sat Dec 31 23:59:59 1994")).value(),
            "Sun, 01 Jan 1995 00:00:00 GMT");
  // Not a date (or not a string): unchanged, as the other date functions.
  EXPECT_EQ((*earlier)(harness::Json("not a date")).value(), "not a date");
  EXPECT_EQ((*later)(harness::Json(7)).value(), 7);
}

// COPY, MOVE and PROPFIND are now and then sent naming a collection with its
// trailing slash (RFC 4918 §5.2), the only form a server copies a collection
// by; never in the well-formed mutations a proxy gets.
TEST(HttpHeuristics, CollectionsAreSometimesNamedWithTheirSlash) {
  const harness::Protocol p = protocol();
  harness::Protocol::Context ctx;
  std::mt19937_64 rng(11);
  std::set<std::string> slashed;
  for (const char* m : {"COPY", "MOVE", "PROPFIND", "PUT"}) {
    const Jexp q =
        Jexp::object({{"method", Jexp::scalar(m)}, {"path", Jexp::scalar("/a")}});
    for (int i = 0; i < 400; ++i) {
      if (harness::string_field(p.mutate_request(rng, q, ctx), "path") == "/a/")
        slashed.insert(m);
      EXPECT_NE(harness::string_field(mutate_well_formed(rng, q, ctx), "path"), "/a/");
    }
  }
  EXPECT_EQ(slashed, (std::set<std::string>{"COPY", "MOVE", "PROPFIND"}));
}

// If state lists that test an entity tag (RFC 4918 §10.4.2): the functions,
// and writes that send them built from an earlier answer's ETag.
TEST(HttpHeuristics, IfListsTestEntityTags) {
  const harness::Protocol p = protocol();
  const auto* ifetag = p.functions.find("ifetag");
  const auto* ifnotetag = p.functions.find("ifnotetag");
  ASSERT_TRUE(ifetag && ifnotetag);
  EXPECT_EQ((*ifetag)(harness::Json("\"abc\"")).value(), "([\"abc\"])");
  EXPECT_EQ((*ifnotetag)(harness::Json("W/\"1\"")).value(), "(Not [W/\"1\"])");
  EXPECT_EQ((*ifetag)(harness::Json(nullptr)).value(), nullptr);  // no tag: unchanged
  harness::Protocol::Context ctx;
  ctx.earlier.push_back(
      Jexp::object({{"method", Jexp::scalar("PUT")}, {"path", Jexp::scalar("/a")}}));
  ctx.earlier_labels.push_back(1);
  std::mt19937_64 rng(3);
  std::set<std::string> fns;
  int tokens = 0;
  for (int i = 0; i < 6000; ++i) {
    const Jexp q = generate_request(rng, ctx);
    const std::string h = header(q, "if");
    for (const char* fn : {"ifetag", "ifnotetag"})
      if (h.find(std::string(").") + fn) != std::string::npos) fns.insert(fn);
    // (no LOCK in the script yet: a made-up lock token)
    tokens += h.find("opaquelocktoken") != std::string::npos;
  }
  EXPECT_EQ(fns, (std::set<std::string>{"ifetag", "ifnotetag"}));
  EXPECT_GT(tokens, 0);
}

// An HTTP/1.0 server may answer a request line whose version it cannot read
// with bare HTTP/0.9 content: under `--assume http10` the mutator sends no
// lowercase HTTP-version; without it, it does.
TEST(HttpHeuristics, NoLowercaseVersionToAnHttp10Server) {
  const harness::Protocol plain = protocol();
  harness::Protocol http10 = plain;
  for (const auto& a : plain.assumptions)
    if (a.name == "http10") a.apply(http10);
  auto lowercase = [](const harness::Protocol& p) {
    std::mt19937_64 rng(3);
    harness::Protocol::Context ctx;
    Jexp q =
        Jexp::object({{"method", Jexp::scalar("GET")}, {"path", Jexp::scalar("/a")}});
    int n = 0;
    for (int i = 0; i < 20000; ++i) {
      const Jexp m = p.mutate_request(rng, q, ctx);
      const Jexp* d = m.find("malformed");
      n += d && harness::print_jexp(*d) == "\"lowercase-version\"";
    }
    return n;
  };
  EXPECT_GT(lowercase(plain), 0);
  EXPECT_EQ(lowercase(http10), 0);
}

}  // namespace
}  // namespace dualfuzz::http
