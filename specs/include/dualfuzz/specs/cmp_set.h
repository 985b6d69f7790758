// CMP-SET and CMP-RST (thesis §2.2.1): the server stores n (initially 0).
// A request q <= n is answered 0. Otherwise CMP-SET sets n := q and answers 1;
// CMP-RST answers 1 and resets n to an arbitrary number the tester never sees
// (a `fresh` variable: later answers are decided by Z3 over integers).
//
//   Oracle o(dualfuzz::specs::cmp_rst_model());
//   o.observe(Event::request(0, 1, 5));  o.observe(Event::response(0, 2, 1));
#pragma once

#include "dualfuzz/oracle/itree.h"

namespace dualfuzz::specs {
oracle::ServerModel cmp_set_model();
oracle::ServerModel cmp_rst_model();
}  // namespace dualfuzz::specs
