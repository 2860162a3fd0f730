# %% [markdown]
# # 01 · NTK basics: definition, a broken recipe fixed, convergence with width
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/01_ntk_basics.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F01_ntk_basics.ipynb)
#
# *Overview text §2–3.*
#
# **You will learn**
# - what the neural tangent kernel is, when it stays fixed during training, and how to compute it for any
#   PyTorch model;
# - why the overview's `compute_ntk` and `simulate_infinite_width` recipes do not do what they claim;
# - that the NTK of a random finite network approaches a deterministic kernel as the width $m$ grows, and
#   that its error has two parts: a random **spread** that shrinks like $1/\sqrt m$ and a systematic
#   **bias** that shrinks like $1/m$.
#
# **Prerequisites:** lesson 00 (notation), the chain rule, gradient descent.

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

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
# $$\Theta(x, x') \;=\; \nabla_\theta f(x;\theta)\cdot \nabla_\theta f(x';\theta)
#   \;=\; \sum_{p=1}^{P} \frac{\partial f(x)}{\partial\theta_p}\,\frac{\partial f(x')}{\partial\theta_p}.$$
#
# Why this object? Train with gradient flow $\dot\theta = -\eta\,\nabla_\theta \mathcal L$ on the loss
# $\mathcal L = \frac12\sum_i (f(x_i)-y_i)^2$. By the chain rule the *outputs* move as
#
# $$\frac{d}{dt} f(x) = -\eta \sum_i \Theta(x, x_i)\,\bigl(f(x_i) - y_i\bigr).$$
#
# The NTK says how a gradient step taken on one input moves the output on another. If $\Theta$
# stays fixed during training, this is a *linear* ODE that can be solved in closed form: lesson 07.
#
# **When does it stay fixed?** In the limit of infinite width $m\to\infty$, under conditions: the NTK
# parameterization (or the standard one with a learning rate $\propto 1/m$), a learning rate that does not
# change with $m$ (and is small enough for gradient descent to be stable), a finite training time, and the
# squared loss trained by gradient flow or gradient descent (Jacot et al. 2018; Lee et al. 2019). Width alone
# does not freeze the kernel: under the maximal-update parameterization μP the kernel moves by $O(1)$ at
# every width (Yang & Hu 2021), as lesson 05 measures.
#
# > **The text says:** as the width grows, a network trained by gradient descent turns into a kernel predictor
# > with the NTK.  
# > **What is true:** only under the conditions above, and the predictor keeps the network's random starting
# > function $f_0$: at the end of training, $f_\infty = f_0 + $ (ridgeless kernel regression with $\Theta$ on
# > the residuals $y - f_0$), where $f_0$ is a random draw from the NNGP prior (lesson 07).
# > ([errata B1](../ERRATA.md#b1))
#
# > **The text says:** for any finite time $T$, as $m\to\infty$ the trained network stays uniformly close to a
# > fixed kernel-regression predictor $f^\text{kernel}$ built with the NTK:
# > $\sup_{t\le T}\sup_x\lvert f(\theta_t,x) - f^\text{kernel}(x)\rvert \to 0$ (it calls the output at
# > initialization and the kernel-regression output "two random processes" that converge).  
# > **What is true:** a fixed predictor cannot match $f(\theta_t,\cdot)$ at every $t$ (at $t = 0$ the network
# > is its random $f_0$). The theorem compares the trained network with its **linearization** $f^\text{lin}$
# > (first-order Taylor expansion in $\theta$ around $\theta_0$) trained by the same gradient descent:
# > $\sup_{t\le T}\lvert f_t(x) - f^\text{lin}_t(x)\rvert \to 0$ (Jacot et al. 2018, Thm. 2), with a gap of
# > order $m^{-1/2}$ (Lee et al. 2019, Thm. 2.1). It is proved on a fixed finite set of inputs or a bounded
# > domain, not for "all $x$". The static kernel predictor is only the $t\to\infty$ end point; lesson 07
# > measures the gap. ([errata B6](../ERRATA.md#b6), [errata B7](../ERRATA.md#b7))

