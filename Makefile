# The two entry points of the README, plus the steps they are made of.
# Everything builds in build/ with CMake; the CLI is build/scatterlab.
BUILD ?= build
JOBS ?= $(shell nproc)
DB ?= results/scatterlab.db
CMAKE_FLAGS ?=
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")

.PHONY: all deps configure build test demo clean

all: build

deps:
	@scripts/setup-deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The whole test suite through CTest.
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The main job: a short campaign — the seed examples, 20 s of fuzzing over
# every op and variant, the seed benchmark suite beside LibTorch — recorded
# in $(DB) and exported as CSV beside it.
DEMO_FUZZ_SECONDS ?= 20
demo: build
	@mkdir -p $(dir $(DB))
	$(BUILD)/scatterlab run --kind demo --quiet --db $(DB) --batch harness/batches/demo.txt
	$(BUILD)/scatterlab fuzz --seconds $(DEMO_FUZZ_SECONDS) --jobs $(JOBS) --db $(DB)
	$(BUILD)/scatterlab bench --suite seed --budget 0.3 --db $(DB)
	$(BUILD)/scatterlab report --db $(DB)
	$(BUILD)/scatterlab report --db $(DB) --format csv -o results/scatterlab.csv
	@echo "database: $(DB)"
	@echo "csv:      results/scatterlab.csv"

clean:
	rm -rf $(BUILD)
