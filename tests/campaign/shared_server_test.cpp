// campaign/detail/shared_server.h: plays side by side, a death looked at
// alone, and the deaths counted for every process. (Two opens of the file in
// one process lock as two processes do: flock locks belong to the open.)
#include "dualfuzz/campaign/detail/shared_server.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

namespace dualfuzz::campaign::detail {
namespace {

std::string lock_path(const char* name) {
  return (std::filesystem::temp_directory_path() /
          (std::string(name) + "-" + std::to_string(::getpid()) + ".lock"))
      .string();
}

TEST(SharedServer, PlaysGoSideBySideAndWaitForADeathLookedAtAlone) {
  const std::string path = lock_path("shared-server");
  auto a = SharedServer::open(path);
  auto b = SharedServer::open(path);
  ASSERT_TRUE(a && b);
  {
    SharedServer::Play pa(**a);
    SharedServer::Play pb(**b);  // (would block if plays excluded each other)
  }
  (*a)->hold_alone();
  EXPECT_TRUE((*a)->alone());
  std::atomic<bool> played{false};
  std::thread other([&] {
    SharedServer::Play pb(**b);
    played = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(played) << "a play went on while the server was held alone";
  { SharedServer::Play own(**a); }  // (its own plays go on meanwhile)
  (*a)->count_death();
  (*a)->release_alone();
  other.join();
  EXPECT_TRUE(played);
  EXPECT_EQ((*b)->deaths(), 1u);
  (*b)->hold_alone();
  (*b)->count_death();
  (*b)->release_alone();
  EXPECT_EQ((*a)->deaths(), 2u);
  std::filesystem::remove(path);
}

TEST(SharedServer, HoldingItAloneWaitsForThePlaysInFlight) {
  const std::string path = lock_path("shared-server-wait");
  auto a = SharedServer::open(path);
  auto b = SharedServer::open(path);
  ASSERT_TRUE(a && b);
  std::atomic<bool> held{false};
  std::thread other;
  {
    SharedServer::Play pa(**a);
    other = std::thread([&] {
      (*b)->hold_alone();
      held = true;
      (*b)->release_alone();
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(held) << "held alone while another play was in flight";
  }
  other.join();
  EXPECT_TRUE(held);
  std::filesystem::remove(path);
}

TEST(SharedServer, AnUnopenableLockIsAnError) {
  auto s = SharedServer::open("/nonexistent-dir/x.lock");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().find("/nonexistent-dir/x.lock"), std::string::npos);
}

}  // namespace
}  // namespace dualfuzz::campaign::detail