# %% [markdown]
# ## 2. An empirical NTK
#
# We build an MLP with 3 hidden ReLU layers, in the NTK parameterization, and compute its NTK on 16
# inputs. The result is a 16 × 16 Gram matrix: symmetric and positive semi-definite, like every
# matrix of inner products. It depends on the random initialization $\theta_0$: at finite width it is a
# random matrix (§5).

# %%
x = nh.sphere(16, d=4, seed=0)                               # (16, 4), |x|² = d
architecture = nh.mlp(3, "relu", sigma_w=math.sqrt(2), sigma_b=0.1)
model = architecture.network(4, width=512, seed=0)
theta = nh.empirical_ntk(model, x)                           # (16, 16)
print("parameters:", sum(p.numel() for p in model.parameters()))
print("NTK block:\n", theta[:4, :4].numpy().round(3))

# %%
eigenvalues = nh.eigenvalues(theta)
asymmetry = float((theta - theta.T).abs().max())
print(f"largest eigenvalue {eigenvalues[0]:.3f}, smallest {eigenvalues[-1]:.4f}")
assert asymmetry <= 1e-12 * float(theta.abs().max()), (
    f"symmetry: expected max|Θ - Θᵀ| <= 1e-12 · max|Θ|, measured {asymmetry:.1e}")
assert eigenvalues[-1] >= -1e-12 * eigenvalues[0], (
    f"PSD: expected smallest eigenvalue >= -1e-12 · largest, measured {eigenvalues[-1]:.3e}")

# %% [markdown]
# > **The text says:** the width-$m$ network of the infinite-width theorem has weights $\mathcal N(0, 1/m)$
# > ("Xavier initialization").  
# > **What is true:** variance $1/\text{fan-in}$ is LeCun's initialization (Xavier/Glorot uses
# > $2/(\text{fan-in}+\text{fan-out})$), and the first layer's fan-in is the input dimension $d$, not $m$.
# > Trained as they are with one learning rate (the *standard parameterization*, as with PyTorch's
# > `nn.Linear`), this network's NTK **grows like $m$**: the $m$ output weights each contribute an $O(1)$
# > term. A fixed learning rate then overshoots as $m$ grows; the theorem's limit needs a learning rate
# > $\propto 1/m$. The NTK parameterization has the same forward pass, written with weights $\mathcal N(0,1)$
# > times the factor $\sigma_w/\sqrt{\text{fan-in}}$, and its NTK stays $O(1)$.
# > ([errata B5](../ERRATA.md#b5))
#
# Both kinds of one-hidden-layer ReLU network, on the same 16 inputs (mean of the NTK's diagonal):

# %%
def standard_mlp(width, seed=0):
    """A plain PyTorch MLP with weights N(0, 1/fan-in), trained as is: the standard parameterization."""
    generator = torch.Generator().manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(4, width, bias=False, dtype=torch.float64), torch.nn.ReLU(),
                              torch.nn.Linear(width, 1, bias=False, dtype=torch.float64))
    with torch.no_grad():
        for layer in (net[0], net[2]):
            layer.weight.normal_(0, layer.in_features ** -0.5, generator=generator)
    return net

sp_widths = [64, 256, 1024, 4096]
ntk_standard = [float(nh.empirical_ntk(standard_mlp(m), x).diagonal().mean()) for m in sp_widths]
one_layer = nh.mlp(1, "relu", sigma_w=1.0)        # N(0, 1) weights times 1/sqrt(fan-in): same law of networks
ntk_ntk_param = [float(nh.empirical_ntk(one_layer.network(4, width=m), x).diagonal().mean())
                 for m in sp_widths]
