// HTTP-dates (RFC 9110 §5.6.7): the three formats name one instant; what
// is none of them is no date. Model, generator and reference server share
// this code, so they cannot disagree on which dates a recipient ignores.
#include "dualfuzz/http/date.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <random>
#include <string>

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

// The positional decoders against strptime (what they replace: it costs
// microseconds, and the model reads every date a request carries), on
// random near-dates in the two obsolete formats.
std::optional<long long> by_strptime(const std::string& s, const char* format) {
  std::tm tm{};
  const char* end = strptime(s.c_str(), format, &tm);
  if (!end || *end != '\0') return std::nullopt;
  return static_cast<long long>(timegm(&tm));
}

TEST(HttpDate, ObsoleteFormatsAgreeWithStrptime) {
  const char* const days[] = {"Mon", "Tue", "Wed", "Thu", "Fri",
                              "Sat", "Sun", "sun", "XYZ"};
  const char* const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul",
                                "Aug", "Sep", "Oct", "Nov", "Dec", "feb", "Foo"};
  std::mt19937_64 rng(7);
  std::size_t valid = 0;
  for (int i = 0; i < 20000; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s %s %2d %02d:%02d:%02d %04d", days[rng() % 9],
                  months[rng() % 14], static_cast<int>(rng() % 33),
                  static_cast<int>(rng() % 26), static_cast<int>(rng() % 62),
                  static_cast<int>(rng() % 63), static_cast<int>(1890 + rng() % 250));
    const auto want = by_strptime(buf, "%a %b %e %H:%M:%S %Y");
    valid += want.has_value();
    ASSERT_EQ(parse_http_date(buf), want) << buf;
  }
  EXPECT_GT(valid, 5000u);  // both outcomes are exercised

  const char* const weekdays[] = {"Sunday",    "Monday",   "Tuesday",
                                  "Wednesday", "Thursday", "Friday",
                                  "Saturday",  "Sun",      "sunday"};
  valid = 0;
  for (int i = 0; i < 20000; ++i) {
    char buf[64];
    const char* weekday = weekdays[rng() % 9];
    std::snprintf(buf, sizeof buf, "%s, %02d-%s-%02d %02d:%02d:%02d GMT", weekday,
                  static_cast<int>(rng() % 33), months[rng() % 14],
                  static_cast<int>(rng() % 100), static_cast<int>(rng() % 26),
                  static_cast<int>(rng() % 62), static_cast<int>(rng() % 63));
    std::optional<long long> want;
    if (std::find(std::begin(weekdays), std::begin(weekdays) + 7, std::string(weekday)) !=
        std::begin(weekdays) + 7)
      want = by_strptime(buf, "%A, %d-%b-%y %H:%M:%S GMT");
    const auto got = parse_http_date(buf);
    valid += want.has_value();
    ASSERT_EQ(got.has_value(), want.has_value()) << buf;
    // strptime's century (%y: 69-99 -> 19xx) and the RFC's 50-year window
    // differ by whole centuries at most.
    if (got) {
      EXPECT_EQ((*got - *want) % (86'400LL * 36'524) == 0 ||
                    (*got - *want) % (86'400LL * 36'525) == 0,
                true)
          << buf;
    }
  }
  EXPECT_GT(valid, 5000u);
}

}  // namespace
}  // namespace dualfuzz::http
