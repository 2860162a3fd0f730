# %% [markdown]
# # 04 · Residual networks: how the branch scale α decides everything
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/04_resnet.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F04_resnet.ipynb)
#
# *Chapter 4.3.*
#
# **You will learn**
# - the kernel of a residual block $x + \alpha\,g(x)$ and why it is additive in $\alpha^2$;
# - why the product of block Jacobians $\prod_l (I + \alpha J_l)$ stays bounded for $\alpha = 1/\sqrt L$, and
#   why that is *not* the same as the first-order formula $I + \alpha\sum_l J_l$;
# - that with $\alpha = 1$ the NTK grows **exponentially** with depth, with $\alpha = 1/\sqrt L$ it stays
#   bounded (and tends to $3e\,q_0$ for ReLU), and with $\alpha = 1/L$ the branches vanish;
# - why the chapter's $O(\sqrt L)$ arithmetic is wrong: gradients of different blocks add in **squares**.
#
# **Prerequisites:** lesson 02.

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
from tqdm.auto import tqdm
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 4.3.1 The model and its kernel
#
# $x^{(0)} = \frac{\sigma_w}{\sqrt d}W^{(0)}x$, then $L$ blocks
# $x^{(l)} = x^{(l-1)} + \alpha\,\frac{\sigma_w}{\sqrt m}W^{(l)}\phi(x^{(l-1)})$, and a linear readout. The
# branch ends in fresh zero-mean weights, so at infinite width $g(x)$ is uncorrelated with $x$, and
#
# $$\Sigma^{(l)} = \Sigma^{(l-1)} + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi], \qquad
#   \Theta^{(l)} = \bigl(1 + \alpha^2\sigma_w^2\,\mathbb E[\phi'\phi']\bigr)\Theta^{(l-1)}
#   + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi]$$
#
# (Huang et al. 2020; Hayou et al. 2021). In the package: `nh.residual(nh.relu(), nh.dense(), alpha=...)`.

# %%
print(nh.resnet(2, alpha=0.5))      # dense -> 2 x residual(relu, dense) -> dense(1)

# %% [markdown]
# ### Products of block Jacobians
#
# Backpropagation through block $l$ multiplies by $I + \alpha J_l$, where $J_l = \partial g_l/\partial x$ is
# the branch's Jacobian; for the ReLU branch $J_l = \frac{\sigma_w}{\sqrt m} W^{(l)} D_l$, with $D_l$ the
# diagonal matrix of open ReLU gates. At initialization the $J_l$ are independent, zero-mean, and have the
# mean-square gain $c = \sigma_w^2\,\mathbb E[\phi'(u)^2]$: $\mathbb E\|J_l v\|^2 = c\,\|v\|^2$ ($c = 1$ for
# ReLU with $\sigma_w^2 = 2$). Their operator norm is of order one at every width: nothing about the
# parameterization makes them small.
#
# > **The text says:** when the per-block terms $\Delta_l$ are small, for example thanks to the NTK
# > parameterization, the product $\prod_l (I + \Delta_l)$ is approximately $I + \sum_l \Delta_l$: gradients
# > flow additively instead of multiplicatively.  
# > **What is true:** the NTK parameterization leaves $\|J_l\|_{op}$ of order one; $\Delta_l = \alpha J_l$ is
# > small only through the branch multiplier $\alpha$. *Bounded growth* needs only $\alpha = O(1/\sqrt L)$,
# > because independent zero-mean Jacobians add in squares:
# > $\mathbb E\|\prod_l(I + \alpha J_l)v\|^2 = (1 + \alpha^2 c)^L\|v\|^2$. The *first-order formula* needs
# > more: everything beyond it has relative size
# > $r = \sqrt{1 - (1 + L\alpha^2 c)/(1+\alpha^2 c)^L} \approx L\alpha^2 c/\sqrt2$, so it needs
# > $L\alpha^2 c \ll 1$, e.g. $\alpha = 1/L$ (for worst-case, aligned $\Delta_l$ of norm $\delta$ the
# > remainder is bounded only by $(1+\delta)^L - 1 - L\delta$, which needs $L\delta \ll 1$). At
# > $\alpha = 1/\sqrt L$ the product is bounded but $r \to \sqrt{1 - 2/e} \approx 0.51$.
# > ([errata A14](../ERRATA.md#a14))
#
# Why: expand the product into a sum over subsets of blocks. Terms with different subsets are uncorrelated
# (some $J_l$ appears in one and not in the other), and the $\binom Lk$ terms with $k$ factors each have mean
# square $(\alpha^2 c)^k$; summing gives $(1+\alpha^2 c)^L$, of which $1 + L\alpha^2 c$ is the first order.
# Measured with 64 × 64 Jacobians of ReLU branches at initialization:

