# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Workload 3: a real build traced.  `make -j2` of part of the Linux 6.1
tree from Debian's linux-source-6.1 (tinyconfig, x86_64), cache-primed by
a first build, untraced and under each recorder, interleaved over rounds;
the recorders record the whole machine (-a) from before the build starts
until after it ends, and only the build is timed (bench/README.md)."""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections import namedtuple

from benchlib import Child, bpf_links, row, run_quiet, wait_for

SOURCE_TARBALL = "/usr/src/linux-source-6.1.tar.xz"
EVENTS = ["sched:*", "raw_syscalls:*"]
BUFFER = "4M"			# per CPU, tracer's default; perf gets the same


def prepare(work, progress):
    """The kernel tree in work/linux, configured and prepared once (kept between runs)."""
    tree = os.path.join(work, "linux")
    stamp = os.path.join(tree, ".bench-prepared")
    if os.path.exists(stamp):
        return tree
    if not os.path.exists(SOURCE_TARBALL):
        raise RuntimeError("%s is missing: apt-get install linux-source-6.1 (./setup --deps-only)"
                           % SOURCE_TARBALL)
    progress("build: unpacking %s into %s (once)...\n" % (SOURCE_TARBALL, tree))
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    subprocess.run(["tar", "xJf", SOURCE_TARBALL, "-C", work], check=True)
    os.rename(os.path.join(work, "linux-source-6.1"), tree)
    for target in (["ARCH=x86_64", "tinyconfig"], ["-j2", "prepare"]):
        subprocess.run(["make", "-s"] + target, cwd=tree, check=True, stdout=subprocess.DEVNULL)
    open(stamp, "w").close()
    return tree


def clean(tree, targets):
    """Remove the targets' objects, so that make compiles them all again."""
    for target in targets:
        for root, _, files in os.walk(os.path.join(tree, target)):
            for name in files:
                if name.endswith((".o", ".a")):
                    os.unlink(os.path.join(root, name))


# --- Recorders: start (returns once recording), stop -> (events, lost, bytes) ---------

class Tracer:
    """tracer record -a: streaming to disk in a buffer mode, or as a flight
    recorder (mode "flight"), which writes one snapshot when it stops; its
    overwritten events are what a flight recorder lets go, not losses."""

    def __init__(self, tracer, mode):
        self.tracer, self.mode = tracer, mode

    def start(self, tmp):
        self.out = os.path.join(tmp, "tracer.data")
        how = ["--flight-recorder"] if self.mode == "flight" else ["--mode", self.mode]
        argv = [self.tracer, "record", "-a"] + how + ["-o", self.out, "--force"]
        for e in EVENTS:
            argv += ["-e", e]
        self.child = Child(argv, os.path.join(tmp, "tracer.log"))
        wait_for(lambda: bpf_links(self.child.p.pid) > 0, self.child, 60, "tracer record")

    def stop(self):
        status = self.child.stop()
        log = self.child.log_text()
        m = re.search(r"tracer record: (?:\d+ snapshots?, )?(\d+) events", log)
        if status or not m:
            raise RuntimeError("tracer record failed (status %s): %s" % (status, log[-600:]))
        lost = sum(sum(int(n) for n in m2.groups()[:4 if self.mode == "flight" else 5])
                   for m2 in re.finditer(
                       r"lost: (\d+) buffer full, (\d+) not yet committed, (\d+) too big, (\d+) busy, "
                       r"(\d+) overwritten", log))
        return int(m.group(1)), lost, tree_bytes(self.out)


class Perf:
    """perf record -a of the same events, its own records excluded like
    tracer's (--exclude-perf), started disabled and enabled through its
    control FIFO so that it is recording when start() returns."""

    def start(self, tmp):
        self.data = os.path.join(tmp, "perf.data")
        ctl, ack = os.path.join(tmp, "perf.ctl"), os.path.join(tmp, "perf.ack")
        for fifo in (ctl, ack):
            if not os.path.exists(fifo):
                os.mkfifo(fifo)
        argv = ["perf", "record", "-a", "-m", BUFFER, "-o", self.data, "--no-buildid", "-D", "-1",
                "--control", "fifo:%s,%s" % (ctl, ack)]
        for e in EVENTS:
            argv += ["-e", e, "--exclude-perf"]
        self.child = Child(argv, os.path.join(tmp, "perf.log"))
        ctl_fd = os.open(ctl, os.O_RDWR)
        ack_fd = os.open(ack, os.O_RDWR | os.O_NONBLOCK)
        try:
            os.write(ctl_fd, b"enable\n")
            wait_for(lambda: readable(ack_fd), self.child, 60, "perf record")
        finally:
            os.close(ctl_fd)
            os.close(ack_fd)

    def stop(self):
        status = self.child.stop()
        if status not in (0, -signal.SIGINT):	# perf ends by re-raising SIGINT
            raise RuntimeError("perf record failed (status %s): %s" % (
                status, self.child.log_text()[-600:]))
        stats = subprocess.run(["perf", "report", "-i", self.data, "--stats"],
                               capture_output=True, text=True).stdout
        samples = re.search(r"SAMPLE events:\s+(\d+)", stats)
        return int(samples.group(1)) if samples else 0, lost_samples(stats), os.path.getsize(self.data)


def lost_samples(stats):
    """Samples perf lost, from `perf report --stats`: the LOST_SAMPLES lines of
    the per-event blocks ("sched:sched_switch stats:"); the aggregated block's
    line counts records, not samples."""
    lost, per_event = 0, False
    for line in stats.splitlines():
        if line.endswith("stats:"):
            per_event = not line.startswith("Aggregated")
        elif per_event and "LOST_SAMPLES events:" in line:
            lost += int(line.split()[-1])
    return lost


