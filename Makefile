# ActivityPush — `make demo` runs the main job on the bundled examples; `make test` runs every test.
# Both install missing Debian packages first (scripts/install-deps.sh).
SWIFT ?= swift
CLI := .build/debug/activity-push

.PHONY: deps build release demo test test-swift test-cases test-tools bench clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build --product activity-push

release: deps
	$(SWIFT) build -c release --product activity-push

demo: build
	@scripts/demo.sh $(CLI)

RELEASE_CLI := .build/release/activity-push

# Every test, on the debug build; then what users run: the CLI tests again against the release binary, and a
# smoke of `send --tokens-file` and `worker --drain` (5 000 pushes each, exactly once at mock-apns) with it.
test: build release
	@! grep -rnE 'return \([A-Za-z_]+, .*try (\?)?await' Sources \
	  || { echo "the shape above is miscompiled by Swift 6.3.1 -O (docs/release-miscompile.md)"; exit 1; }
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	ACTIVITY_PUSH_CLI=$(RELEASE_CLI) $(SWIFT) test --skip-build --filter ActivityPushCLITests
	scripts/release-smoke.sh $(RELEASE_CLI) 5000
	@$(MAKE) --no-print-directory test-tools

# The shared scorers over the bundled fixtures (copies of ../shared/cases, logs, audit).
test-tools:
	python3 scripts/score-cases --cli $(CLI) Fixtures/cases
	python3 scripts/score-logs --cli $(CLI) Fixtures/logs
	python3 scripts/score-audit --cli $(CLI) Fixtures/audit
	@if [ -f Tests/browser/run.sh ]; then bash Tests/browser/run.sh $(CLI); fi

bench: release
	.build/release/activity-push bench validate

clean:
	rm -rf .build
