// HTTP-dates (RFC 9110 §5.6.7): the three formats name one instant; what
// is none of them is no date. Model, generator and reference server share
// this code, so they cannot disagree on which dates a recipient ignores.
#include "dualfuzz/http/date.h"

#include <gtest/gtest.h>

namespace dualfuzz::http {
namespace {

constexpr long long kRfcExample = 784111777;  // RFC 9110 §5.6.7's example

TEST(HttpDate, TheThreeFormatsOfTheRfcExampleAreOneInstant) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), kRfcExample);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), kRfcExample);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), kRfcExample);
}

TEST(HttpDate, FormatsAsTheRfcWritesThem) {
  EXPECT_EQ(format_http_date(kRfcExample), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(format_http_date(kRfcExample, DateFormat::Rfc850),
            "Sunday, 06-Nov-94 08:49:37 GMT");
  EXPECT_EQ(format_http_date(kRfcExample, DateFormat::Asctime),
            "Sun Nov  6 08:49:37 1994");
}

TEST(HttpDate, EveryFormatRoundTrips) {
  // (rfc850's two-digit year is read within 50 years of today: these are.)
  for (long long t : {kRfcExample, 1'700'000'000LL, 1'700'086'399LL, 0LL + 86'400 * 366})
    for (DateFormat f : {DateFormat::ImfFixdate, DateFormat::Asctime})
      EXPECT_EQ(parse_http_date(format_http_date(t, f)), t) << format_http_date(t, f);
  EXPECT_EQ(parse_http_date(format_http_date(1'700'000'000, DateFormat::Rfc850)),
            1'700'000'000);
}

TEST(HttpDate, AnythingElseIsNoDate) {
  for (const char* bad :
       {"", "not a date", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 08:49:37 GMT ", "Sun Nov 6 08:49:37 1994",
        "Sonntag, 06-Nov-94 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT"})
    EXPECT_FALSE(parse_http_date(bad).has_value()) << bad;
}

}  // namespace
}  // namespace dualfuzz::http
