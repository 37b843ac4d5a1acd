#include "common/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace kjudge {
namespace {

TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, BinaryDataWithNulBytes) {
  const std::string data("a\0b", 3);
  EXPECT_NE(Sha256Hex(data), Sha256Hex("ab"));
  EXPECT_EQ(Sha256Hex(data).size(), 64u);
}

}  // namespace
}  // namespace kjudge
