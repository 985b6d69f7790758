// Byte ranges (RFC 9110 §14.1-14.4), shared by the model, the generator and
// the reference server so that all three read a Range field the same way
// (as date.h does for HTTP-dates).
//
//   RangeField f = parse_range("bytes=0-4, -3");   // two specs, unit bytes
//   auto parts = satisfiable(f, 10);               // [0,4] and [7,9]
//   content_range(0, 4, 10);                       // "bytes 0-4/10"
//   canonical_content_range("Bytes 00-4/10");      // "bytes 0-4/10"
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dualfuzz::http {

// One range-spec: an int-range `first-[last]` or a suffix-range `-length`.
struct RangeSpec {
  bool suffix = false;
  long long first = 0;            // int-range; unused for a suffix
  std::optional<long long> last;  // int-range: absent means to the end
  long long suffix_length = 0;    // suffix-range
};

struct RangeField {
  enum class Kind {
    OtherUnit,  // a well-formed field with a unit other than bytes: ignored (§14.2)
    Invalid,    // not a ranges-specifier, or an int-range with last < first
    Bytes,      // a byte-range set
  };
  Kind kind = Kind::Invalid;
  std::vector<RangeSpec> specs;  // Bytes only, in request order
  // Invalid only because some int-ranges have last < first ("5-4, 1-1"),
  // or because whitespace comes before the first spec ("bytes= 0-1"): the
  // other specs, in request order (empty otherwise). A server may serve
  // them as if they alone were asked for (nginx 1.22 answers "bytes=5-4,1-1"
  // with 206 "bytes 1-1/N"): RFC 9110 lets a server ignore or reject such a
  // set (§14.2) and says no more about its valid part.
  std::vector<RangeSpec> well_formed;
};

// An inclusive byte interval of a representation.
struct ByteInterval {
  long long first = 0, last = 0;
  friend bool operator==(const ByteInterval&, const ByteInterval&) = default;
};

// Parses a Range field value (RFC 9110 §14.1.1, §14.2). Never throws; huge
// positions saturate (a position past any representation is past it).
RangeField parse_range(const std::string& value);

// The satisfiable specs of a byte-range set against a representation of
// `length` bytes, resolved to intervals in request order (§14.1.2: an
// int-range is satisfiable if first < length, a suffix-range if its length is
// non-zero; an empty representation satisfies none).
std::vector<ByteInterval> satisfiable(const RangeField& f, long long length);

// Do any two specs overlap, or are they out of ascending order? A server MAY
// ignore or reject such a set (§14.2).
bool overlapping_or_unordered(const std::vector<ByteInterval>& parts);

// "bytes F-L/N" (§14.4); "bytes F-L/*" when `complete` is absent.
std::string content_range(long long first, long long last,
                          std::optional<long long> complete);
// "bytes */N": an unsatisfied-range (§14.4, for a 416).
std::string unsatisfied_range(long long complete);

// The part a Content-Range names: `bytes F-L/N` or `bytes F-L/*` (complete
// absent); nullopt for an unsatisfied-range or anything that is no valid
// Content-Range (§14.4).
struct ContentRangePart {
  ByteInterval range;
  std::optional<long long> complete;
};
std::optional<ContentRangePart> content_range_part(const std::string& value);

// A received Content-Range in the form the two functions above write (unit
// lowercase, no leading zeros), or nullopt when it is not a valid
// Content-Range (§14.4: also last < first, or a length not above last).
std::optional<std::string> canonical_content_range(const std::string& value);

}  // namespace dualfuzz::http
