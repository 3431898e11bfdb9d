# mmfi: fault injection and tracepoint debugging for Linux MM developers.
#
#   make demo     build everything, boot the guest, show what the toolkit does
#   make check    all tests (host, then guest, then KUnit); "N passed, N failed"
#   make bench    benchmarks, printed as tables of ratios
#   make deps     install the Debian packages (only the missing ones)
#   make kernel   the guest kernel from linux-source + kernel-patches/
#   make series   write build/linux's commits back to kernel-patches/
#   make shell    an interactive root shell in the guest (= qemu/run)
#   make clean    remove build/ (kernel tree included)

SHELL := /bin/bash
.DEFAULT_GOAL := help
.PHONY: help deps kernel series stap-runtime tools demo check bench shell lint clean

help:
	@sed -n '3,10s/^# \{0,1\}//p' Makefile

deps:
	@qemu/deps

kernel: deps
	@qemu/build-kernel

series:
	@qemu/series --export

stap-runtime: deps
	@qemu/stap-runtime >/dev/null

tools:
	@$(MAKE) -s -C inject

demo: kernel stap-runtime tools
	@qemu/demo

# tests/run builds the kernel itself (as its first test), so that even a
# broken build ends with the "N passed, N failed" line.
check: deps
	@tests/run

bench: kernel stap-runtime tools
	@bench/run

shell: kernel
	@qemu/run

lint:
	@shellcheck -x qemu/lib.sh qemu/build-kernel qemu/mkinitramfs qemu/guest-init \
		qemu/run qemu/exec qemu/stap qemu/trace qemu/series qemu/stap-runtime \
		qemu/deps qemu/demo bench/run bench/fault-inject bench/fi-guest.sh \
		tests/run tests/guest-runner tests/lib.sh tests/host/*.sh tests/guest/*.sh \
		tests/guest/lib.bash tests/workloads/failslab-one-file

clean:
	rm -rf build
