# %% [markdown]
# # 01 · NTK basics: definition, a broken recipe fixed, convergence with width
#
# *Overview text §2–3.*
#
# **You will learn**
# - what the neural tangent kernel is, and how to compute it for any PyTorch model;
# - why the overview's `compute_ntk` recipe does not compute it (and what it computes instead);
# - that the NTK of a random finite network approaches a deterministic kernel as the width grows,
#   with fluctuations shrinking like $1/\sqrt{\text{width}}$.
#
# **Prerequisites:** lesson 00 (notation), the chain rule, gradient descent.

# %%
import math
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 1. The definition
#
# A network $f(x;\theta)$ with parameters $\theta \in \mathbb R^P$ has, for every pair of inputs,
#
# $$\Theta(x, x') \;=\; \nabla_\theta f(x;\theta)\cdot \nabla_\theta f(x';\theta) \;=\; \sum_{p=1}^{P} \frac{\partial f(x)}{\partial\theta_p}\,\frac{\partial f(x')}{\partial\theta_p}.$$
#
# Why this object? Train with gradient flow $\dot\theta = -\eta\,\nabla_\theta \mathcal L$ on the loss
# $\mathcal L = \frac12\sum_i (f(x_i)-y_i)^2$. By the chain rule the *outputs* move as
#
# $$\frac{d}{dt} f(x) = -\eta \sum_i \Theta(x, x_i)\,\bigl(f(x_i) - y_i\bigr).$$
#
# The NTK says how a gradient step taken on one input moves the output on another. If $\Theta$
# stays fixed during training (it does at infinite width), this is a *linear* ODE that can be solved
# in closed form: lesson 07.

# %% [markdown]
# ## 2. An empirical NTK
#
# We build an MLP with 3 hidden ReLU layers, in the NTK parameterization, and compute its NTK on 16
# inputs. The result is a 16 × 16 Gram matrix: symmetric and positive semi-definite, like every
# matrix of inner products.

# %%
x = nh.sphere(16, d=4, seed=0)                               # (16, 4), |x|² = d
architecture = nh.mlp(3, "relu", sigma_w=math.sqrt(2), sigma_b=0.1)
model = architecture.network(4, width=512, seed=0)
theta = nh.empirical_ntk(model, x)                           # (16, 16)
print("parameters:", sum(p.numel() for p in model.parameters()))
print("NTK block:\n", theta[:4, :4].numpy().round(3))

# %%
eigenvalues = nh.eigenvalues(theta)
print(f"largest eigenvalue {eigenvalues[0]:.3f}, smallest {eigenvalues[-1]:.4f}")
assert torch.allclose(theta, theta.T) and eigenvalues[-1] > -1e-10

# %% [markdown]
# ## 3. The overview's `compute_ntk` recipe is broken
#
# > **The text says:** compute the NTK with `torch.jacobian(model, X)` and multiply the two Jacobians.  
# > **What is true:** `torch.jacobian` does not exist in PyTorch, so the code stops with an
# > `AttributeError`. The nearest real function, `torch.autograd.functional.jacobian(model, X)`,
# > differentiates with respect to the **inputs** $X$, not the parameters. The resulting
# > "input-gradient kernel" $\nabla_x f(x)\cdot\nabla_{x'} f(x')$ is a different object: its Gram matrix
# > has rank at most $d$ (the input dimension), while the NTK of distinct inputs is full rank.
#
# The first claim is a one-line check:

# %%
assert not hasattr(torch, "jacobian")

# %% [markdown]
# Now compare the two kernels on the same network. `nh.input_gradient_kernel` computes what the
# recipe would give once repaired to run.

# %%
input_kernel = nh.input_gradient_kernel(model, x)            # (16, 16)
rank_input = int(torch.linalg.matrix_rank(input_kernel, rtol=1e-10))
rank_ntk = int(torch.linalg.matrix_rank(theta, rtol=1e-10))
print(f"rank of the input-gradient kernel: {rank_input} (d = 4); rank of the NTK: {rank_ntk} (n = 16)")
print(f"effective rank: input-gradient {nh.effective_rank(input_kernel):.2f}, NTK {nh.effective_rank(theta):.2f}")
assert rank_input <= 4 < rank_ntk == 16

# %%
fig, ax = plt.subplots(figsize=(4.8, 4.2))
ax.scatter(nh.normalize(theta).flatten(), nh.normalize(input_kernel).flatten(), s=12)
ax.set_xlabel("NTK (normalized)")
ax.set_ylabel("input-gradient kernel (normalized)")
ax.set_title("two different kernels of one network")
plt.show()

