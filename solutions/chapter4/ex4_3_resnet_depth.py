# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.3 · Depth scaling of a ResNet NTK
#
# *Chapter 4.3, lesson 04.* Model (AUDIT §2(e), `nh.resnet(L, alpha=alpha)`): $x^{(0)} = \frac{\sigma_w}{\sqrt d}W^{(0)}x$;
# $x^{(l)} = x^{(l-1)} + \alpha\,\frac{\sigma_w}{\sqrt m}W^{(l)}\,\mathrm{relu}(x^{(l-1)})$ for $l = 1..L$; $f = \frac{1}{\sqrt m}v^\top x^{(L)}$;
# $\sigma_w^2 = 2$, no biases, NTK parameterization. The chapter argues each block adds $O(1)$, so the NTK is $O(L)$
# without scaling and $O(1)$ with $\alpha = 1/\sqrt L$, and elsewhere that the total is $O(\sqrt L)$. Compute it.
#
# Do not call `nh.resnet` or `nh.residual` in your answer. Points: (a) 1 + 3 hidden, (b) 2 manual.

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `resnet_ntk(X, L, alpha)` → the (n, n) NTK of $f$
#
# Hint: $\Sigma^{(l)} = \Sigma^{(l-1)} + \alpha^2\sigma_w^2 E^{(l-1)}$, $\Theta^{(l)} = (1 + \alpha^2\sigma_w^2\dot E^{(l-1)})\Theta^{(l-1)} + \alpha^2\sigma_w^2E^{(l-1)}$,
# starting from $\Sigma^{(0)} = \Theta^{(0)} = \sigma_w^2 x\cdot x'/d$; the readout gives $\Theta_f = \Sigma^{(L)} + \Theta^{(L)}$.

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "resnet_ntk", "schema_version": 3}
def resnet_ntk(X, L, alpha):
    ### BEGIN SOLUTION
    w2 = 2.0
    sigma = w2 * X @ X.T / X.shape[1]
    theta = sigma.clone()
    for _ in range(L):
        var = torch.diagonal(sigma)
        q = var[:, None] * var[None, :]
        r = (q - sigma ** 2).clamp_min(0).sqrt()
        angle = torch.atan2(r, sigma)
        e = (r + (math.pi - angle) * sigma) / (2 * math.pi)
        e_dot = (math.pi - angle) / (2 * math.pi)
        theta = (1 + alpha ** 2 * w2 * e_dot) * theta + alpha ** 2 * w2 * e
        sigma = sigma + alpha ** 2 * w2 * e
    return sigma + theta
    ### END SOLUTION

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
X = nh.sphere(5, 4, seed=0)                 # |x|^2 = d, so q0 = sigma_w^2 = 2
theta = resnet_ntk(X, 1, 1.0)
assert theta.shape == (5, 5)
assert torch.allclose(torch.diagonal(theta), torch.full((5,), 2.0 * 2 * 2.5, dtype=torch.float64)), \
    "L = 1, alpha = 1: Theta(x,x) = q0 (1+c)(2 + c/(1+c)) with c = 1"
print("visible tests passed")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: the closed-form diagonal, exponential growth for alpha = 1, the 3e q0 limit, nh.resnet.
### BEGIN HIDDEN TESTS
for L in (4, 16, 64):
    for alpha in (1.0, L ** -0.5, 1 / L):
        c = alpha ** 2
        expected = 2.0 * (1 + c) ** L * (2 + L * c / (1 + c))
        assert torch.allclose(torch.diagonal(resnet_ntk(X, L, alpha)), torch.full((5,), expected, dtype=torch.float64), rtol=1e-10)
slope = (math.log(resnet_ntk(X, 32, 1.0)[0, 0]) - math.log(resnet_ntk(X, 8, 1.0)[0, 0])) / 24
assert abs(slope - math.log(2)) < 0.05
assert abs(float(resnet_ntk(X, 512, 512 ** -0.5)[0, 0]) / 2.0 - 3 * math.e) < 0.05
assert torch.allclose(resnet_ntk(X, 6, 0.4), nh.resnet(6, alpha=0.4).kernel(X).ntk, rtol=1e-8)
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) How does the NTK scale with $L$ for $\alpha = 1$, $1/\sqrt L$, $1/L$, and what is wrong with "$\sum_l O(1/\sqrt L) = O(\sqrt L)$"?

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: per block the scale is multiplied by $1 + \alpha^2\sigma_w^2\mathbb E[\phi'^2]$: $\alpha = 1$ gives exponential
# growth ($\approx 2^L$), $\alpha = 1/\sqrt L$ a bounded limit ($3e\,q_0$), $\alpha = 1/L$ vanishing branches ($2q_0$).
# The chapter's additive $O(L)$ premise holds only under its additivity assumption.
# 1 point: the NTK sums squared gradient norms over separate parameter blocks: $L\cdot\alpha^2\cdot O(1)$, so $O(1)$
# for $\alpha = 1/\sqrt L$; adding $O(1/\sqrt L)$ amplitudes is the wrong arithmetic.
#
# **Model answer.**
# Each block multiplies both the forward variance and the backward signal by $(1 + \alpha^2\sigma_w^2/2)$ for ReLU:
# exponential growth for $\alpha=1$, a bounded limit $3e\,q_0$ for $\alpha = 1/\sqrt L$, and $2q_0$ for $\alpha = 1/L$.
# Different blocks have different parameters, so their contributions to the NTK are squared gradient norms of
# order $\alpha^2$ that add up to $L\alpha^2 = O(1)$; summing amplitudes $O(1/\sqrt L)$ is meaningless.
