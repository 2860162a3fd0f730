# %% [markdown]
# # 02 · The MLP recursion, kernel collapse and the edge of chaos
#
# *Chapter 4.1.*
#
# **You will learn**
# - 4.1.1: how the NNGP kernel $\Sigma$ and the NTK $\Theta$ of an MLP are computed layer by layer,
#   and why each step needs the *triple* $(\Sigma(x,x), \Sigma(x',x'), \Sigma(x,x'))$;
# - 4.1.2: what really happens to deep kernels ("kernel collapse"), and why the chapter's explanation
#   (dead or saturated units) is not the mechanism;
# - the order/chaos phase diagram of tanh networks.
#
# **Prerequisites:** lesson 01.

# %%
import functools
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 4.1.1 The recursion
#
# Network (NTK parameterization, $L$ hidden layers of width $m$, all weights and biases $\mathcal N(0,1)$):
# $z^{(1)} = \frac{\sigma_w}{\sqrt d}W^{(1)}x + \sigma_b b^{(1)}$, then
# $z^{(l+1)} = \frac{\sigma_w}{\sqrt m}W^{(l+1)}\phi(z^{(l)}) + \sigma_b b^{(l+1)}$, and $f = z^{(L+1)}$.
#
# As $m\to\infty$ each unit of $z^{(l)}$ is a Gaussian process over inputs with covariance $\Sigma^{(l)}$, and
#
# $$\Sigma^{(1)}(x,x') = \sigma_w^2\,\tfrac{x\cdot x'}{d} + \sigma_b^2, \qquad \Theta^{(1)} = \Sigma^{(1)},$$
#
# $$\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2, \qquad
#   \dot\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)], \qquad
#   \Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\,\Theta^{(l)},$$
#
# where $(u, v) \sim \mathcal N\!\left(0, \begin{pmatrix}\Sigma^{(l)}(x,x) & \Sigma^{(l)}(x,x')\\ \Sigma^{(l)}(x,x') & \Sigma^{(l)}(x',x')\end{pmatrix}\right)$
# (Jacot et al. 2018; Lee et al. 2019; Arora et al. 2019).
#
# > **The text says:** the NNGP kernel is $K^{(l)}(x,x') = \mathbb E[\sigma(z_i^{(l)})\,\sigma(z_j^{(l)})]$, and
# > $\Theta^{(l)} = K^{(l)} + \dot K^{(l-1)}\Theta^{(l-1)}$.  
# > **What is true:** the expectation is over **one** unit at two inputs, $\mathbb E[\phi(z_i(x))\,\phi(z_i(x'))]$;
# > two different units $i\neq j$ are independent and their covariance is zero. The NTK step adds the
# > *pre-activation* covariance, and both $\sigma_w^2$ and $\sigma_b^2$ belong in it, as above.

# %% [markdown]
# ### Step by step
#
# The package's layers *are* this recursion: `dense(...).transform(k)` is the first formula, and an activation's
# `transform` is the expectation step. Follow two inputs of different lengths through a depth-3 ReLU network.
# (After an activation the Θ column holds $\mathbb E[\phi'\phi']\,\Theta$, the part that the next dense layer
# multiplies by $\sigma_w^2$.)

# %%
pair = torch.tensor([[1.0, 0.0, 0.0], [0.9, 1.5, 0.3]], dtype=torch.float64)   # (2, 3), |x| ≠ |x'|
sigma_w, sigma_b, depth = math.sqrt(2), 0.2, 3
hidden, readout, activation = nh.dense(sigma_w=sigma_w, sigma_b=sigma_b), nh.dense(1, sigma_w=sigma_w, sigma_b=sigma_b), nh.relu()

