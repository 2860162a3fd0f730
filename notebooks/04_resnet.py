# %% [markdown]
# # 04 · Residual networks: how the branch scale α decides everything
#
# *Chapter 4.3.*
#
# **You will learn**
# - the kernel of a residual block $x + \alpha\,g(x)$ and why it is additive in $\alpha^2$;
# - that with $\alpha = 1$ the NTK grows **exponentially** with depth, with $\alpha = 1/\sqrt L$ it stays bounded
#   (and tends to $3e\,q_0$ for ReLU), and with $\alpha = 1/L$ the branches vanish;
# - why the chapter's $O(\sqrt L)$ arithmetic is wrong: gradients of different blocks add in **squares**.
#
# **Prerequisites:** lesson 02.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 4.3.1 The model and its kernel
#
# $x^{(0)} = \frac{\sigma_w}{\sqrt d}W^{(0)}x$, then $L$ blocks $x^{(l)} = x^{(l-1)} + \alpha\,\frac{\sigma_w}{\sqrt m}W^{(l)}\phi(x^{(l-1)})$,
# and a linear readout. The branch ends in fresh zero-mean weights, so at infinite width $g(x)$ is uncorrelated
# with $x$, and
#
# $$\Sigma^{(l)} = \Sigma^{(l-1)} + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi], \qquad
#   \Theta^{(l)} = \bigl(1 + \alpha^2\sigma_w^2\,\mathbb E[\phi'\phi']\bigr)\Theta^{(l-1)} + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi]$$
#
# (Huang et al. 2020; Hayou et al. 2021). In the package: `nh.residual(nh.relu(), nh.dense(), alpha=...)`.

# %%
print(nh.resnet(2, alpha=0.5))      # dense -> 2 x residual(relu, dense) -> dense(1)

# %% [markdown]
# ## 4.3.2 How the NTK grows with depth
#
# For ReLU with $\sigma_w^2 = 2$, no bias, the diagonal has a closed form (AUDIT §2(e)): with $c = \alpha^2\sigma_w^2/2$,
#
# $$\Theta(x,x) = q_0\,(1+c)^L\Bigl(2 + \frac{Lc}{1+c}\Bigr).$$
#
# > **The text says:** the ResNet NTK accumulates *linearly* over blocks, "never degenerates", and its effective
# > depth grows like $L$.  
# > **What is true:** each block multiplies the forward variance and the backward signal by $(1+c)$, so with
# > $\alpha = 1$ the NTK grows like $2^L$: exponentially. With $\alpha = 1/\sqrt L$, $(1 + c/L)^L \to e^{c}$ and the NTK
# > tends to $3e\,q_0$; with $\alpha = 1/L$ the branches vanish and it tends to $2q_0$, the kernel of a linear model.

# %%
x = nh.pair_at_angle(math.radians(17), d=2)          # two inputs 17° apart, q0 = σ_w² x·x/d = 2
q0 = 2.0
depths = [1, 2, 4, 8, 16, 32, 64, 128, 256]        # α = 1: Θ ~ 2^L; variances² overflow float64 near L = 500
scalings = {"α = 1": lambda L: 1.0, "α = 1/√L": lambda L: L ** -0.5, "α = 1/L": lambda L: 1 / L}
diagonal, correlation = {}, {}
for name, alpha in scalings.items():
    kernels = [nh.resnet(L, alpha=alpha(L)).kernel(x).ntk for L in depths]
    diagonal[name] = [float(k[0, 0]) for k in kernels]
    correlation[name] = [float(k[0, 1] / k[0, 0]) for k in kernels]

def closed_form(L, alpha):
    c = alpha ** 2
    return q0 * (1 + c) ** L * (2 + L * c / (1 + c))

for name, alpha in scalings.items():
    assert np.allclose(diagonal[name], [closed_form(L, alpha(L)) for L in depths], rtol=1e-10)
print("the recursion matches the closed form at every depth")

# %%
fig, ax = plt.subplots()
for name in scalings:
    ax.loglog(depths, np.array(diagonal[name]) / q0, "o-", label=name)
ax.axhline(3 * math.e, color="k", ls="--", lw=1, label="3e")
ax.axhline(2, color="k", ls=":", lw=1, label="2")
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("Θ(x, x) / q₀")
ax.legend()
plt.show()

