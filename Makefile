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

# Every target declares the modules it imports; the build refuses one that does not.
IMPORT_CHECK = --explicit-target-dependency-import-check error

test: deps
	$(SWIFT) build --build-tests $(IMPORT_CHECK)
	$(SWIFT) test --skip-build

# Release builds link the Swift runtime in, as a counter box would run them: no toolchain
# needed there, and about 3 MB less resident than with the runtime's shared libraries.
# Product by product: a build of everything also links GRDB's dynamic library, which cannot
# take the static runtime.
bench: deps
	for product in scanbridged scanbridge scanbridge-bench; do \
		$(SWIFT) build -c release --static-swift-stdlib --product $$product || exit 1; done
	.build/release/scanbridge-bench $(BENCH_ARGS)

clean:
	rm -rf .build .demo