k = nh.Kernel.from_inputs(pair)
print(f"{'step':<10}{'Σ(x,x)':>9}{'Σ(x′,x′)':>10}{'Σ(x,x′)':>10}{'Θ(x,x′)':>10}")
for step, layer in enumerate([hidden, activation] * depth + [readout]):
    k = layer.transform(k)
    name = "dense" if layer in (hidden, readout) else "relu"
    print(f"{step + 1:>2} {name:<7}{k.var1[0]:9.4f}{k.var2[1]:10.4f}{k.nngp[0, 1]:10.4f}{k.ntk[0, 1]:10.4f}")

# %%
same = nh.mlp(depth, "relu", sigma_w=sigma_w, sigma_b=sigma_b).kernel(pair)
assert torch.allclose(same.ntk, k.ntk) and torch.allclose(same.nngp, k.nngp)

# %% [markdown]
# ### Why the triple matters
#
# The expectation step needs both variances. A tempting shortcut uses $\Sigma(x,x)$ for both inputs.
# Compare with the truth: a wide random network, where each of its 2048 output units is one sample of
# the Gaussian process.

# %%
one_layer = nh.serial(hidden, activation, nh.dense(2048, sigma_w=sigma_w, sigma_b=sigma_b))
correct = one_layer.kernel(pair).nngp[0, 1]

k1 = hidden.transform(nh.Kernel.from_inputs(pair))
shortcut_e, _ = activation.activation.dual(k1.var1[0], k1.var1[0], k1.nngp[0, 1])      # wrong: var(x) twice
shortcut = sigma_w ** 2 * shortcut_e + sigma_b ** 2

outputs = one_layer.network(3, width=4096, seed=0)(pair).detach()                       # (2, 2048)
monte_carlo = float(outputs[0] @ outputs[1] / outputs.shape[1])
print(f"Σ(x,x′): correct {correct:.4f}, shortcut {shortcut:.4f}, wide network {monte_carlo:.4f}")
assert abs(monte_carlo - correct) < 0.05 * abs(correct) < abs(shortcut - correct)

# %% [markdown]
# ### The finite network agrees
#
# Averaged over 8 seeds, the NTK of width-1024 networks matches the recursion:

# %%
x = nh.sphere(12, d=5, seed=0)
arch = nh.mlp(3, "relu", sigma_w=sigma_w, sigma_b=sigma_b)
sweep = nh.width_sweep(arch, x, widths=[1024], seeds=8)
analytic = arch.kernel(x).ntk
error = float((sweep.mean_ntk[0] - analytic).norm() / analytic.norm())
print(f"relative error: one network {sweep.errors.mean():.3f}, mean of 8 networks {error:.3f}")
assert error < 0.05

# %% [markdown]
# ## 4.1.2 Kernel collapse: what really happens with depth
#
# > **The text says:** deep kernels degenerate because units die (ReLU) or saturate (tanh), so
# > $\dot K \to 0$ and the NTK becomes "nearly constant or low rank".  
# > **What is true:** for ReLU at the standard initialization $\sigma_w^2 = 2, \sigma_b = 0$ nothing dies on
# > average: $\dot\Sigma(x,x) = 1$ exactly and the variance $q$ is preserved at every layer. What changes is the
# > **angle** between inputs: the correlation map has a marginally stable fixed point at $c=1$, so correlations
# > creep towards 1 like $1 - c_l \approx 9\pi^2/(2l^2)$. The NNGP kernel then tends to a constant (rank one), but
# > the NTK tends to $(L+1)\,q\,\bigl[\tfrac34 I + \tfrac14 \mathbf 1\mathbf 1^\top\bigr]$, which is **full rank**.
#
# First, the backward factor $\dot\Sigma(x,x)$ at every depth:

# %%
q = torch.tensor([1.0, 2.0, 5.0], dtype=torch.float64)
relu_dual = nh.relu().activation
sigma_dot_diag = 2.0 * relu_dual.diagonal(q)[1]           # σ_w² E[φ'(u)²] with σ_w² = 2
variance_next = 2.0 * relu_dual.diagonal(q)[0]            # σ_w² E[φ(u)²]
print("Σ̇(x,x) =", sigma_dot_diag.numpy(), "  q → q:", variance_next.numpy())
assert torch.allclose(sigma_dot_diag, torch.ones(3, dtype=torch.float64)) and torch.allclose(variance_next, q)

