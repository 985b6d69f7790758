#include "dualfuzz/campaign/plugin.h"

#include <stdexcept>

namespace dualfuzz::campaign {

void Registry::add(Plugin p) {
  if (p.protocol.name.empty())
    throw std::logic_error("Registry::add: a plug-in needs a name");
  if (find(p.protocol.name))
    throw std::logic_error("Registry::add: protocol '" + p.protocol.name +
                           "' registered twice");
  plugins_.push_back(std::move(p));
}

const Plugin* Registry::find(std::string_view name) const {
  for (const Plugin& p : plugins_)
    if (p.protocol.name == name) return &p;
  return nullptr;
}

std::vector<std::string> Registry::names() const {
  std::vector<std::string> out;
  for (const Plugin& p : plugins_) out.push_back(p.protocol.name);
  return out;
}

std::string Registry::joined_names() const {
  std::string s;
  for (const Plugin& p : plugins_) s += (s.empty() ? "" : ", ") + p.protocol.name;
  return s;
}

}  // namespace dualfuzz::campaign
