# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""What the suite's Python workloads share: the CSV row (bench/bench_csv.h
has the columns), finding rows, the machine's state, CPU
time others used during a run, and children that are stopped and reaped
whatever happens (bench/README.md, "The suite")."""

import csv
import os
import re
import signal
import subprocess
import time

from stats import median

# bench/bench_csv.h's columns and the paired figures the suite adds
# (bench/paired.py): NAME, NAME_min, NAME_max are the median, min and max
# over rounds; lo, hi and verdict are a headline comparison's.
PAIRED = [k + s for k in ("vs_baseline", "vs_empty", "ratio") for s in ("", "_min", "_max")]
CSV_COLUMNS = (["workload", "config", "label", "threads", "param", "unit", "n", "median", "min",
                "max"] + PAIRED + ["ratio_to", "lo", "hi", "verdict", "recorded", "expected",
                                   "lost", "baseline", "disturbed", "note", "values"])
NUMBERS = (["threads", "n", "median", "min", "max"] + PAIRED +
           ["lo", "hi", "recorded", "expected", "lost", "baseline", "disturbed"])

# Others may use this share of one CPU during a run before it is repeated
# (tracepoint_bench's DISTURBED), and a run is tried this often.
DISTURBED = 0.05
MAX_ATTEMPTS = 2

HZ = os.sysconf("SC_CLK_TCK")
PF_KTHREAD = 0x00200000


def row(workload, config, label, unit, values, **fields):
    """A CSV row over the repetitions' values (in round order)."""
    r = dict.fromkeys(CSV_COLUMNS)		# None: absent, as read_csv gives it
    r.update(workload=workload, config=config, label=label, unit=unit, n=len(values),
             param="", ratio_to="", note="", baseline=0, disturbed=0)
    r["values"] = list(values)
    if values:
        r.update(median=median(values), min=min(values), max=max(values))
    r.update(fields)
    return r


def pick(rows, workload, **match):
    """The rows of a workload whose fields equal match's."""
    return [r for r in rows if r["workload"] == workload and
            all(r.get(k) == v for k, v in match.items())]


def one(rows, workload, **match):
    found = pick(rows, workload, **match)
    return found[0] if found else None


def csv_text(v):
    if v is None:
        return ""
    if isinstance(v, list):
        return " ".join("%.6g" % x for x in v)
    if isinstance(v, float):
        return "%.6g" % v
    return v


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, CSV_COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: csv_text(r.get(k, "")) for k in CSV_COLUMNS})


def read_csv(path):
    """Rows of a benchmark's --csv file, numbers as floats (absent: None)."""
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            for k in NUMBERS:
                r[k] = float(r[k]) if r.get(k) not in (None, "") else None
            r["values"] = [float(v) for v in r["values"].split()] if r.get("values") else []
            rows.append(r)
    return rows


# --- The machine ---------------------------------------------------------------

