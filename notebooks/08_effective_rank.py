# %% [markdown]
# # 08 · Effective rank: what it does and does not tell you
#
# *Overview text §4.*
#
# **You will learn**
# - the effective rank $r_\text{eff}(K) = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$ and its limit law as the number of
#   inputs grows;
# - why values near 1 mean "one constant mode dominates" (and what centering does);
# - why the claimed generalization bound $O(\sqrt{r_\infty/n})$ cannot hold;
# - what the overview's later sections (NTK-ECRN, frequency principle, edge of stability, grokking) rest on.
#
# **Prerequisites:** lessons 01–02, 07.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## Definition
#
# $r_\text{eff}(K) = \dfrac{\operatorname{tr}(K)^2}{\lVert K\rVert_F^2} = \dfrac{(\sum_i\lambda_i)^2}{\sum_i\lambda_i^2}$, the
# "participation ratio" of the eigenvalues: $n$ for a multiple of the identity, 1 for a rank-one matrix.

# %%
n = 40
print(f"identity: {nh.effective_rank(torch.eye(n, dtype=torch.float64)):.1f}, "
      f"all-ones: {nh.effective_rank(torch.ones(n, n, dtype=torch.float64)):.1f}, "
      f"¾I + ¼11ᵀ (the deep ReLU NTK): {nh.effective_rank(0.75 * torch.eye(n, dtype=torch.float64) + 0.25):.2f}")

# %% [markdown]
# ## The $r_\infty$ law (AUDIT E12)
#
# For inputs drawn from a distribution, $\mathbb E\operatorname{tr}K = n m_1$ and
# $\mathbb E\lVert K\rVert_F^2 = n m_2 + n(n-1) m_\text{off}$ with $m_1 = \mathbb E\,k(x,x)$, $m_2 = \mathbb E\,k(x,x)^2$,
# $m_\text{off} = \mathbb E\,k(x,x')^2$. Hence $r_\text{eff}$ tends to a constant,
#
# $$r_\infty = \frac{m_1^2}{m_\text{off}}, \qquad r_\text{eff}(n) \approx \frac{n\, r_\infty}{n - 1 + r_\infty}\ \ (\text{constant diagonal}).$$
#
# > **The text says:** the NTK's "spectral dimension" is a constant (a key discovery), NTKs have $r_\text{eff}\approx 1$–$2$,
# > so regression happens in a low-rank subspace.  
# > **What is true:** the limit exists for **every** kernel with $\mathbb E\,k(x,x')^2 > 0$ (it is the participation ratio
# > of the Mercer spectrum; source: an unreviewed preprint, arXiv:2512.00860, by P. A. Shukla, not "Anil et al."). On
# > the sphere $S^9$ the NTK values are 12–17, not 1–2; values near 1 appear only when a constant component dominates
# > (a data mean, a large bias, the deep NNGP). And the NTK Gram matrix of distinct inputs is full rank: ridgeless
# > regression uses all $n$ directions.
#
# Inputs uniform on $S^9$ ($d = 10$); $r_\infty$ by Gauss–Jacobi quadrature over the angle (`nh.effective_rank_limit`):

# %%
d = 10
sizes = [50, 100, 200, 400, 800]
cases = {
    "ReLU NTK, 1 layer": (nh.mlp(1), "ntk", 0.0),
    "ReLU NTK, 50 layers": (nh.mlp(50), "ntk", 0.0),
    "ReLU NNGP, 50 layers": (nh.mlp(50), "nngp", 0.0),
    "erf NTK": (nh.mlp(1, "erf", sigma_w=1.0), "ntk", 0.0),
    "ReLU NTK, inputs + 3": (nh.mlp(1), "ntk", 3.0),
}
measured = {}
for name, (arch, kind, offset) in cases.items():
    kernels = [getattr(arch.kernel(nh.sphere(n, d, seed=n) + offset), kind) for n in sizes]
    measured[name] = ([nh.effective_rank(K) for K in kernels], [nh.effective_rank(K, centered=True) for K in kernels])
limits = {name: nh.effective_rank_limit(arch, d, kind=kind) for name, (arch, kind, offset) in cases.items() if offset == 0}
for name, (raw, centered) in measured.items():
    print(f"{name:>22}: r_eff {np.round(raw, 2)}   centered {np.round(centered, 1)}")

# %%
fig, ax = plt.subplots()
for index, (name, (raw, _)) in enumerate(measured.items()):
    color = nh.plotting.PALETTE[index]
    ax.semilogx(sizes, raw, "o-", color=color, label=name)
    if name in limits:
        ax.semilogx(sizes, [nh.effective_rank_finite(limits[name], n) for n in sizes], "--", color=color, lw=1)
        ax.axhline(limits[name], color=color, ls=":", lw=1)
