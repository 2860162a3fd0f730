"""Kernel time on a shared machine: thread settings with and without other work on the cores (run on demand).

    python benchmarks/bench_busy.py

Torch's OpenMP threads spin while they wait for work; when other processes share the cores, spinning threads
steal time from the real work. This script times two kernel calls (a depth-3 ReLU MLP on n = 2048 and the
issue's pooled CNN on 100 images 8 x 8), each in a fresh process, under three settings:

- torch's default (one thread per core, OpenMP's default wait policy),
- ``OMP_WAIT_POLICY=PASSIVE`` (waiting threads sleep; what ``make setup`` puts into the lessons' kernel),
- ``OMP_NUM_THREADS=1``,

first on an idle machine, then with two background processes that each keep a core busy (load ~ 4 on 2 cores,
as on a crowded JupyterHub node). The setting must be chosen before torch starts its thread pool, that is in
the environment of the process (the Jupyter kernel spec, a job script), never by the package at import time.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time

CALL = r"""
import math, time, torch
import ntk_helpers as nh
g = torch.Generator().manual_seed(0)
if "{case}" == "mlp":
    x, net = torch.randn(2048, 16, generator=g, dtype=torch.float64), nh.mlp(3)
else:
    x = torch.randn(100, 1, 8, 8, generator=g, dtype=torch.float64)
    conv = lambda: nh.conv(sigma_w=math.sqrt(2))
    net = nh.serial(conv(), nh.relu(), conv(), nh.relu(), conv(), nh.relu(), nh.global_avg_pool(), nh.dense(1))
net.kernel(x[:8])                                     # warm up the thread pool and the allocator
start = time.perf_counter()
net.kernel(x)
print(time.perf_counter() - start)
"""

SETTINGS = {"default": {}, "OMP_WAIT_POLICY=PASSIVE": {"OMP_WAIT_POLICY": "PASSIVE"},
            "OMP_NUM_THREADS=1": {"OMP_NUM_THREADS": "1"}}


def _burn() -> None:
    while True:
        pass


def timed(case: str, env: dict) -> float:
    full = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", CALL.format(case=case)], env={**full, **env}, check=True,
                         capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1])


def table(label: str) -> None:
    print(f"\n{label}")
    for case in ("mlp", "cnn"):
        cells = [f"{name}: {min(timed(case, env) for _ in range(2)):6.2f} s" for name, env in SETTINGS.items()]
        print(f"  {case:3s}  " + "   ".join(cells))


def main() -> None:
    table(f"idle ({os.cpu_count()} cores)")
    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(2)]
    for p in burners:
        p.start()
    time.sleep(1)
    try:
        table("two background processes each burning a core")
    finally:
        for p in burners:
            p.terminate()


if __name__ == "__main__":
    main()