# %%
n = 64

def branch_jacobians(L, width=n, seed=0):
    """L independent ReLU-branch Jacobians at initialization, sqrt(2/width) W D (mean-square gain c = 1)."""
    rng = np.random.default_rng(seed)
    gates = rng.random((L, 1, width)) < 0.5                              # D: which ReLUs are open
    return math.sqrt(2 / width) * rng.standard_normal((L, width, width)) * gates

def product_vs_first_order(L, alpha):
    """Relative size of everything beyond first order, and ||prod (I + alpha J_l)||_F^2 / n."""
    jacobians = branch_jacobians(L)
    product = np.eye(n)
    for J in jacobians:
        product = product + alpha * J @ product                          # (I + alpha J_l) times the rest
    first_order = np.eye(n) + alpha * jacobians.sum(0)
    return np.linalg.norm(product - first_order) / np.linalg.norm(product), np.linalg.norm(product) ** 2 / n

remainder = lambda L, a: math.sqrt(1 - (1 + L * a ** 2) / (1 + a ** 2) ** L)      # c = 1
scalings = {"α = 1": lambda L: 1.0, "α = 1/√L": lambda L: L ** -0.5, "α = 1/L": lambda L: 1 / L}
block_counts = [2, 4, 8, 16, 32, 64, 128, 256]
measured = {name: np.array([product_vs_first_order(L, alpha(L)) for L in block_counts])
            for name, alpha in scalings.items()}
widths = [64, 256, 1024]
print("operator norm of one branch Jacobian at widths", widths, ":",
      [round(float(np.linalg.norm(branch_jacobians(1, m)[0], 2)), 1) for m in widths])

# %%
fig, ax = plt.subplots()
for (name, alpha), color in zip(scalings.items(), nh.plotting.PALETTE):
    ax.loglog(block_counts, measured[name][:, 0], "o", color=color, label=f"{name}: measured")
    ax.loglog(block_counts, [remainder(L, alpha(L)) for L in block_counts], "--", color=color,
              label=f"{name}: predicted r")
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("‖∏(I+αJ) − (I+αΣJ)‖ / ‖∏(I+αJ)‖")
ax.legend(ncol=2, fontsize="small")
plt.show()

# %%
for name, alpha in scalings.items():
    predicted = np.array([remainder(L, alpha(L)) for L in block_counts])
    worst = float(np.abs(measured[name][:, 0] / predicted - 1).max())
    print(f"{name:>9}, L = 256: beyond first order {measured[name][-1, 0]:.3f}, r = {predicted[-1]:.3f}")
    assert worst < 0.25, f"{name}: expected measured / predicted r = 1 ± 0.25, worst deviation {worst:.3f}"
for name in ("α = 1/√L", "α = 1/L"):
    growth = measured[name][:, 1] / np.array([(1 + scalings[name](L) ** 2) ** L for L in block_counts])
    print(f"{name:>9}: ‖∏‖² / n divided by (1 + α²c)^L between {growth.min():.2f} and {growth.max():.2f}")
    assert np.abs(growth - 1).max() < 0.15, f"{name}: expected growth (1 + α²c)^L ± 15%, measured {growth}"
assert measured["α = 1/√L"][-1, 0] > 0.4, \
    f"α = 1/√L, L = 256: expected beyond first order > 0.4 (r = 0.51), got {measured['α = 1/√L'][-1, 0]:.3f}"

