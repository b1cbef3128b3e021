#!/usr/bin/env python3
"""`mutiny lsp` through many save/edit cycles: does it leak memory, file
descriptors, threads, scratch trees or processes, and do its answers stay
fast?

Starts the real `mutiny lsp` with a TMPDIR of its own on a fresh copy of a
fixture crate, waits for its background warm-up, opens the file (default
src/lib.rs) and runs N cycles. Each cycle edits the file with valid Rust
that alternates between two kinds of change at the end of the file: odd
cycles give a probe function `soak_probe` a new constant (its text changes,
so its mutants are new and tested), even cycles change only a comment line
(no function changes; the earlier verdicts are re-tested). Each cycle sends
`textDocument/didChange`, writes the file and sends `textDocument/didSave`,
then sends hover, codeLens and codeAction requests in turn every 20 ms
(at the position of a missed-mutant diagnostic when there is one) and
records each answer's latency. Every k-th cycle (--wait-every) waits until
the runs the save started have ended and none began for 2 s; the others
last a random 20-600 ms, so the next save often cancels a run in flight.

After cycle 1, every --sample-every cycles and the last, the script waits
until the server is idle and samples /proc/PID: VmRSS, open file
descriptors, threads; the directories in its TMPDIR (scratch trees and the
log directory) and the processes started there. At the end it shuts the
server down and checks it exits and leaves its TMPDIR empty.

Criteria (exit 1 if one fails):
  - memory: RSS after the last cycle within 20% of after --reference cycle;
  - fds, threads, scratch trees: no sample after the reference exceeds it by
    more than a tolerance (see TOLERANCE);
  - no process is left running in the TMPDIR at any idle sample;
  - p99 latency of every request kind under 20 ms (--p99-limit), overall
    and in every 50-cycle window (the worst window bounds the overall);
  - the server survives every cycle, exits after shutdown/exit with status
    0, and leaves its TMPDIR empty.

Usage:
    bench/lsp_soak.py [--cycles N] [--fixture DIR] [--file REL] [--mutiny PATH]
                      [--json FILE] [--wait-every K] [--sample-every N]
                      [--reference CYCLE] [--p99-limit MS] [--seed S]

    --cycles N       save/edit cycles (default 500)
    --fixture DIR    the crate to copy (default tests/fixtures/example)
    --mutiny PATH    the binary (default target/release/mutiny, else
                     target/debug/mutiny)
    --json FILE      the samples, latencies and verdicts as JSON
    --reference C    the sample the last is compared with (default 50)

tests/soak.rs runs it for 60 cycles (--sample-every 10 --reference 20).

Example (the figures in docs/benchmarks.md):
    bench/lsp_soak.py --cycles 500 --json soak.json
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# How much a count may exceed its reference sample before it is called
# growth. Samples are taken at idle (every run ended 2 s before):
# - fds: idle, the server holds stdin, stdout, stderr, the inotify watcher
#   and tokio's epoll and eventfd; a run adds a log file, pidfds and pipes,
#   all closed when it ends. 2 spare for one caught closing; a leak per run
#   would add hundreds over 500 cycles.
# - threads: tokio's blocking pool (stdin and stdout go through it) starts
#   threads on demand and ends them after 10 s idle, so its count at a
#   sample depends on the last few seconds' requests; 6 spare for that
#   pool. The worker, the model's and rust-analyzer's threads are fixed.
# - scratch trees: the server keeps its warm trees for the next save; any
#   extra one at idle is a tree nobody deletes.
TOLERANCE = {"fds": 2, "threads": 6, "scratch": 0}
MEMORY_GROWTH = 0.20
P99_LIMIT_MS = 20.0
WINDOW = 50
# How long no run must be in flight before the server is called idle: a
# save's second run (earlier verdicts re-tested) begins well within it.
QUIET = 2.0
KINDS = ("hover", "codeLens", "codeAction")


def find_mutiny(given):
    if given:
        return given
    for profile in ("release", "debug"):
        built = REPO / "target" / profile / "mutiny"
        if built.exists():
            return str(built)
    return "mutiny"


def copy_crate(source, parent):
    target = Path(parent) / Path(source).resolve().name
    shutil.copytree(
        source, target, ignore=shutil.ignore_patterns("target", "mutants.out", "mutants.out.old")
    )
    for dirpath, _, filenames in os.walk(target):
        os.chmod(dirpath, 0o755)
        for filename in filenames:
            os.chmod(os.path.join(dirpath, filename), 0o644)
    return target


class ServerGone(Exception):
    pass


class Client:
    """A minimal LSP client over the server's stdin/stdout."""

    def __init__(self, argv, env, stderr):
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env
        )
        self.lock = threading.Lock()
        self.next_id = 1
        self.pending = {}  # id -> (send time, event, slot)
        self.notifications = []  # (arrival time, message), but for the next two
        self.progress = []  # (token, "begin" or "end", message) of `$/progress`
        self.diagnostics = {}  # URI -> the latest diagnostics published
        self.changed = threading.Condition()
        self.closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _send(self, message):
        body = json.dumps(message).encode()
        try:
            with self.lock:
                self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self.process.stdin.flush()
        except (BrokenPipeError, ValueError) as err:
            raise ServerGone(f"cannot write to the server: {err}") from err

    def _read(self):
        stream = self.process.stdout
        try:
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
                    self._notified(now, message)
        finally:
            with self.changed:
                self.closed = True
                self.changed.notify_all()
            for _, event, _ in list(self.pending.values()):
                event.set()

    def _notified(self, now, message):
        method = message.get("method")
        params = message.get("params") or {}
        with self.changed:
            if method == "$/progress":
                kind = params["value"].get("kind")
                # Reports are many and say nothing of when a run ends.
                if kind != "report":
                    self.progress.append((params["token"], kind, params["value"].get("message", "")))
            elif method == "textDocument/publishDiagnostics":
                self.diagnostics[params["uri"]] = params["diagnostics"]
            elif method != "mutiny/status":
                self.notifications.append((now, message))
            self.changed.notify_all()

    def request(self, method, params, timeout=30):
        """Sends a request and waits for its answer: (seconds, message)."""
        with self.lock:
            request_id = self.next_id
            self.next_id += 1
        event, slot = threading.Event(), []
        self.pending[request_id] = (time.monotonic(), event, slot)
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        if not event.wait(timeout) or not slot:
            raise ServerGone(f"no answer to {method} (server {self.state()})")
        seconds, message = slot[0]
        if "error" in message:
            raise ServerGone(f"{method} answered an error: {message['error']}")
        return seconds, message

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def state(self):
        code = self.process.poll()
        return "running" if code is None else f"exited with {code}"

    def wait_for(self, predicate, timeout):
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for when, message in self.notifications:
                    if predicate(message):
                        return when
                if self.closed:
                    raise ServerGone(f"the server closed its output ({self.state()})")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no matching notification")
                self.changed.wait(left)

    def running(self):
        """Whether a run has begun and not ended."""
        with self.changed:
            begun = {t for t, kind, _ in self.progress if kind == "begin"}
            ended = {t for t, kind, _ in self.progress if kind == "end"}
        return not begun <= ended

    def idle(self, since):
        """Whether a run began after progress message `since` and every run
        that began has ended."""
        with self.changed:
            begun = {t for t, kind, _ in self.progress if kind == "begin"}
            ended = {t for t, kind, _ in self.progress if kind == "end"}
            began_since = any(kind == "begin" for _, kind, _ in self.progress[since:])
        return began_since and begun <= ended


