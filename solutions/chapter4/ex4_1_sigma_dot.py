# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.1 · The role of $\dot\Sigma$; the identity activation
#
# *Chapter 4.1, lesson 02.* Conventions of the lessons (neural-tangents' `stax`): NTK parameterization,
# $\Sigma^{(1)}(x,x') = \sigma_w^2\,x\cdot x'/d + \sigma_b^2$, $\Theta^{(1)} = \Sigma^{(1)}$, and for $l = 1..L$
#
# $$\Sigma^{(l+1)} = \sigma_w^2 E^{(l)} + \sigma_b^2, \quad \dot\Sigma^{(l+1)} = \sigma_w^2 \dot E^{(l)}, \quad
#   \Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\,\Theta^{(l)},$$
#
# with $E = \mathbb E[\phi(u)\phi(v)]$, $\dot E = \mathbb E[\phi'(u)\phi'(v)]$ over $(u, v) \sim \mathcal N(0, [[q_{11}, q_{12}], [q_{12}, q_{22}]])$.
# The network has $L$ hidden layers and a linear readout, so its NNGP is $\Sigma^{(L+1)}$ and its NTK $\Theta^{(L+1)}$.
#
# You re-derive the recursion here, so do **not** call `nh.mlp(...).kernel` in your answer (the tests use it).
# Points: (a) 1 + 3 hidden, (b) 2 manual.

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) Dual activations and the recursion
#
# Write `dual(name, q11, q22, q12)` returning `(E, Edot)` for `name` in `"identity"`, `"relu"`, `"erf"` (closed
# forms: lesson 02 and the docstring of `ntk_helpers.activations`), working elementwise on float64 tensors, and
# `mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2)` returning `(nngp, ntk)`, both (n1, n2).

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "dual_and_recursion", "schema_version": 3}
def dual(name, q11, q22, q12):
    ### BEGIN SOLUTION
    if name == "identity":
        return q12.clone(), torch.ones_like(q12)
    if name == "relu":
        r = (q11 * q22 - q12 * q12).clamp_min(0).sqrt()
        theta = torch.atan2(r, q12)
        return (r + (math.pi - theta) * q12) / (2 * math.pi), (math.pi - theta) / (2 * math.pi)
    if name == "erf":
        a, b = 1 + 2 * q11, 1 + 2 * q22
        e = 2 / math.pi * torch.asin((2 * q12 / (a * b).sqrt()).clamp(-1, 1))
        return e, 4 / math.pi / (a * b - 4 * q12 * q12).sqrt()
    raise ValueError(f"unknown activation {name!r}")
    ### END SOLUTION


def mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2):
    ### BEGIN SOLUTION
    d = x1.shape[1]
    cross = sigma_w2 * x1 @ x2.T / d + sigma_b2
    v1 = sigma_w2 * (x1 * x1).sum(1) / d + sigma_b2
    v2 = sigma_w2 * (x2 * x2).sum(1) / d + sigma_b2
    ntk = cross
    for _ in range(depth):
        e, e_dot = dual(activation, v1[:, None], v2[None, :], cross)
        v1 = sigma_w2 * dual(activation, v1, v1, v1)[0] + sigma_b2
        v2 = sigma_w2 * dual(activation, v2, v2, v2)[0] + sigma_b2
        cross = sigma_w2 * e + sigma_b2
        ntk = cross + sigma_w2 * e_dot * ntk
    return cross, ntk
    ### END SOLUTION

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_identity_visible", "schema_version": 3}
g = torch.Generator().manual_seed(0)
x1, x2 = torch.randn(4, 3, generator=g, dtype=torch.float64), torch.randn(5, 3, generator=g, dtype=torch.float64)
e, e_dot = dual("identity", torch.ones(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64),
                torch.tensor([0.2, -0.5, 1.0], dtype=torch.float64))
assert torch.allclose(e_dot, torch.ones(3, dtype=torch.float64)), "for the identity, E[phi'(u) phi'(v)] = 1"
nngp, ntk = mlp_kernels(x1, x2, 3, "identity", 1.7, 0.0)
assert ntk.shape == (4, 5), "ntk must have shape (n1, n2)"
assert torch.allclose(ntk, 4 * 1.7 ** 4 * x1 @ x2.T / 3, rtol=1e-10), "deep linear network: (L+1) sigma_w^(2(L+1)) x.x'/d"
print("visible tests passed")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_recursion_hidden", "schema_version": 3}
# Hidden tests check the ReLU and erf duals and the recursion with biases against ntk_helpers.
### BEGIN HIDDEN TESTS
for act, w2, b2 in [("relu", 2.0, 0.0), ("relu", 1.3, 0.4), ("erf", 1.7, 0.2), ("identity", 1.0, 0.3)]:
    reference = nh.mlp(4, act, sigma_w=math.sqrt(w2), sigma_b=math.sqrt(b2)).kernel(x1, x2)
    nngp, ntk = mlp_kernels(x1, x2, 4, act, w2, b2)
    assert torch.allclose(nngp, reference.nngp, rtol=1e-8, atol=1e-10), (act, "nngp")
    assert torch.allclose(ntk, reference.ntk, rtol=1e-8, atol=1e-10), (act, "ntk")
_, scaled = mlp_kernels(2 * x1, 0.5 * x2, 2, "relu", 2.0, 0.0)
assert torch.allclose(scaled, mlp_kernels(x1, x2, 2, "relu", 2.0, 0.0)[1], rtol=1e-10)
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) What does $\dot\Sigma$ do, and what is the NTK of a deep linear network?
#
# In a few sentences: what is the role of $\dot\Sigma^{(l+1)}$ in the recursion, and what does depth change in the
# NTK of a network with the identity activation?

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: $\dot\Sigma^{(l+1)} = \sigma_w^2\mathbb E[\phi'\phi']$ is the backward ("gradient transmission") factor: it
# multiplies the previous layers' NTK, i.e. says how much of the lower layers' tangent features survives layer
# $l+1$; on the diagonal it is the $\chi_1$-type factor of mean-field theory.
# 1 point: for the identity $\dot E \equiv 1$, so $\dot\Sigma \equiv \sigma_w^2$ and (no bias)
# $\Theta^{(L+1)} = (L+1)\sigma_w^{2(L+1)} x\cdot x'/d$: a rescaled linear kernel; depth changes only the scale.
#
# **Model answer.**
# $\dot\Sigma$ carries gradients backwards: the NTK of layer $l+1$ is its own covariance plus $\dot\Sigma^{(l+1)}$ times the
# NTK of everything below, so $\dot\Sigma$ measures how much of the lower layers' parameter gradients reaches the
# output. For the identity activation $\dot\Sigma = \sigma_w^2$ is constant and the NTK is
# $(L+1)\sigma_w^{2(L+1)}x\cdot x'/d$ — the linear kernel, only rescaled by depth.
