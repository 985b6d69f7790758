#include "dualfuzz/http/xml_mutation.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "dualfuzz/http/protocol.h"

namespace dualfuzz::http {
namespace {

const std::string kPropfind =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?><D:propfind xmlns:D=\"DAV:\" "
    "xmlns:Z=\"urn:z\"><D:prop><D:getetag/><Z:color/></D:prop></D:propfind>";

// The element tags in order ("D:prop", "/D:prop", "D:getetag/"), and
// whether every end tag closes the start tag opened last.
std::vector<std::string> tags(const std::string& s) {
  std::vector<std::string> out;
  static const std::regex tag("<(/?[A-Za-z][^ \t\r\n/>]*)[^>]*?(/?)>");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), tag);
       it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1].str() + (*it)[2].str());
  return out;
}
bool balanced(const std::string& s) {
  std::vector<std::string> open;
  for (const auto& t : tags(s)) {
    if (t.back() == '/') continue;
    if (t[0] != '/') {
      open.push_back(t);
    } else if (open.empty() || open.back() != t.substr(1)) {
      return false;
    } else {
      open.pop_back();
    }
  }
  return open.empty();
}

bool printable(const std::string& s) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (!((u >= 0x20 && u < 0x7f) || c == '\t' || c == '\n' || c == '\r')) return false;
  }
  return true;
}

TEST(XmlMutation, IsAFunctionOfTheEngineState) {
  std::mt19937_64 a(7), b(7);
  for (int i = 0; i < 200; ++i)
    EXPECT_EQ(mutate_xml(kPropfind, a), mutate_xml(kPropfind, b));
}

TEST(XmlMutation, ChainsStayPrintableAndBounded) {
  // Chains of mutations from a document and from garbage (bytes a script
  // could hold in a body): every output can be sent and stored in JSON.
  std::mt19937_64 rng(1);
  for (std::string start :
       {kPropfind, std::string("\x01\xff<a>\x80</a>"), std::string()}) {
    for (int chain = 0; chain < 200; ++chain) {
      std::string s = start;
      for (int step = 0; step < 40; ++step) {
        s = mutate_xml(s, rng);
        ASSERT_TRUE(printable(s)) << s;
        ASSERT_LE(s.size(), kMaxXmlBody);
      }
    }
  }
}

TEST(XmlMutation, ChangesTheStructureMostlyKeepingItWellFormed) {
  std::mt19937_64 rng(3);
  const auto before = tags(kPropfind);
  int well_formed = 0, renamed = 0, more = 0, fewer = 0, text = 0, ns = 0, same_count = 0;
  const int n = 4000;
  for (int i = 0; i < n; ++i) {
    std::string s = mutate_xml(kPropfind, rng);
    auto after = tags(s);
    well_formed += balanced(s);
    more += after.size() > before.size();
    fewer += after.size() < before.size();
    text +=
        s.find("</Z:color>") != std::string::npos || s.find("&amp;") != std::string::npos;
    ns += s.find("xmlns:D=\"DAV:\"") == std::string::npos ||
          s.find("urn:z\" xmlns") != s.npos;
    if (after.size() == before.size() && after != before) {
      ++same_count;
      // A rename changes a start tag and its end tag together.
      renamed += balanced(s);
    }
  }
  // Raw edits (one in ten) and documents from the vocabulary aside, the
  // structure survives: a coverage-guided engine builds on it.
  EXPECT_GT(well_formed, n * 8 / 10);
  EXPECT_GT(renamed, n / 20);
  EXPECT_GT(renamed, same_count * 8 / 10);
  EXPECT_GT(more, n / 10);
  EXPECT_GT(fewer, n / 20);
  EXPECT_GT(text, n / 50);
  EXPECT_GT(ns, n / 50);
}

TEST(XmlMutation, ReachesLivePropertiesTheGeneratorNeverNames) {
  // The generator's PROPFIND bodies name a fixed set of properties; chains
  // of mutations name others (RFC 4331's quota properties, creationdate...).
  std::mt19937_64 rng(5);
  std::set<std::string> names;
  for (int chain = 0; chain < 100; ++chain) {
    std::string s = kPropfind;
    for (int step = 0; step < 10; ++step) {
      s = mutate_xml(s, rng);
      for (const auto& t : tags(s)) names.insert(t);
    }
  }
  EXPECT_TRUE(names.count("D:quota-used-bytes") || names.count("D:quota-used-bytes/"));
  EXPECT_TRUE(names.count("D:creationdate") || names.count("D:creationdate/"));
}

TEST(XmlMutation, TheHttpMutatorChangesAWebDavBodyAndDepth) {
  harness::Protocol p = protocol();
  harness::Protocol::Context ctx;
  std::mt19937_64 rng(9);
  auto req = harness::Jexp::object({{"method", harness::Jexp::scalar("PROPFIND")},
                                    {"path", harness::Jexp::scalar("/a")},
                                    {"body", harness::Jexp::scalar(kPropfind)}});
  int body_changed = 0, depth_set = 0;
  for (int i = 0; i < 400; ++i) {
    harness::Jexp m = p.mutate_request(rng, req, ctx);
    std::string text = harness::print_jexp(m);
    if (text.find("\"PROPFIND\"") == std::string::npos) continue;  // another mutation
    if (text.find("\"/a\"") == std::string::npos) continue;
    body_changed += text.find("getetag/><Z:color/></D:prop>") == std::string::npos;
    depth_set += text.find("\"depth\"") != std::string::npos;
  }
  EXPECT_GT(body_changed, 40);
  EXPECT_GT(depth_set, 10);
}

}  // namespace
}  // namespace dualfuzz::http
