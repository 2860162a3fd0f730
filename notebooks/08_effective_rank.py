# %% [markdown]
# # 08 · Effective rank: what it does and does not tell you
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/08_effective_rank.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F08_effective_rank.ipynb)
#
# *Overview §4, and the chapter's summary table.*
#
# **You will learn**
# - what the effective rank $r_\text{eff}(K) = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$ of a kernel matrix
#   counts, and why it tends to a constant $r_\infty$ as the number of inputs grows, for **every** kernel;
# - what $r_\infty$ depends on (the mean *square* of the off-diagonal entries), and why values near 1 mean "one
#   constant mode dominates";
# - when the NTK Gram matrix of distinct inputs is singular, and when its function space is dense;
# - why no bound of the form $O(\sqrt{r_\infty/n})$ can bound the generalization error;
# - the whole chapter in one table: architecture → mechanism → NTK property.
#
# **Prerequisites:** lessons 01–02 (the NTK and its recursion), 07 (kernel regression with the NTK); some linear
# algebra (eigenvalues, trace, Frobenius norm).

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
import ntk_helpers as nh
from ntk_helpers.course import effective_rank as course     # this lesson's experiments and explorer

nh.plotting.use_style()
PALETTE = nh.plotting.PALETTE

# %% [markdown]
# ## The idea in one picture
#
# The effective rank counts how many eigenvalues of a kernel matrix share its trace: $n$ when all are equal, 1
# when one eigenvalue holds everything. It is a property of the kernel and of the inputs, blind to the labels, and
# one large constant component of the kernel is enough to push it down to about 1.

# %%
course.idea_figure()
plt.show()

# %% [markdown]
# Both panels show the same kernel (the NTK of one hidden ReLU layer) on the same 200 random directions. On the
# right every input was shifted by 3 in each coordinate: all inputs now have a large common part, the kernel a
# large constant part, and one eigenvalue takes almost the whole trace. Nothing about what the kernel can fit has
# become one-dimensional; this lesson makes that precise.
#
# ## The effective rank (overview §4.1)
#
# For a symmetric positive semi-definite $K$ with eigenvalues $\lambda_i \ge 0$,
#
# $$r_\text{eff}(K) = \frac{\operatorname{tr}(K)^2}{\lVert K\rVert_F^2} = \frac{(\sum_i\lambda_i)^2}{\sum_i\lambda_i^2},$$
#
# the *participation ratio* of the spectrum: $n$ for a multiple of the identity, 1 for a rank-one matrix, and always
# between 1 and $n$. It is not the rank: a matrix of full rank $n$ can have $r_\text{eff}$ close to 1.

# %%
n = 40
eye, ones = torch.eye(n, dtype=torch.float64), torch.ones(n, n, dtype=torch.float64)
print(nh._("identity: {identity:.1f}, all-ones: {ones:.1f}, ¾I + ¼11ᵀ (full rank): {mixed:.2f}").format(
    identity=nh.effective_rank(eye), ones=nh.effective_rank(ones),
    mixed=nh.effective_rank(0.75 * eye + 0.25 * ones)))

# %% tags=["check"]
nh.check_close("r_eff of the 40 × 40 identity (40)", nh.effective_rank(eye), 40.0, rtol=1e-12)
nh.check_close("r_eff of the all-ones matrix (1)", nh.effective_rank(ones), 1.0, rtol=1e-12)
# ¾I + ¼11ᵀ: eigenvalues 10.75 (once) and 0.75 (39 times): 40² / (10.75² + 39 · 0.75²)
nh.check_close("r_eff of ¾I + ¼11ᵀ, n = 40 (11.64)", nh.effective_rank(0.75 * eye + 0.25 * ones),
               1600 / (10.75 ** 2 + 39 * 0.75 ** 2), rtol=1e-12)

# %% [markdown]
# ## The $r_\infty$ law (overview §4.2)
# <a id="r-infinity-law"></a>
#
# Draw $n$ inputs independently from a distribution and let $K_{ij} = k(x_i, x_j)$. Write $m_1 = \mathbb E\,k(x,x)$,
# $m_2 = \mathbb E\,k(x,x)^2$ and $m_\text{off} = \mathbb E\,k(x,x')^2$ for independent $x, x'$. Then
# $\mathbb E\operatorname{tr}K = n m_1$ and $\mathbb E\lVert K\rVert_F^2 = n m_2 + n(n-1)\,m_\text{off}$. By the law of
# large numbers $\operatorname{tr}K/n \to m_1$ and $\lVert K\rVert_F^2/n^2 \to m_\text{off}$, so whenever
# $m_\text{off} > 0$
#
# $$r_\text{eff} \;\to\; r_\infty = \frac{m_1^2}{m_\text{off}}, \qquad
# r_\text{eff}(n) \approx \frac{n\, r_\infty}{n - 1 + r_\infty}\ \ (\text{constant diagonal, } m_2 = m_1^2).$$
#
# This holds for **every** kernel with finite second moments, not for the NTK in particular. $r_\infty$ is also the
# participation ratio of the kernel *operator*: $m_1 = \sum_i\mu_i$ and $m_\text{off} = \sum_i\mu_i^2$ for its
# Mercer eigenvalues $\mu_i$ (counted with multiplicity).
#
# We take inputs uniform on the sphere $S^9$ ($d = 10$, radius $\sqrt{10}$), bias-free networks, and compute
# $r_\infty$ by quadrature over the angle between two inputs (`nh.effective_rank_limit`). The offset inputs
# (every coordinate $+3$) are not on a sphere; for them we only measure.

# %%
sweeps = {name: course.rank_sweep(name) for name in course.CASES}
sizes = list(course.SIZES)
fig, ax = plt.subplots(figsize=(9.0, 4.2))
for color, (name, sweep) in zip(PALETTE, sweeps.items()):
    ax.semilogx(sizes, sweep.raw, "o", color=color, label=course.case_label(name))
    if sweep.limit is not None:
        ax.semilogx(sizes, sweep.predicted(), "-", color=color, lw=1)
ax.plot([], [], "k-", lw=1, label=nh._("the law n r∞/(n − 1 + r∞)"))
nh.plotting.width_ticks(ax, sizes)
ax.set_xlabel(nh._("number of inputs n"))
ax.set_ylabel(nh._("effective rank"))
ax.set_title(nh._("r_eff levels off at a constant r∞; it is near 1 for the deep NNGP and the offset inputs"))
ax.legend(fontsize=9, loc="center left", bbox_to_anchor=(1.0, 0.5))
plt.show()
for name, sweep in sweeps.items():
    if sweep.limit is not None:
        print(nh._("{name}: r∞ = {limit:.2f}, r_eff at n = 800: {raw:.2f}").format(
            name=course.case_label(name), limit=sweep.limit, raw=sweep.raw[-1]))

# %% tags=["check"]
# a ratio of expectations: the finite-n curves follow it to a few percent
on_sphere = np.concatenate([s.raw / s.predicted() for s in sweeps.values() if s.limit is not None])
nh.check_close("4 kernels on S⁹: r_eff(n) / (n r∞/(n − 1 + r∞)), n = 50 … 800", on_sphere,
               np.ones_like(on_sphere), rtol=0.03)
