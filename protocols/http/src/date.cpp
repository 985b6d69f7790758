#include "dualfuzz/http/date.h"

#include <algorithm>
#include <ctime>
#include <iterator>
#include <string_view>

namespace dualfuzz::http {

namespace {
// Exactly the fixed-width shape `shape`: 'D' a digit, 'd' a digit or a
// space, 'A' a letter, anything else itself.
bool shaped(std::string_view s, std::string_view shape) {
  if (s.size() != shape.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool digit = c >= '0' && c <= '9';
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    switch (shape[i]) {
      case 'D':
        if (!digit) return false;
        break;
      case 'd':
        if (!digit && c != ' ') return false;
        break;
      case 'A':
        if (!letter) return false;
        break;
      default:
        if (c != shape[i]) return false;
    }
  }
  return true;
}
// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
// days_from_civil); a day past the month's end runs on into the next
// month, as timegm normalises it.
long long days_from_civil(long long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}
// The index of `name` (3 letters, any case) in `names`, or -1.
int name_index(std::string_view name, const char* const* names, int n) {
  for (int i = 0; i < n; ++i) {
    bool same = true;
    for (int k = 0; k < 3; ++k) same = same && (name[k] | 0x20) == (names[i][k] | 0x20);
    if (same) return i;
  }
  return -1;
}
// An IMF-fixdate already checked by `shaped`; the ranges strptime's %d,
// %H, %M and %S accept (the weekday is not checked against the date,
// as strptime does not).
// Decimal digits at [at, at + len) of `s` (a space counts 0: asctime's
// day is space-padded).
long long digits(std::string_view s, std::size_t at, std::size_t len) {
  long long v = 0;
  for (std::size_t i = 0; i < len; ++i)
    v = v * 10 + (s[at + i] == ' ' ? 0 : s[at + i] - '0');
  return v;
}
const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
const char* const kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
// Seconds since the epoch, within the ranges strptime's %d/%e, %H, %M and
// %S accept (the weekday is not checked against the date, as strptime does
// not).
std::optional<long long> civil(long long year, std::string_view month_name, long long day,
                               long long hour, long long minute, long long second) {
  const int month = name_index(month_name, kMonths, 12);
  if (month < 0 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 61)
    return std::nullopt;
  return days_from_civil(year, static_cast<unsigned>(month + 1),
                         static_cast<unsigned>(day)) *
             86400 +
         hour * 3600 + minute * 60 + second;
}
}  // namespace

// RFC 9110 §5.6.7: "A recipient that parses a timestamp value in an HTTP
// field MUST accept all three HTTP-date formats" — IMF-fixdate and the
// obsolete rfc850-date and asctime-date. Each is decoded by position: the
// model reads every date a request carries, and strptime costs
// microseconds (locale-aware name matching); tests/http/model_test.cpp
// checks the decoding against strptime.
std::optional<long long> parse_http_date(const std::string& str) {
  const std::string_view s = str;
  // IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
  if (shaped(s, "AAA, DD AAA DDDD DD:DD:DD GMT"))
    return name_index(s.substr(0, 3), kDays, 7) < 0
               ? std::nullopt
               : civil(digits(s, 12, 4), s.substr(8, 3), digits(s, 5, 2),
                       digits(s, 17, 2), digits(s, 20, 2), digits(s, 23, 2));
  // asctime-date: "Sun Nov  6 08:49:37 1994"
  if (shaped(s, "AAA AAA dD DD:DD:DD DDDD"))
    return name_index(s.substr(0, 3), kDays, 7) < 0
               ? std::nullopt
               : civil(digits(s, 20, 4), s.substr(4, 3), digits(s, 8, 2),
                       digits(s, 11, 2), digits(s, 14, 2), digits(s, 17, 2));
  // rfc850-date: "Sunday, 06-Nov-94 08:49:37 GMT"; a two-digit year more
  // than 50 years in the future is the latest such year in the past.
  static const char* const kWeekdays[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                          "Friday", "Saturday", "Sunday"};
  const std::size_t comma = s.find(", ");
  if (comma == std::string_view::npos ||
      std::find(std::begin(kWeekdays), std::end(kWeekdays), s.substr(0, comma)) ==
          std::end(kWeekdays))
    return std::nullopt;
  const std::string_view rest = s.substr(comma + 2);
  if (!shaped(rest, "DD-AAA-DD DD:DD:DD GMT")) return std::nullopt;
  std::tm now{};
  const std::time_t clock = std::time(nullptr);
  gmtime_r(&clock, &now);
  const int this_year = 1900 + now.tm_year;
  long long year = this_year / 100 * 100 + digits(rest, 7, 2);
  if (year > this_year + 50) year -= 100;
  return civil(year, rest.substr(3, 3), digits(rest, 0, 2), digits(rest, 10, 2),
               digits(rest, 13, 2), digits(rest, 16, 2));
}

std::string format_http_date(long long seconds, DateFormat format) {
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  static const char* const kFormats[] = {
      "%a, %d %b %Y %H:%M:%S GMT", "%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"};
  char buf[64];
  std::strftime(buf, sizeof buf, kFormats[static_cast<int>(format)], &tm);
  return buf;
}

}  // namespace dualfuzz::http