ax.set_xlabel("number of inputs n")
ax.set_ylabel("effective rank")
ax.set_title("dashed: n r∞/(n − 1 + r∞), dotted: r∞")
ax.legend(fontsize=9)
plt.show()

# %%
for name in limits:
    predicted = [nh.effective_rank_finite(limits[name], n) for n in sizes]
    assert np.allclose(measured[name][0][1:], predicted[1:], rtol=0.03), name
print({name: round(value, 2) for name, value in limits.items()})
assert 16 < limits["ReLU NTK, 1 layer"] < 17.5 and limits["ReLU NNGP, 50 layers"] < 1.05

# %% [markdown]
# ## Near 1 means "one constant mode"
#
# The offset inputs and the deep NNGP have $r_\text{eff}\approx 1$ for the same reason: one eigenvalue, along the
# constant vector, dwarfs the rest. Centering ($HKH$ with $H = I - \mathbf 1\mathbf 1^\top/n$) removes it, and the
# rank jumps. For the deep NTK (≈ ¾I + ¼11ᵀ) the centered rank is ≈ n: "constant plus white noise".

# %%
x = nh.sphere(200, d, seed=7) + 3.0
K = nh.mlp(1).kernel(x).ntk
lam = nh.eigenvalues(K)
print(f"offset inputs: top eigenvalue {lam[0]:.0f}, next {lam[1]:.1f}; "
      f"r_eff {nh.effective_rank(K):.2f} → centered {nh.effective_rank(K, centered=True):.1f}")
top = torch.linalg.eigh(K).eigenvectors[:, -1]
alignment = float(abs(top @ torch.ones(200, dtype=torch.float64)) / math.sqrt(200))
print(f"|cos| between the top eigenvector and the constant vector: {alignment:.4f}")
assert lam[0] > 20 * lam[1] and alignment > 0.99

# %%
deep_raw, deep_centered = measured["ReLU NTK, 50 layers"]
assert deep_centered[-1] > 0.9 * sizes[-1] and deep_raw[-1] < 13

# %% [markdown]
# ## The bound $O(\sqrt{r_\infty/n})$ fails (AUDIT E13)
#
# > **The text says:** the generalization error is bounded by $O(\sqrt{r_\infty/n})$.  
# > **What is true:** $r_\infty$ depends only on the kernel and the input distribution, **not on the labels**. Train on
# > random labels: the NTK interpolates them, the test error stays at the label variance, while the "bound" goes to 0.
# > A valid bound must depend on the labels, e.g. $\sqrt{2\,y^\top\Theta^{-1}y/n}$ for two-layer ReLU networks (Arora,
# > Du, Hu, Li & Wang 2019).

# %%
arch = nh.mlp(1)
r_inf = nh.effective_rank_limit(arch, d)
shuffle = torch.Generator().manual_seed(0)
errors = {"true labels": [], "random labels": []}
label_variance = []
for n in sizes:
    x = nh.sphere(n + 200, d, seed=n + 1)
    y = torch.cos(2 * x[:, 0])                          # each coordinate is roughly N(0, 1)
    labels = {"true labels": y, "random labels": y[torch.randperm(n + 200, generator=shuffle)]}
    K = arch.kernel(x).ntk
    for name, target in labels.items():
        prediction = nh.kernel_regression(K[:n, :n], K[n:, :n], target[:n])
        errors[name].append(float(((prediction - target[n:]) ** 2).mean()))
    label_variance.append(float(y.var()))
fig, ax = plt.subplots()
for name, e in errors.items():
    ax.loglog(sizes, e, "o-", label=f"test MSE, {name}")
ax.loglog(sizes, [math.sqrt(r_inf / n) for n in sizes], "k--", label="√(r∞/n)")
ax.axhline(np.mean(label_variance), color="k", ls=":", label="label variance")
ax.set_xlabel("training set size n")
ax.legend()
plt.show()

# %%
print("random labels, test MSE:", np.round(errors["random labels"], 3), " √(r∞/n):", np.round([math.sqrt(r_inf / n) for n in sizes], 3))
assert all(e > 0.8 * np.mean(label_variance) for e in errors["random labels"])
assert errors["random labels"][-1] > 2 * math.sqrt(r_inf / sizes[-1])
assert errors["true labels"][-1] < 0.5 * errors["true labels"][0]

# %% [markdown]
# ## "ResNets on CIFAR-10 have $r_\text{eff}\approx 1$"?
#
# The overview quotes $r_\text{eff}\approx 1.0$–$1.3$ for ResNets on CIFAR-10 as a confirmation of theory. We cannot
# download CIFAR-10 here, but scikit-learn ships 8 × 8 digits, and they show the mechanism: raw pixels are
# non-negative, so every image shares a large mean component, and the kernel's constant mode dominates.

