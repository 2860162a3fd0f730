# %% [markdown]
# # 08 · Effective rank: what it does and does not tell you
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/08_effective_rank.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F08_effective_rank.ipynb)
#
# *Overview text §4.*
#
# **You will learn**
# - the effective rank $r_\text{eff}(K) = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$ and its limit law as the
#   number of inputs grows;
# - that the limit $r_\infty$ does not depend on $n$, and grows without bound when the off-diagonal entries vanish;
# - why values near 1 mean "one constant mode dominates" (and what centering does);
# - why the claimed generalization bound $O(\sqrt{r_\infty/n})$ cannot hold, whatever its constant;
# - what the overview's later sections (NTK-ECRN, frequency principle, edge of stability, grokking) rest on.
#
# **Prerequisites:** lessons 01–02, 07.

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %%
import math

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## Definition
#
# $r_\text{eff}(K) = \dfrac{\operatorname{tr}(K)^2}{\lVert K\rVert_F^2}
# = \dfrac{(\sum_i\lambda_i)^2}{\sum_i\lambda_i^2}$, the "participation ratio" of the eigenvalues: $n$ for a
# multiple of the identity, 1 for a rank-one matrix, and always between 1 and $n$.

# %%
n = 40
print(nh._("identity: {identity:.1f}, all-ones: {ones:.1f}, "
           "¾I + ¼11ᵀ (the deep ReLU NTK): {deep:.2f}").format(
    identity=nh.effective_rank(torch.eye(n, dtype=torch.float64)),
    ones=nh.effective_rank(torch.ones(n, n, dtype=torch.float64)),
    deep=nh.effective_rank(0.75 * torch.eye(n, dtype=torch.float64) + 0.25)))

# %% [markdown]
# ## The $r_\infty$ law (overview §4.2)
#
# For inputs drawn from a distribution, $\mathbb E\operatorname{tr}K = n m_1$ and
# $\mathbb E\lVert K\rVert_F^2 = n m_2 + n(n-1) m_\text{off}$ with $m_1 = \mathbb E\,k(x,x)$,
# $m_2 = \mathbb E\,k(x,x)^2$, $m_\text{off} = \mathbb E\,k(x,x')^2$. Hence $r_\text{eff}$ tends to a constant,
#
# $$r_\infty = \frac{m_1^2}{m_\text{off}}, \qquad
# r_\text{eff}(n) \approx \frac{n\, r_\infty}{n - 1 + r_\infty}\ \ (\text{constant diagonal}).$$
#
# > **The text says:** the NTK's "spectral dimension" is a constant (a key discovery), NTKs have
# > $r_\text{eff}\approx 1$–$2$, so regression happens in a low-rank subspace.  
# > **What is true:** the limit exists for **every** kernel with $\mathbb E\,k(x,x')^2 > 0$ (it is the
# > participation ratio of the Mercer spectrum; source: an unreviewed preprint, arXiv:2512.00860, by P. A. Shukla,
# > not "Anil et al."). On the sphere $S^9$ the NTK values are 12–17, not 1–2; values near 1 appear only when a
# > constant component dominates (a data mean, a large bias, the deep NNGP). And the NTK Gram matrix of distinct
# > inputs is full rank: ridgeless regression uses all $n$ directions
# > ([errata B14](../ERRATA.md#b14), [B15](../ERRATA.md#b15), [B18](../ERRATA.md#b18), [B43](../ERRATA.md#b43)).
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
case_names = {"ReLU NTK, 1 layer": nh._("ReLU NTK, 1 layer"),
              "ReLU NTK, 50 layers": nh._("ReLU NTK, 50 layers"),
              "ReLU NNGP, 50 layers": nh._("ReLU NNGP, 50 layers"),
              "erf NTK": "erf NTK",                                # as printed
              "ReLU NTK, inputs + 3": nh._("ReLU NTK, inputs + 3")}
measured = {}
for name, (arch, kind, offset) in cases.items():
    kernels = [getattr(arch.kernel(nh.sphere(n, d, seed=n) + offset), kind) for n in sizes]
    measured[name] = ([nh.effective_rank(K) for K in kernels],
                      [nh.effective_rank(K, centered=True) for K in kernels])
