"""Analytic kernel timings side by side with neural-tangents: the package's default path, its eager path, and
neural-tangents 0.6.5 run in a side environment, interleaved in one run.

    python benchmarks/bench_cnn_kernel.py --nt-venv /work/nt-venv        # every case, neural-tangents included
    python benchmarks/bench_cnn_kernel.py --rounds 1 --cases erf-gap100-8 erf-mlp10-1024
    python benchmarks/bench_cnn_kernel.py --variants default eager reference float32   # no neural-tangents

neural-tangents is never a dependency of this project: it runs in its own venv, whose path comes from
``--nt-venv DIR`` or the environment variable ``NEURAL_TANGENTS_VENV``; without one (or when it cannot import
neural_tangents) its column is skipped, with a note on how to create it (README, "Benchmarks")::

    python3.11 -m venv /work/nt-venv
    /work/nt-venv/bin/pip install neural-tangents==0.6.5 jax==0.4.25 jaxlib==0.4.25 "numpy<2" tf2jax==0.3.6

Cases (float64, Gram matrices, NTK + NNGP; ``cnn(act)`` = 3 x (conv 3x3 "same", sigma_w = sqrt 2, sigma_b = 0.1,
act), then the readout and dense(1); MLPs: ``mlp(depth, act)`` with the same sigmas on points of the sphere S^31):

- ``relu-gap400-8``, ``relu-gap100-8``, ``erf-gap100-8``, ``gelu-gap100-8``: cnn + global_avg_pool, one-channel
  images 8x8;
- ``relu-avgpool40-16``: the first conv + ReLU, avg_pool(2), the two others, global_avg_pool: 40 images 16x16;
- ``relu-stride100-16``: the first conv with stride 2 and padding "valid", then the two others: 100 images 16x16;
- ``relu-flat400-8``: cnn + flatten, 400 images 8x8;
- ``relu-mlp3-2048``, ``erf-mlp10-1024``, ``gelu-mlp3-2048``: MLPs of depth 3 or 10.

Variants, each measurement in a fresh process (so that its peak RSS, ``ru_maxrss``, is its own), interleaved:
every variant of every case once per round, the minimum over rounds reported:

- ``default``: ``arch.kernel(x)``: the compiled paths where they apply, the eager path elsewhere; the compiled code
  is compiled (or loaded from numba's disk cache) before the clock starts, once per process;
- ``eager``: ``arch.kernel(x, compiled=False)``: the layers' rules on pair tensors (same-position pairs before a
  flatten readout, blocks from the memory budget);
- ``reference``: every layer's rule on the full pixel-pair tensors, in blocks of 20 images, ``malloc_trim`` after
  each block (the plain eager path before the planning);
- ``float32``: ``arch.kernel(x, pair_dtype=torch.float32)``, with its largest error against ``default``;
- ``neural-tangents``: ``nt.batch(kernel_fn, batch_size)`` of the same architecture in ``stax`` (benchmarks/
  nt_worker.py), one process per batch size of the case's sweep, the best one reported, its block function compiled
  before the clock starts; its NTK is compared with ``default``'s (largest difference relative to the largest entry).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SIGMA_W, SIGMA_B = 2 ** 0.5, 0.1
INSTALL = ('python3.11 -m venv /work/nt-venv && /work/nt-venv/bin/pip install neural-tangents==0.6.5 jax==0.4.25 '
           'jaxlib==0.4.25 "numpy<2" tf2jax==0.3.6')


def conv(**options):
    return ["conv", {"kernel_size": 3, "sigma_w": SIGMA_W, "sigma_b": SIGMA_B, **options}]


def cnn(act: str, readout: str, *, pool: bool = False, stride: bool = False) -> list:
    first = conv(stride=2, padding="valid") if stride else conv()
    layers = [first, [act]] + ([["avg_pool", {"window": 2}]] if pool else []) + [conv(), [act], conv(), [act]]
    return layers + [[readout], ["dense", {"out": 1, "sigma_w": 1.0, "sigma_b": 0.0}]]


def mlp(depth: int, act: str) -> list:
    hidden = [["dense", {"sigma_w": SIGMA_W, "sigma_b": SIGMA_B}], [act]] * depth
    return hidden + [["dense", {"out": 1, "sigma_w": SIGMA_W, "sigma_b": SIGMA_B}]]


#: name: (layers, inputs (n, d) or (n, C, H, W), neural-tangents batch sizes to sweep (0: all inputs at once))
CASES = {
    "relu-gap400-8": (cnn("relu", "global_avg_pool"), (400, 1, 8, 8), (50, 100)),
    "relu-gap100-8": (cnn("relu", "global_avg_pool"), (100, 1, 8, 8), (25, 50)),
    "erf-gap100-8": (cnn("erf", "global_avg_pool"), (100, 1, 8, 8), (25, 50)),
    "gelu-gap100-8": (cnn("gelu", "global_avg_pool"), (100, 1, 8, 8), (25, 50)),
    "relu-avgpool40-16": (cnn("relu", "global_avg_pool", pool=True), (40, 1, 16, 16), (10, 20)),
    "relu-stride100-16": (cnn("relu", "global_avg_pool", stride=True), (100, 1, 16, 16), (25, 50)),
    "relu-flat400-8": (cnn("relu", "flatten"), (400, 1, 8, 8), (100, 200, 0)),
    "relu-mlp3-2048": (mlp(3, "relu"), (2048, 32), (512, 0)),
    "erf-mlp10-1024": (mlp(10, "erf"), (1024, 32), (256, 0)),
    "gelu-mlp3-2048": (mlp(3, "gelu"), (2048, 32), (512, 0)),
}
VARIANTS = ("default", "eager", "reference", "float32", "neural-tangents")
NT = "neural-tangents"


# -- ntk_helpers' side (this project's venv) ---------------------------------------------------------------------

def architecture(layers):
    import ntk_helpers as nh
    make = {"conv": lambda o: nh.conv(**o), "dense": lambda o: nh.dense(**o), "avg_pool": lambda o: nh.avg_pool(**o),
            "global_avg_pool": lambda o: nh.global_avg_pool(), "flatten": lambda o: nh.flatten()}
    return nh.serial(*[make[kind](spec[0] if spec else {}) if kind in make else nh.as_activation(kind)
                       for kind, *spec in layers])


def inputs(shape) -> "torch.Tensor":
    import torch
    import ntk_helpers as nh
    if len(shape) == 2:
        return nh.sphere(shape[0], shape[1], seed=0)
    return torch.randn(*shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)


def _malloc_trim():
    try:
        import ctypes
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def reference_kernel(arch, x, block: int = 20):
    """The plain path: each layer's own rule on all pixel pairs, Gram blocks i <= j, malloc_trim per block."""
    import torch
    from ntk_helpers.engine.kernel import Kernel

    def run(k):
        for layer in arch.layers:
            k = layer.transform(k)
        return k
    if x.ndim == 2:
        return run(Kernel.from_inputs(x)).ntk
    n = x.shape[0]
    out = torch.empty(n, n, dtype=torch.float64)
    for i in range(0, n, block):
        for j in range(i, n, block):
            k = run(Kernel.from_inputs(x[i:i + block]) if i == j else
                    Kernel.from_inputs(x[i:i + block], x[j:j + block]))
            out[i:i + block, j:j + block] = k.ntk
            out[j:j + block, i:i + block] = k.ntk.T
            del k
            _malloc_trim()
    return out


