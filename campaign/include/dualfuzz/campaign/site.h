// The server's own resources (harness::Protocol::site): which ones a
// campaign reads, and the scripts it starts its pool with. Against a real
// server every path the tester makes lives under the run's namespace; the
// site's resources are what real clients and caches use, judged as unknown
// but fixed (nobody else writes them during the run: the report says so).
//
//   auto paths = campaign::discover_site(protocol, target, {}, 32);  // crawl
//   auto seeds = campaign::site_seeds(protocol, *paths);             // scripts
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>  // (before Boost.Asio, which target.h includes)
#include <vector>

#include "dualfuzz/campaign/target.h"
#include "dualfuzz/harness/executor.h"
#include "dualfuzz/result.h"

namespace dualfuzz::campaign {

struct SiteOptions {
  std::size_t max_paths = 32;
  std::chrono::milliseconds timeout{2000};  // per read
};

// The paths of the site: `named` as given (--paths), each read once to
// check the server answers; with none named, the protocol's start paths and
// every path their answers link to, breadth first, read one at a time
// (oracle off), up to max_paths of those answered 2xx. An error when the
// protocol has no notion of a site or the server cannot be reached.
Result<std::vector<std::string>> discover_site(const harness::Protocol& p, Target& t,
                                               const std::vector<std::string>& named,
                                               SiteOptions o = {});

// The assumptions the server's answer to one read of the protocol's first
// start path implies (Protocol::implied_assumption: HTTP's "http10" for an
// answer in HTTP/1.0), each once; none when the protocol has no such hook
// or no site, or the server does not answer.
//   for (auto& a : campaign::implied_assumptions(protocol, target)) ...
std::vector<std::string> implied_assumptions(const harness::Protocol& p, Target& t,
                                             SiteOptions o = {});
// Those of the server at `target` (HOST:PORT) not in `given`, each once,
// for `dualfuzz fuzz` and `run` to take as if the user had said --assume;
// none for an in-process target or one that cannot be made.
std::vector<std::string> implied_beyond(const Plugin& plugin, const std::string& target,
                                        const std::vector<std::string>& given);

// Scripts that read `paths` (a few per script), for the pool's start;
// `shared`: others may write them (Protocol::Site::script).
std::vector<std::string> site_seeds(const harness::Protocol& p,
                                    const std::vector<std::string>& paths,
                                    std::size_t per_script = 4, bool shared = false);

// --paths FILE: one path a line; blank lines and lines from '#' ignored.
Result<std::vector<std::string>> read_site_paths(const std::string& file);

}  // namespace dualfuzz::campaign