limits = {name: nh.effective_rank_limit(arch, d, kind=kind)
          for name, (arch, kind, offset) in cases.items() if offset == 0}
for name, (raw, centered) in measured.items():
    print(nh._("{name:>22}: r_eff {raw}   centered {centered}").format(
        name=case_names[name], raw=np.round(raw, 2), centered=np.round(centered, 1)))

# %%
fig, ax = plt.subplots()
for index, (name, (raw, _)) in enumerate(measured.items()):
    color = nh.plotting.PALETTE[index]
    ax.semilogx(sizes, raw, "o-", color=color, label=name)
    if name in limits:
        ax.semilogx(sizes, [nh.effective_rank_finite(limits[name], n) for n in sizes], "--", color=color,
                    lw=1)
        ax.axhline(limits[name], color=color, ls=":", lw=1)
nh.plotting.width_ticks(ax, sizes)
ax.set_xlabel("number of inputs n")
ax.set_ylabel("effective rank")
ax.set_title("dashed: n r∞/(n − 1 + r∞), dotted: r∞")
ax.legend(fontsize=9)
plt.show()

# %%
print("r_inf:", {case_names[name]: round(value, 2) for name, value in limits.items()})
for name in limits:
    predicted = np.array([nh.effective_rank_finite(limits[name], n) for n in sizes])
    relative = np.abs(np.array(measured[name][0]) / predicted - 1)[1:]
    assert (relative <= 0.03).all(), (
        f"{name}: r_eff should follow n r∞/(n − 1 + r∞) within 3% for n ≥ 100: "
        f"predicted {np.round(predicted, 2)}, "
        f"measured {np.round(measured[name][0], 2)}")
ntk_limits = [limits[name] for name in ("ReLU NTK, 1 layer", "ReLU NTK, 50 layers", "erf NTK")]
assert all(11 < r < 18 for r in ntk_limits), (
    f"NTK values of r∞ on S^9: expected 12–17, measured {np.round(ntk_limits, 2)}")
assert limits["ReLU NNGP, 50 layers"] < 1.05, (
    f"deep NNGP: expected r∞ < 1.05 (one constant mode), measured {limits['ReLU NNGP, 50 layers']:.3f}")

# %% [markdown]
# ### When the off-diagonal entries vanish
#
# > **The text says:** when $k(x,x') \ll k(x,x)$ the constant $r_\infty$ is close to $n$ (inputs "perfectly
# > separable"); when $k(x,x') \approx k(x,x)$ it is close to 1; and it reads this off the mean off-diagonal value
# > $\mathbb E\,k(x,x')$.  
# > **What is true:** $r_\infty$ is a limit as $n\to\infty$, so it cannot depend on $n$. As the off-diagonal
# > entries shrink, $r_\infty = m_1^2/m_\text{off}$ grows **without bound**; what approaches $n$ is the finite-$n$
# > value $r_\text{eff}(n) \le n$. And the law involves the mean **square** $\mathbb E\,k(x,x')^2$, not the mean
# > $\mathbb E\,k(x,x')$: off-diagonals that are large but average to zero still give a modest $r_\infty$
# > ([errata B16](../ERRATA.md#b16)).
#
# A family whose off-diagonals vanish: the NTK of bias-free erf networks with $\sigma_w = 2$, in the chaotic phase
# (lesson 02), where the correlation of two different inputs decays to 0 with depth. The kernel is odd,
# $k(x, -x') = -k(x, x')$, so its mean off-diagonal value is exactly 0 at **every** depth; only the mean square
# changes.

# %%
depths_chaos, sizes_chaos = [1, 2, 4, 8, 16], [50, 200, 800]
t_nodes, t_weights = nh.angle_distribution(d)        # t = cosine between two independent inputs
chaos = {}
for depth in depths_chaos:
    arch = nh.mlp(depth, "erf", sigma_w=2.0)
    kappa = nh.dot_product_profile(arch, t_nodes, d)
    kappa_one = float(nh.dot_product_profile(arch, torch.ones(1), d))
    chaos[depth] = {"r_inf": nh.effective_rank_limit(arch, d),
                    "mean": float(t_weights @ kappa) / kappa_one,                 # E k(x,x') / k(x,x)
                    "rms": math.sqrt(float(t_weights @ kappa ** 2)) / kappa_one,  # sqrt(E k(x,x')^2) / k(x,x)
                    "r_eff": [nh.effective_rank(arch.kernel(nh.sphere(n, d, seed=n)).ntk)
                              for n in sizes_chaos]}
