# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.7 · Kernel collapse and the effective rank of a 50-layer MLP
#
# *Chapter 4.1.2, lessons 02 and 08.* $r_\text{eff}(K) = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$; centering is $HKH$ with
# $H = I - \mathbf 1\mathbf 1^\top/n$. Do not call `nh.effective_rank` or `nh.center` in (a).
# Points: (a) 1 + 3 hidden, (b) 2 manual.

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `reff(K)`, `center(K)`, `depth_sweep(X, Xt, y, yt, depths)`
#
# `depth_sweep` returns the list of test mean squared errors of ridgeless NTK regression (ReLU MLP, `nh.mlp(L)`, with
# the NTK from `nh.mlp(L).kernel`) for each depth L; solve with `torch.linalg.solve` or `nh.kernel_regression`.

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "rank_and_sweep", "schema_version": 3}
def reff(K):
    ### BEGIN SOLUTION
    return float(torch.trace(K) ** 2 / (K * K).sum())
    ### END SOLUTION


def center(K):
    ### BEGIN SOLUTION
    n = K.shape[0]
    H = torch.eye(n, dtype=K.dtype) - 1.0 / n
    return H @ K @ H
    ### END SOLUTION


def depth_sweep(X, Xt, y, yt, depths):
    ### BEGIN SOLUTION
    n = X.shape[0]
    errors = []
    for L in depths:
        K = nh.mlp(L).kernel(torch.cat([X, Xt])).ntk
        prediction = nh.kernel_regression(K[:n, :n], K[n:, :n], y)
        errors.append(float(((prediction - yt) ** 2).mean()))
    return errors
    ### END SOLUTION

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
assert abs(reff(torch.eye(7, dtype=torch.float64)) - 7) < 1e-12
assert abs(reff(torch.ones(7, 7, dtype=torch.float64)) - 1) < 1e-12
assert torch.allclose(center(torch.ones(5, 5, dtype=torch.float64)), torch.zeros(5, 5, dtype=torch.float64), atol=1e-12)
print("visible tests passed")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: values against ntk_helpers; the 50-layer NTK is "constant + white noise"; test error rises with depth.
### BEGIN HIDDEN TESTS
X = nh.sphere(100, 10, seed=1)
K50 = nh.mlp(50).kernel(X).ntk
assert abs(reff(K50) - nh.effective_rank(K50)) < 1e-9
assert torch.allclose(center(K50), nh.center(K50), atol=1e-9)
assert reff(center(K50)) > 0.9 * 100 and reff(nh.mlp(50).kernel(X).nngp) < 1.1
data = nh.sphere(300, 10, seed=1)
a, b = nh.sphere(2, 10, seed=7) / math.sqrt(10)
target = torch.cos(2 * data @ a / math.sqrt(10)) + data @ b / math.sqrt(10)
errors = depth_sweep(data[:100], data[100:], target[:100], target[100:], [1, 5, 20, 50])
assert all(e1 < e2 for e1, e2 in zip(errors, errors[1:])) and errors[-1] > 0.4 * float(target[100:].var())
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) What does a 50-layer ReLU NTK look like, and why does depth hurt test error in the kernel regime?

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: the deep NNGP collapses to a constant ($r_\text{eff}\approx 1$); the deep NTK tends to
# $(L+1)q[\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top]$: $r_\text{eff}\approx 12$ raw, $\approx n$ after centering — constant plus white noise,
# full rank. Mechanism: the marginal correlation map ($1 - c_l \approx 9\pi^2/2l^2$), not dead units.
# 1 point: such a kernel still interpolates the training set but predicts roughly the label mean elsewhere, so test
# error rises with depth; outside the kernel regime (feature learning, good initialization) depth can help.
#
# **Model answer.**
# The NNGP becomes nearly constant (effective rank ≈ 1) while the NTK becomes ≈ ¾I + ¼11ᵀ times $(L+1)q$: its raw
# effective rank is about 12 and after centering close to $n$. It is full rank, so regression still fits every training
# point, but off the training set it predicts close to a constant, and test error grows with depth. This is the
# marginal correlation map at work, not dead units; with feature learning the NTK analysis no longer applies.
