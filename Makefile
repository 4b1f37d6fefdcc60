# ScanBridge: the two newcomer commands are `make demo` and `make test`.
SWIFT ?= swift
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: deps build demo test bench clean

deps:
	@scripts/deps.sh

build: deps
	$(SWIFT) build

demo: build
	@scripts/demo.sh

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	$(SWIFT) build -c release
	.build/release/scanbridge-bench $(BENCH_ARGS)

clean:
	rm -rf .build .demo
