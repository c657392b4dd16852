#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Validate scry --json output against a JSON Schema.

usage: python3 tests/schema_check.py SCHEMA FILE...

Each FILE holds one JSON document per line (scry --json, with or without
--interval). Prints one line per document, "ok - FILE:LINE" or
"FAIL - FILE:LINE: why", and exits 1 if any document failed, 2 on a
usage error or when the jsonschema module (python3-jsonschema) is missing.

Stricter than json.loads alone, because scry's output must be: the bytes
must be UTF-8, NaN/Infinity are rejected, and so are duplicate member
names (which most parsers would silently collapse).
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("schema_check: no jsonschema module (Debian: python3-jsonschema)",
          file=sys.stderr)
    sys.exit(2)


def no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate member name {key!r}")
        seen[key] = value
    return seen


def no_constants(name):
    raise ValueError(f"{name} is not JSON")


def parse(raw):
    text = raw.decode("utf-8")
    return json.loads(text, object_pairs_hook=no_duplicates,
                      parse_constant=no_constants)


def where(err):
    path = "/".join(str(p) for p in err.absolute_path)
    return f"/{path}: {err.message}"


def check_file(validator, path):
    """Returns the number of failed documents in one file."""
    failed = 0
    docs = 0
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        docs += 1
        name = f"{path}:{n}"
        try:
            doc = parse(raw)
        except ValueError as e:     # UnicodeDecodeError is one too
            print(f"FAIL - {name}: not JSON: {e}")
            failed += 1
            continue
        errors = sorted(validator.iter_errors(doc),
                        key=lambda e: list(e.absolute_path))
        if errors:
            print(f"FAIL - {name}: {where(errors[0])}")
            failed += 1
        else:
            print(f"ok - {name}")
    if not docs:
        print(f"FAIL - {path}: no JSON document")
        failed += 1
    return failed


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    failed = 0
    for path in argv[2:]:
        try:
            failed += check_file(validator, path)
        except OSError as e:
            print(f"FAIL - {path}: {e.strerror}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
