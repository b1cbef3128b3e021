#!/usr/bin/env python3
"""Compare `mutiny run` with `cargo mutants` on the same crates: verdicts and wall time.

For each crate directory, the crate is copied to two fresh temporary
directories (without target/ or mutants.out*), so that neither tool sees the
other's output. `cargo mutants -j N --no-shuffle` runs in the first copy and
`mutiny run -j N` in the second, each timed by wall clock. Both write
mutants.out/outcomes.json; the verdicts ("CaughtMutant", "MissedMutant",
"Unviable", "Timeout", ...) are compared mutant by mutant, keyed by the
mutant's name. Printed per crate: the verdict counts of each tool, how many
mutants both tested and how many of those got the same verdict, every
disagreement, every mutant only one tool tested, and a summary line

    CRATE  cargo-mutants 123.4s  mutiny 12.2s  ratio 0.099x (mutiny/cargo-mutants)  verdicts agree N/M  missed identical yes (K)

with, before it, mutiny's paths (how many mutants went switched, how many
classic, in how many build rounds, how many were missed without a test run
because no test reaches them) and each tool's mutants per second.

A mutant that cargo-mutants timed out on and mutiny caught (a failing test
ran before the hanging one) is counted apart, not as a disagreement. The
exit status is 1 if any other verdict (including the baseline's) disagrees
or the missed mutants differ,
2 if a tool produced no outcomes.json, else 0. Mutants tested by only one
tool are listed but do not by themselves fail the comparison.

Usage:
    bench/compare_run.py [--jobs N] [--mutiny PATH] [--timeout SECS]
                         [--extra='ARGS'] [--keep] [--timeline FILE] CRATE_DIR...

    --jobs N        parallel jobs for both tools (default 2)
    --mutiny PATH   mutiny binary (default: target/release/mutiny in this
                    repository, else `mutiny` on PATH)
    --timeout SECS  test timeout passed to both tools
    --extra ARGS    more arguments passed to both tools, split like a shell
                    would; repeatable. Use `=` when ARGS begins with a dash:
                    --extra='-f src/parse.rs'
    --keep          keep the temporary copies (and the tools' logs) and print
                    where they are
    --timeline FILE append, per crate, both tools' timelines (mutants
                    finished over time, sampled from outcomes.json every
                    half second) as one JSON line; bench/plot.py draws them

Example:
    bench/compare_run.py --timeout 60 ~/.cargo/registry/src/*/semver-1.0.28

Only the given directory is copied, so a path dependency leading out of it
(`path = "../helper"`) does not resolve in the copies; crates unpacked from
crates.io are self-contained. The tools' output goes to log files in the
temporary directory (kept with --keep); CARGO_TARGET_DIR is unset for them.
Needs `cargo mutants` on PATH (`cargo install --locked cargo-mutants`).
"""

import argparse
import collections
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CM = "cargo-mutants"
MU = "mutiny"


def default_mutiny():
    built = os.path.join(REPO_ROOT, "target", "release", "mutiny")
    if os.path.exists(built):
        return built
    return shutil.which("mutiny") or built


def output_filter(top):
    """copytree filter: skip mutants.out*, top-level target/ and cargo target dirs below."""

    def ignore(directory, names):
        skipped = []
        for name in names:
            path = os.path.join(directory, name)
            if not os.path.isdir(path):
                continue
            if name.startswith("mutants.out"):
                skipped.append(name)
            elif name == "target" and (os.path.samefile(directory, top)
                                       or os.path.exists(os.path.join(path, "CACHEDIR.TAG"))
                                       or os.path.exists(os.path.join(path, ".rustc_info.json"))):
                skipped.append(name)
        return skipped

    return ignore


def copy_crate(crate, dest):
    shutil.copytree(crate, dest, ignore=output_filter(crate), symlinks=True)
    # Sources unpacked from the registry may be read-only; the tools must be
    # able to write mutants.out and their scratch copies.
    for root, dirs, files in os.walk(dest):
        for name in dirs + files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | stat.S_IWUSR)


