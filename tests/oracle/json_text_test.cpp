// Text for reports from a server's bytes: dumps and cuts never make invalid
// UTF-8 (a report's --json must parse) and never throw.
#include "dualfuzz/oracle/json_text.h"

#include <gtest/gtest.h>

#include <string>

namespace dualfuzz::oracle {
namespace {

// json's strict dump throws on invalid UTF-8.
bool valid_utf8(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

TEST(JsonText, ADumpOfAServersBytesIsValidUtf8) {
  const std::string bytes =
      "X\xff\xfe"
      "4\x80M";
  EXPECT_FALSE(valid_utf8(bytes));
  const std::string d = dump_json(nlohmann::json(bytes));
  EXPECT_TRUE(valid_utf8(d)) << d;
  EXPECT_NE(d.find("\xEF\xBF\xBD"), std::string::npos);  // U+FFFD
}

TEST(JsonText, ACutFallsBetweenCharacters) {
  // Every cut of a text of three-byte characters (U+FFFD, as dump_json
  // writes for a server's byte), at every length: valid, within bounds,
  // marked.
  std::string text = "a";
  for (int i = 0; i < 12; ++i) text += "\xEF\xBF\xBD";
  for (std::size_t max = 4; max < text.size(); ++max) {
    const std::string c = clip_text(text, max);
    EXPECT_TRUE(valid_utf8(c)) << max;
    EXPECT_LE(c.size(), max);
    EXPECT_TRUE(c.ends_with("...")) << max;
  }
  EXPECT_EQ(clip_text(text, text.size()), text);
  EXPECT_EQ(clip_text("short", 80), "short");
  // A brief dump of a response whose content is binary: valid at any cut.
  const nlohmann::json response = {{"status", 200}, {"body", std::string(200, '\x9c')}};
  for (std::size_t max : {20u, 41u, 42u, 43u, 120u}) {
    const std::string b = brief_json(response, max);
    EXPECT_TRUE(valid_utf8(b)) << max << ": " << b;
    EXPECT_LE(b.size(), max);
  }
}

}  // namespace
}  // namespace dualfuzz::oracle
