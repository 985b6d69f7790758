#include "dualfuzz/oracle/network_model.h"

#include <gtest/gtest.h>

namespace dualfuzz::oracle {
namespace {

Request req(ConnId c, Label l) { return {c, l, std::make_shared<const Json>(l)}; }

TEST(NetworkModel, FifoPerConnectionAnyOrderAcross) {
  Network n;
  n.push_request(req(2, 1));
  n.push_request(req(1, 3));
  n.push_request(req(2, 5));
  Network::ConnList ready;
  std::vector<Label> fronts;
  n.for_each_ready([&](ConnId c, const Request& front) {
    ready.push_back(c);
    fronts.push_back(front.label);
  });
  EXPECT_EQ(ready, (Network::ConnList{1, 2}));
  EXPECT_EQ(fronts, (std::vector<Label>{3, 1}));
  EXPECT_EQ(n.pop_request(2)->label, 1u);
  EXPECT_EQ(n.pop_request(2)->label, 5u);
  EXPECT_FALSE(n.pop_request(2));
  EXPECT_EQ(n.in_flight_requests(), 1u);
}

// A response in flight keeps its clause and the state its request was
// received in, for explanations; neither makes two networks differ.
TEST(NetworkModel, ResponsesKeepTheStateTheirRequestWasReceivedIn) {
  const ModelState s1(Json{{"v", 1}}), s2(Json{{"v", 2}});
  Network a, b;
  a.push_response(1, Sym::lit("x"), "C §1", &s1);
  a.push_response(1, Sym::lit("y"), nullptr, &s2);  // (beyond the inline room)
  a.push_response(1, Sym::lit("z"));                // (before any request)
  b.push_response(1, Sym::lit("x"));
  b.push_response(1, Sym::lit("y"), nullptr, &s1);
  b.push_response(1, Sym::lit("z"), "C §2", &s2);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.hash(), b.hash());
  Network c = a;  // (shares the channel until one changes)
  const Network::InFlight* f = a.front_in_flight(1);
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->received);
  EXPECT_EQ(f->before.to_json(), s1.to_json());
  EXPECT_STREQ(f->clause, "C §1");
  a.pop_response(1);
  EXPECT_EQ(a.front_in_flight(1)->before.to_json(), s2.to_json());
  a.pop_response(1);
  EXPECT_FALSE(a.front_in_flight(1)->received);
  a.pop_response(1);
  EXPECT_FALSE(a.front_in_flight(1));
  EXPECT_EQ(c.front_in_flight(1)->before.to_json(), s1.to_json());  // untouched
  EXPECT_EQ(c.answers_on(1), 3u);
}

TEST(NetworkModel, AbsorbedQuietlyOnlyWhenNothingElseChanged) {
  Network before;
  before.push_request(req(1, 1));
  before.push_request(req(2, 3));
  before.push_response(1, Sym::lit("earlier"));
  Network quiet = before;
  quiet.pop_request(1);
  EXPECT_TRUE(quiet.absorbed_quietly(before, 1));  // no answer (yet)
  quiet.push_response(1, Sym::lit("answer"));
  EXPECT_TRUE(quiet.absorbed_quietly(before, 1));   // answered on 1 only
  EXPECT_FALSE(quiet.absorbed_quietly(before, 2));  // 2's request is still there
  Network elsewhere = quiet;
  elsewhere.push_response(2, Sym::lit("also"));  // it answered on 2 as well
  EXPECT_FALSE(elsewhere.absorbed_quietly(before, 1));
  Network lost = before;
  lost.pop_request(1);
  lost.pop_response(1);  // a response in flight went missing
  EXPECT_FALSE(lost.absorbed_quietly(before, 1));
  EXPECT_FALSE(before.absorbed_quietly(before, 1));  // nothing was absorbed
}

TEST(NetworkModel, ValueSemanticsAndEquality) {
  Network a;
  a.push_request(req(1, 1));
  Network b = a;  // shares the channel until written
  b.push_response(1, Sym::lit("x"));
  EXPECT_FALSE(a == b);
  EXPECT_EQ(a.front_response(1), nullptr);
  ASSERT_NE(b.front_response(1), nullptr);
  b.pop_response(1);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.hash(), b.hash());
  b.drop_unobservable(1);
  Network c;
  c.push_request(req(1, 1));
  c.push_response(1, Sym::lit("y"));
  c.drop_unobservable(1);
  EXPECT_TRUE(c == a);  // (a request without a decoded view stays)
}

// A request the model says changes nothing unanswered leaves a closed
// connection's queue with its responses; the others stay, in order.
TEST(NetworkModel, AClosedConnectionKeepsOnlyRequestsThatMayChangeSomething) {
  struct Read final : DecodedRequest {
    bool unobservable_unanswered() const override { return true; }
  };
  Network n;
  Request read = req(1, 1);
  read.decoded = std::make_shared<Read>();
  n.push_request(read);
  n.push_request(req(1, 3));
  n.push_request(read);
  n.push_response(1, Sym::lit("x"));
  n.drop_unobservable(1);
  EXPECT_EQ(n.front_response(1), nullptr);
  EXPECT_EQ(n.pending_on(1), 1u);
  ASSERT_NE(n.requests_on(1), nullptr);
  EXPECT_EQ(n.requests_on(1)->front().label, 3u);
}

TEST(NetworkModel, AResponseCarriesItsClauseWhichIsNotItsIdentity) {
  Network a, b;
  a.push_response(1, Sym::lit("x"), "SPEC §1");
  b.push_response(1, Sym::lit("x"));
  EXPECT_STREQ(a.front_clause(1), "SPEC §1");
  EXPECT_EQ(b.front_clause(1), nullptr);
  EXPECT_EQ(a.front_clause(2), nullptr);
  // The clause changes no future: equal networks, equal hashes.
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.hash(), b.hash());
  a.push_response(1, Sym::lit("y"), "SPEC §2");
  a.pop_response(1);
  EXPECT_STREQ(a.front_clause(1), "SPEC §2");
}

}  // namespace
}  // namespace dualfuzz::oracle