depth_header, rank_header = nh._("depth"), nh._("r_eff at n = 50, 200, 800")
print(f"{depth_header:>5} {'E k(x,x′)/k(x,x)':>17} {'rms k(x,x′)/k(x,x)':>19} {'r∞':>10}   {rank_header}")
for depth, row in chaos.items():
    print(f"{depth:>5} {abs(row['mean']) + 0.0:>17.3f} {row['rms']:>19.4f} {row['r_inf']:>10.3g}   "
          f"{np.round(row['r_eff'], 1)}")

# %%
fig, ax = plt.subplots()
ax.semilogy(depths_chaos, [chaos[L]["r_inf"] for L in depths_chaos], "k-o", label="r∞ (limit n → ∞)")
for index, n in enumerate(sizes_chaos):
    color = nh.plotting.PALETTE[index]
    ax.semilogy(depths_chaos, [chaos[L]["r_eff"][index] for L in depths_chaos], "s--", color=color,
                label=f"r_eff, n = {n}")
    ax.axhline(n, color=color, ls=":", lw=1)
ax.set_xscale("log", base=2)
ax.set_xticks(depths_chaos, [str(depth) for depth in depths_chaos])
ax.set_xlabel("depth (bias-free erf, σ_w = 2)")
ax.set_ylabel("effective rank")
ax.set_title("dotted: the ceiling r_eff ≤ n")
ax.legend(fontsize=9)
plt.show()

# %%
r_infs = [chaos[L]["r_inf"] for L in depths_chaos]
assert all(a < b for a, b in zip(r_infs, r_infs[1:])) and r_infs[-1] > 1000 * sizes_chaos[-1], (
    f"r∞ should grow with depth and exceed 1000 × {sizes_chaos[-1]} at depth 16, measured {r_infs}")
for depth, row in chaos.items():
    assert abs(row["mean"]) <= 1e-12, (
        f"odd kernel: E k(x,x′) should be 0 (≤ 1e-12 k(x,x)), measured {row['mean']:.2e} k(x,x)")
    for n, value in zip(sizes_chaos, row["r_eff"]):
        predicted = nh.effective_rank_finite(row["r_inf"], n)
        assert value <= n * (1 + 1e-12) and abs(value / predicted - 1) <= 0.03, (
            f"depth {depth}, n = {n}: expected r_eff ≤ n and within 3% of {predicted:.1f}, "
            f"measured {value:.1f}")
deepest = chaos[depths_chaos[-1]]["r_eff"]
assert all(value >= 0.999 * n for n, value in zip(sizes_chaos, deepest)), (
    f"depth 16: r_eff(n) should reach n (≥ 99.9%), measured {np.round(deepest, 2)} for n = {sizes_chaos}")
assert chaos[1]["r_inf"] < 30, (
    f"depth 1: mean off-diagonal 0 but r∞ modest (< 30), measured {chaos[1]['r_inf']:.1f}")

# %% [markdown]
# At depth 1 the mean off-diagonal value is 0, yet $r_\infty$ is only about 25: the off-diagonals are not small,
# they cancel on average (their root mean square is $1/\sqrt{r_\infty}$ of the diagonal). As the depth grows the
# root mean square falls, $r_\infty$ runs off to $4\cdot 10^7$, and each finite $r_\text{eff}(n)$ climbs to its
# ceiling $n$ and stays there.

# %% [markdown]
# ## Near 1 means "one constant mode"
#
# The offset inputs and the deep NNGP have $r_\text{eff}\approx 1$ for the same reason: one eigenvalue, along the
# constant vector, dwarfs the rest. Centering ($HKH$ with $H = I - \mathbf 1\mathbf 1^\top/n$) removes it, and the
# rank jumps. For the deep NTK (≈ ¾I + ¼11ᵀ) the centered rank is ≈ n: "constant plus white noise". So
# $r_\text{eff}$ is not an "equivalent number of parameters": adding a constant to a kernel drives it towards 1
# while the functions it can fit change only by a constant ([errata B13](../ERRATA.md#b13)).