# %%
growth = math.log(diagonal["α = 1"][6] / diagonal["α = 1"][5]) / (64 - 32)
print(f"α = 1: log Θ grows by {growth:.4f} per block (log 2 = {math.log(2):.4f});  "
      f"α = 1/√L at L = 256: {diagonal['α = 1/√L'][-1] / q0:.3f} q₀ (3e = {3 * math.e:.3f});  "
      f"α = 1/L: {diagonal['α = 1/L'][-1] / q0:.4f} q₀")
assert abs(growth - math.log(2)) < 0.05
assert abs(diagonal["α = 1/√L"][-1] / q0 - 3 * math.e) < 0.05 and abs(diagonal["α = 1/L"][-1] / q0 - 2) < 0.02

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
print("α = 1/√L:", np.round(correlation["α = 1/√L"][-4:], 4))
assert max(correlation["α = 1/√L"][-4:]) - min(correlation["α = 1/√L"][-4:]) < 0.002
assert correlation["α = 1"][-1] < 0.4 and correlation["α = 1/√L"][-1] > 0.9

# %% [markdown]
# ### Finite networks agree
#
# Mean empirical NTK of 8 networks of width 1024, 4 blocks, against the analytic one, for each scaling. The
# larger $\alpha$, the larger the finite-width fluctuations (they grow with the effective depth: Hanin & Nica 2020).

# %%
inputs = nh.sphere(8, d=6, seed=0)
for name, alpha in scalings.items():
    arch = nh.resnet(4, alpha=alpha(4))
    sweep = nh.width_sweep(arch, inputs, widths=[1024], seeds=8)
    exact = arch.kernel(inputs).ntk
    error = float((sweep.mean_ntk[0] - exact).norm() / exact.norm())
    print(f"{name:>9}: one network {sweep.errors.mean():.3f}, mean of 8 networks {error:.3f}")
    assert error < 0.08

# %% [markdown]
# ## 4.3.3 Why "O(√L)" is the wrong arithmetic
#
# > **The text says:** with $\alpha = 1/\sqrt L$ each block contributes $O(1/\sqrt L)$, so the total is
# > $\sum_l O(1/\sqrt L) = O(\sqrt L)$.  
# > **What is true:** the NTK is a sum over **parameters** of squared-gradient products. Different blocks have
# > different parameters, so their contributions are *squared* gradient norms, each of order $\alpha^2$: the
# > total is $L \cdot \alpha^2 \cdot O(1) = O(1)$ for $\alpha = 1/\sqrt L$.
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
    assert shares.sum() < 1 and shares.mean() < 1.5 / depth

# %% [markdown]
# ## Explore
#
# Depth, scaling and activation: the normalized NTK against the angle between inputs (faint: one block).
# (Closed-form activations only: with α = 1 the variance grows with depth, and tanh's quadrature would crawl.)

# %%
angles = torch.linspace(0, math.pi, 61, dtype=torch.float64)
circle = torch.stack([angles.cos(), angles.sin()], 1) * math.sqrt(2)

def draw_resnet(depth, scaling, activation):
    fig, ax = plt.subplots()
    for L, style in [(1, dict(alpha=0.3)), (depth, {})]:          # the loop ends with k at the chosen depth
        k = nh.resnet(L, activation, alpha=scalings[scaling](L)).kernel(circle[:1], circle).ntk[0]
        ax.plot(torch.rad2deg(angles), k / k[0], color=nh.plotting.PALETTE[0], **style)
    ax.set_ylim(-0.2, 1.05)
    ax.set_xlabel("angle between inputs (degrees)")
    ax.set_ylabel("normalized NTK")
    print(f"L = {depth}, {scaling}, {activation}: Θ(x,x) = {float(k[0]):.4g}, at 90° {float(k[30] / k[0]):.3f}")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_resnet, depth=nh.widgets.depth_slider(16, max=200),
                       scaling=nh.widgets.dropdown("scaling", "α = 1/√L", options=list(scalings)),
                       activation=nh.widgets.activation_dropdown("relu", options=["relu", "erf", "gelu"]))

# %% [markdown]
# ## Summary
#
# - A residual block adds $\alpha^2$ times its branch's kernel; per block the scale grows by $1 + \alpha^2\sigma_w^2\mathbb E[\phi'^2]$.
# - $\alpha = 1$: exponential growth and MLP-like collapse. $\alpha = 1/\sqrt L$: bounded ($3e\,q_0$ for ReLU) and a
#   depth-independent limit. $\alpha = 1/L$: the branches vanish.
# - Gradients of different blocks add in squares; the chapter's $O(\sqrt L)$ sum is not how the NTK adds up.
#
# **Exercise:** 4.3 (depth scaling of a ResNet NTK).
