"""Compiled paths (numba) for CNN and MLP kernels, assembled from the layers' pair rules
(:mod:`~ntk_helpers.engine.rules`).

**Rules, not layers.** :func:`plan` reads each layer's ``pair_rule()``: weight layers (``Affine``: sigma_w^2,
sigma_b^2 and the filter geometry), activations (``Dual``: the constants (a, b) of a piecewise-linear function, or a
scalar function (cov, var1, var2) -> (E, Edot) that :mod:`.duals` compiles into a row function) and the readout.
The fused functions below run those steps in order; a layer or a registered activation that declares its rule is
covered without a change here, and this package imports no layer module (tests/test_imports.py).

**Pooled CNNs** (:mod:`.images`): every pixel pair of one pair of images, all layers fused, in the CPU cache.
A network of convolutions and activations with closed-form duals read out by ``global_avg_pool()`` needs all
(p, p') pixel pairs of every pair of inputs: n1 * n2 * (H W)^2 entries per layer. The eager path (each layer's
``transform`` on blocks of pair tensors) makes about 25 passes over them per layer through main memory. Here one
compiled function (numba) takes one pair of images (x_i, x_j) at a time and runs all of its layers on a
(H W, H W) buffer that stays in the cache:

    F = x_i^T x_j / C,  G = 0                                     (the input "layer"; pixel pairs (p, p'))
    per conv + activation:
        A_{p,p'} = sum_dx F_{p+dx, p'+dx},  then  Sigma_{p,p'} = sigma_w^2 / (kh kw) sum_dy A_{p+dy W, p'+dy W}
        + sigma_b^2 (the shared-offset sum of lesson 03, split into a pass along x and a pass along y; the same
        for G into Theta), and in the same sweep the activation's dual: F = E(Sigma), G = Edot(Sigma) * Theta
    readout: mean of F and of G over all (p, p')                 -> NNGP and NTK of the pair (i, j)

The pairs (i, i) go first: their diagonals Sigma_{p,p}(x_i, x_i) are the variances every later pair needs,
computed by the very same arithmetic, so that sqrt(Sigma_pp Sigma_p'p' - Sigma_pp'^2) is exactly 0 where an
image meets itself. For a Gram matrix only the pairs i <= j are computed. The angle of the arc-cosine
kernel (Cho & Saul 2009) is atan2(r, Sigma) from a branch-free rational approximation (the coefficients of
Moshier's Cephes ``atan``, error below 5e-16), so that the loops vectorize; erf's and GELU's duals use it too.

That layout (convolutions of one filter size, stride 1, zero "same" padding, each with at most one activation)
has this hand-fused function. **Every other CNN of closed-form layers** (stride, dilation, "valid" or circular
padding, several filter sizes, ``avg_pool``, ``layer_norm``, ``batch_norm(frozen=True)``, residual blocks, and
``flatten()`` readouts, which need only the pairs p = p' after the last layer that mixes positions) becomes a
:class:`~.plans.Program`, a list of operations on the pixel pairs of one pair of images that :mod:`.programs` runs
in the same way: in the cache, the pairs (i, i) first, every entry by the same arithmetic whichever thread.

**MLPs** (:mod:`.vectors`): dense layers (NTK parameterization) each followed by at most one activation with a
closed-form dual. Each entry of the kernel goes through all layers in one sweep over a row, in place in two
(n1, n2) arrays (the eager path allocates fresh (n1, n2) temporaries for every operation of every layer); a Gram
matrix is computed for j >= i and mirrored. Each input's own variances go first, by the same arithmetic.

The threads of ``torch.get_num_threads()`` share the work; every entry is computed by the same arithmetic
whichever thread takes it, so results do not depend on the thread count. ``Layer.kernel``
(:mod:`~ntk_helpers.engine.evaluation`) takes this path by itself when :func:`plan` accepts the architecture and
the inputs (``compiled=False`` forces the eager path, ``compiled=True`` insists and says why it cannot), and
applies the eager rules of the layers after the readout. The first call in a process compiles (a few seconds;
numba caches the machine code on disk for later processes). Measured by ``benchmarks/bench_cnn_kernel.py``
(README, "Benchmarks").
"""

from ._numba import numba
from .angle import _angle
from .images import pooled_kernel
from .plans import Plan, Program, VectorPlan, plan
from .vectors import vector_kernel

__all__ = ["Plan", "Program", "VectorPlan", "plan", "pooled_kernel", "vector_kernel"]
