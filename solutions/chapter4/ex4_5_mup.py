# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.5 · How μP breaks the kernel limit
#
# *Chapter 4.4.2, lesson 05.* A ReLU network with input dimension $d$, two hidden layers of width $m$ and a
# scalar output has three kinds of layer, as in Tensor Programs V (Yang et al. 2022), Table 3:
#
# $$h_1 = \phi(a_\text{in} W_\text{in} x), \qquad h_2 = \phi(a_\text{hid} W_\text{hid} h_1), \qquad
#   f(x) = a_\text{out} W_\text{out} h_2 ,$$
#
# with $W_\text{in}$ of shape $(m, d)$, $W_\text{hid}$ $(m, m)$ and $W_\text{out}$ $(1, m)$. Layer $\ell$ has a
# constant **multiplier** $a_\ell$, its trained weights start with i.i.d. entries $\mathcal N(0, v_\ell)$ (**initial
# variance** $v_\ell$), and SGD updates them with its own **learning rate** $\eta\,\lambda_\ell$:
# $W_\ell \leftarrow W_\ell - \eta\,\lambda_\ell\,\partial \mathcal L/\partial W_\ell$.
# Points: (a) 1 + 3 hidden, (b) 2 manual.

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_scalar

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `param_table(parameterization, m, d)`
#
# Return a dict `{"input": (a, v, lam), "hidden": (a, v, lam), "output": (a, v, lam)}` (multiplier, initial
# variance, learning-rate factor of each layer) for `parameterization` equal to
#
# - `"ntk"`: the NTK parameterization (lesson 05): $v = 1$, $a = 1/\sqrt{\text{fan-in}}$, one learning rate
#   ($\lambda = 1$);
# - `"standard"`: PyTorch's usual set-up: $a = 1$, $v = 1/\text{fan-in}$, one learning rate ($\lambda = 1$);
# - `"mup"`: μP for SGD (Tensor Programs V, Table 3; lesson 05, section 4.4.2).
#
# The entries are positive numbers (Python `float`/`int`, a NumPy scalar or a 0-d tensor all work); a tuple or a
# list of three per layer.
#
# **What is graded.** The trained quantity is the *effective* weight $a_\ell W_\ell$. It starts with variance
# $a_\ell^2 v_\ell$, and one SGD step moves it by
# $\eta\, a_\ell^2\lambda_\ell\,\partial\mathcal L/\partial(a_\ell W_\ell)$, so two combinations fix the training
# completely: the **effective initial variance** $a_\ell^2 v_\ell$ and the **effective learning rate**
# $a_\ell^2\lambda_\ell$. The tests evaluate your table at several widths $m$ (with $d$ fixed) and compare the
# exponent of $m$ in both combinations, for every layer and every parameterization, with the reference exponents
# (tolerance ±0.02). Constant factors (powers of $d$, $\sigma_w$, factors of 2) are **not** graded, and neither is
# how you split a power of $m$ between $a_\ell$, $v_\ell$ and $\lambda_\ell$: moving $m^{\theta}$ into $a_\ell$
# and $m^{-2\theta}$ into $v_\ell$ and $\lambda_\ell$ trains exactly the same network (lesson 05's table and
# Table 3 of the paper are two such forms). Once your function runs, `width_exponents("mup")` (defined below)
# returns the exponents of your table.
#
# <details><summary>Hint 1</summary>
#
# Lesson 05, section 4.4.2, has the table of all three parameterizations. For each layer work out $a^2 v$ and
# $a^2\lambda$ and read off the power of $m$; the input layer's fan-in is $d$, which is a constant here.
# </details>
#
# <details><summary>Hint 2</summary>
#
# μP differs from the NTK parameterization in the output multiplier ($1/m$ instead of $1/\sqrt m$) and in the
# learning rates, chosen so that every layer's pre-activations move by $\Theta(1)$ in one step at every width. In
# Table 3 of Tensor Programs V the multipliers are 1, so its initial variances and learning rates are already the
# effective ones.
# </details>

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "param_table", "schema_version": 3}
def param_table(parameterization, m, d):
    ### BEGIN SOLUTION
    if parameterization == "ntk":
        return {"input": (1 / math.sqrt(d), 1.0, 1.0), "hidden": (1 / math.sqrt(m), 1.0, 1.0),
                "output": (1 / math.sqrt(m), 1.0, 1.0)}
    if parameterization == "standard":
        return {"input": (1.0, 1 / d, 1.0), "hidden": (1.0, 1 / m, 1.0), "output": (1.0, 1 / m, 1.0)}
    if parameterization == "mup":
        return {"input": (1 / math.sqrt(d), 1.0, float(m * d)), "hidden": (1 / math.sqrt(m), 1.0, float(m)),
                "output": (1 / m, 1.0, float(m))}
    raise ValueError(f"unknown parameterization {parameterization!r}")
    ### END SOLUTION

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "exponents_helper", "schema_version": 3}
LAYERS = ("input", "hidden", "output")


