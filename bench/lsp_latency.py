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
same file (warm scratch trees, no baseline) is timed too. Last, on a third
fresh copy, `cargo mutants --file REL` with the same number of jobs — what a
user without mutiny would run after that save — is timed, and the ratio of
its time to each save's is printed with both tools' missed counts.

Usage:
    bench/lsp_latency.py [--mutiny PATH] [--file REL] [--jobs N] CRATE_DIR...

    --mutiny PATH  mutiny binary (default: target/release/mutiny, else PATH)
    --file REL     the file to save (default src/lib.rs)
    --jobs N       jobs for both tools (default: half the CPUs, mutiny's default)
    --no-cargo-mutants  skip the cargo-mutants comparison

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


def measure_save(client, uri, text, ends_before):
    """Saves, fires hover/codeLens requests until the run ends; returns the
    save-to-end seconds, the last diagnostic's delay and request latencies."""
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": text}},
    )
    saved = time.monotonic()
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    latencies = []
    in_flight = []

    def is_end(message):
        return (
            message.get("method") == "$/progress"
            and message["params"]["value"].get("kind") == "end"
        )

    while True:
        ends = [(when, m) for when, m in client.notifications if is_end(m)]
        if len(ends) > ends_before:
            break
        for method, params in (
            ("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}),
            ("textDocument/codeLens", {"textDocument": {"uri": uri}}),
        ):
            in_flight.append(client.request(method, params, wait=False))
        time.sleep(0.02)
    ended, end_message = ends[ends_before]
    for event, slot in in_flight:
        event.wait(10)
        if slot:
            latencies.append(slot[0][0])
    diagnostics_times = [
        when
        for when, m in client.notifications
        if m.get("method") == "textDocument/publishDiagnostics"
        and m["params"]["uri"] == uri
        and when >= saved
    ]
    last_diagnostic = max(diagnostics_times) - saved if diagnostics_times else float("nan")
    summary = end_message["params"]["value"].get("message", "")
    return ended - saved, last_diagnostic, latencies, summary


def cargo_mutants(crate, scratch, args, jobs):
    """Times `cargo mutants --file REL -j N` on a fresh copy; returns the
    seconds and its missed count."""
    copy = copy_crate(crate, scratch, "cargo-mutants")
    argv = ["cargo", "mutants", "--file", args.file, "-j", str(jobs), "--no-shuffle"]
    seconds, code = timed(argv, copy)
    outcomes = copy / "mutants.out" / "outcomes.json"
    missed = None
    if outcomes.exists():
        missed = json.loads(outcomes.read_text()).get("missed")
    return seconds, code, missed


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
        options = {"mutiny": {"jobs": jobs}}
        client.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": served.as_uri(),
                "capabilities": {"window": {"workDoneProgress": True}},
                "initializationOptions": options,
            },
        )
        client.notify("initialized", {})
        path = served / args.file
        uri = path.as_uri()
        text = path.read_text()
        saves = []
        for label, ends_before in (("first save (cold)", 0), ("second save (warm)", 1)):
            total, last, latencies, summary = measure_save(client, uri, text, ends_before)
            saves.append((label, total, summary))
            print(
                f"{name}: {label}: save to end {total:.1f}s, to last diagnostic {last:.1f}s "
                f"({summary}); ratio to warm cargo test {total / warm:.1f}x"
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
        seconds, code, missed = cargo_mutants(crate, scratch, args, jobs)
        print(
            f"{name}: cargo mutants --file {args.file} -j {jobs}: {seconds:.1f}s, "
            f"{missed} missed (exit {code})"
        )
        for label, total, summary in saves:
            print(
                f"{name}: {label}: cargo-mutants / mutiny = {seconds / total:.2f}x "
                f"(mutiny: {summary})"
            )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crates", nargs="+")
    parser.add_argument("--mutiny")
    parser.add_argument("--file", default="src/lib.rs")
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--no-cargo-mutants", action="store_true")
    args = parser.parse_args()
    mutiny = find_mutiny(args.mutiny)
    for crate in args.crates:
        bench(crate, args, mutiny)


if __name__ == "__main__":
    sys.exit(main())
