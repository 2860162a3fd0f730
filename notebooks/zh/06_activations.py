# %% [markdown]
# # 06 · 激活函数：齐次性、特征值衰减、频谱偏置与奇偶性
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/06_activations.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F06_activations.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../06_activations.ipynb)）
#
# *教材第 4.5 节。*
#
# **本课内容**
# - 4.5.1：ReLU 核是正**齐次**的，而不是尺度不变的；erf 和 tanh 既不齐次，也不尺度不变。erf 核也不是什么“类 RBF”核：
#   它依赖于两个输入的范数和内积，而不依赖于它们的差，并且在输入很大时趋于反正弦核；
# - 4.5.2：核的特征值在圆周和球面上衰减得有多快（ReLU 按多项式衰减，erf 按几何级数衰减），
#   以及为什么这一衰减决定了每个频率被学会的**速度**（频谱偏置）；
# - 核究竟含有哪些频率：单个无偏置的 ReLU 层除 $k = 1$ 外没有奇数模态，更深的网络则有；
# - 奇偶性陷阱：没有偏置时，erf 和 tanh 网络只能表示**奇**函数。
#
# **预备知识：** 第 01–02 课。

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

nh.plotting.use_style()

# %% [markdown]
# ## 4.5.1 齐次性的正确理解
#
# > **教材原文：** 输入归一化到单位球面上时，ReLU 的核「仅依赖于输入向量的夹角」，
# > 这「赋予了 ReLU NTK 一种内在的尺度不变性」：$\Theta(ax, bx') \neq ab\,\Theta(x, x')$。  
# > **正确的说法：** 没有偏置时，ReLU 是正齐次的，由它构造的每个核也都是正齐次的：
# > 对 $a, b > 0$ 有 $\Theta(ax, bx') = ab\,\Theta(x,x')$。只有*归一化*之后的核才是尺度不变的。
# > 偏置会破坏齐次性；erf 和 tanh 从来就不是齐次的（它们会饱和）。在球面上只依赖于夹角，也并非 ReLU 所特有：
# > 权重为独立同分布高斯变量的 MLP，其核只通过 $\lVert x\rVert$、$\lVert x'\rVert$ 和 $x \cdot x'$ 依赖于输入，
# > 因此在球面上只依赖于夹角。
#
# 在一组尺度网格上计算比值 $\Theta(ax, bx') / (ab\,\Theta(x,x'))$：

# %%
pair = nh.sphere(2, d=4, seed=0)
scales = np.geomspace(0.25, 4, 9)
cases = {"ReLU, no bias": nh.mlp(2, "relu"), "ReLU, σ_b = 0.5": nh.mlp(2, "relu", sigma_b=0.5),
         "erf": nh.mlp(2, "erf", sigma_w=1.5), "tanh": nh.mlp(2, "tanh", sigma_w=1.5)}
ratio = {}
for name, net in cases.items():
    base = float(net.kernel(pair[:1], pair[1:]).ntk)
    ratio[name] = np.array([[float(net.kernel(a * pair[:1], b * pair[1:]).ntk) / (a * b * base)
                             for b in scales] for a in scales])
fig, axes = plt.subplots(1, 4, figsize=(13, 3.4))
for ax, (name, r) in zip(axes, ratio.items()):
    image = ax.imshow(np.log(r), cmap="RdBu_r", vmin=-3, vmax=3, origin="lower")
    ax.set_title(name)
    ax.set_xticks([0, 4, 8], ["¼", "1", "4"])
    ax.set_yticks([0, 4, 8], ["¼", "1", "4"])
    ax.set_xlabel("b (scale of x′)")
    ax.grid(False)
axes[0].set_ylabel("a (scale of x)")
axes[0].text(4, 4, "ratio 1\nat every (a, b):\nhomogeneous", ha="center", va="center", fontsize=11)
plt.colorbar(image, ax=axes, label="log Θ(ax,bx′)/(ab Θ(x,x′))", shrink=0.85)
plt.show()

# %%
log_gap = {name: float(np.abs(np.log(r)).max()) for name, r in ratio.items()}
case_names = {"ReLU, no bias": nh._("ReLU, no bias")}                                 # as printed
print({case_names.get(name, name): nh._("max |log ratio| = {gap:.2g}").format(gap=g) if g > 1e-10
       else nh._("1 to 1e-10") for name, g in log_gap.items()})
assert log_gap["ReLU, no bias"] < 1e-10, \
    f"ReLU without bias: ratio 1 to 1e-10 expected, measured |log ratio| {log_gap['ReLU, no bias']:.1e}"
for name in ["ReLU, σ_b = 0.5", "erf", "tanh"]:
    assert log_gap[name] > 1e-2, f"{name}: not homogeneous (|log ratio| > 0.01) expected, {log_gap[name]:.3g}"

