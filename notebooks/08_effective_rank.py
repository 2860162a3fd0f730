# %% [markdown]
# # 08 · Effective rank: what it does and does not tell you
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/08_effective_rank.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F08_effective_rank.ipynb)
#
# *Overview §4, and the chapter's summary table.*
#
# **You will learn**
# - what the effective rank $r_\text{eff}(K) = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$ of a kernel matrix
#   counts, and why it tends to a constant $r_\infty$ as the number of independently drawn inputs grows, for
#   **every** kernel with finite second moments whose off-diagonal entries are not 0 in mean square;
# - what $r_\infty$ depends on (the mean *square* of the off-diagonal entries), and why values near 1 mean "one
#   eigenvalue dominates" (often, not always, along the constant vector);
# - when the NTK Gram matrix of distinct inputs is singular, and when its function space is dense;
# - why no bound of the form $O(\sqrt{r_\infty/n})$ can bound the generalization error;
# - the whole chapter in one table: architecture → mechanism → so what → when it fails.
#
# **Prerequisites:** lessons 01–02 (the NTK, the NNGP, which is the kernel of the network's outputs at
# initialization, and their recursion), 07 (kernel regression with the NTK); some linear
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
# Both panels show the NTK of one bias-free hidden ReLU layer ($\sigma_w^2 = 2$) on the same 200 random directions
# in $d = 10$ dimensions. On the right every input was shifted by 3 in each coordinate. All inputs now share a
# large common part. The shift gives the kernel a large constant part, and it also changes the angles between
# the inputs (section "Near 1 means one dominant eigenvalue"). One eigenvalue now takes 86 % of the trace. Yet
# nothing about what the kernel can fit has become one-dimensional; this lesson makes that precise.
#
# **The staircase on the left.** One eigenvalue holds 19 % of the trace (along the constant vector). About ten
# follow with 3–7 % each, then the shares drop to 1 %. Why? On the sphere the kernel's eigenfunctions are
# spherical harmonics. Step one is degree 0: one function, the constant. The next ten are degree 1: the $d = 10$
# linear functions $x_j$.
#
# Why are those ten not equal? The degree-1 part of the Gram matrix is $c\,XX^\top/d$ for some $c > 0$, where
# the rows of $X$ are the inputs. Eigenvalues 2–11 of the Gram matrix are close to the nonzero eigenvalues of this
# part (the other degrees perturb them a little), and those equal the eigenvalues of the $d \times d$ matrix
# $c\,X^\top X/d$,
# which is $cn/d$ times the sample covariance $X^\top X/n$ of the inputs (their true covariance is $I$). The
# sample covariance of 200 random points in 10 dimensions has eigenvalues spread over roughly
# $(1 \pm \sqrt{10/200})^2$, that is 0.6 to 1.5.

# %% tags=["check"]
idea_spectrum = nh.eigenvalues(nh.mlp(1).kernel(nh.sphere(200, 10, seed=7)).ntk).numpy()
idea_share = idea_spectrum / idea_spectrum.sum()
nh.check_close("left panel: the top eigenvalue's share of the trace (19 %)", idea_share[0], 0.19, atol=0.005)
nh.check_between("left panel: shares of eigenvalues 2 … 11, smallest (3 %)", idea_share[1:11].min(),
                 0.03, 0.04)
nh.check_between("left panel: shares of eigenvalues 2 … 11, largest (7 %)", idea_share[1:11].max(),
                 0.065, 0.0715)
nh.check_between("left panel: share of eigenvalue 12 (the drop)", idea_share[11], 0.005, 0.015)
offset_spectrum = nh.eigenvalues(nh.mlp(1).kernel(nh.sphere(200, 10, seed=7) + 3.0).ntk).numpy()
nh.check_close("right panel: the top eigenvalue's share of the trace (86 %)",
               offset_spectrum[0] / offset_spectrum.sum(), 0.855, atol=0.005)

# %% [markdown]
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
# ¾I + ¼11ᵀ: against the participation ratio of its eigenvalues, computed by numpy
mixed_eigenvalues = np.linalg.eigvalsh((0.75 * eye + 0.25 * ones).numpy())
nh.check_close("r_eff of ¾I + ¼11ᵀ, n = 40 (11.64)", nh.effective_rank(0.75 * eye + 0.25 * ones),
               mixed_eigenvalues.sum() ** 2 / (mixed_eigenvalues ** 2).sum(), rtol=1e-12)

# %% [markdown]
# ## The $r_\infty$ law (overview §4.2)
# <a id="r-infinity-law"></a>
#
# Draw $n$ inputs independently from a distribution and let $K_{ij} = k(x_i, x_j)$. For independent inputs
# $x, x'$ from that distribution write
#
# - $m_1 = \mathbb E\,k(x,x)$, the mean diagonal entry, and $m_2 = \mathbb E\,k(x,x)^2$;
# - $m_\text{off} = \mathbb E\,k(x,x')^2$, the mean **square** of an off-diagonal entry.
#
# Then $\mathbb E\operatorname{tr}K = n m_1$ and $\mathbb E\lVert K\rVert_F^2 = n m_2 + n(n-1)\,m_\text{off}$. By the
# law of large numbers $\operatorname{tr}K/n \to m_1$ and $\lVert K\rVert_F^2/n^2 \to m_\text{off}$. So, whenever
# $m_\text{off} > 0$:
#
# $$\boxed{\,r_\text{eff} \;\to\; r_\infty = \frac{m_1^2}{m_\text{off}}\,}$$
#
# **At finite $n$** (a heuristic). With a constant diagonal ($m_2 = m_1^2$, as on a sphere) the ratio of the two
# expectations is $n^2m_1^2/(n m_1^2 + n(n-1)m_\text{off}) = n r_\infty/(n - 1 + r_\infty)$. This is a ratio of
# expectations, not the expectation of the ratio. So a finite sample follows it only up to a few percent, and
# only for a constant diagonal. Below we call it "the finite-$n$ heuristic".
#
# This holds for **every** kernel with finite second moments, not for the NTK in particular. $r_\infty$ is also the
# participation ratio of the kernel *operator*: $m_1 = \sum_i\mu_i$ and $m_\text{off} = \sum_i\mu_i^2$ for its
# Mercer eigenvalues $\mu_i$ (counted with multiplicity).

# %% [markdown]
# **The set-up of the experiments:**
#
# - inputs uniform on the sphere $S^9$ ($d = 10$, radius $\sqrt{10}$); bias-free networks;
# - **depth** $L$ always means the number of hidden layers; the linear readout is not counted;
# - ReLU networks with $\sigma_w^2 = 2$, the erf network with $\sigma_w = 1$. `nh.mlp` uses the same $\sigma_w$ for
#   every layer, the readout included. The shape of a bias-free ReLU kernel does not depend on $\sigma_w$ (it only
#   scales it); erf's does. Each figure title names its $\sigma_w$;
# - $r_\infty$ by quadrature (`nh.effective_rank_limit`). On the sphere a bias-free kernel depends only on the
#   cosine $t = x\cdot x'/d$ of the angle, $k(x,x') = k(t)$. The cosine of two independent uniform directions has
#   density $p_d(t) \propto (1 - t^2)^{(d-3)/2}$ on $[-1, 1]$. So
#
#   $$r_\infty = \frac{k(1)^2}{\int_{-1}^{1} k(t)^2\,p_d(t)\,dt};$$
#
# - the offset inputs (every coordinate $+3$) are not on a sphere: for them we only measure.

