// Huge-page blocks (common/huge_pages.h): whole 2 MiB pages, aligned to one, and advised so that
// the kernel may back them with transparent huge pages. The advice is checked where the kernel
// reports it, /proc/self/smaps's THPeligible of the mapping that holds the block, beside memory
// from plain malloc as the control: under the machine's "madvise" setting only the advised block
// is eligible, under "always" both are, under "never" neither.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/huge_pages.h"

using namespace netasic;

namespace {

// The bracketed word of /sys/kernel/mm/transparent_hugepage/enabled: always, madvise or never.
std::string thp_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto a = all.find('['), b = all.find(']');
  return a == std::string::npos || b == std::string::npos ? "" : all.substr(a + 1, b - a - 1);
}

// THPeligible of the mapping holding `p` (-1 if not found).
int thp_eligible(const void* p) {
  std::ifstream f("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(f, line)) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return std::stoi(line.substr(12));
  }
  return -1;
}

}  // namespace

TEST(HugePages, ABlockIsWholeAlignedPages) {
  for (size_t bytes : {size_t(1), huge_page_bytes - 1, huge_page_bytes, huge_page_bytes + 1, 3 * huge_page_bytes}) {
    huge_page_ptr p = huge_page_alloc(bytes);
    ASSERT_NE(p.get(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p.get()) % huge_page_bytes, 0u) << bytes << " B";
    // The whole of its last page is the block's: under AddressSanitizer (make test-sanitize) a
    // block cut to `bytes` fails here.
    const size_t whole = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
    static_cast<volatile unsigned char*>(p.get())[whole - 1] = 1;
  }
}

TEST(HugePages, TheKernelTakesTheAdviceAsPlainMallocDoesNot) {
  const std::string mode = thp_mode();
  ASSERT_TRUE(mode == "always" || mode == "madvise" || mode == "never") << "THP setting '" << mode << "'";
  huge_page_ptr advised = huge_page_alloc(4 * huge_page_bytes);
  void* plain = std::malloc(4 * huge_page_bytes);   // the control: memory nobody advised
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(thp_eligible(advised.get()), mode == "never" ? 0 : 1) << "THP setting " << mode;
  EXPECT_EQ(thp_eligible(plain), mode == "always" ? 1 : 0) << "THP setting " << mode;
  std::free(plain);
}

TEST(HugePages, AnArrayOfAMebibyteOrMoreIsOnHugePagesASmallerOneIsNot) {
  const std::string mode = thp_mode();
  struct record {
    char bytes[544];   // a link's size
  };
  const size_t big = huge_page_allocator<record>::from_bytes / sizeof(record) + 1, small = big - 2;
  std::vector<record, huge_page_allocator<record>> a(big), b(small);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % huge_page_bytes, 0u);
  EXPECT_EQ(thp_eligible(a.data()), mode == "never" ? 0 : 1) << "THP setting " << mode;
  // The control, from the ordinary heap: a chunk's data sits past its header, never on a huge
  // page's boundary, and is not advised (under "always" the kernel may take any mapping).
  EXPECT_NE(reinterpret_cast<uintptr_t>(b.data()) % huge_page_bytes, 0u);
  if (mode != "always") {
    EXPECT_EQ(thp_eligible(b.data()), 0) << "THP setting " << mode;
  }
}
