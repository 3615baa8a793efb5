# The two entry points of the README (make demo, make test), plus the steps
# they are made of and the checks CI runs (docs/building.md).
# Everything builds in build/ with CMake; the CLI is build/scatterlab.
# The LibTorch reference: pypi (LibTorch 2.11.0 from PyPI's torch wheel,
# scripts/setup-torch.sh) or debian (Debian's libtorch-dev 1.13.1). Each has
# its own build directory, so both can stay built side by side.
REFERENCE ?= pypi
BUILD ?= $(if $(filter debian,$(REFERENCE)),build-debian,build)
JOBS ?= $(shell nproc)
# What the commands write (make demo's store and reports) goes to $(OUT), git-
# ignored, never into the source folders; results/ holds the store's sources.
OUT ?= out
DB ?= $(OUT)/scatterlab.db
CMAKE_FLAGS ?=
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

.PHONY: all deps configure build test check-abi check-sanitize check-tsan check-gpu-shim check-build-types coverage demo clean

all: build

deps:
	@scripts/setup-deps.sh $(REFERENCE)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSL_REFERENCE=$(REFERENCE) $(CMAKE_FLAGS)

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The whole test suite through CTest; CTEST_ARGS narrows it (e.g.
# CTEST_ARGS="-LE ref_independent", as CI runs it against Debian's LibTorch).
CTEST_ARGS ?=
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

# The provider ABI's layout against the dump of its version (core/abi/),
# with libabigail; unlike CTest's layers.abi, a missing abidiff fails here.
check-abi: configure
	cmake --build $(BUILD) --target sl_abi_probe
	bash core/abi/check_abi.sh $(BUILD)/core/libsl_abi_probe.so

# The test suite again under AddressSanitizer + UndefinedBehaviorSanitizer
# (clang), with the libFuzzer targets of the parsers built and run for a
# short time each. CI runs it after `make test`.
SAN_BUILD ?= $(if $(filter debian,$(REFERENCE)),build-asan-debian,build-asan)
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan.supp:print_suppressions=0
check-sanitize:
	@scripts/setup-deps.sh sanitize $(REFERENCE)
	CC=clang CXX=clang++ cmake -S . -B $(SAN_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSL_REFERENCE=$(REFERENCE) -DSL_SANITIZE=ON -DSL_LIBFUZZER=ON -DSL_WITH_CUDA=OFF $(CMAKE_FLAGS)
	cmake --build $(SAN_BUILD) -j $(JOBS)
	cd $(SAN_BUILD) && $(SAN_ENV) ctest --output-on-failure -j $(JOBS)

# Coverage of core/src by the default 60-second fuzz campaign, per file and
# in total, lines and branches; HTML in build-coverage/coverage/html/.
COVERAGE_SECONDS ?= 60
coverage:
	@scripts/setup-deps.sh coverage $(REFERENCE)
	JOBS=$(JOBS) scripts/coverage.sh $(COVERAGE_SECONDS)

# Races: the CLI built with ThreadSanitizer (clang, -DSL_TSAN=ON) and the
# small size thresholds (small cases then run on every thread), then a
# $(TSAN_SECONDS)-second fuzz campaign over the parallel CPU variants with
# OMP_NUM_THREADS=4 and LLVM's Archer (OpenMP's synchronization made visible
# to TSan): any TSan report fails it (scripts/check-tsan.sh).
TSAN_BUILD ?= $(if $(filter debian,$(REFERENCE)),build-tsan-debian,build-tsan)
TSAN_SECONDS ?= 90
check-tsan:
	@scripts/setup-deps.sh tsan $(REFERENCE)
	CC=clang CXX=clang++ cmake -S . -B $(TSAN_BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DSL_REFERENCE=$(REFERENCE) -DSL_TSAN=ON -DSL_SMALL_THRESHOLDS=ON -DSL_WITH_CUDA=OFF $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target scatterlab
	scripts/check-tsan.sh $(TSAN_BUILD) $(TSAN_SECONDS)

# scatterlab built as scripts/gpu-run.sh builds it on the GPU machine,
# against PyPI torch 2.11.0's CUDA 13.0 build and its TorchConfig.cmake:
# compiled and linked here, run there.
check-gpu-shim:
	@scripts/setup-deps.sh
	scripts/check-gpu-shim.sh

# Every target built at -O0, -O1, -O3 and -Os (the CMake build types Debug,
# Release, MinSizeRel; -O1 as build type None) with gcc, under -Werror
# (clang: check-sanitize's build). CI runs it.
check-build-types:
	@scripts/setup-deps.sh sanitize $(REFERENCE)
	JOBS=$(JOBS) scripts/check-build-types.sh $(REFERENCE)

# The main job: a short campaign — the seed examples, 20 s of fuzzing over
# every op and variant, the seed benchmark suite beside LibTorch — recorded
# in $(DB) (the CLI's default store) and exported as CSV and HTML into
# $(OUT). BUILD=DIR runs it with a build directory configured by hand.
DEMO_FUZZ_SECONDS ?= 20
demo: build
	@mkdir -p $(dir $(DB)) $(OUT)
	$(BUILD)/scatterlab run --kind demo --quiet --db $(DB) --batch harness/batches/demo.txt
	$(BUILD)/scatterlab fuzz --seconds $(DEMO_FUZZ_SECONDS) --jobs $(JOBS) --db $(DB)
	$(BUILD)/scatterlab bench --suite seed --budget 0.3 --db $(DB)
	$(BUILD)/scatterlab report --db $(DB)
	$(BUILD)/scatterlab report --db $(DB) --format csv -o $(OUT)/scatterlab.csv
	$(BUILD)/scatterlab report --db $(DB) --format html -o $(OUT)/scatterlab.html
	@echo "database: $(DB)"
	@echo "csv:      $(OUT)/scatterlab.csv"
	@echo "html:     $(OUT)/scatterlab.html"

clean:
	rm -rf $(BUILD)
