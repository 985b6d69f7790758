// The site's own resources (issue 42): paths the server held before the
// run, read as they are (request IR "site": true; never written, never put
// under the run's namespace) and judged as unknown but fixed (model.h).
//
//   auto q = http::site_read("/index.html");          // {"method":"GET",...}
//   std::string s = http::site_script({"/a.txt", "/b.png"});  // a seed script
//   for (auto& p : http::site_links(response_ir)) ...  // what an answer links to
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/harness/ir.h"

namespace dualfuzz::http {

// A plain GET of a site path.
harness::Json site_read(const std::string& path);

// A script that exercises each path on connection c0: GET (then waits), HEAD,
// GET with If-None-Match and If-Modified-Since naming the first answer's
// validators, a one-byte Range, a Range with If-Range, and OPTIONS. Labels
// from 1. `shared`: marked "site": "shared" (others may write them: each
// answer judged alone) instead of "site": true.
std::string site_script(const std::vector<std::string>& paths, bool shared = false);

// The site paths an answer names: href/src links of an HTML page, <loc>
// entries of a sitemap, the Location field; only this site's (a path or a
// relative reference, resolved against `base`, the path that was read),
// without query or fragment, at most `max` of them, no duplicates.
std::vector<std::string> site_links(const harness::Json& response_ir,
                                    std::string_view base = "/", std::size_t max = 256);

}  // namespace dualfuzz::http
