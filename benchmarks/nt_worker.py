"""One neural-tangents measurement for ``bench_cnn_kernel.py``, run by the side environment's Python (not this
project's: neural-tangents is never one of its dependencies; see the README, "Benchmarks").

    <side venv>/bin/python benchmarks/nt_worker.py SPEC_JSON INPUTS.npy BATCH_SIZE OUT.npy

SPEC_JSON describes the architecture layer by layer, as ``bench_cnn_kernel.py`` writes it; INPUTS.npy holds the
inputs in torch's layout ((n, d) or (n, C, H, W), float64). The kernel is neural-tangents' ``stax`` analytic kernel
in float64 (``jax_enable_x64``), batched with ``nt.batch(kernel_fn, batch_size)`` (0: one call on all inputs; jitted
by ``nt.batch`` either way). With a batch size below n it is first called once on the first ``2 * batch_size`` inputs,
which compiles the block function the full computation reuses, so that the clock sees the computation only (as for
ntk_helpers, whose compiled code is loaded before its clock starts); with batch size 0 the one call includes XLA's
compilation. Prints one JSON line: seconds, and where the NTK (n, n) was saved.
"""

import json
import sys
import time


def stax_layer(stax, spec):
    kind, options = spec[0], spec[1] if len(spec) > 1 else {}
    if kind == "dense":
        return stax.Dense(options.get("out", 512), W_std=options["sigma_w"], b_std=options["sigma_b"])
    if kind == "conv":
        k, s = options["kernel_size"], options.get("stride", 1)
        return stax.Conv(8, (k, k), strides=(s, s), padding=options.get("padding", "same").upper(),
                         W_std=options["sigma_w"], b_std=options["sigma_b"])
    if kind == "relu":
        return stax.Relu()
    if kind == "erf":
        return stax.Erf()
    if kind == "gelu":
        return stax.Gelu(approximate=False)
    if kind == "avg_pool":
        w = options["window"]
        return stax.AvgPool((w, w), strides=(w, w), padding="VALID")
    if kind == "global_avg_pool":
        return stax.GlobalAvgPool()
    if kind == "flatten":
        return stax.Flatten()
    raise ValueError(f"no neural-tangents layer for {spec!r}")


def main() -> None:
    spec_json, inputs, batch_size, out = sys.argv[1:5]
    import jax
    jax.config.update("jax_enable_x64", True)
    import numpy as np
    import neural_tangents as nt
    from neural_tangents import stax

    spec = json.loads(spec_json)
    _, _, kernel_fn = stax.serial(*[stax_layer(stax, layer) for layer in spec])
    x = np.load(inputs)
    if x.ndim == 4:
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))          # NCHW -> NHWC, neural-tangents' layout
    x = jax.numpy.asarray(x)
    batch_size = int(batch_size)
    fn = nt.batch(kernel_fn, batch_size=batch_size, store_on_device=False)
    if 0 < batch_size < x.shape[0]:
        jax.block_until_ready(fn(x[:2 * batch_size], None, ("nngp", "ntk")))
    start = time.perf_counter()
    k = fn(x, None, ("nngp", "ntk"))
    ntk = np.asarray(jax.block_until_ready(k.ntk))
    seconds = time.perf_counter() - start
    np.save(out, ntk.reshape(ntk.shape[0], ntk.shape[1]))
    print(json.dumps({"seconds": seconds, "ntk": out}))


if __name__ == "__main__":
    main()
