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
    """Peak RSS of process ``pid`` (default: this one) and all its descendants together."""

    def __init__(self, pid: int | None = None, interval: float = 0.05):
        self.peak = 0
        self.cpu_seconds: dict[int, tuple[list[str], float]] = {}  # pid -> (command line, user + system s)
        self.process_peaks: dict[int, int] = {}  # pid -> its own peak RSS in bytes (the kernel's VmHWM)
        self._own = pid is None
        self._root = psutil.Process(pid or os.getpid())
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(interval,), daemon=True)
        self._thread.start()

    def _sample(self, interval: float) -> None:
        while not self._stop.is_set():
            total = 0
            try:
                procs = [self._root, *self._root.children(recursive=True)]
            except psutil.Error:
                procs = []
            for proc in procs:
                try:
                    rss = proc.memory_info().rss
                    total += rss
                    self.process_peaks[proc.pid] = max(self.process_peaks.get(proc.pid, 0), rss, _high_water(proc.pid))
                    times = proc.cpu_times()
                    command = self.cpu_seconds[proc.pid][0] if proc.pid in self.cpu_seconds else proc.cmdline()
                    self.cpu_seconds[proc.pid] = (command, times.user + times.system)
                except psutil.Error:
                    pass
            self.peak = max(self.peak, total)
            self._stop.wait(interval)

    def stop_mb(self) -> float:
        self._stop.set()
        self._thread.join()
        peak = self.peak
        if self._own:  # this process's own high-water mark catches a peak between samples
            peak = max(peak, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
        return round(peak / 1e6, 1)
