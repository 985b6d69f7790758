#include "dualfuzz/protocols/builtin.h"

#include <cstdlib>

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
  const char* c = std::getenv("DUALFUZZ_CONSISTENCY");
  return campaign::with_consistency(**plugin, c ? c : "");
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
