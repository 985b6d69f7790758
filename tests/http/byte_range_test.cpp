// Byte ranges: the Range parser, satisfiability and Content-Range forms.
#include "dualfuzz/http/byte_range.h"

#include <gtest/gtest.h>

namespace dualfuzz::http {
namespace {
using Kind = RangeField::Kind;

std::vector<ByteInterval> parts(const char* range, long long length) {
  return satisfiable(parse_range(range), length);
}

TEST(ByteRange, ParsesEveryFormOfRangeSpec) {
  EXPECT_EQ(parts("bytes=0-4", 10), (std::vector<ByteInterval>{{0, 4}}));
  EXPECT_EQ(parts("bytes=7-", 10), (std::vector<ByteInterval>{{7, 9}}));
  EXPECT_EQ(parts("bytes=-3", 10), (std::vector<ByteInterval>{{7, 9}}));
  EXPECT_EQ(parts("bytes=-30", 10), (std::vector<ByteInterval>{{0, 9}}));
  EXPECT_EQ(parts("bytes=8-99999999999999999999", 10),
            (std::vector<ByteInterval>{{8, 9}}));
  EXPECT_EQ(parts("Bytes = 0-1 , ,5-6", 10).size(), 0u);  // no OWS around '='
  EXPECT_EQ(parts("BYTES=0-1 , ,5-6", 10), (std::vector<ByteInterval>{{0, 1}, {5, 6}}));
}

TEST(ByteRange, UnsatisfiableInvalidAndOtherUnits) {
  EXPECT_TRUE(parts("bytes=10-", 10).empty());
  EXPECT_TRUE(parts("bytes=-0", 10).empty());
  EXPECT_TRUE(parts("bytes=0-0", 0).empty());  // an empty representation
  EXPECT_EQ(parts("bytes=10-,2-3", 10), (std::vector<ByteInterval>{{2, 3}}));
  for (const char* bad : {"bytes=3-1", "bytes=x-y", "bytes=", "bytes", "=0-1", "bytes=1",
                          "bytes=--1", "bytes=0-1;2-3"})
    EXPECT_EQ(parse_range(bad).kind, Kind::Invalid) << bad;
  EXPECT_EQ(parse_range("items=0-1").kind, Kind::OtherUnit);
  EXPECT_EQ(parse_range("items=").kind, Kind::Invalid);
  // Invalid only by backward int-ranges: the other specs are kept apart.
  const RangeField back = parse_range("bytes=5-4, 1-1,-2");
  EXPECT_EQ(back.kind, Kind::Invalid);
  ASSERT_EQ(back.well_formed.size(), 2u);
  EXPECT_EQ(back.well_formed[0].first, 1);
  EXPECT_TRUE(back.well_formed[1].suffix);
  EXPECT_TRUE(parse_range("bytes=5-4,x").well_formed.empty());  // a syntax error too
  EXPECT_TRUE(parse_range("bytes=3-1").well_formed.empty());
  // Whitespace before the first spec is no list (RFC 9110 §5.6.1.2); after
  // a comma it is.
  const RangeField lead = parse_range("bytes= 0-1");
  EXPECT_EQ(lead.kind, Kind::Invalid);
  ASSERT_EQ(lead.well_formed.size(), 1u);
  EXPECT_EQ(lead.well_formed[0].first, 0);
  EXPECT_EQ(parse_range("bytes=0-1, 3-4").kind, Kind::Bytes);
  EXPECT_EQ(parse_range("bytes=0-1 ,3-4").kind, Kind::Bytes);
}

TEST(ByteRange, OverlapAndOrder) {
  EXPECT_FALSE(overlapping_or_unordered(parts("bytes=0-1,5-6", 10)));
  EXPECT_TRUE(overlapping_or_unordered(parts("bytes=0-2,1-3", 10)));
  EXPECT_TRUE(overlapping_or_unordered(parts("bytes=5-6,0-1", 10)));
}

TEST(ByteRange, ContentRangeForms) {
  EXPECT_EQ(content_range(2, 4, 10), "bytes 2-4/10");
  EXPECT_EQ(content_range(2, 4, std::nullopt), "bytes 2-4/*");
  EXPECT_EQ(unsatisfied_range(10), "bytes */10");
  EXPECT_EQ(canonical_content_range("BYTES 02-4/010"), "bytes 2-4/10");
  EXPECT_EQ(canonical_content_range("bytes */10"), "bytes */10");
  EXPECT_EQ(canonical_content_range("bytes 2-4/*"), "bytes 2-4/*");
  for (const char* bad : {"bytes 4-2/10", "bytes 2-10/10", "items 1-2/3", "bytes 1-2",
                          "bytes */*", "bytes=1-2/3", ""})
    EXPECT_FALSE(canonical_content_range(bad)) << bad;
}

}  // namespace
}  // namespace dualfuzz::http
