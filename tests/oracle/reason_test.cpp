// Reasons as data (reason.h): the text helpers reports use.
#include "dualfuzz/oracle/reason.h"

#include <gtest/gtest.h>

#include <string>

namespace dualfuzz::oracle {
namespace {

// A lighttpd reason once repeated a 10 KB file inside the constraint it
// named; constants past 60 characters are cut to 40 and their length.
TEST(BriefConstants, CutsLongQuotedConstantsOnly) {
  const std::string big(500, 'x');
  const std::string printed = "(($3 == \"\\\"819976991\\\"\") && ($0 == \"" + big + "\"))";
  const std::string b = brief_constants(printed);
  EXPECT_EQ(b, "(($3 == \"\\\"819976991\\\"\") && ($0 == \"" + std::string(40, 'x') +
                   "...\" (500 characters)))");
  // Short ones, escapes and all, stay whole; so does text without quotes.
  EXPECT_EQ(brief_constants("($1 == \"a\\\"b\") && ($2 < 7)"), "($1 == \"a\\\"b\") && ($2 < 7)");
  EXPECT_EQ(brief_constants("$1 < $2"), "$1 < $2");
  // Exactly 60 characters stay; 61 are cut.
  EXPECT_EQ(brief_constants("\"" + std::string(60, 'y') + "\""),
            "\"" + std::string(60, 'y') + "\"");
  EXPECT_EQ(brief_constants("\"" + std::string(61, 'y') + "\""),
            "\"" + std::string(40, 'y') + "...\" (61 characters)");
  // An unterminated constant (never printed so, but no crash either).
  EXPECT_EQ(brief_constants("$1 == \""), "$1 == \"");
  EXPECT_EQ(brief_constants("\"" + std::string(70, 'z')),
            "\"" + std::string(40, 'z') + "...\" (70 characters)");
}

}  // namespace
}  // namespace dualfuzz::oracle