# %% [markdown]
# ### erf 与 tanh：既看范数也看夹角，但与 RBF 毫不相像
#
# > **教材原文：** tanh 和 erf 的核「对输入向量的幅值和角度都敏感」，
# > 并具有「更平滑、更接近高斯过程（RBF 核）的几何结构」。  
# > **正确的说法：** 依赖于幅值这一点是对的：Williams (1997) 给出了 erf 核的闭式表达式
# > $\mathbb E[\operatorname{erf}(u)\operatorname{erf}(v)] = \tfrac2\pi\arcsin\big(2\Sigma_{12}/\sqrt{(1+2\Sigma_{11})(1+2\Sigma_{22})}\big)$，
# > 范数通过 $\Sigma_{11}$、$\Sigma_{22}$ 进入其中。“更接近 RBF”在这里没有意义：RBF 核只依赖于 $x - x'$
# > （它是*平稳*核），而 erf 核依赖于 $\lVert x\rVert$、$\lVert x'\rVert$ 和 $x \cdot x'$：
# > 它是**旋转不变**的（把两个输入一起旋转，核值不变），但不是 $x - x'$ 的函数。
# > 输入很小时 erf 近乎线性，（无偏置时）归一化核趋于线性核 $\cos\theta$；
# > 输入很大时 erf 近乎符号函数，归一化 NNGP 核趋于 $\operatorname{sign}$ 的**反正弦核**
# > $\tfrac2\pi\arcsin(\cos\theta) = 1 - 2\theta/\pi$，这个核是尺度不变的。（[勘误 A25](../../ERRATA.zh.md#a25)）
#
# 实验：对夹角 $\theta$ 取遍各值的输入对，计算单隐藏层 erf 网络的归一化 NNGP 核 $K(ax, ax')/K(ax, ax)$，
# 并观察它随输入尺度 $a$ 增大如何变化。（归一化 NTK 的极限与此不同。NTK 的第一层项在对角线上按 $a$ 增长，
# 因为预激活值很大时 $\operatorname{erf}'$ 是窄尖峰：当 $\lVert x\rVert^2 = d$ 时，$\Theta(ax, ax)/a \to 2/\pi$。
# 而在两个不同方向之间，它保持有界（$\theta = 60°$ 时，对 $a = 10 \dots 1000$ 有 $\Theta(ax, ax') \approx 0.70$），
# 所以当 $0 < \theta < \pi$ 时归一化 NTK 趋于 0；在 $\theta = \pi$ 处，由于无偏置的核是奇的，它在任何尺度下都等于 $-1$。
# 下面对这两点都做了检验。）

# %%
erf_net = nh.mlp(1, "erf", sigma_w=1.0)
angle = np.linspace(0, math.pi, 61)
ring = torch.tensor(np.stack([np.cos(angle), np.sin(angle)], 1)) * math.sqrt(2)    # |x|² = d = 2
input_scales = [0.1, 1.0, 10.0, 1000.0]
normalized = {a: (erf_net.kernel(a * ring[:1], a * ring).nngp[0]
                  / erf_net.kernel(a * ring[:1]).nngp[0, 0]).numpy() for a in input_scales}
fig, ax = plt.subplots(figsize=(10, 4))
hidden = {0.1: " (under cos θ)", 1000.0: " (under 1 − 2θ/π)"}
for a, k_norm in normalized.items():
    ax.plot(angle, k_norm, label=f"erf, input scale a = {a:g}{hidden.get(a, '')}")
ax.plot(angle, np.cos(angle), "k:", lw=1.5, label="cos θ (linear kernel)")
ax.plot(angle, 1 - 2 * angle / math.pi, "k--", lw=1.5, label="1 − 2θ/π (arcsine kernel of sign)")
ax.set_xlabel("angle θ between x and x′ (radians)")
ax.set_ylabel("normalized NNGP K(ax, ax′) / K(ax, ax)")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
plt.show()

# %%
to_linear = float(np.abs(normalized[0.1] - np.cos(angle)).max())
to_arcsine = float(np.abs(normalized[1000.0] - (1 - 2 * angle / math.pi)).max())
print(f"a = 0.1: max |K_norm − cos θ| = {to_linear:.1e};  "
      f"a = 1000: max |K_norm − (1 − 2θ/π)| = {to_arcsine:.1e}")
assert to_linear < 1e-4, f"small inputs: the linear kernel to 1e-4 expected, measured {to_linear:.2e}"
assert to_arcsine < 1e-3, f"large inputs: the arcsine kernel to 1e-3 expected, measured {to_arcsine:.2e}"
ntk_growth = float(erf_net.kernel(1000 * ring[:1]).ntk) / 1000
print(nh._("NTK diagonal at a = 1000: Θ(ax, ax)/a = {growth:.4f} (2/π = {limit:.4f})").format(
    growth=ntk_growth, limit=2 / math.pi))