slope_standard = nh.loglog_slope(sp_widths, ntk_standard)
slope_ntk = nh.loglog_slope(sp_widths, ntk_ntk_param)
print(f"widths {sp_widths}")
print(f"standard parameterization: {np.round(ntk_standard, 1)}, slope {slope_standard:.2f} in log m")
print(f"NTK parameterization:      {np.round(ntk_ntk_param, 2)}, slope {slope_ntk:.2f} in log m")
assert abs(slope_standard - 1) < 0.1, f"standard: expected slope 1 ± 0.1, measured {slope_standard:.3f}"
assert abs(slope_ntk) < 0.1, f"NTK parameterization: expected slope 0 ± 0.1, measured {slope_ntk:.3f}"

# %% [markdown]
# ## 3. The overview's `compute_ntk` recipe is broken
#
# > **The text says:** compute the NTK with `torch.jacobian(model, X)` and multiply the two Jacobians.  
# > **What is true:** `torch.jacobian` does not exist in PyTorch, so the code stops with an
# > `AttributeError`. The nearest real function, `torch.autograd.functional.jacobian(model, X)`,
# > differentiates with respect to the **inputs** $X$, not the parameters. The resulting
# > "input-gradient kernel" $\nabla_x f(x)\cdot\nabla_{x'} f(x')$ is a different object: its Gram matrix
# > has rank at most $d$ (the input dimension), while the NTK of distinct inputs is full rank.
# > ([errata B39](../ERRATA.md#b39))
#
# The first claim is a one-line check:

# %%
assert not hasattr(torch, "jacobian"), f"expected no torch.jacobian, found one in torch {torch.__version__}"

# %% [markdown]
# Now compare the two kernels on the same network. `nh.input_gradient_kernel` computes what the
# recipe would give once repaired to run.

# %%
input_kernel = nh.input_gradient_kernel(model, x)            # (16, 16)
rank_input = int(torch.linalg.matrix_rank(input_kernel, rtol=1e-10))
rank_ntk = int(torch.linalg.matrix_rank(theta, rtol=1e-10))
print(f"rank of the input-gradient kernel: {rank_input} (d = 4); rank of the NTK: {rank_ntk} (n = 16)")
print(f"effective rank: input-gradient {nh.effective_rank(input_kernel):.2f}, "
      f"NTK {nh.effective_rank(theta):.2f}")
assert rank_input <= 4 < rank_ntk == 16, (
    f"ranks: expected input-gradient <= d = 4 and NTK = n = 16, measured {rank_input} and {rank_ntk}")

# %%
fig, ax = plt.subplots(figsize=(4.8, 4.2))
ax.scatter(nh.normalize(theta).flatten(), nh.normalize(input_kernel).flatten(), s=12)
ax.set_xlabel(r"NTK $\Theta(x_i,x_j)$ (normalized)")
ax.set_ylabel(r"$\nabla_x f(x_i)\cdot\nabla_x f(x_j)$ (normalized)")
ax.set_title("two different kernels of one network")
plt.show()

# %% [markdown]
# The overview's second recipe, `simulate_infinite_width`, is meant to show the infinite-width limit in
# action:
#
# > **The text says:** train networks of growing width (one fixed learning rate, one seed) and compute the
# > effective rank of each trained network's NTK with `compute_ntk`; this is to show the infinite-width
# > behaviour.  
# > **What is true:** the function cannot run: it uses `WideMLP`, `generate_data` and `F`, which are defined
# > nowhere, and the broken `compute_ntk`. Even repaired, it would measure the wrong thing: the convergence
# > theorem is about the NTK at **initialization** (training then leaves it almost unchanged), not a kernel
# > after training; **one seed** per width cannot separate a trend from seed-to-seed noise; and an ordinary
# > PyTorch network (standard parameterization) at a **fixed learning rate** approaches no infinite-width
# > limit (§2). §5 runs the experiment it was after: the effective rank of the empirical NTK at
# > initialization, NTK parameterization, several seeds per width. ([errata B41](../ERRATA.md#b41))