# %%
sweeps = {name: course.rank_sweep(name) for name in course.CASES}
sizes = list(course.SIZES)
fig, ax = plt.subplots(figsize=(9.0, 4.2))
colors = [PALETTE[0], PALETTE[1], PALETTE[2], PALETTE[3], PALETTE[7]]   # the offset inputs in black
for color, marker, (name, sweep) in zip(colors, "o^sDv", sweeps.items()):
    text = nh._("{name}: off the sphere, no r∞").format(name=course.case_label(name))
    if sweep.limit is not None:
        text = nh._("{name}: r∞ = {limit:.2f}").format(name=course.case_label(name), limit=sweep.limit)
    filled = sweep.limit is not None     # the offset inputs: hollow markers
    ax.semilogx(sizes, sweep.raw, marker, color=color, mfc=color if filled else "none", ms=7, label=text)
    if sweep.limit is not None:
        ax.semilogx(sizes, sweep.predicted(), "-", color=color, lw=1)
        ax.axhline(sweep.limit, color=color, ls="--", lw=0.8)
ax.plot([], [], "k-", lw=1, label=nh._("heuristic n r∞/(n − 1 + r∞), constant diagonal"))
ax.plot([], [], "k--", lw=0.8, label=nh._("its limit r∞ (dashed)"))
nh.plotting.width_ticks(ax, sizes)
ax.set_xlabel(nh._("number of inputs n"))
ax.set_ylabel(nh._("effective rank"))
ax.set_title(nh._("r_eff climbs to a constant r∞ (dashed): {a:.1f}, {b:.1f}, {c:.1f} for the three NTKs;\n"
                  "near 1 for the deep NNGP ({d:.2f}) and the offset inputs ({e:.2f}) · "
                  "ReLU σ_w² = 2, erf σ_w = 1")
             .format(
    a=sweeps["ReLU NTK, 1 layer"].limit, b=sweeps["erf NTK"].limit, c=sweeps["ReLU NTK, 50 layers"].limit,
    d=sweeps["ReLU NNGP, 50 layers"].limit, e=sweeps["ReLU NTK, inputs + 3"].raw[-1]), fontsize=11)
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

# %% [markdown]
# The bias-free NTKs of this sweep level off at $r_\infty$ = 16.7 (one hidden ReLU layer), 12.0 (50 hidden layers)
# and 13.7 (erf, one hidden layer). The finite-$n$ points follow the heuristic $n r_\infty/(n-1+r_\infty)$ within
# 3 %. Two curves sit near 1: the NNGP of 50 ReLU layers, which has collapsed to an almost constant kernel
# (lesson 02), and the shifted inputs.
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
# $r_\infty$ does not keep falling: from 16.7 at depth 1 it falls to a minimum of about 9.5 at depths 8–10,
# then rises slowly towards 16 (15.1 at depth 400).
#
# </details>

# %% tags=["check"]
relu_by_depth = [nh.effective_rank_limit(nh.mlp(L), 10) for L in (1, 8, 50, 400)]
nh.check_close("bias-free ReLU NTK: r∞ at depths 1, 8, 50 (16.7, 9.5, 12.0)", np.divide(relu_by_depth[:3],
               [16.7, 9.48, 12.05]), [1.0] * 3, rtol=0.003)
middle_depths = [nh.effective_rank_limit(nh.mlp(L), 10) for L in range(6, 13)]
nh.check_that("bias-free ReLU NTK: the smallest r∞ of depths 6 … 12 lies at a depth from 8 to 10",
              8 <= 6 + int(np.argmin(middle_depths)) <= 10, measured=str(np.round(middle_depths, 2)),
              expected="minimum at depth 8, 9 or 10")
nh.check_close("bias-free ReLU NTK, depth 400: r∞ (15.1)", relu_by_depth[3], 15.09, atol=0.005)
nh.check_close("depth 50: root mean square off-diagonal / diagonal (0.29)", relu_by_depth[2] ** -0.5, 0.29,
               atol=0.005)
deep_gram = nh.mlp(50).kernel(nh.sphere(800, 10, seed=800)).ntk
nh.check_close("depth 50, n = 800: measured root mean square off-diagonal / diagonal (0.29)",
               course.offdiagonal_rms(deep_gram), relu_by_depth[2] ** -0.5, rtol=0.03)

# %% [markdown]
# ### When the off-diagonal entries vanish
#
# Why does the law use the mean **square** of the off-diagonal entries, not their mean? A family of kernels whose
# mean off-diagonal entry is always 0 shows the difference.
#
# The family: the NTK of bias-free erf networks with $\sigma_w = 2$ (note: not the $\sigma_w = 1$ of the sweep),
# at depths 1 to 16. erf is odd, so without a bias the kernel is odd too: $k(x, -x') = -k(x, x')$. On the sphere
# $x'$ and $-x'$ are equally likely, so the mean off-diagonal entry is exactly 0 at **every** depth.
#
# Where the network sits: $\sigma_w = 2$ is in the chaotic phase of lesson 02 ($\chi_1 > 1$). For bias-free erf
# that happens exactly when $\sigma_w > \sqrt\pi/2 \approx 0.89$. The reason: $\operatorname{erf}'(0) = 2/\sqrt\pi$, so
# for a small variance $q$ one layer maps $q \mapsto \sigma_w^2\cdot\tfrac4\pi\,q$. The fixed point $q = 0$ is
# stable when $\sigma_w^2 < \pi/4$; then the signal dies out with depth. Above it the variance settles at some
# $q^* > 0$.
#
# **Predict first.** If $r_\infty$ were set by the *mean* off-diagonal entry (relative to the diagonal), it would be
# the same at every depth. Will it be?

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
measured_rms = [course.offdiagonal_rms(nh.mlp(L, "erf", sigma_w=2.0).kernel(nh.sphere(800, 10, seed=800)).ntk)
                for L in depths_chaos]
nh.check_close("n = 800: measured rms of the off-diagonal entries × √r∞, depths 1 … 16 (1)",
               np.multiply(measured_rms, [math.sqrt(chaos[L].r_inf) for L in depths_chaos]), [1.0] * 5,
               rtol=0.03)
nh.check_between("depth 16: r∞ (4 · 10⁷)", chaos[16].r_inf, 3.5e7, 4.5e7)
below = nh.signal_regime("erf", sigma_w=0.88, sigma_b=0.0)
above = nh.signal_regime("erf", sigma_w=0.90, sigma_b=0.0)
nh.check_that("bias-free erf, σ_w = 0.88 < √π/2: the variance dies out (q* = 0)", below.q_star == 0,
              measured=below.q_star, expected=0)
nh.check_between("bias-free erf, σ_w = 0.90 > √π/2: χ₁ > 1 (chaotic)", above.chi1, 1.0, 1.01)
law_ratios = np.concatenate([np.array(chaos[L].r_eff) / [nh.effective_rank_finite(chaos[L].r_inf, n)
                                                          for n in sizes_chaos] for L in depths_chaos])
nh.check_close("the heuristic up to its ceiling: r_eff(n) / (n r∞/(n − 1 + r∞)), 5 depths × n = 50, 200, 800",
               law_ratios, np.ones_like(law_ratios), rtol=0.03)
nh.check_close("depth 16: r_eff(n) / n, n = 50, 200, 800 (the ceiling)",
               np.array(chaos[16].r_eff) / sizes_chaos,
               [1.0] * 3, rtol=1e-3)

# %% [markdown]
# No. At depth 1 the mean off-diagonal value is 0, yet $r_\infty$ is only 24.7. The off-diagonal entries are not
# small; they cancel on average. Their root mean square is $1/\sqrt{r_\infty} = 0.20$ of the diagonal.
#
# Why does depth change this? In the chaotic phase the correlation of two different, non-antipodal inputs decays
# to 0 with depth ($-1$ stays $-1$: the network is odd). So the root mean square of the off-diagonal entries falls,
# and $r_\infty$ runs off to $4\cdot 10^7$ at depth 16. Each finite $r_\text{eff}(n)$ climbs to its ceiling $n$.
# $r_\infty$ itself does not depend on $n$; only the finite $r_\text{eff}(n)$ is bounded by $n$.
#
# ## Near 1 means "one dominant eigenvalue"
#
# Why are the offset inputs and the deep NNGP near 1? Look at the top of the spectrum of the shifted inputs, and
# centre the kernel: $HKH$ with $H = I - \mathbf 1\mathbf 1^\top/n$ removes the constant direction.

