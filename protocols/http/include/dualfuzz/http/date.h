// HTTP-dates (RFC 9110 §5.6.7) <-> seconds since the epoch, shared by the
// model, the generator and the reference server so that all three read a
// date the same way. A recipient MUST accept all three formats; senders use
// IMF-fixdate, and the generator also sends the obsolete two (and invalid
// dates, which a recipient must ignore).
//
//   parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT");   // 784111777
//   parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT");  // 784111777
//   parse_http_date("Sun Nov  6 08:49:37 1994");        // 784111777
//   format_http_date(784111777, DateFormat::Asctime);   // "Sun Nov  6 08:49:37 1994"
#pragma once

#include <optional>
#include <string>

namespace dualfuzz::http {

enum class DateFormat { ImfFixdate, Rfc850, Asctime };

// nullopt for anything that is not one of the three formats.
std::optional<long long> parse_http_date(const std::string& s);
std::string format_http_date(long long seconds,
                             DateFormat format = DateFormat::ImfFixdate);

}  // namespace dualfuzz::http