nh.check_close("r∞ of the one-layer ReLU NTK on S⁹ (16.7)", sweeps["ReLU NTK, 1 layer"].limit, 16.7,
               atol=0.01)
nh.check_close("r∞ of the 50-layer ReLU NTK on S⁹ (12.0)", sweeps["ReLU NTK, 50 layers"].limit, 12.05,
               atol=0.01)
nh.check_close("r∞ of the erf NTK on S⁹ (13.7)", sweeps["erf NTK"].limit, 13.66, atol=0.01)
nh.check_close("r∞ of the 50-layer ReLU NNGP on S⁹ (1.02)", sweeps["ReLU NNGP, 50 layers"].limit, 1.02,
               atol=0.005)
nh.check_close("offset inputs: r_eff at n = 50 … 800 (1.36–1.38)", sweeps["ReLU NTK, inputs + 3"].raw,
               np.full(len(sizes), 1.37), atol=0.015)
relu_by_depth = [nh.effective_rank_limit(nh.mlp(L), 10) for L in (1, 8, 50, 400)]
nh.check_close("bias-free ReLU NTK: r∞ at depths 1, 8, 50 (16.7, 9.5, 12.0)", np.divide(relu_by_depth[:3],
               [16.7, 9.48, 12.05]), [1.0] * 3, rtol=0.003)
nh.check_close("bias-free ReLU NTK, depth 400: r∞ (15.1, on its way to 16)", relu_by_depth[3], 15.09,
               atol=0.005)
nh.check_close("depth 50: root mean square off-diagonal / diagonal (0.29)", relu_by_depth[2] ** -0.5, 0.29,
               atol=0.005)

# %% [markdown]
# The bias-free NTKs of this sweep level off at $r_\infty$ = 16.7 (one hidden ReLU layer), 12.0 (50 layers) and
# 13.7 (erf), and the finite-$n$ points follow $n r_\infty/(n-1+r_\infty)$ within 3 %. Two curves sit near 1: the
# NNGP of 50 ReLU layers, which has collapsed to an almost constant kernel (lesson 02), and the shifted inputs.
# These values belong to these kernels on this sphere: a bias, other inputs or another depth give other values
# (the explorer at the end).
#
# **Explain.** The 50-layer NTK has a *smaller* $r_\infty$ than the one-layer NTK. Lesson 02 says that as the
# depth grows, the normalized bias-free ReLU NTK tends to $\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$ on
# distinct inputs. What is $r_\infty$ of that limit, and so does $r_\infty$ keep falling with depth?
#
# <details><summary>Answer</summary>
#
# For $K = \tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$, $m_1 = 1$ and $m_\text{off} = \tfrac1{16}$, so
# $r_\infty = 16$. The limit is approached slowly: at depth 50 the off-diagonal entries still have a root mean
# square of $1/\sqrt{12.05} = 0.29$ of the diagonal, above $\tfrac14$, which gives the 12.0 measured here. So
# $r_\infty$ does not keep falling: from 16.7 at depth 1 it falls to about 9.5 near depth 8, then rises slowly
# towards 16 (15.1 at depth 400).
#
# </details>
#
# ### When the off-diagonal entries vanish
#
# The law involves the mean **square** of the off-diagonal entries. A family shows what that means: the NTK of
# bias-free erf networks with $\sigma_w = 2$, in the chaotic phase of lesson 02, where the correlation of two
# different inputs decays to 0 with depth. The kernel is odd, $k(x, -x') = -k(x, x')$, so its mean off-diagonal
# value is exactly 0 at **every** depth; only the mean square changes.

# %%
depths_chaos, sizes_chaos = [1, 2, 4, 8, 16], [50, 200, 800]
chaos = {depth: course.chaos_row(depth, tuple(sizes_chaos)) for depth in depths_chaos}
fig, ax = plt.subplots(figsize=(9.0, 4.2))
ax.semilogy(depths_chaos, [chaos[L].r_inf for L in depths_chaos], "k-o", label=nh._("r∞ (limit n → ∞)"))
for index, n in enumerate(sizes_chaos):
    color = PALETTE[index]
    ax.semilogy(depths_chaos, [chaos[L].r_eff[index] for L in depths_chaos], "s--", color=color,
                label=nh._("r_eff, n = {n}").format(n=n))
    ax.axhline(n, color=color, ls=":", lw=1)
ax.plot([], [], color="0.4", ls=":", lw=1, label=nh._("ceiling r_eff ≤ n (dotted)"))
ax.set_xscale("log", base=2)
ax.set_xticks(depths_chaos, [str(depth) for depth in depths_chaos])
ax.set_xlabel(nh._("depth (bias-free erf, σ_w = 2)"))
ax.set_ylabel(nh._("effective rank"))
ax.set_title(nh._("r∞ grows without bound with depth; each r_eff(n) stops at its ceiling n"))
ax.legend(fontsize=9, loc="center left", bbox_to_anchor=(1.0, 0.5))
plt.show()
print(nh._("depth 1: mean off-diagonal {mean:.1f} of the diagonal, root mean square {rms:.2f}, r∞ = {r:.1f}")
      .format(mean=abs(chaos[1].mean), rms=chaos[1].rms, r=chaos[1].r_inf))
print(nh._("depth 16: root mean square {rms:.1e}, r∞ = {r:.2g}; r_eff at n = 800: {rank:.2f}").format(
    rms=chaos[16].rms, r=chaos[16].r_inf, rank=chaos[16].r_eff[-1]))

# %% tags=["check"]
r_infs = [chaos[L].r_inf for L in depths_chaos]
nh.check_that("bias-free erf, σ_w = 2: r∞ grows with depth", all(a < b for a, b in zip(r_infs, r_infs[1:])),
              measured=str(np.round(r_infs, 1)), expected="increasing")
nh.check_close("odd kernel: mean off-diagonal entry / diagonal, depths 1 … 16 (0)",
               [chaos[L].mean for L in depths_chaos], [0.0] * 5, atol=1e-12)
nh.check_close("depth 1: r∞ (24.7)", chaos[1].r_inf, 24.7, atol=0.05)
nh.check_close("on the sphere: rms of the off-diagonal entries = 1/√r∞, depths 1 … 16",
               [chaos[L].rms * math.sqrt(chaos[L].r_inf) for L in depths_chaos], [1.0] * 5, rtol=1e-9)
nh.check_between("depth 16: r∞ (4 · 10⁷)", chaos[16].r_inf, 3.5e7, 4.5e7)
law_ratios = np.concatenate([np.array(chaos[L].r_eff) / [nh.effective_rank_finite(chaos[L].r_inf, n)
                                                          for n in sizes_chaos] for L in depths_chaos])
nh.check_close("the same law up to its ceiling: r_eff(n) / (n r∞/(n − 1 + r∞)), 5 depths × n = 50, 200, 800",
               law_ratios, np.ones_like(law_ratios), rtol=0.03)
nh.check_close("depth 16: r_eff(n) / n, n = 50, 200, 800 (the ceiling)",
               np.array(chaos[16].r_eff) / sizes_chaos,
               [1.0] * 3, rtol=1e-3)

