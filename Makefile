# SPDX-License-Identifier: GPL-2.0
#
# mmb: everything runs as root on Debian bookworm (amd64).
#
#   make run      install what is needed, boot a VM, load mmb, show it working
#   make check    install what is needed, run every test; ends "N passed, N failed"
#   make check-debug  the debug kernel's long run: 10^7 fuzzed packets,
#                 10^6 netlink messages, every end-to-end script (about 1 h)
#   make          build mmb.ko for every installed kernel and userspace/mmbctl
#   make bench    the in-kernel classifier microbenchmark (results/bench-classify.txt)
#   make perf     mmb vs nftables vs iptables in a UML VM (results/perf/)
#
# The kernel build itself reads Kbuild, not this file.

all: modules mmbctl

setup:
	scripts/setup

modules:
	scripts/build-module

mmbctl:
	$(MAKE) -C userspace

check: setup
	scripts/check

check-debug: setup
	scripts/check debug-full

run: setup
	scripts/demo

kunit:
	scripts/kunit

bench: setup
	scripts/bench

perf: setup
	scripts/perf

clean:
	$(MAKE) -C userspace clean
	rm -rf build/mod build/check build/vm

.PHONY: all setup modules mmbctl check check-debug run kunit bench perf clean
