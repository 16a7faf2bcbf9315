# ActivityPush — `make demo` runs the main job on the bundled examples; `make test` runs every test.
# Both install missing Debian packages first (scripts/install-deps.sh).
SWIFT ?= swift
CLI := .build/debug/activity-push

.PHONY: deps build release demo test test-swift test-cases test-tools bench fuzz fuzz-replay clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build --product activity-push

release: deps
	$(SWIFT) build -c release --product activity-push

demo: build
	@scripts/demo.sh $(CLI)

test: build
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	@$(MAKE) --no-print-directory test-tools

# The shared scorers over the bundled fixtures (copies of ../shared/cases, logs, audit).
test-tools:
	python3 scripts/score-cases --cli $(CLI) Fixtures/cases
	python3 scripts/score-logs --cli $(CLI) Fixtures/logs
	python3 scripts/score-audit --cli $(CLI) Fixtures/audit
	@if [ -f Tests/browser/run.sh ]; then bash Tests/browser/run.sh $(CLI); fi

# libFuzzer harnesses (Fuzz/Targets, compiled by swiftc -sanitize=fuzzer,address against the sources; not part of
# `swift build`), each run FUZZ_SECONDS (default 180). Crashes and slow inputs: .build/fuzz/artifacts/<target>/.
# `make fuzz FUZZ_TARGETS=swift-source` runs one. The checked-in corpus Fuzz/Corpus is replayed by `make test`.
FUZZ_SECONDS ?= 180
FUZZ_TARGETS ?=
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh $(FUZZ_TARGETS)

# Only the corpus replay (no sanitizer; each input within its time budget) — part of `make test` anyway.
fuzz-replay:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter 'FuzzCorpusReplayTests|MockFuzzCorpusReplayTests'

bench: release
	.build/release/activity-push bench validate

clean:
	rm -rf .build
