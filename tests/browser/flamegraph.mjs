// SPDX-License-Identifier: GPL-2.0
// scry's SVG flame graph in Debian's chromium, driven by playwright-core:
// what flamegraph.pl users rely on (click to zoom, Reset Zoom, Ctrl-F and
// the Search button with "Matched: N%", Escape, flamegraph.pl's ?s= and
// ?x=&y= URL parameters, written back on click) and what the page shows
// after each action.
//
//   node flamegraph.mjs FIXTURE.svg PROFILE.svg
//
// FIXTURE.svg is build/tests/svg_fixture's (1000 samples, known widths:
// see tests/browser/svg_fixture.c); PROFILE.svg a real `scry profile` of
// cpu_wl, checked against the numbers in its own titles. Prints "ok - " /
// "FAIL - " lines like every scry test; exits non-zero on a failure.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const { chromium } = require("playwright-core");

const [fixture, profile] = process.argv.slice(2);
let failed = 0;

function check(what, ok, detail) {
	if (ok) {
		console.log(`ok - ${what}`);
	} else {
		console.log(`FAIL - ${what}${detail ? ": " + detail : ""}`);
		failed++;
	}
}

function eq(what, got, want) {
	const g = JSON.stringify(got), w = JSON.stringify(want);
	check(what, g === w, `got ${g}, want ${w}`);
}

// What the page shows: per frame name its rect, label, class and whether
// it is displayed; the Matched and details lines; the URL's query.
async function view(page) {
	return page.evaluate(() => {
		const frames = {}, list = [];
		for (const g of document.querySelectorAll("#frames > g")) {
			const title = g.querySelector("title").textContent;
			const name = title.substring(0, title.lastIndexOf(" ("));
			const rect = g.querySelector("rect");
			frames[name] = {
				x: rect.getAttribute("x"),
				w: rect.getAttribute("width"),
				label: g.querySelector("text").textContent,
				cls: g.getAttribute("class"),
				shown: getComputedStyle(g).display !== "none",
				fill: rect.getAttribute("fill"),
				title,
			};
			list.push(frames[name]);
		}
		return {
			frames,
			list,
			matched: document.getElementById("matched").textContent,
			details: document.getElementById("details").textContent,
			query: window.location.search,
		};
	});
}

// The screen point at the middle of a frame's rect, as a user clicks it.
async function centre(page, name) {
	return page.evaluate((name) => {
		for (const g of document.querySelectorAll("#frames > g")) {
			const t = g.querySelector("title").textContent;
			if (t.substring(0, t.lastIndexOf(" (")) !== name)
				continue;
			const r = g.querySelector("rect").getBoundingClientRect();
			return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
		}
		return null;
	}, name);
}

async function clickFrame(page, name) {
	const c = await centre(page, name);
	await page.mouse.click(c.x, c.y);
}

async function clickButton(page, id) {
	const r = await page.evaluate((id) => {
		const b = document.getElementById(id).getBoundingClientRect();
		return { x: b.left + b.width / 2, y: b.top + b.height / 2 };
	}, id);
	await page.mouse.click(r.x, r.y);
}

// Answer the next prompt() with @text: Ctrl-F and Search ask through it.
function answerPrompt(page, text) {
	page.once("dialog", (d) => d.accept(text));
}

const MAGENTA = "rgb(230,0,230)";
const url = (file, query) => pathToFileURL(file).href + (query || "");

