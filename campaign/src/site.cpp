#include "dualfuzz/campaign/site.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <fstream>
#include <set>

namespace dualfuzz::campaign {

std::vector<std::string> implied_assumptions(const harness::Protocol& p, Target& t,
                                             SiteOptions o) {
  std::vector<std::string> out;
  if (!p.implied_assumption || !p.site || p.site->start.empty()) return out;
  harness::Script s;
  s.steps.push_back(harness::RequestStep{
      1, 0, harness::Jexp::from_json(p.site->read(p.site->start.front()))});
  harness::RunOptions opts;
  opts.oracle = false;
  opts.message_timeout = o.timeout;
  opts.run_namespace = t.reset();
  harness::Executor ex(p, t.transport(), opts);
  const harness::RunResult r = ex.run(s);
  for (const auto& m : r.trace.messages()) {
    if (harness::is_request_label(m.label)) continue;
    if (std::string a = p.implied_assumption(m.ir);
        !a.empty() && std::find(out.begin(), out.end(), a) == out.end())
      out.push_back(std::move(a));
  }
  return out;
}

std::vector<std::string> implied_beyond(const Plugin& plugin, const std::string& target,
                                        const std::vector<std::string>& given) {
  std::vector<std::string> out;
  if (target.rfind("inprocess", 0) == 0) return out;
  auto t = Target::make(plugin, target);
  if (!t) return out;
  for (std::string& a : implied_assumptions(plugin.protocol, **t))
    if (std::find(given.begin(), given.end(), a) == given.end())
      out.push_back(std::move(a));
  return out;
}

Result<std::vector<std::string>> discover_site(const harness::Protocol& p, Target& t,
                                               const std::vector<std::string>& named,
                                               SiteOptions o) {
  if (!p.site) return make_error("protocol " + p.name + " has no site resources");
  const harness::Protocol::Site& site = *p.site;
  std::vector<std::string> found;
  std::deque<std::string> todo(named.empty() ? site.start.begin() : named.begin(),
                               named.empty() ? site.start.end() : named.end());
  std::set<std::string> queued(todo.begin(), todo.end());
  harness::RunOptions opts;
  opts.oracle = false;
  opts.message_timeout = o.timeout;
  bool reached = false;
  std::string trouble;
  for (std::size_t reads = 0;
       !todo.empty() && found.size() < o.max_paths && reads < 8 * o.max_paths; ++reads) {
    const std::string path = todo.front();
    todo.pop_front();
    harness::Script s;
    s.steps.push_back(
        harness::RequestStep{1, 0, harness::Jexp::from_json(site.read(path))});
    opts.run_namespace = t.reset();
    harness::Executor ex(p, t.transport(), opts);
    const harness::RunResult r = ex.run(s);
    if (r.outcome == harness::RunResult::Outcome::Trouble) trouble = r.detail;
    for (const auto& m : r.trace.messages()) {
      if (harness::is_request_label(m.label)) continue;
      reached = true;
      const auto status = m.ir.is_object() ? m.ir.value("status", 0) : 0;
      if (!named.empty() || (status >= 200 && status <= 299)) found.push_back(path);
      if (!named.empty()) continue;  // (the user's list, as given)
      for (std::string& next : site.links(m.ir, path))
        if (queued.insert(next).second) todo.push_back(std::move(next));
    }
  }
  if (!reached)
    return make_error("the server answered no read of its own resources" +
                      (trouble.empty() ? std::string() : ": " + trouble));
  return found;
}

std::vector<std::string> site_seeds(const harness::Protocol& p,
                                    const std::vector<std::string>& paths,
                                    std::size_t per_script, bool shared) {
  std::vector<std::string> out;
  if (!p.site || paths.empty() || per_script == 0) return out;
  for (std::size_t i = 0; i < paths.size(); i += per_script)
    out.push_back(p.site->script(
        std::vector<std::string>(paths.begin() + static_cast<std::ptrdiff_t>(i),
                                 paths.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                     paths.size(), i + per_script))),
        shared));
  return out;
}

Result<std::vector<std::string>> read_site_paths(const std::string& file) {
  std::ifstream in(file);
  if (!in) return make_error("cannot read " + file);
  std::vector<std::string> paths;
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
      line.pop_back();
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front())))
      line.erase(0, 1);
    if (line.empty()) continue;
    if (line.front() != '/') return make_error(file + ": not a path: " + line);
    paths.push_back(line);
  }
  if (paths.empty()) return make_error(file + ": no paths");
  return paths;
}

}  // namespace dualfuzz::campaign
