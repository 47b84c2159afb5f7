#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn kunit.py's JSON result into TAP lines, one per test case.

A skipped case is reported as such and never counted as passed. A run that
produced no result at all (build failure, crash before the suites) is one
failure, with the end of the log on stderr.
"""
import json
import sys


def cases(group, prefix=""):
    name = f"{prefix}{group['name']}." if group.get("name") else prefix
    for case in group.get("test_cases", []):
        yield f"{name}{case['name']}", case["status"]
    for sub in group.get("sub_groups", []):
        yield from cases(sub, name)


def main():
    json_path, log_path = sys.argv[1], sys.argv[2]
    try:
        with open(json_path) as f:
            result = json.load(f)
        # The root is kunit.py's own group; suites are its sub-groups.
        found = [c for sub in result.get("sub_groups", []) for c in cases(sub)]
    except (OSError, ValueError):
        found = []
    if not found:
        print("not ok 1 - kunit: no test results, see " + log_path)
        try:
            with open(log_path) as f:
                sys.stderr.write("".join(f.readlines()[-40:]))
        except OSError:
            pass
        return
    for n, (name, status) in enumerate(found, 1):
        if status == "PASS":
            print(f"ok {n} - kunit {name}")
        elif status == "SKIP":
            print(f"ok {n} - kunit {name} # SKIP")
        else:
            print(f"not ok {n} - kunit {name} ({status})")


if __name__ == "__main__":
    main()
