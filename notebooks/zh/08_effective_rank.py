# %% [markdown]
# # 08 · 有效秩：它能告诉你什么，又不能告诉你什么
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/08_effective_rank.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F08_effective_rank.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../08_effective_rank.ipynb)）
#
# *NTK 综述第 4 节，以及本章的总结表。*
#
# **本课内容**
# - 核矩阵的有效秩 $r_\text{eff}(K) = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$ 数的是什么，以及为什么随着独立抽取的输入个数
#   增大，它对**每一个**二阶矩有限、非对角元素的均方不为 0 的核都趋于一个常数 $r_\infty$；
# - $r_\infty$ 取决于什么（非对角元素的均*方*），以及为什么接近 1 的值意味着“一个特征值占主导”（常常、但并不总是沿常数向量）；
# - 不同输入的 NTK Gram 矩阵何时奇异，它的函数空间何时稠密；
# - 为什么形如 $O(\sqrt{r_\infty/n})$ 的上界不可能约束泛化误差；
# - 用一张表概括全章：结构 → 机制 → 意味着什么 → 何时失效。
#
# **预备知识：** 第 01–02 课（NTK、NNGP（即网络在初始化时输出的核）及它们的递归）、第 07 课（用 NTK 做核回归）；一些线性代数（特征值、迹、Frobenius 范数）。

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
# ## 一图看懂核心思想
#
# 有效秩数的是核矩阵的迹由多少个特征值分担：所有特征值相等时为 $n$，一个特征值包揽一切时为 1。它是核与输入的性质，
# 看不见标签；只要核里有一个很大的常数成分，就足以把它压到 1 左右。

# %%
course.idea_figure()
plt.show()

# %% [markdown]
# 两幅图都是单个无偏置 ReLU 隐藏层（$\sigma_w^2 = 2$）的 NTK，作用在 $d = 10$ 维中同样的 200 个随机方向上。右图把每个输入的
# 每个坐标都加了 3。所有输入现在都有一个很大的公共部分。这一平移给核带来一个很大的常数部分，同时也改变了输入之间的夹角
# （见“接近 1 意味着一个特征值占主导”一节）。现在一个特征值占去了迹的 86 %。但核能拟合的函数并没有变成一维的；本课会把
# 这一点讲清楚。
#
# **左图的阶梯。** 一个特征值占迹的 19 %（沿常数向量）。接着约十个各占 3–7 %，然后份额降到 1 %。为什么？在球面上，核的
# 特征函数是球谐函数。第一级是 0 次：一个函数，即常数。接下来的十个是 1 次：$d = 10$ 个线性函数 $x_j$。
#
# 这十个为什么不相等？Gram 矩阵的 1 次部分是 $c\,XX^\top/d$（某个 $c > 0$），其中 $X$ 的各行是输入。Gram 矩阵的第 2–11 个特征值
# 接近这一部分的非零特征值（其他次数的部分会使它们略有偏移），而这些非零特征值等于 $d \times d$ 矩阵 $c\,X^\top X/d$ 的特征值，而这个矩阵是输入的样本协方差 $X^\top X/n$ 的 $cn/d$ 倍（真实协方差为 $I$）。
# 10 维空间中 200 个随机点的样本协方差，其特征值大致分布在 $(1 \pm \sqrt{10/200})^2$ 的范围内，即 0.6 到 1.5。

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
# ## 有效秩（综述 §4.1）
#
# 对特征值为 $\lambda_i \ge 0$ 的对称半正定矩阵 $K$，
#
# $$r_\text{eff}(K) = \frac{\operatorname{tr}(K)^2}{\lVert K\rVert_F^2} = \frac{(\sum_i\lambda_i)^2}{\sum_i\lambda_i^2},$$
#
# 即谱的*参与比*（participation ratio）：单位矩阵的倍数为 $n$，秩一矩阵为 1，并且总在 1 与 $n$ 之间。它不是秩：
# 满秩 $n$ 的矩阵，$r_\text{eff}$ 也可以接近 1。

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
# ## $r_\infty$ 定律（综述 §4.2）
# <a id="r-infinity-law"></a>
#
# 从某个分布中独立地抽取 $n$ 个输入，令 $K_{ij} = k(x_i, x_j)$。对从该分布独立抽取的输入 $x, x'$，记
#
# - $m_1 = \mathbb E\,k(x,x)$，即对角元的均值，以及 $m_2 = \mathbb E\,k(x,x)^2$；
# - $m_\text{off} = \mathbb E\,k(x,x')^2$，即非对角元素的均**方**。
#
# 于是 $\mathbb E\operatorname{tr}K = n m_1$，$\mathbb E\lVert K\rVert_F^2 = n m_2 + n(n-1)\,m_\text{off}$。由大数定律，
# $\operatorname{tr}K/n \to m_1$，$\lVert K\rVert_F^2/n^2 \to m_\text{off}$。所以只要 $m_\text{off} > 0$：
#
# $$\boxed{\,r_\text{eff} \;\to\; r_\infty = \frac{m_1^2}{m_\text{off}}\,}$$
#
# **有限 $n$ 时**（一个启发式公式）。对角元为常数时（$m_2 = m_1^2$，例如在球面上），这两个期望之比为
# $n^2m_1^2/(n m_1^2 + n(n-1)m_\text{off}) = n r_\infty/(n - 1 + r_\infty)$。它是期望之比，而不是比值的期望。所以有限样本
# 只在几个百分点以内服从它，而且只在对角元为常数时如此。下文称它为“有限 $n$ 的启发式公式”。
#
# 这对**每一个**二阶矩有限的核都成立，并非 NTK 特有。$r_\infty$ 也是核*算子*的
# 参与比：对它的 Mercer 特征值 $\mu_i$（按重数计），$m_1 = \sum_i\mu_i$，$m_\text{off} = \sum_i\mu_i^2$。