# %% [markdown]
# ## 4. Three correct ways to compute it
#
# `nh.empirical_ntk` has three methods that must agree to rounding error:
#
# - `"jacobian"` works for **any** `nn.Module`: per-example parameter Jacobians with `torch.func`
#   (`vmap` over `jacrev`), contracted parameter by parameter, in memory-bounded chunks;
# - `"layerwise"` is for the package's own MLPs: one forward and one backward pass give every layer's input
#   $h_{l-1}$ and backpropagated signal $\delta_l$, and then (with $\odot$ the entrywise product)
#   $$\Theta = \textstyle\sum_l (\delta_l\delta_l^\top)\odot
#     \bigl(\tfrac{\sigma_w^2}{\text{fan-in}}h_{l-1}h_{l-1}^\top+\sigma_b^2\bigr);$$
# - `"naive"` loops over examples with one backward pass each (slow, obviously right).

# %%
results = {}
for method in ["layerwise", "jacobian", "naive"]:
    start = time.perf_counter()
    results[method] = nh.empirical_ntk(model, x, method=method)
    print(f"{method:>9}: {1000 * (time.perf_counter() - start):.1f} ms")

# %%
reference = results["layerwise"]
for method in ["jacobian", "naive"]:
    gap = float((results[method] - reference).abs().max() / reference.abs().max())
    assert gap <= 1e-10, f"{method} vs layerwise: expected max gap <= 1e-10 · max|Θ|, measured {gap:.1e}"
print("all three methods agree to within 1e-10 of the largest entry")

# %% [markdown]
# ## 5. Wider networks, less randomness (the infinite-width limit)
#
# The empirical NTK depends on the random initialization. Jacot et al. (2018) proved that as the width
# $m\to\infty$ it converges to a **deterministic** kernel $\Theta_\infty$, which `architecture.kernel(x)`
# computes exactly (lesson 02 shows how).
#
# We measure the relative error $\lVert\Theta_m - \Theta_\infty\rVert_F / \lVert\Theta_\infty\rVert_F$ of one
# network for widths 64 … 4096, averaged over 4 random seeds.

# %%
theta_infinite = architecture.kernel(x).ntk
sweep = nh.width_sweep(architecture, x, widths=[64, 128, 256, 512, 1024, 2048, 4096], seeds=4)
print("relative error of one network (mean over 4 seeds):", sweep.errors.mean(1).round(3))

# %%
fig, ax = plt.subplots()
nh.plotting.loglog_fit(ax, sweep.widths, sweep.errors.mean(1), label="one network's error", guide_slope=-0.5)
ax.set_xlabel("width m")
ax.set_ylabel("relative error vs infinite width")
ax.set_title(r"the empirical NTK converges like $m^{-1/2}$")
plt.show()

# %%
print(f"fitted slope {sweep.slope:.2f} (theory: -0.5)")
assert -0.7 < sweep.slope < -0.4, (
    f"convergence slope: expected -0.5 (between -0.7 and -0.4), measured {sweep.slope:.3f}")

