// The site's link extraction (http/site.h: gumbo over any bytes) on any
// body: it never crashes, every link is a path ("/..."), none repeats, the
// limit holds, and the same input gives the same links. Traps on failure.
//   ./http_site_links_fuzzer corpora/fuzz/http_site_links_fuzzer
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "dualfuzz/http/site.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // First byte: the limit; the rest: the body (a base path from its length).
  if (size == 0) return 0;
  const std::size_t max = data[0] % 64;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string base = body.size() % 2 ? "/dir/page.html" : "/";
  dualfuzz::harness::Json r = {{"status", 200}, {"headers", {{"location", body}}}};
  r["body"] = std::string(body.begin(), body.end());
  const auto links = dualfuzz::http::site_links(r, base, max);
  if (links.size() > max + 1) __builtin_trap();  // (+1: the Location, first)
  std::set<std::string> seen;
  for (const std::string& l : links) {
    if (l.empty() || l.front() != '/') __builtin_trap();
    if (!seen.insert(l).second) __builtin_trap();
  }
  if (dualfuzz::http::site_links(r, base, max) != links) __builtin_trap();
  return 0;
}