assert abs(ntk_growth * math.pi / 2 - 1) < 0.01, f"Θ(ax, ax)/a → 2/π (1%) expected, measured {ntk_growth:.4f}"
at_60 = {a: float(erf_net.kernel(a * ring[:1], a * ring[20:21]).ntk) for a in (10.0, 100.0, 1000.0)}   # 60°
print(nh._("NTK at θ = 60°: Θ(ax, ax′) = {values} / normalized at a = 1000: {normalized:.4f}").format(
    values={a: round(v, 3) for a, v in at_60.items()}, normalized=at_60[1000.0] / (1000 * ntk_growth)))
assert all(0.65 < v < 0.75 for v in at_60.values()), f"Θ(ax, ax′) at 60° ≈ 0.70 (bounded) expected, {at_60}"

# %% [markdown]
# 两个极限都只依赖于夹角，但核本身并不是距离 $\lVert x - x'\rVert$ 的函数：
# 把两个输入平移同一个向量 $c$（距离不变），核值却变了。

# %%
x_pair = nh.sphere(2, d=3, seed=0)
shift = torch.tensor([[1.5, -1.0, 0.5]], dtype=torch.float64)
before = float(erf_net.kernel(x_pair[:1], x_pair[1:]).nngp)
after = float(erf_net.kernel(x_pair[:1] + shift, x_pair[1:] + shift).nngp)
distance = float((x_pair[0] - x_pair[1]).norm())
print(nh._("|x − x′| = {distance:.3f} for both pairs; erf NNGP {before:.3f} before the shift, {after:.3f} "
           "after").format(distance=distance, before=before, after=after))
assert abs(after - before) > 0.1 * abs(before), \
    f"erf kernel is not stationary: a change > 10% expected, measured {abs(after - before) / abs(before):.3f}"

# %% [markdown]
# ## 4.5.2 圆周上的特征值衰减
#
# 在圆周上，点积核 $\kappa(\cos(\theta - \theta'))$ 被傅里叶模态对角化：模态 $k$（$\cos k\theta$、$\sin k\theta$）的特征值为
# $\mu_k$，即 $\kappa$ 的第 $k$ 个傅里叶系数（Bietti & Mairal 2019；Basri et al. 2019）。
# 只需对一个点与圆周上 2048 个点之间的核做一次 FFT，就能得到全部 $\mu_k$。

# %%
def circle_spectrum(net, points=2048):
    _, circle = nh.circle(points)                            # (points, 2) with |x|² = d
    row = net.kernel(circle[:1], circle).ntk[0]              # κ(cos θ) at equally spaced angles
    return (torch.fft.rfft(row).real / row.numel()).numpy()  # μ_0, μ_1, ...

spectra = {"ReLU": circle_spectrum(nh.mlp(1, "relu")),
           "ReLU, σ_b² = 0.5": circle_spectrum(nh.mlp(1, "relu", sigma_b=math.sqrt(0.5))),
           "erf": circle_spectrum(nh.mlp(1, "erf", sigma_w=1.0))}
k = np.arange(1, 200)
fig, ax = plt.subplots()
for name, mu in spectra.items():
    keep = np.abs(mu[k]) > 1e-14
    ax.loglog(k[keep], np.abs(mu[k][keep]), ".", label=name)
ax.loglog(k, 0.3 * (k / 2.0) ** -2.0, "k--", lw=1, label="k⁻²")
ax.set_xlabel("frequency k")
ax.set_ylabel("eigenvalue μ_k")
ax.legend()
plt.show()

# %%
even = np.arange(22, 199, 2)
relu_slope = np.polyfit(np.log(even), np.log(spectra["ReLU"][even]), 1)[0]
relu_odd = float(np.abs(spectra["ReLU"][[3, 5, 7]]).max() / spectra["ReLU"][1])
biased_odd = spectra["ReLU, σ_b² = 0.5"][[3, 5, 7]] / spectra["ReLU, σ_b² = 0.5"][1]
erf_even = float(np.abs(spectra["erf"][2::2]).max() / spectra["erf"][1])
odd_k = np.arange(5, 26, 2)
erf_line = np.polyfit(odd_k, np.log(spectra["erf"][odd_k]), 1)                 # log μ_k ≈ slope·k + c
erf_off_line = float(np.abs(np.log(spectra["erf"][odd_k]) - np.polyval(erf_line, odd_k)).max())
print(nh._("ReLU: slope {slope:.3f} on even k; odd μ_3, μ_5, μ_7 below 1e-10 μ_1: {below}").format(
    slope=relu_slope, below=relu_odd < 1e-10))
