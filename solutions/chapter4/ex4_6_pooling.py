# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.6 · Alternatives to max pooling
#
# *Chapter 4.2.3, lesson 03.* Max pooling has no closed-form kernel. Work with one pair of 1-D inputs: a pixel-pair
# matrix `K` of shape (P, P) holds the covariance of position $p$ of one input with position $p'$ of the other.
# Points: (a) 1 + 3 hidden, (b) 2 manual.

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) Average pooling exactly, max pooling by Monte Carlo
#
# `avgpool_kernel(K, window, stride)`: average pooling (no padding) is a linear map $A$; return $A K A^\top$.
#
# `maxpool_nngp_mc(cov, n_samples, seed)`: `cov` is the $(2w)\times(2w)$ covariance of the pre-activations
# $(u_1..u_w, v_1..v_w)$ of one window in each input; return the Monte Carlo estimate of
# $\mathbb E[\max_a \mathrm{relu}(u_a)\cdot\max_b \mathrm{relu}(v_b)]$ from `n_samples` draws with `torch.Generator().manual_seed(seed)`.

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "pooling", "schema_version": 3}
def avgpool_kernel(K, window, stride):
    ### BEGIN SOLUTION
    positions = K.shape[0]
    outputs = (positions - window) // stride + 1
    A = torch.zeros(outputs, positions, dtype=K.dtype)
    for i in range(outputs):
        A[i, i * stride: i * stride + window] = 1 / window
    return A @ K @ A.T
    ### END SOLUTION


def maxpool_nngp_mc(cov, n_samples, seed):
    ### BEGIN SOLUTION
    w = cov.shape[0] // 2
    g = torch.Generator().manual_seed(seed)
    chol = torch.linalg.cholesky(cov + 1e-12 * torch.eye(2 * w, dtype=cov.dtype))
    samples = torch.randn(n_samples, 2 * w, generator=g, dtype=cov.dtype) @ chol.T
    relu = torch.relu(samples)
    return float((relu[:, :w].max(1).values * relu[:, w:].max(1).values).mean())
    ### END SOLUTION

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
pooled = avgpool_kernel(torch.eye(6, dtype=torch.float64), 2, 2)
assert pooled.shape == (3, 3) and torch.allclose(pooled, 0.5 * torch.eye(3, dtype=torch.float64))
cov = torch.eye(4, dtype=torch.float64)
estimate = maxpool_nngp_mc(cov, 20000, 0)
assert isinstance(estimate, float) and estimate > 0
print("visible tests passed")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: average pooling against ntk_helpers; Monte Carlo against a reference; max differs from average.
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(1)
a = torch.randn(9, 9, generator=g, dtype=torch.float64)
K = a @ a.T
for window, stride in [(2, 2), (3, 1), (2, 3)]:
    reference = nh.spatial.avg_pool_pairs(K.reshape(1, 9, 1, 9), (1, window), (1, stride)).reshape(
        (9 - window) // stride + 1, -1)
    assert torch.allclose(avgpool_kernel(K, window, stride), reference, rtol=1e-12)
b = torch.randn(4, 4, generator=g, dtype=torch.float64)
cov = b @ b.T / 4 + 0.2 * torch.eye(4, dtype=torch.float64)
chol = torch.linalg.cholesky(cov)
z = torch.randn(200000, 4, generator=torch.Generator().manual_seed(99), dtype=torch.float64) @ chol.T
reference = float((torch.relu(z[:, :2]).max(1).values * torch.relu(z[:, 2:]).max(1).values).mean())
assert abs(maxpool_nngp_mc(cov, 100000, 5) / reference - 1) < 0.03
average = float((torch.relu(z[:, :2]).mean(1) * torch.relu(z[:, 2:]).mean(1)).mean())
assert abs(maxpool_nngp_mc(cov, 100000, 5) / average - 1) > 0.05
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Which down-sampling layers keep an exact, analytic kernel, and why does max pooling not?

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: any fixed linear map keeps the recursion exact: average pooling ($K\mapsto AKA^\top$), global average pooling
# (exact, and gives invariance), strided convolution (subsample positions), a fixed blur then subsampling.
# 1 point: max (or softmax/attention) pooling picks an input-dependent position, so its kernel is a Gaussian
# expectation over the whole window ($2|w|$-dimensional) without closed form: Monte Carlo (Novak et al. 2019).
#
# **Model answer.**
# Linear, input-independent down-sampling keeps the kernel exact: average pooling, global average pooling, strided
# convolutions and fixed low-pass filters followed by subsampling all act on kernels as $K\mapsto AKA^\top$ or as a
# subsampling of positions. Max pooling chooses a different position for every channel and input; its kernel is an
# expectation over the joint Gaussian of the whole window, which has no closed form, so it is estimated by Monte Carlo.
