// A checked history as a page for its reader (`dualfuzz history --chart`):
// per partition, a timeline with a lane per client and a bar per operation
// (request to response); the operations inside the longest prefix some
// order of the partition's operations explains are green (class
// "explained"), the one whose response no order places red ("kill"), those
// past it grey ("beyond"), unanswered ones open-ended ("open"). A partition
// out of budget is headed Unknown, never a verdict. The verdict's own
// partition comes first, then the other violated ones. Every text is
// XML-escaped (xml_escape, as the sequence chart's).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dualfuzz/oracle/history_check.h"

namespace dualfuzz::harness {

// `c`: check_history's answer on `trace`, ideally with every_partition.
std::string history_chart_html(std::string_view title, std::string_view model_name,
                               const std::vector<oracle::Event>& trace,
                               const oracle::HistoryCheck& c);

}  // namespace dualfuzz::harness