# %% [markdown]
# ### The correlation map
#
# With the variance fixed, one layer maps the correlation $c$ of two inputs to
# $c' = \bigl(\sqrt{1-c^2} + (\pi - \arccos c)\,c\bigr)/\pi$. Its only fixed point is $c^* = 1$, with slope exactly 1 there.

# %%
c = torch.linspace(-1, 1, 201, dtype=torch.float64)
fig, ax = plt.subplots(figsize=(4.8, 4.2))
ax.plot(c, nh.correlation_map(c, "relu"), label="ReLU, σ_w² = 2")
ax.plot(c, c, "k--", lw=1, label="c′ = c")
ax.set_xlabel("correlation c at layer l")
ax.set_ylabel("correlation c′ at layer l + 1")
ax.legend()
plt.show()

# %%
h = 1e-6
slope_at_one = float((1 - nh.correlation_map(torch.tensor(1 - h, dtype=torch.float64), "relu")) / h)
print(f"slope of the map at c = 1: {slope_at_one:.5f}")
assert abs(slope_at_one - 1) < 1e-3

# %% [markdown]
# A slope of 1 means a *slow*, polynomial approach: $1 - c_l \approx 9\pi^2/(2 l^2)$.

# %%
layers = torch.arange(0, 1001)
trajectory = nh.correlation_trajectory(torch.tensor([0.0], dtype=torch.float64), 1000, "relu")[:, 0]
fig, ax = plt.subplots()
ax.loglog(layers[1:], 1 - trajectory[1:], label="1 − c_l (orthogonal inputs)")
ax.loglog(layers[10:], 9 * math.pi ** 2 / (2 * layers[10:] ** 2), "k--", lw=1, label="9π²/(2l²)")
ax.set_xlabel("layer l")
ax.set_ylabel("1 − c_l")
ax.legend()
plt.show()

# %%
ratio = float((1 - trajectory[1000]) * 1000 ** 2 / (9 * math.pi ** 2 / 2))
print(f"(1 − c_l) / (9π²/2l²) at l = 1000: {ratio:.3f}")
assert 0.9 < ratio < 1.0

# %% [markdown]
# ### NNGP → constant, NTK → ¾ I + ¼ 11ᵀ
#
# The normalized NTK entry $\Theta(x,x')/\Theta(x,x)$ of two orthogonal inputs tends to $\int_0^1 u^3\,du = 1/4$:
# layer $l$ contributes $\Sigma^{(l)}\prod_{k>l}\dot\Sigma^{(k)}$, and near-parallel inputs have
# $\dot\Sigma^{(k)}\approx 1 - 3/k$ off the diagonal but exactly 1 on it.

# %%
orthogonal = nh.pair_at_angle(math.pi / 2, d=2)
deep = nh.mlp_kernels_by_depth(orthogonal, depth=1000, activation="relu")
ntk_corr = deep.ntk[:, 0, 1] / deep.ntk[:, 0, 0]
nngp_corr = deep.nngp[:, 0, 1] / deep.nngp[:, 0, 0]
fig, ax = plt.subplots()
ax.semilogx(deep.depths, nngp_corr, label="NNGP  Σ(x,x′)/Σ(x,x)")
ax.semilogx(deep.depths, ntk_corr, label="NTK  Θ(x,x′)/Θ(x,x)")
ax.axhline(0.25, color="k", ls="--", lw=1, label="1/4")
ax.set_xlabel("depth L")
ax.set_ylabel("normalized kernel, orthogonal inputs")
ax.legend()
plt.show()

