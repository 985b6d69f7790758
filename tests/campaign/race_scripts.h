// Scripts shared by the campaign tests.
#pragma once

namespace dualfuzz::campaign::test_scripts {

// Two If-Match PUTs with the same tag, concurrently: both succeed
// (racy-if-match). The GET of another path is noise.
constexpr const char* kRace =
    "req 1 on c0: {\"method\":\"PUT\",\"path\":\"/doc\",\"body\":\"a\"}\n"
    "wait 1\n"
    "req 3 on c0: {\"method\":\"GET\",\"path\":\"/other\"}\n"
    "wait 3\n"
    "req 5 on c0: {\"method\":\"PUT\",\"path\":\"/doc\",\"body\":\"b\","
    "\"headers\":{\"if-match\":\"\\\"1\\\"\"}}\n"
    "req 7 on c1: {\"method\":\"PUT\",\"path\":\"/doc\",\"body\":\"c\","
    "\"headers\":{\"if-match\":\"\\\"1\\\"\"}}\n";

// lost-update: the third PUT is acknowledged and not stored; the GET shows
// the second body.
constexpr const char* kLostUpdate = R"(req 1 on c0: {"method":"PUT","path":"/a","body":"x"}
wait 1
req 3 on c0: {"method":"PUT","path":"/a","body":"y"}
wait 3
req 5 on c0: {"method":"PUT","path":"/a","body":"z"}
wait 5
req 7 on c0: {"method":"GET","path":"/a"}
)";

}  // namespace dualfuzz::campaign::test_scripts
