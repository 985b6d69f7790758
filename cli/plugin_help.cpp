#include "plugin_help.h"

#include <string_view>

namespace dualfuzz::cli {

namespace {
// "a; b" from the non-empty parts.
void append(std::string& out, std::string_view part, std::string_view sep) {
  if (part.empty()) return;
  if (!out.empty()) out += sep;
  out += part;
}
}  // namespace

std::string spec_help(const campaign::Registry& r, const std::string& default_name) {
  std::string names;
  for (const std::string& n : r.names())
    append(names, n == default_name ? n + " (the default)" : n, ", ");
  return "protocol plug-in: " + names;
}

std::string consistency_help(const campaign::Registry& r, const std::string& what) {
  std::string per_plugin;
  for (const std::string& n : r.names()) {
    std::string names;
    for (const auto& c : r.find(n)->protocol.weaker) append(names, c.name, ", ");
    if (!names.empty()) append(per_plugin, n + ": " + names, "; ");
  }
  return per_plugin.empty() ? what : what + " (" + per_plugin + ")";
}

std::string assume_help(const campaign::Registry& r) {
  std::string per_plugin;
  for (const std::string& n : r.names()) {
    std::string names;
    for (const auto& a : r.find(n)->protocol.assumptions)
      append(names, a.name + " — " + a.summary, ", ");
    if (!names.empty()) append(per_plugin, n + ": " + names, "; ");
  }
  std::string help = "what you know of your server, repeatable";
  if (!per_plugin.empty()) help += " (" + per_plugin + ")";
  return help +
         ". Default: any server, whose refusals are its right (the plug-in's model "
         "allows them)";
}

}  // namespace dualfuzz::cli