# %% [markdown]
# With $\alpha = 1/L$ the first-order formula becomes exact as $L$ grows (the remainder falls like $1/L$);
# with $\alpha = 1/\sqrt L$ the product stays bounded, $\|\prod\|^2/n \approx (1 + 1/L)^L \to e$, yet what
# lies beyond the first order is half the product's size; with $\alpha = 1$ it grows like $2^L$ on average
# (single products fluctuate by orders of magnitude) and is nothing like the first-order formula.
#
# ## 4.3.2 How the NTK grows with depth
#
# For ReLU with no bias write $\gamma = \alpha^2\sigma_w^2/2$, the growth per block (it is $\alpha^2 c$ from
# above). On the diagonal $\mathbb E[\phi\phi] = \Sigma/2$ and $\mathbb E[\phi'\phi'] = 1/2$, so every block
# multiplies both $\Sigma$ and the old $\Theta$ by $1 + \gamma$, and by induction, with
# $q_0 = \Sigma^{(0)}(x, x)$ and readout variance 1,
#
# $$\Theta(x,x) = q_0\,(1+\gamma)^L\Bigl(2 + \frac{L\gamma}{1+\gamma}\Bigr).$$
#
# > **The text says:** the ResNet NTK accumulates *linearly* over blocks, "never degenerates", and its
# > effective depth grows like $L$.  
# > **What is true:** each block multiplies the forward variance and the backward signal by $(1+\gamma)$, so
# > with $\alpha = 1$ (and $\sigma_w^2 = 2$) the NTK grows like $2^L$: exponentially. With
# > $\alpha = 1/\sqrt L$, $(1 + \gamma)^L \to e$ and the NTK tends to $3e\,q_0$; with $\alpha = 1/L$ the
# > branches vanish and it tends to $2q_0$, the kernel of a linear model. ([errata A15](../ERRATA.md#a15))

# %%
x = nh.pair_at_angle(math.radians(17), d=2)          # two inputs 17° apart, q0 = σ_w² x·x/d = 2
q0, sigma_w2 = 2.0, 2.0
depths = [1, 2, 4, 8, 16, 32, 64, 128, 256]        # α = 1: Θ ~ 2^L; variances² overflow float64 near L = 500
diagonal, correlation = {}, {}
for name, alpha in scalings.items():
    kernels = [nh.resnet(L, alpha=alpha(L)).kernel(x).ntk for L in depths]
    diagonal[name] = np.array([float(k[0, 0]) for k in kernels])
    correlation[name] = [float(k[0, 1] / k[0, 0]) for k in kernels]

def closed_form(L, alpha):
    gamma = alpha ** 2 * sigma_w2 / 2                  # growth per block
    return q0 * (1 + gamma) ** L * (2 + L * gamma / (1 + gamma))

for name, alpha in scalings.items():
    expected = np.array([closed_form(L, alpha(L)) for L in depths])
    error = float(np.abs(diagonal[name] / expected - 1).max())
    assert error < 1e-10, f"{name}: expected the closed form (relative error < 1e-10), measured {error:.1e}"
print("the recursion matches the closed form at every depth (relative difference below 1e-10)")

# %%
fig, ax = plt.subplots()
for name in scalings:
    ax.loglog(depths, diagonal[name] / q0, "o-", label=name)
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("Θ(x, x) / q₀")
ax.set_title(r"α = 1 grows like $2^L$ ($10^{79}$ at L = 256)")
ax.legend()
plt.show()

# %% [markdown]
# On that scale the two other scalings look flat. Zoomed in, on a linear axis:

# %%
fig, ax = plt.subplots()
for name, color in zip(scalings, nh.plotting.PALETTE):
    if name != "α = 1":
        ax.semilogx(depths, diagonal[name] / q0, "o-", color=color, label=name)
ax.axhline(3 * math.e, color="k", ls="--", lw=1, label="3e (limit of α = 1/√L)")
ax.axhline(2, color="k", ls=":", lw=1, label="2 (limit of α = 1/L)")
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("Θ(x, x) / q₀")
ax.set_title("bounded: α = 1/√L and α = 1/L")
ax.legend()
plt.show()

# %%
growth = math.log(diagonal["α = 1"][6] / diagonal["α = 1"][5]) / (64 - 32)
sqrt_limit, linear_limit = diagonal["α = 1/√L"][-1] / q0, diagonal["α = 1/L"][-1] / q0
print(f"α = 1: log Θ grows by {growth:.4f} per block (log 2 = {math.log(2):.4f});  "
      f"α = 1/√L at L = 256: {sqrt_limit:.3f} q₀ (3e = {3 * math.e:.3f});  α = 1/L: {linear_limit:.4f} q₀")
assert abs(growth / math.log(2) - 1) < 0.05, f"α = 1: expected log 2 per block ± 5%, measured {growth:.4f}"
assert abs(sqrt_limit / (3 * math.e) - 1) < 0.01, f"α = 1/√L: expected 3e q₀ ± 1%, got {sqrt_limit:.4f} q₀"
assert abs(linear_limit / 2 - 1) < 0.01, f"α = 1/L: expected 2 q₀ ± 1%, measured {linear_limit:.4f} q₀"

# %% [markdown]
# ### The *normalized* kernel: does depth still change anything?
#
# With $\alpha = 1$ the correlation of the two inputs decays like an MLP's (kernel collapse, lesson 02). With
# $\alpha = 1/\sqrt L$ it converges to a depth-independent, non-degenerate value: extra blocks change little.
# With $\alpha = 1/L$ it tends to the linear kernel's value.

