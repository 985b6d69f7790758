#include "dualfuzz/http/connection_options.h"

#include <string_view>

#include "dualfuzz/http/detail/field_text.h"

namespace dualfuzz::http {

std::set<std::string> connection_options(const harness::Json& message) {
  std::set<std::string> out;
  if (!message.is_object()) return out;
  auto h = message.find("headers");
  if (h == message.end() || !h->is_object()) return out;
  auto it = h->find("connection");
  if (it == h->end() || !it->is_string()) return out;
  std::string_view v = it->get_ref<const std::string&>();
  while (!v.empty()) {
    const auto comma = v.find(',');
    const std::string_view tok = detail::trim_ows(v.substr(0, comma));
    if (!tok.empty()) out.insert(detail::lower(tok));
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return out;
}

bool closes_connection(const harness::Json& request, const harness::Json& response) {
  return connection_options(request).count("close") > 0 ||
         connection_options(response).count("close") > 0;
}

}  // namespace dualfuzz::http