# %%
offset = course.constant_mode(nh.mlp(1).kernel(nh.sphere(200, 10, seed=7) + 3.0).ntk)
print(nh._("offset inputs: top eigenvalue {top:.0f}, next {next:.0f}; |cos| between the top eigenvector "
           "and the constant vector {alignment:.3f}; r_eff {raw:.2f}, centered {centered:.1f}").format(
    top=offset.top, next=offset.second, alignment=offset.alignment, raw=offset.raw, centered=offset.centered))
plain_gram = nh.mlp(1).kernel(nh.sphere(200, 10, seed=7)).ntk
plain_mode = course.constant_mode(plain_gram)
print(nh._("the same 200 inputs unshifted: r_eff {raw:.1f}, centered {centered:.1f}").format(
    raw=plain_mode.raw, centered=plain_mode.centered))
shift = 10 * float(plain_gram.diagonal().mean())      # a constant 10 times the mean diagonal entry
lifted = course.constant_mode(plain_gram + shift)
print(nh._("unshifted kernel plus the constant matrix c·11ᵀ (c = 10 × its mean diagonal): "
           "r_eff {raw:.2f}, centered {centered:.1f}").format(raw=lifted.raw, centered=lifted.centered))
deep = sweeps["ReLU NTK, 50 layers"]
print(nh._("50-layer ReLU NTK, n = 800: r_eff {raw:.1f}, centered {centered:.0f}").format(
    raw=deep.raw[-1], centered=deep.centered[-1]))

# %% tags=["check"]
nh.check_between("offset inputs: top eigenvalue / the next (about 50)", offset.top / offset.second, 40, 60)
nh.check_between("offset inputs: |cos| of the top eigenvector with the constant vector",
                 offset.alignment, 0.99, 1)
nh.check_close("offset inputs: r_eff, then centered (1.36, 15.5)", [offset.raw, offset.centered],
               [1.36, 15.5], atol=0.05)
nh.check_between("the same 200 inputs unshifted: |cos| of the top eigenvector with the constant vector",
                 plain_mode.alignment, 0.99, 1)
nh.check_close("the same 200 inputs unshifted: r_eff, then centered (15.5, 22.8)",
               [plain_mode.raw, plain_mode.centered], [15.5, 22.8], atol=0.05)
nh.check_close("unshifted kernel + c·11ᵀ: r_eff (1.17)", lifted.raw, 1.17, atol=0.01)
nh.check_close("unshifted kernel + c·11ᵀ: centered r_eff / that of the kernel alone (exactly 1)",
               lifted.centered / plain_mode.centered, 1.0, rtol=1e-9)
nh.check_between("50-layer ReLU NTK, n = 800: centered r_eff / n", deep.centered[-1] / 800, 0.95, 0.97)
nh.check_close("50-layer ReLU NTK, n = 800: r_eff (11.9)", deep.raw[-1], 11.9, atol=0.05)

# %% [markdown]
# One eigenvalue, along the constant vector, is 50 times the next. Centering removes it and the effective rank
# jumps from 1.36 to 15.5. The unshifted kernel has a constant mode too, only a smaller one (19 % of the trace in
# the first picture): centered, it reaches 22.8, not 15.5. So shifting the inputs is **not** adding a constant to
# the kernel: it changes the angles between the inputs, and with them the kernel's shape. A pure constant shows
# the clean case: $K + c\,\mathbf 1\mathbf 1^\top$ with $c$ ten times the mean diagonal entry has
# $r_\text{eff} = 1.17$, and centering returns exactly the 22.8 of $K$ alone, because $H\mathbf 1 = 0$.
#
# The 50-layer NTK is on its way to its depth limit $\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$ (normalized;
# at depth 50 it is still some way off): a constant part plus a part proportional to the identity. Centering keeps only the identity part,
# $H(\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top)H = \tfrac34 H$, and $H$ has $n - 1$ equal eigenvalues, so the
# centered effective rank of the limit is $n - 1$. Measured: raw 11.9, centered 765 of 800. A small $r_\text{eff}$
# therefore says that one eigenvalue is large, not that the model has few degrees of freedom: adding a constant $c$
# to a kernel drives $r_\text{eff}$ towards 1 as $c$ grows, while the functions it can fit change only by an added
# constant.
#
# Is the dominant eigenvector always the constant vector? A second example: 200 inputs in two antipodal clusters,
# alternately $+\sqrt{10}\,e_1$ and $-\sqrt{10}\,e_1$, each plus Gaussian noise with standard
# deviation 0.3 in each coordinate. The kernel is the
# bias-free erf NTK ($\sigma_w = 1$), which is odd: $k(x, -x') = -k(x, x')$.
#
# **Predict first.** For the offset inputs centering lifted $r_\text{eff}$ from 1.36 to 15.5. What will it do here?

# %%
clusters = course.constant_mode(nh.mlp(1, "erf", sigma_w=1.0).kernel(course.two_clusters(200, seed=0)).ntk)
print(nh._("two antipodal clusters, bias-free erf NTK: r_eff {raw:.2f}, centered {centered:.2f}; "
           "|cos| with the constant vector {alignment:.3f}").format(
    raw=clusters.raw, centered=clusters.centered, alignment=clusters.alignment))

# %% tags=["check"]
nh.check_close("two clusters: r_eff (1.26, one dominant eigenvalue)", clusters.raw, 1.26, atol=0.005)
nh.check_between("two clusters: |cos| of the top eigenvector with the constant vector", clusters.alignment,
                 0, 0.1)
nh.check_close("two clusters: centered r_eff / r_eff (centering changes nothing)",
               clusters.centered / clusters.raw, 1.0, rtol=0.01)
cluster_gram = nh.mlp(1, "erf", sigma_w=1.0).kernel(course.two_clusters(200, seed=0)).ntk
alternating = torch.tensor([(-1.0) ** i for i in range(200)], dtype=torch.float64) / math.sqrt(200)
nh.check_between("two clusters: |cos| of the top eigenvector with (1, −1, 1, −1, …) (0.998)",
                 abs(float(torch.linalg.eigh(cluster_gram)[1][:, -1] @ alternating)), 0.995, 1)

# %%
course.centering_figure({nh._("ReLU NTK,\ninputs + 3"): (offset.raw, offset.centered),
                         nh._("ReLU NTK,\nunshifted inputs"): (plain_mode.raw, plain_mode.centered),
                         nh._("unshifted kernel\n+ c·11ᵀ"): (lifted.raw, lifted.centered),
                         nh._("50-layer ReLU NTK\n(n = 800)"): (deep.raw[-1], deep.centered[-1]),
                         nh._("two antipodal\nclusters, erf NTK"): (clusters.raw, clusters.centered)})
plt.show()

# %% [markdown]
# The last pair of bars: $r_\text{eff} = 1.26$, and centering leaves it at 1.26. Why? The odd kernel makes the two
# clusters almost perfectly anticorrelated. So one eigenvalue dominates along the vector $(1, -1, 1, -1, \dots)$
# ($|\cos| = 0.998$), which is orthogonal to the constant vector, and centering cannot touch it. Here no constant
# mode is to blame.
#
# So a value near 1 means one dominant eigenvalue; when all entries share a large common part (shifted inputs, a
# bias, the deep NNGP, pixels) its eigenvector is nearly the constant vector. Check which case you are in with the
# alignment or by centering.
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
nh.check_close("one hidden ReLU layer on 6 antipodal pairs: only 3 zeros, 4th smallest / largest (0.0297)",
               float(ones_hidden[-4] / ones_hidden[0]), 0.0297, atol=0.0005)