def count_outcomes(directory):
    """How many mutant outcomes outcomes.json holds now (None if unreadable)."""
    try:
        with open(os.path.join(directory, "mutants.out", "outcomes.json")) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return sum(1 for o in data.get("outcomes", []) if isinstance(o.get("scenario"), dict))


def run_timed(argv, cwd, log_path):
    """Runs argv; returns (status, seconds, timeline): the timeline samples
    (seconds, mutants finished) from outcomes.json every half second."""
    env = dict(os.environ)
    # A shared target directory would let the two tools see each other's builds.
    env.pop("CARGO_TARGET_DIR", None)
    started = time.monotonic()
    timeline = [(0.0, 0)]
    with open(log_path, "w") as log:
        log.write("$ " + shlex.join(argv) + "\n")
        log.flush()
        child = subprocess.Popen(argv, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env)
        while child.poll() is None:
            time.sleep(0.5)
            count = count_outcomes(cwd)
            if count is not None and count != timeline[-1][1]:
                timeline.append((time.monotonic() - started, count))
        status = child.returncode
    elapsed = time.monotonic() - started
    count = count_outcomes(cwd)
    if count is not None:
        timeline.append((elapsed, count))
    return status, elapsed, timeline


def mutiny_paths(directory, log_path):
    """What mutiny's run says of its paths: (switched, classic, rounds,
    unreached), from its output and its mutant logs."""
    switched = classic = rounds = None
    with open(log_path) as f:
        for line in f:
            m = re.search(r"compile-once: (\d+) mutants switched into one build \((\d+) build rounds?\), (\d+) on the classic path", line)
            if m:
                switched, rounds, classic = int(m.group(1)), int(m.group(2)), int(m.group(3))
    unreached = 0
    log_dir = os.path.join(directory, "mutants.out", "log")
    for name in os.listdir(log_dir) if os.path.isdir(log_dir) else []:
        with open(os.path.join(log_dir, name), errors="replace") as f:
            # (Not those whose function the tests entered: they run.)
            if "it is missed, and no test ran" in f.read():
                unreached += 1
    return switched, classic, rounds, unreached


