// Runs a fuzz target over the files of corpus folders, without libFuzzer: what `make test` does
// with the committed corpus (testbenches/fuzz/corpus/TARGET/). Exit 0 when every input was read
// or refused; a crash or an unexpected exception fails the test.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "fuzz_target.h"

int main(int argc, char** argv) {
  size_t inputs = 0;
  for (int i = 1; i < argc; ++i)
    for (const auto& e : std::filesystem::directory_iterator(argv[i])) {
      if (!e.is_regular_file()) continue;
      std::ifstream in(e.path(), std::ios::binary);
      const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(data.data()), data.size());
      ++inputs;
    }
  std::cout << "replayed " << inputs << " inputs\n";
  return inputs > 0 ? 0 : 1;   // an empty corpus is a mistake, not a pass
}