# %% [markdown]
# At depth 1 the mean off-diagonal value is 0, yet $r_\infty$ is only 24.7: the off-diagonal entries are not small,
# they cancel on average (their root mean square is $1/\sqrt{r_\infty} = 0.20$ of the diagonal). With depth the
# root mean square falls, $r_\infty$ runs off to $4\cdot 10^7$ at depth 16, and each finite $r_\text{eff}(n)$
# climbs to its ceiling $n$. $r_\infty$ is a limit as $n \to \infty$, so it cannot be "close to $n$"; what
# approaches $n$ is $r_\text{eff}(n)$.
#
# ## Near 1 means "one constant mode"
#
# Why are the offset inputs and the deep NNGP near 1? Look at the top of the spectrum of the shifted inputs, and
# centre the kernel: $HKH$ with $H = I - \mathbf 1\mathbf 1^\top/n$ removes the constant direction.

# %%
offset = course.constant_mode(nh.mlp(1).kernel(nh.sphere(200, 10, seed=7) + 3.0).ntk)
print(nh._("offset inputs: top eigenvalue {top:.0f}, next {next:.0f}; |cos| between the top eigenvector "
           "and the constant vector {alignment:.3f}; r_eff {raw:.2f}, centered {centered:.1f}").format(
    top=offset.top, next=offset.second, alignment=offset.alignment, raw=offset.raw, centered=offset.centered))
deep = sweeps["ReLU NTK, 50 layers"]
print(nh._("50-layer ReLU NTK, n = 800: r_eff {raw:.1f}, centered {centered:.0f}").format(
    raw=deep.raw[-1], centered=deep.centered[-1]))

# %% tags=["check"]
nh.check_between("offset inputs: top eigenvalue / the next (about 50)", offset.top / offset.second, 40, 60)
nh.check_between("offset inputs: |cos| of the top eigenvector with the constant vector",
                 offset.alignment, 0.99, 1)
nh.check_close("offset inputs: r_eff, then centered (1.36, 15.5)", [offset.raw, offset.centered],
               [1.36, 15.5], atol=0.05)
plain = nh.effective_rank(nh.mlp(1).kernel(nh.sphere(200, 10, seed=7)).ntk)
nh.check_close("the same 200 inputs unshifted: r_eff (15.5)", plain, 15.5, atol=0.05)
nh.check_between("50-layer ReLU NTK, n = 800: centered r_eff / n", deep.centered[-1] / 800, 0.95, 0.97)
nh.check_close("50-layer ReLU NTK, n = 800: r_eff (11.9)", deep.raw[-1], 11.9, atol=0.05)

# %% [markdown]
# One eigenvalue, along the constant vector, is 50 times the next. Centering removes it and the effective rank
# jumps from 1.36 to 15.5, close to the 15.5 of the same kernel on the unshifted inputs. The 50-layer NTK is the
# opposite case, "constant plus white noise": raw $r_\text{eff}$ 11.9, centered 765 of 800. So $r_\text{eff}$ is
# not an "equivalent number of parameters". Adding a constant $c$ to a kernel drives $r_\text{eff}$ towards 1 as
# $c$ grows, while the functions it can fit change only by an added constant.
#
# ## Is the Gram matrix of distinct inputs full rank?
#
# An effective rank near 1 does not mean a low rank. But is the NTK Gram matrix of $n$ distinct inputs always of
# full rank $n$, so that ridgeless regression can fit any labels? Here are five Gram matrices of 12 distinct
# inputs: 6 random points of the sphere $S^2$ with their antipodes $-x$, or (off the sphere) with their doubles
# $2x$. We print $\lambda_\min/\lambda_\max$. Where an eigenvalue is 0, rounding leaves about $10^{-16}$ of either
# sign; we print such values, below $10^{-13}$, as 0.

# %%
singular = course.singular_cases()
for name, ratio in singular.items():
    print(nh._("{case}: λ_min/λ_max = {ratio}").format(case=course.singular_label(name),
                                                       ratio=course.ratio_text(ratio)))

# %% tags=["check"]
zero_at_rounding = [singular[name] for name in list(singular)[:3]]
nh.check_close("bias-free erf on ±x, ReLU (1 hidden layer) on ±x and on x, 2x: λ_min/λ_max at rounding (0)",
               zero_at_rounding, [0.0] * 3, atol=1e-14)
nh.check_close("bias-free ReLU, 2 hidden layers, on ±x: λ_min/λ_max (0.020)",
               singular["ReLU, no bias, 2 hidden layers, on x and −x"], 0.0203, atol=0.0005)
nh.check_close("erf with σ_b = 0.5 on ±x: λ_min/λ_max (0.0034)",
               singular["erf, σ_b = 0.5, 1 hidden layer, on x and −x"],
               0.0034, atol=0.0001)
two_layers = "ReLU, no bias, 2 hidden layers, on x and −x"
other_seeds = [course.singular_cases(seed)[two_layers] for seed in (0, 2, 3)]
nh.check_between("bias-free ReLU, 2 hidden layers, on ±x, other seeds 0, 2, 3: smallest λ_min/λ_max",
                 min(other_seeds), 0.006, 0.016)
ones_hidden = nh.eigenvalues(nh.mlp(1).kernel(course.antipodal_pairs()).ntk)
nh.check_close("one hidden ReLU layer on 6 antipodal pairs: its 3 smallest eigenvalues / the largest (0)",
               ones_hidden[-3:] / ones_hidden[0], [0.0] * 3, atol=1e-14)

# %% [markdown]
# The first three are singular, each for a reason that holds for every choice of the points:
#
# - **bias-free erf on $x$ and $-x$**: the network is odd, $f(-x) = -f(x)$ for every value of the weights, so its
#   parameter gradients are odd too and $\Theta(-x, \cdot) = -\Theta(x, \cdot)$: the rows of $x$ and $-x$ are
#   negatives of each other. (The same holds for tanh, and for any odd activation without a bias.)
# - **bias-free ReLU, one hidden layer, on $x$ and $-x$**: its NTK is $c\,x\cdot x'$ plus an even function of
#   $x\cdot x'$ (lesson 06). The combinations that are odd under $x \to -x$ see only the linear part, whose rank is
#   the dimension $d = 3$: 3 of the 12 eigenvalues are 0.
# - **bias-free ReLU on $x$ and $2x$** (off the sphere): the network is positively homogeneous,
#   $f(2x) = 2f(x)$, so the row of $2x$ is twice the row of $x$.
#
# The fourth, two hidden ReLU layers on the same antipodal pairs, is **not** singular: its smallest eigenvalue is
# 0.020 of the largest (0.007–0.015 for other random points), far above rounding. It is positive definite but
# ill-conditioned. The fifth, erf **with** a bias, is positive definite too. What is proved: with a bias and a
# non-polynomial Lipschitz activation the limiting NTK is positive definite on the sphere (Jacot, Gabriel &
# Hongler 2018, Prop. 2, whose networks have a bias $\beta > 0$); for one bias-free hidden ReLU layer the Gram
# matrix is positive definite when no two inputs are parallel or antiparallel (Du, Zhai, Póczos & Singh 2019). For
# inputs drawn from a continuous distribution, the NTKs of this lesson's non-polynomial activations give a
# full-rank Gram matrix with probability 1: a singular one needs special positions like those above. That is why
# the ridgeless regressions of this lesson interpolate.
#
# ### Is its function space dense?
#
# The same parity argument answers a second question: can kernel regression with the NTK learn *every* continuous
# function of the input direction? On the sphere a dot-product kernel is diagonal in spherical harmonics (on the
# circle: in $\cos k\theta$, $\sin k\theta$), with one Mercer coefficient $\mu_k$ per degree $k$. Its function space
# is dense in the continuous functions **if and only if every $\mu_k > 0$**. One bias-free hidden ReLU layer has
# $\mu_k = 0$ for every odd $k \ge 3$ (lesson 06); from two hidden layers on, the odd coefficients are positive too
# (lesson 06; Bietti & Bach 2021). We fit $\cos 3\theta$ on the circle by ridgeless NTK regression from $n$ random
# angles and report the test error relative to $\mathbb E\,y^2$ (1 = no better than predicting 0).

