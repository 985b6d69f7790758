#include "dualfuzz/protocols/builtin.h"

#include <cstdlib>
#include <string_view>
#include <vector>

#include "dualfuzz/campaign/consistency.h"
#include "dualfuzz/http/plugin.h"
#include "dualfuzz/proxy/plugin.h"
#include "dualfuzz/unison/plugin.h"

namespace dualfuzz::protocols {

campaign::Registry builtin() {
  const char* e = std::getenv("DUALFUZZ_ORIGIN");
  return builtin(e ? e : "");
}

campaign::Registry builtin(const std::string& origin) {
  campaign::Registry r;
  r.add(http::plugin());
  r.add(unison::plugin());
  r.add(proxy::plugin(proxy::Mode::Forward, origin));
  r.add(proxy::plugin(proxy::Mode::Reverse, origin));
  return r;
}

Result<const campaign::Plugin*> find(const campaign::Registry& r,
                                     const std::string& name) {
  if (const campaign::Plugin* p = r.find(name)) return p;
  return make_error("unknown protocol '" + name + "' (registered: " + r.joined_names() +
                    ")");
}

Result<const campaign::Plugin*> from_env(const campaign::Registry& r) {
  const char* e = std::getenv("DUALFUZZ_PROTOCOL");
  return find(r, e && *e ? e : kDefault);
}

Result<campaign::Plugin> plugin_from_env() {
  const campaign::Registry r = builtin();
  auto plugin = from_env(r);
  if (!plugin) return make_error(plugin.error());
  // $DUALFUZZ_ASSUME: `--assume`'s names, comma-separated (a fuzz target
  // has no command line; the same names, the same errors).
  std::vector<std::string> assumed;
  if (const char* a = std::getenv("DUALFUZZ_ASSUME"); a && *a) {
    std::string_view rest = a;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      const std::string_view name = rest.substr(0, comma);
      if (!name.empty()) assumed.emplace_back(name);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  const char* c = std::getenv("DUALFUZZ_CONSISTENCY");
  return campaign::judged_as(**plugin, assumed, c ? c : "", false);
}

Result<std::unique_ptr<campaign::Player>> player_from_env() {
  auto plugin = plugin_from_env();
  if (!plugin) return make_error(plugin.error());
  return campaign::Player::make(*plugin, campaign::Player::spec_from_env());
}

mutator::ScriptMutator engine_mutator_from_env() {
  auto plugin = plugin_from_env();
  if (!plugin) return mutator::ScriptMutator(builtin().find(kDefault)->protocol);
  return campaign::Player::engine_mutator(*plugin, campaign::Player::spec_from_env());
}

}  // namespace dualfuzz::protocols
