#!/usr/bin/env python3
"""Compare `mutiny list` with `cargo mutants --list` on the same crates.

For each crate directory: which of cargo-mutants' mutants mutiny also lists
(matched on file, line, genre and replacement), which it does not, and the
wall time of both listings (median of several runs) with their ratio.

Usage: bench/compare_list.py [--runs N] [--mutiny PATH] CRATE_DIR...
Needs `cargo mutants` on PATH (`cargo install --locked cargo-mutants`).
"""

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import time


def run_json(argv):
    started = time.monotonic()
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    return json.loads(out), time.monotonic() - started


def timed(argv, runs):
    times = []
    for _ in range(runs):
        started = time.monotonic()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.monotonic() - started)
    return statistics.median(times)


def key(mutant):
    return (mutant["file"], mutant["span"]["start"]["line"], mutant["genre"], mutant["replacement"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--mutiny", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "mutiny"))
    parser.add_argument("--show", type=int, default=10, help="unmatched mutants to print per crate")
    parser.add_argument("crates", nargs="+")
    args = parser.parse_args()
    total_theirs = total_matched = 0
    for crate in args.crates:
        cm_argv = ["cargo", "mutants", "--list", "--json", "-d", crate]
        mu_argv = [args.mutiny, "list", "--json", "-d", crate]
        listed, _ = run_json(cm_argv)
        # cargo-mutants lists a file twice when two `mod` declarations name it
        # (e.g. under different cfgs); count each mutant once.
        theirs, seen = [], set()
        for mutant in listed:
            if mutant["name"] not in seen:
                seen.add(mutant["name"])
                theirs.append(mutant)
        duplicates = len(listed) - len(theirs)
        ours, _ = run_json(mu_argv)
        our_keys = collections.Counter(key(m) for m in ours)
        unmatched = []
        matched = 0
        for mutant in theirs:
            k = key(mutant)
            if our_keys[k] > 0:
                our_keys[k] -= 1
                matched += 1
            else:
                unmatched.append(mutant["name"])
        extra = sum(our_keys.values())
        our_names = set(m["name"] for m in ours)
        same_names = sum(1 for m in theirs if m["name"] in our_names)
        cm_time = timed(cm_argv, args.runs)
        mu_time = timed(mu_argv, args.runs)
        total_theirs += len(theirs)
        total_matched += matched
        name = os.path.basename(os.path.normpath(crate))
        pct = 100.0 * matched / len(theirs) if theirs else 100.0
        print(f"{name}: cargo-mutants {len(theirs)} mutants ({duplicates} listed twice), mutiny {len(ours)}; "
              f"mutiny lists {matched}/{len(theirs)} of cargo-mutants' ({pct:.1f}%), {extra} more of its own; "
              f"{same_names} identical names")
        print(f"{name}: list time cargo-mutants {cm_time:.3f}s, mutiny {mu_time:.3f}s, "
              f"ratio cargo-mutants/mutiny {cm_time / mu_time:.2f}x (median of {args.runs})")
        for missing in unmatched[: args.show]:
            print(f"  only cargo-mutants: {missing}")
        if extra:
            ours_only = [m["name"] for m in ours if our_keys[key(m)] > 0]
            for name_ in ours_only[: args.show]:
                print(f"  only mutiny: {name_}")
    if total_theirs:
        print(f"total: mutiny lists {total_matched}/{total_theirs} "
              f"({100.0 * total_matched / total_theirs:.2f}%) of cargo-mutants' mutants")


if __name__ == "__main__":
    sys.exit(main())