# %% [markdown]
# **实验的设置：**
#
# - 输入在球面 $S^9$ 上均匀分布（$d = 10$，半径 $\sqrt{10}$）；网络都没有偏置；
# - **深度** $L$ 始终指隐藏层的个数；线性读出层不计在内；
# - ReLU 网络取 $\sigma_w^2 = 2$，erf 网络取 $\sigma_w = 1$。`nh.mlp` 对每一层（包括读出层）使用同一个 $\sigma_w$。无偏置 ReLU
#   核的形状不依赖于 $\sigma_w$（$\sigma_w$ 只是缩放它）；erf 核的形状则依赖于它。每幅图的标题都写明它的 $\sigma_w$；
# - $r_\infty$ 由数值积分求得（`nh.effective_rank_limit`）。在球面上，无偏置的核只依赖于夹角的余弦 $t = x\cdot x'/d$，
#   $k(x,x') = k(t)$。两个独立均匀方向的余弦在 $[-1, 1]$ 上的密度为 $p_d(t) \propto (1 - t^2)^{(d-3)/2}$。于是
#
#   $$r_\infty = \frac{k(1)^2}{\int_{-1}^{1} k(t)^2\,p_d(t)\,dt};$$
#
# - 平移后的输入（每个坐标 $+3$）不在球面上：对它们我们只做测量。

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
# 这组扫描中的无偏置 NTK 分别趋于 $r_\infty$ = 16.7（单隐藏层 ReLU）、12.0（50 个隐藏层）和 13.7（erf，单隐藏层）。
# 有限 $n$ 的点与启发式公式 $n r_\infty/(n-1+r_\infty)$ 的偏差在 3 % 以内。有两条曲线贴近 1：50 层 ReLU 网络的 NNGP（它已退化成
# 几乎为常数的核，第 02 课），以及平移后的输入。这些数值属于这些核、这个球面：加上偏置、换一种输入或换一个深度，数值就
# 不同（见课末的交互探索）。
#
# **解释一下。** 50 层的 NTK 的 $r_\infty$ 比单层的*更小*。第 02 课说，随着深度增加，归一化的无偏置 ReLU NTK 在不同输入上
# 趋于 $\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$。这个极限的 $r_\infty$ 是多少？$r_\infty$ 会随深度一直减小吗？
#
# <details><summary>答案</summary>
#
# 对 $K = \tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$，$m_1 = 1$，$m_\text{off} = \tfrac1{16}$，所以
# $r_\infty = 16$。这个极限趋近得很慢：深度 50 时非对角元素的均方根仍是对角元的 $1/\sqrt{12.05} = 0.29$，
# 大于 $\tfrac14$，于是这里测得 12.0。所以 $r_\infty$ 并不一直减小：它从深度 1 的 16.7 降到深度 8–10 处的最小值约 9.5，
# 然后缓慢地回升，趋向 16（深度 400 时为 15.1）。
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
# ### 当非对角元素消失时
#
# 定律为什么用非对角元素的均**方**，而不用它们的均值？一族非对角元素均值始终为 0 的核可以显示两者的差别。
#
# 这一族核：无偏置 erf 网络的 NTK，取 $\sigma_w = 2$（注意：不是扫描中的 $\sigma_w = 1$），深度从 1 到 16。erf 是奇函数，所以
# 没有偏置时核也是奇的：$k(x, -x') = -k(x, x')$。在球面上 $x'$ 与 $-x'$ 出现的可能性相同，所以非对角元素的均值在**每个**
# 深度上都恰好为 0。
#
# 网络所处的位置：$\sigma_w = 2$ 位于第 02 课的混沌相（$\chi_1 > 1$）。对无偏置 erf，这恰好发生在
# $\sigma_w > \sqrt\pi/2 \approx 0.89$ 时。原因：$\operatorname{erf}'(0) = 2/\sqrt\pi$，所以方差 $q$ 很小时，一层把
# $q \mapsto \sigma_w^2\cdot\tfrac4\pi\,q$。当 $\sigma_w^2 < \pi/4$ 时不动点 $q = 0$ 是稳定的；这时信号随深度消失。高于这个值时，
# 方差稳定在某个 $q^* > 0$。
#
# **先预测一下。** 如果 $r_\infty$ 由非对角元素的*均值*（相对于对角元）决定，那么它在每个深度上都会一样。会这样吗？

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
# 不会。深度 1 时非对角元素的均值为 0，但 $r_\infty$ 只有 24.7。非对角元素并不小；它们只是平均起来相互抵消。其均方根为
# 对角元的 $1/\sqrt{r_\infty} = 0.20$。
#
# 深度为什么会改变这一点？在混沌相中，两个不同且不对径的输入的相关系数随深度衰减到 0（$-1$ 保持为 $-1$：网络是奇的）。
# 于是非对角元素的均方根下降，$r_\infty$ 在深度 16 时冲到 $4\cdot 10^7$。每个有限的 $r_\text{eff}(n)$ 都爬升到它的上限 $n$。
# $r_\infty$ 本身与 $n$ 无关；只有有限的 $r_\text{eff}(n)$ 以 $n$ 为上限。
#
# ## 接近 1 意味着“一个特征值占主导”
#
# 为什么平移后的输入和深层 NNGP 都接近 1？看看平移后输入的谱的顶端，再把核中心化：
# $HKH$（其中 $H = I - \mathbf 1\mathbf 1^\top/n$）去掉了常数方向。

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
# 一个沿常数向量的特征值是下一个的 50 倍。中心化去掉它之后，有效秩从 1.36 跳到 15.5。未平移的核也有一个常数模态，只是小一些（在第一幅图中占迹的
# 19 %）：中心化后它达到 22.8，而不是 15.5。所以平移输入**不是**给核加上一个常数：它改变了输入之间的夹角，从而改变了
# 核的形状。纯粹的常数才给出干净的情形：$K + c\,\mathbf 1\mathbf 1^\top$（$c$ 取对角元均值的十倍）的
# $r_\text{eff} = 1.17$，而中心化恰好还原出 $K$ 本身的 22.8，因为 $H\mathbf 1 = 0$。
#
# 50 层的 NTK 正在趋向它的深度极限 $\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$（归一化后；深度 50 时离它还有一段距离）：一个
# 常数部分加上一个与单位矩阵成正比的部分。中心化只留下与单位矩阵成正比的部分，$H(\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top)H = \tfrac34 H$，而 $H$
# 有 $n - 1$ 个相等的特征值，所以这个极限中心化后的有效秩为 $n - 1$。实测：原始值 11.9，中心化后 765（共 800）。因此
# $r_\text{eff}$ 小只说明有一个特征值很大，并不说明模型的自由度少：给核加上一个常数 $c$，随着 $c$ 增大 $r_\text{eff}$
# 趋于 1，而它能拟合的函数只多了一个常数。
#
# 占主导的特征向量总是常数向量吗？第二个例子：200 个输入分成两个对径的簇，交替取 $+\sqrt{10}\,e_1$ 和 $-\sqrt{10}\,e_1$，
# 各自加上每个坐标标准差为 0.3 的高斯噪声。核是无偏置 erf 的 NTK（$\sigma_w = 1$），它是奇的：$k(x, -x') = -k(x, x')$。
#
# **先预测一下。** 对平移后的输入，中心化把 $r_\text{eff}$ 从 1.36 抬高到 15.5。在这里它会怎样？

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
# 最后一对柱子：$r_\text{eff} = 1.26$，中心化后仍是 1.26。为什么？奇核使两个簇几乎完全反相关。于是一个特征值沿向量
# $(1, -1, 1, -1, \dots)$ 占主导（$|\cos| = 0.998$），这个向量与常数向量正交，中心化碰不到它。这里与常数模态无关。
#
# 所以接近 1 的值意味着一个特征值占主导；当所有元素都有一个
# 很大的公共部分时（平移的输入、偏置、深层 NNGP、像素），它的特征向量接近常数向量。要判断属于哪种情形，看它与常数向量的
# 夹角余弦，或者做中心化。
#
# ## 不同输入的 Gram 矩阵一定满秩吗？
#
# 有效秩接近 1 并不意味着秩低。可是，$n$ 个不同输入的 NTK Gram 矩阵是否总是满秩 $n$，从而无岭回归能拟合任意标签？
# 下面是 12 个不同输入上的五个 Gram 矩阵：球面 $S^2$ 上的 6 个随机点及其对径点 $-x$，或者（不在球面上）这 6 个点及其
# 二倍 $2x$。我们打印 $\lambda_\min/\lambda_\max$。特征值为 0 之处，舍入误差会留下约 $10^{-16}$ 的值，正负都有可能；这种低于
# $10^{-13}$ 的值我们打印为 0。

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
# 前三个是奇异的，而且原因对任意选取的点都成立（对第二个而言：$d = 3$ 中任意 6 对对径点，即点对数多于维数）：
#
# - **无偏置 erf，在 $x$ 与 $-x$ 上**：网络是奇函数，对权重的任何取值都有 $f(-x) = -f(x)$，所以它对参数的梯度也是奇的，
#   $\Theta(-x, \cdot) = -\Theta(x, \cdot)$：$x$ 与 $-x$ 的两行互为相反数。（tanh 以及任何无偏置的奇激活函数都一样。）
# - **无偏置 ReLU、单隐藏层，在 $x$ 与 $-x$ 上**：它的 NTK 是 $c\,x\cdot x'$ 加上 $x\cdot x'$ 的一个偶函数（第 06 课）。
#   原因：$\max(0, u) = u/2 + |u|/2$ 是一个线性部分加一个偶部分，核的奇部分里只留下线性部分。在 $x \to -x$ 下为奇的组合
#   只看到这个线性部分，其秩等于维数 $d = 3$：12 个特征值中有 3 个为 0。
# - **无偏置 ReLU，在 $x$ 与 $2x$ 上**（不在球面上）：网络是正齐次的，
#   $f(2x) = 2f(x)$，所以 $2x$ 的那一行是 $x$ 那一行的两倍。
#
# 第四个，在同样的对径点对上的两隐藏层 ReLU，**不**奇异：它的最小特征值是最大特征值的 0.020（换其他随机点为
# 0.007–0.015），远高于舍入误差。它是正定的，只是病态。第五个，**带**偏置的 erf，也是正定的。
#
# **已被证明的结果：**
#
# - 有偏置且激活函数为非多项式的 Lipschitz 函数时，极限 NTK 在球面上正定（Jacot, Gabriel & Hongler 2018，命题 2，
#   其网络带有偏置 $\beta > 0$）；
# - 对单个无偏置 ReLU 隐藏层，只要任意两个输入都不平行也不反向平行，Gram 矩阵就正定（Du, Zhai, Póczos & Singh 2019）。
#   在 $d \ge 2$ 维中从连续分布抽取的输入以概率 1 两两既不平行也不反向平行。（在 $d = 1$ 中任意两个输入都平行或反向平行，
#   Gram 矩阵的秩至多为 2。）这涵盖了下面在 $S^9$ 上的回归，它们都能插值；
# - 对本课的其他核，我们不引用一般性的结果。像 erf 这样光滑的核，特征值衰减得很快，所以即使 Gram 矩阵可逆，
#   在数值上也可能接近奇异。
#
# ### 它的函数空间稠密吗？
#
# 同样的奇偶性论证还回答了第二个问题：用 NTK 做核回归，能否学会输入方向的*每一个*连续函数？在球面上，点积核在球谐函数下
# 是对角的（在圆周上：在 $\cos k\theta$、$\sin k\theta$ 下），每个次数 $k$ 有一个 Mercer 系数 $\mu_k$。它的函数空间在连续函数
# 中稠密，**当且仅当每个 $\mu_k > 0$**。
#
# 检验：在圆周上用 $n$ 个随机角度做无岭 NTK 回归（无偏置 ReLU，$\sigma_w^2 = 2$）来拟合 $\cos 3\theta$。我们报告相对于
# $\mathbb E\,y^2$ 的测试误差：1 表示不比预测 0 更好。
#
# **先预测一下。** 回想上面的奇偶性论证：单个无偏置 ReLU 隐藏层的核是 $c\,x\cdot x'$ 加上一个偶函数。单隐藏层时，$n$ 从 64
# 增加到 512，相对误差会不会降到 1 以下？两个隐藏层呢？

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
# **答案。** 单隐藏层时误差在下降（3.1、1.9、1.7），但永远降不到 1 以下。原因是正交性。单个无偏置 ReLU 隐藏层对每个
# 奇数 $k \ge 3$ 都有 $\mu_k = 0$（第 06 课），所以 $\mu_3 = 0$。插值函数 $\hat f = \sum_i \alpha_i\,k(\theta_i, \cdot)$ 位于
# $\mu_k > 0$ 的那些谐波张成的空间里。所以它与 $\cos 3\theta$ 正交，于是
#
# $$\frac{\lVert \hat f - y\rVert^2}{\lVert y\rVert^2} = 1 + \frac{\lVert \hat f\rVert^2}{\lVert y\rVert^2} \;\ge\; 1 \quad\text{for every } n.$$
#
# 误差趋向 1，只是因为插值函数的起伏在变小。从两个隐藏层起，奇数次的系数也为正（第 06 课；Bietti & Bach 2021，其 $L \ge 3$ 把输出层也计入层数），误差
# 降到 $5\cdot 10^{-7}$。同样，无偏置的 erf 网络的核是奇的，学不会偶函数 $\cos 2\theta$
# （$n = 512$ 时相对误差为 1.08）。有偏置且激活函数为非多项式时，每个 $\mu_k > 0$，函数空间是稠密的。
#
# ## 上界 $O(\sqrt{r_\infty/n})$ 不成立（综述 §4.4）
#
# $r_\infty$ 能否至少约束核回归的泛化能力，比如测试误差为 $\sqrt{r_\infty/n}$ 量级？无论 $O(\cdot)$ 里藏着什么常数，这种形式的
# 上界都不可能成立。$r_\infty$ 只取决于核和输入分布，**与标签无关**。给输入配上与之独立的标签 $y$。那么，无论怎样训练，
# 任何预测器 $f$ 的平均误差都不会低于标签的方差：
#
# $$\mathbb E(f(x) - y)^2 = \mathbb E(f(x) - \mathbb E y)^2 + \operatorname{Var}(y) \;\ge\; \operatorname{Var}(y)$$
#
# （交叉项为零，因为 $y$ 与 $x$ 以及训练数据都独立）。对任意常数 $C$，只要 $n > C^2 r_\infty/\operatorname{Var}(y)^2$，
# $C\sqrt{r_\infty/n}$ 就低于 $\operatorname{Var}(y)$，而期望误差永远不会。测试误差的有效上界必须考虑标签，直接地或通过拟合函数的范数（对插值函数而言是
# $y^\top\Theta^{-1}y$，如下文所示）；而在范数球 $\lVert f\rVert_{\mathcal H} \le B$ 上，不依赖标签的*泛化差距*上界是存在的
# （Bartlett & Mendelson 2002）。Arora, Du, Hu, Li & Wang
# （2019，定理 5.1）对第一层由梯度下降训练的两层 ReLU 网络给出测试误差的上界
# $\sqrt{2\,y^\top(H^\infty)^{-1}y/n} + O\bigl(\sqrt{\log(n/(\lambda_0\delta))/n}\bigr)$，适用于取值在 $[0, 1]$ 中的 1-Lipschitz
# 损失；$H^\infty$ 是第一层的核的 Gram 矩阵，$\lambda_0$ 是它的最小特征值。对核无法解释的标签，第一项一直很大。
#
# 实验：在 $S^9$ 上的均匀输入上做无岭 NTK 回归（单隐藏层 ReLU，$r_\infty = 16.7$），分别用真实标签 $y = \cos(2x_1)$
# 和**随机**标签：后者是同一个函数作用在另一组独立抽取的输入上，因此与真实标签同分布，却不携带任何关于 $x$ 的信息。
# $\operatorname{Var}(y)$ 由数值积分精确算出。测试误差在 1000 个新输入上计算，并给出其标准误。无岭回归插值训练数据，
# 所以它的测试误差也就是它的泛化差距。图中画出一个候选上界 $10\sqrt{r_\infty/n}$（$C = 10$），并延伸到测量范围之外。

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
# 对真实标签，误差随 $n$ 下降（$n = 50$ 时 0.50，$n = 1600$ 时 0.090）。对随机标签，$r_\infty$ 相同，误差却在每个 $n$
# 上都高于 $\operatorname{Var}(y) = 0.496$，而 $\sqrt{r_\infty/n}$ 降到 0.10。取 $C = 10$，上界 $C\sqrt{r_\infty/n}$
# 在 $n \approx 6800$ 以后就已经不成立。
#
# **解释一下。** 随机标签的误差明显高于 $\operatorname{Var}(y)$（0.58–0.88）。由上面的恒等式，多出来的部分是预测器自身的波动
# $\mathbb E(\hat f(x) - \mathbb E y)^2$，这里为 0.09–0.32。常数预测器 $\mathbb E y$ 的波动为 0，反而更好。既然标签不含关于 $x$
# 的任何信息，为什么无岭回归不会落到接近这个常数的地方？一个很大的岭参数 $\lambda$ 又会改变什么？
#
# <details><summary>答案</summary>
#
# 因为它做插值：在每个训练输入上 $\hat f(x_i) = y_i$，而这些标签围绕 $\mathbb E y$ 散布，方差为 0.496。一个穿过 $n$ 个随机值的
# 函数不可能在它们之间保持平坦：插值函数是以训练输入为中心的核函数的组合，所以它在那里拟合的噪声会传到周围的测试输入上，
# 以波动的形式回来。岭用精确
# 拟合换取更小的波动；当 $\lambda \to \infty$ 时，预测器 $\Theta(x, X)(\Theta + \lambda I)^{-1}y$ 趋于 0，误差为
# $\mathbb E y^2 = 0.50$，因为 $\mathbb E y = 0.074$，只比 $\operatorname{Var}(y)$ 略高。Bartlett, Long, Lugosi & Tsigler (2020)
# 给出了最小范数插值函数的波动在高维时消失的条件（“良性过拟合”）。
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
# ## 图像上较小的值（综述 §6.3）
#
# 有文献报告 ResNet 的 NTK 在 CIFAR-10 上的有效秩接近 1。这里无法下载 CIFAR-10，但 scikit-learn 自带 8 × 8 的手写数字，
# 它们足以展示其机制：原始像素非负，所以所有图像共享一个很大的均值成分，核也就有一个很大的常数模态。这里的“ResNet”是
# 第 04 课作用在 64 个展平像素上的残差 MLP，而不是卷积 ResNet。

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
# 两个原始值都很小（2.3–2.5），最大特征值的特征向量就是常数向量（$|\cos| = 0.999$）。图像上较小的值说明的是“这些图像有
# 一个共同的均值”，而不是“网络在低维子空间里学习”；中心化之后，同样的核的有效秩约为 19–20，高出八倍。
#
# ## 动手探索
#
# 交互探索画出 $r_\text{eff}$ 随 $n$ 的变化（实线）、中心化之后的值（虚线）、启发式公式
# $n r_\infty/(n-1+r_\infty)$（空心菱形）以及上限 $r_\text{eff} = n$（灰线），网络是 $\sigma_w = 1.4$ 的 MLP，深度、激活函数和偏置
# 由你选择。标题的第一行说明曲线在做什么，第二行给出 $r_\infty$ 以及 $n = 400$ 时的值。（只提供有闭式核的激活函数：tanh 的
# 数值积分每动一次滑块就要花几秒钟。）
#
# erf 需要用到的一个公式（第 02 课）。偏置给每一层激活前的方差 $q$ 加上 $\sigma_b^2$，$q$ 最终稳定在不动点 $q^*$。相关映射在
# $\rho = 1$ 处的斜率为
# $\chi_1 = \sigma_w^2\,\mathbb E\,\operatorname{erf}'(\sqrt{q^*}z)^2 = \sigma_w^2\cdot\tfrac4\pi/\sqrt{1 + 4q^*}$，
# 其中 $z$ 为标准正态变量。$\chi_1 > 1$ 是混沌相，$\chi_1 < 1$ 是有序相。

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_rank, depth=nh.widgets.depth_slider(1, max=50),
                       activation=nh.widgets.activation_dropdown("relu", options=course.EXPLORER_ACTIVATIONS),
                       sigma_b=nh.widgets.sigma_slider(nh._("sigma_b"), 0.0, max=2.0))