const browser = await chromium.launch({
	executablePath: "/usr/bin/chromium",
	// as root, in a closed network (/work/.library/env/machines/c.md)
	args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	       "--disable-background-networking", "--disable-component-update",
	       "--disable-sync"],
});
try {
	const page = await browser.newPage({ viewport: { width: 1300, height: 400 } });
	const errors = [];
	page.on("pageerror", (e) => errors.push(e.message));

	// ---- loaded: all frames at their drawn places ----
	await page.goto(url(fixture));
	let v = await view(page);
	eq("load: 9 frames", Object.keys(v.frames).length, 9);
	eq("load: all spans the width", [v.frames.all.x, v.frames.all.w], ["10.0", "1180.0"]);
	eq("load: hot_a is 60% of it", [v.frames.hot_a.x, v.frames.hot_a.w], ["10.0", "708.0"]);
	eq("load: every frame shown, no Matched line", [Object.values(v.frames).every((f) => f.shown), v.matched], [true, " "]);
	eq("load: the XML-escaped name reads x<&>", v.frames["x<&>"].title, "x<&> (50 samples, 5.00%)");

	// ---- hover: the details line ----
	const hc = await centre(page, "hot_a");
	await page.mouse.move(hc.x, hc.y);
	eq("hover hot_a: details line", (await view(page)).details, "hot_a (600 samples, 60.00%)");

	// ---- click: zoom, URL written back ----
	await clickFrame(page, "hot_a");
	v = await view(page);
	eq("click hot_a: it spans the width", [v.frames.hot_a.x, v.frames.hot_a.w], ["10.0", "1180.0"]);
	eq("click hot_a: ancestors span it, dimmed",
	   ["a", "main", "app", "all"].map((n) => [v.frames[n].w, v.frames[n].cls]),
	   Array(4).fill(["1180.0", "f parent"]));
	eq("click hot_a: the others are hidden",
	   ["hot_b", "b", "other", "x<&>"].map((n) => v.frames[n].shown), [false, false, false, false]);
	eq("click hot_a: URL gets ?x=&y= (history.replaceState)", v.query, "?x=10.0&y=60");

	// ---- Reset Zoom ----
	await clickButton(page, "unzoom");
	v = await view(page);
	eq("Reset Zoom: hot_a back at its place", [v.frames.hot_a.x, v.frames.hot_a.w], ["10.0", "708.0"]);
	eq("Reset Zoom: nothing hidden or dimmed",
	   Object.values(v.frames).filter((f) => !f.shown || f.cls !== "f").length, 0);
	eq("Reset Zoom: x and y leave the URL", v.query, "");

	// ---- zoom into a: its children scale ----
	await clickFrame(page, "a");
	v = await view(page);
	eq("click a: hot_a takes 600/800 of the width",
	   [v.frames.hot_a.x, v.frames.hot_a.w, v.frames.hot_b.x, v.frames.hot_b.w],
	   ["10.0", "885.0", "895.0", "295.0"]);
	eq("click a: labels refit (hot_a readable)", v.frames.hot_a.label, "hot_a");
	eq("click a: b is hidden", v.frames.b.shown, false);

	// ---- Ctrl-F: search, Matched line, highlights, URL ----
	answerPrompt(page, "hot");
	await page.keyboard.press("Control+f");
	v = await view(page);
	eq("Ctrl-F hot: Matched: 80.0%", v.matched, "Matched: 80.0%");
	eq("Ctrl-F hot: hot_a and hot_b highlighted, a not",
	   [v.frames.hot_a.fill, v.frames.hot_b.fill, v.frames.a.fill === MAGENTA],
	   [MAGENTA, MAGENTA, false]);
	eq("Ctrl-F hot: URL keeps the zoom and gets s", v.query, "?x=10.0&y=76&s=hot");

	// ---- Escape clears the search ----
	await page.keyboard.press("Escape");
	v = await view(page);
	eq("Escape: no Matched line, colours back",
	   [v.matched, v.frames.hot_a.fill === MAGENTA], [" ", false]);
	eq("Escape: s leaves the URL", v.query, "?x=10.0&y=76");

	// ---- the Search button; nested matches count once ----
	answerPrompt(page, "app|main");
	await clickButton(page, "search");
	eq("Search app|main: main inside app counts once: 95.0%", (await view(page)).matched, "Matched: 95.0%");
	answerPrompt(page, "x<");
	await clickButton(page, "search");
	eq("Search x<: 5.0%", (await view(page)).matched, "Matched: 5.0%");
	answerPrompt(page, "(");
	await clickButton(page, "search");
	v = await view(page);
	check("Search (: a bad regex is said, the last search stays",
	      v.details.startsWith("bad regular expression:") && v.matched === "Matched: 5.0%",
	      JSON.stringify([v.details, v.matched]));

	// ---- flamegraph.pl's URL parameters on load ----
	await page.goto(url(fixture, "?s=hot_b"));
	v = await view(page);
	eq("?s=hot_b on load: Matched: 20.0%, hot_b highlighted",
	   [v.matched, v.frames.hot_b.fill], ["Matched: 20.0%", MAGENTA]);
	await page.goto(url(fixture, "?x=954.0&y=76"));
	v = await view(page);
	eq("?x=954.0&y=76 on load: zoomed to b",
	   [v.frames.b.x, v.frames.b.w, v.frames.main.cls, v.frames.a.shown],
	   ["10.0", "1180.0", "f parent", false]);
	await page.goto(url(fixture, "?x=954&y=76"));
	eq("?x=954&y=76 (no decimals, as flamegraph.pl writes them): zoomed to b",
	   (await view(page)).frames.b.w, "1180.0");
	await page.goto(url(fixture, "?s=hot&x=10.0&y=76"));
	v = await view(page);
	eq("?s=hot&x=10.0&y=76: zoomed to a and searched",
	   [v.frames.a.w, v.frames.b.shown, v.matched], ["1180.0", false, "Matched: 80.0%"]);
	eq("no script error on any page", errors, []);

	// ---- a real profile: Matched agrees with the file's own numbers ----
	await page.goto(url(profile, "?s=%5Ehot_a%24"));
	v = await view(page);
	const samples = (n) => v.list
		.filter((f) => f.title.startsWith(n + " ("))
		.reduce((s, f) => s + parseInt(f.title.split("(")[1], 10), 0);
	const total = samples("all"), a = samples("hot_a"), b = samples("hot_b");
	eq("profile ?s=^hot_a$: Matched is hot_a's share of all samples, from the titles",
	   v.matched, `Matched: ${(100 * a / total).toFixed(1)}%`);
	check(`profile: hot_a burns about 3x hot_b (${a} vs ${b} samples)`,
	      b > 0 && a / b > 2.3 && a / b < 4, `ratio ${a / b}`);
	await clickFrame(page, "hot_a");
	v = await view(page);
	check("profile: click hot_a zooms to it",
	      v.list.some((f) => f.title.startsWith("hot_a (") && f.w === "1180.0" && f.shown));
	check("profile: the URL says where", /^\?s=%5Ehot_a%24&x=[0-9.]+&y=[0-9]+$/.test(v.query), v.query);
} finally {
	await browser.close();
}
process.exit(failed ? 1 : 0);