# %% [markdown]
# ## 4. Three correct ways to compute it
#
# `nh.empirical_ntk` has three methods that must agree to rounding error:
#
# - `"jacobian"` works for **any** `nn.Module`: per-example parameter Jacobians with `torch.func`
#   (`vmap` over `jacrev`), contracted parameter by parameter, in memory-bounded chunks;
# - `"layerwise"` is for the package's own MLPs: one forward and one backward pass give every layer's
#   input $h_{l-1}$ and backpropagated signal $\delta_l$, and
#   $\Theta = \sum_l (\delta_l\delta_l^\top)\odot\bigl(\tfrac{\sigma_w^2}{m}h_{l-1}h_{l-1}^\top+\sigma_b^2\bigr)$;
# - `"naive"` loops over examples with one backward pass each (slow, obviously right).

# %%
results = {}
for method in ["layerwise", "jacobian", "naive"]:
    start = time.perf_counter()
    results[method] = nh.empirical_ntk(model, x, method=method)
    print(f"{method:>9}: {1000 * (time.perf_counter() - start):.1f} ms")

# %%
for method in ["jacobian", "naive"]:
    assert torch.allclose(results[method], results["layerwise"], rtol=1e-10, atol=1e-10)
print("all three methods agree to 1e-10")

# %% [markdown]
# ## 5. Wider networks, less randomness (the infinite-width limit)
#
# The empirical NTK depends on the random initialization. Jacot et al. (2018) proved that as the width
# $m\to\infty$ it converges to a **deterministic** kernel $\Theta_\infty$, which `architecture.kernel(x)`
# computes exactly (lesson 02 shows how). The fluctuations around it shrink like $m^{-1/2}$.
#
# We measure the relative error $\lVert\Theta_m - \Theta_\infty\rVert_F / \lVert\Theta_\infty\rVert_F$
# for widths 64 … 4096 and 4 random seeds each.

# %%
theta_infinite = architecture.kernel(x).ntk
sweep = nh.width_sweep(architecture, x, widths=[64, 128, 256, 512, 1024, 2048, 4096], seeds=4)
print("mean relative error per width:", sweep.errors.mean(1).round(3))

# %%
fig, ax = plt.subplots()
nh.plotting.loglog_fit(ax, sweep.widths, sweep.errors.mean(1), label="empirical NTK", guide_slope=-0.5)
ax.set_xlabel("width m")
ax.set_ylabel("relative error vs infinite width")
ax.set_title(r"the empirical NTK converges like $m^{-1/2}$")
plt.show()

# %%
print(f"fitted slope {sweep.slope:.2f} (theory: -0.5)")
assert -0.7 < sweep.slope < -0.4

# %% [markdown]
# Averaging over seeds removes the random part, and what is left is the (smaller) $O(1/m)$ bias:

# %%
mean_error = float((sweep.mean_ntk[-1] - theta_infinite).norm() / theta_infinite.norm())
print(f"width 4096: one seed {sweep.errors[-1].mean():.3f}, mean of 4 seeds {mean_error:.3f}")
assert mean_error < sweep.errors[-1].mean()

# %% [markdown]
# ## 6. Explore
#
# Pick a width, a depth and an activation. Each dot is one entry $\Theta(x_i,x_j)$: its finite-width
# value against the infinite-width one. On the diagonal line they agree. Deeper networks need more
# width for the same accuracy (the fluctuations grow with depth/width, Hanin & Nica 2020).

# %%
def draw_scatter(width, depth, activation):
    arch = nh.mlp(depth, activation, sigma_w=1.4, sigma_b=0.1)
    exact = arch.kernel(x).ntk
    finite = nh.empirical_ntk(arch.network(4, width=width, seed=0), x)
    error = float((finite - exact).norm() / exact.norm())
    fig, ax = plt.subplots(figsize=(4.8, 4.2))
    ax.scatter(exact.flatten(), finite.flatten(), s=12)
    lims = [float(exact.min()), float(exact.max())]
    ax.plot(lims, lims, "k--", lw=1)
    ax.set_xlabel("infinite-width NTK")
    ax.set_ylabel(f"width-{width} NTK")
    ax.set_title(f"{activation}, depth {depth}: relative error {error:.3f}")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(
    draw_scatter,
    width=nh.widgets.width_slider(256, options=(16, 32, 64, 128, 256, 512, 1024, 2048)),
    depth=nh.widgets.depth_slider(3, max=8),
    activation=nh.widgets.activation_dropdown("relu"),
)

# %% [markdown]
# ## Summary
#
# - The NTK is the Gram matrix of **parameter** gradients; it controls how outputs move under gradient descent.
# - The overview's recipe calls a function that does not exist, and its repair differentiates with respect to
#   the inputs: a rank-$\le d$ kernel that is not the NTK.
# - `nh.empirical_ntk` computes the NTK of any `nn.Module`; three methods agree to $10^{-10}$.
# - The empirical NTK converges to the analytic one like $m^{-1/2}$; lesson 02 derives that analytic kernel.
#
# **Exercises:** 4.1 (the role of $\dot\Sigma$; the identity activation) builds on this lesson.