# %%
print(f"depth 1000: NNGP {nngp_corr[-1]:.4f}, NTK {ntk_corr[-1]:.4f}; Θ(x,x) = {deep.ntk[-1, 0, 0]:.0f} = (L+1)·q")
assert nngp_corr[-1] > 0.999 and abs(ntk_corr[-1] - 0.2533) < 2e-3
assert torch.isclose(deep.ntk[-1, 0, 0], torch.tensor(1001 * 2.0, dtype=torch.float64))

# %% [markdown]
# "Constant plus white noise" is full rank. On 50 random points its effective rank approaches
# $16n/(n+15)$, while the NNGP's falls to 1:

# %%
points = nh.sphere(50, d=10, seed=2)
deep50 = nh.mlp_kernels_by_depth(points, depth=500, activation="relu")
r_ntk = nh.effective_rank(nh.normalize(deep50.ntk[-1]))
r_nngp = nh.effective_rank(deep50.nngp[-1])
print(f"depth 500, n = 50: r_eff(NTK) = {r_ntk:.2f} (limit 16n/(n+15) = {16 * 50 / 65:.2f}), r_eff(NNGP) = {r_nngp:.4f}")
print(f"smallest eigenvalue of the normalized NTK: {nh.eigenvalues(nh.normalize(deep50.ntk[-1]))[-1]:.3f} (limit 3/4)")
assert abs(r_ntk / (16 * 50 / 65) - 1) < 0.1 and r_nngp < 1.01

# %% [markdown]
# ### What collapse costs: generalization
#
# > **The text says:** a very deep network's function space is the same as, or simpler than, a shallow one's.  
# > **What is true:** the deep NTK can still fit every training point (it is full rank), but off the training
# > set its predictions flatten towards a constant. Test error grows with depth.
#
# Kernel regression with the NTK (the infinitely wide network trained to convergence) on a smooth target on the
# sphere $S^9$, 100 training and 200 test points:

# %%
data = nh.sphere(300, d=10, seed=1)
direction_a, direction_b = nh.sphere(2, d=10, seed=7) / math.sqrt(10)
target = lambda X: torch.cos(2 * X @ direction_a / math.sqrt(10)) + X @ direction_b / math.sqrt(10)
y = target(data)
train, test = slice(0, 100), slice(100, 300)
depths = [1, 2, 5, 20, 50]
by_depth = nh.mlp_kernels_by_depth(data, depth=max(depths), activation="relu")
test_mse = []
for L in depths:
    K = by_depth.ntk[L - 1]
    prediction = nh.kernel_regression(K[train, train], K[test, train], y[train])
    test_mse.append(float(((prediction - y[test]) ** 2).mean()))
print("depth:   ", depths)
print("test MSE:", np.round(test_mse, 4), f"  (variance of y: {float(y[test].var()):.3f})")

# %%
fig, ax = plt.subplots()
ax.semilogy(depths, test_mse, "o-", label="NTK regression")
ax.axhline(float(y[test].var()), color="k", ls="--", lw=1, label="predict the mean")
ax.set_xlabel("depth L")
ax.set_ylabel("test MSE")
ax.legend()
plt.show()

# %%
assert all(a < b for a, b in zip(test_mse, test_mse[1:])) and test_mse[-1] > 10 * test_mse[0]

# %% [markdown]
# ### Explore: depth, activation, scale
#
# The curves show the normalized NTK (solid) and NNGP (dashed) between a fixed input and inputs at
# angle $\theta$, for the chosen depth, next to depth 1 (faint). Watch ReLU flatten slowly, tanh at small
# $\sigma_w$ collapse fast (order), and erf at large $\sigma_w$ lose all correlation (chaos).

# %%
angle_grid = torch.linspace(0, math.pi, 61, dtype=torch.float64)
on_circle = torch.stack([angle_grid.cos(), angle_grid.sin()], 1) * math.sqrt(2)      # (61, 2), |x|² = d

