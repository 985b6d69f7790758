#include "dualfuzz/mutator/relink.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace dualfuzz::mutator {
using harness::Jexp;
using harness::Jpath;
using harness::Json;

namespace {

// The string leaves of objects nested in `ir` (not its own top-level
// fields: a body, a reason phrase), with their paths.
void nested_strings(const Json& v, std::vector<Jpath::Step>& at,
                    std::vector<std::pair<Jpath, std::string>>& out) {
  if (v.is_string() && at.size() >= 2) out.emplace_back(Jpath(at), v.get<std::string>());
  if (!v.is_object()) return;
  for (const auto& [k, x] : v.items()) {
    at.push_back(Jpath::Field{k});
    nested_strings(x, at, out);
    at.pop_back();
  }
}

}  // namespace

Jexp relinked(const Jexp& body, const harness::LabelledTrace& trace,
              harness::Label sent_as, const harness::FunctionRegistry& fns) {
  std::vector<harness::JexpPos> literal;
  for (const harness::JexpPos& pos : harness::leaf_positions(body)) {
    const std::optional<Jexp> e = harness::jexp_at(body, pos);
    if (e && e->kind() == Jexp::Kind::Scalar && e->value().is_string() &&
        e->value().get_ref<const std::string&>().size() >= kMinRelinked)
      literal.push_back(pos);
  }
  if (literal.empty()) return body;
  // Each value a reference gives, by its first maker: the latest response,
  // "id" before the other functions (in name order).
  std::vector<std::string> names{"id"};
  for (const std::string& n : fns.names())
    if (n != "id") names.push_back(n);
  // (The messages before the request, read in place: no copy of the trace.)
  const auto& msgs = trace.messages();
  const auto sent = std::find_if(msgs.begin(), msgs.end(),
                                 [sent_as](const auto& m) { return m.label == sent_as; });
  if (sent == msgs.end()) return body;
  std::map<std::string, Jexp::Ref> source;
  for (auto m = std::make_reverse_iterator(sent); m != msgs.rend(); ++m) {
    if (harness::is_request_label(m->label)) continue;
    std::vector<Jpath::Step> at;
    std::vector<std::pair<Jpath, std::string>> leaves;
    nested_strings(m->ir, at, leaves);
    for (const auto& [path, value] : leaves)
      for (const std::string& n : names) {
        const auto* f = fns.find(n);
        if (!f) continue;
        Result<Json> v = (*f)(Json(value));
        if (v && v->is_string())
          source.try_emplace(v->get<std::string>(), Jexp::Ref{m->label, path, n});
      }
  }
  Jexp out = body;
  for (const harness::JexpPos& pos : literal) {
    const auto it = source.find(harness::jexp_at(out, pos)->value().get<std::string>());
    if (it == source.end()) continue;
    if (auto r = harness::replace_at(out, pos, Jexp::ref(it->second)))
      out = std::move(*r);
  }
  return out;
}

}  // namespace dualfuzz::mutator