# %%
x = nh.sphere(200, d, seed=7) + 3.0
K = nh.mlp(1).kernel(x).ntk
lam = nh.eigenvalues(K)
print(nh._("offset inputs: top eigenvalue {top:.0f}, next {next:.1f}; "
           "r_eff {raw:.2f} → centered {centered:.1f}").format(
    top=lam[0], next=lam[1], raw=nh.effective_rank(K), centered=nh.effective_rank(K, centered=True)))
top = torch.linalg.eigh(K).eigenvectors[:, -1]
alignment = float(abs(top @ torch.ones(200, dtype=torch.float64)) / math.sqrt(200))
print(nh._("|cos| between the top eigenvector and the constant vector: {alignment:.4f}").format(
    alignment=alignment))
assert lam[0] > 20 * lam[1], (
    f"top eigenvalue should dwarf the next (> 20×): measured {lam[0]:.0f} vs {lam[1]:.1f}")
assert alignment > 0.99, (
    f"top eigenvector should be the constant vector (|cos| > 0.99), measured {alignment:.4f}")

# %%
deep_raw, deep_centered = measured["ReLU NTK, 50 layers"]
assert deep_centered[-1] > 0.9 * sizes[-1], (
    f"deep NTK centered: expected r_eff ≈ n (> {0.9 * sizes[-1]:.0f}), measured {deep_centered[-1]:.1f}")
assert deep_raw[-1] < 13, (
    f"deep NTK raw: expected r_eff < 13 (the constant mode), measured {deep_raw[-1]:.2f}")

# %% [markdown]
# ## The bound $O(\sqrt{r_\infty/n})$ fails (overview §4.4)
#
# > **The text says:** the generalization error is bounded by $O(\sqrt{r_\infty/n})$, which explains why
# > overparameterized networks generalize.  
# > **What is true:** no bound of this form can hold, whatever constant the $O(\cdot)$ hides. $r_\infty$ depends only
# > on the kernel and the input distribution, **not on the labels**. Give the inputs labels $y$ that are independent
# > of them. Then no predictor $f$, however it is trained, beats the label variance on average:
# > $\mathbb E(f(x) - y)^2 = \mathbb E(f(x) - \mathbb E y)^2 + \operatorname{Var}(y) \ge \operatorname{Var}(y)$
# > (the cross term vanishes because $y$ is independent of $x$ and of the training data; $\operatorname{Var}(y)$ is
# > the Bayes risk). For any constant $C$, $C\sqrt{r_\infty/n}$ falls below $\operatorname{Var}(y)$ once
# > $n > C^2 r_\infty/\operatorname{Var}(y)^2$, while the error never does. A valid bound must depend on the
# > labels, e.g. $\sqrt{2\,y^\top\Theta^{-1}y/n}$ for two-layer ReLU networks (Arora, Du, Hu, Li & Wang 2019),
# > which stays large for labels the kernel cannot explain ([errata B19](../ERRATA.md#b19)).
#
# The experiment: ridgeless NTK regression (one hidden ReLU layer, $r_\infty = 16.7$) on inputs uniform on $S^9$,
# with the true labels $y = \cos(2x_1)$ and with **random** labels: the same function of a second, independent draw
# of inputs, so they have exactly the same distribution as the true labels but carry no information about $x$.
# $\operatorname{Var}(y)$ is computed exactly by quadrature ($x_1/\sqrt{d}$ has the density of `nh.angle_distribution`).
# Test error on 1000 fresh inputs, with its standard error. Ridgeless regression interpolates the training data
# (checked below), so its test error is also its generalization gap.