@functools.lru_cache(maxsize=32)
def kernels_by_angle(activation, sigma_w, sigma_b, max_depth=100):
    k = nh.mlp_kernels_by_depth(on_circle[:1], on_circle, depth=max_depth, activation=activation,
                                sigma_w=sigma_w, sigma_b=sigma_b)
    return k.nngp[:, 0] / k.nngp[:, :1, 0], k.ntk[:, 0] / k.ntk[:, :1, 0]       # (depth, 61) each

def draw_collapse(depth, activation, sigma_w, sigma_b):
    nngp, ntk = kernels_by_angle(activation, sigma_w, sigma_b)
    degrees = torch.rad2deg(angle_grid)
    fig, ax = plt.subplots()
    ax.plot(degrees, ntk[0], color=nh.plotting.PALETTE[0], alpha=0.3)
    ax.plot(degrees, nngp[0], color=nh.plotting.PALETTE[1], alpha=0.3, ls="--")
    ax.plot(degrees, ntk[depth - 1], color=nh.plotting.PALETTE[0], label=f"NTK, depth {depth}")
    ax.plot(degrees, nngp[depth - 1], color=nh.plotting.PALETTE[1], ls="--", label=f"NNGP, depth {depth}")
    ax.set_xlabel("angle between inputs (degrees)")
    ax.set_ylabel("normalized kernel")
    ax.set_ylim(-0.55, 1.05)
    ax.set_title("faint lines: depth 1")
    ax.legend(loc="upper right")
    print(f"depth {depth}, {activation}: at 90° NTK {float(ntk[depth - 1, 30]):.3f}, NNGP {float(nngp[depth - 1, 30]):.3f}")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(
    draw_collapse,
    depth=nh.widgets.depth_slider(10, max=100),
    activation=nh.widgets.activation_dropdown("relu"),
    sigma_w=nh.widgets.sigma_slider("sigma_w", round(math.sqrt(2), 2), min=0.5, max=2.5),
    sigma_b=nh.widgets.sigma_slider("sigma_b", 0.0, max=1.0),
)

# %% [markdown]
# ## Order and chaos (tanh, erf)
#
# For bounded activations the variance settles at a fixed point $q^*$ and one number decides the fate of
# correlations: $\chi_1 = \sigma_w^2\,\mathbb E[\phi'(\sqrt{q^*}z)^2]$, the slope of the correlation map at $c = 1$
# (Poole et al. 2016; Schoenholz et al. 2017).
#
# - $\chi_1 < 1$, **ordered**: all inputs become perfectly correlated, exponentially fast; the NTK tends to a
#   constant matrix $q^*/(1-\chi_1)\,\mathbf 1\mathbf 1^\top$ (rank one: training stalls).
# - $\chi_1 > 1$, **chaotic**: correlations fall to $c^* < 1$; the normalized NTK tends to the identity
#   (every input looks unrelated: no generalization).
# - $\chi_1 = 1$, the **edge of chaos**: the slow, polynomial regime, like ReLU above.
#
# > **The text says:** set the "Lyapunov exponent" to zero.  
# > **What is true:** the condition is $\chi_1 = 1$, computed at the variance fixed point.

# %%
sigma_w2_grid = torch.linspace(0.5, 4.0, 36, dtype=torch.float64)
sigma_b2_grid = torch.linspace(0.0, 0.5, 26, dtype=torch.float64)
chi = nh.chi1("tanh", sigma_w2=sigma_w2_grid[None, :], sigma_b2=sigma_b2_grid[:, None])    # (26, 36)

fig, ax = plt.subplots()
image = ax.pcolormesh(sigma_w2_grid, sigma_b2_grid, torch.log(chi), cmap="RdBu_r", vmin=-1, vmax=1, shading="auto")
ax.contour(sigma_w2_grid, sigma_b2_grid, chi, levels=[1.0], colors="k")
ax.plot([1.761], [0.05], "k*", ms=12)
ax.text(0.7, 0.42, "ordered\nχ₁ < 1", fontsize=12)
ax.text(3.0, 0.05, "chaotic\nχ₁ > 1", fontsize=12)
ax.set_xlabel("σ_w²")
ax.set_ylabel("σ_b²")
ax.set_title("tanh: log χ₁, edge of chaos in black")
plt.colorbar(image, ax=ax, label="log χ₁")
plt.show()

