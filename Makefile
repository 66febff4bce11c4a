# Thin wrapper over CMake. The two commands a person needs:
#   make verify   install what is missing, build, verify the bundled rule corpus (rules/)
#   make test     install what is missing, build, run every test through ctest (every label,
#                 timing included)
# Other targets: build, check (the fast tier: unit, diag and faults tests, under a minute;
# not the timing tests), test-asan (ASan+UBSan build: the fast tier and a slice of the
# end-to-end tests), test-tsan (the emulated megakernel under ThreadSanitizer:
# tools/mpk-tsan.sh), fuzz (bounded fuzzing of the program parser and the HLO front end),
# deps (only the installation step, always run), clean.
#
# The package check runs once per build directory: its stamp, $(BUILD)/.deps-ok, is
# written when every package is there and is newer than this Makefile and the installer;
# `make deps` checks again whatever the stamp says.

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 60
# of which the HLO front end's target gets a third, the program parser's the rest
HLO_FUZZ_SECONDS ?= $(shell expr $(FUZZ_SECONDS) / 3)
# ctest label and name filters of the tiers (tests/CMakeLists.txt: unit, diag, faults,
# corpus, superopt, gpu, mpk, timing). timing holds the unit tests whose assertions wait on a
# solver's or a worker's time limit (they take seconds and a loaded machine can fail them):
# `make test` runs them, `make check` does not. Under ASan the solvers are not instrumented,
# so the solver-bound scripts are represented by one slice: preconditions and counterexample
# replay.
FAST_LABELS  ?= unit|diag|faults
ASAN_E2E     ?= ^e2e/(preconditions|eager_replay|verify_bounds)$$
CMAKE_FLAGS ?=
ifeq ($(CI),true)
  CMAKE_FLAGS += -DAXLE_WERROR=ON
endif

# Debian packages axle builds and runs with. OPTIONAL_PACKAGES add features CMake uses when
# it finds them (GLPK: `axle optimize --extract ilp`; Open MPI: `--mpi`; `axle --version` says
# which): installed as root like the others, otherwise only named, and the build goes on.
PACKAGES      := cmake flex bison check pkg-config libz3-dev z3 cvc5 libgmp-dev libcjson-dev g++ \
                 jq libxml2-utils gnuplot-nox
OPTIONAL_PACKAGES := libglpk-dev libopenmpi-dev openmpi-bin
FUZZ_PACKAGES := clang libclang-rt-14-dev
DEPS_STAMP    := $(BUILD)/.deps-ok

.PHONY: all verify test check build deps deps-fuzz test-asan test-tsan fuzz clean

all: build

deps:
	@sh tools/install-deps.sh $(PACKAGES)
	@sh tools/install-deps.sh --optional $(OPTIONAL_PACKAGES)
	@mkdir -p $(BUILD) && touch $(DEPS_STAMP)

$(DEPS_STAMP): Makefile tools/install-deps.sh
	@$(MAKE) --no-print-directory deps

deps-fuzz:
	@sh tools/install-deps.sh $(FUZZ_PACKAGES)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: $(DEPS_STAMP) $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

verify: build
	./$(BUILD)/axle check rules/
	./$(BUILD)/axle verify rules/

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

check: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -L '$(FAST_LABELS)'

test-asan: $(DEPS_STAMP)
	cmake -S . -B $(ASAN_BUILD) -DAXLE_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -L '$(FAST_LABELS)'
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS) -R '$(ASAN_E2E)'

test-tsan: build
	AXLE=$(CURDIR)/$(BUILD)/axle AXLE_TEST_BIN=$(CURDIR)/$(BUILD)/axle-test AXLE_SRC=$(CURDIR) \
	  bash tools/mpk-tsan.sh

fuzz: $(DEPS_STAMP) deps-fuzz
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DAXLE_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_parse fuzz_hlo
	sh tools/run-fuzz.sh $(FUZZ_BUILD)/tests/fuzz_parse $$(expr $(FUZZ_SECONDS) - $(HLO_FUZZ_SECONDS)) axl
	sh tools/run-fuzz.sh $(FUZZ_BUILD)/tests/fuzz_hlo $(HLO_FUZZ_SECONDS) hlo

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
