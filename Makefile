# SPDX-License-Identifier: GPL-2.0
#
# sched-economy: the top-level targets.  The build-and-boot pipeline lives in
# qemu/Makefile; this file installs dependencies and delegates.
#
#   make demo     boot the guest, load the module, toggle the economy
#   make check    build everything, run tests/TESTS, lint
#
# SCHED_ECONOMY_CACHE (default ~/.cache/sched-economy) holds the kernel trees.

SHELL := /bin/bash
export SCHED_ECONOMY_CACHE ?= $(HOME)/.cache/sched-economy
# One build in the cache at a time (qemu/boot takes the same lock).
Q := mkdir -p $(SCHED_ECONOMY_CACHE) && flock $(SCHED_ECONOMY_CACHE)/.lock \
	$(MAKE) --no-print-directory -f qemu/Makefile

PACKAGES := util-linux linux-source-6.12 qemu-system-x86 busybox-static kmod gcc make \
	flex bison bc libelf-dev libssl-dev cpio rsync patch xz-utils perl \
	libc6-dev dwarves sparse gnuplot-nox python3 \
	xvfb xterm x11-xkb-utils rt-tests stress-ng redis-server redis-tools weston

.PHONY: all deps kernel module userspace guest check test lint demo bench \
	shell clean distclean help
.DEFAULT_GOAL := help

help:
	@sed -n '/^# *make /s/^# *//p' $(MAKEFILE_LIST) | sort -u

# make deps          install missing build/run dependencies (apt-get)
deps:
	@missing=$$(for p in $(PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "  APT     $$missing"; \
		sudo=$$([ $$(id -u) = 0 ] || echo sudo); \
		$$sudo apt-get update && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	fi

# make kernel        build both guest kernels (default, debug) in the cache
kernel: deps
	@$(Q) kernel
# make module        build module/ against both kernels (seconds)
module: deps
	@$(Q) module
# make userspace     build userspace/, bench/src/ and tests/ programs (static) into build/
userspace: deps
	@$(Q) userspace
# make guest         everything a boot of either variant needs
guest: deps
	@$(Q) guest-default guest-debug
all: guest

# make check         build everything, run every test of tests/TESTS (lint is one)
check: guest
	@qemu/run-tests tests/TESTS

# make test          what make check does; T=regex selects tests by name
test: guest
	@qemu/run-tests tests/TESTS

# make lint          checkpatch (module, kernel-hooks.patch), sparse C=2 (module)
lint: deps
	@$(Q) lint

# make demo          boot the guest, load the module, toggle the economy
demo: deps
	@bench/demo

# make bench         run the benchmark in the guest
bench: deps
	@bench/bench

# make stress        1,000 module reloads under 8 flooders and a knob toggler (debug kernel, 4 vCPUs)
.PHONY: stress
stress: deps
	@qemu/boot --debug --smp 4 --timeout 10800 -- sh -c 'cd /tests && ./reload.sh -t 1000'

# make soak          stress-ng as root and uid 1000 in two cgroups while the module reloads (debug kernel, 2 vCPUs)
.PHONY: soak
soak: deps
	@qemu/boot --debug --smp 2 --x11 --timeout 900 -- sh -c 'cd /tests && ./soak.sh -d 150 -r 15'

# make shell         interactive guest shell on the serial console (Ctrl-A X quits)
shell: deps
	@qemu/boot

# make clean         remove build/ (the kernel cache stays)
clean:
	rm -rf build
# make distclean     also remove the cached kernel trees
distclean: clean
	rm -rf $(SCHED_ECONOMY_CACHE)/linux-*