# %%
fit_sizes = [64, 256, 512]
fits = {1: [course.circle_fit(nh.mlp(1), 3, n) for n in fit_sizes],
        2: [course.circle_fit(nh.mlp(2), 3, n) for n in fit_sizes]}
print(nh._("cos 3θ, one bias-free hidden ReLU layer: relative test error {errors} at n = 64, 256, 512")
      .format(errors=", ".join(f"{e:.2g}" for e in fits[1])))
print(nh._("cos 3θ, two bias-free hidden ReLU layers: relative test error {errors} at n = 64, 256, 512")
      .format(errors=", ".join(f"{e:.2g}" for e in fits[2])))

# %% tags=["check"]
nh.check_that("one hidden ReLU layer (no bias): cos 3θ not learned, relative error > 1 at n = 64, 256, 512",
              min(fits[1]) > 1, measured=str(np.round(fits[1], 2)), expected="> 1")
nh.check_close("one hidden ReLU layer: relative error at n = 512 (1.73)", fits[1][-1], 1.73, atol=0.01)
nh.check_that("two hidden ReLU layers: relative error falls below 1e-5 by n = 512",
              fits[2][-1] < 1e-5 and fits[2][0] > fits[2][1] > fits[2][2], measured=str(fits[2]),
              expected="falling, < 1e-5")
erf_even = course.circle_fit(nh.mlp(1, "erf", sigma_w=1.0), 2, 512)
nh.check_between("bias-free erf, cos 2θ at n = 512: relative error (about 1: an odd kernel)", erf_even,
                 1.0, 1.15)

# %% [markdown]
# With one hidden layer the error stays above 1 however many samples we give it (1.73 at $n = 512$): the kernel
# has no $\cos 3\theta$ component, and the interpolant's wiggles only add error. With two hidden layers it falls to
# $5\cdot 10^{-7}$. Likewise a bias-free erf network, whose kernel is odd, cannot learn the even $\cos 2\theta$
# (relative error 1.08 at $n = 512$). With a bias and a non-polynomial activation every $\mu_k > 0$, and the
# function space is dense.
#
# ## The bound $O(\sqrt{r_\infty/n})$ fails (overview §4.4)
#
# Could $r_\infty$ at least bound how well kernel regression generalizes, say a test error of order
# $\sqrt{r_\infty/n}$? No bound of this form can hold, whatever constant the $O(\cdot)$ hides. $r_\infty$ depends only
# on the kernel and the input distribution, **not on the labels**. Give the inputs labels $y$ that are independent
# of them. Then no predictor $f$, however it is trained, beats the label variance on average:
#
# $$\mathbb E(f(x) - y)^2 = \mathbb E(f(x) - \mathbb E y)^2 + \operatorname{Var}(y) \;\ge\; \operatorname{Var}(y)$$
#
# (the cross term vanishes because $y$ is independent of $x$ and of the training data). For any constant $C$,
# $C\sqrt{r_\infty/n}$ falls below $\operatorname{Var}(y)$ once $n > C^2 r_\infty/\operatorname{Var}(y)^2$, while
# the expected error never does. A valid bound must look at the labels, e.g. $\sqrt{2\,y^\top\Theta^{-1}y/n}$ for two-layer
# ReLU networks (Arora, Du, Hu, Li & Wang 2019), which stays large for labels the kernel cannot explain.
#
# The experiment: ridgeless NTK regression (one hidden ReLU layer, $r_\infty = 16.7$) on inputs uniform on $S^9$,
# with the true labels $y = \cos(2x_1)$ and with **random** labels: the same function of a second, independent
# draw of inputs, so they have the same distribution as the true labels but carry no information about $x$.
# $\operatorname{Var}(y)$ is computed exactly by quadrature. Test error on 1000 fresh inputs, with its standard
# error. Ridgeless regression interpolates the training data, so its test error is also its generalization gap.

# %%
sizes_bound = [50, 100, 200, 400, 800, 1600]
rows = course.random_label_rows(tuple(sizes_bound))
label_mean, label_variance = course.label_moments()
r_inf = sweeps["ReLU NTK, 1 layer"].limit
fig, ax = plt.subplots(figsize=(10.0, 4.2))
for name, marker, text in [("true labels", "o-", nh._("test MSE, true labels")),
                           ("random labels", "s-", nh._("test MSE, random labels"))]:
    ax.errorbar(sizes_bound, [r.mse for r in rows[name]], yerr=[r.se for r in rows[name]], fmt=marker,
                capsize=3, label=text)
ax.plot(sizes_bound, [math.sqrt(r_inf / n) for n in sizes_bound], "k--",
        label=nh._("√(r∞/n), the bound with C = 1"))
ax.axhline(label_variance, color="k", ls=":", label=nh._("Var(y): least error for random labels"))
ax.set_xscale("log")
ax.set_yscale("log")
nh.plotting.width_ticks(ax, sizes_bound)
ax.set_xlabel(nh._("training set size n"))
ax.set_ylabel(nh._("test mean squared error"))
ax.set_title(nh._("√(r∞/n) falls to 0.1, but the random-label error never goes below Var(y)"))
ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.0, 1.0))
plt.show()
print(nh._("Var(y) = {variance:.3f}; n = 1600: random-label test MSE {random:.3f} ± {se:.3f}, "
           "√(r∞/n) = {bound:.3f}; a bound 10 √(r∞/n) is false beyond n = {n:.0f}").format(
    variance=label_variance, random=rows["random labels"][-1].mse, se=rows["random labels"][-1].se,
    bound=math.sqrt(r_inf / 1600), n=100 * r_inf / label_variance ** 2))

# %% tags=["check"]
random_mse = np.array([r.mse for r in rows["random labels"]])
nh.check_that("random labels: test MSE ≥ Var(y) at every n", bool((random_mse >= label_variance).all()),
              measured=str(np.round(random_mse, 3)), expected=f"≥ {label_variance:.3f}")
