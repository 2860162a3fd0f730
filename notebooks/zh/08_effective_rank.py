# %% [markdown]
# # 08 · 有效秩：它能告诉你什么，又不能告诉你什么
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/08_effective_rank.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F08_effective_rank.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../08_effective_rank.ipynb)）
#
# *NTK 综述第 4 节。*
#
# **本课内容**
# - 有效秩 $r_\text{eff}(K) = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$，以及输入数目增大时它所服从的极限定律；
# - 极限 $r_\infty$ 与 $n$ 无关，并且当非对角元素趋于零时会无界地增长；
# - 为什么接近 1 的值意味着“一个常数模态占主导”（以及中心化起什么作用）；
# - 为什么综述所声称的泛化上界 $O(\sqrt{r_\infty/n})$ 不可能成立，无论其中的常数取多少；
# - 综述后面几节（NTK-ECRN、频率原则、稳定性边缘、Grokking）的依据是什么。
#
# **预备知识：** 第 01–02 课、第 07 课。

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
# ## 定义
#
# $r_\text{eff}(K) = \dfrac{\operatorname{tr}(K)^2}{\lVert K\rVert_F^2}
# = \dfrac{(\sum_i\lambda_i)^2}{\sum_i\lambda_i^2}$，即特征值的“参与比”（participation ratio）：
# 单位矩阵的倍数的有效秩为 $n$，秩一矩阵的有效秩为 1，而且它总是介于 1 与 $n$ 之间。

# %%
n = 40
print(nh._("identity: {identity:.1f}, all-ones: {ones:.1f}, "
           "¾I + ¼11ᵀ (the deep ReLU NTK): {deep:.2f}").format(
    identity=nh.effective_rank(torch.eye(n, dtype=torch.float64)),
    ones=nh.effective_rank(torch.ones(n, n, dtype=torch.float64)),
    deep=nh.effective_rank(0.75 * torch.eye(n, dtype=torch.float64) + 0.25)))

# %% [markdown]
# ## $r_\infty$ 定律（综述 §4.2）
#
# 若输入取自某个分布，则 $\mathbb E\operatorname{tr}K = n m_1$，
# $\mathbb E\lVert K\rVert_F^2 = n m_2 + n(n-1) m_\text{off}$，其中 $m_1 = \mathbb E\,k(x,x)$，
# $m_2 = \mathbb E\,k(x,x)^2$，$m_\text{off} = \mathbb E\,k(x,x')^2$。因此 $r_\text{eff}$ 趋于一个常数：
#
# $$r_\infty = \frac{m_1^2}{m_\text{off}}, \qquad
# r_\text{eff}(n) \approx \frac{n\, r_\infty}{n - 1 + r_\infty}\ \ (\text{对角元素为常数}).$$
#
# > **综述原文：** 综述把“NTK 的谱维度是常数”当作一项关键发现（「有效秩收敛到一个常数，与样本量 $n$ 无关」），
# > 又说 NTK 的 $r_\text{eff}\approx 1$–$2$，因此「核回归在低秩子空间中进行」。  
# > **正确的说法：** 对于**任何**满足 $\mathbb E\,k(x,x')^2 > 0$ 的核，这个极限都存在（它就是 Mercer 谱的参与比；
# > 出处是 P. A. Shukla 的一篇未经同行评审的预印本 arXiv:2512.00860，而不是“Anil et al.”）。
# > 在球面 $S^9$ 上，NTK 的这个值是 12–17，而不是 1–2；只有当某个常数分量占主导时
# > （数据均值、较大的偏置、深层 NNGP），才会出现接近 1 的值。此外，互不相同的输入的 NTK Gram 矩阵是满秩的：
# > 无岭（ridgeless）回归用到了全部 $n$ 个方向
# > （[勘误 B14](../../ERRATA.zh.md#b14)、[B15](../../ERRATA.zh.md#b15)、
# > [B18](../../ERRATA.zh.md#b18)、[B43](../../ERRATA.zh.md#b43)）。
#
# 输入在 $S^9$ 上均匀分布（$d = 10$）；$r_\infty$ 通过对夹角做 Gauss–Jacobi 求积算出（`nh.effective_rank_limit`）：

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
# ### 当非对角元素趋于零时
#
# > **综述原文：** 综述说，当 $k(x,x') \ll k(x,x)$ 时常数 $r_\infty$ 接近 $n$（输入「完美可分」），
# > 当 $k(x,x') \approx k(x,x)$ 时它接近 1；并且它是从非对角元素的均值 $\mathbb E\,k(x,x')$ 来解读这一点的。  
# > **正确的说法：** $r_\infty$ 是 $n\to\infty$ 时的极限，所以它不可能依赖于 $n$。
# > 随着非对角元素缩小，$r_\infty = m_1^2/m_\text{off}$ 会**无界**增长；趋近 $n$ 的是有限 $n$ 下的值
# > $r_\text{eff}(n) \le n$。而且这个定律涉及的是**均方** $\mathbb E\,k(x,x')^2$，而不是均值 $\mathbb E\,k(x,x')$：
# > 非对角元素即使很大，只要平均起来为零，得到的 $r_\infty$ 仍然不大（[勘误 B16](../../ERRATA.zh.md#b16)）。
#
# 下面是一族非对角元素趋于零的核：$\sigma_w = 2$ 的无偏置 erf 网络的 NTK。它处于混沌相（第 02 课），
# 两个不同输入之间的相关性随深度衰减到 0。这个核是奇的，即 $k(x, -x') = -k(x, x')$，
# 所以在**每一个**深度上，它的非对角元素的均值都恰好为 0；变化的只有均方。

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
# 在深度 1 时，非对角元素的均值为 0，$r_\infty$ 却只有约 25：非对角元素并不小，只是平均起来相互抵消了
# （它们的均方根是对角元素的 $1/\sqrt{r_\infty}$）。随着深度增加，均方根不断下降，$r_\infty$ 一路涨到 $4\cdot 10^7$，
# 而每个有限的 $r_\text{eff}(n)$ 都爬升到它的上限 $n$，并停在那里。

