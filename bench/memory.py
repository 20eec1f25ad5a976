"""Peak resident memory of a process tree, sampled in a thread: what the benchmarks report.

Workers (process pools, Dask, subprocesses) count together with their parent, so tools that
fan out are compared with tools that do not on the same footing. The sampler also keeps the CPU
seconds each process of the tree had used when last seen (``cpu_seconds``), so a bench can say
where the cores went (a process that ends between two samples loses its last interval), and each
process's own peak RSS (``process_peaks``).
"""

from __future__ import annotations

import os
import resource
import threading

import psutil


def _high_water(pid: int) -> int:
    """The kernel's record of a process's peak RSS (catches a peak between two samples)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class TreePeak:
    """Peak RSS of processes ``pids`` (default: this one) and all their descendants together.

    One thread samples every tree with one scan of the process table per interval: a bench that
    measures a run plus a cluster beside it (scheduler, workers) then costs the cores it measures
    no more than one that measures a run alone (one sampler per tree cost the Dask run 4x).
    """

    def __init__(self, *pids: int, interval: float = 0.05):
        self.peak = 0
        self.cpu_seconds: dict[int, tuple[list[str], float]] = {}  # pid -> (command line, user + system s)
        self.process_peaks: dict[int, int] = {}  # pid -> its own peak RSS in bytes (the kernel's VmHWM)
        self._own = not pids
        self._roots = [psutil.Process(pid) for pid in pids or (os.getpid(),)]
        self._marked: dict[int, float] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(interval,), daemon=True)
        self._thread.start()

    def _trees(self) -> list[psutil.Process]:
        children: dict[int, list[psutil.Process]] = {}
        for proc in psutil.process_iter(["ppid"]):
            children.setdefault(proc.info["ppid"], []).append(proc)
        procs, stack = [], list(self._roots)
        while stack:
            proc = stack.pop()
            procs.append(proc)
            stack.extend(children.get(proc.pid, ()))
        return procs

    def _sample(self, interval: float) -> None:
        while not self._stop.is_set():
            total = 0
            for proc in self._trees():
                try:
                    rss = proc.memory_info().rss
                    total += rss
                    # its command first: a process ending as it is seen (no command line left) keeps
                    # no own peak that a bench could not name
                    command = self.cpu_seconds[proc.pid][0] if proc.pid in self.cpu_seconds else proc.cmdline()
                    if not command:
                        continue
                    times = proc.cpu_times()
                    self.cpu_seconds[proc.pid] = (command, times.user + times.system)
                    self.process_peaks[proc.pid] = max(self.process_peaks.get(proc.pid, 0), rss, _high_water(proc.pid))
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)
            self._stop.wait(interval)

    def mark(self) -> None:
        """From now on ``cpu_since_mark`` counts: a run's clock started (what the processes spent
        starting up before it, a server's start for one, is left out)."""
        self._marked = {pid: seconds for pid, (_, seconds) in list(self.cpu_seconds.items())}

    def reset_peaks(self) -> None:
        """Start every process's own peak afresh (``process_peaks``, and the kernel's high-water mark
        of each process seen, where it may be reset): the peaks from here on are one phase's."""
        for pid in list(self.process_peaks):
            try:
                with open(f"/proc/{pid}/clear_refs", "w") as refs:
                    refs.write("5")  # resets VmHWM to the current RSS
            except OSError:  # gone, or not ours
                pass
        self.process_peaks = {}

    def cpu_since_mark(self) -> dict[int, tuple[list[str], float]]:
        """``cpu_seconds`` less what each process had used at ``mark`` (all of it without a mark)."""
        marked = self._marked or {}
        return {pid: (command, seconds - marked.get(pid, 0.0))
                for pid, (command, seconds) in list(self.cpu_seconds.items())}

    def stop_mb(self) -> float:
        self._stop.set()
        self._thread.join()
        peak = self.peak
        if self._own:  # this process's own high-water mark catches a peak between samples
            peak = max(peak, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
        return round(peak / 1e6, 1)