nh.check_close("Var(y) of cos(2 x₁) on S⁹ (0.496)", label_variance, 0.496, atol=0.0005)
# with independent labels (f − y)² − (f − E y)² − Var(y) has mean 0: 3 standard errors of the 1000 test points
excess = np.array([r.excess / r.excess_se for r in rows["random labels"]])
nh.check_between("random labels: (test MSE − spread − Var(y)) / its standard error, largest |·|",
                 float(np.abs(excess).max()), 0, 3)
nh.check_that("random labels: the interpolant's spread adds to the error (> 0.1 Var(y)) at every n",
              all(r.spread > 0.1 * label_variance for r in rows["random labels"]),
              measured=str([round(r.spread, 3) for r in rows["random labels"]]), expected="> 0.05")
nh.check_between("√(r∞/n) at n = 1600, against Var(y)", math.sqrt(r_inf / 1600) / label_variance, 0, 0.25)
worst_fit = max(r.train for name in rows for r in rows[name])
nh.check_between("ridgeless regression interpolates: training residual / max |y|", worst_fit, 0, 1e-6)
true_mse = [r.mse for r in rows["true labels"]]
nh.check_close("true labels: test MSE at n = 50 and 1600 (0.50, 0.090)", [true_mse[0], true_mse[-1]],
               [0.495, 0.090], atol=0.002)
nh.check_close("C = 10 fails beyond n = 100 r∞/Var(y)² (about 6800)", 100 * r_inf / label_variance ** 2, 6800,
               rtol=0.01)

# %% [markdown]
# For the true labels the error falls with $n$ (0.50 at $n = 50$, 0.090 at $n = 1600$). For the random labels,
# with the same $r_\infty$, it stays above $\operatorname{Var}(y) = 0.496$ at every $n$, while $\sqrt{r_\infty/n}$
# falls to 0.10. For $C = 10$ the bound $C\sqrt{r_\infty/n}$ is already false beyond $n \approx 6800$.
#
# **Explain.** The random-label error is not just $\operatorname{Var}(y)$ but clearly above it (0.58–0.88). Where
# does the extra error come from?
#
# <details><summary>Answer</summary>
#
# From the identity above: the error is $\operatorname{Var}(y)$ plus the spread $\mathbb E(\hat f(x) - \mathbb E y)^2$
# of the interpolant itself. Ridgeless regression fits the noise exactly at the training points, and it comes back
# as wiggles between them (0.09–0.32 here, matching the measured excess within the sampling error). The constant
# predictor $\mathbb E y$ would do better. Bartlett, Long, Lugosi & Tsigler (2020) give conditions under which this
# extra term vanishes in high dimension.
#
# </details>
#
# ## A value near 1 on images (overview §6.3)
#
# Effective ranks near 1 are reported for ResNet NTKs on CIFAR-10. We cannot download CIFAR-10 here, but
# scikit-learn ships 8 × 8 digits, and they show the mechanism: raw pixels are non-negative, so all images share
# a large mean component, and the kernel a large constant mode.

# %%
x_digits, *_ = nh.digits(300, 1, seed=0)
flat = x_digits.flatten(1)
digit_ranks = {}
for name, net in [("MLP NTK", nh.mlp(1)),
                  (nh._("ResNet NTK (8 blocks, α = 1/√8)"), nh.resnet(8, alpha=8 ** -0.5))]:
    K = net.kernel(flat).ntk
    digit_ranks[name] = nh.effective_rank(K), nh.effective_rank(K, centered=True)
    print(nh._("{name}: r_eff {raw:.2f}, centered {centered:.1f}").format(
        name=name, raw=digit_ranks[name][0], centered=digit_ranks[name][1]))

# %% tags=["check"]
resnet_raw, resnet_centered = list(digit_ranks.values())[1]
nh.check_between("ResNet NTK on 300 digits: r_eff", resnet_raw, 1, 3)
nh.check_between("ResNet NTK on 300 digits: centered r_eff", resnet_centered, 15, 300)

# %% [markdown]
# A value near 1 on natural images says "the images have a common mean", not "the network learns in a
# one-dimensional subspace"; centered, the same kernel has an effective rank above 15.
#
# ## Explore
#
# The explorer draws $r_\text{eff}$ against $n$ (solid), after centering (dashed), the law
# $n r_\infty/(n-1+r_\infty)$ (dotted) and the ceiling $r_\text{eff} = n$ (grey), for an MLP with $\sigma_w = 1.4$ and
# the depth, activation and bias you choose; its title says what the curve does. The line below gives $r_\infty$ and
# the values at $n = 400$. (Only activations with closed-form kernels: tanh's quadrature would take seconds per
# move.)

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_rank, depth=nh.widgets.depth_slider(1, max=50),
                       activation=nh.widgets.activation_dropdown("relu", options=course.EXPLORER_ACTIVATIONS),
                       sigma_b=nh.widgets.sigma_slider("sigma_b", 0.0, max=2.0))

# %% [markdown]
# **Predict, then check.**
#
# 1. ReLU without bias, depth 1: $r_\infty = 16.7$. Move the depth to 50. Will $r_\text{eff}$ at $n = 400$ fall
#    towards 1, like the 50-layer NNGP's, or stay above 10?
#
# <details><summary>Answer</summary>
#
# It stays above 10: 11.7 at $n = 400$ ($r_\infty = 12.0$). The deep NTK does not collapse to a constant the way the
# NNGP does: it keeps a part proportional to the identity (lesson 02), and its centered $r_\text{eff}$ is 390 of
# 400. The shape of a bias-free ReLU kernel does not depend on $\sigma_w$, so these are the numbers of the sweep above.
#
# </details>
#
# 2. Back to depth 1, ReLU. Move $\sigma_b$ to 2. The raw $r_\text{eff}$ will drop. Will the centered curve drop
#    with it?
#
# <details><summary>Answer</summary>
#
# Hardly. The raw value falls to 1.94 ($r_\infty = 1.95$): the bias adds the same constant to every entry of the
# kernel, and the title reports that the top eigenvector is the constant vector. Centered, $r_\text{eff}$ is 16.5
# at $n = 400$, against 24.0 without bias: removing the constant mode brings most of the rank back.
#
# </details>
#
# 3. erf without bias: move the depth from 1 to 50. What happens to $r_\text{eff}$? Then, at depth 50, move
#    $\sigma_b$ to 1.
#
# <details><summary>Answer</summary>
#
# At depth 1, $r_\infty = 17.4$; at depth 50 the title says $r_\text{eff} \approx n$: $\sigma_w = 1.4$ puts bias-free
# erf in the chaotic phase, the off-diagonal entries shrink to a root mean square of $9\cdot 10^{-6}$ of the diagonal
# ($r_\infty = 1.3\cdot 10^{10}$), and $r_\text{eff}(400) = 400.0$. With $\sigma_b = 1$ the same depth gives
# $r_\text{eff} = 1.00$: the bias creates a fixed point of the correlation map close to 1 (lesson 02), so all
# entries approach the diagonal and one constant mode takes everything.
#
# </details>

