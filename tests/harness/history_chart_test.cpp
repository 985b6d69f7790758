// history_chart_html: a rejected history's failing partition comes first,
// with its explained prefix and the operation no order places; a partition
// out of budget says Unknown, never a verdict.
#include "dualfuzz/harness/history_chart.h"

#include <gtest/gtest.h>

#include "dualfuzz/specs/jepsen_history.h"
#include "dualfuzz/specs/kv_store.h"

namespace dualfuzz::harness {
namespace {

std::string op(int process, const std::string& f, const std::string& key,
               const std::string& value) {
  const std::string v = "\"" + value + "\"";
  const std::string common = ", :f :" + f + ", :key \"" + key + "\", :value ";
  const std::string p = "{:process " + std::to_string(process);
  return p + ", :type :invoke" + common + (f == "get" ? "nil" : v) + "}\n" + p +
         ", :type :ok" + common + v + "}\n";
}

// Keys a, b, c: each written then read; b's read shows a value never written.
std::vector<oracle::Event> history() {
  std::string h;
  int p = 0;
  for (const std::string k : {"a", "b", "c"}) {
    h += op(p++, "put", k, "1");
    h += op(p++, "get", k, k == "b" ? "<2>" : "1");
  }
  auto t = specs::parse_jepsen_kv(h);
  EXPECT_TRUE(t) << t.error();
  return t ? *t : std::vector<oracle::Event>{};
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
    ++n;
  return n;
}

TEST(HistoryChart, TheFailingPartitionFirstWithItsPrefixAndItsUnplacedOperation) {
  const auto trace = history();
  const oracle::HistoryCheck c =
      oracle::check_history(specs::kv_store_model(), trace, {}, {2, true});
  ASSERT_EQ(c.verdict.status, oracle::Verdict::Status::Reject);
  const std::string html = history_chart_html("h<1>.txt", "kv-store", trace, c);
  EXPECT_NE(html.find("<h1>h&lt;1&gt;.txt: REJECTED</h1>"), std::string::npos) << html;
  const std::size_t b = html.find("Partition &quot;b&quot;: VIOLATED");
  const std::size_t a = html.find("Partition &quot;a&quot;: explained");
  ASSERT_NE(b, std::string::npos) << html;
  ASSERT_NE(a, std::string::npos) << html;
  EXPECT_LT(b, a);  // the failing partition first
  // b's write is explained (green), its read is the one no order places (red).
  EXPECT_EQ(count(html, "class=\"op kill\""), 1u);
  EXPECT_EQ(count(html, "class=\"op explained\""), 5u);
  EXPECT_NE(html.find("No order places the operation answered by event"),
            std::string::npos);
  EXPECT_NE(html.find("&lt;2&gt;"), std::string::npos);  // escaped payload
  EXPECT_EQ(count(html, "<svg"), 3u);
}

TEST(HistoryChart, APartitionOutOfBudgetIsUnknownNotAVerdict) {
  const auto trace = history();
  oracle::OracleOptions none;
  none.limits.max_hypotheses = 0;  // no configuration may be explored
  const oracle::HistoryCheck c =
      oracle::check_history(specs::kv_store_model(), trace, none, {1, true});
  ASSERT_EQ(c.verdict.status, oracle::Verdict::Status::Inconclusive)
      << c.verdict.explanation;
  const std::string html = history_chart_html("h.txt", "kv-store", trace, c);
  EXPECT_NE(html.find("INCONCLUSIVE"), std::string::npos);
  EXPECT_EQ(html.find("VIOLATED"), std::string::npos);
  EXPECT_EQ(html.find("class=\"op kill\""), std::string::npos);
  EXPECT_NE(html.find("Unknown (out of budget: no verdict)"), std::string::npos);
}

}  // namespace
}  // namespace dualfuzz::harness