def load_outcomes(directory):
    """(baseline summary or None, {mutant name: summary}, duplicate names) from outcomes.json."""
    path = os.path.join(directory, "mutants.out", "outcomes.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        data = json.load(f)
    baseline = None
    verdicts = {}
    duplicates = 0
    global UNBUILT_UNVIABLE, OWN_STUBS
    for outcome in data.get("outcomes", []):
        scenario = outcome.get("scenario")
        summary = outcome.get("summary")
        if scenario == "Baseline":
            baseline = summary
        elif isinstance(scenario, dict) and "Mutant" in scenario:
            name = scenario["Mutant"]["name"]
            if name in verdicts:
                duplicates += 1
            verdicts[name] = summary
            if summary == "Unviable" and not outcome.get("phase_results"):
                UNBUILT_UNVIABLE.setdefault(directory, set()).add(name)
            if scenario["Mutant"].get("own"):
                OWN_STUBS.setdefault(directory, set()).add(name)
    return baseline, verdicts, duplicates


# Per mutants.out parent: the unviable mutants judged without a build.
UNBUILT_UNVIABLE = {}
# Per mutants.out parent: mutiny's own type-aware stubs (cargo-mutants has none).
OWN_STUBS = {}


def format_counts(baseline, verdicts):
    counts = collections.Counter(verdicts.values())
    parts = [f"{counts[k]} {k}" for k in sorted(counts)]
    return f"baseline {baseline}; {len(verdicts)} mutants: " + (", ".join(parts) or "none")


def compare_crate(crate, args, extra):
    crate = os.path.abspath(crate)
    name = os.path.basename(os.path.normpath(crate))
    tmp = tempfile.mkdtemp(prefix=f"compare-run-{name}-")
    dir_cm = os.path.join(tmp, CM, name)
    dir_mu = os.path.join(tmp, MU, name)
    copy_crate(crate, dir_cm)
    copy_crate(crate, dir_mu)
    timeout = ["--timeout", str(args.timeout)] if args.timeout is not None else []
    cm_argv = ["cargo", "mutants", "-j", str(args.jobs), "--no-shuffle", *timeout, *extra, "-d", dir_cm]
    mu_argv = [args.mutiny, "run", "-j", str(args.jobs), *timeout, *extra, "-d", dir_mu]
    cm_log = os.path.join(tmp, CM + ".log")
    mu_log = os.path.join(tmp, MU + ".log")

    print(f"{name}: running cargo-mutants ...", file=sys.stderr, flush=True)
    cm_status, cm_time, cm_timeline = run_timed(cm_argv, dir_cm, cm_log)
    print(f"{name}: running mutiny ...", file=sys.stderr, flush=True)
    mu_status, mu_time, mu_timeline = run_timed(mu_argv, dir_mu, mu_log)
    if args.timeline:
        record = {"crate": name, "jobs": args.jobs, "extra": extra,
                  CM: {"seconds": cm_time, "timeline": cm_timeline},
                  MU: {"seconds": mu_time, "timeline": mu_timeline}}
        with open(args.timeline, "a") as f:
            f.write(json.dumps(record) + "\n")

    result = 0
    cm = load_outcomes(dir_cm)
    mu = load_outcomes(dir_mu)
    print(f"{name}: cargo-mutants exit {cm_status} in {cm_time:.1f}s, mutiny exit {mu_status} in {mu_time:.1f}s")
    for tool, outcomes, log in ((CM, cm, cm_log), (MU, mu, mu_log)):
        if outcomes is None:
            print(f"  {tool} wrote no mutants.out/outcomes.json; see {log}"
                  + ("" if args.keep else " (rerun with --keep to look)"))
            with open(log) as f:
                tail = f.read().splitlines()[-10:]
            for line in tail:
                print(f"    | {line}")
            result = 2
    if result:
        finish(tmp, args.keep)
        return result

    cm_base, cm_verdicts, cm_dups = cm
    mu_base, mu_verdicts, mu_dups = mu
    print(f"  {CM}: {format_counts(cm_base, cm_verdicts)}"
          + (f" ({cm_dups} names tested twice)" if cm_dups else ""))
    print(f"  {MU}: {format_counts(mu_base, mu_verdicts)}"
          + (f" ({mu_dups} names tested twice)" if mu_dups else ""))
    if cm_base != mu_base:
        print(f"  baseline disagrees: {CM} {cm_base}, {MU} {mu_base}")
        result = 1

    both = [n for n in cm_verdicts if n in mu_verdicts]
    # Allowed: mutiny ran a failing test before a hanging one that
    # cargo-mutants waited for. Counted, not a disagreement.
    timeout_caught = [n for n in both
                      if cm_verdicts[n] == "Timeout" and mu_verdicts[n] == "CaughtMutant"]
    # Code this target never compiles: cargo-mutants can only miss its
    # mutants, mutiny does not test them. Counted apart; "caught" there
    # would mean mutiny's cfg evaluation is wrong.
    not_compiled = [n for n in both
                    if mu_verdicts[n] == "NotCompiled" and cm_verdicts[n] == "MissedMutant"]
    disagree = [n for n in both if cm_verdicts[n] != mu_verdicts[n]
                and n not in timeout_caught and n not in not_compiled]
    agree = len(both) - len(disagree) - len(timeout_caught) - len(not_compiled)
    only_cm = [n for n in cm_verdicts if n not in mu_verdicts]
    only_mu = [n for n in mu_verdicts if n not in cm_verdicts]
    print(f"  both tested {len(both)}; same verdict {agree}; "
          f"only {CM} {len(only_cm)}; only {MU} {len(only_mu)}")
    for n in disagree:
        print(f"  DISAGREE {n}: {CM} {cm_verdicts[n]}, {MU} {mu_verdicts[n]}")
    for n in timeout_caught:
        print(f"  timeout in {CM}, caught first by {MU}: {n}")
    if not_compiled:
        print(f"  not compiled for this target ({MU}), missed by {CM}: {len(not_compiled)}")
    for n in only_cm:
        print(f"  only {CM} ({cm_verdicts[n]}): {n}")
    own = OWN_STUBS.get(dir_mu, set())
    for n in only_mu:
        if n not in own:
            print(f"  only {MU} ({mu_verdicts[n]}): {n}")
    if own:
        own_count = lambda verdict: sum(1 for n in own if mu_verdicts.get(n) == verdict)
        viable = len(own) - own_count("Unviable")
        print(f"  {MU}'s own type-aware stubs: {len(own)}, viable {viable}, "
              f"missed {own_count('MissedMutant')}, caught {own_count('CaughtMutant')}")
    if disagree:
        result = 1
    missed_cm = {n for n in both if cm_verdicts[n] == "MissedMutant" and n not in not_compiled}
    missed_mu = {n for n in both if mu_verdicts[n] == "MissedMutant"}
    if missed_cm != missed_mu:
        result = 1

    switched, classic, rounds, unreached = mutiny_paths(dir_mu, mu_log)
    paths = (f"switched {switched}, classic {classic}, build rounds {rounds}"
             if switched is not None else "all classic")
    print(f"  {MU} paths: {paths}, unreached (missed without a test run) {unreached}")
    cm_unviable = sum(1 for v in cm_verdicts.values() if v == "Unviable")
    mu_unviable = sum(1 for v in mu_verdicts.values() if v == "Unviable")
    unbuilt = len(UNBUILT_UNVIABLE.get(dir_mu, ()))
    built = mu_unviable - unbuilt
    share = f"{100 * built / len(mu_verdicts):.1f}%" if mu_verdicts else "-"
    print(f"  unviable: {CM} {cm_unviable} (all built); {MU} {mu_unviable}, "
          f"{unbuilt} ruled out without a build, {built} built ({share} of all mutants)")
    rate = lambda count, secs: f"{count / secs:.2f}" if secs > 0 else "inf"
    print(f"  mutants/s: {CM} {rate(len(cm_verdicts), cm_time)}, {MU} {rate(len(mu_verdicts), mu_time)}")
    ratio = f"{mu_time / cm_time:.3f}x" if cm_time > 0 else "inf"
    print(f"{name}  cargo-mutants {cm_time:.1f}s  mutiny {mu_time:.1f}s  "
          f"ratio {ratio} (mutiny/cargo-mutants)  verdicts agree {agree}/{len(both)} "
          f"(+{len(timeout_caught)} timeout→caught, +{len(not_compiled)} not compiled)  "
          f"missed identical {'yes' if missed_cm == missed_mu else 'NO'} ({len(missed_mu)})")
    finish(tmp, args.keep)
    return result


def finish(tmp, keep):
    if keep:
        print(f"  kept copies and logs in {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="See the module docstring for details.")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="parallel jobs for both tools (default 2)")
    parser.add_argument("--mutiny", default=default_mutiny(),
                        help="mutiny binary (default: target/release/mutiny, else mutiny on PATH)")
    parser.add_argument("--timeout", type=float, help="test timeout in seconds, passed to both tools")
    parser.add_argument("--extra", action="append", default=[],
                        help="more arguments for both tools, shell-split; repeatable (--extra='-f src/x.rs')")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copies and logs")
    parser.add_argument("--timeline", metavar="FILE",
                        help="append each crate's timelines (mutants finished over time, both tools) as a JSON line")
    parser.add_argument("crates", nargs="+", help="crate (or workspace) directories")
    args = parser.parse_args()
    if args.timeout is not None and args.timeout == int(args.timeout):
        args.timeout = int(args.timeout)
    if not (os.path.exists(args.mutiny) or shutil.which(args.mutiny)):
        parser.error(f"mutiny binary not found: {args.mutiny}")
    if os.path.exists(args.mutiny):
        args.mutiny = os.path.abspath(args.mutiny)
    extra = [arg for chunk in args.extra for arg in shlex.split(chunk)]
    status = 0
    for crate in args.crates:
        if not os.path.isfile(os.path.join(crate, "Cargo.toml")):
            print(f"{crate}: no Cargo.toml, skipped", file=sys.stderr)
            status = max(status, 2)
            continue
        status = max(status, compare_crate(crate, args, extra))
    return status


if __name__ == "__main__":
    sys.exit(main())
