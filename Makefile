# ActivityPush — `make demo` runs the main job on the bundled examples; `make test` runs every test.
# Both install missing Debian packages first (scripts/install-deps.sh).
SWIFT ?= swift
CLI := .build/debug/activity-push

.PHONY: deps build release demo test test-swift test-cases test-tools bench soak clean

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

bench: release
	.build/release/activity-push bench validate

# 20 000-push drain on PostgreSQL against mock-apns with mixed faults, a killed worker and a PostgreSQL restart;
# prints pushes lost (must be 0), duplicates by cause, attempts per push and wall time. Not part of `make test`.
soak: build
	scripts/soak.sh $(CLI)

clean:
	rm -rf .build
