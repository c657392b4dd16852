#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The demo: ask "why is this program going off CPU?" of a bundled program
# that sleeps 10 ms x 20 in sleep_short() and 50 ms x 4 in sleep_long().
set -euo pipefail
cd "$(dirname "$0")/.."
wl="build/workloads/offcpu_wl 20 4"
echo "\$ scry offcpu -c '$wl'"
./scry offcpu -c "$wl"
echo
echo "\$ scry offcpu --folded -c '$wl'     # for flamegraph.pl"
./scry offcpu -q --folded -c "$wl"
echo
echo "\$ scry profile -F 999 -o build/demo-cpu.svg -c 'build/workloads/cpu_wl 2'"
./scry profile -q -F 999 -o build/demo-cpu.svg -c "build/workloads/cpu_wl 2"
echo "wrote build/demo-cpu.svg: a CPU flame graph (open it in a browser)"