# %%
mlp_correlation = []
for L in depths:
    k = nh.mlp(L, "relu").kernel(x).ntk
    mlp_correlation.append(float(k[0, 1] / k[0, 0]))
fig, ax = plt.subplots()
for name in scalings:
    ax.semilogx(depths, correlation[name], "o-", label=f"ResNet, {name}")
ax.semilogx(depths, mlp_correlation, "k--", label="MLP (no skips)")
ax.set_xlabel("depth L")
ax.set_ylabel("Θ(x, x′) / Θ(x, x), 17° apart")
ax.legend()
plt.show()

# %%
last = correlation["α = 1/√L"][-4:]
print("α = 1/√L, L = 32 … 256:", np.round(last, 4))
assert max(last) - min(last) < 0.002, f"α = 1/√L: expected one value (within 0.002) at all L, measured {last}"
assert correlation["α = 1"][-1] < 0.4, \
    f"α = 1: expected a collapse below 0.4, measured {correlation['α = 1'][-1]:.3f}"
assert correlation["α = 1/√L"][-1] > 0.9, \
    f"α = 1/√L: expected a correlation above 0.9, measured {correlation['α = 1/√L'][-1]:.3f}"

# %% [markdown]
# ### Finite networks agree
#
# > **The overview says:** residual connections break the i.i.d. assumption, which complicates NTK analysis.  
# > **What is true:** ResNet NTKs are well defined and have been analysed (Huang et al. 2020; Hayou et al.
# > 2021), and the Tensor Programs framework (Yang 2019, 2020) covers residual networks. At infinite width the
# > identity path and the branch are uncorrelated (the branch ends in fresh zero-mean weights), so the
# > recursion above simply adds their covariances. Finite networks agree with it: the check below.
# > ([errata B21](../ERRATA.md#b21))
#
# Mean empirical NTK of 8 networks of width 1024, 4 blocks, against the analytic one, for each scaling. The
# larger $\alpha$, the larger the finite-width fluctuations (they grow with the effective depth: Hanin & Nica
# 2020). The 24 empirical NTKs take about 15 s on a laptop (a progress bar counts the three scalings).

# %% tags=["nbval-ignore-output"]
inputs = nh.sphere(8, d=6, seed=0)
finite_errors = {}
for name, alpha in tqdm(scalings.items(), desc="scalings", total=len(scalings)):
    arch = nh.resnet(4, alpha=alpha(4))
    sweep = nh.width_sweep(arch, inputs, widths=[1024], seeds=8)
    exact = arch.kernel(inputs).ntk
    finite_errors[name] = sweep.errors.mean(), float((sweep.mean_ntk[0] - exact).norm() / exact.norm())

# %%
for name, (one, error) in finite_errors.items():
    print(f"{name:>9}: relative error {one:.3f} for one network, {error:.3f} for 8 averaged")
    assert error < 0.08, f"{name}: expected the mean of 8 networks within 8% of the NTK, measured {error:.3f}"

# %% [markdown]
# ## 4.3.3 Why "O(√L)" is the wrong arithmetic
#
# > **The text says:** with $\alpha = 1/\sqrt L$ each block contributes $O(1/\sqrt L)$, so the total is
# > $\sum_l O(1/\sqrt L) = O(\sqrt L)$.  
# > **What is true:** the NTK is a sum over **parameters** of gradient products (squares on its diagonal).
# > Different blocks have different parameters, so their contributions are *squared* gradient norms,
# > each of order $\alpha^2$: the total is $L \cdot \alpha^2 \cdot O(1) = O(1)$ for $\alpha = 1/\sqrt L$. ([errata A16](../ERRATA.md#a16))
#
# We measure each block's share of $\Theta(x,x)$ in a finite network: weight the NTK by "this block's
# parameters only" (`parameter_weights`).

# %%
def block_shares(depth, alpha, width=512):
    model = nh.resnet(depth, alpha=alpha).network(6, width=width, seed=0)
    names = [n for n, _ in model.named_parameters()]
    total = float(nh.empirical_ntk(model, inputs[:1]))
    shares = []
    for block in range(1, depth + 1):
        weights = {n: float(n.startswith(f"{block}.")) for n in names}
        shares.append(float(nh.empirical_ntk(model, inputs[:1], parameter_weights=weights)) / total)
    return np.array(shares), total