# %% [markdown]
# **先预测，再验证。**
#
# 1. 无偏置 gelu，深度 1。把深度调到 50。$n = 400$ 时的 $r_\text{eff}$ 会像 50 层 NNGP 那样降向 1，还是保持在远高于 1 的
#    水平？
#
# <details><summary>答案</summary>
#
# 它会下降，但仍远高于 1：从深度 1 的 19.2 降到深度 50 的 5.09（$r_\infty$ 从 20.2 降到 5.14）。深层 NTK 不会像 NNGP 那样
# 退化成常数：中心化后的 $r_\text{eff}$ 仍为 197（共 400）。gelu 不是齐次的，所以与 ReLU 不同，这些数值依赖于
# $\sigma_w$（这里为 1.4）。
#
# </details>
#
# 2. 回到深度 1、ReLU。把 $\sigma_b$ 调到 2。原始 $r_\text{eff}$ 会下降。中心化后的曲线也会跟着下降吗？
#
# <details><summary>答案</summary>
#
# 它下降了约三分之一，远少于原始值的降幅。原始值：从 16.0 降到 1.94（$r_\infty$ 从 16.7 降到 1.95）。中心化后：
# $n = 400$ 时从 24.0 降到 16.5。偏置给每一层激活前的协方差都加上 $\sigma_b^2$。这给核带来一个很大的、近乎常数的部分
# （标题：与常数向量的 $|\cos| = 1.00$），但也改变了核的形状（在第一层中，偏置相当于给每个输入添上一个相同的额外坐标，这会改变输入之间的夹角）：单纯的常数平移 $K + c\,\mathbf 1\mathbf 1^\top$ 会让中心化后的值
# 保持在 24.0。
#
# </details>
#
# 3. 无偏置 erf：把深度从 1 调到 50。$r_\text{eff}$ 会怎样？然后在深度 50 处把
#    $\sigma_b$ 调到 1。
#
# <details><summary>答案</summary>
#
# 深度 1 时 $r_\infty = 17.4$（扫描中 $\sigma_w = 1$ 时为 13.7：erf 核的形状依赖于 $\sigma_w$）。深度 50 时标题显示
# $r_\text{eff} \approx n$：没有偏置时，$\sigma_w = 1.4$ 让 erf 处于混沌相（$\chi_1 = 1.19 > 1$），不对径的输入对的相关系数
# 衰减到 0，非对角元素缩小到均方根只有对角元的 $9\cdot 10^{-6}$（$r_\infty = 1.3\cdot 10^{10}$），
# $r_\text{eff}(400) = 400.0$。取 $\sigma_b = 1$，同样的深度给出 $r_\text{eff} = 1.00$。相关映射总有不动点 $\rho = 1$。偏置把方差抬高到 $q^* = 2.19$（原为 0.85），erf 在那里更平缓，所以
# $\chi_1 = 1.96\cdot\tfrac4\pi/\sqrt{9.75} = 0.80 < 1$：$\rho = 1$ 变得稳定（第 02 课的有序相），并且偏置去掉了不动点 $\rho = 0$。所有相关系数都趋于 1，
# 元素都趋近对角元，一个常数模态包揽一切。
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
# ## 全章一张表
#
# 全章的一张速查卡。每一行说明网络的一个部分对核做了什么，NTK 因此有什么性质，以及它何时不再成立。每一行都链接到讲解它的那一课；像 $3e\,q_0$ 这样的符号在那里以及表下的说明中定义。记号：$L$ 为深度，
# $m$ 为宽度，$\rho$ 为两个输入的相关系数；$[x \parallel x']$ 在输入平行（$x' = ax$，$a > 0$）时为 1，否则为 0；“归一化”指除以
# $\sqrt{\Theta(x,x)\Theta(x',x')}$。
#
# | 主题 | 机制 | 意味着什么 | 何时失效 |
# |---|---|---|---|
# | [MLP 的深度](02_mlp_recursion.ipynb) | 每层对 ρ 施加相关映射 | L → ∞：NNGP → 常数，归一化 NTK → ¼ + ¾·[x ∥ x′] | 不是无偏置 ReLU（见下一行）；随 L 收敛得很慢 |
# | [MLP 的相](02_mlp_recursion.ipynb) | σ_w、σ_b 决定该映射在 ρ = 1 处的斜率 χ₁ | χ₁ < 1（有序）：相关系数 → 1，r_eff 随深度 → 1 | χ₁ > 1（混沌）：相关系数停在 1 以下；χ₁ = 1：很慢 |
# | [CNN](03_cnn.ipynb) | 共享滤波器：每对图块位置各有一个核 | 全局平均池化：核平移不变 | 展平读出、不做池化；或填充不是循环的 |
# | [ResNet](04_resnet.ipynb) | 跳连传递核；分支加上 α² 倍的映射 | α = 1/√L：L → ∞ 时 Θ(x,x) → 3e·q₀ | α = 1：Θ(x,x) 像 L·2^L 一样增长，核退化 |
# | [层归一化](05a_normalization.ipynb) | 用对角元归一化激活前的核 | Θ 只通过 x/‖x‖ 依赖 x | 之前某层不是齐次的（偏置、erf 等） |
# | [参数化](05b_parameterization.ipynb) | 权重与学习率如何随 m 缩放 | m → ∞ 时核冻结，例如 NTK 参数化 | μP，或有限的 m：核会变化 |
# | [ReLU 的谱](06_activations.ipynb) | φ 的折点带来缓慢的 Mercer 衰减 | S^(d−1) 上 μ_k ~ k^(−d)：所有 k（2 层以上或有偏置） | 单个无偏置层：奇数 k ≥ 3 时 μ_k = 0 |
# | [erf 的谱](06_activations.ipynb) | 光滑的奇函数 φ：快速的 Mercer 衰减 | 无偏置：只有奇数 k；在圆周上近似几何衰减，在 S^(d−1)（d > 2）上为指数衰减，相差多项式因子 | 有偏置时：偶数 k 也出现 |
# | [训练动力学](07_training_dynamics.ipynb) | 对线性化网络做梯度下降 | m → ∞、学习率稳定：用 Θ 做核回归 | 不是平方损失；没训练到收敛；f₀ ≠ 0（见注） |
# | [有效秩](#r-infinity-law)（一种诊断量） | 谱的参与比 | r_eff → r∞，看不见标签；≈ 1：一个特征值占主导 | m_off = 0：r_eff/n → m₁²/m₂（对角元为常数时 = 1）；≈ 1 而没有常数模态 |
#
# 对其中三行的说明。*训练动力学*：NTK 在训练中保持不变的条件是无限宽的极限，例如采用 NTK 参数化（或者标准参数化配合
# $1/m$ 量级的学习率），学习率低于稳定性阈值，并且训练时间有限（梯度流：Jacot, Gabriel & Hongler 2018），或者对梯度下降在
# NTK 的最小特征值为正时对所有时间一致地成立（Lee et al. 2019）。此时训练好的网络等于用 $\Theta$ 做核回归，只在平方损失、
# 训练到收敛（$\lambda_\min > 0$）并且 $f_0 = 0$ 或对初始化取平均时成立；否则 Lee et al. 还要加上
# $f_0(x) - \Theta(x, X)\Theta^{-1}f_0(X)$。在 μP 下，核在每个宽度上都会变化 $O(1)$。*ResNet*：$3e\,q_0$ 是无偏置 ReLU、
# $\sigma_w^2 = 2$、带输入全连接层和线性读出层时的极限（第 04 课；$L = 256$ 时低 0.3 %）；取 $\alpha = 1$，同一个网络的
# $\Theta(x, x) = q_0\,2^L(2 + L/2)$。*erf*：在圆周上，$k \approx 25$ 时 $\mu_{k+2}/\mu_k$ 约为 0.14，并且仍在缓慢上升。

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
# ## 检验你的理解
#
# 1. $K = aI + b\,\mathbf 1\mathbf 1^\top$（$a, b > 0$）是 $n \times n$ 矩阵。$r_\text{eff}(K)$ 是多少？
#    $n \to \infty$ 时的极限呢？
#
# <details><summary>答案</summary>
#
# 特征值为 $a + nb$（一次，沿 $\mathbf 1$）和 $a$（$n - 1$ 次），所以
# $r_\text{eff} = n^2(a + b)^2 / ((a + nb)^2 + (n-1)a^2) \to (a + b)^2/b^2$。这正是 $m_1 = a + b$、
# $m_\text{off} = b^2$ 时的定律：$a = \tfrac34$、$b = \tfrac14$ 时为 16，$a \to 0$ 时为 1。
#
# </details>
#
# 2. 把 $S^9$ 上单隐藏层 ReLU 网络的 NTK 归一化，使 $k(x,x) = 1$。这时 $r_\infty = 16.7$，非对角元素的均值为
#    $\mathbb E\,k(x,x') = 0.18$。不计算任何矩阵，预测核 $k + 1$（每个元素都加 1）的 $r_\infty$。
#
# <details><summary>答案</summary>
#
# $m_1 = 1 + 1 = 2$，$m_\text{off} = \mathbb E\,(k(x,x') + 1)^2 = 1/16.7 + 2 \cdot 0.18 + 1 = 1.42$，所以
# $r_\infty = 4/1.42 = 2.8$。起作用的只是新的非对角元素的均*方*；加上的常数在其中占主导，旧元素的均值则通过交叉项进入。
# 中心化又去掉了这个常数，$H(K + \mathbf 1\mathbf 1^\top)H = HKH$，还原出 $K$ 中心化后的值。
#
# </details>
#
# 3. 在 $S^9$（半径 $\sqrt{10}$）上取线性核 $k(x,x') = x\cdot x'/10$ 和二次核 $k(x,x') = (x\cdot x'/10)^2$。$d$ 维中两个
#    独立均匀方向之间夹角的余弦 $t$ 满足 $\mathbb E\,t^2 = 1/d$、$\mathbb E\,t^4 = 3/(d(d+2))$。预测每个核的 $r_\infty$，
#    并与它的特征个数比较（10 个坐标 $x_i$；55 个乘积 $x_ix_j$，$i \le j$）。
#
# <details><summary>答案</summary>
#
# 两者都有 $k(x,x) = 1$，所以 $r_\infty = 1/\mathbb E\,k(x,x')^2$。线性核：$\mathbb E\,t^2 = 1/10$，所以 $r_\infty = 10$，恰好等于
# 它的特征个数：只有当非零的 Mercer 特征值都相等时（如此处），$r_\text{eff}$ 才是在数维数。二次核：$\mathbb E\,t^4 = 3/120$，
# 所以 $r_\infty = 40$，少于 55。在球面上 $\sum_i x_i^2 = 10$，所以这些乘积的一个组合就是常数函数。它占迹的
# $\mathbb E\,t^2 = 0.1$；其余 54 个方向（2 次球谐函数）平分剩下的 0.9，于是 $1/(0.1^2 + 54\cdot(0.9/54)^2) = 40$。
# 不相等的特征值每个算不到一个。$n = 800$ 时测得 9.92 和 38.2，启发式公式给出 9.89 和 38.1。
#
# </details>
#
# 4. 为什么对任何 $C$，形如 $C\sqrt{r_\infty/n}$ 的测试误差上界都不可能成立？
#
# <details><summary>答案</summary>
#
# $r_\infty$ 只取决于核和输入分布。标签与输入独立时，每个预测器的期望测试误差至少为 $\operatorname{Var}(y)$，而
# $C\sqrt{r_\infty/n} \to 0$：当 $n > C^2 r_\infty/\operatorname{Var}(y)^2$ 时上界就不成立。测试误差的有效上界必须依赖标签，直接地或通过拟合函数的范数。
#
# </details>
#
# 5. 下面哪些不同输入上的 NTK Gram 矩阵是奇异的，为什么：(a) 无偏置 tanh，在 $\{x, -x\}$ 上；
#    (b) 无偏置 ReLU（单隐藏层），在 $\{x, 3x\}$ 上；(c) $\sigma_b = 0.5$ 的 ReLU，在 $\{x, 3x\}$ 上？
#
# <details><summary>答案</summary>
#
# (a) 奇异：tanh 是奇函数，所以没有偏置时网络及其梯度都是奇的，两行互为相反数。(b) 奇异：网络是正齐次的，
# $f(3x) = 3f(x)$，所以 $3x$ 的那一行是 $x$ 那一行的三倍。(c) 在这里（数值上）不奇异：对本课的 6 个点及其三倍，
# $\lambda_\min/\lambda_\max = 0.0027$，虽小，但远高于舍入误差。偏置使 (b) 中基于齐次性的论证失效；但仅凭这一点，对其他点什么也证明不了。
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
# ## 小结
#
# - $r_\text{eff} = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$ 数的是迹由多少个特征值分担。对从某个分布中抽取的输入，
#   它对**每一个**二阶矩有限且 $m_\text{off} > 0$ 的核都趋于 $r_\infty = m_1^2/m_\text{off}$。对角元为常数时，有限 $n$ 的值
#   在几个百分点以内服从启发式公式 $n r_\infty/(n-1+r_\infty)$。
# - $r_\infty$ 与 $n$ 无关。它取决于非对角元素的均**方**，当它们消失时无界增长，而 $r_\text{eff}(n) \le n$。
# - 接近 1 的值意味着一个特征值占主导。当元素有很大的公共部分时（平移的输入、大的偏置、深层 NNGP），它的特征向量接近常数
#   向量，中心化可以去掉它；原始像素也以同样的方式给出较小的值（手写数字上为 2.3–2.5）。满秩矩阵也可以有
#   $r_\text{eff} \approx 1$。
# - 输入互不相同并不保证 NTK Gram 矩阵满秩（无偏置的奇激活函数在 $\pm x$ 上，无偏置 ReLU 在 $x, 2x$ 上，或单隐藏层时在 $d$ 维中多于 $d$ 对的
#   对径点对上）；也不是每个 NTK 的函数空间都稠密（每个 Mercer 系数都必须为正）。
# - $r_\infty$ 不看标签，所以它约束不了泛化：随机标签下，误差在每个 $n$ 上都高于 $\operatorname{Var}(y)$，
#   而 $\sqrt{r_\infty/n}\to 0$。

