// Field grammars as a sender must generate them (RFC 9110 §2.2): each
// accepts the RFC's own examples and refuses what breaks its ABNF.
#include "dualfuzz/http/field_grammar.h"

#include <set>

#include <gtest/gtest.h>

namespace dualfuzz::http {
namespace {

bool ok(std::string_view name, std::string_view value) {
  const FieldGrammar* g = field_grammar(name);
  EXPECT_NE(g, nullptr) << name;
  return g && g->check(value);
}

TEST(FieldGrammar, Dates) {
  EXPECT_TRUE(ok("date", "Sun, 06 Nov 1994 08:49:37 GMT"));  // §5.6.7's example
  EXPECT_TRUE(ok("last-modified", "Tue, 15 Nov 1994 12:45:26 GMT"));
  // Obsolete formats a recipient must read but a sender must not send.
  EXPECT_FALSE(ok("date", "Sunday, 06-Nov-94 08:49:37 GMT"));
  EXPECT_FALSE(ok("date", "Sun Nov  6 08:49:37 1994"));
  EXPECT_FALSE(ok("expires", "0"));
  EXPECT_FALSE(ok("date", "Sun, 06 Nov 1994 08:49:37 UTC"));
  EXPECT_FALSE(ok("date", "Sun, 6 Nov 1994 08:49:37 GMT"));
  EXPECT_FALSE(ok("date", "Sun, 06 Nov 1994 25:49:37 GMT"));
  EXPECT_TRUE(ok("retry-after", "120"));
  EXPECT_TRUE(ok("retry-after", "Fri, 31 Dec 1999 23:59:59 GMT"));
  EXPECT_FALSE(ok("retry-after", "2 minutes"));
}

TEST(FieldGrammar, EntityTags) {
  EXPECT_TRUE(ok("etag", "\"xyzzy\""));
  EXPECT_TRUE(ok("etag", "W/\"xyzzy\""));
  EXPECT_TRUE(ok("etag", "\"\""));
  EXPECT_FALSE(ok("etag", "xyzzy"));
  EXPECT_FALSE(ok("etag", "\"a\"b\""));
  EXPECT_FALSE(ok("etag", "w/\"x\""));  // (W/ is case-sensitive)
  EXPECT_FALSE(ok("etag", "\"a\", \"b\""));
}

TEST(FieldGrammar, ListsAndTokens) {
  EXPECT_TRUE(ok("allow", "GET, HEAD, PUT"));
  EXPECT_TRUE(ok("allow", ""));  // #method: an empty list says none is allowed
  EXPECT_FALSE(ok("allow", "GET,, HEAD"));  // a sender MUST NOT send empty elements
  EXPECT_FALSE(ok("allow", "GET HEAD"));
  EXPECT_TRUE(ok("vary", "*"));
  EXPECT_TRUE(ok("vary", "accept-encoding, accept-language"));
  EXPECT_FALSE(ok("vary", "accept encoding"));
  EXPECT_TRUE(ok("accept-ranges", "bytes"));
  EXPECT_TRUE(ok("accept-ranges", "none"));
  EXPECT_FALSE(ok("accept-ranges", ""));
  EXPECT_TRUE(ok("connection", "keep-alive, Upgrade"));
  EXPECT_TRUE(ok("transfer-encoding", "gzip, chunked"));
  EXPECT_TRUE(ok("content-encoding", "gzip"));
  EXPECT_TRUE(ok("content-language", "mi, en-US"));
  EXPECT_FALSE(ok("content-language", "en_US"));
  EXPECT_TRUE(ok("accept-encoding", "gzip;q=1.0, identity; q=0.5, *;q=0"));
  EXPECT_FALSE(ok("accept-encoding", "gzip;q=2"));
  EXPECT_TRUE(ok("cache-control", "max-age=60, private=\"x, y\""));
  EXPECT_FALSE(ok("cache-control", "max-age=\"60"));
}

TEST(FieldGrammar, MediaTypesProductsAndUris) {
  EXPECT_TRUE(ok("content-type", "text/html; charset=utf-8"));
  EXPECT_TRUE(ok("content-type", "text/html;charset=\"utf-8\""));
  EXPECT_FALSE(ok("content-type", "text"));
  EXPECT_FALSE(ok("content-type", "text/html; charset"));
  EXPECT_TRUE(ok("server", "CERN/3.0 libwww/2.17"));
  EXPECT_TRUE(ok("server", "nginx/1.22.1"));
  EXPECT_TRUE(ok("server", "Apache/2.4.57 (Debian)"));
  EXPECT_FALSE(ok("server", "Apache/2.4.57 (Debian"));
  EXPECT_FALSE(ok("server", "/1.0"));
  EXPECT_TRUE(ok("location", "http://www.example.org/People.html#tim"));
  EXPECT_TRUE(ok("location", "/index.html?a=%20b"));
  EXPECT_FALSE(ok("location", "/a b"));
  EXPECT_FALSE(ok("location", "/a%zz"));
  EXPECT_TRUE(ok("content-range", "bytes 42-1233/1234"));
  EXPECT_TRUE(ok("content-range", "bytes */1234"));
  EXPECT_FALSE(ok("content-range", "bytes 42-1233"));
  EXPECT_TRUE(ok("www-authenticate", "Basic realm=\"simple\""));
  EXPECT_TRUE(ok("www-authenticate",
                 "Newauth realm=\"apps\", type=1, title=\"Login to \\\"apps\\\"\", Basic "
                 "realm=\"simple\""));
  EXPECT_FALSE(ok("www-authenticate", ""));
  EXPECT_FALSE(ok("www-authenticate", "Basic realm=\"x"));
  EXPECT_TRUE(ok("content-length", "42"));
  EXPECT_FALSE(ok("content-length", "4 2"));
}

TEST(FieldGrammar, FieldValueCharacters) {
  EXPECT_TRUE(field_value_chars("a\tb c\x80"));
  EXPECT_FALSE(field_value_chars(std::string_view("a\x01", 2)));
  EXPECT_FALSE(field_value_chars("a\x7f"));
  EXPECT_EQ(field_grammar("x-private"), nullptr);
}

// Every grammar the rule layer checks, both ways: a value the ABNF allows and
// one it does not. The table must name each grammar, so a new one cannot be
// added untested.
TEST(FieldGrammar, EveryGrammarBothWays) {
  struct Case {
    std::string_view name, good, bad;
  };
  const Case cases[] = {
      {"accept-encoding", "gzip, br;q=0.5", "gzip;q=2"},
      {"accept-patch", "application/example, text/x-c", "application"},
      {"accept-ranges", "bytes", ""},
      {"age", "60", "-1"},
      {"allow", "GET, HEAD", "GET,, HEAD"},
      {"cache-control", "no-cache, max-age=0", "max-age=\"0"},
      {"connection", "close", "close keep-alive"},
      {"content-encoding", "gzip", "gzip deflate"},
      {"content-language", "en-US", "en_US"},
      {"content-length", "0", "0x10"},
      {"content-location", "/a/b?c", "/a b"},
      {"content-range", "bytes 0-0/2", "bytes 0-0"},
      {"content-type", "text/plain", "text"},
      {"date", "Sun, 06 Nov 1994 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"},
      {"etag", "W/\"1\"", "1"},
      {"expires", "Thu, 01 Dec 1994 16:00:00 GMT", "0"},
      {"last-modified", "Tue, 15 Nov 1994 12:45:26 GMT", "yesterday"},
      {"location", "/b", "/a b"},
      {"proxy-authenticate", "Basic realm=\"proxy\"", "Basic realm=\"x"},
      {"retry-after", "120", "soon"},
      {"server", "x/1.0 (y)", "(y)"},
      {"transfer-encoding", "gzip, chunked", "chunked gzip"},
      {"upgrade", "h2c, websocket", "h2c websocket"},
      {"vary", "accept, *", "accept encoding"},
      {"www-authenticate", "Bearer", ""},
  };
  std::set<std::string_view> named;
  for (const Case& c : cases) {
    named.insert(c.name);
    EXPECT_TRUE(ok(c.name, c.good)) << c.name << ": " << c.good;
    EXPECT_FALSE(ok(c.name, c.bad)) << c.name << ": " << c.bad;
  }
  for (const FieldGrammar& g : field_grammars())
    EXPECT_TRUE(named.count(g.name)) << g.name << " has no case";
}

}  // namespace
}  // namespace dualfuzz::http