def one(name: str, variant: str, out: str | None) -> dict:
    """Run one case in this process: seconds, peak RSS, page faults (and save the NTK to ``out``)."""
    import numpy as np
    import torch
    layers, shape, _ = CASES[name]
    arch, x = architecture(layers), inputs(shape)
    if variant == "default":
        arch.kernel(x[:2])                            # compile (or load the compiled code) outside the clock
    start_usage = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    if variant == "reference":
        ntk = reference_kernel(arch, x)
    elif variant == "eager":
        ntk = arch.kernel(x, compiled=False).ntk
    elif variant == "default":
        ntk = arch.kernel(x).ntk
    else:
        ntk = arch.kernel(x, pair_dtype=torch.float32).ntk
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    result = {"seconds": seconds, "peak_gb": usage.ru_maxrss / 2 ** 20,
              "faults": usage.ru_minflt - start_usage.ru_minflt}
    if variant == "float32":
        exact = arch.kernel(x).ntk
        result["error"] = float((ntk - exact).abs().max() / exact.abs().max())
    if out:
        np.save(out, ntk.numpy())
    return result


# -- orchestration ---------------------------------------------------------------------------------------------

def side_python(venv: str | None) -> tuple[str | None, str]:
    """The side environment's Python if it imports neural_tangents, else (None, why not)."""
    if not venv:
        return None, "no side environment given (--nt-venv DIR or NEURAL_TANGENTS_VENV)"
    python = Path(venv) / "bin" / "python"
    if not python.exists():
        return None, f"{python} does not exist"
    check = subprocess.run([str(python), "-c", "import neural_tangents, jax; print(neural_tangents.__version__)"],
                           capture_output=True, text=True)
    if check.returncode != 0:
        return None, f"{python} cannot import neural_tangents ({check.stderr.strip().splitlines()[-1:]})"
    return str(python), f"neural-tangents {check.stdout.strip()} from {venv}"