def effective(parameterization, m, d):
    """{layer: (a^2 v, a^2 lam)} of param_table, as floats (checks the format on the way)."""
    table = param_table(parameterization, m, d)
    assert isinstance(table, dict) and set(table) == set(LAYERS), (
        f"param_table({parameterization!r}, {m}, {d}) must be a dict with keys {LAYERS}, got {table!r}")
    result = {}
    for layer in LAYERS:
        assert len(table[layer]) == 3, (
            f"{parameterization}, {layer}: expected a tuple (a, v, lam), got {table[layer]!r}")
        a, v, lam = (as_scalar(x, name=f"param_table({parameterization!r}, {m}, {d})[{layer!r}][{i}]")
                     for i, x in enumerate(table[layer]))
        assert all(math.isfinite(x) and x > 0 for x in (a, v, lam)), (
            f"{parameterization}, {layer}: entries must be positive and finite, got {(a, v, lam)}")
        result[layer] = (a * a * v, a * a * lam)
    return result


def width_exponents(parameterization, d=8, widths=(2 ** 8, 2 ** 12, 2 ** 16)):
    """{layer: (exponent of m in a^2 v, exponent of m in a^2 lam)}, fitted over `widths`.
    Raises if the entries are not a power of m over this range (the two half-ranges disagree)."""
    tables = [effective(parameterization, m, d) for m in widths]
    exponents = {}
    for layer in LAYERS:
        pair = []
        for k, what in enumerate(("a^2 v", "a^2 lam")):
            logs = [math.log(t[layer][k]) for t in tables]
            slopes = [(logs[i + 1] - logs[i]) / math.log(widths[i + 1] / widths[i])
                      for i in range(len(widths) - 1)]
            assert max(slopes) - min(slopes) < 0.01, (
                f"{parameterization}, {layer}: {what} is not a power of m (local exponents {slopes})")
            pair.append(round(sum(slopes) / len(slopes), 3))
        exponents[layer] = tuple(pair)
    return exponents


def check_exponents(parameterization, expected, d=8, widths=(2 ** 8, 2 ** 12, 2 ** 16)):
    measured = width_exponents(parameterization, d, widths)
    for layer in LAYERS:
        for k, what in enumerate(("effective initial variance a^2 v", "effective learning rate a^2 lam")):
            assert abs(measured[layer][k] - expected[layer][k]) <= 0.02, (
                f"{parameterization}, {layer} layer: the {what} scales as m^{measured[layer][k]:.2f}, "
                f"which is not the {parameterization} exponent (d = {d})")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible test: the format of all three tables and the width exponents of the muP table at d = 8.
for p in ("ntk", "standard", "mup"):
    effective(p, 64, 8)
check_exponents("mup", {"input": (0, 1), "hidden": (-1, 0), "output": (-2, -1)})
print("visible tests passed")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: the exponents of all three tables, at other input dimensions and widths.
### BEGIN HIDDEN TESTS
REFERENCE = {
    "ntk": {"input": (0, 0), "hidden": (-1, -1), "output": (-1, -1)},
    "standard": {"input": (0, 0), "hidden": (-1, 0), "output": (-1, 0)},
    "mup": {"input": (0, 1), "hidden": (-1, 0), "output": (-2, -1)},
}
for d in (8, 3, 100):
    for p, expected in REFERENCE.items():
        check_exponents(p, expected, d=d, widths=(100, 10_000, 1_000_000))
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "demo_intro", "schema_version": 3}
# ### See your tables train (not graded)
#
# The cell below trains the network above, built from your tables, for 30 SGD steps on 16 points, at widths
# 64, 256, 1024, and prints the relative change of the feature kernel $h_2 h_2^\top$. Use it in (b).

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "demo", "schema_version": 3}
def feature_change(parameterization, m, eta, steps=30, d=8, seed=0):
    x = nh.sphere(16, d, seed=0)
    y = torch.sin(2 * x[:, 0])
    table = {k: [as_scalar(e, name=k) for e in v] for k, v in param_table(parameterization, m, d).items()}
    g = torch.Generator().manual_seed(seed)
    shapes = {"input": (m, d), "hidden": (m, m), "output": (1, m)}
    weights = {k: math.sqrt(table[k][1]) * torch.randn(*shape, generator=g, dtype=torch.float64)
               for k, shape in shapes.items()}
    for w in weights.values():
        w.requires_grad_()

    def features():      # sqrt(2): the ReLU's sigma_w, a constant
        h = torch.relu(math.sqrt(2) * table["input"][0] * x @ weights["input"].T)
        return torch.relu(math.sqrt(2) * table["hidden"][0] * h @ weights["hidden"].T)

    start = features().detach()
    for _ in range(steps):
        loss = 0.5 * ((table["output"][0] * features() @ weights["output"][0] - y) ** 2).mean()
        grads = torch.autograd.grad(loss, list(weights.values()))
        with torch.no_grad():
            for (k, w), grad in zip(weights.items(), grads):
                w -= eta * table[k][2] * grad
    end = features().detach()
    return float((end @ end.T - start @ start.T).norm() / (start @ start.T).norm())