def percentile(values, fraction):
    ordered = sorted(values)
    index = min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))
    return ordered[index]


def edited(original, cycle, probe):
    """The file's text for `cycle`: the original, a probe function whose
    constant is `probe`, and a comment naming the cycle."""
    return (
        original.rstrip("\n")
        + "\n\n/// Changed by bench/lsp_soak.py.\n"
        + f"pub fn soak_probe(x: u64) -> u64 {{\n    x + {probe}\n}}\n"
        + f"// soak: cycle {cycle}\n"
    )


def requests_of(uri, diagnostics, turn):
    """The request of kind KINDS[turn % 3], at a missed mutant's place when
    the file has one."""
    missed = [d for d in diagnostics if d.get("source") == "mutiny" and "missed" in d["message"]]
    if missed:
        diagnostic = missed[(turn // len(KINDS)) % len(missed)]
        position, range_ = diagnostic["range"]["start"], diagnostic["range"]
        context = [diagnostic]
    else:
        position = {"line": 0, "character": 0}
        range_ = {"start": position, "end": position}
        context = []
    kind = KINDS[turn % len(KINDS)]
    document = {"uri": uri}
    if kind == "hover":
        return kind, "textDocument/hover", {"textDocument": document, "position": position}
    if kind == "codeLens":
        return kind, "textDocument/codeLens", {"textDocument": document}
    return kind, "textDocument/codeAction", {
        "textDocument": document,
        "range": range_,
        "context": {"diagnostics": context},
    }


def processes_of(tmpdir, server_pid):
    """Live processes (pid, command) started with `tmpdir` (or a directory
    in it) as TMPDIR or working in it, the server aside."""
    variable = b"TMPDIR=" + str(tmpdir).encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in (server_pid, os.getpid()):
            continue
        base = f"/proc/{entry}"
        try:
            works_there = os.readlink(f"{base}/cwd").startswith(str(tmpdir))
        except OSError:
            works_there = False
        try:
            with open(f"{base}/environ", "rb") as f:
                environ = f.read().split(b"\0")
            started_there = any(
                v == variable or v.startswith(variable + b"/") for v in environ
            )
        except OSError:
            started_there = False
        if works_there or started_there:
            try:
                with open(f"{base}/cmdline", "rb") as f:
                    command = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                command = "?"
            found.append((int(entry), command))
    return found


def cached_verdicts(root):
    """How many verdicts the server's results file holds (it keeps one per
    mutant of every function text it tested)."""
    try:
        return len(json.loads((root / "target" / "mutiny" / "results.json").read_text())["results"])
    except (OSError, ValueError, KeyError):
        return 0


def sample(pid, tmpdir, root):
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    kib = lambda name: int(fields[name].split()[0])  # noqa: E731
    return {
        "rss_kib": kib("VmRSS"),
        "hwm_kib": kib("VmHWM"),
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
        "threads": len(os.listdir(f"/proc/{pid}/task")),
        "scratch": sorted(os.listdir(tmpdir)),
        "processes": processes_of(tmpdir, pid),
        "cached_verdicts": cached_verdicts(root),
        # Other work on the machine shows in the latency.
        "load": float(Path("/proc/loadavg").read_text().split()[0]),
    }


class Soak:
    def __init__(self, args, client, uri, path, tmpdir):
        self.args = args
        self.client = client
        self.uri = uri
        self.path = path
        self.tmpdir = tmpdir
        self.latencies = []  # (cycle, kind, ms)
        self.running = []  # for each latency, whether a run was in flight
        self.turn = 0
        self.random = random.Random(args.seed)

    def one_request(self, cycle):
        diagnostics = self.client.diagnostics.get(self.uri, [])
        kind, method, params = requests_of(self.uri, diagnostics, self.turn)
        self.turn += 1
        running = self.client.running()
        seconds, _ = self.client.request(method, params)
        self.latencies.append((cycle, kind, 1000 * seconds))
        self.running.append(running)

    def requests_for(self, cycle, seconds):
        """Requests every 20 ms for `seconds` (at least one of each kind)."""
        deadline = time.monotonic() + seconds
        sent = 0
        while sent < len(KINDS) or time.monotonic() < deadline:
            self.one_request(cycle)
            sent += 1
            time.sleep(0.02)

    def requests_until_idle(self, cycle, since, timeout=600):
        """Requests every 20 ms until a run began after progress message
        `since`, every run has ended and none began for QUIET seconds."""
        deadline = time.monotonic() + timeout
        quiet_since = None
        while True:
            self.one_request(cycle)
            if self.client.idle(since):
                quiet_since = quiet_since or time.monotonic()
                if time.monotonic() - quiet_since > QUIET:
                    return
            else:
                quiet_since = None
            if time.monotonic() > deadline:
                raise TimeoutError(f"cycle {cycle}: runs still in flight after {timeout} s")
            time.sleep(0.02)

    def cycle(self, cycle, original, sampled):
        probe = (cycle + 1) // 2  # odd cycles change the function, even ones the comment
        text = edited(original, cycle, probe)
        self.client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": self.uri, "version": cycle + 1},
                "contentChanges": [{"text": text}],
            },
        )
        self.path.write_text(text)
        since = len(self.client.progress)
        self.client.notify("textDocument/didSave", {"textDocument": {"uri": self.uri}})
        if sampled or cycle % self.args.wait_every == 0:
            self.requests_until_idle(cycle, since)
        else:
            self.requests_for(cycle, self.random.uniform(0.02, 0.6))


