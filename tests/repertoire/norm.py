#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Maps as comparable lines, from scry --json or bpftrace -f json output.

    norm.py scry|bpftrace FILE [MAP...]

One line per value, sorted: "@map[k1,k2] value" for counts, sums and
variables; "@map[k1] >=LOW count" per histogram bucket. Stack keys become
"<stack>" (the tools name frames differently; their counts compare).
Lines of FILE that are not JSON (a workload's own output) are skipped.
With MAP arguments, only those maps.
"""
import json
import sys


def key_text(parts):
    return "[" + ",".join(str(p) for p in parts) + "]"


def scry(lines):
    out = []
    doc = None
    for line in lines:
        if line.startswith('{"version"'):
            doc = json.loads(line)
    if doc is None:
        return out
    maps = [{"name": doc["map"], "aggregation": doc["aggregation"],
             "rows": doc["rows"]}] + doc["maps"]
    for m in maps:
        for row in m["rows"]:
            parts = []
            for name, v in row["keys"].items():
                if name.endswith("_truncated") or name.endswith("_lost"):
                    continue
                parts.append("<stack>" if isinstance(v, list) else v)
            k = m["name"] + (key_text(parts) if parts else "")
            if "buckets" in row:
                for b in row["buckets"]:
                    low = "<0" if b["low"] is None else b["low"]
                    out.append(f"{k} >={low} {b['count']}")
            else:
                out.append(f"{k} {row.get('string', row['value'])}")
    return out


def bpftrace(lines):
    out = []
    for line in lines:
        if not line.startswith("{"):
            continue
        d = json.loads(line)
        if d.get("type") not in ("map", "hist", "stats"):
            continue
        for name, v in d["data"].items():
            if d["type"] == "hist":
                items = v.items() if isinstance(v, dict) else [(None, v)]
                for key, buckets in items:
                    k = name + (key_text(key.split(",")) if key else "")
                    for b in buckets:
                        if not b["count"]:
                            continue
                        low = b.get("min", "<0")
                        out.append(f"{k} >={low} {b['count']}")
            elif isinstance(v, dict):
                for key, val in v.items():
                    parts = ["<stack>" if "\n" in p else p
                             for p in key.split(",")]
                    out.append(f"{name}{key_text(parts)} {val}")
            else:
                out.append(f"{name} {v}")
    return out


def main():
    tool, path = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3:])
    with open(path, errors="replace") as f:
        lines = f.read().splitlines()
    got = scry(lines) if tool == "scry" else bpftrace(lines)
    for line in sorted(got):
        name = line.split("[")[0].split(" ")[0]
        if not only or name in only:
            print(line)


if __name__ == "__main__":
    main()