# %% [markdown]
# The first three are singular, each for a reason that holds for every choice of the points (for the second: any
# 6 antipodal pairs in $d = 3$, that is more pairs than dimensions):
#
# - **bias-free erf on $x$ and $-x$**: the network is odd, $f(-x) = -f(x)$ for every value of the weights, so its
#   parameter gradients are odd too and $\Theta(-x, \cdot) = -\Theta(x, \cdot)$: the rows of $x$ and $-x$ are
#   negatives of each other. (The same holds for tanh, and for any odd activation without a bias.)
# - **bias-free ReLU, one hidden layer, on $x$ and $-x$**: its NTK is $c\,x\cdot x'$ plus an even function of
#   $x\cdot x'$ (lesson 06). The reason: $\max(0, u) = u/2 + |u|/2$ is a linear part plus an even part, and only
#   the linear part survives in the odd part of the kernel. The combinations that are odd under $x \to -x$ see
#   only that linear part, whose rank is the dimension $d = 3$: 3 of the 12 eigenvalues are 0.
# - **bias-free ReLU on $x$ and $2x$** (off the sphere): the network is positively homogeneous,
#   $f(2x) = 2f(x)$, so the row of $2x$ is twice the row of $x$.
#
# The fourth, two hidden ReLU layers on the same antipodal pairs, is **not** singular: its smallest eigenvalue is
# 0.020 of the largest (0.007–0.015 for other random points), far above rounding. It is positive definite but
# ill-conditioned. The fifth, erf **with** a bias, is positive definite too.
#
# **What is proved:**
#
# - with a bias and a non-polynomial Lipschitz activation the limiting NTK is positive definite on the sphere
#   (Jacot, Gabriel & Hongler 2018, Prop. 2, whose networks have a bias $\beta > 0$);
# - for one bias-free hidden ReLU layer the Gram matrix is positive definite when no two inputs are parallel or
#   antiparallel (Du, Zhai, Póczos & Singh 2019). Inputs drawn from a continuous distribution in $d \ge 2$
#   dimensions are pairwise neither parallel nor antiparallel with probability 1. (In $d = 1$ any two inputs are
#   parallel or antiparallel, and the Gram matrix has rank at most 2.) This covers the regressions on $S^9$ below, which interpolate;
# - for the other kernels of this lesson we cite no general result. A smooth kernel such as erf's has
#   fast-decaying eigenvalues, so even where its Gram matrix is invertible it can be numerically close to singular.
#
# ### Is its function space dense?
#
# The same parity argument answers a second question: can kernel regression with the NTK learn *every* continuous
# function of the input direction? On the sphere a dot-product kernel is diagonal in spherical harmonics (on the
# circle: in $\cos k\theta$, $\sin k\theta$), with one Mercer coefficient $\mu_k$ per degree $k$. Its function space
# is dense in the continuous functions **if and only if every $\mu_k > 0$**.
#
# The test: fit $\cos 3\theta$ on the circle by ridgeless NTK regression (bias-free ReLU, $\sigma_w^2 = 2$) from $n$
# random angles. We report the test error relative to $\mathbb E\,y^2$: 1 means no better than predicting 0.
#
# **Predict first.** Recall the parity argument above: one bias-free hidden ReLU layer is $c\,x\cdot x'$ plus an
# even function. With one hidden layer, will the relative error ever go below 1 as $n$ grows from 64 to 512? With
# two hidden layers?

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
nh.check_close("one hidden ReLU layer: relative error at n = 64, 256, 512 (3.1, 1.9, 1.7)", np.divide(fits[1],
               [3.14, 1.90, 1.73]), [1.0] * 3, rtol=0.005)
# orthogonality: the error is 1 + E f̂²/E y², with no cross term
fit_norms = [course.circle_fit_norm(nh.mlp(1), 3, n) for n in fit_sizes]
nh.check_close("one hidden ReLU layer: relative error − (1 + E f̂²/E y²), n = 64, 256, 512 (0)",
               np.subtract(fits[1], np.add(1.0, fit_norms)), [0.0] * 3, atol=1e-8)
nh.check_that("two hidden ReLU layers: relative error falls below 1e-5 by n = 512",
              fits[2][-1] < 1e-5 and fits[2][0] > fits[2][1] > fits[2][2], measured=str(fits[2]),
              expected="falling, < 1e-5")
nh.check_between("two hidden ReLU layers: relative error at n = 512 (5 · 10⁻⁷)", fits[2][-1], 4e-7, 7e-7)
erf_even = course.circle_fit(nh.mlp(1, "erf", sigma_w=1.0), 2, 512)
nh.check_close("bias-free erf, cos 2θ at n = 512: relative error (1.08: an odd kernel)", erf_even, 1.08,
               atol=0.01)

# %% [markdown]
# **Answer.** With one hidden layer the error falls (3.1, 1.9, 1.7), but it never goes below 1. The reason is
# orthogonality. One bias-free hidden ReLU layer has $\mu_k = 0$ for every odd $k \ge 3$ (lesson 06), so
# $\mu_3 = 0$. The interpolant $\hat f = \sum_i \alpha_i\,k(\theta_i, \cdot)$ lies in the span of the harmonics with
# $\mu_k > 0$. So it is orthogonal to $\cos 3\theta$, and
#
# $$\frac{\lVert \hat f - y\rVert^2}{\lVert y\rVert^2} = 1 + \frac{\lVert \hat f\rVert^2}{\lVert y\rVert^2} \;\ge\; 1 \quad\text{for every } n.$$
#
# The error falls towards 1 only because the interpolant's wiggles shrink. From two hidden layers on, the odd
# coefficients are positive too (lesson 06; Bietti & Bach 2021, whose $L \ge 3$ counts the output layer), and the error falls to $5\cdot 10^{-7}$. Likewise a bias-free erf network, whose kernel is odd, cannot learn the even $\cos 2\theta$
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
# the expected error never does. A valid bound on the test error must look at the labels, directly or through the
# norm of the fitted function (for the interpolant $y^\top\Theta^{-1}y$, as below); label-free bounds on the
# *gap* over a norm ball $\lVert f\rVert_{\mathcal H} \le B$ exist (Bartlett & Mendelson 2002). Arora, Du, Hu, Li & Wang (2019, Thm 5.1)
# bound the test error of a two-layer ReLU network whose first layer is trained by gradient descent by
# $\sqrt{2\,y^\top(H^\infty)^{-1}y/n} + O\bigl(\sqrt{\log(n/(\lambda_0\delta))/n}\bigr)$, for a 1-Lipschitz loss
# with values in $[0, 1]$; $H^\infty$ is the Gram matrix of the first layer's kernel and $\lambda_0$ its smallest
# eigenvalue. The first term stays large for labels the kernel cannot explain.
#
# The experiment: ridgeless NTK regression (one hidden ReLU layer, $r_\infty = 16.7$) on inputs uniform on $S^9$,
# with the true labels $y = \cos(2x_1)$ and with **random** labels: the same function of a second, independent
# draw of inputs, so they have the same distribution as the true labels but carry no information about $x$.
# $\operatorname{Var}(y)$ is computed exactly by quadrature. Test error on 1000 fresh inputs, with its standard
# error. Ridgeless regression interpolates the training data, so its test error is also its generalization gap.
# The figure draws one candidate bound, $10\sqrt{r_\infty/n}$ ($C = 10$), continued beyond the measured sizes.

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
sizes_long = np.geomspace(50, 20000, 60)
crossing = 100 * r_inf / label_variance ** 2          # where 10 √(r∞/n) = Var(y)
ax.plot(sizes_long, 10 * np.sqrt(r_inf / sizes_long), "k--", label=nh._("a candidate bound 10 √(r∞/n)"))
ax.plot([crossing], [label_variance], "kx", ms=10, mew=2,
        label=nh._("it crosses Var(y) at n ≈ {n:.0f}").format(n=crossing))
