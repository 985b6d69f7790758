#include "dualfuzz/http/connection_options.h"

#include "dualfuzz/http/detail/field_text.h"

namespace dualfuzz::http {

std::set<std::string> connection_options(const harness::Json& message) {
  std::set<std::string> out;
  if (!message.is_object()) return out;
  auto h = message.find("headers");
  if (h == message.end() || !h->is_object()) return out;
  auto it = h->find("connection");
  if (it == h->end() || !it->is_string()) return out;
  for (std::string& m : detail::list_members(it->get_ref<const std::string&>()))
    out.insert(std::move(m));
  return out;
}

bool closes_connection(const harness::Json& request, const harness::Json& response) {
  // After a 101 the connection speaks another protocol (RFC 9110 §7.8): the
  // tester, an HTTP/1.1 client, is done with it.
  if (response.is_object()) {
    const auto s = response.find("status");
    if (s != response.end() && *s == 101) return true;
    // So is a connection tunnelled by a 2xx to CONNECT (RFC 9110 §9.3.6).
    if (s != response.end() && s->is_number_integer() && *s >= 200 && *s < 300 &&
        request.is_object() && request.value("method", harness::Json()) == "CONNECT")
      return true;
  }
  // An HTTP/1.0 request: the connection persists only by the keep-alive
  // mechanism (RFC 9112 §9.3), which the tester does not use.
  if (request.is_object()) {
    const auto v = request.find("version");
    if (v != request.end() && *v == "HTTP/1.0") return true;
  }
  return connection_options(request).count("close") > 0 ||
         connection_options(response).count("close") > 0;
}

}  // namespace dualfuzz::http
