#include "dualfuzz/oracle/reason.h"

namespace dualfuzz::oracle {

std::string_view kind_name(Reason::Kind k) {
  switch (k) {
    case Reason::Kind::Mismatch:
      return "mismatch";
    case Reason::Kind::Contradiction:
      return "contradiction";
    case Reason::Kind::NothingOutstanding:
      return "nothing-outstanding";
    case Reason::Kind::ModelStopped:
      return "model-stopped";
    case Reason::Kind::Limit:
      return "limit";
    case Reason::Kind::Other:
      return "other";
  }
  return "other";
}

void to_json(Json& j, const Reason& r) {
  j = Json{{"kind", kind_name(r.kind)},
           {"location", r.location},
           {"expected", r.expected},
           {"observed", r.observed},
           {"clause", r.clause},
           {"state", r.state},
           {"text", r.text}};
}

}  // namespace dualfuzz::oracle
