#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install what building and testing scry needs on Debian 12, if missing.
set -euo pipefail
pkgs=(make gcc g++ clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev
      libclang-rt-14-dev systemtap-sdt-dev util-linux procps valgrind
      python3 python3-jsonschema libxml2-utils
      scdoc groff-base strace golang-go libzstd-dev liblzma-dev libbz2-dev
      chromium libjemalloc2 libtcmalloc-minimal4 linux-perf bpftrace time)
# make vmtest: qemu, and busybox, cpio and xz for its initramfs
pkgs+=(qemu-system-x86 busybox-static cpio xz-utils)
# node and npm, for the browser test's playwright-core (pinned to 1.61,
# the last that runs on Debian 12's node 18): Debian's when there is none
command -v node >/dev/null || pkgs+=(nodejs)
command -v npm >/dev/null || pkgs+=(npm)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "scry: missing packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
		exit 1
	fi
	echo "installing: ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	# other installs may hold the dpkg lock: wait for them, do not fail
	apt-get -o DPkg::Lock::Timeout=600 update -qq
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
fi

# playwright-core at the version tests/browser/package.json pins, from the
# npm registry; it drives /usr/bin/chromium and downloads no browser
cd "$(dirname "$0")/browser"
want=$(sed -n 's/.*"playwright-core": "\(.*\)".*/\1/p' package.json)
have=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' \
	node_modules/playwright-core/package.json 2>/dev/null || true)
if [ "$have" != "$want" ]; then
	echo "installing: playwright-core $want (npm)" >&2
	npm install --no-package-lock --no-audit --no-fund --loglevel=error >/dev/null
fi
