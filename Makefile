# mmfi: fault injection and tracepoint debugging for Linux MM developers.
#
#   make demo     build everything, boot the guest, show what the toolkit does
#   make check    all tests (host, then guest, then KUnit); "N passed, N failed"
#   make bench    benchmarks, printed as tables of ratios
#   make fuzz     the long fuzz runs (make check runs short ones; FUZZ_SEED=N)
#   make deps     install the Debian packages (only the missing ones)
#   make kernel   the guest kernel from linux-source + kernel-patches/
#                 (FLAVOUR=kasan or kcsan: a sanitizer flavour, beside it)
#   make series   write build/linux's commits back to kernel-patches/
#   make series-check  compile each patch of the series on its own
#   make mutants  put each fixed bug back and check its KUnit case fails
#   make shell    an interactive root shell in the guest (= qemu/run)
#   make tracepoint-docs  regenerate tracepoint-docs/events/ (boots a guest)
#   make clean    remove build/ (kernel tree included)

SHELL := /bin/bash
.DEFAULT_GOAL := help
.PHONY: help deps kernel series series-check mutants stap-runtime tools demo check fuzz bench shell lint clean tracepoint-docs

help:
	@sed -n '3,/^[^#]/s/^# \{0,1\}//p' Makefile

deps:
	@qemu/deps

# make kernel FLAVOUR=kasan|kcsan: a sanitizer flavour, beside the default one.
kernel: deps
	@qemu/build-kernel $(if $(FLAVOUR),--flavour $(FLAVOUR))

series:
	@qemu/series --export

series-check: kernel
	@qemu/series-check

stap-runtime: deps
	@qemu/stap-runtime >/dev/null

tools:
	@$(MAKE) -s -C inject
	@$(MAKE) -s -C txlog
	@$(MAKE) -s -C tracepoint-docs

demo: kernel stap-runtime tools
	@qemu/demo

# The reference of the MM tracepoints: examples captured in a guest, pages
# written to tracepoint-docs/events/ (see tracepoint-docs/README.md).
tracepoint-docs: kernel stap-runtime tools
	@tracepoint-docs/generate

# tests/run builds the kernel itself (as its first test), so that even a
# broken build ends with the "N passed, N failed" line.
check: deps
	@tests/run

# The fuzz tests at their long size (make check runs them short).
fuzz: deps
	@FUZZ_SIZE=long TESTS='@(host/txlog-fuzz|guest/fault-inject-fuzz)' tests/run

bench: kernel stap-runtime tools
	@bench/run

shell: kernel
	@qemu/run

# Opt-in, ~2-3 min per mutant: a kernel build and a KUnit run each.
mutants: kernel
	@tests/mutants/run

# Every shell script of the project: files under the source directories whose
# first line names bash or sh (build/ and .git are not searched).
lint:
	@grep -rlE --exclude-dir=build --exclude-dir=.git '^#!(/usr/bin/env |/bin/)(ba)?sh' \
		qemu tests bench inject races stap-scripts tracepoint-docs txlog .ci 2>/dev/null | \
		xargs shellcheck -x tests/lib.sh tests/guest/lib.bash
	@git ls-files -s | awk '$$1 == "100644" {print $$4}' | \
		while read -r f; do head -c2 "$$f" | grep -q '^#!' && echo "$$f"; done | \
		sed 's/^/not executable (git update-index --chmod=+x): /' | grep . && exit 1 || true
	@{ git ls-files '*.py'; git ls-files qemu | xargs grep -l '^#!/usr/bin/env python3'; } | \
		sort -u | xargs pyflakes3

clean:
	rm -rf build