for depth in (4, 16):
    shares, total = block_shares(depth, depth ** -0.5)
    print(f"L = {depth:2d}, α = 1/√L: Θ(x,x) = {total:6.2f}; block shares sum to {shares.sum():.2f}, "
          f"mean share {shares.mean():.3f} ≈ α² × const")
    assert shares.sum() < 1, f"L = {depth}: expected the block shares to sum below 1, got {shares.sum():.3f}"
    assert shares.mean() < 1.5 / depth, \
        f"L = {depth}: expected a mean share below 1.5 α² = {1.5 / depth:.3f}, measured {shares.mean():.3f}"

# %% [markdown]
# ## Explore
#
# Depth, scaling and activation: the normalized NTK against the angle between inputs, at depth $L$ and (faint)
# for one block. Closed-form activations only: with α = 1 the variance grows with depth, and tanh's quadrature
# would crawl. With α = 1 and erf, from about 50 blocks on, two inputs only a few degrees apart are already
# nearly uncorrelated: the curve drops from 1 to 0 at once (and is −1 at 180°, because the bias-free erf network
# is odd); the explorer says why. Should a kernel ever leave the float64 range, it says so instead of drawing.

# %%
angles = torch.linspace(0, math.pi, 61, dtype=torch.float64)
circle = torch.stack([angles.cos(), angles.sin()], 1) * math.sqrt(2)

def draw_resnet(depth, scaling, activation):
    curves = {}
    for L in sorted({1, depth}):
        try:
            k = nh.resnet(L, activation, alpha=scalings[scaling](L)).kernel(circle[:1], circle).ntk[0]
        except OverflowError:
            k = torch.tensor([math.inf])
        if not torch.isfinite(k).all():
            print(f"L = {L}, {scaling}, {activation}: nothing drawn, the kernel came out non-finite. The "
                  f"variance grows like (1 + α²σ_w²E[φ'²])^L, past what the {activation} closed form handles "
                  "in float64; choose a smaller depth or another α.")
            return
        curves[L] = k
    fig, ax = plt.subplots()
    for L, k in curves.items():
        faint = L == 1 and depth > 1
        style = dict(alpha=0.35, label="L = 1 (one block)") if faint else dict(label=f"L = {L}")
        ax.plot(torch.rad2deg(angles), k / k[0], color=nh.plotting.PALETTE[0], **style)
    ax.set_xlabel("angle between inputs (degrees)")
    ax.set_ylabel("normalized NTK Θ(x, x′) / Θ(x, x)")
    ax.set_title(f"{scaling}, {activation}")
    ax.legend()
    k = curves[depth]
    print(f"L = {depth}, {scaling}, {activation}: Θ(x,x) = {float(k[0]):.4g}, "
          f"normalized at 90° {float(k[30] / k[0]):.3f}")
    if abs(float(k[1] / k[0])) < 0.05:
        print(f"Inputs 3° apart are nearly uncorrelated ({float(k[1] / k[0]):.3f}): the variance has grown "
              "so large that erf′ is a narrow spike, so each block's factor 1 + α²σ_w²E[φ′φ′] is larger for "
              "x′ = x than for any other x′, and over many blocks the diagonal outgrows every other entry "
              "(lesson 06 shows the spike for one layer).")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_resnet, depth=nh.widgets.depth_slider(16, max=200),
                       scaling=nh.widgets.dropdown("scaling", "α = 1/√L", options=list(scalings)),
                       activation=nh.widgets.activation_dropdown("relu", options=["relu", "erf", "gelu"]))

# %% [markdown]
# ## Summary
#
# - A residual block adds $\alpha^2$ times its branch's kernel; per block the scale grows by
#   $1 + \alpha^2\sigma_w^2\mathbb E[\phi'^2]$.
# - Block Jacobians are $O(1)$ in the NTK parameterization; $\alpha = 1/\sqrt L$ keeps their product bounded
#   because they add in squares, but only $L\alpha^2 \ll 1$ makes it additive ($I + \alpha\sum_l J_l$).
# - $\alpha = 1$: exponential growth and MLP-like collapse. $\alpha = 1/\sqrt L$: bounded ($3e\,q_0$ for ReLU)
#   and a depth-independent limit. $\alpha = 1/L$: the branches vanish.
# - Residual networks have a well-defined NTK; finite networks match the recursion.
# - Gradients of different blocks add in squares; the chapter's $O(\sqrt L)$ sum is not how the NTK adds up.
#
# **Exercise:** 4.3 (depth scaling of a ResNet NTK).
#
# **Next:** [05 · Normalization and parameterization](05_normalization_parameterization.ipynb)
