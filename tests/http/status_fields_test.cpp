#include "dualfuzz/http/status_fields.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace dualfuzz::http {
namespace {

using Json = nlohmann::json;

TEST(StatusFields, MarksTheFieldsAStatusMustCarryWhateverTheStatus) {
  const Json r = mark_status_fields(
      {{"status", 200},
       {"headers", {{"allow", "GET"}, {"upgrade", "h2c"}, {"etag", "\"1\""}}}});
  EXPECT_EQ(r["allow"], Json({{"present", true}}));
  EXPECT_EQ(r["upgrade"], Json({{"present", true}}));
  EXPECT_FALSE(r.contains("www-authenticate"));
  EXPECT_FALSE(r.contains("etag"));
  // Garbage is returned as it came.
  EXPECT_EQ(mark_status_fields(Json("x")), Json("x"));
  EXPECT_EQ(mark_status_fields({{"headers", 1}}), Json({{"headers", 1}}));
}

TEST(StatusFields, EachMustOfRfc9110Section15) {
  std::vector<int> codes;
  for (const StatusField& f : status_fields()) codes.push_back(f.status);
  EXPECT_EQ(codes, (std::vector<int>{401, 405, 407, 426}));
  // A pattern of plain statuses only is one object; with a field, one
  // alternative per status that carries one.
  EXPECT_EQ(
      statuses_with_fields({400, 404}).hash(),
      oracle::Sym::object(
          {{"status", oracle::Sym::alt({oracle::Sym::lit(400), oracle::Sym::lit(404)})}})
          .hash());
  EXPECT_NE(statuses_with_fields({400, 405}).hash(),
            statuses_with_fields({400, 404}).hash());
}

}  // namespace
}  // namespace dualfuzz::http