# %%
edge = float(nh.chi1("tanh", sigma_w2=1.761, sigma_b2=0.05))
print(f"χ₁ at (σ_w², σ_b²) = (1.761, 0.05): {edge:.4f}")
assert abs(edge - 1) < 5e-3

# %% [markdown]
# Correlation of two inputs (starting at $c_0 = 0.2$) through 40 tanh layers, in each phase:

# %%
phases = {"ordered (1.0, 0.05)": 1.0, "edge (1.761, 0.05)": 1.761, "chaotic (3.0, 0.05)": 3.0}
paths = nh.correlation_trajectory(torch.full((3,), 0.2, dtype=torch.float64), 40, "tanh",
                                  sigma_w2=torch.tensor(list(phases.values()), dtype=torch.float64), sigma_b2=0.05)
fig, ax = plt.subplots()
for index, name in enumerate(phases):
    ax.plot(paths[:, index], label=name)
ax.set_xlabel("layer")
ax.set_ylabel("correlation c_l")
ax.legend()
plt.show()

# %%
print("final correlations:", paths[-1].numpy().round(4))
assert paths[-1, 0] > 0.999 and paths[-1, 2] < 0.5 and paths[-1, 0] > paths[-1, 1] > paths[-1, 2]

# %% [markdown]
# And the NTK follows: rank one in the ordered phase, the identity in the chaotic one (erf, depth 50, 20 points):

# %%
points20 = nh.sphere(20, d=10, seed=3)
ordered = nh.mlp(50, "erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)).kernel(points20).ntk
chaotic = nh.mlp(50, "erf", sigma_w=2.0, sigma_b=math.sqrt(0.05)).kernel(points20).ntk
q_star = float(nh.q_fixed_point("erf", sigma_w2=1.0, sigma_b2=0.05))
chi_ordered = float(nh.chi1("erf", sigma_w2=1.0, sigma_b2=0.05))
off_diagonal = nh.normalize(chaotic) - torch.eye(20, dtype=torch.float64)
print(f"ordered: entries in [{ordered.min():.3f}, {ordered.max():.3f}], q*/(1−χ₁) = {q_star / (1 - chi_ordered):.3f}, r_eff = {nh.effective_rank(ordered):.3f}")
print(f"chaotic: largest normalized off-diagonal below 1e-6: {bool(off_diagonal.abs().max() < 1e-6)}, r_eff = {nh.effective_rank(chaotic):.2f} of 20")
assert torch.allclose(ordered, torch.full_like(ordered, q_star / (1 - chi_ordered)), rtol=0.02)
assert nh.effective_rank(ordered) < 1.05 and nh.effective_rank(chaotic) > 19.9

# %% [markdown]
# ## Summary
#
# - The NNGP/NTK recursion is a loop over layers carrying the triple $(\Sigma(x,x),\Sigma(x',x'),\Sigma(x,x'))$;
#   $\sigma_w^2$ and $\sigma_b^2$ enter every step. The package's layers implement exactly this, and finite
#   networks agree.
# - Deep ReLU kernels lose angle information **polynomially** because the correlation map is marginal at $c=1$,
#   not because units die. The NNGP becomes constant; the NTK becomes "constant plus white noise" (full rank),
#   which fits the training data but generalizes like a constant.
# - Bounded activations have an ordered phase (rank-one NTK), a chaotic phase (identity-like NTK) and the edge
#   of chaos $\chi_1 = 1$ between them.
#
# **Exercises:** 4.1 (the role of $\dot\Sigma$, the identity activation) and 4.7 (collapse and effective rank of a
# 50-layer MLP).