# %% tags=["check"]
def at_400(depth, activation, sigma_b):
    curves = course.rank_curves(depth, activation, sigma_b)
    return curves.raw[-1], curves.centered[-1], curves.limit


relu_deep, relu_biased, relu_plain = at_400(50, "relu", 0.0), at_400(1, "relu", 2.0), at_400(1, "relu", 0.0)
# each value / the number quoted in the answers (rounded to the digits shown)
nh.check_close("ReLU, depth 50: r_eff at n = 400, centered, r∞ / (11.72, 390.2, 12.05)",
               np.divide(relu_deep, [11.72, 390.2, 12.05]), [1.0] * 3, rtol=0.002)
nh.check_close("ReLU, depth 1, σ_b = 2: r_eff at n = 400, centered, r∞ / (1.94, 16.5, 1.946)",
               np.divide(relu_biased, [1.94, 16.5, 1.946]), [1.0] * 3, rtol=0.005)
nh.check_close("ReLU, depth 1, σ_b = 0: centered r_eff at n = 400, r∞ / (24.0, 16.7)",
               np.divide(relu_plain[1:], [24.0, 16.7]), [1.0] * 2, rtol=0.005)
nh.check_that("ReLU, depth 1, σ_b = 2: the title names the constant vector",
              "|cos| = 1.00" in course.describe(1, "relu", 2.0), measured=course.describe(1, "relu", 2.0))
erf_deep, erf_biased = at_400(50, "erf", 0.0), at_400(50, "erf", 1.0)
nh.check_close("erf, depth 1: r∞ (17.4)", at_400(1, "erf", 0.0)[2], 17.44, atol=0.005)
nh.check_between("erf, depth 50, no bias: r∞ (1.3 · 10¹⁰)", erf_deep[2], 1.2e10, 1.4e10)
nh.check_close("erf, depth 50, no bias: r_eff at n = 400 (400.0)", erf_deep[0], 400.0, atol=0.05)
nh.check_that("erf, depth 50, no bias: the title says r_eff ≈ n, rms 9 · 10⁻⁶",
              "≈ n" in course.describe(50, "erf", 0.0) and "8.9e-06" in course.describe(50, "erf", 0.0),
              measured=course.describe(50, "erf", 0.0))
nh.check_close("erf, depth 50, σ_b = 1: r_eff at n = 400 (1.00)", erf_biased[0], 1.0, atol=0.005)

# %% [markdown]
# ## The chapter in one table
#
# What each architecture does to the kernel, and what that makes of the NTK. The conditions in brackets matter:
# each property holds under them, not in general. Each row links the section that shows it.
#
# | architecture | mechanism | NTK property |
# |---|---|---|
# | [MLP depth (4.1)](02_mlp_recursion.ipynb#4.1.2-Kernel-collapse:-what-depth-does) | each layer applies the correlation map | normalized NTK → ¼ + ¾·[x = x′] (bias-free ReLU) |
# | [CNN (4.2)](03_cnn.ipynb#Invariance-needs-pooling) | shared filters: a kernel over pairs of pixels | shift invariance only with global average pooling (circular padding) |
# | [ResNet (4.3)](04_resnet.ipynb#4.3.2-How-the-NTK-grows-with-depth) | skip passes the kernel, branch adds α² times its map | α = 1/√L: bounded, 3e·q₀ (ReLU, σ_w² = 2, no bias) |
# | [Layer norm (4.4.1)](05a_normalization.ipynb#4.4.1-Layer-norm:-a-kernel-map) | normalizes the pre-activation kernel by its diagonal | directions only, if the layers before are homogeneous |
# | [Parameterization (4.4.2)](05b_parameterization.ipynb#Measured:-lazy-training-vs-feature-learning-over-many-steps) | width scaling of weights and learning rates | NTK parameterization: kernel frozen as m → ∞; μP: it moves |
# | [Activations (4.5)](06_activations.ipynb#4.5.2-Eigen-decay-on-the-circle) | smoothness and parity of φ set the Mercer spectrum | ReLU: μ_k ~ k^(−d) on S^(d−1); bias-free erf: geometric, odd k only |
# | [Training dynamics](07_training_dynamics.ipynb#2.-Lazy-training,-measured) | gradient descent on the linearized network | kernel regression: width → ∞, NTK parameterization, stable learning rate |
# | [Effective rank](#r-infinity-law) | participation ratio of the Mercer spectrum | r_eff → r∞, blind to the labels; ≈ 1 means a constant mode |
#
# Two rows need their conditions spelled out. *Training dynamics*: the NTK stays constant during training only in
# the limit of infinite width, in the NTK parameterization, with a learning rate below the stability threshold,
# and over a finite training time (gradient flow: Jacot, Gabriel & Hongler 2018), or uniformly in time for gradient
# descent when the NTK's smallest eigenvalue is positive (Lee et al. 2019). Under μP the kernel moves by $O(1)$ at
# every width. *ResNet*: the value $3e\,q_0$ is the limit for ReLU without bias and $\sigma_w^2 = 2$; with
# $\alpha = 1$ the same network has $\Theta(x, x) = q_0\,2^L(2 + L/2)$, exponential in $L$.

# %% tags=["check"]
one_input = nh.sphere(1, 3, seed=0)                  # x·x/d = 1, so q₀ = σ_w² = 2
q0 = 2.0
nh.check_close("ResNet row: α = 1, L = 6: Θ(x, x) / (q₀ 2^L (2 + L/2))",
               float(nh.resnet(6, alpha=1.0).kernel(one_input).ntk[0, 0]) / (q0 * 2 ** 6 * (2 + 6 / 2)), 1.0,
               rtol=1e-12)
# the O(1/L) correction at L = 256 is 0.3 %
nh.check_close("ResNet row: α = 1/√L, L = 256: Θ(x, x) / q₀ (3e)",
               float(nh.resnet(256, alpha=1 / 16).kernel(one_input).ntk[0, 0]) / q0, 3 * math.e, rtol=0.01)
_, on_circle = nh.circle(2048)
spectra = {name: (torch.fft.rfft(net.kernel(on_circle[:1], on_circle).ntk[0]).real / 2048).numpy()
           for name, net in [("relu", nh.mlp(1)), ("erf", nh.mlp(1, "erf", sigma_w=1.0))]}
even = np.arange(20, 200, 2)
nh.check_close("activations row: one ReLU layer, log-log slope of μ_k on even k (−d = −2 on the circle)",
               np.polyfit(np.log(even), np.log(spectra["relu"][even]), 1)[0], -2.0, atol=0.05)
erf_ratio = spectra["erf"][np.arange(23, 32, 2)] / spectra["erf"][np.arange(21, 30, 2)]
nh.check_between("activations row: bias-free erf, μ_(k+2)/μ_k at odd k = 21 … 29, nearly constant",
                 float(erf_ratio.max() - erf_ratio.min()), 0, 0.01)
nh.check_close("activations row: bias-free erf, even μ_k / μ_1 (0: odd k only)",
               spectra["erf"][2:40:2] / spectra["erf"][1], np.zeros(19), atol=1e-12)

