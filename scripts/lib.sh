# SPDX-License-Identifier: GPL-2.0
# Shared paths and helpers of the mmb scripts; source it, do not run it.

MMB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MMB_BUILD=${MMB_BUILD:-$MMB_ROOT/build}
UML_TREE=$MMB_BUILD/uml/linux
# MMB_UML=debug: the debug kernel (kunit-tests/debug.config), built apart.
if [ "${MMB_UML:-}" = debug ]; then
	UML_OUT=$MMB_BUILD/uml/out-debug
else
	UML_OUT=$MMB_BUILD/uml/out
fi
UML_LINUX=$UML_OUT/linux

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# What the kernel holds for rules and connections, in bytes: unreclaimable
# slab, per-CPU and vmalloc memory (page cache and the tools' own memory
# are not in it). For scripts run inside a VM.
mem_kernel() {
	awk '/^(SUnreclaim|Percpu|VmallocUsed):/ { s += $2 } END { print s * 1024 }' /proc/meminfo
}

# The pristine kernel source of a Debian linux-source-X.Y package.
mmb_kernel_source() {
	local ver=$1 tarball=/usr/src/linux-source-$1.tar.xz
	local dir=$MMB_BUILD/linux-source-$ver

	[ -f "$tarball" ] || die "$tarball missing: run scripts/setup"
	mkdir -p "$MMB_BUILD"
	# Stages side by side (scripts/check) may ask at once: one extracts.
	exec {lockfd}> "$MMB_BUILD/.linux-source-$ver.lock"
	flock "$lockfd"
	if [ ! -e "$dir/.mmb-extracted" ] || [ "$tarball" -nt "$dir/.mmb-extracted" ]; then
		rm -rf "$dir"
		tar -C "$MMB_BUILD" -xf "$tarball"
		touch "$dir/.mmb-extracted"
	fi
	exec {lockfd}>&-
	echo "$dir"
}

# The UML tree: linux-source-6.12 with mmb linked in.
mmb_uml_tree() {
	local src

	src=$(mmb_kernel_source 6.12) || exit 1
	mkdir -p "$MMB_BUILD/uml" "$UML_OUT"
	# The normal and the debug kernel build side by side from one tree:
	# one rigs it. And one build at a time in each output directory.
	exec {lockfd}> "$MMB_BUILD/uml/.tree.lock"
	flock "$lockfd"
	"$MMB_ROOT/scripts/jury-rig" "$src" "$UML_TREE"
	exec {lockfd}>&-
	exec {UML_OUT_LOCK}> "$UML_OUT.lock"
	flock "$UML_OUT_LOCK"
}

# Kernel versions whose headers are installed (Debian amd64 flavour),
# e.g. "6.1.0-56-amd64 6.12.117+deb12-amd64", oldest first.
mmb_kernel_versions() {
	local d

	for d in /usr/src/linux-headers-*-amd64; do
		[ -d "$d" ] && echo "${d#/usr/src/linux-headers-}"
	done | sort -V
}

# The installed kernel version of a series, e.g. "6.1" -> 6.1.0-56-amd64.
mmb_kernel_version() {
	mmb_kernel_versions | grep -E "^${1//./\\.}[.-]" | tail -n 1
}

# UML keeps its guest's memory in a file in TMPDIR. mmb_hugemem puts it on a
# tmpfs of transparent huge pages, so that the guest kernel's memory (rules,
# tables, connections, skbs) is mapped in 2 MiB pages as a native kernel's
# direct map is, not in 4 KiB ones: a probe of a large table then costs a
# cache miss, not a page walk too. Sets HUGEMEM (the directory; /dev/shm
# where the tmpfs cannot be mounted) and HUGEMEM_WHAT; unmounted at exit.
mmb_hugemem() {
	HUGEMEM=$(mktemp -d)
	HUGEMEM_WHAT="4 KiB pages (/dev/shm)"
	if mount -t tmpfs -o huge=always,size=3G,mode=0700 mmb-mem "$HUGEMEM" 2> /dev/null; then
		HUGEMEM_WHAT="2 MiB pages (tmpfs huge=always)"
		trap 'umount "$HUGEMEM"; rmdir "$HUGEMEM"' EXIT
	else
		rmdir "$HUGEMEM"
		HUGEMEM=/dev/shm
	fi
}