# %%
x_digits, *_ = nh.digits(300, 1, seed=0)
flat = x_digits.flatten(1)
for name, net in [("MLP NTK", nh.mlp(1)), ("ResNet NTK (8 blocks, α = 1/√8)", nh.resnet(8, alpha=8 ** -0.5))]:
    K = net.kernel(flat).ntk
    print(f"{name:>32}: r_eff {nh.effective_rank(K):.2f}, centered {nh.effective_rank(K, centered=True):.1f}")
K = nh.resnet(8, alpha=8 ** -0.5).kernel(flat).ntk
assert nh.effective_rank(K) < 3 < 15 < nh.effective_rank(K, centered=True)

# %% [markdown]
# A value near 1 on natural images says "the images have a common mean", not "the network learns in a
# one-dimensional subspace". The overview's numbers come from the preprint, were not reproduced, and were measured
# at widths 16–32, far from the infinite-width limit.
#
# ## What in the overview's later sections is established?
#
# - **NTK-ECRN and "eigenvalues converge to 0 or 1"** (§5): from an unreviewed preprint (arXiv:2512.08264). At infinite
#   width the NTK is constant during training, so its eigenvalues do not move; they scale with $n$, depth and
#   $\sigma_w$ and are not confined to $[0, 1]$. Not established; we do not teach it.
# - **Frequency principle / spectral bias** (§8.1): established in the kernel regime (Rahaman et al. 2019; Xu et al.
#   2019; Basri et al. 2019): mode $k$ is learned at rate $\propto \mu_k$ (lesson 06 shows it).
# - **Edge of stability** (§8.2): the sharpness hovers at $2/\eta$ (Cohen et al. 2021). For squared loss the
#   Gauss–Newton matrix shares its nonzero eigenvalues with $\Theta/n$, but edge-of-stability dynamics need a *changing*
#   NTK (progressive sharpening): outside the kernel regime.
# - **Grokking** (§8.3): "flat NTK directions plus weight decay" is speculation. Established accounts describe a
#   transition from lazy to feature-learning dynamics (Kumar et al. 2024; Lyu et al. 2024), beyond the NTK.
# - "Infinite-feature factorization" and "neural tangent features" (§7.3) could not be found in the literature; use
#   mean-field theory, tensor programs/μP (lesson 05) or $1/n$ expansions instead.
#
# ## Explore
#
# Depth, activation, bias: $r_\text{eff}$ against $n$ (solid) and after centering (dashed), with the $r_\infty$ law.
# (Activations with closed-form kernels only: tanh's quadrature would take seconds per move at $n = 800$.)

# %%
def draw_rank(depth, activation, sigma_b):
    arch = nh.mlp(depth, activation, sigma_w=1.4, sigma_b=sigma_b)
    small = sizes[:-1]                                         # up to n = 400 keeps a move under a second
    kernels = [arch.kernel(nh.sphere(n, d, seed=n)).ntk for n in small]
    raw = [nh.effective_rank(K) for K in kernels]
    centered = [nh.effective_rank(K, centered=True) for K in kernels]
    limit = nh.effective_rank_limit(arch, d)
    fig, ax = plt.subplots()
    ax.loglog(small, raw, "o-", label="r_eff")
    ax.loglog(small, centered, "s--", label="r_eff, centered")
    ax.loglog(small, [nh.effective_rank_finite(limit, n) for n in small], "k:", label="n r∞/(n − 1 + r∞)")
    ax.set_xlabel("n")
    ax.legend()
    print(f"{activation}, depth {depth}, σ_b = {sigma_b:.2f}: r∞ = {limit:.2f}, centered r_eff at n = 400: {centered[-1]:.1f}")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_rank, depth=nh.widgets.depth_slider(1, max=50),
                       activation=nh.widgets.activation_dropdown("relu", options=["relu", "leaky_relu", "erf", "gelu"]),
                       sigma_b=nh.widgets.sigma_slider("sigma_b", 0.0, max=2.0))

# %% [markdown]
# ## Summary
#
# - $r_\text{eff}$ tends to $r_\infty = m_1^2/m_\text{off}$ for **every** kernel; the finite-$n$ curve follows
#   $n r_\infty/(n-1+r_\infty)$.
# - Values near 1 signal a dominant constant mode (data mean, bias, deep NNGP); centering removes it. The deep
#   ReLU NTK is "constant plus white noise": centered, its rank is ≈ n.
# - $r_\infty$ ignores the labels, so it cannot bound generalization: random labels refute $O(\sqrt{r_\infty/n})$.
#
# **Exercise:** 4.7 (kernel collapse and effective rank of a 50-layer MLP).
