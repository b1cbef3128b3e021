#!/usr/bin/env python3
"""How long `mutiny lsp` takes from a save to the last diagnostic, next to a
plain `cargo test` of the same crate, and how fast it answers requests while
a run is in flight.

For each crate directory: copy it (without target/ and mutants.out*), time
`cargo test` there twice (cold: build and test; warm: test again with
nothing to rebuild), then start `mutiny lsp` on a second fresh copy, save the
given file (default src/lib.rs) and time the save until the run's
`$/progress` end, while sending `textDocument/hover` and
`textDocument/codeLens` requests every 20 ms and recording each answer's
latency. Prints the figures and the latency percentiles; a second save of the
same file (warm scratch trees) is timed too, and with --edit a third, after
editing one function. Each save is timed to the end of its first run (the
mutants the user waits for) and of all its runs (with re-validation of
earlier results). Last, on fresh copies, `cargo mutants --file REL` (and
`--re FUNCTION`) with the same number of jobs — what a user without mutiny
would run after that save — is timed, and mutiny's time as a fraction of
it is printed with both tools' missed counts.

Usage:
    bench/lsp_latency.py [--mutiny PATH] [--file REL] [--jobs N] [--edit FUNCTION] CRATE_DIR...

    --mutiny PATH  mutiny binary (default: target/release/mutiny, else PATH)
    --file REL     the file to save (default src/lib.rs)
    --jobs N       jobs for both tools (default: half the CPUs, mutiny's default)
    --scope S      the server's `scope` setting: changedFunctions (default, as the server) or file
    --edit FUNCTION  a third save after editing FUNCTION, compared with
                   `cargo mutants --file REL --re FUNCTION`
    --no-cargo-mutants  skip the cargo-mutants comparison
    --save-at-once the first save right after the server starts; by default
                   it waits for the server's background warm-up (the tests
                   built in its scratch copy, as it does when an editor
                   opens) and prints how long that took

Example:
    bench/lsp_latency.py tests/fixtures/example
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def find_mutiny(given):
    if given:
        return given
    built = REPO / "target" / "release" / "mutiny"
    return str(built) if built.exists() else "mutiny"


def copy_crate(source, parent, name):
    target = Path(parent) / name
    shutil.copytree(
        source,
        target,
        ignore=shutil.ignore_patterns("target", "mutants.out", "mutants.out.old"),
    )
    for dirpath, _, filenames in os.walk(target):
        os.chmod(dirpath, 0o755)
        for filename in filenames:
            os.chmod(os.path.join(dirpath, filename), 0o644)
    return target


def timed(argv, cwd):
    start = time.monotonic()
    result = subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - start, result.returncode


class Client:
    """A minimal LSP client over the server's stdin/stdout."""

    def __init__(self, argv, env):
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        self.lock = threading.Lock()
        self.next_id = 1
        self.pending = {}  # id -> (send time, event, slot)
        self.notifications = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _send(self, message):
        body = json.dumps(message).encode()
        with self.lock:
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.process.stdin.flush()

    def _read(self):
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(stream.read(length))
            now = time.monotonic()
            if "id" in message and "method" in message:
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif "id" in message:
                entry = self.pending.pop(message["id"], None)
                if entry:
                    entry[2].append((now - entry[0], message))
                    entry[1].set()
            else:
                with self.changed:
                    self.notifications.append((now, message))
                    self.changed.notify_all()

    def request(self, method, params, wait=True):
        with self.lock:
            request_id = self.next_id
            self.next_id += 1
        event, slot = threading.Event(), []
        self.pending[request_id] = (time.monotonic(), event, slot)
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        if wait:
            event.wait(60)
            return slot[0]
        return event, slot

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_for(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for when, message in self.notifications:
                    if predicate(message):
                        return when
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no matching notification")
                self.changed.wait(left)


def percentile(values, fraction):
    ordered = sorted(values)
    index = min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))
    return ordered[index]


def progress_counts(client, since=0):
    """How many `$/progress` begins and ends arrived after index `since`."""
    kinds = [
        m["params"]["value"].get("kind")
        for _, m in client.notifications[since:]
        if m.get("method") == "$/progress"
    ]
    return kinds.count("begin"), kinds.count("end")


