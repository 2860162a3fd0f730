# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.8 · Activation and double descent
#
# *Chapter 4.5, lesson 06.* Random-features regression: $N$ features $\phi(w_j\cdot x/\sqrt d)$, $j = 1..N$, with fixed
# random weights $w_j\in\mathbb R^d$, fitted to $n$ noisy labels by minimum-norm least squares. This is a two-layer
# network in which only the output layer is trained; as $N\to\infty$ it becomes kernel regression.
# Points: (a) 1 + 3 hidden, (b) 2 manual.

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_scalar


def draw(N, n, d, seed, n_test=500):
    """The random ingredients of one experiment: (W, beta, x_train, x_test, eps), float64 standard normal."""
    g = torch.Generator().manual_seed(seed)
    beta = torch.randn(d, generator=g, dtype=torch.float64)
    x_train = torch.randn(n, d, generator=g, dtype=torch.float64)
    x_test = torch.randn(n_test, d, generator=g, dtype=torch.float64)
    eps = torch.randn(n, generator=g, dtype=torch.float64)
    W = torch.randn(N, d, generator=g, dtype=torch.float64)
    return W, beta, x_train, x_test, eps

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `rf_test_error(activation, W, beta, x_train, x_test, eps, noise)`
#
# All randomness comes in as arguments (torch float64 tensors; `draw` above makes them): the weights `W` $(N, d)$,
# the target direction `beta` $(d,)$, the inputs `x_train` $(n, d)$ and `x_test` $(n_t, d)$, and standard normal label
# noise `eps` $(n,)$; `noise` $\ge 0$ is the noise level and `activation` is `"relu"` or `"erf"`.
#
# 1. Features: $\Phi_{ij} = \phi(x_i\cdot w_j/\sqrt d)$ for the training inputs, $(n, N)$, and likewise for the
#    test inputs.
# 2. Target $f^*(x) = x\cdot\beta/\sqrt d$. Training labels $y = f^*(x_\text{train}) + \texttt{noise}\cdot\texttt{eps}$.
# 3. Coefficients: the minimum-norm least-squares solution $a = \Phi^+ y$ (`torch.linalg.pinv`, `torch.linalg.lstsq`,
#    `numpy.linalg.lstsq` or an equivalent; no ridge).
# 4. Return the **test mean squared error** against the noiseless target,
#    $\frac1{n_t}\sum_i (\Phi_\text{test}a - f^*(x_\text{test}))_i^2$, as one number (a Python float, NumPy scalar
#    or 0-d tensor).
#
# The tests compare with a reference on several draws, both activations, with and without noise, at $N\ne n$,
# with a relative tolerance of $10^{-6}$; and they check that the error peaks at $N = n$.
#
# <details><summary>Hint 1</summary>
#
# The $1/\sqrt d$ keeps the pre-activations $x\cdot w_j/\sqrt d$ of order one (here $x$ and $w_j$ are standard normal, so
# $x\cdot w_j$ has variance $d$). It does not change anything for ReLU, which is positively homogeneous (lesson 06,
# section 4.5.1), but erf saturates, so for erf it matters.
# </details>
#
# <details><summary>Hint 2</summary>
#
# For $N < n$, $\Phi^+ y$ is the ordinary least-squares fit; for $N > n$ it is the interpolating solution of smallest
# norm, $\Phi^\top(\Phi\Phi^\top)^{-1}y$. `torch.linalg.pinv(Phi) @ y` covers both.
# </details>

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "rf_test_error", "schema_version": 3}
def rf_test_error(activation, W, beta, x_train, x_test, eps, noise):
    ### BEGIN SOLUTION
    d = W.shape[1]
    phi = torch.relu if activation == "relu" else torch.erf
    features = lambda x: phi(x @ W.T / math.sqrt(d))
    target = lambda x: x @ beta / math.sqrt(d)
    coef = torch.linalg.pinv(features(x_train)) @ (target(x_train) + noise * eps)
    return float(((features(x_test) @ coef - target(x_test)) ** 2).mean())
    ### END SOLUTION

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible tests: both activations, n = 100, d = 20, noise 0.5, below (N = 50) and above (N = 400) the threshold.
for activation, N, expected in [("relu", 50, 0.6529671069), ("erf", 400, 0.2198692301)]:
    name = f"rf_test_error({activation!r}, *draw({N}, 100, 20, seed=0), noise=0.5)"
    value = as_scalar(rf_test_error(activation, *draw(N, 100, 20, seed=0), 0.5), name=name)
    assert abs(value / expected - 1) <= 1e-6, f"{name}: expected {expected:.10g}, got {value:.10g}"