print(nh._("ReLU with bias: odd μ_3, μ_5, μ_7 = {ratios} μ_1").format(ratios=np.round(biased_odd, 4)))
print(nh._("erf: μ_1, μ_3, μ_5 = {values}; every even μ_k (k ≥ 2) below 1e-12 μ_1: {below}").format(
    values=spectra["erf"][[1, 3, 5]].round(4), below=erf_even < 1e-12))
print(nh._("erf, odd k = 5 … 25: log μ_k has slope {slope:.2f} in k (μ_(k+2)/μ_k ≈ {ratio:.2f}), largest "
           "distance from the line {distance:.2f}").format(slope=erf_line[0], ratio=math.exp(2 * erf_line[0]),
                                                            distance=erf_off_line))
assert abs(relu_slope + 2) < 0.05, f"ReLU eigen-decay: slope -2 ± 0.05 expected, measured {relu_slope:.3f}"
assert relu_odd < 1e-10, f"one ReLU layer, no bias: odd μ_k (k ≥ 3) below 1e-10 μ_1 expected, {relu_odd:.1e}"
assert biased_odd.min() > 1e-3, \
    f"ReLU + bias: odd μ_3,5,7 above 1e-3 μ_1 expected, smallest {biased_odd.min():.2e}"
assert erf_even < 1e-12, f"erf without bias: even μ_k below 1e-12 μ_1 expected, measured {erf_even:.1e}"
assert erf_line[0] < -0.9 and erf_off_line < 0.25, \
    f"erf: log μ_k linear in k (slope < -0.9, off the line < 0.25) expected, slope {erf_line[0]:.3f}, " \
    f"off the line {erf_off_line:.3f}"

# %% [markdown]
# > **教材原文：** erf 的特征值谱「衰减得非常快（通常是指数级或超多项式级）」，ReLU 的则按多项式衰减，
# > 因此 ReLU「能够有效学习和表达高频特征」。  
# > **正确的说法：** 衰减速率是对的（ReLU NTK 在 $S^{d-1}$ 上有 $\mu_k \asymp k^{-d}$，在圆周上即 $k^{-2}$），
# > 但 ReLU 同样有频谱偏置：模态 $k$ 的学习速率正比于 $\mu_k$，而 $\mu_k$ 随 $k$ 下降（见后面几节）。
# > 而且没有偏置时，**单个**隐藏 ReLU 层的 NTK 除 $k = 1$ 外根本没有奇数模态（更深的网络有：见下一个单元格）。
# > （[勘误 A26](../../ERRATA.zh.md#a26)、[A27](../../ERRATA.zh.md#a27)）
#
# ### 奇数模态与深度
#
# 为什么单个无偏置的 ReLU 层没有 $\cos 3\theta$、$\cos 5\theta$、……？把激活函数拆成线性部分和偶部分：
# $\mathrm{ReLU}(u) = \tfrac u2 + \tfrac{|u|}2$。对相关系数为 $\rho$ 的联合高斯变量 $(u, v)$，交叉项 $\mathbb E[u\,|v|]$ 为零，
# $\mathbb E[uv]/4$ 是 $\rho$ 的线性函数，而 $\mathbb E[|u|\,|v|]/4$ 是 $\rho$ 的**偶**函数（把 $x'$ 换成 $-x'$ 会使 $v$ 变号，
# 而 $|v|$ 不变）。同理，由 $\mathrm{ReLU}' = \tfrac12 + \tfrac12\operatorname{sign}$ 得到 $\dot\Sigma = $ 常数加上 $\rho$
# 的奇函数，它再与线性的输入核相乘。只有一个隐藏层时 $\rho = \cos\theta$，所以 NTK 等于 $c\cos\theta$ 加上
# $\cos\theta$ 的偶函数：唯一的奇数模态是 $k = 1$。（1 阶反余弦核说的是同一件事：
# $\tfrac1{2\pi}(\sin\theta + (\pi - \theta)\cos\theta)$ 等于 $\tfrac14\cos\theta$ 加上偶部分，见 Cho & Saul 2009。）
# 第二层接收到的相关系数是 $\rho_2 = a + b\cos\theta + (\text{偶部分})$，它关于 $\cos\theta$ 不再是奇的；
# 于是 $\rho_2$ 的偶函数中含有 $\cos\theta$ 的奇次幂，奇次谐波随之出现。
# Leaky ReLU 和 GELU 也是“线性 + 偶”的形式，情况相同。
#
# 实验：核的奇部分 $\tfrac12(\kappa(t) - \kappa(-t))$（其中 $t = \cos\theta$）除以 $t$（若奇部分是线性的，结果为常数），
# 以及 $\mu_3/\mu_1$、$\mu_5/\mu_1$ 随深度的变化。

# %%
depths = np.arange(1, 7)
odd_modes = np.array([circle_spectrum(nh.mlp(int(L), "relu"))[[1, 3, 5]] for L in depths])
t_circle = np.cos(np.arange(2048) * 2 * math.pi / 2048)
away = np.abs(t_circle) > 0.1