class Bpftrace:
    """bpftrace counting every event in an in-kernel map: the cost of BPF
    instrumentation without streaming anything."""

    def start(self, tmp):
        probes = ",".join("tracepoint:" + e for e in EVENTS)
        prog = '%s { @[probe] = count(); } BEGIN { printf("ready\\n"); }' % probes
        self.child = Child(["bpftrace", "-e", prog], os.path.join(tmp, "bpftrace.log"))
        wait_for(lambda: "ready" in self.child.log_text(), self.child, 120, "bpftrace")

    def stop(self):
        status = self.child.stop()
        counts = re.findall(r"^@\[.*\]: (\d+)$", self.child.log_text(), re.M)
        if status:
            raise RuntimeError("bpftrace failed (status %s)" % status)
        return sum(int(n) for n in counts), 0, 0


def readable(fd):
    try:
        return os.read(fd, 16).startswith(b"ack")
    except BlockingIOError:
        return False


def tree_bytes(path):
    return sum(os.path.getsize(os.path.join(root, f))
               for root, _, files in os.walk(path) for f in files)


CONFIGS = {
    "untraced": ("no tracing", None),
    "tracer-flight": ("**tracer record -a --flight-recorder** (in memory, one snapshot at the end)",
                      lambda o: Tracer(o.tracer, "flight")),
    "tracer-discard": ("**tracer record -a** (discard mode, to disk)",
                       lambda o: Tracer(o.tracer, "discard")),
    "perf": ("perf record -a --exclude-perf (-m %s, to disk)" % BUFFER, lambda o: Perf()),
    "bpftrace": ("bpftrace, @[probe] = count() (in-kernel map)", lambda o: Bpftrace()),
}


# --- Runs -------------------------------------------------------------------------------

# One build: its time, what the recorder said (None untraced), and the others' CPU meter.
Run = namedtuple("Run", "secs events lost bytes meter attempts")

def build_once(tree, targets, meter):
    """Time make -j2 of the targets (from clean objects); CPU of others measured by meter."""
    clean(tree, targets)
    meter.start()
    t0 = time.monotonic()
    make = Child(["make", "-s", "-j2"] + targets, os.path.join(tree, ".bench-make.log"), cwd=tree)
    status = make.reap()
    secs = time.monotonic() - t0
    meter.stop([(make.p.pid, make.rusage)])
    if status:
        raise RuntimeError("make failed (status %s): %s" % (status, make.log_text()[-600:]))
    return secs


def run_config(key, opts, tree, keep_trace):
    """One build under the configuration, a Run."""
    make_recorder = CONFIGS[key][1]
    tmp = tempfile.mkdtemp(prefix="tracer-bench-build-")
    try:
        def once(meter):
            recorder = make_recorder(opts) if make_recorder else None
            if recorder:
                recorder.start(tmp)
            try:
                secs = build_once(tree, opts.build_targets, meter)
            finally:
                counts = recorder.stop() if recorder else (None, None, None)
            if keep_trace and key == "tracer-discard" and not os.path.exists(keep_trace):
                shutil.move(recorder.out, keep_trace)
            return (secs,) + counts
        result, meter, attempts = run_quiet(once, key, opts.progress)
        return Run(*result, meter, attempts)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def rows_for(results, order, targets):
    """CSV rows: build time per round (bench/paired.py pairs them with the
    untraced build and perf's of the same round), what the recorders said."""
    out = []
    for key in order:
        runs = results[key]
        secs = [r.secs for r in runs]
        traced = runs[0].events is not None
        disturbed = sum(r.meter.disturbed() for r in runs)
        note = "others used up to %.0f%% of a CPU during a run" % (
            100 * max(r.meter.others for r in runs))
        fields = dict(param=" ".join(["make -j2"] + targets), disturbed=disturbed, note=note,
                      baseline=int(key == "untraced"))
        if traced:
            fields.update(recorded=sum(r.events for r in runs), lost=sum(r.lost for r in runs))
        label = CONFIGS[key][0]
        out.append(row("build", key, label, "s", secs, **fields))
        if traced:
            out.append(row("build", key, label, "events/s", [r.events / r.secs for r in runs],
                           param="recorded per second of build"))
            out.append(row("build", key, label, "lost", [r.lost for r in runs], param="per build"))
        if traced and runs[0].bytes:
            out.append(row("build", key, label, "MiB", [r.bytes / 2**20 for r in runs],
                           param="written per build"))
    return out


def run(opts, keep_trace=None):
    """The workload: rows for the suite's CSV; the first discard-mode trace moved to keep_trace."""
    tree = prepare(opts.work, opts.progress)
    # Every figure is relative to the untraced build of the same round.
    order = ["untraced"] + [k for k in opts.build_configs if k in CONFIGS and k != "untraced"]
    opts.progress("build: warm-up (cache-priming) build of %s...\n" % " ".join(opts.build_targets))
    build_once(tree, opts.build_targets, _NoMeter())
    results = {k: [] for k in order}
    for rnd in range(opts.rounds):
        opts.progress("build, round %d/%d:" % (rnd + 1, opts.rounds))
        for i in range(len(order)):
            key = order[(i + rnd) % len(order)]
            r = run_config(key, opts, tree, keep_trace)
            results[key].append(r)
            opts.progress(" %s %.1f s%s" % (key, r.secs, "" if r.events is None else
                                              " (%d events, %d lost)" % (r.events, r.lost)))
        opts.progress("\n")
    clean(tree, opts.build_targets)
    return rows_for(results, order, opts.build_targets)


class _NoMeter:
    def start(self):
        pass

    def stop(self, reaped=()):
        return False