ax.axhline(label_variance, color="k", ls=":", label=nh._("Var(y): least error for random labels"))
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xticks([50, 100, 400, 1600, 6400, 20000], ["50", "100", "400", "1600", "6400", "20000"])
ax.set_xlabel(nh._("training set size n"))
ax.set_ylabel(nh._("test mean squared error"))
ax.set_title(nh._("Any bound C √(r∞/n) falls below Var(y) at some n; the random-label error never does\n"
                  "(one bias-free hidden ReLU layer, σ_w² = 2, on S⁹)"))
ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.0, 1.0))
plt.show()
print(nh._("Var(y) = {variance:.3f}; n = 1600: random-label test MSE {random:.3f} ± {se:.3f}, "
           "√(r∞/n) = {bound:.3f}; a bound 10 √(r∞/n) is false beyond n = {n:.0f}").format(
    variance=label_variance, random=rows["random labels"][-1].mse, se=rows["random labels"][-1].se,
    bound=math.sqrt(r_inf / 1600), n=100 * r_inf / label_variance ** 2))
spreads = [r.spread for r in rows["random labels"]]
print(nh._("random labels: spread of the interpolant E(f − E y)² from {low:.2f} to {high:.2f}").format(
    low=min(spreads), high=max(spreads)))

# %% tags=["check"]
random_mse = np.array([r.mse for r in rows["random labels"]])
nh.check_that("random labels: test MSE ≥ Var(y) at every n", bool((random_mse >= label_variance).all()),
              measured=str(np.round(random_mse, 3)), expected=f"≥ {label_variance:.3f}")
nh.check_close("random labels: smallest and largest test MSE over n (0.58, 0.88)",
               [random_mse.min(), random_mse.max()], [0.58, 0.88], atol=0.005)
nh.check_close("Var(y) of cos(2 x₁) on S⁹ (0.496)", label_variance, 0.496, atol=0.0005)
nh.check_close("√(r∞/n) at n = 1600 (0.10)", math.sqrt(r_inf / 1600), 0.102, atol=0.001)
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
# **Explain.** The random-label error is clearly above $\operatorname{Var}(y)$ (0.58–0.88). By the identity above,
# the excess is the spread $\mathbb E(\hat f(x) - \mathbb E y)^2$ of the predictor itself, 0.09–0.32 here. The
# constant predictor $\mathbb E y$ has spread 0 and would do better. Why does ridgeless regression not end up close
# to that constant, when the labels carry no information about $x$? And what would a large ridge $\lambda$ change?
#
# <details><summary>Answer</summary>
#
# Because it interpolates: $\hat f(x_i) = y_i$ at every training input, and these labels scatter around
# $\mathbb E y$ with variance 0.496. A function that passes through $n$ random values cannot be flat between them:
# the interpolant is a combination of kernel functions centred at the training inputs, so the noise it fits there
# reaches the test inputs around them and comes back as the spread. A ridge trades the exact fit for a smaller spread; as $\lambda \to \infty$ the
# predictor $\Theta(x, X)(\Theta + \lambda I)^{-1}y$ tends to 0, with error $\mathbb E y^2 = 0.50$, just above
# $\operatorname{Var}(y)$ because $\mathbb E y = 0.074$. Bartlett, Long, Lugosi & Tsigler (2020) give conditions under
# which the spread of the minimum-norm interpolant vanishes in high dimension ("benign overfitting").
#
# </details>

# %% tags=["check"]
nh.check_that("random labels: the interpolant's spread E(f − E y)² > 0.1 Var(y) at every n",
              all(r.spread > 0.1 * label_variance for r in rows["random labels"]),
              measured=str([round(r.spread, 3) for r in rows["random labels"]]),
              expected=f"> {0.1 * label_variance:.3f}")
# with independent labels (f − y)² − (f − E y)² − Var(y) has mean 0: 3 standard errors of the 1000 test points
excess = np.array([r.excess / r.excess_se for r in rows["random labels"]])
nh.check_close("E y (0.074) and E y² = Var(y) + (E y)² (0.50)",
               [label_mean, label_variance + label_mean ** 2], [0.074, 0.502], atol=0.0005)
nh.check_between("random labels: (test MSE − spread − Var(y)) / its standard error, largest |·|",
                 float(np.abs(excess).max()), 0, 3)

# %% [markdown]
# ## A small value on images (overview §6.3)
#
# Effective ranks near 1 are reported for ResNet NTKs on CIFAR-10. We cannot download CIFAR-10 here, but
# scikit-learn ships 8 × 8 digits, and they show the mechanism: raw pixels are non-negative, so all images share
# a large mean component, and the kernel a large constant mode. The "ResNet" here is lesson 04's residual MLP on
# the 64 flattened pixels, not a convolutional ResNet.

# %%
x_digits, *_ = nh.digits(300, 1, seed=0)
flat = x_digits.flatten(1)
digit_ranks = {}
for name, net in [("MLP NTK", nh.mlp(1)),
                  (nh._("residual MLP NTK (8 blocks, α = 1/√8)"), nh.resnet(8, alpha=8 ** -0.5))]:
    digit_ranks[name] = course.constant_mode(net.kernel(flat).ntk)
    mode = digit_ranks[name]
    print(nh._("{name}: r_eff {raw:.2f}, centered {centered:.1f}; "
               "|cos| of the top eigenvector with the constant vector {alignment:.3f}").format(
        name=name, raw=mode.raw, centered=mode.centered, alignment=mode.alignment))

# %% tags=["check"]
mlp_digits, resnet_digits = digit_ranks.values()
nh.check_close("MLP NTK on 300 digits: r_eff, then centered (2.45, 19.7)",
               [mlp_digits.raw, mlp_digits.centered], [2.45, 19.7], atol=0.05)
nh.check_close("residual MLP NTK on 300 digits: r_eff, then centered (2.26, 18.9)",
               [resnet_digits.raw, resnet_digits.centered], [2.26, 18.9], atol=0.05)
for mode in (mlp_digits, resnet_digits):
    nh.check_between("both kernels on digits: |cos| of the top eigenvector with the constant vector (0.999)",
                     mode.alignment, 0.998, 1)
    nh.check_between("both kernels on digits: centered r_eff / r_eff (eight times)", mode.centered / mode.raw,
                     7.5, 8.7)

# %% [markdown]
# Both raw values are small (2.3–2.5), and the top eigenvector is the constant vector ($|\cos| = 0.999$). A small
# value on images says "the images have a common mean", not "the network learns in a low-dimensional subspace";
# centered, the same kernels have effective ranks near 19–20, eight times higher.
#
# ## Explore
#
# The explorer draws $r_\text{eff}$ against $n$ (solid), after centering (dashed), the heuristic
# $n r_\infty/(n-1+r_\infty)$ (hollow diamonds) and the ceiling $r_\text{eff} = n$ (grey), for an MLP with $\sigma_w = 1.4$
# and the depth, activation and bias you choose. The first line of its title says what the curve does, the second
# gives $r_\infty$ and the values at $n = 400$. (Only activations with closed-form kernels: tanh's quadrature would
# take seconds per move.)
#
# One formula you will need for erf (lesson 02). A bias adds $\sigma_b^2$ to the pre-activation variance $q$ of
# every layer, and $q$ settles at a fixed point $q^*$. The slope of the correlation map at $\rho = 1$ is
# $\chi_1 = \sigma_w^2\,\mathbb E\,\operatorname{erf}'(\sqrt{q^*}z)^2 = \sigma_w^2\cdot\tfrac4\pi/\sqrt{1 + 4q^*}$,
# with $z$ standard normal. $\chi_1 > 1$ is chaos, $\chi_1 < 1$ order.

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_rank, depth=nh.widgets.depth_slider(1, max=50),
                       activation=nh.widgets.activation_dropdown("relu", options=course.EXPLORER_ACTIVATIONS),
                       sigma_b=nh.widgets.sigma_slider(nh._("sigma_b"), 0.0, max=2.0))