print("visible tests passed")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: values against the reference on other draws, sizes and noise levels; the peak at N = n.
### BEGIN HIDDEN TESTS
def reference_error(activation, W, beta, x_train, x_test, eps, noise):
    d = W.shape[1]
    phi = torch.relu if activation == "relu" else torch.erf
    F, F_test = phi(x_train @ W.T / math.sqrt(d)), phi(x_test @ W.T / math.sqrt(d))
    y = x_train @ beta / math.sqrt(d) + noise * eps
    coef = torch.linalg.lstsq(F, y[:, None], driver="gelsd").solution
    return float(((F_test @ coef[:, 0] - x_test @ beta / math.sqrt(d)) ** 2).mean())


for activation, N, noise, seed in [("relu", 30, 0.0, 1), ("erf", 30, 0.7, 2), ("erf", 300, 0.7, 3),
                                   ("relu", 300, 0.7, 4), ("erf", 160, 0.0, 5), ("erf", 45, 1.5, 6)]:
    args = draw(N, 80, 30, seed, n_test=300)
    name = f"rf_test_error({activation!r}, *draw({N}, 80, 30, seed={seed}, n_test=300), noise={noise})"
    value = as_scalar(rf_test_error(activation, *args, noise), name=name)
    expected = reference_error(activation, *args, noise)
    assert abs(value / expected - 1) <= 1e-6, f"{name}: expected {expected:.10g}, got {value:.10g}"

grid = [25, 50, 100, 200, 1000]
for activation in ("relu", "erf"):
    errors = [sum(as_scalar(rf_test_error(activation, *draw(N, 100, 20, s), 0.5)) for s in range(3)) / 3
              for N in grid]
    assert grid[errors.index(max(errors))] == 100, (
        f"{activation}: the mean test error should peak at N = n = 100, got {errors} at N = {grid}")
    assert errors[-1] < errors[1], f"{activation}: N = 1000 should beat N = 50: {errors}"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "measure_intro", "schema_version": 3}
# ### Measure (not graded)
#
# Your function over a range of $N$ ($n = 100$ training points, $d = 20$, mean of 3 draws), with label noise 0.5 and
# without noise. Use these numbers in (b).

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "measure", "schema_version": 3}
widths = [25, 50, 90, 100, 110, 200, 1000]
print(f"{'N =':>20}" + "".join(f"{N:>8}" for N in widths))
for noise in (0.5, 0.0):
    for activation in ("relu", "erf"):
        errors = [sum(as_scalar(rf_test_error(activation, *draw(N, 100, 20, s), noise)) for s in range(3)) / 3
                  for N in widths]
        print(f"{activation + ', noise ' + str(noise):<20}" + "".join(f"{e:8.3f}" for e in errors))

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Where does double descent come from, does the kernel limit show it, and is one activation better?
#
# The chapter asks which network, ReLU or erf, generalizes worse deep in the interpolating regime, and wants the
# answer from spectral bias. Answer the three questions of the title, using the numbers printed above.
#
# <details><summary>Hint</summary>
#
# Look at how well conditioned $\Phi$ is when $N = n$, and at what happens as $N\to\infty$ (a ridge, like early
# stopping in lesson 07, section "3. Early stopping is an implicit ridge", would remove the peak). For the
# activations: lesson 06, sections 4.5.2 and "The parity pitfall". Which part of each activation can represent the
# linear target $x\cdot\beta/\sqrt d$?
# </details>

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: the peak appears for finite random features at $N\approx n$ (ridgeless): $\Phi$ is square and badly
# conditioned, so the min-norm fit amplifies label noise (and the non-linear part of the features, which acts like
# extra noise for this target: the peak shrinks but stays without label noise); in the kernel ($N\to\infty$)
# limit there is no width-wise double descent: the error decreases towards that of kernel regression. (½ for the
# mechanism, ½ for the kernel limit.)
# 1 point: which activation wins depends on the target and the noise, not on a universal ranking: in random-features
# theory the error depends on the activation's Hermite coefficients, the linear one $\mu_1$ against the non-linear
# rest $\mu_*$ (Mei & Montanari 2019; Adlam & Pennington 2020), and in the kernel picture on the eigen-decay
# (spectral bias helps smooth targets, hurts high-frequency ones). For the linear target here erf does better in the
# printed numbers with label noise (at every $N$), because a larger share of it is linear; a target with even
# (e.g. quadratic) parts would favour ReLU, since erf has no even part at all. A bare "ReLU is better/worse" without
# the dependence gets 0 for this point.
#
# **Model answer.**
# With exactly as many features as training points the min-norm fit must interpolate noisy labels with a square,
# nearly singular feature matrix, so the test error peaks at $N\approx n$; the non-linear part of the features, which
# cannot help with a linear target, acts like extra noise (Mei & Montanari 2019), which is why a smaller peak remains
# without label noise. Adding features lets the
# minimum-norm solution spread the noise over many directions, and the $N\to\infty$ limit is kernel regression, which
# has no peak in $N$. Which activation does better depends on the target and the noise through the activation's
# Hermite coefficients and eigen-decay: here the target is linear and erf, whose features are closer to linear,
# wins at every $N$ printed with label noise (without noise the two are close at $N = 1000$); for a target with even
# components ReLU would win, because erf features are odd and cannot represent them at all.
