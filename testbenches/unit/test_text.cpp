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

TEST(SharedText, EqualTextsShareOneCopyThatOutlivesTheirSource) {
  std::string source = "leaf" + std::to_string(3);
  const shared_text a(source), b(std::string("leaf3")), c("leaf4");
  source = "spine0";   // the kept copy does not follow its source
  EXPECT_EQ(&a.str(), &b.str());
  EXPECT_NE(&a.str(), &c.str());
  EXPECT_EQ(a, "leaf3");
  EXPECT_EQ(c, std::string("leaf4"));
  EXPECT_NE(a, c);
  EXPECT_EQ(a + ".port0", "leaf3.port0");
  EXPECT_TRUE(shared_text("").empty());
}