widths = [64, 256, 1024]
for p, eta in [("ntk", 1.0), ("mup", 0.05)]:
    changes = [feature_change(p, m, eta) for m in widths]
    print(f"{p:>4} (eta = {eta}): feature-kernel change {[round(c, 4) for c in changes]} at m = {widths}, "
          f"log-log slope {nh.loglog_slope(widths, changes):.2f}")

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) The dynamical dichotomy
#
# Yang & Hu (2021) show that, as $m\to\infty$, a stable parameterization (in their family of
# abc-parameterizations, lesson 05) that actually trains is either in a **kernel regime** (the NTK stays fixed during
# training) or in a **feature-learning regime** (hidden features move by $\Theta(1)$), never both.
#
# 1. Explain why both at once is impossible: what would features that move by $\Theta(1)$ do to the NTK? Which
#    entries of your tables put μP on the feature-learning side and the NTK parameterization on the kernel side?
# 2. "The NTK freezes" in the kernel regime: what does that mean for the parameters, and for the network's output,
#    during training? (Compare [errata A20](../../ERRATA.md#a20).)
#
# <details><summary>Hint</summary>
#
# Lesson 05, section 4.4.2: the NTK is a sum over layers of (layer input) × (back-propagated gradient) inner products,
# weighted by the effective learning rates. Look at the numbers the cell above printed.
# </details>

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point, question 1.
# ½: the argument: the NTK
# $\Theta(x, x') = \sum_\ell \eta_\ell\,\langle \partial f(x)/\partial W_\ell, \partial f(x')/\partial W_\ell\rangle$
# is built from each layer's input features $h_{\ell-1}$ and back-propagated gradients, so if features move by
# $\Theta(1)$ the kernel moves by $\Theta(1)$; a fixed kernel needs features that move by $o(1)$. Citing the
# dichotomy (either regime, not both) without this mechanism earns nothing for this half.
# ½: the entries: μP's output multiplier $1/m$ (effective initial variance $m^{-2}$, so $f_0\to 0$) together with
# effective learning rates $\propto m$ (input), $1$ (hidden), $1/m$ (output), which make every layer's
# pre-activations move by $\Theta(1)$; versus NTK's effective learning rates $\propto 1/m$ on the hidden and output
# weights (each weight moves by $O(m^{-1/2})$, the features by $O(1/m)$ to $O(m^{-1/2})$; the printed slopes are
# ≈ −1 for NTK and ≈ 0 for μP).
#
# 1 point, question 2: the linearization $f(\theta)\approx f(\theta_0) + \nabla f(\theta_0)(\theta-\theta_0)$
# stays exact and the kernel is constant, so training is kernel gradient descent; the parameters **do** move (each by
# a little, many of them, $\lVert\theta-\theta_0\rVert = O(1)$), and the output moves by $O(1)$: it fits the data.
# Answers saying that the parameters or the output stop moving get 0 for this point.
#
# **Model answer.**
# 1. The NTK is a sum over layers of products of each layer's input features with the gradients back-propagated to
#    it, weighted by the effective learning rates. If the hidden features changed by $\Theta(1)$ during training,
#    those products, and with them the kernel, would change by $\Theta(1)$: the kernel could not stay fixed. So a
#    parameterization has a fixed limiting kernel only if its features move by $o(1)$, which is the dichotomy. μP
#    multiplies the output by $1/m$ (effective initial variance $m^{-2}$, so the output starts at $0$ as
#    $m\to\infty$) and uses effective learning rates $m$, $1$, $1/m$ for the input, hidden and output layers; these
#    make every pre-activation move by $\Theta(1)$, and the printed feature change is flat in $m$. The NTK
#    parameterization has effective learning rates $1/m$ on the hidden and output weights: each weight moves by
#    $O(m^{-1/2})$, the features by about $1/m$ (slope ≈ −1 above), and the kernel freezes.
# 2. Frozen means that the linearization around the initial parameters stays valid and the kernel is constant, so
#    the network trains like kernel gradient descent. The parameters still move: each one only by a little, but there
#    are many of them. And the output moves by $O(1)$: it fits the training data.
