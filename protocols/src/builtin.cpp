#include "dualfuzz/protocols/builtin.h"

#include "dualfuzz/campaign/consistency.h"
#include "dualfuzz/http/plugin.h"
#include "dualfuzz/proxy/plugin.h"
#include "dualfuzz/unison/plugin.h"

namespace dualfuzz::protocols {

campaign::Registry builtin(const campaign::FuzzEnvironment& env) {
  campaign::Registry r;
  r.add(http::plugin());
  unison::UnisonOptions real;
  if (!env.unison.empty()) real.binary = env.unison;
  r.add(unison::plugin(std::move(real)));
  for (const proxy::Mode mode : {proxy::Mode::Forward, proxy::Mode::Reverse})
    r.add(proxy::plugin(
        {.mode = mode, .origin = env.origin, .refusals = env.proxy_refusals}));
  return r;
}

campaign::Registry builtin(const std::string& origin) {
  campaign::FuzzEnvironment env = campaign::FuzzEnvironment::read();
  env.origin = origin;
  return builtin(env);
}

Result<const campaign::Plugin*> find(const campaign::Registry& r,
                                     const std::string& name) {
  if (const campaign::Plugin* p = r.find(name)) return p;
  return make_error("unknown protocol '" + name + "' (registered: " + r.joined_names() +
                    ")");
}

Result<const campaign::Plugin*> from_env(const campaign::Registry& r,
                                         const campaign::FuzzEnvironment& env) {
  return find(r, env.protocol.empty() ? kDefault : env.protocol);
}

Result<campaign::Plugin> plugin_from_env(const campaign::FuzzEnvironment& env) {
  const campaign::Registry r = builtin(env);
  auto plugin = from_env(r, env);
  if (!plugin) return make_error(plugin.error());
  // $DUALFUZZ_ASSUME: `--assume`'s names (a fuzz target has no command
  // line; the same names, the same errors).
  return campaign::judged_as(**plugin, env.assume, env.consistency, false);
}

Result<std::unique_ptr<campaign::Player>> player_from_env(
    const campaign::FuzzEnvironment& env) {
  auto plugin = plugin_from_env(env);
  if (!plugin) return make_error(plugin.error());
  return campaign::Player::make(*plugin, campaign::Player::spec_from_env(env), env);
}

mutator::ScriptMutator engine_mutator_from_env(const campaign::FuzzEnvironment& env) {
  auto plugin = plugin_from_env(env);
  if (!plugin) return mutator::ScriptMutator(builtin(env).find(kDefault)->protocol);
  return campaign::Player::engine_mutator(*plugin, campaign::Player::spec_from_env(env),
                                          env);
}

}  // namespace dualfuzz::protocols
