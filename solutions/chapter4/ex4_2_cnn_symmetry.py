# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.2 · Which shift symmetries does a CNN kernel have, and which readout gives them?
#
# *Chapter 4.2, lesson 03.* The chapter asks why CNN kernels are "equivariant rather than invariant" and claims the
# Gram matrix over data depends on the "relative position" of inputs. That premise mixes up data and pixel indices,
# so the question is re-posed: compute a 1-D CNN kernel yourself and test its symmetries.
#
# Architecture (all conventions as in `ntk_helpers`): inputs `X` of shape (n, C, P) (1-D signals); `depth` blocks of
# [conv with filter size `k`, $\sigma_w^2 = 2$, no bias → ReLU]; then the readout `"gap"` (average over positions)
# or `"flatten"`; then a dense readout with $\sigma_w = 1$, no bias. Padding `"circular"` (wrap around) or `"same"`
# (zeros, $\lfloor (k-1)/2\rfloor$ on the left, the rest on the right). Input kernel:
# $\Sigma^{(0)}_{p,p'}(x,x') = \frac1C\sum_c x_{c,p}x'_{c,p'}$. Conv: $\Sigma'_{p,p'} = \frac{\sigma_w^2}{k}\sum_{a}\Sigma_{p+a,p'+a}$,
# $\Theta'_{p,p'} = \Sigma'_{p,p'} + \frac{\sigma_w^2}{k}\sum_a \Theta_{p+a,p'+a}$ (padded entries are 0 or wrap around).
# Do not call `nh.conv` in your answer. Points: (a) 1 + 3 hidden, (b) 2 manual.

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `cntk_1d(X, depth, k, readout, padding)` → the (n, n) NTK, float64

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "cntk_1d", "schema_version": 3}
def cntk_1d(X, depth, k, readout, padding):
    ### BEGIN SOLUTION
    n, channels, positions = X.shape
    left = (k - 1) // 2
    offsets = [a - left for a in range(k)]

    def conv(t):                                   # (n, n, P, P): shared-offset sum over both positions
        out = torch.zeros_like(t)
        for o in offsets:
            if padding == "circular":
                out += torch.roll(t, shifts=(-o, -o), dims=(2, 3))
            else:
                src = slice(max(o, 0), positions + min(o, 0))
                dst = slice(max(-o, 0), positions - max(o, 0))
                out[:, :, dst, dst] += t[:, :, src, src]
        return 2.0 * out / k

    sigma = torch.einsum("icp,jcq->ijpq", X, X) / channels
    theta = torch.zeros_like(sigma)
    for _ in range(depth):
        sigma = conv(sigma)
        theta = sigma + conv(theta)
        var = torch.diagonal(torch.diagonal(sigma, dim1=0, dim2=1), dim1=0, dim2=1)    # (n, P): Sigma_pp(x_i, x_i)
        q = var[:, None, :, None] * var[None, :, None, :]
        r = (q - sigma ** 2).clamp_min(0).sqrt()
        angle = torch.atan2(r, sigma)
        e = (r + (math.pi - angle) * sigma) / (2 * math.pi)
        e_dot = (math.pi - angle) / (2 * math.pi)
        sigma, theta = e, e_dot * theta
    if readout == "gap":
        nngp, ntk = sigma.mean((2, 3)), theta.mean((2, 3))
    else:
        nngp = torch.diagonal(sigma, dim1=2, dim2=3).mean(-1)
        ntk = torch.diagonal(theta, dim1=2, dim2=3).mean(-1)
    return nngp + ntk
    ### END SOLUTION

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
g = torch.Generator().manual_seed(0)
X = torch.randn(4, 2, 8, generator=g, dtype=torch.float64)
theta = cntk_1d(X, 2, 3, "gap", "circular")
assert theta.shape == (4, 4) and theta.dtype == torch.float64
assert torch.allclose(theta, theta.T), "a Gram matrix is symmetric"
shifted = torch.roll(X, 3, dims=-1)
both = torch.cat([shifted[:1], X[1:]])
assert torch.allclose(cntk_1d(both, 2, 3, "gap", "circular")[0, 1:], theta[0, 1:], rtol=1e-10), \
    "with GAP and circular padding, shifting one input must not change the kernel"
print("visible tests passed")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: flatten is only jointly shift invariant; "same" padding values against ntk_helpers.
### BEGIN HIDDEN TESTS
flat = cntk_1d(X, 2, 3, "flatten", "circular")
flat_one = cntk_1d(torch.cat([shifted[:1], X[1:]]), 2, 3, "flatten", "circular")
assert float((flat_one[0, 1:] - flat[0, 1:]).abs().max() / flat.abs().max()) > 1e-2
assert torch.allclose(cntk_1d(shifted, 2, 3, "flatten", "circular"), flat, rtol=1e-10)
images = X[:, :, None, :]
for readout, layer in [("gap", nh.global_avg_pool()), ("flatten", nh.flatten())]:
    for k in (3, 2):
        conv = lambda: nh.conv(kernel_size=(1, k), padding="same", sigma_w=math.sqrt(2))
        reference = nh.serial(conv(), nh.relu(), conv(), nh.relu(), layer, nh.dense(1)).kernel(images).ntk
        assert torch.allclose(cntk_1d(X, 2, k, readout, "same"), reference, rtol=1e-8, atol=1e-10), (readout, k)
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Which symmetries, which readout?
#
# Where does translation *equivariance* live in the kernel, why is the $n\times n$ Gram matrix not Toeplitz, and
# which readout makes the NTK shift *invariant*? What changes with zero padding?

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: equivariance is a property of the pixel-pair tensor, $\Sigma_{p+s,p'+s}(T_sx, T_sx') = \Sigma_{p,p'}(x,x')$
# (circular padding); the Gram matrix is indexed by data points, which have no positions, so no Toeplitz structure.
# 1 point: GAP gives $\Theta(T_s x, x') = \Theta(x,x')$; flatten only $\Theta(T_sx, T_sx') = \Theta(x,x')$ and equals the
# locally connected network's kernel; zero padding breaks both near the borders.
#
# **Model answer.**
# Convolutions commute with shifts, so the pixel-pair kernel tensor is jointly shift-equivariant; data indices are
# not positions, so the Gram matrix has no Toeplitz structure. Global average pooling averages over all position
# pairs and makes the NTK invariant to shifting one input; flatten keeps only $p = p'$ and is invariant only to
# joint shifts (it is the locally connected kernel). Zero padding breaks exactness at the borders.