# %%
arch = nh.mlp(1)
r_inf = nh.effective_rank_limit(arch, d)
t_nodes, t_weights = nh.angle_distribution(d)
label = lambda x: torch.cos(2 * x[:, 0])
label_values = torch.cos(2 * math.sqrt(d) * t_nodes)      # x_1 = sqrt(d) t for x uniform on the sphere
label_mean = float(t_weights @ label_values)
label_variance = float(t_weights @ label_values ** 2) - label_mean ** 2
sizes_bound, n_test = [50, 100, 200, 400, 800, 1600], 1000
rows = {"true labels": [], "random labels": []}
for n in sizes_bound:
    x = nh.sphere(n + n_test, d, seed=n + 1)
    other = nh.sphere(n + n_test, d, seed=10_000 + n)    # independent inputs: their labels are noise for x
    K = arch.kernel(x).ntk
    for name, y in [("true labels", label(x)), ("random labels", label(other))]:
        fit = nh.kernel_regression(K[:n, :n], K[:, :n], y[:n])   # predictions on training and test inputs
        train_residual = float((fit[:n] - y[:n]).abs().max() / y[:n].abs().max())
        squared = (fit[n:] - y[n:]) ** 2
        spread = (fit[n:] - label_mean) ** 2                       # the predictor's own spread around E y
        rows[name].append({"mse": float(squared.mean()), "se": float(squared.std() / math.sqrt(n_test)),
                           "spread": float(spread.mean()), "train": train_residual,
                           "check": squared - spread - label_variance})  # mean 0 for independent labels
print(f"Var(y) = {label_variance:.3f} (E y = {label_mean:.3f}), r∞ = {r_inf:.2f}")
random_header, spread_header = nh._("random: test MSE"), nh._("Var(y) + spread")
needed_header, true_header = nh._("C needed"), nh._("true: test MSE")
print(f"{'n':>5} {'√(r∞/n)':>8} {random_header:>17} {spread_header:>16} {needed_header:>9} {true_header:>15}")
for n, random_row, true_row in zip(sizes_bound, rows["random labels"], rows["true labels"]):
    bound = math.sqrt(r_inf / n)
    print(f"{n:>5} {bound:>8.3f} {random_row['mse']:>10.3f} ± {random_row['se']:.3f} "
          f"{label_variance + random_row['spread']:>16.3f} {random_row['mse'] / bound:>9.2f} "
          f"{true_row['mse']:>15.3f}")

# %%
fig, ax = plt.subplots()
for name, marker in [("true labels", "o-"), ("random labels", "s-")]:
    ax.errorbar(sizes_bound, [r["mse"] for r in rows[name]], yerr=[r["se"] for r in rows[name]], fmt=marker,
                capsize=3, label=f"test MSE, {name}")
ax.plot(sizes_bound, [math.sqrt(r_inf / n) for n in sizes_bound], "k--",
        label="√(r∞/n), the bound with C = 1")
ax.axhline(label_variance, color="k", ls=":", label="Var(y): the least possible error for random labels")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("training set size n")
ax.set_ylabel("test mean squared error")
ax.legend(fontsize=9)
plt.show()

# %% [markdown]
# For the true labels the error happens to fall at about the rate of $\sqrt{r_\infty/n}$ here; for the random
# labels, with the same $r_\infty$, it stays above $\operatorname{Var}(y)$ at every $n$. The column "C needed" is
# the constant a bound $C\sqrt{r_\infty/n}$ would need to cover the measured error: at least
# $\operatorname{Var}(y)\sqrt{n/r_\infty}$, which grows like $\sqrt n$. For $C = 10$ the bound is already false for
# $n > 100\,r_\infty/\operatorname{Var}(y)^2 \approx 6800$ (printed below).
#
# Ridgeless interpolation of random labels is even **worse** than $\operatorname{Var}(y)$, the error of the constant
# predictor $\mathbb E y$: by the identity in the box, its test error is $\operatorname{Var}(y)$ plus the spread
# $\mathbb E(\hat f(x) - \mathbb E y)^2$ of the interpolant itself. The noise it fitted exactly at the training
# points comes back as wiggles between them (noise amplification of minimum-norm interpolation; Bartlett, Long,
# Lugosi & Tsigler 2020 give conditions under which this extra term vanishes in high dimension). The column
# "Var(y) + spread" matches the measured error within the sampling error of the 1000 test points (checked
# below).

