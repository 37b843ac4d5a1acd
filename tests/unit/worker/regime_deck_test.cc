// The judge's secret regime choices (worker/judge/regime_deck.h), without a GPU: every regime
// once per |set| cards, decks that differ, uniform draws that cover the set, and the names.
#include "worker/judge/regime_deck.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include "common/input_regime.h"

namespace kjudge::runner {
namespace {

std::vector<InputRegime> AllSeven() {
  std::vector<InputRegime> all = {InputRegime::kDeclared};
  all.insert(all.end(), kListableRegimes.begin(), kListableRegimes.end());
  return all;
}

std::vector<InputRegime> Deal(RegimeDeck& deck, size_t cards) {
  std::vector<InputRegime> dealt;
  for (size_t c = 0; c < cards; ++c) {
    absl::StatusOr<InputRegime> card = deck.Next();
    EXPECT_TRUE(card.ok()) << card.status();
    if (card.ok()) dealt.push_back(*card);
  }
  return dealt;
}

TEST(RegimeDeckTest, EveryRegimeOncePerRound) {
  const std::vector<InputRegime> set = AllSeven();
  RegimeDeck deck(set);
  const std::vector<InputRegime> dealt = Deal(deck, set.size() * 20);
  ASSERT_EQ(dealt.size(), set.size() * 20);
  std::vector<InputRegime> sorted_set = set;
  std::sort(sorted_set.begin(), sorted_set.end());
  for (size_t round = 0; round < 20; ++round) {
    std::vector<InputRegime> cards(dealt.begin() + static_cast<long>(round * set.size()),
                                   dealt.begin() + static_cast<long>((round + 1) * set.size()));
    std::sort(cards.begin(), cards.end());
    EXPECT_EQ(cards, sorted_set) << "round " << round;
  }
}

TEST(RegimeDeckTest, TwoDecksDifferAndRoundsAreShuffled) {
  // 20 rounds of 7 cards: two decks agree by chance with probability 5040^-20.
  RegimeDeck a(AllSeven());
  RegimeDeck b(AllSeven());
  const std::vector<InputRegime> da = Deal(a, 140);
  const std::vector<InputRegime> db = Deal(b, 140);
  EXPECT_NE(da, db);
  // Not dealt in a fixed order: the rounds of one deck are not all the same permutation.
  const std::vector<InputRegime> first(da.begin(), da.begin() + 7);
  bool some_round_differs = false;
  for (size_t round = 1; round < 20; ++round) {
    some_round_differs |= !std::equal(first.begin(), first.end(),
                                      da.begin() + static_cast<long>(round * 7));
  }
  EXPECT_TRUE(some_round_differs);
}

TEST(RegimeDeckTest, ASingleRegimeIsAlwaysDealt) {
  RegimeDeck deck(std::vector<InputRegime>{InputRegime::kDeclared});
  for (InputRegime card : Deal(deck, 5)) EXPECT_EQ(card, InputRegime::kDeclared);
  RegimeDeck empty(std::vector<InputRegime>{});
  EXPECT_FALSE(empty.Next().ok());
}

TEST(RegimeDeckTest, DrawRegimeCoversTheSetUniformly) {
  const std::vector<InputRegime> set = AllSeven();
  std::map<InputRegime, int> seen;
  constexpr int kDraws = 7000;
  for (int d = 0; d < kDraws; ++d) {
    absl::StatusOr<InputRegime> r = DrawRegime(set);
    ASSERT_TRUE(r.ok()) << r.status();
    ++seen[*r];
  }
  ASSERT_EQ(seen.size(), set.size());
  // Each count is Binomial(7000, 1/7): mean 1000, sd ~29; 850..1150 is beyond 5 sd.
  for (const auto& [regime, count] : seen) {
    EXPECT_GT(count, 850) << RegimeName(regime);
    EXPECT_LT(count, 1150) << RegimeName(regime);
  }
  EXPECT_FALSE(DrawRegime({}).ok());
}

TEST(RegimeDeckTest, SecretUniformStaysInRange) {
  for (uint32_t n : {1U, 2U, 3U, 7U, 1000U, 0xFFFFFFFFU}) {
    for (int d = 0; d < 50; ++d) {
      absl::StatusOr<uint32_t> v = SecretUniform(n);
      ASSERT_TRUE(v.ok()) << v.status();
      EXPECT_LT(*v, n);
    }
  }
  EXPECT_FALSE(SecretUniform(0).ok());
}

// Sparsity (regime_deck.h): "zeros" is never timed, so a kernel cannot win by being fast only
// on zero-heavy sets; the re-check draws it instead, so the bench shape still checks it.
TEST(RegimeDeckTest, ZerosIsNeverTimedButAlwaysRechecked) {
  const std::vector<InputRegime> all = AllSeven();
  const std::vector<InputRegime> timed = TimedRegimes(all);
  EXPECT_EQ(timed.size(), all.size() - 1);
  EXPECT_THAT(timed, ::testing::Not(::testing::Contains(InputRegime::kZeros)));
  EXPECT_THAT(timed, ::testing::Contains(InputRegime::kDeclared));
  EXPECT_FALSE(TimedRegime(InputRegime::kZeros));
  for (InputRegime regime : all) {
    if (regime != InputRegime::kZeros) {
      EXPECT_TRUE(TimedRegime(regime)) << RegimeName(regime);
    }
  }
  // The timed samples' deck, as the judge builds it (VerdictProtocol::NextSampleRegime): 20
  // rounds of the six timed regimes, never a zeros card.
  RegimeDeck deck(timed);
  for (InputRegime card : Deal(deck, timed.size() * 20)) EXPECT_NE(card, InputRegime::kZeros);
  // The re-check: always zeros when the problem has it, else any of its regimes.
  for (int d = 0; d < 50; ++d) {
    absl::StatusOr<InputRegime> recheck = RecheckRegime(all);
    ASSERT_TRUE(recheck.ok()) << recheck.status();
    EXPECT_EQ(*recheck, InputRegime::kZeros);
  }
  const std::vector<InputRegime> dense = {InputRegime::kDeclared, InputRegime::kOffset};
  EXPECT_EQ(TimedRegimes(dense), dense);
  std::map<InputRegime, int> seen;
  for (int d = 0; d < 200; ++d) {
    absl::StatusOr<InputRegime> recheck = RecheckRegime(dense);
    ASSERT_TRUE(recheck.ok()) << recheck.status();
    ++seen[*recheck];
  }
  EXPECT_EQ(seen.size(), 2U) << "without zeros the re-check draws among all the problem's regimes";
  EXPECT_EQ(TimedRegimes({InputRegime::kDeclared, InputRegime::kZeros}),
            std::vector<InputRegime>{InputRegime::kDeclared});
}

TEST(RegimeDeckTest, RegimeNoteNamesOnlyBentSets) {
  EXPECT_EQ(RegimeNote(InputRegime::kDeclared), "");
  EXPECT_EQ(RegimeNote(InputRegime::kLarge), ", inputs in regime 'large'");
}

}  // namespace
}  // namespace kjudge::runner
