// HTTP conditional requests with symbolic ETags (thesis Fig. 4.5), over a
// toy message format so the oracle can be tested without a codec.
//
// Requests:  {"method":"GET","path":p,"if-none-match":t?}
//            {"method":"PUT","path":p,"if-match":t?,"body":v}
// Responses: GET  -> {"status":200,"etag":tag,"body":v} | {"status":304} | {"status":404}
//            PUT  -> {"status":200} | {"status":412}
// Each PUT gives the resource a new ETag the server invents (a `fresh`
// variable, or "" meaning none); a strong ETag never names two contents.
//
//   Oracle o(dualfuzz::http::etag_put_model());
#pragma once

#include "dualfuzz/oracle/itree.h"

namespace dualfuzz::http {
oracle::ServerModel etag_put_model();
}