# %%
print(nh._("C = 10 fails beyond n = {n:.0f}").format(n=100 * r_inf / label_variance ** 2))
for n, row in zip(sizes_bound, rows["random labels"]):
    assert row["mse"] >= label_variance, (
        f"n = {n}: random-label test MSE should be ≥ Var(y) = {label_variance:.3f}, "
        f"measured {row['mse']:.3f}")
    check, check_se = float(row["check"].mean()), float(row["check"].std() / math.sqrt(n_test))
    assert abs(check) <= 3 * check_se, (
        f"n = {n}: test MSE − spread − Var(y) should be 0 within 3 standard errors (±{3 * check_se:.3f}), "
        f"measured {check:.3f}")
    assert row["spread"] > 0.1 * label_variance, (
        f"n = {n}: the interpolant's spread should add to the error (> 0.1 Var(y)), "
        f"measured {row['spread']:.3f}")
bounds = [math.sqrt(r_inf / n) for n in sizes_bound]
assert bounds[-1] < 0.25 * label_variance, (
    f"√(r∞/n) at n = {sizes_bound[-1]} should be far below Var(y) (< {0.25 * label_variance:.3f}), "
    f"measured {bounds[-1]:.3f}")
worst_fit = max(row["train"] for name in rows for row in rows[name])
assert worst_fit < 1e-4, (
    f"ridgeless regression should interpolate (residual < 1e-4 of max |y|), measured {worst_fit:.1e}")
true_errors = [row["mse"] for row in rows["true labels"]]
assert true_errors[-1] < 0.25 * true_errors[0], (
    f"true labels: test MSE should fall with n (4× from n = 50 to 1600), measured {np.round(true_errors, 3)}")

# %% [markdown]
# ## "ResNets on CIFAR-10 have $r_\text{eff}\approx 1$"?
#
# The overview quotes $r_\text{eff}\approx 1.0$–$1.3$ for ResNets on CIFAR-10 as a confirmation of theory. We cannot
# download CIFAR-10 here, but scikit-learn ships 8 × 8 digits, and they show the mechanism: raw pixels are
# non-negative, so every image shares a large mean component, and the kernel's constant mode dominates.

# %%
x_digits, *_ = nh.digits(300, 1, seed=0)
flat = x_digits.flatten(1)
for name, net in [("MLP NTK", nh.mlp(1)),
                  (nh._("ResNet NTK (8 blocks, α = 1/√8)"), nh.resnet(8, alpha=8 ** -0.5))]:
    K = net.kernel(flat).ntk
    print(nh._("{name:>32}: r_eff {raw:.2f}, centered {centered:.1f}").format(
        name=name, raw=nh.effective_rank(K), centered=nh.effective_rank(K, centered=True)))
K = nh.resnet(8, alpha=8 ** -0.5).kernel(flat).ntk
raw_digits, centered_digits = nh.effective_rank(K), nh.effective_rank(K, centered=True)
assert raw_digits < 3 and centered_digits > 15, (
    f"ResNet NTK on digits: expected r_eff < 3 raw and > 15 centered, measured {raw_digits:.2f} and "
    f"{centered_digits:.1f}")