# %% [markdown]
# **Predict, then check.**
#
# 1. gelu without bias, depth 1. Move the depth to 50. Will $r_\text{eff}$ at $n = 400$ fall towards 1, like the
#    50-layer NNGP's, or stay well above 1?
#
# <details><summary>Answer</summary>
#
# It falls, but stays well above 1: from 19.2 at depth 1 to 5.09 at depth 50 ($r_\infty$ from 20.2 to 5.14). The
# deep NTK does not collapse to a constant the way the NNGP does: centered, $r_\text{eff}$ is still 197 of 400.
# gelu is not homogeneous, so unlike ReLU's these numbers depend on $\sigma_w$ (here 1.4).
#
# </details>
#
# 2. Back to depth 1, ReLU. Move $\sigma_b$ to 2. The raw $r_\text{eff}$ will drop. Will the centered curve drop
#    with it?
#
# <details><summary>Answer</summary>
#
# It drops by about a third, far less than the raw value. Raw: from 16.0 to 1.94 ($r_\infty$ from 16.7 to 1.95).
# Centered: from 24.0 to 16.5 at $n = 400$. The bias adds $\sigma_b^2$ to the pre-activation covariance of every
# layer. That gives the kernel a large, nearly constant part (the title: $|\cos| = 1.00$ with the constant vector),
# but it also changes the kernel's shape (in the first layer a bias acts like an extra input coordinate, the same
# for every input, which changes the angles between the inputs): a pure constant shift $K + c\,\mathbf 1\mathbf 1^\top$ would leave the
# centered value at 24.0.
#
# </details>
#
# 3. erf without bias: move the depth from 1 to 50. What happens to $r_\text{eff}$? Then, at depth 50, move
#    $\sigma_b$ to 1.
#
# <details><summary>Answer</summary>
#
# At depth 1, $r_\infty = 17.4$ (13.7 in the sweep, at $\sigma_w = 1$: erf's shape depends on $\sigma_w$). At depth
# 50 the title says $r_\text{eff} \approx n$: without a bias, $\sigma_w = 1.4$ puts erf in the chaotic phase
# ($\chi_1 = 1.19 > 1$), the correlations of non-antipodal pairs decay to 0, the off-diagonal entries shrink to a
# root mean square of $9\cdot 10^{-6}$ of the diagonal ($r_\infty = 1.3\cdot 10^{10}$), and
# $r_\text{eff}(400) = 400.0$. With $\sigma_b = 1$ the same depth gives $r_\text{eff} = 1.00$. The correlation
# map always has the fixed point $\rho = 1$. The bias raises the variance to $q^* = 2.19$ (from 0.85), where erf
# is flatter, so $\chi_1 = 1.96\cdot\tfrac4\pi/\sqrt{9.75} = 0.80 < 1$: $\rho = 1$ becomes stable (the ordered phase
# of lesson 02), and the bias removes the fixed point $\rho = 0$. All correlations approach 1, the entries
# approach the diagonal, and one constant mode takes everything.
#
# </details>

# %% tags=["check"]
def at_400(depth, activation, sigma_b):
    curves = course.rank_curves(depth, activation, sigma_b)
    return curves.raw[-1], curves.centered[-1], curves.limit


gelu_plain, gelu_deep = at_400(1, "gelu", 0.0), at_400(50, "gelu", 0.0)
relu_biased, relu_plain = at_400(1, "relu", 2.0), at_400(1, "relu", 0.0)
# each value / the number quoted in the answers (rounded to the digits shown)
nh.check_close("gelu, depth 1: r_eff at n = 400, r∞ / (19.2, 20.2)",
               np.divide(gelu_plain[::2], [19.23, 20.22]), [1.0] * 2, rtol=0.002)
nh.check_close("gelu, depth 50: r_eff at n = 400, centered, r∞ / (5.09, 197, 5.14)",
               np.divide(gelu_deep, [5.09, 197.1, 5.145]), [1.0] * 3, rtol=0.002)
nh.check_close("ReLU, depth 1, σ_b = 2: r_eff at n = 400, centered, r∞ / (1.94, 16.5, 1.946)",
               np.divide(relu_biased, [1.94, 16.5, 1.946]), [1.0] * 3, rtol=0.005)
nh.check_close("ReLU, depth 1, σ_b = 0: r_eff at n = 400, centered, r∞ / (16.0, 24.0, 16.7)",
               np.divide(relu_plain, [16.04, 24.0, 16.7]), [1.0] * 3, rtol=0.005)
nh.check_between("σ_b = 2 changes the shape: centered r_eff with σ_b = 2 / without (not 1)",
                 relu_biased[1] / relu_plain[1], 0.6, 0.8)
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
chaotic_erf = nh.signal_regime("erf", sigma_w=1.4, sigma_b=0.0)
ordered_erf = nh.signal_regime("erf", sigma_w=1.4, sigma_b=1.0)
nh.check_close("erf, σ_w = 1.4, no bias: χ₁ (1.19)", chaotic_erf.chi1, 1.19, atol=0.005)
nh.check_close("erf, σ_w = 1.4, σ_b = 1: q*, χ₁ (2.19, 0.80)", [ordered_erf.q_star, ordered_erf.chi1],
               [2.19, 0.80], atol=0.005)
nh.check_close("erf, σ_w = 1.4, no bias: q* (0.85)", chaotic_erf.q_star, 0.85, atol=0.005)
for regime in (chaotic_erf, ordered_erf):
    nh.check_close("erf, σ_w = 1.4, σ_b = 0 and 1: χ₁ / (σ_w² (4/π) / √(1 + 4q*)) (1)", regime.chi1 / (
        1.4 ** 2 * 4 / math.pi / math.sqrt(1 + 4 * regime.q_star)), 1.0, rtol=1e-9)

# %% [markdown]
# ## The chapter in one table
#
# A reference card for the whole chapter. Each row says what one part of a network does to the kernel, what
# follows for the NTK, and when that stops being true. Each row links the lesson that explains it; symbols such as
# $3e\,q_0$ are defined there and in the notes below the table. Notation: $L$ depth, $m$ width, $\rho$ the correlation of two inputs,
# $[x \parallel x']$ is 1 for parallel inputs ($x' = ax$, $a > 0$) and 0 otherwise, "normalized" means divided by
# $\sqrt{\Theta(x,x)\Theta(x',x')}$.
#
# | topic | mechanism | so what | fails when |
# |---|---|---|---|
# | [MLP depth](02_mlp_recursion.ipynb#4.1.2-Kernel-collapse:-what-depth-does) | each layer applies the correlation map to ρ | L → ∞: NNGP → constant, normalized NTK → ¼ + ¾·[x ∥ x′] | not bias-free ReLU (next row); converges slowly in L |
# | [MLP phase](02_mlp_recursion.ipynb) | σ_w, σ_b set the map's slope χ₁ at ρ = 1 | χ₁ < 1 (ordered): correlations → 1, r_eff → 1 with depth | χ₁ > 1 (chaos): correlations settle below 1; χ₁ = 1: slow |
# | [CNN](03_cnn.ipynb#Invariance-needs-pooling) | shared filters: one kernel for each pair of patch positions | global average pooling: shift-invariant kernel | flatten readout, no pooling; or padding not circular |
# | [ResNet](04_resnet.ipynb#4.3.2-How-the-NTK-grows-with-depth) | skip passes the kernel on; branch adds α² times its map | α = 1/√L: Θ(x,x) → 3e·q₀ as L → ∞ | α = 1: Θ(x,x) grows like L·2^L, kernel collapses |
# | [Layer norm](05a_normalization.ipynb#4.4.1-Layer-norm:-a-kernel-map) | divides the pre-activation kernel by its diagonal | Θ depends on x only through x/‖x‖ | a layer before it is not homogeneous (bias, erf, …) |
# | [Parameterization](05b_parameterization.ipynb#Measured:-lazy-training-vs-feature-learning-over-many-steps) | how weights and learning rates scale with m | kernel frozen as m → ∞, e.g. NTK parameterization | μP, or finite m: the kernel moves |
# | [ReLU spectrum](06_activations.ipynb#4.5.2-Eigen-decay-on-the-circle) | the kink of φ sets a slow Mercer decay | μ_k ~ k^(−d) on S^(d−1): all k (2+ layers or bias) | one bias-free layer: μ_k = 0 for odd k ≥ 3 |
# | [erf spectrum](06_activations.ipynb#4.5.2-Eigen-decay-on-the-circle) | smooth odd φ: fast Mercer decay | bias-free: odd k only; near-geometric on the circle, exponential up to polynomial factors on S^(d−1), d > 2 | with a bias: the even k appear too |
# | [Training dynamics](07_training_dynamics.ipynb#2.-Lazy-training,-measured) | gradient descent on the linearized network | m → ∞, stable learning rate: kernel regression with Θ | not squared loss; not trained to convergence; f₀ ≠ 0 (notes) |
# | [Effective rank](#r-infinity-law) (a diagnostic) | participation ratio of the spectrum | r_eff → r∞, label-blind; ≈ 1: one eigenvalue dominates | m_off = 0: r_eff/n → m₁²/m₂ (= 1 for a constant diagonal); ≈ 1 without a constant mode |
#
# Notes on three rows. *Training dynamics*: the NTK stays constant during training in the limit of infinite width,
# e.g. in the NTK parameterization (or the standard one with a learning rate of order $1/m$), with a learning rate
# below the stability threshold, over a finite training time (gradient flow: Jacot, Gabriel & Hongler 2018), or
# uniformly in time for gradient descent when the NTK's smallest eigenvalue is positive (Lee et al. 2019). The
# trained network is then kernel regression with $\Theta$ only for the squared loss, trained to convergence
# ($\lambda_\min > 0$), and with $f_0 = 0$ or averaged over the initialization; otherwise Lee et al. add
# $f_0(x) - \Theta(x, X)\Theta^{-1}f_0(X)$. Under μP the kernel moves by $O(1)$ at every width. *ResNet*:
# $3e\,q_0$ is the limit for ReLU without bias, $\sigma_w^2 = 2$, an input dense layer and a linear readout
# (lesson 04; 0.3 % lower at $L = 256$); with $\alpha = 1$ the same network has $\Theta(x, x) = q_0\,2^L(2 + L/2)$.
# *erf*: on the circle $\mu_{k+2}/\mu_k$ is about 0.14 at $k \approx 25$ and still creeping up.