def run_ours(name, variant, out) -> dict:
    result = subprocess.run([sys.executable, __file__, "--one", name, variant, out], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{name} {variant} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def run_nt(python, name, batch, inputs_file, out) -> dict:
    layers = CASES[name][0]
    result = subprocess.run([python, str(HERE / "nt_worker.py"), json.dumps(layers), inputs_file, str(batch), out],
                            capture_output=True, text=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    if result.returncode != 0:
        return {"seconds": float("nan"), "failed": result.stderr.strip().splitlines()[-1:]}
    return {**json.loads(result.stdout.strip().splitlines()[-1]), "batch": batch}


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    parser.add_argument("--variants", nargs="*", default=["default", NT], choices=VARIANTS)
    parser.add_argument("--nt-venv", default=os.environ.get("NEURAL_TANGENTS_VENV"),
                        help="the side venv with neural-tangents (default: $NEURAL_TANGENTS_VENV)")
    parser.add_argument("--nt-batch", type=int, nargs="*", help="neural-tangents batch sizes (default: per case)")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(*args.one)))
        return
    import numpy as np
    import torch
    variants = list(args.variants)
    python, about = (None, "") if NT not in variants else side_python(args.nt_venv)
    if NT in variants and python is None:
        print(f"neural-tangents: skipped ({about}). To include it, create the side environment (~1 min, 2.6 GB):\n"
              f"  {INSTALL}\nand pass --nt-venv /work/nt-venv (or set NEURAL_TANGENTS_VENV).")
        variants.remove(NT)
    print(f"{datetime.date.today()}, {cpu_name()}, {os.cpu_count()} cores, torch {torch.__version__} with "
          f"{torch.get_num_threads()} threads, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"load {os.getloadavg()[0]:.2f}" + (f"; {about}" if python else ""))
    best: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for name in args.cases:                       # the same inputs for both packages
            files[name] = str(Path(tmp) / f"{name}.npy")
            np.save(files[name], inputs(CASES[name][1]).numpy())
        for _ in range(args.rounds):                  # interleaved: every variant of every case per round
            for name in args.cases:
                for variant in variants:
                    out = str(Path(tmp) / f"{name}.{variant}.npy")
                    if variant == NT:
                        n = CASES[name][1][0]
                        for batch in [b for b in args.nt_batch or CASES[name][2] if b == 0 or n % b == 0]:
                            r = run_nt(python, name, batch, files[name], str(Path(tmp) / f"{name}.nt{batch}.npy"))
                            old = best.get((name, variant))
                            if old is None or not r["seconds"] >= old["seconds"]:
                                best[name, variant] = r
                    else:
                        r = run_ours(name, variant, out)
                        old = best.get((name, variant))
                        if old is None or r["seconds"] < old["seconds"]:
                            best[name, variant] = r
                    print(f"  {name:<18} {variant:<16} {r['seconds']:8.2f} s", flush=True)
        agreement = {}
        for name in args.cases:
            nt, ours = best.get((name, NT)), Path(tmp) / f"{name}.default.npy"
            if nt and "ntk" in nt and ours.exists():
                a, b = np.load(nt["ntk"]), np.load(ours)
                agreement[name] = float(np.abs(a - b).max() / np.abs(b).max())
    print(f"load after: {os.getloadavg()[0]:.2f}")
    ours_variants = [v for v in variants if v != NT]
    header = f"| case | {NT} (batch) | " * (NT in variants) or "| case | "
    header += " | ".join(ours_variants) + (" | ratio NT / default | NTK agreement |" if NT in variants else " |")
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for name in args.cases:
        cells = [name]
        if NT in variants:
            r = best.get((name, NT), {})
            cells.append(f"{r.get('seconds', float('nan')):.2f} s ({r.get('batch', '-')})" if "failed" not in r
                         else f"failed: {r['failed']}")
        for variant in ours_variants:
            r = best[name, variant]
            cell = f"{r['seconds']:.2f} s"
            if "error" in r:
                cell += f" ({r['error']:.0e})"
            cells.append(cell)
        if NT in variants:
            nt, ours = best.get((name, NT), {}).get("seconds"), best.get((name, "default"), {}).get("seconds")
            cells.append(f"{nt / ours:.1f}x" if nt and ours and nt == nt else "-")
            cells.append(f"{agreement[name]:.0e}" if name in agreement else "-")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
