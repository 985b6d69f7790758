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
  EXPECT_TRUE(FunctionRegistry::valid_name("mode_add_write"));
  EXPECT_EQ(a.names(), std::vector<std::string>{"id"});
  EXPECT_EQ(b.names(), (std::vector<std::string>{"id", "twice"}));
}

TEST(FunctionRegistry, ProtocolFunctionsMayFail) {
  auto fns = FunctionRegistry::with_builtins();
  fns.add("increment", [](const Json& j) -> Result<Json> {
    if (!j.is_number_integer()) return make_error("not an integer");
    return Json(j.get<std::int64_t>() + 1);
  });
  EXPECT_EQ(*(*fns.find("increment"))(Json(41)), 42);
  auto bad = (*fns.find("increment"))(Json("x"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), "not an integer");
}

}  // namespace
}  // namespace dualfuzz::harness
