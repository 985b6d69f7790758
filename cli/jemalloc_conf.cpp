// jemalloc's options, for the programs that link it (dualfuzz_fast_malloc in
// the top CMakeLists.txt); jemalloc reads this symbol when it starts, before
// main. Transparent huge pages: a 50-client Jepsen check touches about
// 60 MB in small objects, and with 4-KB pages its page faults and TLB
// misses were a quarter of its time (docs/evaluation-journal.md, issue 20). One
// arena: the partitions a history check searches on several threads
// (oracle::check_history) then reuse the memory each other's finished
// searches freed; with an arena per thread the 50-client check touched
// 2.5 times the pages and took 1.5 times the CPU (threads keep their own
// caches of small objects, so they rarely meet at the arena's lock).
extern "C" const char* const malloc_conf = "thp:always,narenas:1";