def latency_figures(values):
    if not values:
        return None
    return {
        "count": len(values),
        "p50_ms": round(percentile(values, 0.50), 2),
        "p99_ms": round(percentile(values, 0.99), 2),
        "max_ms": round(max(values), 2),
    }


def run(args):
    mutiny = find_mutiny(args.mutiny)
    checks = []  # (criterion, passed, detail)
    with tempfile.TemporaryDirectory(prefix="mutiny-soak-") as work:
        work = Path(work)
        tmpdir = work / "tmp"
        tmpdir.mkdir()
        root = copy_crate(args.fixture, work)
        path = root / args.file
        uri = path.as_uri()
        original = path.read_text()
        env = dict(os.environ, TMPDIR=str(tmpdir))
        log = open(work / "server.log", "wb")
        client = Client([mutiny, "lsp"], env, log)
        pid = client.process.pid
        print(f"mutiny lsp ({mutiny}), pid {pid}, {args.cycles} cycles on {args.fixture}/{args.file}")
        samples = {}
        soak = None
        try:
            client.request(
                "initialize",
                {
                    "processId": os.getpid(),
                    "rootUri": root.as_uri(),
                    "capabilities": {"window": {"workDoneProgress": True}},
                },
            )
            started = time.monotonic()
            client.notify("initialized", {})
            client.wait_for(
                lambda m: m.get("method") == "window/logMessage"
                and "warmed up" in m["params"].get("message", ""),
                600,
            )
            print(f"warm-up: {time.monotonic() - started:.1f} s")
            client.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "rust", "version": 1, "text": original}},
            )
            soak = Soak(args, client, uri, path, tmpdir)
            to_sample = {1, args.cycles} | set(range(args.sample_every, args.cycles + 1, args.sample_every))
            began = time.monotonic()
            for cycle in range(1, args.cycles + 1):
                soak.cycle(cycle, original, cycle in to_sample)
                if cycle in to_sample:
                    samples[cycle] = sample(pid, tmpdir, root)
                    s = samples[cycle]
                    print(
                        f"  cycle {cycle:4}: {time.monotonic() - began:6.0f} s, RSS {s['rss_kib'] / 1024:.1f} MiB, "
                        f"{s['fds']} fds, {s['threads']} threads, {len(s['scratch'])} in TMPDIR, "
                        f"{len(s['processes'])} processes",
                        flush=True,
                    )
            soak_seconds = time.monotonic() - began
            checks.append(("survival", True, f"the server answered through all {args.cycles} cycles"))
            ends = [message for _, kind, message in client.progress if kind == "end"]
            client.request("shutdown", None)
            client.notify("exit", None)
            try:
                code = client.process.wait(20)
                checks.append(("exit", code == 0, f"the server exited with status {code} after shutdown/exit"))
            except subprocess.TimeoutExpired:
                checks.append(("exit", False, "the server did not exit within 20 s of shutdown/exit"))
                client.process.kill()
                client.process.wait()
            time.sleep(0.2)
            left = sorted(os.listdir(tmpdir))
            checks.append(("TMPDIR empty", not left, f"left in TMPDIR after exit: {left or 'nothing'}"))
            after = processes_of(tmpdir, pid)
            checks.append(("processes after exit", not after, f"processes left after exit: {after or 'none'}"))
        except (ServerGone, TimeoutError) as err:
            cycle = soak.latencies[-1][0] if soak and soak.latencies else 0
            checks.append(("survival", False, f"around cycle {cycle}: {err}"))
            if client.process.poll() is None:
                client.process.kill()
            client.process.wait()
            log.close()
            tail = (work / "server.log").read_text(errors="replace").splitlines()[-30:]
            print("server log (last lines):\n  " + "\n  ".join(tail), file=sys.stderr)
            return report(args, samples, soak, checks, None, [])
        log.close()
        return report(args, samples, soak, checks, soak_seconds, ends)


