# The two commands a new user runs: `make demo` and `make test`.
# Both install what is missing (scripts/setup.sh; the demo leaves out what only the tests use),
# configure and build with CMake (-j2), then run.
BUILD ?= build
JOBS  ?= 2
NETASIC := $(BUILD)/netasic

.PHONY: all setup setup-demo configure build demo test test-sanitize test-long bench docs fuzz clean
all: build

CONFIGURE := cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DNETASIC_WERROR=ON >/dev/null

setup:
	@scripts/setup.sh

setup-demo:
	@scripts/setup.sh --demo

configure: setup
	@$(CONFIGURE)

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# The demo needs the simulator alone, not the test binaries: from a clean clone that is about
# 4 minutes of building on 2 cores instead of 10.
demo: setup-demo
	@$(CONFIGURE)
	@cmake --build $(BUILD) -j$(JOBS) --target netasic
	$(NETASIC) run scenarios/demo.toml --out out/demo --vcd

test: build
	cd $(BUILD) && ctest -j$(JOBS) --output-on-failure -LE long

# The unit and system tests again, built with ASan and UBSan in build-asan/ (docs/testing.md).
# Any sanitizer report fails the test that made it. Warnings are
# not errors here: `make test`'s build polices them, and GCC warns falsely under -fsanitize.
SANITIZE_ENV := ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
test-sanitize: setup
	@cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETASIC_WERROR=OFF -DNETASIC_SANITIZE=ON >/dev/null
	@cmake --build build-asan -j$(JOBS) --target unit_tests system_tests netasic $(addprefix fuzz_,$(FUZZ_TARGETS))
	cd build-asan && $(SANITIZE_ENV) ctest -j$(JOBS) --output-on-failure -L 'unit|system'

# Long scenario runs, not part of `make test` (see docs/testing.md).
test-long: build
	cd $(BUILD) && ctest -j$(JOBS) --output-on-failure -L long

# Fuzz every reader of user input with libFuzzer for FUZZ_SECONDS each (clang, ASan, UBSan; a
# build of its own in build-fuzz/). New interesting inputs land in build-fuzz/corpus/TARGET;
# copy the ones worth keeping into testbenches/fuzz/corpus/TARGET, which `make test` replays.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst testbenches/fuzz/fuzz_%.cpp,%,$(wildcard testbenches/fuzz/fuzz_*.cpp))
fuzz:
	@scripts/setup.sh --fuzz
	@cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DNETASIC_FUZZ=ON >/dev/null
	@cmake --build build-fuzz -j$(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do mkdir -p build-fuzz/corpus/$$t; \
	  build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 build-fuzz/corpus/$$t testbenches/fuzz/corpus/$$t \
	    2>&1 | grep -E "stat::number_of_executed_units|ERROR|SUMMARY|Done" || exit 1; done

bench: build
	bench/run.sh $(NETASIC)

# The configuration reference is generated from the parameter declarations.
docs: build
	$(NETASIC) params --markdown > docs/config-reference.md

clean:
	rm -rf $(BUILD) build-asan build-fuzz out