def measure_save(client, uri, path, text):
    """Writes `text` to `path`, saves, fires hover/codeLens requests until
    every run the save started has ended; returns the seconds to the end of
    the save's first run (what the user waits for), to the end of all its
    runs, to its last diagnostic, the request latencies and the first run's
    summary."""
    path.write_text(text)
    since = len(client.notifications)
    saved = time.monotonic()
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    latencies = []
    in_flight = []
    first_end = None
    quiet_since = None
    while True:
        begins, ends = progress_counts(client, since)
        if ends >= 1 and first_end is None:
            first_end = next(
                (when, m)
                for when, m in client.notifications[since:]
                if m.get("method") == "$/progress" and m["params"]["value"].get("kind") == "end"
            )
        # All runs of this save ended, and no new one began for a moment.
        if ends >= 1 and begins == ends:
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > 1.0:
                break
        else:
            quiet_since = None
        for method, params in (
            ("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
            ("textDocument/codeLens", {"textDocument": {"uri": uri}}),
        ):
            in_flight.append(client.request(method, params, wait=False))
        time.sleep(0.02)
    last_end = max(
        when
        for when, m in client.notifications[since:]
        if m.get("method") == "$/progress" and m["params"]["value"].get("kind") == "end"
    )
    for event, slot in in_flight:
        event.wait(10)
        if slot:
            latencies.append(slot[0][0])
    diagnostics_times = [
        when
        for when, m in client.notifications[since:]
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
    ]
    last_diagnostic = max(diagnostics_times) - saved if diagnostics_times else float("nan")
    ended, end_message = first_end
    summary = end_message["params"]["value"].get("message", "")
    return ended - saved, last_end - saved, last_diagnostic, latencies, summary


def edited(text, function):
    """The text with a comment added at the end of the line that opens
    `function`'s body: the function's text changes, no line moves."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if f"fn {function}(" in line or f"fn {function}<" in line:
            for body in range(index, len(lines)):
                if lines[body].rstrip().endswith("{"):
                    lines[body] += " // edited"
                    return "\n".join(lines)
    raise SystemExit(f"no function {function} in the file")


def cargo_mutants(crate, scratch, args, jobs, function=None):
    """Times `cargo mutants --file REL -j N` (only `function`'s mutants,
    when given) on a fresh copy; returns the seconds, exit code, missed
    count and the number of mutants tested."""
    copy = copy_crate(crate, scratch, f"cargo-mutants-{function or 'file'}")
    argv = ["cargo", "mutants", "--file", args.file, "-j", str(jobs), "--no-shuffle"]
    if function:
        argv += ["--re", rf"(\b| in ){function}( |$)"]
    seconds, code = timed(argv, copy)
    outcomes = copy / "mutants.out" / "outcomes.json"
    missed = tested = None
    if outcomes.exists():
        data = json.loads(outcomes.read_text())
        missed = data.get("missed")
        tested = data.get("total_mutants")
    return seconds, code, missed, tested


def bench(crate, args, mutiny):
    name = Path(crate).name
    with tempfile.TemporaryDirectory(prefix=f"lsp-bench-{name}-") as scratch:
        plain = copy_crate(crate, scratch, "plain")
        cold, code = timed(["cargo", "test", "-q"], plain)
        warm, _ = timed(["cargo", "test", "-q"], plain)
        print(f"{name}: cargo test cold {cold:.1f}s, warm {warm:.1f}s (exit {code})")

        served = copy_crate(crate, scratch, "served")
        env = dict(os.environ)
        env["TMPDIR"] = scratch
        client = Client([mutiny, "lsp"], env)
        jobs = args.jobs or max(1, (os.cpu_count() or 2) // 2)
        options = {"mutiny": {"jobs": jobs, "scope": args.scope}}
        client.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": served.as_uri(),
                "capabilities": {"window": {"workDoneProgress": True}},
                "initializationOptions": options,
            },
        )
        started = time.monotonic()
        client.notify("initialized", {})
        if not args.save_at_once:
            # The server builds the tests in the background as soon as it
            # starts (as an editor opens); the user saves some time later.
            warmed = client.wait_for(
                lambda m: m.get("method") == "window/logMessage"
                and "warmed up" in m["params"].get("message", ""),
                600,
            )
            print(f"{name}: warm-up in the background from the server's start: {warmed - started:.1f}s")
        path = served / args.file
        uri = path.as_uri()
        text = path.read_text()
        client.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": text}},
        )
        first_label = "first save (cold)" if args.save_at_once else "first save (after the warm-up)"
        steps = [(first_label, text), ("second save (warm, unchanged)", text)]
        if args.edit:
            steps.append((f"save after editing {args.edit}", edited(text, args.edit)))
        saves = []
        for label, saved_text in steps:
            first, total, last, latencies, summary = measure_save(client, uri, path, saved_text)
            saves.append((label, first, summary))
            print(
                f"{name}: {label}: save to end of its first run {first:.1f}s ({summary}), "
                f"of all its runs {total:.1f}s, to last diagnostic {last:.1f}s"
            )
            if latencies:
                ms = [1000 * l for l in latencies]
                print(
                    f"{name}:   {len(ms)} hover/codeLens requests during the run: "
                    f"p50 {percentile(ms, 0.5):.1f} ms, p95 {percentile(ms, 0.95):.1f} ms, "
                    f"p99 {percentile(ms, 0.99):.1f} ms, max {max(ms):.1f} ms"
                )
        client.request("shutdown", None)
        client.notify("exit", None)
        client.process.wait(30)
        if args.no_cargo_mutants:
            return
        seconds, code, missed, tested = cargo_mutants(crate, scratch, args, jobs)
        print(
            f"{name}: cargo mutants --file {args.file} -j {jobs}: {seconds:.1f}s, "
            f"{tested} mutants, {missed} missed (exit {code})"
        )
        label, first, summary = saves[0]
        print(f"{name}: {label}: mutiny / cargo-mutants = {first / seconds:.3f}x (mutiny: {summary})")
        if args.edit:
            seconds, code, missed, tested = cargo_mutants(crate, scratch, args, jobs, args.edit)
            print(
                f"{name}: cargo mutants --file {args.file} --re {args.edit} -j {jobs}: "
                f"{seconds:.1f}s, {tested} mutants, {missed} missed (exit {code})"
            )
            label, first, summary = saves[-1]
            print(f"{name}: {label}: mutiny / cargo-mutants = {first / seconds:.3f}x (mutiny: {summary})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crates", nargs="+")
    parser.add_argument("--mutiny")
    parser.add_argument("--file", default="src/lib.rs")
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--no-cargo-mutants", action="store_true")
    parser.add_argument("--save-at-once", action="store_true",
                        help="save as soon as the server starts, not after its background warm-up")
    parser.add_argument("--scope", default="changedFunctions", choices=["file", "changedFunctions"],
                        help="the server's scope setting (default changedFunctions, the server's own)")
    parser.add_argument("--edit", metavar="FUNCTION",
                        help="third save: after editing FUNCTION (a comment at the end of its opening line)")
    args = parser.parse_args()
    mutiny = find_mutiny(args.mutiny)
    for crate in args.crates:
        bench(crate, args, mutiny)


if __name__ == "__main__":
    sys.exit(main())