def report(args, samples, soak, checks, soak_seconds, ends):
    figures = {"cycles": args.cycles, "samples": samples, "checks": []}
    if samples:
        print()
        print("| cycle | RSS MiB | fds | threads | in TMPDIR | processes | cached verdicts | load |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for cycle, s in sorted(samples.items()):
            print(
                f"| {cycle} | {s['rss_kib'] / 1024:.1f} | {s['fds']} | {s['threads']} | "
                f"{len(s['scratch'])} | {len(s['processes'])} | {s['cached_verdicts']} | {s['load']:.2f} |"
            )
        last = samples[max(samples)]
        print(f"peak RSS (VmHWM): {last['hwm_kib'] / 1024:.1f} MiB; in TMPDIR at the end: {last['scratch']}")
    if ends:
        cancelled = sum(e == "cancelled" for e in ends)
        print(f"runs: {len(ends)} ended, {cancelled} of them cancelled by a later save")
        figures["runs"] = {"ended": len(ends), "cancelled": cancelled}
    if soak_seconds is not None:
        print(f"cycles took {soak_seconds:.0f} s")
        figures["seconds"] = round(soak_seconds, 1)

    latencies = soak.latencies if soak else []
    if latencies:
        print()
        print("| requests | count | p50 ms | p99 ms | max ms |")
        print("| --- | ---: | ---: | ---: | ---: |")
        overall = {}
        for kind in KINDS:
            overall[kind] = latency_figures([ms for _, k, ms in latencies if k == kind])
            f = overall[kind]
            if f:
                print(f"| {kind}, all cycles | {f['count']} | {f['p50_ms']} | {f['p99_ms']} | {f['max_ms']} |")
        for label, wanted in (("while a run is in flight", True), ("with no run in flight", False)):
            ms = [l[2] for l, r in zip(latencies, soak.running) if r == wanted]
            f = latency_figures(ms)
            if f:
                print(f"| all kinds, {label} | {f['count']} | {f['p50_ms']} | {f['p99_ms']} | {f['max_ms']} |")
                overall[label] = f
        windows = {}
        last_cycle = max(c for c, _, _ in latencies)
        for start in range(1, last_cycle + 1, WINDOW):
            end = min(start + WINDOW - 1, last_cycle)
            label = f"{start}-{end}"
            windows[label] = {
                kind: latency_figures([ms for c, k, ms in latencies if k == kind and start <= c <= end])
                for kind in KINDS
            }
            print(
                f"| cycles {label} | "
                + " · ".join(
                    f"{kind} {f['p50_ms']}/{f['p99_ms']}/{f['max_ms']}"
                    for kind, f in windows[label].items()
                    if f
                )
                + " (p50/p99/max) | | | |"
            )
        figures["latency"] = {"overall": overall, "windows": windows}
        worst = max(
            (f["p99_ms"], f"{kind} in cycles {label}")
            for label, kinds in windows.items()
            for kind, f in kinds.items()
            if f
        )
        checks.append(
            (
                "latency",
                worst[0] < args.p99_limit,
                f"worst p99 {worst[0]} ms ({worst[1]}), limit {args.p99_limit} ms",
            )
        )

    reference = args.reference
    if samples and reference in samples and max(samples) > reference:
        base, last = samples[reference], samples[max(samples)]
        growth = last["rss_kib"] / base["rss_kib"] - 1
        checks.append(
            (
                "memory",
                growth <= MEMORY_GROWTH,
                f"RSS after cycle {max(samples)} {last['rss_kib'] / 1024:.1f} MiB vs after cycle "
                f"{reference} {base['rss_kib'] / 1024:.1f} MiB: {growth:+.1%} (limit +{MEMORY_GROWTH:.0%})",
            )
        )
        later = [s for c, s in samples.items() if c >= reference]
        for name, count in (
            ("fds", lambda s: s["fds"]),
            ("threads", lambda s: s["threads"]),
            ("scratch", lambda s: len(s["scratch"])),
        ):
            most = max(count(s) for s in later)
            checks.append(
                (
                    name,
                    most <= count(base) + TOLERANCE[name],
                    f"{name}: at most {most} after cycle {reference}, which had {count(base)} "
                    f"(tolerance +{TOLERANCE[name]}); last {count(last)}",
                )
            )
    elif samples:
        checks.append(("memory", False, f"no sample after cycle {reference} to compare with it"))
    busy = {c: s["processes"] for c, s in samples.items() if s["processes"]}
    checks.append(("idle processes", not busy, f"processes running in TMPDIR at idle samples: {busy or 'none'}"))

    print()
    for name, passed, detail in checks:
        print(f"{'PASS' if passed else 'FAIL'} {name}: {detail}")
    figures["checks"] = [{"name": n, "passed": p, "detail": d} for n, p, d in checks]
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, default=str) + "\n")
    return 0 if all(passed for _, passed, _ in checks) else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=500)
    parser.add_argument("--fixture", default=str(REPO / "tests" / "fixtures" / "example"))
    parser.add_argument("--file", default="src/lib.rs")
    parser.add_argument("--mutiny", help="the binary (default: target/release/mutiny, else target/debug/mutiny)")
    parser.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    parser.add_argument("--wait-every", type=int, default=10,
                        help="every k-th cycle waits for the end of its runs (default 10)")
    parser.add_argument("--sample-every", type=int, default=50, help="sample every n cycles (default 50)")
    parser.add_argument("--reference", type=int, default=50,
                        help="the cycle whose sample the last one is compared with (default 50)")
    parser.add_argument("--p99-limit", type=float, default=P99_LIMIT_MS, metavar="MS",
                        help=f"the latency criterion (default {P99_LIMIT_MS:g} ms)")
    parser.add_argument("--seed", type=int, default=14, help="seed of the cycles' random pauses")
    args = parser.parse_args()
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
