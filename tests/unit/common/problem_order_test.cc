#include "common/problem_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace kjudge {
namespace {

TEST(ProblemOrderTest, KernelBenchNumbersSortAsNumbers) {
  std::vector<std::string> names = {"level2/1_Conv", "level1/10_Matmul", "level1/2_Std", "level1/100_Hinge",
                                    "level1/19_ReLU", "level10/1_A", "level1/1_Square", "examples/relu"};
  std::sort(names.begin(), names.end(), ProblemNameOrder());
  EXPECT_EQ(names, (std::vector<std::string>{"examples/relu", "level1/1_Square", "level1/2_Std", "level1/10_Matmul",
                                             "level1/19_ReLU", "level1/100_Hinge", "level2/1_Conv", "level10/1_A"}));
}

TEST(ProblemOrderTest, StrictWeakOrderThatSeparatesEveryName) {
  EXPECT_FALSE(ProblemNameLess("a", "a"));
  EXPECT_TRUE(ProblemNameLess("a", "a1"));    // a prefix first
  EXPECT_FALSE(ProblemNameLess("a1", "a"));
  EXPECT_TRUE(ProblemNameLess("a01", "a1"));  // equal numbers: byte order, never "equal"
  EXPECT_FALSE(ProblemNameLess("a1", "a01"));
  EXPECT_TRUE(ProblemNameLess("a9", "a10"));
  EXPECT_TRUE(ProblemNameLess("a99999999999999999999999", "a100000000000000000000000"));  // beyond 64 bits
  EXPECT_TRUE(ProblemNameLess("x_1b", "x_1c"));
  std::map<std::string, int, ProblemNameOrder> map = {{"a1", 1}, {"a01", 2}, {"a001", 3}};
  EXPECT_EQ(map.size(), 3u);
  EXPECT_EQ(map.begin()->first, "a001");
  EXPECT_NE(map.find(std::string_view("a01")), map.end());
}

}  // namespace
}  // namespace kjudge