def odd_part_spread(depth):
    """Relative spread of (κ(t) − κ(−t)) / 2t over the circle: 0 when the odd part is c·t."""
    _, circle = nh.circle(2048)
    row = nh.mlp(depth, "relu").kernel(circle[:1], circle).ntk[0].numpy()
    ratio = (row - np.roll(row, -1024))[away] / (2 * t_circle[away])       # κ(−t) sits half a turn away
    return float(np.ptp(ratio) / np.abs(ratio).max())

fig, ax = plt.subplots()
ax.plot(depths, odd_modes[:, 1] / odd_modes[:, 0], "o-", label="μ₃ / μ₁")
ax.plot(depths, odd_modes[:, 2] / odd_modes[:, 0], "s-", label="μ₅ / μ₁")
ax.set_xlabel("number of hidden ReLU layers (no bias)")
ax.set_ylabel("odd eigenvalue / μ₁")
ax.legend()
plt.show()

# %%
spreads = {L: odd_part_spread(L) for L in (1, 2)}
print(nh._("odd part / t: constant to 1e-10 with 1 layer: {constant}; varies by {spread:.2f} of its size "
           "with 2 layers").format(constant=spreads[1] < 1e-10, spread=spreads[2]))
print(nh._("μ₃/μ₁, μ₅/μ₁ by depth: {ratios}").format(
    ratios={int(L): f"{m[1] / m[0]:.3f}, {m[2] / m[0]:.3f}" if L > 1 else nh._("0 to 1e-12")
            for L, m in zip(depths, odd_modes)}))
assert spreads[1] < 1e-10, f"one layer: odd part exactly linear (spread < 1e-10) expected, {spreads[1]:.1e}"
assert spreads[2] > 0.1, f"two layers: odd part not linear (spread > 0.1) expected, measured {spreads[2]:.3f}"
assert abs(odd_modes[0, 1]) < 1e-12 * odd_modes[0, 0], f"one layer: μ₃ = 0 expected, {odd_modes[0, 1]:.1e}"
ratio_3, ratio_5 = odd_modes[1, 1] / odd_modes[1, 0], odd_modes[1, 2] / odd_modes[1, 0]
assert abs(ratio_3 - 0.0829) < 1e-3 and abs(ratio_5 - 0.0206) < 1e-3, \
    f"two layers: μ₃/μ₁ ≈ 0.0829, μ₅/μ₁ ≈ 0.0206 expected, measured {ratio_3:.4f}, {ratio_5:.4f}"
growth = np.diff(odd_modes[:, 1] / odd_modes[:, 0])
assert np.all(growth > 0), f"μ₃/μ₁ should grow with depth; its steps: {np.round(growth, 4)}"

# %% [markdown]
# 可见“无偏置的 ReLU 除 $k = 1$ 外没有奇数模态”只是关于**单个**隐藏层的结论。从两层开始，奇数模态就出现了，
# 并且相对于 $\mu_1$ 随深度增长（深度 2 时 $\mu_3/\mu_1 \approx 0.083$，$\mu_5/\mu_1 \approx 0.021$）。
# 我们比较的是比值，因为原始特征值本来就随深度增长：整个 NTK 都在增长（其对角线按 $L + 1$ 增长）。
# 本课末尾的交互探索会展示完整的谱。
#
# ### ……以及球面 $S^2$ 上
#
# 800 个随机点的 Gram 矩阵的谱近似于核积分算子的谱：现在 $k$ 次球谐函数对应的特征值 $\mu_k$ 的重数为 $2k+1$，
# 所以 ReLU NTK 第 $i$ 大的特征值按 $i^{-3/2}$ 下降（由 $k^{-3}$ 推得）。

# %%
sphere_points = nh.sphere(800, d=3, seed=0)
fig, ax = plt.subplots()
sphere_slopes = {}
for name, net in [("ReLU", nh.mlp(1, "relu")), ("erf", nh.mlp(1, "erf", sigma_w=1.0))]:
    lam = nh.eigenvalues(net.kernel(sphere_points).ntk).numpy()
    index = np.arange(1, 401)
    ax.loglog(index, lam[:400], label=name)
    sphere_slopes[name] = np.polyfit(np.log(index[10:200]), np.log(lam[10:200]), 1)[0]
ax.set_xlabel("index i")
ax.set_ylabel("i-th eigenvalue of the Gram matrix")
ax.legend()
plt.show()

# %%
print({name: round(float(s), 2) for name, s in sphere_slopes.items()})
assert -1.9 < sphere_slopes["ReLU"] < -1.3, \
    f"ReLU on S²: slope about -1.5 (between -1.9 and -1.3) expected, measured {sphere_slopes['ReLU']:.3f}"
assert sphere_slopes["erf"] < -3, \
    f"erf on S²: faster than i^-3 expected, measured slope {sphere_slopes['erf']:.3f}"

