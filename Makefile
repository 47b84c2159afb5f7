# SPDX-License-Identifier: GPL-2.0
#
# mmb: everything runs as root on Debian bookworm (amd64).
#
#   make run      install what is needed, boot a VM, load mmb, show it working
#   make check    install what is needed, run every test; ends "N passed, N failed"
#   make check-full   every stage on both kernels: every end-to-end script
#                 and the newcomer's install (DKMS) on both (about 80 min here)
#   make check-debug  the debug kernel's long run: 10^7 fuzzed packets,
#                 10^6 netlink messages, every end-to-end script (about 1 h)
#   make          build mmb.ko for every installed kernel and userspace/mmbctl
#   make bench    the in-kernel classifier microbenchmark (results/bench-classify.txt)
#   make perf     mmb vs nftables vs iptables in a UML VM (results/perf/)
#   make install  mmb.ko for KVER (default: the running kernel) into
#                 /lib/modules/KVER/updates, mmbctl, its man page, bash
#                 completion, mmb.service, mmb-metrics.{service,timer} and
#                 /etc/mmb/mmb.rules
#   make install-dkms  the same, with mmb.ko built and kept by DKMS for
#                 every kernel installed later
#   make uninstall  removes all of it but /etc/mmb (yours)
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

check-full: setup
	MMB_CHECK_BUDGET=9000 scripts/check userspace style build kunit \
		"debug,e2e-uml,e2e-6.1,newcomer-6.1|e2e-6.12,newcomer-6.12"

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

# --- installing --------------------------------------------------------------
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
VERSION := $(shell sed -n 's/^\#define MMBCTL_VERSION "\(.*\)"$$/\1/p' userspace/mmbctl.c)
DKMS_SRC := $(DESTDIR)/usr/src/mmb-$(VERSION)
# The module's sources: all a kernel build of it reads.
MODULE_SRCS := Kbuild $(wildcard kmod/Kbuild kmod/Kconfig kmod/*.[ch] uapi/linux/*.h)

install-tools: mmbctl
	install -D -m 755 userspace/mmbctl $(DESTDIR)$(SBINDIR)/mmbctl
	install -D -m 644 userspace/mmbctl.8 $(DESTDIR)$(MANDIR)/man8/mmbctl.8
	install -D -m 644 userspace/completion/mmbctl $(DESTDIR)$(COMPLETIONDIR)/mmbctl
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)/etc/mmb
	sed 's|@SBINDIR@|$(SBINDIR)|g' userspace/systemd/mmb.service.in > $(DESTDIR)$(UNITDIR)/mmb.service
	chmod 644 $(DESTDIR)$(UNITDIR)/mmb.service
	install -D -m 755 userspace/systemd/mmb-metrics $(DESTDIR)$(PREFIX)/lib/mmb/mmb-metrics
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@LIBDIR@|$(PREFIX)/lib/mmb|g' \
		userspace/systemd/mmb-metrics.service.in > $(DESTDIR)$(UNITDIR)/mmb-metrics.service
	chmod 644 $(DESTDIR)$(UNITDIR)/mmb-metrics.service
	install -m 644 userspace/systemd/mmb-metrics.timer $(DESTDIR)$(UNITDIR)/mmb-metrics.timer
	test -e $(DESTDIR)/etc/mmb/mmb.rules || \
		install -m 644 userspace/systemd/mmb.rules $(DESTDIR)/etc/mmb/mmb.rules

# Built in a tree of its own (build/install/KVER), without W=1: a kernel
# other than the two tested may warn, and that should not stop an install.
install-module:
	rm -rf build/install/$(KVER) && mkdir -p build/install/$(KVER)
	tar -cf - $(MODULE_SRCS) | tar -xf - -C build/install/$(KVER)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/build/install/$(KVER) modules
	install -D -m 644 build/install/$(KVER)/kmod/mmb.ko \
		$(DESTDIR)/lib/modules/$(KVER)/updates/mmb.ko
	test -n "$(DESTDIR)" || depmod -a $(KVER)

install: install-module install-tools

install-dkms: install-tools
	@command -v dkms > /dev/null || { echo "install-dkms: dkms missing: apt-get install dkms" >&2; exit 1; }
	if dkms status -m mmb -v $(VERSION) | grep -q .; then dkms remove mmb/$(VERSION) --all; fi
	rm -rf $(DKMS_SRC) && mkdir -p $(DKMS_SRC)
	tar -cf - $(MODULE_SRCS) | tar -xf - -C $(DKMS_SRC)
	sed 's/@VERSION@/$(VERSION)/' dkms.conf > $(DKMS_SRC)/dkms.conf
	dkms add mmb/$(VERSION)
	dkms install mmb/$(VERSION) -k $(KVER)

uninstall:
	-if command -v dkms > /dev/null && dkms status -m mmb -v $(VERSION) | grep -q .; then \
		dkms remove mmb/$(VERSION) --all; fi
	rm -rf $(DKMS_SRC)
	rm -f $(DESTDIR)/lib/modules/$(KVER)/updates/mmb.ko
	test -n "$(DESTDIR)" || depmod -a $(KVER)
	rm -f $(DESTDIR)$(SBINDIR)/mmbctl $(DESTDIR)$(MANDIR)/man8/mmbctl.8 \
		$(DESTDIR)$(COMPLETIONDIR)/mmbctl $(DESTDIR)$(UNITDIR)/mmb.service \
		$(DESTDIR)$(UNITDIR)/mmb-metrics.service $(DESTDIR)$(UNITDIR)/mmb-metrics.timer \
		$(DESTDIR)$(PREFIX)/lib/mmb/mmb-metrics
	-rmdir $(DESTDIR)$(PREFIX)/lib/mmb 2> /dev/null

clean:
	$(MAKE) -C userspace clean
	rm -rf build/mod build/check build/vm build/install

.PHONY: all setup modules mmbctl check check-full check-debug run kunit bench perf clean \
	install install-tools install-module install-dkms uninstall
