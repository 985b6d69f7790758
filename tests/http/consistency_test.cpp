// The HTTP model's weaker consistencies (model.h: Consistency) on
// hand-written concurrent traces, both ways: what each accepts that a
// stronger one rejects, and what all of them still reject.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dualfuzz/http/model.h"
#include "dualfuzz/oracle/oracle.h"
#include "messages.h"

namespace dualfuzz::http {
namespace {
// These tests judge a store that takes writes (Assumptions::writable, as
// the evaluation's WebDAV servers): what any server may refuse instead is
// tested in assumptions_test.cpp.
oracle::ServerModel store_model(Consistency c = Consistency::Atomic) {
  return server_model(c, {.writable = true});
}
using oracle::Event;
using oracle::Json;
using oracle::Verdict;

using test::req;
using test::resp;
Json tag(const char* etag) { return {{"etag", etag}}; }

// Requests and responses in the order the tester saw them; a response
// carries its request's label + 1.
struct Trace {
  std::vector<Event> events;
  Trace& q(oracle::ConnId c, oracle::Label l, Json r) {
    events.push_back(Event::request(c, l, std::move(r)));
    return *this;
  }
  Trace& a(oracle::ConnId c, oracle::Label l, Json r) {
    events.push_back(Event::response(c, l + 1, std::move(r)));
    return *this;
  }
};

// The verdict under `c`, online and whole-trace (they must agree).
Verdict verdict(const Trace& t, Consistency c) {
  oracle::Oracle o(store_model(c));
  for (const Event& e : t.events)
    if (!o.observe(e).accepted()) break;
  const Verdict offline = oracle::check(store_model(c), t.events);
  EXPECT_EQ(o.verdict().status, offline.status) << offline.explanation;
  EXPECT_NE(o.verdict().status, Verdict::Status::Inconclusive) << o.verdict().explanation;
  return o.verdict();
}
bool accepted(const Trace& t, Consistency c) { return verdict(t, c).accepted(); }
// Accepted from consistency `from` on (Atomic < Interval < Torn).
void accepted_from(const Trace& t, Consistency from) {
  for (Consistency c : {Consistency::Atomic, Consistency::Interval, Consistency::Torn}) {
    const Verdict v = verdict(t, c);
    EXPECT_EQ(v.accepted(), static_cast<int>(c) >= static_cast<int>(from))
        << "consistency " << static_cast<int>(c) << ": " << v.explanation;
  }
}
void rejected_by_all(const Trace& t) {
  for (Consistency c : {Consistency::Atomic, Consistency::Interval, Consistency::Torn})
    EXPECT_FALSE(accepted(t, c)) << "consistency " << static_cast<int>(c);
}

TEST(HttpConsistency, TwoOverlappingCreatesBothAnswered201) {
  // Each PUT saw no resource when it started: a check-then-act race.
  accepted_from(Trace{}
                    .q(1, 1, req("PUT", "/a", {}, "x"))
                    .q(2, 3, req("PUT", "/a", {}, "y"))
                    .a(1, 1, resp(201))
                    .a(2, 3, resp(201)),
                Consistency::Interval);
  // One after the other, the second replaces: 201 twice is wrong for all.
  rejected_by_all(Trace{}
                      .q(1, 1, req("PUT", "/a", {}, "x"))
                      .a(1, 1, resp(201))
                      .q(2, 3, req("PUT", "/a", {}, "y"))
                      .a(2, 3, resp(201)));
}

TEST(HttpConsistency, TwoIfMatchPutsWithOneTagBothSucceed) {
  Trace t;
  t.q(1, 1, req("PUT", "/a", {}, "x")).a(1, 1, resp(201, tag("\"1\"")));
  t.q(1, 3, req("PUT", "/a", {{"if-match", "\"1\""}}, "y"))
      .q(2, 5, req("PUT", "/a", {{"if-match", "\"1\""}}, "z"))
      .a(1, 3, resp(204))
      .a(2, 5, resp(204));
  accepted_from(t, Consistency::Interval);
  // And the last write wins: a later GET sees one of the two.
  Trace y = t, w = t;
  y.q(1, 7, req("GET", "/a")).a(1, 7, resp(200, {}, "y"));
  accepted_from(y, Consistency::Interval);
  w.q(1, 7, req("GET", "/a")).a(1, 7, resp(200, {}, "x"));
  rejected_by_all(w);
}

TEST(HttpConsistency, FalseIfMatchPerformedIsWrongEvenOverlapping) {
  // The PUT with a tag the resource never had succeeds while a GET is in
  // flight: no interval explains it (RFC 9110 §13.1.1).
  rejected_by_all(Trace{}
                      .q(1, 1, req("PUT", "/a", {}, "x"))
                      .a(1, 1, resp(201, tag("\"1\"")))
                      .q(1, 3, req("PUT", "/a", {{"if-match", "\"nope\""}}, "y"))
                      .q(2, 5, req("GET", "/a"))
                      .a(1, 3, resp(204))
                      .a(2, 5, resp(200, tag("\"1\""), "x")));
}

TEST(HttpConsistency, ReadDuringWriteSeesOldOrNew) {
  Trace base;
  base.q(1, 1, req("PUT", "/a", {}, "old")).a(1, 1, resp(201, tag("\"1\"")));
  base.q(1, 3, req("PUT", "/a", {}, "new")).q(2, 5, req("GET", "/a"));
  // Old and new are both linearizable: the GET before or after the PUT.
  for (const char* seen : {"old", "new"}) {
    Trace t = base;
    t.a(2, 5, resp(200, {}, seen)).a(1, 3, resp(204));
    accepted_from(t, Consistency::Atomic);
  }
  // The new body with the old strong tag: both at once only in a torn read.
  Trace mixed = base;
  mixed.a(2, 5, resp(200, tag("\"1\""), "new")).a(1, 3, resp(204, tag("\"2\"")));
  accepted_from(mixed, Consistency::Torn);
  // A prefix of the new content: torn only.
  Trace prefix = base;
  prefix.a(2, 5, resp(200, {}, "ne")).a(1, 3, resp(204));
  accepted_from(prefix, Consistency::Torn);
  // Content of neither (the new over the rest of the old, as Apache 2.4
  // showed): torn only.
  Trace other = base;
  other.a(2, 5, resp(200, {}, "nel")).a(1, 3, resp(204));
  accepted_from(other, Consistency::Torn);
  // An answer no GET has: wrong whatever the consistency.
  Trace created = base;
  created.a(2, 5, resp(201, {}, "new")).a(1, 3, resp(204));
  rejected_by_all(created);
  // A torn read once the write is answered: wrong for all (nothing overlaps).
  rejected_by_all(Trace{}
                      .q(1, 1, req("PUT", "/a", {}, "old"))
                      .a(1, 1, resp(201))
                      .q(1, 3, req("PUT", "/a", {}, "new"))
                      .a(1, 3, resp(204))
                      .q(2, 5, req("GET", "/a"))
                      .a(2, 5, resp(200, {}, "ne")));
}

TEST(HttpConsistency, BusyAnswersOnlyWhileAWriteIsInProgress) {
  for (int busy : {409, 423, 503}) {
    accepted_from(Trace{}
                      .q(1, 1, req("PUT", "/a", {}, "x"))
                      .q(2, 3, req("PUT", "/a", {}, "y"))
                      .a(2, 3, resp(busy))
                      .a(1, 1, resp(201)),
                  Consistency::Interval);
    rejected_by_all(Trace{}
                        .q(1, 1, req("PUT", "/a", {}, "x"))
                        .a(1, 1, resp(201))
                        .q(2, 3, req("GET", "/a"))
                        .a(2, 3, resp(busy)));
    // A DELETE of nothing is a write in progress too (Go's x/net/webdav
    // locks the path for it).
    accepted_from(Trace{}
                      .q(1, 1, req("DELETE", "/a"))
                      .q(2, 3, req("PUT", "/a", {}, "y"))
                      .a(2, 3, resp(busy))
                      .a(1, 1, resp(404)),
                  Consistency::Interval);
  }
}

TEST(HttpConsistency, AWriteMayLookAgainWhenItStores) {
  // The If-Match holds when the PUT arrives; a DELETE finishes first; the
  // PUT then finds nothing and creates (201).
  Trace t;
  t.q(1, 1, req("PUT", "/a", {}, "x")).a(1, 1, resp(201, tag("\"1\"")));
  t.q(1, 3, req("PUT", "/a", {{"if-match", "\"1\""}}, "y"))
      .q(2, 5, req("DELETE", "/a"))
      .a(2, 5, resp(204))
      .a(1, 3, resp(201));
  accepted_from(t, Consistency::Interval);
  // Both DELETEs found it when they came; the second finds nothing when it
  // stores: 404 (or 204, as decided).
  Trace d;
  d.q(1, 1, req("PUT", "/a", {}, "x")).a(1, 1, resp(201));
  d.q(1, 3, req("DELETE", "/a")).q(2, 5, req("DELETE", "/a"));
  d.a(1, 3, resp(204)).a(2, 5, resp(404));
  accepted_from(d, Consistency::Atomic);
  // But a PUT with a false If-Match performed is wrong whenever it stores.
  Trace f;
  f.q(1, 1, req("PUT", "/a", {}, "x")).a(1, 1, resp(201, tag("\"1\"")));
  f.q(1, 3, req("PUT", "/a", {{"if-match", "\"2\""}}, "y"))
      .q(2, 5, req("DELETE", "/a"))
      .a(2, 5, resp(204))
      .a(1, 3, resp(201));
  rejected_by_all(f);
}

TEST(HttpConsistency, TornRangedRead) {
  Trace base;
  base.q(1, 1, req("PUT", "/a", {}, "0123456789")).a(1, 1, resp(201));
  base.q(1, 3, req("PUT", "/a", {}, "abcdefghij"))
      .q(2, 5, req("GET", "/a", {{"range", "bytes=2-4"}}));
  Trace part = base;  // bytes 2-4 of the new content: linearizable
  part.a(2, 5, resp(206, {{"content-range", "bytes 2-4/10"}}, "cde")).a(1, 3, resp(204));
  accepted_from(part, Consistency::Atomic);
  Trace torn = base;  // of a prefix "abcd" being written: torn only
  torn.a(2, 5, resp(206, {{"content-range", "bytes 2-3/4"}}, "cd")).a(1, 3, resp(204));
  accepted_from(torn, Consistency::Torn);
  // A conditional read of a torn state: its own validators, so a 304.
  Trace not_modified = base;
  not_modified.a(2, 5, resp(304, tag("\"t\""))).a(1, 3, resp(204));
  accepted_from(not_modified, Consistency::Torn);
  // The same 206 after the write was answered: nothing overlaps.
  rejected_by_all(Trace{}
                      .q(1, 1, req("PUT", "/a", {}, "0123456789"))
                      .a(1, 1, resp(201))
                      .q(1, 3, req("PUT", "/a", {}, "abcdefghij"))
                      .a(1, 3, resp(204))
                      .q(2, 5, req("GET", "/a", {{"range", "bytes=2-4"}}))
                      .a(2, 5, resp(206, {{"content-range", "bytes 2-3/4"}}, "cd")));
}

TEST(HttpConsistency, DeleteInProgress) {
  Trace base;
  base.q(1, 1, req("PUT", "/a", {}, "x")).a(1, 1, resp(201));
  base.q(1, 3, req("DELETE", "/a")).q(2, 5, req("DELETE", "/a"));
  // Both 204: one found nothing to delete and said "done" all the same,
  // which RFC 9110 §9.3.5 allows (it asks no 404), so no race is needed.
  Trace both = base;
  both.a(1, 3, resp(204)).a(2, 5, resp(204));
  accepted_from(both, Consistency::Atomic);
  Trace one = base;
  one.a(1, 3, resp(204)).a(2, 5, resp(404));
  accepted_from(one, Consistency::Atomic);
  // Either way the resource is gone.
  both.q(1, 7, req("GET", "/a")).a(1, 7, resp(200, {}, "x"));
  rejected_by_all(both);
  // The race: a DELETE in progress, seen done by one GET and not done by a
  // GET sent after the first was answered.
  accepted_from(Trace{}
                    .q(1, 1, req("PUT", "/a", {}, "x"))
                    .a(1, 1, resp(201))
                    .q(1, 3, req("DELETE", "/a"))
                    .q(2, 5, req("GET", "/a"))
                    .a(2, 5, resp(404))
                    .q(3, 7, req("GET", "/a"))
                    .a(3, 7, resp(200, {}, "x"))
                    .a(1, 3, resp(204)),
                Consistency::Interval);
}

}  // namespace
}  // namespace dualfuzz::http
