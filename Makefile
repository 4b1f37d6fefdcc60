# ScanBridge: the two newcomer commands are `make demo` and `make test`.
SWIFT ?= swift
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: deps build demo test soak test-package fuzz test-sanitize format bench release-products install deb dist test-dist arm64 clean

# Each target installs the Debian packages it needs, and no more (scripts/deps.sh).
deps:
	@scripts/deps.sh build

build: deps
	$(SWIFT) build

# The demo builds what it runs, and no more: the daemon, the CLI and the camera's decoder,
# without the package traits it does not use (the shop's shared store, the gateway's TLS), each
# of which builds a copy of BoringSSL (Package.swift).
DEMO_PRODUCTS = scanbridged scanbridge scanbridge-zxing

demo:
	@scripts/deps.sh demo
	for product in $(DEMO_PRODUCTS); do $(SWIFT) build --disable-default-traits --product $$product || exit 1; done
	@scripts/demo.sh

# The code follows .swift-format: `make format` rewrites it so, `make test` checks it.
SWIFT_CODE = Sources Plugins Tests Benchmarks Fuzz Package.swift

format:
	$(SWIFT) format --in-place --recursive --parallel $(SWIFT_CODE)

# Lint beside the build (every target declaring the modules it imports), the suites (the fuzz
# targets' seeds among them), the hardware lab alone: each phase timed, then the slowest tests
# and what was skipped (scripts/test.sh, docs/testing.md).
test:
	@scripts/deps.sh test
	SWIFT=$(SWIFT) scripts/test.sh

# The long runs `make test` keeps short: 10,000 device attach/detach cycles instead of 2,000,
# and 10,000 scans past a stalled subscriber instead of 2,000.
SOAK_CHURN_CYCLES ?= 10000
SOAK_BACKPRESSURE_SCANS ?= 10000
soak: deps
	$(SWIFT) build --build-tests
	SCANBRIDGE_CHURN_CYCLES=$(SOAK_CHURN_CYCLES) SCANBRIDGE_BACKPRESSURE_SCANS=$(SOAK_BACKPRESSURE_SCANS) \
		$(SWIFT) test --skip-build --filter 'DeviceChurnTests|BackpressureTests'

# The fuzz targets (Fuzz/, docs/testing.md), built with libFuzzer and AddressSanitizer in
# .build/fuzz: `make fuzz` runs each for FUZZ_SECONDS, with its dictionary (`make test` replays
# their seeds and a fixed slice of mutations of them, without libFuzzer).
# FUZZ_TARGETS picks some (default: all).
FUZZ_SECONDS ?= 60

fuzz: deps
	SWIFT=$(SWIFT) scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The unit and end-to-end tests under ThreadSanitizer, then AddressSanitizer, each in its own
# build folder (their binaries too, which the end-to-end tests run). Not the hardware lab: its
# emulated guests are slow enough unsanitized. SANITIZE_FILTER narrows it, e.g.
# SANITIZE_FILTER='--filter ScanBridgeCoreTests|ScanBridgeServerTests|ScanBridgeStoreTests'.
# LeakSanitizer skips the leaks that are the runtime's (scripts/lsan-suppressions.txt).
test-sanitize: export LSAN_OPTIONS = suppressions=$(CURDIR)/scripts/lsan-suppressions.txt:print_suppressions=0
test-sanitize: deps
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build/tsan
	SCANBRIDGE_LAB=off $(SWIFT) test --skip-build --sanitize=thread --build-path .build/tsan --skip HardwareLab $(SANITIZE_FILTER)
	$(SWIFT) build --build-tests --sanitize=address --build-path .build/asan
	SCANBRIDGE_LAB=off $(SWIFT) test --skip-build --sanitize=address --build-path .build/asan --skip HardwareLab $(SANITIZE_FILTER)

# Release builds link the Swift runtime in, as a counter box would run them: no toolchain
# needed there. Product by product: a build of everything also links GRDB's dynamic library,
# which cannot take the static runtime. The daemon is also linked without the linker's order
# (unordered/scanbridged), for the scenario that weighs the order.
RELEASE = $(SWIFT) build -c release --static-swift-stdlib

# Every scenario (latency … hostile-gateway, shop), or some: BENCH_ARGS='--only shop --quick'
# (docs/performance.md lists them and the flags).
# The benchmark program and the old camera decoder it weighs zxing-cpp against are declared only
# with SCANBRIDGE_BENCH=1 (Package.swift).
bench: export SCANBRIDGE_BENCH = 1
bench:
	@scripts/deps.sh bench
	rm -f .build/release/scanbridged
	SCANBRIDGE_LINK_ORDER=off $(RELEASE) --product scanbridged
	mkdir -p .build/release/unordered && mv .build/release/scanbridged .build/release/unordered/
	for product in scanbridged scanbridge scanbridge-zxing scanbridge-bench; do $(RELEASE) --product $$product || exit 1; done
	.build/release/scanbridge-bench $(BENCH_ARGS)

# `make install PREFIX=/usr DESTDIR=…`: the release binaries, units, rules, configuration, man
# pages and completions (packaging/install.sh; PREFIX defaults to /usr/local).
PREFIX ?= /usr/local
# The package's builds have a build folder of their own (SwiftPM lets one command at a time use
# a build folder), so that a test run and a package build never wait on each other.
# packaging/install.sh takes the binaries from there.
PACKAGE_BUILD = .build/package

release-products:
	@scripts/deps.sh build
	for product in scanbridged scanbridge scanbridge-zxing; do \
		$(RELEASE) --scratch-path $(PACKAGE_BUILD) --product $$product || exit 1; done
	$(SWIFT) build --scratch-path $(PACKAGE_BUILD) --product generate-manual

install: release-products
	PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) packaging/install.sh

# `make deb`: the Debian package (debian/, by dpkg-buildpackage and debhelper) for this machine's
# release, or for DIST (trixie, bookworm), built in a chroot of that release with its own
# libraries and checked by its lintian at the pedantic level, in .build/deb/DIST
# (packaging/chroot.sh; the chroots are cached in /var/cache/scanbridge/chroots).
# `make test-package`: that package installed, upgraded, run, removed and purged in a clean
# chroot of its release (packaging/check.sh). Both are long runs of their own: a release build
# takes longer than `make test`'s budget (docs/testing.md); `make test` installs the package
# of its debug binaries in the hardware lab's systemd guest.
DIST ?= $(shell . /etc/os-release && echo $$VERSION_CODENAME)

deb:
	@scripts/deps.sh package
	SWIFT=$(SWIFT) packaging/chroot.sh build $(DIST)

test-package: deb
	packaging/chroot.sh test $(DIST)

# `make dist`: scanbridge-VERSION-linux-x86_64.tar.gz and its SHA-256, in .build/dist, built in
# the Debian 12 chroot (the oldest release supported: its binaries run on 13 too).
# `make test-dist`: it runs, without root, in clean chroots of Debian 12 and 13 holding only the
# libraries its README lists (packaging/check-dist.sh).
dist:
	@scripts/deps.sh package
	SWIFT=$(SWIFT) packaging/chroot.sh dist bookworm

test-dist: dist
	packaging/chroot.sh test-dist bookworm
	packaging/chroot.sh test-dist trixie

# `make arm64`: scanbridged and scanbridge cross-compiled for an arm64 Debian 13 box with
# Debian sid's swiftlang, and the daemon's smoke run under qemu-aarch64 (packaging/arm64.sh,
# docs/arm64.md). A long run of its own, by hand: about 20 minutes the first time.
arm64:
	@scripts/deps.sh arm64
	packaging/arm64.sh

clean:
	rm -rf .build .demo
