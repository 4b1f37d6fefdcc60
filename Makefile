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

# Release builds link the Swift runtime in, as a counter box would run them: no toolchain
# needed there, and about 3 MB less resident than with the runtime's shared libraries.
bench: deps
	$(SWIFT) build -c release --static-swift-stdlib
	.build/release/scanbridge-bench $(BENCH_ARGS)

clean:
	rm -rf .build .demo
