// jemalloc's options, for the programs that link it (dualfuzz_fast_malloc in
// the top CMakeLists.txt); jemalloc reads this symbol when it starts, before
// main. Transparent huge pages: a 50-client Jepsen check touches about
// 60 MB in small objects, and with 4-KB pages its page faults and TLB
// misses were a quarter of its time (docs/EVALUATION.md, issue 20).
extern "C" const char* const malloc_conf = "thp:always";