# %% tags=["check"]
one_input = nh.sphere(1, 3, seed=0)                  # x·x/d = 1, so q₀ = σ_w² = 2
q0 = 2.0
nh.check_close("ResNet row: α = 1, L = 6: Θ(x, x) / (q₀ 2^L (2 + L/2))",
               float(nh.resnet(6, alpha=1.0).kernel(one_input).ntk[0, 0]) / (q0 * 2 ** 6 * (2 + 6 / 2)), 1.0,
               rtol=1e-12)
# the O(1/L) correction at L = 256 is 0.3 %
nh.check_close("ResNet row: α = 1/√L, L = 256: Θ(x, x) / (3e q₀) (0.3 % lower: 0.9968)",
               float(nh.resnet(256, alpha=1 / 16).kernel(one_input).ntk[0, 0]) / (3 * math.e * q0), 0.9968,
               atol=5e-4)
_, on_circle = nh.circle(2048)
spectra = {name: (torch.fft.rfft(net.kernel(on_circle[:1], on_circle).ntk[0]).real / 2048).numpy()
           for name, net in [("relu", nh.mlp(1)), ("erf", nh.mlp(1, "erf", sigma_w=1.0))]}
even = np.arange(20, 200, 2)
nh.check_close("ReLU spectrum row: one layer, log-log slope of μ_k on even k (−d = −2 on the circle)",
               np.polyfit(np.log(even), np.log(spectra["relu"][even]), 1)[0], -2.0, atol=0.05)
erf_ratio = spectra["erf"][np.arange(23, 32, 2)] / spectra["erf"][np.arange(21, 30, 2)]
nh.check_between("erf spectrum row: bias-free, μ_(k+2)/μ_k at odd k = 21 … 29, nearly constant",
                 float(erf_ratio.max() - erf_ratio.min()), 0, 0.01)
nh.check_close("erf spectrum row: μ_(k+2)/μ_k at k = 25 (0.14)", erf_ratio[2], 0.14, atol=0.002)
nh.check_close("erf spectrum row: bias-free, even μ_k / μ_1 (0: odd k only)",
               spectra["erf"][2:40:2] / spectra["erf"][1], np.zeros(19), atol=1e-12)
biased_net = nh.mlp(1, "erf", sigma_w=1.0, sigma_b=0.5)
biased_erf = (torch.fft.rfft(biased_net.kernel(on_circle[:1], on_circle).ntk[0]).real / 2048).numpy()
nh.check_between("erf spectrum row: with σ_b = 0.5, smallest even μ_k / μ_1 at k = 0 … 10 (> 0)",
                 float((biased_erf[0:11:2] / biased_erf[1]).min()), 1e-9, 10)
two_relu = (torch.fft.rfft(nh.mlp(2).kernel(on_circle[:1], on_circle).ntk[0]).real / 2048).numpy()
nh.check_close("ReLU spectrum row: one bias-free layer, odd μ_k / μ_1 at k = 3 … 39 (0)",
               spectra["relu"][3:40:2] / spectra["relu"][1], np.zeros(19), atol=1e-9)
nh.check_between("ReLU spectrum row: two bias-free layers, smallest odd μ_k / μ_1 at k = 3 … 39 (> 0)",
                 float((two_relu[3:40:2] / two_relu[1]).min()), 1e-7, 1)

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
# 2. Normalize the one-hidden-layer ReLU NTK on $S^9$ so that $k(x,x) = 1$. Then $r_\infty = 16.7$, and the mean
#    off-diagonal entry is $\mathbb E\,k(x,x') = 0.18$. Predict $r_\infty$ of the kernel $k + 1$ (1 added to every
#    entry) without computing any matrix.
#
# <details><summary>Answer</summary>
#
# $m_1 = 1 + 1 = 2$ and $m_\text{off} = \mathbb E\,(k(x,x') + 1)^2 = 1/16.7 + 2 \cdot 0.18 + 1 = 1.42$, so
# $r_\infty = 4/1.42 = 2.8$. Only the mean *square* of the new off-diagonal entries counts; the added constant
# dominates it, and the mean of the old entries enters through the cross term. Centering removes the constant
# again, $H(K + \mathbf 1\mathbf 1^\top)H = HKH$, and gives back the centered value of $K$.
#
# </details>
#
# 3. On $S^9$ (radius $\sqrt{10}$) take the linear kernel $k(x,x') = x\cdot x'/10$ and the quadratic kernel
#    $k(x,x') = (x\cdot x'/10)^2$. The cosine $t$ of the angle between two independent uniform directions in $d$
#    dimensions has $\mathbb E\,t^2 = 1/d$ and $\mathbb E\,t^4 = 3/(d(d+2))$. Predict $r_\infty$ of each kernel and
#    compare it with its number of features (10 coordinates $x_i$; 55 products $x_ix_j$, $i \le j$).
#
# <details><summary>Answer</summary>
#
# Both have $k(x,x) = 1$, so $r_\infty = 1/\mathbb E\,k(x,x')^2$. Linear: $\mathbb E\,t^2 = 1/10$, so
# $r_\infty = 10$, exactly its number of features: $r_\text{eff}$ counts dimensions only when the nonzero
# Mercer eigenvalues are equal, as here. Quadratic: $\mathbb E\,t^4 = 3/120$, so $r_\infty = 40$, fewer than 55. On the
# sphere $\sum_i x_i^2 = 10$, so one combination of the products is the constant function. It takes
# $\mathbb E\,t^2 = 0.1$ of the trace; the other 54 directions (degree-2 spherical harmonics) share the remaining
# 0.9 equally, and $1/(0.1^2 + 54\cdot(0.9/54)^2) = 40$. Unequal eigenvalues count for less than one each.
# Measured at $n = 800$: 9.92 and 38.2, where the heuristic gives 9.89 and 38.1.
#
# </details>
#
# 4. Why can no bound of the form $C\sqrt{r_\infty/n}$ on the test error hold, for any $C$?
#
# <details><summary>Answer</summary>
#
# $r_\infty$ depends on the kernel and the input distribution only. With labels independent of the inputs, every
# predictor has an expected test error of at least $\operatorname{Var}(y)$, while $C\sqrt{r_\infty/n} \to 0$: the
# bound is false for $n > C^2 r_\infty/\operatorname{Var}(y)^2$. A valid bound on the test error must depend on the
# labels, directly or through the norm of the fitted function.
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
# $3x$ is three times that of $x$. (c) Not singular here (numerically): for the 6 points of this lesson and their
# triples, $\lambda_\min/\lambda_\max = 0.0027$, small but far above rounding. The bias breaks the homogeneity
# argument of (b); that alone proves nothing for other points.
#
# </details>