# %% [markdown]
# ## 频谱偏置 = 各模态各自的学习速度
#
# 在圆周上 256 个等距点上，用梯度流和平方损失训练无限宽网络。从 $f_0 = 0$（对初始化取平均）出发，在训练点上有
# $f_t = (I - e^{-\eta K t/n})\,y$（见第 07 课）；圆周上的 $K$ 是循环矩阵，所以傅里叶模态 $k$ 的残差按
# $e^{-\eta\lambda_k t/n}$ 衰减，其中 $\lambda_k = n\mu_k$：每个频率都有自己的时钟。

# %%
n = 256
theta_train, x_circle = nh.circle(n)
frequencies = [1, 4, 10]
target = sum(torch.cos(f * theta_train) for f in frequencies)
K = nh.mlp(1, "relu").kernel(x_circle).ntk
eigenvalues, eigenvectors = torch.linalg.eigh(K)
times = np.geomspace(1e-1, 1e5, 60)

def residual_of_mode(t, f):
    residual = eigenvectors @ (torch.exp(-eigenvalues * t / n) * (eigenvectors.T @ target))      # y - f_t
    return float(2 * (residual * torch.cos(f * theta_train)).mean())                     # its cos(f θ) part

curves = {f: [residual_of_mode(t, f) for t in times] for f in frequencies}
mu = (torch.fft.rfft(K[0]).real / n).numpy()        # this Gram matrix's μ_k (≈ the 2048-point ones above)
fig, ax = plt.subplots()
for f, c in curves.items():
    line, = ax.semilogx(times, c, label=f"mode k = {f}: gradient flow")
    ax.semilogx(times[::3], np.exp(-mu[f] * times[::3]), "o", mfc="none", ms=5, color=line.get_color(),
                label=f"mode k = {f}: exp(−μ_k t)")
ax.set_xlabel("training time t (η = 1)")
ax.set_ylabel("residual in mode k")
ax.legend(fontsize=9)
plt.show()

# %%
half_life = {f: float(times[np.argmax(np.array(c) < 0.5)]) for f, c in curves.items()}
print(nh._("time to halve each mode's residual: {times}").format(
    times={f: f"{t:.3g}" for f, t in half_life.items()}))
assert half_life[1] < half_life[4] < half_life[10], f"higher modes should be slower, half-lives {half_life}"
formula_gap = max(float(np.abs(np.array(curves[f]) - np.exp(-mu[f] * times)).max()) for f in frequencies)
assert formula_gap < 1e-9, f"each mode decays like exp(-μ_k t) (residuals start at 1): gap {formula_gap:.1e}"

# %% [markdown]
# ## 奇偶性陷阱
#
# 没有偏置时，erf 和 tanh 是奇函数，由它们构造的每个网络也是奇函数：$f(-x) = -f(x)$。
# 这种网络的核关于每个自变量都是奇的，因此核回归只能给出**奇函数**。当训练输入成镜像对出现（$x$ 与 $-x$）时
# （本例即如此），核回归拟合目标的**奇部分**，而忽略其偶部分。没有镜像对时，它可以拟合任意训练值：
# 只在 $x > 0$ 上训练时，它在那里拟合 $x^2$，而对 $x < 0$ 预测出 $-x^2$（见本节最后一项检验）。
# 在 $[-2, 2]$ 中的 21 个输入上拟合 $y = x^2 + x/2$（偶部分为 $x^2$，奇部分为 $x/2$）：

# %%
x_fit = torch.linspace(-2, 2, 21, dtype=torch.float64)[:, None]
x_plot = torch.linspace(-2.5, 2.5, 201, dtype=torch.float64)[:, None]
target = lambda x: x[:, 0] ** 2 + x[:, 0] / 2
nets = {"erf, no bias": nh.mlp(2, "erf", sigma_w=1.5),
        "erf, σ_b = 0.5": nh.mlp(2, "erf", sigma_w=1.5, sigma_b=0.5)}
grams = {name: net.kernel(torch.cat([x_fit, x_plot])).ntk for name, net in nets.items()}

def fit(name, y):
    K = grams[name]
    return nh.kernel_regression(K[:21, :21], K[21:, :21], y, ridge=1e-4)

predictions = {name: fit(name, target(x_fit)) for name in nets}
fig, ax = plt.subplots()
ax.plot(x_plot, target(x_plot), "k--", lw=1, label="target x² + x/2")
ax.plot(x_plot, x_plot[:, 0] / 2, "k:", lw=1.5, zorder=3, label="its odd part x/2")
for name, p in predictions.items():
    ax.plot(x_plot, p, label=f"NTK regression, {name}")
ax.plot(x_fit, target(x_fit), "ko", ms=4, label="training points")
ax.set_xlabel("input x")
ax.set_ylabel("prediction f(x)")
ax.legend()
plt.show()