# %% [markdown]
# ## 写给教材第 4 章的读者
#
# <details><summary>综述 §4.1：“等效参数个数”（勘误 B13）</summary>
#
# **综述原文：** 有效秩衡量模型的等效参数个数，并且可以接近 1。
#
# **正确的说法：** $r_\text{eff}$ 是谱的参与比，由最大的特征值主导，而那往往是一个常数模态。给核加上一个常数会使
# $r_\text{eff}$ 趋于 1，而它能拟合的函数只差一个常数（见“接近 1 意味着‘一个特征值占主导’”一节）。[勘误 B13](../../ERRATA.zh.md#b13)
#
# </details>
#
# <details><summary>综述 §4.2：把常数极限当作“关键发现”（勘误 B14、B15、B43）</summary>
#
# **综述原文：** NTK 的“谱维数”是一个常数，这是一个关键发现（归于“Anil et al.”），并且 NTK 的
# $r_\text{eff} \approx 1$–2。
#
# **正确的说法：** 极限 $r_\infty = \mathbb E[k(x,x)]^2/\mathbb E[k(x,x')^2]$ 对每个二阶矩有限的核都成立（大数定律）；
# 它是 Mercer 谱的参与比。其出处是一篇未经评审的单作者预印本（P. A. Shukla，arXiv:2512.00860）。对本课扫描中
# $S^9$ 上的无偏置核，数值为 12–17（1 层与 50 层的 ReLU NTK、erf NTK），而不是 1–2；其他核给出其他数值。
# [勘误 B14](../../ERRATA.zh.md#b14)、[B15](../../ERRATA.zh.md#b15)、[B43](../../ERRATA.zh.md#b43)
#
# </details>
#
# <details><summary>综述 §4.2：“k(x,x′) ≪ k(x,x) 时 r∞ ≈ n”（勘误 B16）</summary>
#
# **综述原文：** 当 $k(x,x') \ll k(x,x)$ 时常数 $r_\infty$ 接近 $n$（输入“完全可分”）；当 $k(x,x') \approx k(x,x)$
# 时它接近 1；并且这是从均值 $\mathbb E\,k(x,x')$ 看出来的。
#
# **正确的说法：** $r_\infty$ 不可能依赖 $n$；非对角元素缩小时它无界增长，而 $r_\text{eff}(n) \le n$。这条定律涉及的是
# 均**方** $\mathbb E\,k(x,x')^2$：无偏置 erf 的 NTK 在每个深度上非对角元素的均值都为 0，而 $r_\infty$ 在深度 1 时为
# 24.7，在深度 16 时为 $4\cdot 10^7$（见“当非对角元素消失时”一节）。[勘误 B16](../../ERRATA.zh.md#b16)
#
# </details>
#
# <details><summary>综述 §4.4：“回归发生在一个低秩子空间里”（勘误 B18）</summary>
#
# **综述原文：** NTK 的有效秩是约为 1–2 的常数，所以核回归发生在一个低秩子空间里。
#
# **正确的说法：** $r_\text{eff}$ 小并不等于秩小。有偏置且激活函数为非多项式的 Lipschitz 函数时，极限 NTK 在球面上正定
# （Jacot et al. 2018，命题 2）；对单个无偏置 ReLU 隐藏层，只要任意两个输入既不平行也不反平行，Gram 矩阵就正定（Du et al. 2019），
# 而在 $d \ge 2$ 中从连续分布抽取的输入以概率 1 满足这一点。此时无岭回归用到了全部 $n$ 个方向。没有偏置时，不同的输入可能给出奇异的 Gram 矩阵：无偏置 erf 或 tanh 在 $\{x, -x\}$ 上；
# 无偏置 ReLU 在 $\{x, 2x\}$ 上（不在球面上）；单个无偏置 ReLU 隐藏层在 $S^2$ 的 6 对对径点上（3 个零特征值）。两个隐藏层
# 在同样的点对上正定但病态（$\lambda_\min/\lambda_\max = 0.020$）。（见“不同输入的 Gram 矩阵一定满秩吗？”一节）
# [勘误 B18](../../ERRATA.zh.md#b18)
#
# </details>
#
# <details><summary>综述 §4.4：上界 O(√(r∞/n))（勘误 B19）</summary>
#
# **综述原文：** 泛化误差的上界是 $O(\sqrt{r_\infty/n})$，这解释了过参数化网络为何能泛化。
#
# **正确的说法：** $r_\infty$ 与标签无关；标签与输入独立时，无论 $n$ 多大，没有预测器能优于 $\operatorname{Var}(y)$；
# 所以对任何常数，这样的上界都不成立。测试误差的有效上界依赖标签，直接地或通过拟合函数的范数，例如
# Arora, Du, Hu, Li & Wang (2019) 基于 $y^\top(H^\infty)^{-1}y$ 的上界（见“上界不成立”一节）。[勘误 B19](../../ERRATA.zh.md#b19)
#
# </details>
#
# <details><summary>综述 §6.3：CIFAR-10 上 ResNet 的 r_eff ≈ 1（勘误 B29）</summary>
#
# **综述原文：** CIFAR-10 上 ResNet 的 $r_\text{eff} \approx 1.0$–1.3，正如理论所预言。
#
# **正确的说法：** 这些数字引自预印本，没有被复现；它们是在宽度 16–32 下测得的，离无限宽极限很远。原始图像上较小的值
# 反映的是图像的共同均值：在 scikit-learn 的手写数字上，作用在展平像素上的残差 MLP 的 NTK 的 $r_\text{eff} = 2.3$，
# 最大特征值的特征向量是常数向量，中心化后为 18.9（见“图像上较小的值”一节）。[勘误 B29](../../ERRATA.zh.md#b29)
#
# </details>
#
# <details><summary>综述 §5：NTK-ECRN，“每个特征值都收敛到 0 或 1”（勘误 B20、B22）</summary>
#
# **综述原文：** 一种“NTK-ECRN”结构由 $d\lambda/dt \le C\lambda(1 - \lambda)$ 使 NTK 的每个特征值都收敛到 0 或 1。
#
# **正确的说法：** 这来自一篇未经评审的预印本（arXiv:2512.08264），并未得到确立。在核区域中（无限宽、例如 NTK 参数化、学习率低于
# 稳定性阈值、训练时间有限，或者对梯度下降有 $\lambda_\min > 0$；Jacot et al. 2018；Lee et al. 2019），NTK 在训练中不变，
# 它的特征值也就不动；它们随 $n$、深度和 $\sigma_w$ 缩放，并不局限在
# $[0, 1]$ 中。在这个区域之外（有限宽、μP），核会变化，但 $d\lambda/dt$ 的一个上界并不能迫使它收敛到任何地方。
# [勘误 B20](../../ERRATA.zh.md#b20)、[B22](../../ERRATA.zh.md#b22)
#
# </details>
#
# <details><summary>综述 §7.1：“惰性训练的表达能力有限”（勘误 B31）</summary>
#
# **综述原文：** 惰性（核）区域的表达能力有限。
#
# **正确的说法：** NTK 的函数空间在球面上稠密，恰好当每个 Mercer 系数都为正时，例如有偏置且激活函数为非多项式，或无偏置 ReLU
# 有至少两个隐藏层；单个无偏置 ReLU 隐藏层缺少每个奇数次 $k \ge 3$，学不会 $\cos 3\theta$（见“它的函数空间稠密吗？”一节）。
# 在函数空间稠密的情形，真正的限制是样本效率：有些目标需要的样本远多于一个做特征学习的网络（Ghorbani et al. 2019, 2021）。
# [勘误 B31](../../ERRATA.zh.md#b31)
#
# </details>
#
# <details><summary>综述 §7.3 与 §8：其他框架、稳定性边缘、Grokking（勘误 B35、B37、B38）</summary>
#
# **综述原文：** “无限特征分解”和“神经正切特征”超越了 NTK；稳定性边缘的阈值来自 NTK 的谱；Grokking 由 NTK 的平坦方向加上
# 权重衰减来解释。
#
# **正确的说法：** 这两个框架查无出处；可以改用平均场理论、Tensor Programs 与 μP（第
# [05b](05b_parameterization.ipynb) 课）或 $1/n$ 展开。锐度在 $2/\eta$ 附近徘徊（Cohen et al. 2021）需要一个*变化的* NTK
# （渐进锐化），这已在核区域之外；第 07 课只展示了线性化模型的稳定性阈值。对 Grokking 的近期解释描述的是从惰性动力学到
# 特征学习动力学的转变（Kumar et al. 2024；Lyu et al. 2024），超出了 NTK。频率原则（频谱偏置）在实验中被观察到（Rahaman
# et al. 2019；Xu et al. 2019）；在核区域中它得到了证明（Basri et al. 2019；Cao et al. 2019）：模态 $k$ 的学习速率正比于
# $\mu_k$（第 06 课）。
# [勘误 B35](../../ERRATA.zh.md#b35)、[B37](../../ERRATA.zh.md#b37)、[B38](../../ERRATA.zh.md#b38)
#
# </details>
#
# **练习：** 4.7（50 层 MLP 的核退化与有效秩）。
#
# **下一课：** [00 · 从这里开始](00_start_here.ipynb)
