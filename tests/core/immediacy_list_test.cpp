#include <catch2/catch.hpp>

#include "rubato/core/tempo/immediacy_list.hpp"

using rubato::ImmediacyList;
using rubato::kNoWorker;

TEST_CASE("ImmediacyList.Insert.ThiefFollowsVictimAheadOfEarlierThieves", "[core][list]") {
  ImmediacyList l(4);
  l.insert_after(0, 1);  // 0 -> 1
  l.insert_after(0, 2);  // 0 -> 2 -> 1 : the later thief is more immediate
  CHECK(l.next(0) == 2);
  CHECK(l.next(2) == 1);
  CHECK(l.next(1) == kNoWorker);
  CHECK(l.prev(1) == 2);
  CHECK(l.prev(2) == 0);
  CHECK(l.prev(0) == kNoWorker);
  CHECK_FALSE(l.has_predecessor(0));
  CHECK(l.has_predecessor(1));
}

TEST_CASE("ImmediacyList.Remove.JoinsNeighbours", "[core][list]") {
  ImmediacyList l(4);
  l.insert_after(0, 1);
  l.insert_after(1, 2);  // 0 -> 1 -> 2
  l.remove(1);
  CHECK(l.next(0) == 2);
  CHECK(l.prev(2) == 0);
  CHECK_FALSE(l.linked(1));
  CHECK(l.prev(1) == kNoWorker);
  l.remove(0);  // removing the head makes its successor a head
  CHECK_FALSE(l.has_predecessor(2));
  l.remove(3);  // unlinked: no-op
  CHECK_FALSE(l.linked(3));
}
