# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.8 · Activation and double descent
#
# *Chapter 4.5.* Random-features regression: $N$ features $\phi(w_j\cdot x/\sqrt d)$ with $w_j \sim \mathcal N(0, I_d)$, fitted
# to $n$ noisy labels by minimum-norm least squares. Points: (a) 1 + 3 hidden, (b) 2 manual.

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `rf_test_error(activation, N, n, d, noise, seed)`
#
# With `g = torch.Generator().manual_seed(seed)` draw, in this order: `beta` (d,), training inputs (n, d), test
# inputs (500, d), label noise (n,), and the weights (N, d), all standard normal float64. Targets:
# $y = x\cdot\beta/\sqrt d$ (+ `noise` × the label noise on training points). `activation` is `"relu"` or `"erf"`.
# Return the test mean squared error of the min-norm least-squares fit (`torch.linalg.lstsq` or `pinv`).

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "rf_test_error", "schema_version": 3}
def rf_test_error(activation, N, n, d, noise, seed):
    ### BEGIN SOLUTION
    g = torch.Generator().manual_seed(seed)
    beta = torch.randn(d, generator=g, dtype=torch.float64)
    x_train = torch.randn(n, d, generator=g, dtype=torch.float64)
    x_test = torch.randn(500, d, generator=g, dtype=torch.float64)
    label_noise = torch.randn(n, generator=g, dtype=torch.float64)
    w = torch.randn(N, d, generator=g, dtype=torch.float64)
    phi = torch.relu if activation == "relu" else torch.erf
    features = lambda x: phi(x @ w.T / math.sqrt(d))
    y_train = x_train @ beta / math.sqrt(d) + noise * label_noise
    coef = torch.linalg.pinv(features(x_train)) @ y_train
    return float(((features(x_test) @ coef - x_test @ beta / math.sqrt(d)) ** 2).mean())
    ### END SOLUTION

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
value = rf_test_error("relu", 50, 100, 20, 0.5, 0)
assert isinstance(value, float) and value >= 0
assert rf_test_error("relu", 50, 100, 20, 0.5, 0) == value, "fixed seeds must give the same number"
print("visible tests passed")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: the peak sits at N = n for both activations; many features beat few; values match the reference.
### BEGIN HIDDEN TESTS
grid = [25, 50, 100, 200, 1000]
for activation in ("relu", "erf"):
    errors = [sum(rf_test_error(activation, N, 100, 20, 0.5, s) for s in range(3)) / 3 for N in grid]
    assert grid[errors.index(max(errors))] == 100, (activation, errors)
    assert errors[-1] < errors[1]
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Where does double descent come from, does the infinite-width (kernel) limit show it, and is one activation better?

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: the peak appears for finite random features at $N\approx n$ (ridgeless), driven by label noise and the
# ill-conditioned feature matrix; in the kernel ($N\to\infty$) limit there is no width-wise double descent.
# 1 point: which activation wins depends on the target and noise (Hermite coefficients, eigen-decay; Mei & Montanari
# 2019, Adlam & Pennington 2020); no universal answer; spectral bias helps smooth targets and hurts high frequencies.
#
# **Model answer.**
# With exactly as many features as training points the min-norm fit must interpolate noisy labels with a nearly
# singular feature matrix, so the test error peaks at $N\approx n$; adding features lets the minimum-norm solution
# average the noise away, and the $N\to\infty$ limit is kernel regression, which has no such peak in width. Which
# activation does better depends on the target and the noise through the activation's Hermite coefficients and
# eigen-decay; there is no universal ranking.
