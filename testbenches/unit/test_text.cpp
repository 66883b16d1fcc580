// Text helpers (common/text.h).
#include <gtest/gtest.h>

#include <string>

#include "common/text.h"

using namespace netasic;

TEST(ShellQuote, SafeWordsStayAsTheyAre) {
  EXPECT_EQ(shell_quote("x=1.5"), "x=1.5");
  EXPECT_EQ(shell_quote("out/point-001/log.txt"), "out/point-001/log.txt");
  EXPECT_EQ(shell_quote("a,b:c+d%e@f_g"), "a,b:c+d%e@f_g");
}

TEST(ShellQuote, OthersInSingleQuotes) {
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("a b'c"), "'a b'\\''c'");   // ' closes, \' is a quote, ' reopens
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_quote("a;rm -rf x"), "'a;rm -rf x'");
  EXPECT_EQ(shell_quote("*"), "'*'");
  EXPECT_EQ(shell_quote(std::string("a\0b", 3)), std::string("'a\0b'", 5));   // never "safe" by a stray NUL
}