# %% [markdown]
# 在镜像对称的输入上，无偏置的 Gram 矩阵把每个偶目标向量都映射为零（它是奇异的），
# 所以回归需要加一个小的岭参数（这里取 $10^{-4}$）。这样偶部分的贡献就只剩下舍入误差，岭参数又把它们放大 $10^4$ 倍：
# 约为预测值大小的 $10^{-10}$，远低于任何肉眼可见的程度（下面的检验允许到 $10^{-8}$）。

# %%
odd = predictions["erf, no bias"]
asymmetry = float((odd + odd.flip(0)).abs().max() / odd.abs().max())
even_only = float(fit("erf, no bias", x_fit[:, 0] ** 2).abs().max() / (x_fit[:, 0] ** 2).abs().max())
odd_part_gap = float((odd - x_plot[:, 0] / 2)[50:151].abs().max())          # on the training range [-2, 2]
errors = {name: float(((p - target(x_plot)) ** 2).mean()) for name, p in predictions.items()}
print(nh._("no bias: f(−x) = −f(x) to better than 1e-8 of max|f|: {odd}; the even part x² alone gives a "
           "prediction below 1e-8 of its size: {dropped}").format(
    odd=asymmetry < 1e-8, dropped=even_only < 1e-8))
print(nh._("no bias: max |f(x) − x/2| on [−2, 2] = {gap:.1e}").format(gap=odd_part_gap))
print(nh._("mean squared error on [−2.5, 2.5]: no bias {without:.3g}, with bias {with_bias:.3g}").format(
    without=errors["erf, no bias"], with_bias=errors["erf, σ_b = 0.5"]))
assert asymmetry < 1e-8, f"no bias: odd prediction to 1e-8 of its size expected, measured {asymmetry:.1e}"
assert even_only < 1e-8, f"no bias: the even part is dropped (below 1e-8) expected, {even_only:.1e}"
assert odd_part_gap < 0.05, f"no bias: the odd part x/2 is fitted (gap < 0.05) expected, {odd_part_gap:.3f}"
assert errors["erf, no bias"] > 1 and errors["erf, σ_b = 0.5"] < 0.05, \
    f"no bias misses x² (error > 1), bias fits (error < 0.05) expected, measured {errors}"

# %% [markdown]
# 没有镜像对时，偶部分并没有丢失，而是被奇延拓到了另一侧。只在 $[0.1, 2]$ 中的 20 个输入上用 $y = x^2$
# 训练同一个无偏置网络（岭参数 $10^{-6}$）：它在那里拟合 $x^2$，而奇性随即迫使它在 $-x$ 处取 $-x^2$。

# %%
x_half = torch.linspace(0.1, 2, 20, dtype=torch.float64)[:, None]
K_half = nets["erf, no bias"].kernel(torch.cat([x_half, x_plot])).ntk
half_fit = nh.kernel_regression(K_half[:20, :20], K_half[20:, :20], x_half[:, 0] ** 2, ridge=1e-6)
fig, ax = plt.subplots()
ax.plot(x_plot, x_plot[:, 0] ** 2, "k--", lw=1, label="target x²")
ax.plot(x_plot, -x_plot[:, 0] ** 2, "k:", lw=1.5, label="−x² (its odd reflection)")
ax.plot(x_plot, half_fit, label="NTK regression, erf, no bias")
ax.plot(x_half, x_half[:, 0] ** 2, "ko", ms=4, label="training points (x > 0 only)")
ax.set_xlabel("input x")
ax.set_ylabel("prediction f(x)")
ax.legend()
plt.show()

# %%
xs = x_plot[:, 0]
fit_gap = float((half_fit - xs ** 2)[(xs >= 0.1) & (xs <= 2)].abs().max())
mirror_gap = float((half_fit + xs ** 2)[(xs <= -0.1) & (xs >= -2)].abs().max())
print(nh._("trained on x in [0.1, 2]: max |f(x) − x²| there = {fit_gap:.1e}; "
           "max |f(x) + x²| on [−2, −0.1] = {mirror_gap:.1e}").format(fit_gap=fit_gap, mirror_gap=mirror_gap))
assert fit_gap < 0.01 and mirror_gap < 0.01, \
    f"fits x² for x > 0, −x² for x < 0 (to 0.01) expected, measured {fit_gap:.2e}, {mirror_gap:.2e}"

# %% [markdown]
# ## 动手探索
#
# 选择激活函数、深度和偏置：图中是 NTK 的圆周谱 $\mu_k$（偶数 $k$：实心圆，奇数 $k$：空心圆；
# 低于最大值 $10^{-12}$ 倍的值是舍入噪声，不予绘制）。打印出的一行会说明出现了哪些模态及其原因。

