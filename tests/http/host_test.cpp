// The Host grammar (RFC 9110 §7.2, RFC 3986 §3.2.2-3): both directions,
// since a valid value called invalid would be a false alarm.
#include "dualfuzz/http/host.h"

#include <gtest/gtest.h>

namespace dualfuzz::http {
namespace {

TEST(Host, ValidValues) {
  for (const char* v : {"localhost",
                        "localhost:8080",
                        "localhost:",
                        "",
                        "LOCALHOST",
                        " localhost\t",
                        "127.0.0.1",
                        "999.1.1.1",
                        "a,b",
                        "a;b=c",
                        "!$&'()*+",
                        "%6cocalhost",
                        "a-b_c~d.",
                        "[::1]",
                        "[::]",
                        "[::1]:80",
                        "[1:2:3:4:5:6:7:8]",
                        "[1::8]",
                        "[1:2:3:4:5:6:7::]",
                        "[::2:3:4:5:6:7:8]",
                        "[::ffff:1.2.3.4]",
                        "[1:2:3:4:5:6:1.2.3.4]",
                        "[fe80::1]",
                        "[v1.x]",
                        "[V7f.a:b]"})
    EXPECT_TRUE(valid_host(v)) << v;
}

TEST(Host, InvalidValues) {
  for (const char* v : {"local host",
                        "a@b",
                        "a/b",
                        "a?b",
                        "a#b",
                        "[::1",
                        "::1",
                        "[::1]x",
                        "[::1]:8o",
                        "localhost:8o",
                        "localhost:80:80",
                        "%zz",
                        "%4",
                        "a\"b",
                        "a<b",
                        "a\\b",
                        "[1:2]",
                        "[1:2:3:4:5:6:7:8:9]",
                        "[1::2::3]",
                        "[12345::]",
                        "[::1.2.3]",
                        "[::1.2.3.256]",
                        "[::01.2.3.4]",
                        "[1.2.3.4::]",
                        "[1:2:3:4:5:6:7:1.2.3.4]",
                        "[v.x]",
                        "[v1.]",
                        "[x]",
                        "a\tb",
                        "\xc3\xa9"})
    EXPECT_FALSE(valid_host(v)) << v;
}

TEST(Host, DefaultIsLocalhostInAnyCaseWithoutPort) {
  EXPECT_TRUE(default_host("localhost"));
  EXPECT_TRUE(default_host(" LocalHost "));
  EXPECT_FALSE(default_host("localhost:80"));
  EXPECT_FALSE(default_host("127.0.0.1"));
  EXPECT_FALSE(default_host(""));
  EXPECT_EQ(classify_host("LOCALHOST"), HostField::kDefault);
  EXPECT_EQ(classify_host("example.com"), HostField::kOther);
  EXPECT_EQ(classify_host(""), HostField::kOther);
  EXPECT_EQ(classify_host("a@b"), HostField::kInvalid);
}

}  // namespace
}  // namespace dualfuzz::http
