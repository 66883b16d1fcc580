# The two commands a new user runs: `make demo` and `make test`.
# Both install what is missing (scripts/setup.sh), configure and build with CMake (-j2), then run.
BUILD ?= build
JOBS  ?= 2
NETASIC := $(BUILD)/netasic

.PHONY: all setup build demo test test-long bench docs clean
all: build

setup:
	@scripts/setup.sh

build: setup
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DNETASIC_WERROR=ON >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

demo: build
	$(NETASIC) run scenarios/demo.toml --out out/demo --vcd

test: build
	cd $(BUILD) && ctest -j$(JOBS) --output-on-failure -LE long

# Long scenario runs, not part of `make test` (see docs/testing.md).
test-long: build
	cd $(BUILD) && ctest -j$(JOBS) --output-on-failure -L long

bench: build
	bench/run.sh $(NETASIC)

# The configuration reference is generated from the parameter declarations.
docs: build
	$(NETASIC) params --markdown > docs/config-reference.md

clean:
	rm -rf $(BUILD) out