def read(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def proc_stat(pid):
    """(comm, ppid, flags, utime + stime + cutime + cstime in ticks) or None."""
    text = read("/proc/%d/stat" % pid)
    close = text.rfind(")")
    if close < 0:
        return None
    f = text[close + 2:].split()
    return (text[text.find("(") + 1:close], int(f[1]), int(f[6]),
            int(f[11]) + int(f[12]) + int(f[13]) + int(f[14]))


def pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def cmdline(pid):
    return read("/proc/%d/cmdline" % pid).replace("\0", " ").strip()


def bpf_links(pid):
    """BPF links the process holds: a recorder holds some once attached."""
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return 0
    n = 0
    for fd in fds:
        try:
            n += "bpf_link" in os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            pass
    return n


def our_pids():
    """This process and its descendants."""
    parent = {}
    for pid in pids():
        st = proc_stat(pid)
        if st:
            parent[pid] = st[1]
    ours = {os.getpid()}
    changed = True
    while changed:
        changed = False
        for pid, ppid in parent.items():
            if ppid in ours and pid not in ours:
                ours.add(pid)
                changed = True
    return ours


def machine_state(window=1.0):
    """Load, busy processes (over window s) and BPF link holders, not ours: Markdown lines."""
    mine = our_pids()
    before = {p: proc_stat(p) for p in pids() if p not in mine}
    time.sleep(window)
    lines = ["- %s, kernel %s, %d CPUs" % (time.strftime("%Y-%m-%d %H:%M:%S"), os.uname().release,
                                          os.cpu_count()),
             "- loadavg %s" % read("/proc/loadavg").strip()]
    busy = []
    for pid, st in before.items():
        now = proc_stat(pid)
        if not st or not now:
            continue
        cpu = (now[3] - st[3]) / HZ / window
        links = bpf_links(pid) > 0
        if cpu >= 0.10 or links:
            busy.append((cpu, pid, now[0], links))
    for cpu, pid, comm, links in sorted(busy, reverse=True):
        lines.append("- other process: pid %d (%s) %.0f%% CPU%s: `%.100s`" % (
            pid, comm, cpu * 100, ", holds BPF links" if links else "", cmdline(pid) or comm))
    if not busy:
        lines.append("- no other process above 10% CPU or holding BPF links")
    return lines


def loadavg1():
    return float(read("/proc/loadavg", "0").split()[0])


class CpuMeter:
    """CPU time others used between start() and stop(), in CPUs (1.0 = one
    CPU busy all along): the CPUs' busy time (/proc/stat user + nice +
    system) minus ours: this process and its descendants, the children
    reaped in between (their rusage, passed to stop) and kernel threads
    (writeback of the traces we write is part of what we measure)."""

    def _sample(self):
        fields = read("/proc/stat").split("\n")[0].split()[1:]
        busy = int(fields[0]) + int(fields[1]) + int(fields[2])
        steal = int(fields[7]) if len(fields) > 7 else 0
        mine, ticks = our_pids(), {}
        kthreads = 0
        for pid in pids():
            st = proc_stat(pid)
            if not st:
                continue
            if st[2] & PF_KTHREAD:
                kthreads += st[3]
            elif pid in mine:
                ticks[pid] = st[3]
        return time.monotonic(), busy, steal, kthreads, ticks

    def start(self):
        self.a = self._sample()

    def stop(self, reaped=()):
        """reaped: (pid, rusage) of our children that ended during the run."""
        b = self._sample()
        secs = b[0] - self.a[0]
        ours = b[3] - self.a[3]
        for pid, ticks in b[4].items():
            ours += ticks - self.a[4].get(pid, 0)
        for pid, ru in reaped:
            ours += (ru.ru_utime + ru.ru_stime) * HZ - self.a[4].get(pid, 0)
        others = (b[1] - self.a[1] - ours) / HZ / secs if secs > 0 else 0
        self.others = max(others, 0.0)
        self.steal = (b[2] - self.a[2]) / HZ / secs if secs > 0 else 0
        return self.disturbed()

    def disturbed(self):
        return self.others > DISTURBED or self.steal > DISTURBED


# --- Children --------------------------------------------------------------------

class Child:
    """A subprocess in its own process group, output to a log file; every
    live one is stopped at exit (stop_all)."""
    live = []

    def __init__(self, argv, log, cwd=None, stderr=subprocess.STDOUT):
        """stderr=None: to ours (a benchmark's progress), else into the log."""
        self.log = log
        with open(log, "w") as out:
            self.p = subprocess.Popen(argv, stdout=out, stderr=stderr,
                                      stdin=subprocess.DEVNULL, cwd=cwd, start_new_session=True)
        self.rusage = None
        self.status = None
        Child.live.append(self)

    def alive(self):
        return self.reap(block=False) is None

    def reap(self, block=True):
        if self.status is None:
            pid, status, ru = os.wait4(self.p.pid, 0 if block else os.WNOHANG)
            if pid:
                self.status, self.rusage = os.waitstatus_to_exitcode(status), ru
                self.p.returncode = self.status
                Child.live.remove(self)
        return self.status

    def stop(self, sig=signal.SIGINT, timeout=120):
        """Signal it, wait up to timeout s, then SIGKILL its process group."""
        if self.status is None:
            self.signal(sig)
            end = time.monotonic() + timeout
            while self.alive() and time.monotonic() < end:
                time.sleep(0.02)
            if self.status is None:
                self.signal(signal.SIGKILL, group=True)
                self.reap()
        return self.status

    def signal(self, sig, group=False):
        try:
            if group:
                os.killpg(self.p.pid, sig)
            else:
                os.kill(self.p.pid, sig)
        except ProcessLookupError:
            pass

    def log_text(self):
        return read(self.log)

    @classmethod
    def stop_all(cls):
        for child in list(cls.live):
            child.stop(timeout=30)


def record_lost(log):
    """Events tracer record's summary (its stderr, log) says were lost, every cause."""
    causes = re.findall(r"lost: (\d+) buffer full, (\d+) not yet committed, (\d+) too big, "
                        r"(\d+) busy", log)
    skipped = re.findall(r"all cpus lost: (\d+) skipped by the kernel", log)
    return sum(int(n) for c in causes for n in c) + sum(int(n) for n in skipped)


def wait_for(predicate, child, timeout, what):
    """Poll until predicate() holds; raise if the child dies or time runs out."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        if not child.alive():
            raise RuntimeError("%s exited (status %s): %s" % (what, child.status,
                                                               child.log_text()[-600:]))
        time.sleep(0.02)
    child.stop(signal.SIGKILL)
    raise RuntimeError("%s not ready after %d s" % (what, timeout))


def run_quiet(run, label, progress):
    """run(meter) -> result, repeated (MAX_ATTEMPTS) while others used the CPUs."""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        meter = CpuMeter()
        result = run(meter)
        if not meter.disturbed() or attempt == MAX_ATTEMPTS:
            return result, meter, attempt
        progress(" [%s disturbed: others %.0f%%, steal %.0f%% of a CPU]" % (
            label, meter.others * 100, meter.steal * 100))


def interleaved(opts, workload, order, measure, show):
    """Each key of order measured once per round, in an order that rotates by one
    each round (measure(key, meter) -> result, repeated while others used the
    CPUs; show(result) -> its progress text): per key, the results in round
    order, and how many runs were kept although disturbed."""
    results = {k: [] for k in order}
    disturbed = {k: 0 for k in order}
    for rnd in range(opts.rounds):
        opts.progress("%s, round %d/%d:" % (workload, rnd + 1, opts.rounds))
        for i in range(len(order)):
            key = order[(i + rnd) % len(order)]
            result, meter, _ = run_quiet(lambda m: measure(key, m), key, opts.progress)
            results[key].append(result)
            disturbed[key] += meter.disturbed()
            opts.progress(" %s %s" % (key, show(result)))
        opts.progress("\n")
    return results, disturbed
