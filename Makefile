# ActivityPush — `make demo` runs the main job on the bundled examples, then one Live Activity's whole life on
# serve + worker + mock-apns; `make test` runs every test.
# Both install missing Debian packages first (scripts/install-deps.sh).
SWIFT ?= swift
CLI := .build/debug/activity-push

# Library modules with a DocC catalog (Sources/<Module>/<Module>.docc); `make docs` builds an archive for each.
DOC_MODULES ?= ActivityPushCore ActivityPushDiagnosis ActivityPushAPNs ActivityPushMock ActivityPushQueue ActivityPushConsole
# Modules whose every public symbol must have a doc comment (`make test` fails otherwise).
DOC_CHECKED_MODULES ?= ActivityPushCore ActivityPushDiagnosis ActivityPushAPNs ActivityPushQueue
DOCS_BUILD := .build/docs-build
SYMBOL_GRAPHS := $(CURDIR)/.build/symbol-graphs
DOCS_OUT := .build/docs

.PHONY: deps build release demo test test-swift test-cases test-tools doc-check docs bench soak fuzz fuzz-replay sanitize clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build --product activity-push

release: deps
	$(SWIFT) build -c release --product activity-push

demo: build
	@scripts/demo.sh $(CLI)
	@scripts/lifecycle-demo.sh $(CLI)

RELEASE_CLI := .build/release/activity-push

# Every test, on the debug build; then what users run: the CLI tests again against the release binary, and a
# smoke of `send --tokens-file` and `worker --drain` (5 000 pushes each, exactly once at mock-apns) with it.
test: build release
	@! grep -rnE 'return \([A-Za-z_]+, .*try (\?)?await' Sources | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' \
	  || { echo "the shape above is miscompiled by Swift 6.3.1 -O (docs/release-miscompile.md)"; exit 1; }
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	ACTIVITY_PUSH_CLI=$(RELEASE_CLI) $(SWIFT) test --skip-build --filter ActivityPushCLITests
	scripts/release-smoke.sh $(RELEASE_CLI) 5000
	@$(MAKE) --no-print-directory doc-check
	@$(MAKE) --no-print-directory test-tools

# Fails on a public symbol without a doc comment in $(DOC_CHECKED_MODULES) (symbol graphs of the debug build).
doc-check:
	PATH="$(dir $(shell command -v $(SWIFT))):$$PATH" python3 scripts/check-doc-comments $(DOC_CHECKED_MODULES)

# One .doccarchive per library module in $(DOCS_OUT), from the toolchain's symbol-graph extraction and `docc`
# (no plugin). A separate scratch path keeps these compiler flags from invalidating the debug build.
docs: deps
	rm -rf $(SYMBOL_GRAPHS) $(DOCS_OUT)
	mkdir -p $(SYMBOL_GRAPHS) $(DOCS_OUT)
	$(SWIFT) build --scratch-path $(DOCS_BUILD) \
		-Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc $(SYMBOL_GRAPHS)
	@set -e; for module in $(DOC_MODULES); do \
		mkdir -p $(SYMBOL_GRAPHS)/$$module; \
		cp $(SYMBOL_GRAPHS)/$$module.symbols.json $(SYMBOL_GRAPHS)/$$module/; \
		for extension in $(SYMBOL_GRAPHS)/$$module@*.symbols.json; do \
			if [ -f "$$extension" ]; then cp "$$extension" $(SYMBOL_GRAPHS)/$$module/; fi; \
		done; \
		echo "docc convert $$module"; \
		$${DOCC:-docc} convert Sources/$$module/$$module.docc \
			--additional-symbol-graph-dir $(SYMBOL_GRAPHS)/$$module \
			--fallback-display-name $$module --fallback-bundle-identifier org.activitypush.$$module \
			--output-path $(DOCS_OUT)/$$module.doccarchive; \
	done
	@echo "documentation archives: $(DOCS_OUT)/*.doccarchive"

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

# 20 000-push drain on PostgreSQL against mock-apns with mixed faults, a killed worker and a PostgreSQL restart;
# prints pushes lost (must be 0), duplicates by cause, attempts per push and wall time. Not part of `make test`.
soak: build
	scripts/soak.sh $(CLI)

# AddressSanitizer over the unsafe-pointer code (nghttp2 name/value arrays, Unmanaged user data, OpenSSL and
# socket buffers): a debug build with -sanitize=address in its own scratch path (the normal .build is untouched),
# the HTTP/2, APNs-client and mock tests under it, then a short release smoke with the instrumented binary. Not
# part of `make test` (the first build takes minutes). Leak checking is off: the runtime's and XCTest's
# process-lifetime allocations would drown real reports. Timing-bound tests are skipped here (`SANITIZE_SKIP`):
# ASAN makes the code 3-10x slower, which they measure, not memory safety.
SANITIZE_BUILD ?= .build-asan
SANITIZE_FILTER ?= ActivityPushHTTP2Tests|ActivityPushAPNsTests|ActivityPushMockTests
SANITIZE_SKIP ?= ResourceTests.testHalfOpenAndIdleTLSConnectionsCostNoCPU|MockClientTests.testGracefulGoawayLosesNothingAndDuplicatesNothing
SANITIZE_PUSHES ?= 500
SANITIZE_FLAGS := --scratch-path $(SANITIZE_BUILD) -Xswiftc -sanitize=address
sanitize: deps
	$(SWIFT) build --build-tests $(SANITIZE_FLAGS)
	ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 $(SWIFT) test --skip-build $(SANITIZE_FLAGS) \
		--filter '$(SANITIZE_FILTER)' --skip '$(SANITIZE_SKIP)'
	ASAN_OPTIONS=detect_leaks=0:halt_on_error=1 scripts/release-smoke.sh $(SANITIZE_BUILD)/debug/activity-push $(SANITIZE_PUSHES)

clean:
	rm -rf .build $(SANITIZE_BUILD)
