# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.5 · How μP breaks the kernel limit
#
# *Chapter 4.4.2, lesson 05.* A network with one hidden layer of width $m$ and input dimension $d$: every trainable
# weight is $\mathcal N(0,1)$, the input layer computes $\text{mult}_\text{in}\cdot W x$ and the output layer
# $\text{mult}_\text{out}\cdot v^\top\phi(\cdot)$; SGD uses learning rates $\eta\cdot\text{lr}_\text{in}$ and $\eta\cdot\text{lr}_\text{out}$.
# Points: (a) 1 + 3 hidden, (b) 2 manual.

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `param_table(parameterization, m, d)`
#
# Return `{"input": (mult_in, lr_in), "output": (mult_out, lr_out)}` for `"ntk"`, `"standard"` (PyTorch-like:
# weights $\mathcal N(0, 1/\text{fan-in})$ trained with one learning rate, rewritten in this form) and `"mup"`, with
# $\sigma_w = 1$. (Lesson 05 has the table; a test below trains networks built from your table.)

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "param_table", "schema_version": 3}
def param_table(parameterization, m, d):
    ### BEGIN SOLUTION
    table = {
        "ntk": {"input": (1 / math.sqrt(d), 1.0), "output": (1 / math.sqrt(m), 1.0)},
        "standard": {"input": (1 / math.sqrt(d), float(d)), "output": (1 / math.sqrt(m), float(m))},
        "mup": {"input": (1 / math.sqrt(d), float(m * d)), "output": (1 / m, float(m))},
    }
    return table[parameterization]
    ### END SOLUTION

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "harness", "schema_version": 3}
def feature_change(parameterization, m, lr, steps=50, seed=0):
    """Train a one-hidden-layer ReLU net built from param_table; relative change of its feature kernel."""
    d = 8
    x = nh.sphere(16, d, seed=0)
    y = torch.sin(2 * x[:, 0])
    table = param_table(parameterization, m, d)
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(m, d, generator=g, dtype=torch.float64, requires_grad=True)
    v = torch.randn(m, generator=g, dtype=torch.float64, requires_grad=True)
    features = lambda: torch.relu(table["input"][0] * x @ w.T)
    start = features().detach()
    for _ in range(steps):
        loss = 0.5 * ((table["output"][0] * features() @ v - y) ** 2).mean()
        gw, gv = torch.autograd.grad(loss, [w, v])
        with torch.no_grad():
            w -= lr * table["input"][1] * gw
            v -= lr * table["output"][1] * gv
    end = features().detach()
    return float((end @ end.T - start @ start.T).norm() / (start @ start.T).norm())

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
row = param_table("ntk", 256, 8)
assert set(row) == {"input", "output"} and all(len(v) == 2 for v in row.values())
assert abs(row["output"][0] - 1 / 16) < 1e-12, "NTK parameterization: output multiplier 1/sqrt(m)"
print("visible tests passed")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: exact table entries; NTK features freeze with width, muP features move at every width.
### BEGIN HIDDEN TESTS
assert abs(param_table("mup", 1024, 8)["output"][0] - 1 / 1024) < 1e-15
assert abs(param_table("mup", 1024, 8)["input"][1] - 1024 * 8) < 1e-9
assert abs(param_table("standard", 1024, 8)["output"][1] - 1024) < 1e-9
widths = [256, 1024, 4096]
ntk_changes = [feature_change("ntk", m, 0.5) for m in widths]
mup_changes = [feature_change("mup", m, 0.02) for m in widths]
assert nh.loglog_slope(widths, ntk_changes) < -0.7
assert abs(nh.loglog_slope(widths, mup_changes)) < 0.15 and min(mup_changes) > 0.15
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Why can't a parameterization have both a fixed kernel and moving features as $m \to \infty$? What does "NTK freezing" mean for the parameters?

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: the dynamical dichotomy (Yang & Hu 2021): a stable parameterization either has a kernel limit (features
# move $o(1)$) or learns features (kernel moves $\Theta(1)$); μP's $1/m$ output multiplier and per-layer learning rates
# make every layer's pre-activations move $\Theta(1)$, and $f_0 \to 0$.
# 1 point: a frozen NTK means the linearization is constant; the parameters still move (each by a little, many of
# them), and the output moves by $O(1)$.
#
# **Model answer.**
# If features moved by $\Theta(1)$ the tangent features, and hence the NTK, would move too: Yang & Hu's dichotomy says a
# parameterization lands in exactly one regime. μP sets the output multiplier to $1/m$ and scales learning rates so
# hidden pre-activations change by $\Theta(1)$ per step. Under the NTK parameterization the kernel freezes because
# every weight moves by $O(m^{-1/2})$, not because parameters stop moving; the outputs still fit the data.