# %% [markdown]
# ## Check your understanding
#
# 1. $K = aI + b\,\mathbf 1\mathbf 1^\top$ with $a, b > 0$ is $n \times n$. What is $r_\text{eff}(K)$, and its limit
#    as $n \to \infty$?
#
# <details><summary>Answer</summary>
#
# The eigenvalues are $a + nb$ (once, along $\mathbf 1$) and $a$ ($n - 1$ times), so
# $r_\text{eff} = n^2(a + b)^2 / ((a + nb)^2 + (n-1)a^2) \to (a + b)^2/b^2$. This is the law with $m_1 = a + b$ and
# $m_\text{off} = b^2$: for $a = \tfrac34$, $b = \tfrac14$ it gives 16, for $a \to 0$ it gives 1.
#
# </details>
#
# 2. Someone claims: "when the kernel's off-diagonal entries are tiny, $r_\infty \approx n$". What is wrong?
#
# <details><summary>Answer</summary>
#
# $r_\infty$ is a limit as $n \to \infty$, so it does not depend on $n$. Tiny off-diagonal entries make $r_\infty =
# m_1^2/m_\text{off}$ huge (unbounded as they vanish); what approaches $n$ is the finite-$n$ value
# $r_\text{eff}(n) \le n$. And "tiny" must be in mean square: entries that cancel on average (bias-free erf, depth 1)
# still give a modest $r_\infty$ (24.7).
#
# </details>
#
# 3. Add a constant $c$ to every entry of a kernel matrix. What happens to $r_\text{eff}$ as $c \to \infty$, and to
#    the functions that ridgeless regression with it can fit?
#
# <details><summary>Answer</summary>
#
# $r_\text{eff} \to 1$: the eigenvalue along $\mathbf 1$ grows like $nc$ and dominates the trace. The function
# space gains at most the constant function (the kernel $k + c$ is the kernel of the features of $k$ plus one
# constant feature $\sqrt c$), so what the kernel can fit hardly changes. A low $r_\text{eff}$ is therefore no sign
# of a small model.
#
# </details>
#
# 4. Why can no bound of the form $C\sqrt{r_\infty/n}$ on the test error hold, for any $C$?
#
# <details><summary>Answer</summary>
#
# $r_\infty$ depends on the kernel and the input distribution only. With labels independent of the inputs, every
# predictor has an expected test error of at least $\operatorname{Var}(y)$, while $C\sqrt{r_\infty/n} \to 0$: the
# bound is false for $n > C^2 r_\infty/\operatorname{Var}(y)^2$. A valid bound must depend on the labels.
#
# </details>
#
# 5. Which of these NTK Gram matrices of distinct inputs are singular, and why: (a) bias-free tanh on $\{x, -x\}$;
#    (b) bias-free ReLU (one hidden layer) on $\{x, 3x\}$; (c) ReLU with $\sigma_b = 0.5$ on $\{x, 3x\}$?
#
# <details><summary>Answer</summary>
#
# (a) Singular: tanh is odd, so without a bias the network and its gradients are odd and the two rows are
# negatives of each other. (b) Singular: the network is positively homogeneous, $f(3x) = 3f(x)$, so the row of
# $3x$ is three times that of $x$. (c) Not singular: the bias breaks the homogeneity. For the 6 points of this
# lesson and their triples, $\lambda_\min/\lambda_\max = 0.0027$: small, but far above rounding.
#
# </details>

# %% tags=["check"]
a, b, size = 0.75, 0.25, 400
K_question = a * torch.eye(size, dtype=torch.float64) + b
nh.check_close("question 1: r_eff of ¾I + ¼11ᵀ, n = 400, against the formula", nh.effective_rank(K_question),
               size ** 2 * (a + b) ** 2 / ((a + size * b) ** 2 + (size - 1) * a ** 2), rtol=1e-12)
x_six = nh.sphere(6, 3, seed=1)
tanh_pairs = nh.mlp(1, "tanh", sigma_w=1.0).kernel(torch.cat([x_six, -x_six])).ntk
nh.check_that("question 5 (a): bias-free tanh on ±x: |λ_min/λ_max| below 1e-14 (rounding)",
              abs(course.conditioning(tanh_pairs)) < 1e-14, measured=course.conditioning(tanh_pairs))
triples = torch.cat([x_six, 3 * x_six])
triples_ratio = course.conditioning(nh.mlp(1).kernel(triples).ntk)
nh.check_that("question 5 (b): bias-free ReLU on x, 3x: |λ_min/λ_max| below 1e-14 (rounding)",
              abs(triples_ratio) < 1e-14, measured=triples_ratio)
biased_triples = course.conditioning(nh.mlp(1, sigma_b=0.5).kernel(triples).ntk)
nh.check_close("question 5 (c): ReLU with σ_b = 0.5 on x, 3x: λ_min/λ_max (0.0027)", biased_triples, 0.0027,
               atol=0.00005)

# %% [markdown]
# ## Summary
#
# - $r_\text{eff} = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$ counts how many eigenvalues share the trace. For
#   inputs drawn from a distribution it tends to $r_\infty = m_1^2/m_\text{off}$ for **every** kernel, and the
#   finite-$n$ value follows $n r_\infty/(n-1+r_\infty)$.
# - $r_\infty$ does not depend on $n$. It depends on the mean **square** of the off-diagonal entries and grows
#   without bound when they vanish, while $r_\text{eff}(n) \le n$.
# - Values near 1 signal a dominant constant mode (shifted inputs, a large bias, the deep NNGP, raw pixels);
#   centering removes it. A full-rank matrix can have $r_\text{eff} \approx 1$.
# - Distinct inputs do not guarantee a full-rank NTK Gram matrix (bias-free odd activations on $\pm x$, bias-free
#   ReLU on $x, 2x$ or, with one hidden layer, on antipodal pairs); nor does every NTK have a dense function space
#   (every Mercer coefficient must be positive).
# - $r_\infty$ ignores the labels, so it cannot bound generalization: with random labels the error stays above
#   $\operatorname{Var}(y)$ for every $n$ while $\sqrt{r_\infty/n}\to 0$.