# %% tags=["check"]
a, b, size = 0.75, 0.25, 400
K_question = a * torch.eye(size, dtype=torch.float64) + b
nh.check_close("question 1: r_eff of ¾I + ¼11ᵀ, n = 400, against the formula", nh.effective_rank(K_question),
               size ** 2 * (a + b) ** 2 / ((a + size * b) ** 2 + (size - 1) * a ** 2), rtol=1e-12)
relu_arch = nh.mlp(1)
nodes, weights = course.angle_distribution(10)
profile = course.dot_product_profile(relu_arch, nodes, 10)
profile = profile / course.dot_product_profile(relu_arch, torch.ones(1), 10)
mean_entry, r_relu = float(weights @ profile), nh.effective_rank_limit(relu_arch, 10)
predicted_r = 4 / (1 / r_relu + 2 * mean_entry + 1)
nh.check_close("question 2: mean normalized off-diagonal entry of the ReLU NTK on S⁹ (0.18)", mean_entry,
               0.18, atol=0.005)
nh.check_close("question 2: predicted r∞ of k + 1 (2.8)", predicted_r, 2.8, atol=0.01)
lifted_gram = relu_arch.kernel(nh.sphere(800, 10, seed=800)).ntk
lifted_gram = lifted_gram / lifted_gram.diagonal().mean() + 1
nh.check_close("question 2: measured r_eff of k + 1 at n = 800 / the law with the predicted r∞",
               nh.effective_rank(lifted_gram) / nh.effective_rank_finite(predicted_r, 800), 1.0, rtol=0.02)
on_s9 = nh.sphere(800, 10, seed=800)
cosine_gram = on_s9 @ on_s9.T / 10
second, fourth = float(weights @ nodes ** 2), float(weights @ nodes ** 4)
nh.check_close("question 3: E t², E t⁴ on S⁹ by quadrature (1/10, 3/120)", [second, fourth], [0.1, 0.025],
               rtol=1e-9)
for power, limit, quoted, digit in [(1, 10.0, 9.92, 0.005), (2, 40.0, 38.2, 0.05)]:
    measured_rank = nh.effective_rank(cosine_gram ** power)
    nh.check_close("question 3: r_eff of (x·x′/10)^p at n = 800, p = 1 and 2 (9.92, 38.2)", measured_rank,
                   quoted, atol=digit)
    nh.check_close("question 3: r_eff of (x·x′/10)^p at n = 800 / the law with r∞ = 10 (p = 1), 40 (p = 2)",
                   measured_rank / nh.effective_rank_finite(limit, 800), 1.0, rtol=0.02)
quadratic_top = nh.eigenvalues(cosine_gram ** 2)
nh.check_close("question 3: quadratic kernel, top eigenvalue / trace (the constant's share 0.1)",
               float(quadratic_top[0] / quadratic_top.sum()), 0.1, atol=0.01)
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
#   inputs drawn from a distribution it tends to $r_\infty = m_1^2/m_\text{off}$ for **every** kernel with finite
#   second moments and $m_\text{off} > 0$. With a constant diagonal the finite-$n$ value follows the heuristic
#   $n r_\infty/(n-1+r_\infty)$ to a few percent.
# - $r_\infty$ does not depend on $n$. It depends on the mean **square** of the off-diagonal entries and grows
#   without bound when they vanish, while $r_\text{eff}(n) \le n$.
# - Values near 1 mean one dominant eigenvalue. With a large common part (shifted inputs, a large bias, the deep
#   NNGP) its eigenvector is nearly the constant vector and centering removes it; raw pixels give small values (2.3–2.5
#   on digits) the same way. A full-rank matrix can have $r_\text{eff} \approx 1$.
# - Distinct inputs do not guarantee a full-rank NTK Gram matrix (bias-free odd activations on $\pm x$, bias-free
#   ReLU on $x, 2x$ or, with one hidden layer, on more than $d$ antipodal pairs in $d$ dimensions); nor does every NTK have a dense function space
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
# change only by a constant (section "Near 1 means one dominant eigenvalue"). [errata B13](../ERRATA.md#b13)
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
# the limiting NTK is positive definite on the sphere (Jacot et al. 2018, Prop. 2); for one bias-free hidden ReLU
# layer the Gram matrix is positive definite when no two inputs are parallel or antiparallel (Du et al. 2019),
# which holds with
# probability 1 for inputs drawn from a continuous distribution in $d \ge 2$. Then ridgeless regression uses all
# $n$ directions. Without a bias, distinct inputs can give a singular Gram matrix: bias-free erf or tanh on $\{x, -x\}$;
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
# beats $\operatorname{Var}(y)$, whatever $n$; so no such bound holds for any constant. Valid bounds on the test
# error depend on the labels, directly or through the norm of the fitted function, e.g. the bound of Arora, Du, Hu, Li & Wang (2019), built on $y^\top(H^\infty)^{-1}y$ (section "The bound
# fails"). [errata B19](../ERRATA.md#b19)
#
# </details>
#
# <details><summary>Overview §6.3: ResNets on CIFAR-10 with r_eff ≈ 1 (errata B29)</summary>
#
# **The text says:** ResNets on CIFAR-10 have $r_\text{eff} \approx 1.0$–1.3, as theory predicts.
#
# **What is true:** the numbers are quoted from the preprint and were not reproduced; they were measured at widths
# 16–32, far from the infinite-width limit. A small value on raw images reflects their common mean: on
# scikit-learn's digits the NTK of a residual MLP on the flattened pixels has $r_\text{eff} = 2.3$, its top
# eigenvector is the constant vector, and centered it is 18.9 (section "A small value on images").
# [errata B29](../ERRATA.md#b29)
#
# </details>
#
# <details><summary>Overview §5: NTK-ECRN, "every eigenvalue converges to 0 or 1" (errata B20, B22)</summary>
#
# **The text says:** an "NTK-ECRN" architecture makes every NTK eigenvalue converge to 0 or 1, from
# $d\lambda/dt \le C\lambda(1 - \lambda)$.
#
# **What is true:** this comes from an unreviewed preprint (arXiv:2512.08264) and is not established. In the kernel
# regime (infinite width, e.g. in the NTK parameterization, a learning rate below the stability threshold, finite training time
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
# threshold of the linearized model. Recent accounts of grokking describe a transition from lazy to
# feature-learning dynamics (Kumar et al. 2024; Lyu et al. 2024), beyond the NTK. The frequency principle (spectral
# bias) was observed in experiments (Rahaman et al. 2019; Xu et al. 2019); in the kernel regime it is proved (Basri
# et al. 2019; Cao et al. 2019): mode $k$ is learned at a rate proportional to $\mu_k$ (lesson 06). [errata B35](../ERRATA.md#b35), [B37](../ERRATA.md#b37),
# [B38](../ERRATA.md#b38)
#
# </details>
#
# **Exercise:** 4.7 (kernel collapse and effective rank of a 50-layer MLP).
#
# **Next:** [00 · Start here](00_start_here.ipynb)
