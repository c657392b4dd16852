# SPDX-License-Identifier: GPL-2.0
# The SVG flame graph in a real browser: Debian's chromium, headless,
# driven by playwright-core from npm (both installed by make deps);
# tests/browser/flamegraph.mjs clicks, types and reads the page.
. "$(dirname "$0")/../lib.sh"

check "playwright-core is installed in tests/browser (make deps)" \
	test -f tests/browser/node_modules/playwright-core/package.json
check "chromium is installed (make deps)" test -x /usr/bin/chromium
make --no-print-directory -s "$BUILD/tests/svg_fixture" >"$TMP/make.out" 2>&1
check_status "the fixture flame graph builds" $? 0 "$TMP/make.out"
"$BUILD/tests/svg_fixture" >"$TMP/fixture.svg"
"$SCRY" profile -q -F 999 -o "$TMP/profile.svg" -c "$WL/cpu_wl 2" 2>"$TMP/p.err"
check_status "a real profile of cpu_wl as SVG" $? 0 "$TMP/p.err"
# chromium keeps its profile and caches under HOME
HOME=$TMP node tests/browser/flamegraph.mjs "$TMP/fixture.svg" "$TMP/profile.svg"