# %% [markdown]
# ### Bias and spread, separately
#
# The error of one network has two parts:
#
# $$\Theta_m - \Theta_\infty \;=\;
#   \underbrace{\bigl(\mathbb E\,\Theta_m - \Theta_\infty\bigr)}_{\text{bias: fixed, } O(1/m)}
#   \;+\; \underbrace{\bigl(\Theta_m - \mathbb E\,\Theta_m\bigr)}_{\text{spread: random, mean } 0,\
#   O(1/\sqrt m)},$$
#
# where $\mathbb E$ averages over random initializations (Dyer & Gur-Ari 2020; Hanin & Nica 2020). The spread
# is much larger, which is why one network's error falls like $m^{-1/2}$ above. Averaging $S$ networks
# shrinks only the spread, by $\sqrt S$:
# $\mathbb E\,\lVert\text{mean of } S - \Theta_\infty\rVert_F^2 = \text{bias}^2 + \text{spread}^2/S$.
# So seeing the bias takes small widths (where it is large) and many seeds (so that $\text{spread}/\sqrt S$
# falls below it).
#
# The experiment: 400 networks at each width 8, 16, 32, 64, on the same 16 inputs, with erf activations
# (depth 3, $\sigma_w = 2$, $\sigma_b = 0.1$), and we look at the **normalized** NTK
# $\Theta(x,x')/\sqrt{\Theta(x,x)\Theta(x',x')}$. Any smooth function of the empirical NTK splits the same way
# (bias $O(1/m)$, spread $O(1/\sqrt m)$); we pick this one because its bias is large enough to measure with a
# few hundred networks. (For the raw NTK of the ReLU network above, the bias is far below the spread, and a
# few hundred seeds cannot resolve it.) Per width we measure, relative to $\lVert\Theta_\infty\rVert_F$:
#
# - **spread**: the root-mean-square distance of one network's kernel from the mean of all 400;
# - **bias**: the distance of that mean from $\Theta_\infty$;
# - **leftover**: spread/√400, the part of the spread still inside the mean. The bias we measure is
#   $\sqrt{\text{bias}^2 + \text{leftover}^2}$ on average, so where it is at least twice the leftover, the
#   leftover inflates it by at most 12 % ($\sqrt{1 + 1/4} = 1.118$).

# %%
erf_architecture = nh.mlp(3, "erf", sigma_w=2.0, sigma_b=0.1)
erf_limit = nh.normalize(erf_architecture.kernel(x).ntk)
small_widths, n_seeds = np.array([8, 16, 32, 64]), 400
spread, bias = [], []
for width in small_widths:
    networks = [erf_architecture.network(4, width=int(width), seed=s) for s in range(n_seeds)]
    kernels = torch.stack([nh.normalize(nh.empirical_ntk(net, x)) for net in networks])   # (400, 16, 16)
    mean = kernels.mean(0)
    spread.append(float((kernels - mean).pow(2).sum().div(n_seeds - 1).sqrt() / erf_limit.norm()))
    bias.append(float((mean - erf_limit).norm() / erf_limit.norm()))
spread, bias = np.array(spread), np.array(bias)
leftover = spread / math.sqrt(n_seeds)
print("width:   ", small_widths)
print("spread:  ", spread.round(3))
print("bias:    ", bias.round(4))
print("leftover:", leftover.round(4))

# %%
fig, ax = plt.subplots()
slope_spread = nh.plotting.loglog_fit(ax, small_widths, spread, label="spread (one network)")
slope_bias = nh.plotting.loglog_fit(ax, small_widths, bias, label="bias (mean of 400)")
ax.loglog(small_widths, leftover, ":", color="gray", label="leftover spread in the mean (spread/√400)")
ax.set_ylim(leftover.min() / 1.5, spread.max() * 4)                 # room for the legend above the data
nh.plotting.width_ticks(ax, small_widths)
ax.legend(loc="upper right")
ax.set_xlabel("width m")
ax.set_ylabel("relative size vs infinite width")
ax.set_title("normalized NTK of an erf network: spread vs bias")
plt.show()

# %% [markdown]
# The asserts below check the two slopes with disclosed tolerances: the bias slope $-1 \pm 0.25$; the spread
# slope between $-0.75$ and $-0.45$. At widths this small the spread still falls a little faster than
# $m^{-1/2}$ (the next term of its expansion, of relative size $1/m$, is not yet negligible); at widths
# 64 … 4096 above, one network's error has slope close to $-0.5$.

# %%
print(f"slopes: bias {slope_bias:.2f} (theory -1), spread {slope_spread:.2f} (theory -0.5)")
print(f"bias / leftover per width: {(bias / leftover).round(1)}")
assert (bias >= 2 * leftover).all(), f"bias resolved: expected bias/leftover >= 2, measured {bias / leftover}"
assert abs(slope_bias + 1) <= 0.25, f"bias slope: expected -1 ± 0.25, measured {slope_bias:.3f}"
assert -0.75 <= slope_spread <= -0.45, f"spread slope: expected -0.75 … -0.45, measured {slope_spread:.3f}"
assert (spread > bias).all(), f"one network: expected spread > bias, measured spread/bias {spread / bias}"