# %% [markdown]
# A value near 1 on natural images says "the images have a common mean", not "the network learns in a
# one-dimensional subspace". The overview's numbers come from the preprint, were not reproduced, and were measured
# at widths 16–32, far from the infinite-width limit ([errata B29](../ERRATA.md#b29)).
#
# ## What in the overview's later sections is established?
#
# - **NTK-ECRN and "eigenvalues converge to 0 or 1"** (§5): from an unreviewed preprint (arXiv:2512.08264). At
#   infinite width the NTK is constant during training, so its eigenvalues do not move; they scale with $n$, depth
#   and $\sigma_w$ and are not confined to $[0, 1]$. Not established; we do not teach it
#   ([errata B20](../ERRATA.md#b20), [B22](../ERRATA.md#b22)).
# - **"Lazy training has limited expressivity"** (§7.1): the NTK's function space is dense; the real limitation
#   is sample efficiency (lesson 07, section 5; [errata B31](../ERRATA.md#b31)).
# - **Frequency principle / spectral bias** (§8.1): established in the kernel regime (Rahaman et al. 2019; Xu et
#   al. 2019; Basri et al. 2019): mode $k$ is learned at rate $\propto \mu_k$ (lesson 06 shows it).
# - **Edge of stability** (§8.2): the sharpness hovers at $2/\eta$ (Cohen et al. 2021). For squared loss the
#   Gauss–Newton matrix shares its nonzero eigenvalues with $\Theta/n$, and lesson 07's explorer shows the
#   threshold $\eta\lambda_\max/n = 2$ for the linearized model; but edge-of-stability dynamics need a *changing*
#   NTK (progressive sharpening): outside the kernel regime ([errata B37](../ERRATA.md#b37)).
# - **Grokking** (§8.3): "flat NTK directions plus weight decay" is speculation. Established accounts describe a
#   transition from lazy to feature-learning dynamics (Kumar et al. 2024; Lyu et al. 2024), beyond the NTK
#   ([errata B38](../ERRATA.md#b38)).
# - "Infinite-feature factorization" and "neural tangent features" (§7.3) could not be found in the literature;
#   use mean-field theory, tensor programs/μP (lesson 05) or $1/n$ expansions instead
#   ([errata B35](../ERRATA.md#b35)).
#
# ## Explore
#
# Depth, activation, bias: $r_\text{eff}$ against $n$ (solid) and after centering (dashed), with the $r_\infty$ law.
# (Activations with closed-form kernels only: tanh's quadrature would take seconds per move at $n = 400$.)

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
    ax.loglog(small, small, color="0.6", lw=1, label="ceiling r_eff = n")
    nh.plotting.width_ticks(ax, small)
    ax.yaxis.set_major_locator(mpl.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))      # 1, 2, 5, 10, 20, …
    ax.yaxis.set_major_formatter(mpl.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    ax.yaxis.set_minor_locator(mpl.ticker.NullLocator())
    ax.set_xlabel("number of inputs n")
    ax.set_ylabel("effective rank")
    ax.set_title(f"{activation}, depth {depth}, σ_b = {sigma_b:.2f}")
    ax.legend(fontsize=9)
    print(nh._("{activation}, depth {depth}, σ_b = {sigma_b:.2f}: r∞ = {limit:.4g}, "
               "r_eff at n = 400: {raw:.2f}, centered: {centered:.1f}").format(
        activation=activation, depth=depth, sigma_b=sigma_b, limit=limit, raw=raw[-1], centered=centered[-1]))
    if raw[-1] > 0.99 * small[-1]:
        print(nh._("r_eff sits at its ceiling n: the off-diagonal entries have all but vanished (the chaotic "
                   "phase of lesson 02), so r∞ is huge and every finite r_eff(n) is close to n."))
    elif raw[-1] < 2:
        print(nh._("r_eff near 1: one constant mode dominates the kernel (from the bias, or from the "
                   "collapse of a deep kernel); centering removes it, and the centered curve shows "
                   "the rest."))


# %% tags=["nbval-ignore-output"]
activations = ["relu", "leaky_relu", "erf", "gelu"]
nh.widgets.live_figure(draw_rank, depth=nh.widgets.depth_slider(1, max=50),
                       activation=nh.widgets.activation_dropdown("relu", options=activations),
                       sigma_b=nh.widgets.sigma_slider("sigma_b", 0.0, max=2.0))

# %% [markdown]
# ## Summary
#
# - $r_\text{eff}$ tends to $r_\infty = m_1^2/m_\text{off}$ for **every** kernel; the finite-$n$ curve follows
#   $n r_\infty/(n-1+r_\infty)$.
# - $r_\infty$ does not depend on $n$; it depends on the mean **square** of the off-diagonal entries and grows
#   without bound when they vanish, while $r_\text{eff}(n)$ can never exceed $n$.
# - Values near 1 signal a dominant constant mode (data mean, bias, deep NNGP); centering removes it. The deep
#   ReLU NTK is "constant plus white noise": centered, its rank is ≈ n.
# - $r_\infty$ ignores the labels, so it cannot bound generalization: with random labels the error stays at or
#   above $\operatorname{Var}(y)$ for every $n$ while $\sqrt{r_\infty/n}\to 0$; ridgeless interpolation adds its
#   own spread on top.
#
# **Exercise:** 4.7 (kernel collapse and effective rank of a 50-layer MLP).
#
# **Next:** [00 · Start here](00_start_here.ipynb)
