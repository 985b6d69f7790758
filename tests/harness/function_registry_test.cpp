#include "dualfuzz/harness/function_registry.h"

#include <gtest/gtest.h>

namespace dualfuzz::harness {
namespace {

TEST(FunctionRegistry, BuiltinsAndValueSemantics) {
  auto a = FunctionRegistry::with_builtins();
  ASSERT_NE(a.find("id"), nullptr);
  EXPECT_EQ(*(*a.find("id"))(Json(3)), 3);
  auto b = a;
  b.add("twice", [](const Json& j) -> Result<Json> { return Json::array({j, j}); });
  EXPECT_NE(b.find("twice"), nullptr);
  EXPECT_EQ(a.find("twice"), nullptr) << "copies are independent values";
  EXPECT_THROW(b.add("twice", nullptr), std::invalid_argument);
  EXPECT_THROW(b.add("bad name", nullptr), std::invalid_argument);
  EXPECT_FALSE(FunctionRegistry::valid_name("9lives"));
}

}  // namespace
}  // namespace dualfuzz::harness