# %% [markdown]
# ## 接近 1 意味着“一个常数模态”
#
# 偏移后的输入和深层 NNGP 之所以都有 $r_\text{eff}\approx 1$，原因是相同的：有一个特征值（沿常数向量方向）远远压过其余所有特征值。
# 中心化（$HKH$，其中 $H = I - \mathbf 1\mathbf 1^\top/n$）去掉了它，秩随之跃升。
# 对于深层 NTK（≈ ¾I + ¼11ᵀ），中心化后的秩 ≈ n：“常数加白噪声”。
# 所以 $r_\text{eff}$ 并不是“等效参数数量”：给核加上一个常数会把它推向 1，
# 而这个核所能拟合的函数只相差一个常数（[勘误 B13](../../ERRATA.zh.md#b13)）。

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
# ## 上界 $O(\sqrt{r_\infty/n})$ 不成立（综述 §4.4）
#
# > **综述原文：** 泛化误差以 $O(\sqrt{r_\infty/n})$ 为上界，综述认为这「解释了为什么过参数化网络能泛化良好」。  
# > **正确的说法：** 无论 $O(\cdot)$ 里隐藏的常数是多少，这种形式的上界都不可能成立。
# > $r_\infty$ 只取决于核与输入分布，**与标签无关**。给输入配上与之独立的标签 $y$，
# > 那么任何预测器 $f$，不论怎样训练，平均而言都不可能比标签的方差更好：
# > $\mathbb E(f(x) - y)^2 = \mathbb E(f(x) - \mathbb E y)^2 + \operatorname{Var}(y) \ge \operatorname{Var}(y)$
# > （交叉项为零，因为 $y$ 与 $x$ 以及训练数据都相互独立；$\operatorname{Var}(y)$ 就是贝叶斯风险）。
# > 对任意常数 $C$，一旦 $n > C^2 r_\infty/\operatorname{Var}(y)^2$，
# > $C\sqrt{r_\infty/n}$ 就会低于 $\operatorname{Var}(y)$，而误差永远不会。
# > 有效的上界必须依赖于标签，例如两层 ReLU 网络的 $\sqrt{2\,y^\top\Theta^{-1}y/n}$
# > （Arora, Du, Hu, Li & Wang 2019）：对于核无法解释的标签，它始终保持较大的值（[勘误 B19](../../ERRATA.zh.md#b19)）。
#
# 实验：在 $S^9$ 上均匀分布的输入上做无岭 NTK 回归（单个 ReLU 隐藏层，$r_\infty = 16.7$），
# 分别使用真实标签 $y = \cos(2x_1)$ 和**随机**标签。随机标签是同一个函数在另一组独立抽取的输入上的取值，
# 因此它们与真实标签的分布完全相同，却不携带任何关于 $x$ 的信息。
# $\operatorname{Var}(y)$ 由求积精确算出（$x_1/\sqrt{d}$ 的密度就是 `nh.angle_distribution` 的密度）。
# 测试误差在 1000 个新输入上计算，并给出其标准误。无岭回归会插值训练数据（下面会检验），
# 所以它的测试误差也就是它的泛化差距。

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
# 对真实标签，误差在这里恰好大致以 $\sqrt{r_\infty/n}$ 的速率下降；对随机标签，$r_\infty$ 虽然相同，
# 误差却在每个 $n$ 处都保持在 $\operatorname{Var}(y)$ 之上。“C needed”一列是上界 $C\sqrt{r_\infty/n}$
# 要覆盖实测误差所需的常数：至少为 $\operatorname{Var}(y)\sqrt{n/r_\infty}$，它按 $\sqrt n$ 增长。
# 对于 $C = 10$，当 $n > 100\,r_\infty/\operatorname{Var}(y)^2 \approx 6800$ 时这个上界就已经不成立了（具体数值见下方输出）。
#
# 对随机标签做无岭插值，结果甚至比常数预测器 $\mathbb E y$ 的误差 $\operatorname{Var}(y)$ 还要**差**：
# 由方框中的恒等式，它的测试误差等于 $\operatorname{Var}(y)$ 加上插值函数自身的离散程度（spread）
# $\mathbb E(\hat f(x) - \mathbb E y)^2$。它在训练点上精确拟合的噪声，会以训练点之间的起伏重新出现
# （最小范数插值的噪声放大；Bartlett, Long, Lugosi & Tsigler 2020 给出了这一附加项在高维下消失的条件）。
# “Var(y) + spread”一列与实测误差在 1000 个测试点的抽样误差范围内相符（下面会检验）。

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
# ## “CIFAR-10 上的 ResNet 有 $r_\text{eff}\approx 1$”？
#
# 综述引用 CIFAR-10 上 ResNet 的 $r_\text{eff}\approx 1.0$–$1.3$，作为对理论的印证。
# 我们在这里无法下载 CIFAR-10，但 scikit-learn 自带 8 × 8 的手写数字图像，它们足以展示其中的机制：
# 原始像素值非负，所以每张图像都共享一个很大的均值分量，核的常数模态因此占主导。

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
# 在自然图像上接近 1 的值说明的是“这些图像有一个共同的均值”，而不是“网络在一维子空间中学习”。
# 综述中的这些数字来自那篇预印本，没有被复现过，而且是在宽度 16–32 下测得的，离无限宽极限很远
# （[勘误 B29](../../ERRATA.zh.md#b29)）。
#
# ## 综述后面几节的内容，哪些是已有定论的？
#
# - **NTK-ECRN 与“特征值收敛到 0 或 1”**（§5）：出自一篇未经同行评审的预印本（arXiv:2512.08264）。
#   在无限宽时，NTK 在训练中保持不变，所以它的特征值根本不会移动；这些特征值随 $n$、深度和 $\sigma_w$ 缩放，
#   并不局限于 $[0, 1]$。这一说法没有定论，我们不讲授它
#   （[勘误 B20](../../ERRATA.zh.md#b20)、[B22](../../ERRATA.zh.md#b22)）。
# - **“惰性训练的表达能力有限”**（§7.1）：NTK 的函数空间是稠密的；真正的限制在于样本效率
#   （第 07 课第 5 节；[勘误 B31](../../ERRATA.zh.md#b31)）。
# - **频率原则 / 频谱偏置**（§8.1）：在核区域（kernel regime）中已有定论（Rahaman et al. 2019；Xu et al. 2019；
#   Basri et al. 2019）：模态 $k$ 以 $\propto \mu_k$ 的速率被学会（第 06 课展示了这一点）。
# - **稳定性边缘**（§8.2）：锐度在 $2/\eta$ 附近徘徊（Cohen et al. 2021）。对于平方损失，
#   Gauss–Newton 矩阵与 $\Theta/n$ 有相同的非零特征值，第 07 课的交互探索展示了线性化模型的阈值
#   $\eta\lambda_\max/n = 2$；但稳定性边缘的动力学需要*变化的* NTK（渐进锐化，progressive sharpening），
#   这已在核区域之外（[勘误 B37](../../ERRATA.zh.md#b37)）。
# - **Grokking（延迟泛化）**（§8.3）：“NTK 的平坦方向加上权重衰减”只是推测。已有定论的解释把它描述为
#   从惰性动力学到特征学习动力学的转变（Kumar et al. 2024；Lyu et al. 2024），超出了 NTK 的范围
#   （[勘误 B38](../../ERRATA.zh.md#b38)）。
# - “Infinite-feature factorization”和“neural tangent features”（§7.3）在文献中都查不到；
#   请改用平均场理论、Tensor Programs/μP（第 05 课）或 $1/n$ 展开（[勘误 B35](../../ERRATA.zh.md#b35)）。
#
# ## 动手探索
#
# 深度、激活函数、偏置：$r_\text{eff}$ 随 $n$ 的变化（实线）和中心化后的结果（虚线），以及 $r_\infty$ 定律。
# （只提供核有闭式表达式的激活函数：在 $n = 400$ 时，tanh 的求积每拖动一次滑块就要花上几秒钟。）

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
# ## 小结
#
# - 对**任何**核，$r_\text{eff}$ 都趋于 $r_\infty = m_1^2/m_\text{off}$；有限 $n$ 下的曲线遵循
#   $n r_\infty/(n-1+r_\infty)$。
# - $r_\infty$ 不依赖于 $n$；它取决于非对角元素的**均方**，当非对角元素趋于零时它无界增长，
#   而 $r_\text{eff}(n)$ 永远不会超过 $n$。
# - 接近 1 的值表明存在一个占主导的常数模态（数据均值、偏置、深层 NNGP）；中心化可以去掉它。
#   深层 ReLU NTK 是“常数加白噪声”：中心化之后，它的秩 ≈ n。
# - $r_\infty$ 不看标签，因此它不可能给出泛化误差的上界：对于随机标签，在每个 $n$ 处误差都不低于 $\operatorname{Var}(y)$，
#   而 $\sqrt{r_\infty/n}\to 0$；无岭插值还会在此之上再加上它自身的离散程度。
#
# **练习：** 4.7（50 层 MLP 的核退化与有效秩）。
#
# **下一课：** [00 · 从这里开始](00_start_here.ipynb)