# %% [markdown]
# So the mean of many networks approaches $\Theta_\infty$ like $1/m$, a single network only like $1/\sqrt m$;
# but the mean must be over enough networks: the mean of $S$ networks has error about
# $\sqrt{\text{bias}^2 + \text{spread}^2/S}$, and once $\text{spread}/\sqrt S$ is below the bias, more seeds
# no longer help; only more width does.

# %% [markdown]
# ### What `simulate_infinite_width` should have measured
#
# The effective rank $r_\text{eff} = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$ (lesson 08) of the empirical
# NTK at **initialization**, for the ReLU network of §2 in the NTK parameterization, with 6 seeds per width,
# against the effective rank of the infinite-width kernel $\Theta_\infty$:

# %%
rank_widths, rank_seeds = [16, 64, 256, 1024], 6
ranks = np.array([[nh.effective_rank(nh.empirical_ntk(architecture.network(4, width=w, seed=s), x))
                   for s in range(rank_seeds)] for w in rank_widths])                 # (widths, seeds)
rank_limit = nh.effective_rank(theta_infinite)
print(f"r_eff of Θ∞: {rank_limit:.3f}")
for w, r in zip(rank_widths, ranks):
    print(f"width {w:>4}: mean {r.mean():.2f}, seed-to-seed sd {r.std(ddof=1):.2f}")

# %%
fig, ax = plt.subplots()
for s in range(rank_seeds):
    ax.semilogx(rank_widths, ranks[:, s], "o", color=nh.plotting.PALETTE[0], alpha=0.6,
                label="one seed" if s == 0 else None)
ax.semilogx(rank_widths, ranks.mean(1), "-", color=nh.plotting.PALETTE[1],
            label=f"mean of {rank_seeds} seeds")
ax.axhline(rank_limit, color="k", ls="--", lw=1, label=r"infinite width ($\Theta_\infty$)")
nh.plotting.width_ticks(ax, rank_widths)
ax.set_xlabel("width m")
ax.set_ylabel(r"effective rank $r_\mathrm{eff}$ of the NTK at init")
ax.set_title("effective rank at initialization vs width")
ax.legend()
plt.show()

# %% [markdown]
# Narrow networks scatter widely and lie mostly **below** the limit (a bias again: the effective rank is a
# nonlinear function of the kernel); as the width grows, the seeds close in on
# $r_\text{eff}(\Theta_\infty)$. Checked: all six width-16 networks lie below the limit; at width 1024 the
# mean is within 5 % of the limit and the seed-to-seed spread is less than half of that at width 16.

# %%
gap = abs(ranks[-1].mean() - rank_limit) / rank_limit
sd_ratio = ranks[-1].std(ddof=1) / ranks[0].std(ddof=1)
below = int((ranks[0] < rank_limit).sum())
print(f"width 16: {below} of {rank_seeds} below the limit; width 1024: relative gap to the limit {gap:.3f}; "
      f"sd(1024)/sd(16) = {sd_ratio:.2f}")