# %% [markdown]
# ## For readers of chapter 4
#
# <details><summary>Overview §4.1: "the equivalent number of parameters" (errata B13)</summary>
#
# **The text says:** the effective rank measures the equivalent number of parameters of the model, and can be
# close to 1.
#
# **What is true:** $r_\text{eff}$ is the participation ratio of the spectrum and is dominated by the top eigenvalue,
# often a constant mode. Adding a constant to a kernel drives $r_\text{eff}$ towards 1 while the functions it can fit
# change only by a constant (section "Near 1 means one constant mode"). [errata B13](../ERRATA.md#b13)
#
# </details>
#
# <details><summary>Overview §4.2: the constant limit as "a key discovery" (errata B14, B15, B43)</summary>
#
# **The text says:** the NTK's "spectral dimension" is a constant, a key discovery (attributed to "Anil et al."),
# and NTKs have $r_\text{eff} \approx 1$–2.
#
# **What is true:** the limit $r_\infty = \mathbb E[k(x,x)]^2/\mathbb E[k(x,x')^2]$ holds for every kernel with
# finite second moments (law of large numbers); it is the participation ratio of the Mercer spectrum. Its source is
# an unreviewed single-author preprint (P. A. Shukla, arXiv:2512.00860). For the bias-free kernels of this lesson's
# sweep on $S^9$ the values are 12–17 (ReLU NTK with 1 and 50 layers, erf NTK), not 1–2; other kernels give other
# values. [errata B14](../ERRATA.md#b14), [B15](../ERRATA.md#b15), [B43](../ERRATA.md#b43)
#
# </details>
#
# <details><summary>Overview §4.2: "k(x,x′) ≪ k(x,x) gives r∞ ≈ n" (errata B16)</summary>
#
# **The text says:** when $k(x,x') \ll k(x,x)$ the constant $r_\infty$ is close to $n$ (inputs "perfectly
# separable"); when $k(x,x') \approx k(x,x)$ it is close to 1; and it reads this off the mean $\mathbb E\,k(x,x')$.
#
# **What is true:** $r_\infty$ cannot depend on $n$; as the off-diagonal entries shrink it grows without bound,
# while $r_\text{eff}(n) \le n$. The law involves the mean **square** $\mathbb E\,k(x,x')^2$: the bias-free erf NTK
# has mean off-diagonal value 0 at every depth, with $r_\infty$ = 24.7 at depth 1 and $4\cdot 10^7$ at depth 16
# (section "When the off-diagonal entries vanish"). [errata B16](../ERRATA.md#b16)
#
# </details>
#
# <details><summary>Overview §4.4: "regression happens in a low-rank subspace" (errata B18)</summary>
#
# **The text says:** the NTK's effective rank is a constant of about 1–2, so kernel regression happens in a
# low-rank subspace.
#
# **What is true:** a small $r_\text{eff}$ is not a small rank. With a bias and a non-polynomial Lipschitz activation
# the limiting NTK is positive definite on the sphere (Jacot et al. 2018, Prop. 2), and for the non-polynomial
# activations of this lesson the Gram matrix of inputs drawn from a continuous distribution is full rank with
# probability 1, so ridgeless regression uses all $n$ directions. Without a bias, distinct inputs can give a singular Gram matrix: bias-free erf or tanh on $\{x, -x\}$;
# bias-free ReLU on $\{x, 2x\}$ (off the sphere); one bias-free hidden ReLU layer on 6 antipodal pairs of $S^2$ (3
# zero eigenvalues). Two hidden layers on the same pairs are positive definite but ill-conditioned
# ($\lambda_\min/\lambda_\max = 0.020$). (Section "Is the Gram matrix of distinct inputs full rank?")
# [errata B18](../ERRATA.md#b18)
#
# </details>
#
# <details><summary>Overview §4.4: the bound O(√(r∞/n)) (errata B19)</summary>
#
# **The text says:** the generalization error is bounded by $O(\sqrt{r_\infty/n})$, which explains why
# overparameterized networks generalize.
#
# **What is true:** $r_\infty$ does not depend on the labels, and with labels independent of the inputs no predictor
# beats $\operatorname{Var}(y)$, whatever $n$; so no such bound holds for any constant. Valid bounds depend on the
# labels, e.g. $\sqrt{2y^\top\Theta^{-1}y/n}$ (Arora, Du, Hu, Li & Wang 2019). [errata B19](../ERRATA.md#b19)
#
# </details>
#
# <details><summary>Overview §6.3: ResNets on CIFAR-10 with r_eff ≈ 1 (errata B29)</summary>
#
# **The text says:** ResNets on CIFAR-10 have $r_\text{eff} \approx 1.0$–1.3, as theory predicts.
#
# **What is true:** the numbers are quoted from the preprint and were not reproduced; they were measured at widths
# 16–32, far from the infinite-width limit. A value near 1 on raw images reflects their common mean: on
# scikit-learn's digits the ResNet NTK has $r_\text{eff} < 3$, centered above 15 (section "A value near 1 on
# images"). [errata B29](../ERRATA.md#b29)
#
# </details>
#
# <details><summary>Overview §5: NTK-ECRN, "every eigenvalue converges to 0 or 1" (errata B20, B22)</summary>
#
# **The text says:** an "NTK-ECRN" architecture makes every NTK eigenvalue converge to 0 or 1, from
# $d\lambda/dt \le C\lambda(1 - \lambda)$.
#
# **What is true:** this comes from an unreviewed preprint (arXiv:2512.08264) and is not established. In the kernel
# regime (infinite width, NTK parameterization, a learning rate below the stability threshold, finite training time
# or, for gradient descent, $\lambda_\min > 0$; Jacot et al. 2018; Lee et al. 2019) the NTK does not move during
# training, so neither do its eigenvalues; they scale with $n$, depth and $\sigma_w$ and are not confined to
# $[0, 1]$. Outside that regime (finite width, μP) the kernel moves, but an upper bound on $d\lambda/dt$ cannot
# force it to converge anywhere. [errata B20](../ERRATA.md#b20), [B22](../ERRATA.md#b22)
#
# </details>
#
# <details><summary>Overview §7.1: "lazy training has limited expressivity" (errata B31)</summary>
#
# **The text says:** the lazy (kernel) regime has limited expressivity.
#
# **What is true:** the NTK's function space is dense on the sphere exactly when every Mercer coefficient is
# positive, for example with a bias and a non-polynomial activation, or bias-free ReLU with at least two hidden
# layers; one bias-free hidden ReLU layer misses every odd degree $k \ge 3$ and cannot learn $\cos 3\theta$ (section
# "Is its function space dense?"). Where the space is dense, the real limitation is sample efficiency: some targets
# need far more samples than a feature-learning network (Ghorbani et al. 2019, 2021). [errata B31](../ERRATA.md#b31)
#
# </details>
#
# <details><summary>Overview §7.3 and §8: other frameworks, edge of stability, grokking (errata B35, B37, B38)</summary>
#
# **The text says:** "infinite-feature factorization" and "neural tangent features" go beyond the NTK; the
# edge-of-stability threshold follows from the NTK spectrum; grokking is explained by flat NTK directions plus weight
# decay.
#
# **What is true:** the two frameworks could not be found; use mean-field theory, tensor programs and μP (lesson
# [05b](05b_parameterization.ipynb)), or $1/n$ expansions. The sharpness hovering at $2/\eta$ (Cohen et al. 2021)
# needs a *changing* NTK (progressive sharpening), outside the kernel regime; lesson 07 shows only the stability
# threshold of the linearized model. Established accounts of grokking describe a transition from lazy to
# feature-learning dynamics (Kumar et al. 2024; Lyu et al. 2024), beyond the NTK. The frequency principle (spectral
# bias) is established in the kernel regime (Rahaman et al. 2019; Xu et al. 2019; Basri et al. 2019): mode $k$ is
# learned at a rate proportional to $\mu_k$ (lesson 06). [errata B35](../ERRATA.md#b35), [B37](../ERRATA.md#b37),
# [B38](../ERRATA.md#b38)
#
# </details>
#
# **Exercise:** 4.7 (kernel collapse and effective rank of a 50-layer MLP).
#
# **Next:** [00 · Start here](00_start_here.ipynb)