# %%
LINEAR_PLUS_EVEN = {"relu", "leaky_relu", "gelu"}        # φ(u) = c·u + (an even function of u)
ODD = {"erf", "tanh"}

def parity_story(activation, depth, sigma_b):
    if activation == "identity":
        return (nh._("a linear network: the kernel is a + b·cos θ, so only k = 0 (from the biases) "
                     "and k = 1 exist")
                if sigma_b > 0 else nh._("a linear network without bias: the kernel is b·cos θ, only k = 1"))
    if sigma_b > 0:
        return nh._("the bias breaks the parity of the input kernel: even and odd modes are all present")
    if activation in ODD:
        return nh._("odd activation without bias: f(−x) = −f(x), the kernel is odd, "
                    "only odd k at every depth")
    if depth == 1:
        return nh._("one layer of a 'linear + even' activation: the kernel's odd part is c·cos θ, "
                    "no odd k ≥ 3")
    return nh._("two or more layers: the input to layer 2 is no longer odd in cos θ, "
                "so odd modes k ≥ 3 appear")

def draw_spectrum(activation, depth, sigma_b):
    mu = circle_spectrum(nh.mlp(depth, activation, sigma_w=1.4, sigma_b=sigma_b), points=512)
    k = np.arange(1, 100)
    floor = 1e-12 * np.abs(mu).max()
    fig, ax = plt.subplots()
    shown = []
    for parity, name in [(0, "even k"), (1, "odd k")]:
        ks = k[k % 2 == parity]
        values = np.abs(mu[ks])
        keep = values > floor
        if keep.any():
            ax.loglog(ks[keep], values[keep], "o", mfc="none" if parity else None, ms=4, label=name,
                      color=nh.plotting.PALETTE[parity])                 # even: blue, odd: vermillion
            shown.append(values[keep])
    values = np.concatenate(shown)
    ax.set_ylim(values.min() / 3, values.max() * 3)
    ax.set_xlim(0.8, 125)                                                 # k = 1 … 99 at every setting
    ax.set_title(f"{activation}, depth {depth}, σ_b = {sigma_b:.2f}")
    ax.set_xlabel("frequency k")
    ax.set_ylabel("eigenvalue μ_k")
    ax.legend()
    odd_rel = np.abs(mu[3:100:2]).max() / np.abs(mu).max()
    even_rel = np.abs(mu[2:100:2]).max() / np.abs(mu).max()
    present = lambda r: (nh._("present (largest {size:.2g} of μ_max)").format(size=r) if r > 1e-12
                         else nh._("absent"))
    print(nh._("{activation}, depth {depth}, σ_b = {sigma_b:.2f}: odd k ≥ 3 {odd}, even k ≥ 2 {even}. "
               "{story}").format(
        activation=activation, depth=depth, sigma_b=sigma_b, odd=present(odd_rel), even=present(even_rel),
        story=parity_story(activation, depth, sigma_b)))

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_spectrum, activation=nh.widgets.activation_dropdown("relu"),
                       depth=nh.widgets.depth_slider(1, max=10),
                       sigma_b=nh.widgets.sigma_slider("sigma_b", 0.0, max=1.0))

# %% [markdown]
# ## 小结
#
# - 无偏置的 ReLU：$\Theta(ax, bx') = ab\,\Theta(x,x')$（齐次，而非尺度不变）；偏置和会饱和的激活函数都会破坏这一性质。
#   erf 核依赖于 $\lVert x\rVert$、$\lVert x'\rVert$ 和 $x \cdot x'$（旋转不变，但不平稳）：归一化之后，
#   输入很小时它是线性核（无偏置时），输入很大时是反正弦核 $1 - 2\theta/\pi$，无论如何都不是 RBF 核。
# - 在圆周上，ReLU NTK 的特征值按 $k^{-2}$ 下降（在 $S^{d-1}$ 上按 $k^{-d}$）；erf 的特征值按几何级数下降，
#   且无偏置时只含奇数 $k$。
# - 只有**一个**无偏置的 ReLU 隐藏层时，NTK 没有 $k \geq 3$ 的奇数模态（ReLU = 线性部分 + 偶部分）；
#   从两层开始它们出现（深度 2 时 $\mu_3/\mu_1 \approx 0.083$），并相对于 $\mu_1$ 随深度增长；有偏置时，任何深度都有奇数模态。
# - 每个模态都按自己的速率 $\mu_k$ 被学会：这就是频谱偏置，ReLU 也不例外。
# - 无偏置的奇激活函数只能表示奇函数：在镜像对称的训练输入上，它们保留目标的奇部分，丢掉其偶部分。
#
# **练习：** 4.4（ReLU 与 erf：齐次性、特征值衰减、奇偶性）和 4.8（激活函数与双下降）。
#
# **下一课：** [07 · 训练动力学](07_training_dynamics.ipynb)