assert below == rank_seeds, f"width 16: expected all {rank_seeds} seeds below the limit, measured {below}"
assert gap < 0.05, f"r_eff at width 1024: expected within 5 % of {rank_limit:.3f}, measured gap {gap:.3f}"
assert sd_ratio < 0.5, f"seed spread: expected sd(1024) < 0.5 · sd(16), measured ratio {sd_ratio:.2f}"

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
    fig, ax = plt.subplots(figsize=(7.6, 4.2))
    ax.scatter(exact.flatten(), finite.flatten(), s=12, label=r"entries $\Theta(x_i,x_j)$")
    lims = [float(exact.min()), float(exact.max())]
    ax.plot(lims, lims, "k--", lw=1, label="perfect agreement")
    ax.set_xlabel("infinite-width NTK")
    ax.set_ylabel(f"width-{width} NTK (seed 0)")
    ax.set_title(f"{activation}, depth {depth}: relative error {error:.3f}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))        # outside: narrow deep nets scatter anywhere

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
# - The NTK is the Gram matrix of **parameter** gradients; it controls how outputs move under gradient
#   descent. It stays fixed during training only in the infinite-width limit of the NTK parameterization (or
#   standard with learning rate $\propto 1/m$), at a fixed learning rate, for a finite time; under μP it
#   moves.
# - The overview's `compute_ntk` calls a function that does not exist, and its repair differentiates with
#   respect to the inputs: a rank-$\le d$ kernel that is not the NTK. Its `simulate_infinite_width` cannot run
#   and would measure a trained kernel, with one seed, in a parameterization without a limit.
# - `nh.empirical_ntk` computes the NTK of any `nn.Module`; three methods agree to $10^{-10}$.
# - One network's empirical NTK converges to the analytic one like $m^{-1/2}$: that is the random spread.
#   Averaging many networks removes the spread only down to $\text{spread}/\sqrt S$ and exposes a bias that
#   falls like $1/m$. Lesson 02 derives the analytic kernel.
#
# **Exercises:** [4.1](../exercises/chapter4/ex4_1_sigma_dot.ipynb) (the role of $\dot\Sigma$; the identity
# activation) builds on this lesson.

# %% [markdown]
# ## References
#
# - A. Jacot, F. Gabriel, C. Hongler. *Neural Tangent Kernel: Convergence and Generalization in Neural
#   Networks.* NeurIPS 2018. arXiv:1806.07572.
# - J. Lee, L. Xiao, S. S. Schoenholz, Y. Bahri, R. Novak, J. Sohl-Dickstein, J. Pennington. *Wide Neural
#   Networks of Any Depth Evolve as Linear Models Under Gradient Descent.* NeurIPS 2019. arXiv:1902.06720.
# - L. Chizat, E. Oyallon, F. Bach. *On Lazy Training in Differentiable Programming.* NeurIPS 2019.
#   arXiv:1812.07956.
# - E. Dyer, G. Gur-Ari. *Asymptotics of Wide Networks from Feynman Diagrams.* ICLR 2020. arXiv:1909.11304.
# - B. Hanin, M. Nica. *Finite Depth and Width Corrections to the Neural Tangent Kernel.* ICLR 2020.
#   arXiv:1909.05989.
# - G. Yang, E. J. Hu. *Tensor Programs IV: Feature Learning in Infinite-Width Neural Networks.* ICML 2021.
#   arXiv:2011.14522.
#
# Three of the overview's references are wrong:
#
# > **The text says:** the NTK paper is by "Jacot A, Graland F, Hongler C".  
# > **What is true:** the second author is Franck **Gabriel**: Jacot, Gabriel & Hongler, NeurIPS 2018.
# > ([errata B44](../ERRATA.md#b44))
#
# > **The text says:** "Chizat & Bach (2020), *On Lazy Training …*", listed as a survey.  
# > **What is true:** Chizat, **Oyallon** & Bach, NeurIPS **2019**, a research paper (it shows that lazy,
# > kernel-like training comes from the scaling of the model, not from width as such), not a survey.
# > ([errata B42](../ERRATA.md#b42))
#
# > **The text says:** "Anil et al. (2025), *The Spectral Dimension of NTKs is Constant*".  
# > **What is true:** a single-author preprint by P. A. Shukla, arXiv:2512.00860 (2025), not peer reviewed;
# > lesson 08 shows that its limit formula holds for every kernel, not just NTKs.
# > ([errata B43](../ERRATA.md#b43))
#
# **Next:** [02 · The MLP recursion](02_mlp_recursion.ipynb)
