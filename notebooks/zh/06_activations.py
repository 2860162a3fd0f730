# %% [markdown]
# # 06 · 激活函数：ReLU 与 tanh 的对照，从齐次性到频谱偏置
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/06_activations.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F06_activations.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../06_activations.ipynb)）
#
# *教材第 4.5 节。*
#
# **本课内容**
# - 4.5.1：为什么无偏置 ReLU 网络的核是**正齐次**的，$\Theta(ax, bx') = ab\,\Theta(x, x')$，
#   以及 tanh 和 erf 的核又如何依赖于输入的大小；
# - 4.5.2：激活函数的光滑程度如何决定核特征值的衰减：ReLU 是幂律，tanh 和 erf 比任何幂次都快；
#   以及为什么这个衰减就是每个频率被学到的速度；
# - 一个核究竟含有哪些频率：无偏置的 ReLU 要两层才有奇数频率，无偏置的 tanh 只有奇数频率，
#   因而只能拟合奇函数；
# - 4.5.3：ReLU 与 tanh 的对照表，包括深度对二者各自的影响。
#
# **预备知识：** 第 01–02 课（NTK 及其逐层递归）。

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
from ntk_helpers.course import activations as course     # this lesson's spectra, picture and explorer

nh.plotting.use_style()
PALETTE = nh.plotting.PALETTE
SQRT2 = math.sqrt(2)

# %% [markdown]
# ## 一图看懂
#
# 激活函数 $\phi$ 只通过两个高斯平均进入 NTK：$\mathbb E[\phi(u)\phi(v)]$ 和
# $\mathbb E[\phi'(u)\phi'(v)]$（第 02 课）。ReLU 在 $0$ 处的折点使它的 NTK 在两个输入重合处出现一个尖角
# （通过 $\mathbb E[\phi'\phi']$ 中 $\phi'$ 的跳跃），而尖角的代价是特征值的幂律尾巴；tanh 是光滑的，
# 它的特征值比任何幂次衰减得都快。

# %%
course.idea_figure()
plt.show()

# %% [markdown]
# 左：两个激活函数。中：一个隐藏层（无偏置）的 NTK $\kappa$，取圆周上的一点 $x$ 与夹角为 $\theta$ 的点 $x'$，
# 看它从 $\theta = 0$ 处的值下降了多少，即 $1 - \kappa(\theta)/\kappa(0)$，画在对数坐标上：在 $\theta = 0$ 附近，
# ReLU 的按 $\lvert\theta\rvert$ 下降（斜率 1，尖角），tanh 的按 $\theta^2$ 下降（斜率 2，圆滑的顶部）。
# 右：核在圆周上的特征值 $\mu_k$，每个频率 $k$ 一个（定义见 §4.5.2），除以其中最大的 $\mu_{\max}$。虚线
# $0.3\,k^{-2}$ 是斜率为 $-2$ 的参考线，常数取得让它贴近 ReLU 的点。tanh 只显示奇数
# $k$，并在 $k = 25$ 处截止：它的偶数阶特征值恰好为零，而低于 $10^{-10}\mu_{\max}$ 的系数我们不画，
# 这是在计算它们的数值积分的误差之上留出的安全余量（两点都在 §4.5.2 解释）。
#
# ## 4.5.1 齐次性，以及 tanh 用什么代替它
#
# ReLU 是**正齐次**的：对 $c > 0$，$\mathrm{ReLU}(cu) = c\,\mathrm{ReLU}(u)$ 且 $\mathrm{ReLU}'(cu) =
# \mathrm{ReLU}'(u)$。没有偏置时，把输入缩放为 $x \to ax$ 会把每个预激活都乘以 $a$，
# 于是每一层的前向信号乘以 $a$，反向信号不变。NTK 是两者乘积之和，每个输入各贡献一个因子，因此
#
# $$\Theta(ax, bx') = ab\,\Theta(x, x'), \qquad \Sigma(ax, bx') = ab\,\Sigma(x, x') \qquad (a, b > 0,\ \sigma_b = 0).$$
#
# 只有*归一化*的核 $\Theta(x, x')/\sqrt{\Theta(x,x)\Theta(x',x')}$ 才是尺度不变的。偏置会加上一个
# 不随尺度变化的项；tanh 和 erf 则根本不是齐次的：在 $0$ 附近它们是线性的（$\tanh u \approx
# u$），$u$ 很大时它们饱和于 $\pm 1$。
#
# 实验：两个相距 $60°$ 的输入，一起乘以 $a$。对每个网络画出 $\Theta(ax, ax')/(a^2
# \Theta(x, x'))$：当且仅当核是齐次的，它在每个 $a$ 处都等于 1。每条曲线都除以它自己网络在 $a = 1$ 处的 $\Theta(x, x')$，所以一条曲线走平时的高度取决于该网络在 $a = 1$ 处的核，它本身并不说明齐次与否。

# %% [markdown]
# **运行下一个单元格之前先预测**（先不要往下看）：**带**偏置的 ReLU，在最小的尺度 $a = 0.01$ 处，它的比值会在 1 之上、等于 1，还是在 1 之下？

# %%
pair = nh.pair_at_angle(math.radians(60), d=2)                 # |x|² = d
scales = np.geomspace(0.01, 10, 16)
networks = {nh._("ReLU, no bias"): nh.mlp(2, "relu"), nh._("ReLU, σ_b = 0.5"): nh.mlp(2, "relu", sigma_b=0.5),
            "tanh": nh.mlp(2, "tanh", sigma_w=1.5), "erf": nh.mlp(2, "erf", sigma_w=1.5)}
scaled = {}
for name, net in networks.items():
    base = float(net.kernel(pair[:1], pair[1:]).ntk)
    scaled[name] = np.array([float(net.kernel(a * pair[:1], a * pair[1:]).ntk) / (a * a * base)
                             for a in scales])
linear_limit = float(nh.mlp(2, "identity", sigma_w=1.5).kernel(pair[:1], pair[1:]).ntk) / \
    float(networks["tanh"].kernel(pair[:1], pair[1:]).ntk)
fig, ax = plt.subplots(figsize=(8, 4))
for (name, ratio), marker in zip(scaled.items(), "os^v"):
    ax.loglog(scales, ratio, marker + "-", ms=4, label=name)
ax.axhline(linear_limit, color="k", ls=":", lw=1,
           label=nh._("tanh's small-input limit: the linear network"))
ax.set_xlabel(nh._("input scale a"))
ax.set_ylabel(nh._("Θ(ax, ax′) / (a² Θ(x, x′))"))
ax.set_title(nh._("Homogeneous means flat at 1; plateau heights depend on the kernel at a = 1"))
ax.legend(fontsize=9)
plt.show()

# %% [markdown]
# 点线是把 tanh 换成恒等函数的同一网络的 NTK，除以 tanh 网络在 $a = 1$ 处的
# NTK：对小输入，tanh 的核就是线性网络的核，按 $a^2$ 缩放，因为 $\tanh'(0) =
# 1$。（erf 在它自己的高度上走平：见“检验你的理解”第 2 题。）对大输入曲线下降：饱和的 tanh 既不随输入增长，
# 也不再把梯度传回去。
#
# <details><summary>答案：带偏置的 ReLU 在小输入下</summary>
#
# 只有无偏置的 ReLU 停在 1。带偏置的 ReLU 远在 1 之上：$a = 0.01$ 时约为 3700（$a = 0.1$ 时为 37）。偏置项不随输入缩小，所以对小输入，核趋于一个常数，
# 而分母 $a^2\Theta(x, x')$ 趋于 0：比值按 $a^{-2}$ 增长。
#
# </details>

# %% tags=["check"]
grid = [0.25, 1.0, 4.0]
mixed = [float(networks[nh._("ReLU, no bias")].kernel(a * pair[:1], b * pair[1:]).ntk) / (a * b) for a in grid
         for b in grid]
nh.check_close("ReLU, no bias: Θ(ax, bx′)/(ab) for a, b ∈ {¼, 1, 4} is one number",
               np.array(mixed) / mixed[4], np.ones(9), rtol=1e-12)
nh.check_close("ReLU, no bias: Θ(ax, ax′)/(a²Θ(x, x′)) over a = 0.01 … 10", scaled[nh._("ReLU, no bias")],
               np.ones_like(scales), rtol=1e-12)
nh.check_close("tanh at a = 0.01: the linear network's kernel (ratio)", scaled["tanh"][0] / linear_limit, 1.0,
               rtol=0.005)
nh.check_between("tanh at a = 10: far below 1 (saturation)", scaled["tanh"][-1], 0, 0.1)
with_bias = networks[nh._("ReLU, σ_b = 0.5")]
base_bias = float(with_bias.kernel(pair[:1], pair[1:]).ntk)
bias_ratio = [float(with_bias.kernel(a * pair[:1], a * pair[1:]).ntk) / (a * a * base_bias)
              for a in (0.1, 0.01)]
nh.check_close("ReLU with σ_b = 0.5: the ratio at a = 0.1 and 0.01 (37, 3700)",
               [bias_ratio[0] / 36.71, bias_ratio[1] / 3746], [1.0, 1.0], rtol=0.01)
nh.check_close("ReLU with σ_b = 0.5: ratio(0.01) / ratio(0.1), about 100 (like a⁻²)",
               bias_ratio[1] / bias_ratio[0], 100, rtol=0.05)

# %% [markdown]
# ### tanh 与 erf：输入的大小决定核的形状
#
# 和每个权重独立同分布于高斯分布的 MLP 一样，无偏置的 tanh 或 erf 网络的核仅通过
# $\lVert x\rVert$、$\lVert x'\rVert$ 和 $x \cdot x'$ 依赖于输入：这些核是**旋转不变**的（两个输入一起旋转，
# 什么都不变）。这与齐次性无关。tanh 和 erf 缺少的是缩放关系：它们的*归一化*核依赖于尺度。
# erf 有闭式（Williams 1997），我们用它，因为它可以达到任何尺度：
#
# $$\mathbb E[\operatorname{erf}(u)\operatorname{erf}(v)] = \tfrac2\pi\arcsin\frac{2\Sigma_{12}}{\sqrt{(1 + 2\Sigma_{11})
#   (1 + 2\Sigma_{22})}}.$$
#
# 对小输入 erf 是线性的，一个隐藏层的归一化 NNGP 趋于 $\cos\theta$；对大输入
# erf 趋于 $\operatorname{sign}$，一个隐藏层的归一化 NNGP 趋于 $\operatorname{sign}$ 的**反正弦核**
# $\tfrac2\pi\arcsin(\cos\theta) = 1 - 2\theta/\pi$。tanh 没有闭式；本软件包
# 用数值积分计算它，这把预激活的方差限制在 500 以内，所以这里它的最大尺度是
# $a = 20$。下面是一个隐藏层的归一化 NNGP $K(ax, ax')/K(ax, ax)$（$\sigma_w = 1$）减去 $\cos\theta$：
# 线性核是零线，反正弦核是虚线 $1 - 2\theta/\pi - \cos\theta$。

# %%
angle = np.linspace(0, math.pi, 61)
ring = torch.tensor(np.stack([np.cos(angle), np.sin(angle)], 1)) * SQRT2       # |x|² = d = 2
one_layer = {"erf": nh.mlp(1, "erf", sigma_w=1.0), "tanh": nh.mlp(1, "tanh", sigma_w=1.0)}
input_scales = {"erf": [0.1, 1.0, 10.0, 1000.0], "tanh": [0.1, 1.0, 3.0, 20.0]}
normalized = {(name, a): (net.kernel(a * ring[:1], a * ring).nngp[0]
                          / net.kernel(a * ring[:1]).nngp[0, 0]).numpy()
              for name, net in one_layer.items() for a in input_scales[name]}
fig, axes = plt.subplots(1, 2, figsize=(12, 4), sharey=True)
for ax, name in zip(axes, one_layer):
    for a, marker in zip(input_scales[name], "os^D"):
        ax.plot(angle, normalized[name, a] - np.cos(angle), marker, ms=4, mfc="none",
                label=nh._("input scale a = {a:g}").format(a=a))
    ax.axhline(0, color="k", ls=":", lw=1.5, label=nh._("cos θ (linear kernel)"))
    ax.plot(angle, 1 - 2 * angle / math.pi - np.cos(angle), "k--", lw=1,
            label=nh._("1 − 2θ/π (arcsine kernel of sign)"))
    ax.set_xlabel(nh._("angle θ between x and x′ (radians)"))
    ax.legend(fontsize=8)
axes[0].set_ylabel(nh._("normalized NNGP minus cos θ"))
axes[0].set_title(nh._("erf (closed form): from cos θ to the arcsine kernel as a grows"))
axes[1].set_title(nh._("tanh (quadrature): at a = 20 it stops within 0.03 of the arcsine kernel"))
plt.show()

# %% [markdown]
# $a = 0.1$ 时标记落在 $\cos\theta$（零线）上，随着 $a$ 增大移向 $1 - 2\theta/\pi$：
# erf 的在 $a = 1000$ 时到达它，tanh 的在 $a = 20$（其数值积分允许的最大尺度）时与它相差 0.03 以内。
# 这两个极限都是
# 关于**一个隐藏层的 NNGP** 的结论。归一化 NTK 在大尺度下有另一个极限：它的
# 导数项 $\mathbb E[\operatorname{erf}'(u)\operatorname{erf}'(v)]$ 集中在两个
# 预激活都接近 0 的地方，因此 $\Theta(ax, ax)$ 按 $a$ 增长，而不同方向之间的 $\Theta(ax, ax')$
# 保持有界，归一化 NTK 对 $0 < \theta < \pi$ 趋于 0（下面的检验）。而更深的
# 层会再次施加这个映射，所以反正弦形状也不是深层网络的极限。
#
# 旋转不变并不等于*平稳*：平稳核（例如 RBF 核）只依赖于
# $x - x'$。把两个输入平移同一个向量，它们的距离不变，但 erf 核变了：

# %%
x_pair = nh.sphere(2, d=3, seed=0)
shift = torch.tensor([[1.5, -1.0, 0.5]], dtype=torch.float64)
before = float(one_layer["erf"].kernel(x_pair[:1], x_pair[1:]).nngp)
after = float(one_layer["erf"].kernel(x_pair[:1] + shift, x_pair[1:] + shift).nngp)
print(nh._("|x − x′| = {distance:.3f} for both pairs; erf NNGP {before:.3f} before the shift, {after:.3f} "
           "after").format(distance=float((x_pair[0] - x_pair[1]).norm()), before=before, after=after))

# %% tags=["check"]
nh.check_close("erf, a = 0.1: normalized NNGP = cos θ", normalized["erf", 0.1], np.cos(angle), atol=1e-4)
nh.check_close("tanh, a = 0.1: normalized NNGP = cos θ", normalized["tanh", 0.1], np.cos(angle), atol=1e-3)
nh.check_close("erf, a = 1000: normalized NNGP = 1 − 2θ/π", normalized["erf", 1000.0],
               1 - 2 * angle / math.pi, atol=1e-3)
nh.check_close("tanh, a = 20: normalized NNGP within 0.03 of 1 − 2θ/π", normalized["tanh", 20.0],
               1 - 2 * angle / math.pi, atol=0.03)
erf_ntk = one_layer["erf"]
growth = float(erf_ntk.kernel(1000 * ring[:1]).ntk) / 1000
nh.check_close("erf NTK, a = 1000: Θ(ax, ax)/a → 2/π", growth, 2 / math.pi, rtol=0.01)
at_60 = [float(erf_ntk.kernel(a * ring[:1], a * ring[20:21]).ntk) for a in (10.0, 100.0, 1000.0)]
nh.check_between("erf NTK at 60°, a = 10, 100, 1000: bounded (spread)", np.ptp(at_60), 0, 0.05)
nh.check_between("erf normalized NTK at 60°, a = 1000: near 0", at_60[-1] / (1000 * growth), 0, 0.002)
nh.check_between("erf NNGP: relative change under the shift", abs(after - before) / abs(before), 0.1, np.inf)

# %% [markdown]
# ## 4.5.2 圆周上的特征值衰减
#
# 在圆周上，角度为 $\alpha$ 和 $\beta$ 的两点之间的 NTK 是它们之差的函数 $\kappa(\cos(\alpha -
# \beta))$。这样的核被傅里叶模态对角化：$\cos k\theta$ 和 $\sin k\theta$
# 是它的积分算子（圆周上的均匀测度）的特征函数，特征值为
# $\mu_k = \tfrac1{2\pi}\int_{-\pi}^{\pi}\kappa(\cos\theta)\cos k\theta\,d\theta$，即在这种归一化下
# $\kappa(\cos\theta)$ 的第 $k$ 个余弦系数。这些 $\mu_k$ 是核的 **Mercer 系数**。对一点与 768 个等距点之间的核做一次 FFT 就得到它们（`course.circle_spectrum`；tanh 的核来自较慢的数值积分，用 384 个点）。

# %% [markdown]
# 为什么光滑程度重要？一个函数越光滑，它的傅里叶级数衰减得越快。ReLU 的
# $\kappa(\cos\theta)$ 有一个尖角，在 $\theta = 0$ 附近 $\kappa \approx \kappa(1)(1 - c\,\lvert\theta\rvert)$，而
# 尖角使傅里叶系数按 $k^{-2}$ 衰减。在球面 $S^{d-1}$ 上，一个隐藏层的 ReLU
# NTK 的非零系数按 $k^{-d}$ 衰减（Bietti & Mairal 2019），更深的 ReLU NTK 保持同样的 $k^{-d}$
# （Bietti & Bach 2021）。带偏置时（Geifman et al. 2020），或有两个及以上隐藏层时（Chen & Xu 2021），
# 它在球面上的函数空间就是 Laplace 核 $e^{-\lVert x - x'\rVert}$ 的函数空间；无偏置且只有一个隐藏层时
# 它更小：缺少奇数次 $k \ge 3$（见下一节）。

# %% [markdown]
# 光滑的激活函数给出光滑的核：
#
# - **erf** 是整函数，但离开实轴后它按 $e^{y^2}$ 增长，而高斯平均能感受到这种增长：它的一隐藏层核作为 $\rho = \cos\theta$ 的函数，只在闭式的奇点 $\rho_0 = 1 + 1/(2q)$ 之内解析（$q$：预激活的方差，这里为 $\sigma_w^2$）。仅仅是整函数并不能给出更多。一个在 $\rho_0 > 1$ 之内解析的函数，其系数按**几何**方式衰减，即按 $r^k$，$r = \rho_0 - \sqrt{\rho_0^2 - 1}$（`course.erf_rate`）。
# - **tanh** 只在带状区域 $\lvert\operatorname{Im} u\rvert < \pi/2$ 内解析（极点在 $u = \pm i\pi/2$）。由 Hille 关于埃尔米特级数的定理（Hille 1940），一个在某个带状区域内解析、而在更宽的带状区域内不解析的函数，其埃尔米特系数 $a_n$ 按 $e^{-c\sqrt n}$ 衰减，$c$ 由带宽决定，且不会更快。因此它的对偶核 $\sum_n a_n^2\rho^n$（Daniely et al. 2016）的收敛半径恰好为 1；又因为它的系数为正，它在 $\rho = 1$ 处不解析（Pringsheim 定理）。$\tanh'$ 以及由两者构成的 NTK 也是如此。它在 $[-1, 1]$ 上仍然无穷次可微，所以它的 $\mu_k$ 比 $k$ 的任何幂次都衰减得快。
# - 为什么不是几何衰减？如果 $\lvert\mu_k\rvert \le C r^k$，$r < 1$，级数 $\sum_k \mu_k e^{ik\theta}$ 会使 $\kappa(\cos\theta)$ 在 $\theta = 0$ 附近是 $\theta$ 的解析偶函数，从而是 $\theta^2$ 的幂级数，而 $\theta^2 = \arccos^2\rho$ 在 $\rho = 1$ 处解析：$\kappa$ 在那里就会解析，矛盾。下面的测量与此相符。
#
# 区分这些衰减的一个统计量是**步比** $\mu_{k+2}/\mu_k$：对幂律它趋于 1（$(k/(k+2))^p \to 1$），对几何衰减它趋于常数 $r^2 < 1$，对介于两者之间的衰减，它缓慢地向 1 爬升。

# %% [markdown]
# **运行下一个单元格之前先预测：** $\sigma_w = 1$ 时 erf 的速率是 $r = 0.382$。如果 $\mu_k/\mu_{\max}$ 恰好等于 $r^{k-1}$，erf 的系数会在哪个 $k$ 处落到图的噪声底 $10^{-13}\mu_{\max}$ 之下？

# %%
settings = {"ReLU": ("relu", SQRT2), "tanh": ("tanh", 1.0), "erf": ("erf", 1.0)}   # one hidden layer, no bias
spectra = {name: course.circle_spectrum(act, 1, sigma_w) for name, (act, sigma_w) in settings.items()}
r_squared = course.erf_rate(1.0) ** 2
fig, axes = plt.subplots(1, 2, figsize=(13, 4))
for (name, mu), color in zip(spectra.items(), PALETTE):
    act = settings[name][0]
    # the modes present (ReLU's k = 0 lies off the logarithmic axis)
    ks = np.r_[1, 2:81:2] if act == "relu" else np.arange(1, 81, 2)
    relative = mu[ks] / np.abs(mu).max()
    keep = relative > course.noise_floor(act)
    axes[0].loglog(ks[keep], relative[keep], "o", ms=3, color=color, label=name)
    pairs = ks[keep][:-1][np.isin(ks[keep][:-1] + 2, ks[keep])]
    axes[1].semilogx(pairs, [course.step_ratio(mu, k) for k in pairs], "o-", ms=3, color=color, label=name)
axes[0].loglog(np.arange(2, 81), 0.3 * np.arange(2, 81) ** -2.0, "k--", lw=1, label="0.3 k⁻²")
axes[0].axhline(course.QUADRATURE_FLOOR, color="0.5", ls=":",
                label=nh._("tanh's floor: 10⁻¹⁰ μ_max, above the quadrature error"))
axes[0].set_ylabel("μ_k / μ_max")
axes[0].set_title(nh._("ReLU falls like k⁻², tanh and erf far faster"))
axes[1].axhline(r_squared, color=PALETTE[2], ls="--", lw=1, label=nh._("erf: r² from the closed form"))
axes[1].axhline(1, color="k", ls=":", lw=1, label=nh._("1: the limit of every power law"))
axes[1].set_ylabel("μ_(k+2) / μ_k")
axes[1].set_title(nh._("Step ratio: ReLU's climbs to 1, erf's levels at r², tanh's keeps climbing"))
for ax in axes:
    ax.set_xlabel(nh._("frequency k"))
    ax.legend(fontsize=9)
plt.show()

# %% [markdown]
# 左图中，ReLU 的偶数阶系数沿着 $k^{-2}$ 参考线；tanh 和 erf 的（只有奇数 $k$）向下弯折。
# 右图中，每个点把一个系数与高两阶的系数相比（只取存在的模态，且在噪声底之上）。
# erf 的比值缓慢爬升到由闭式算出的虚线 $r^2 = 0.146$ 之下一点（$k = 13$ 处 0.135，$k = 23$ 处 0.140）：
# 这是几何衰减。tanh 的比值上升得更快（从 $k = 13$ 处的 0.19 到 $k = 23$ 处的 0.25），这与非几何的衰减相符
# （噪声底之上只有十三个奇数模态 $k = 1, 3, \dots, 25$，给出十二个比值，所以这是证据，不是证明；原因见上文）。它仍远低于 ReLU 那些趋于 1 的比值。
#
# <details><summary>答案：erf 的频谱在哪里截止</summary>
#
# 纯粹的 $r^{k-1}$ 在 $k - 1 > \ln 10^{-13}/\ln r = 31.1$ 时落到 $10^{-13}$ 之下：它会保留 $k = 31$，丢掉
# $k = 33$。图中 erf 的奇数 $k$ 保留到 29（$\mu_{29} = 1.7 \cdot 10^{-13}\mu_{\max}$，$\mu_{31} = 2.5 \cdot
# 10^{-14}\mu_{\max}$）：早了一个奇数阶，因为在走平之前步比略低于 $r^2$，所以系数比 $r^k$ 衰减得略快。
#
# </details>
#
# <details><summary>数值细节：图中的频谱在哪里截止</summary>
#
# 闭式系数（ReLU、erf）低于 $10^{-13}\mu_{\max}$ 的被舍去（float64 舍入误差）。tanh 的核来自数值积分（对 $z \in [-7, 7]$ 用梯形法则，步长 0.33），精度约为核的 $10^{-10}$。在更细的网格上重新计算（步长 0.1，$z \in [-11, 11]$，`course.fine_tanh_spectrum`），它的系数最多偏差 $3 \cdot 10^{-11}\mu_{\max}$（在 $k = 1$ 处），$k \ge 25$ 时约偏差 $10^{-12}\mu_{\max}$。作为安全余量，我们舍去所有低于 $10^{-10}\mu_{\max}$ 的 tanh 系数（`course.QUADRATURE_FLOOR`），所以图中 tanh 的频谱止于 $k = 25$ 是我们的选择，而不是核本身的性质：更细的网格给出 $\mu_{27} = 5.4 \cdot 10^{-11}\mu_{\max}$ 和 $\mu_{29} = 1.4 \cdot 10^{-11}\mu_{\max}$。
#
# </details>

# %% tags=["check"]
relu, tanh_mu, erf_mu = spectra["ReLU"], spectra["tanh"], spectra["erf"]
nh.check_close("ReLU: local exponent log(μ_k/μ_(k+2))/log((k+2)/k) at k = 20 and 40 (2)",
               [course.local_exponent(relu, k) for k in (20, 40)], [2.0, 2.0], atol=0.03)
nh.check_close("erf: step ratio at k = 25 / r² of the closed form", course.step_ratio(erf_mu, 25) / r_squared,
               1.0, rtol=0.05)
nh.check_between("erf: step ratio at k = 23 / at k = 13 (levelled off)",
                 course.step_ratio(erf_mu, 23) / course.step_ratio(erf_mu, 13), 1.0, 1.06)
nh.check_between("tanh: step ratio at k = 23 / at k = 13 (still climbing)",
                 course.step_ratio(tanh_mu, 23) / course.step_ratio(tanh_mu, 13), 1.2, 1.4)
nh.check_close("tanh: step ratios at k = 13 and 23 (0.19, 0.25)",
               [course.step_ratio(tanh_mu, 13), course.step_ratio(tanh_mu, 23)], [0.19, 0.245], atol=0.006)
nh.check_close("erf: step ratios at k = 13 and 23 (0.135, 0.140)",
               [course.step_ratio(erf_mu, 13), course.step_ratio(erf_mu, 23)], [0.135, 0.1395], atol=0.002)
erf_kept = [k for k in range(1, 81) if erf_mu[k] / np.abs(erf_mu).max() > course.ROUNDING_FLOOR]
nh.check_close("erf: a pure r^(k−1) would cross 1e-13 at k − 1 = 31.1", math.log(1e-13) / math.log(
    course.erf_rate(1.0)), 31.1, atol=0.05)
nh.check_close("erf: the last k above the floor (29)", max(erf_kept), 29, atol=0.5)
nh.check_close("erf: μ₂₉/μ_max and μ₃₁/μ_max (1.7e-13, 2.5e-14)",
               [erf_mu[29] / erf_mu[1] / 1.74e-13, erf_mu[31] / erf_mu[1] / 2.45e-14], [1.0, 1.0], rtol=0.03)
nh.check_between("tanh: μ_25 / μ_max, the last coefficient kept, above the floor",
                 tanh_mu[25] / tanh_mu[1], 1e-10, 1e-9)
fine_mu = course.fine_tanh_spectrum(1.0)       # the same kernel on a finer grid (step 0.1, z in ±11)
nh.check_between("tanh, finer grid: largest |Δμ_k| / μ_max (below 3e-11)",
                 np.abs(fine_mu - tanh_mu).max() / fine_mu[1], 0, 3e-11)
nh.check_between("tanh, finer grid: largest |Δμ_k| / μ_max for k ≥ 25 (about 1e-12)",
                 np.abs(fine_mu - tanh_mu)[25:].max() / fine_mu[1], 0, 2e-12)
nh.check_close("tanh, finer grid: μ₂₇ / μ_max (5.4e-11, below our floor)", fine_mu[27] / fine_mu[1], 5.44e-11,
               rtol=0.02)
nh.check_close("tanh: μ₂₇ of the lesson's grid / of the finer grid", tanh_mu[27] / fine_mu[27], 1.0,
               rtol=0.05)
_, circle = nh.circle(course.POINTS)             # erf by the same quadrature as tanh, against its closed form
by_quadrature = nh.mlp(1, nh.elementwise(torch.erf, "erf"), sigma_w=1.0).kernel(circle[:1], circle).ntk[0]
quadrature_error = (torch.fft.rfft(by_quadrature).real / course.POINTS).numpy() - erf_mu
worst = np.abs(quadrature_error).max() / erf_mu[1]
nh.check_that("erf by quadrature − closed form: largest coefficient error below 1e-11 μ_max", worst < 1e-11,
              measured=worst, expected="< 1e-11")

# %% [markdown]
# ### 哪些模态存在：奇偶性与深度
#
# 左图中 ReLU 只有 $k = 1$ 和偶数 $k$（$k = 0$ 也存在，但落在对数坐标轴之外），tanh 和 erf 只有奇数 $k$。
# 两者都是关于**无偏置**网络的奇偶性事实：
#
# - tanh 和 erf 是奇函数，所以无偏置网络是奇的，$f(-x) = -f(x)$，它的核对每个
#   自变量也是奇的：$\kappa(-t) = -\kappa(t)$，$t = \cos\theta$，于是每个偶数阶傅里叶系数都为零，在每个
#   深度都如此。
# - ReLU 是“线性 + 偶”：$\mathrm{ReLU}(u) = \tfrac u2 + \tfrac{\lvert u\rvert}2$。对相关系数为 $\rho$ 的
#   联合高斯 $(u, v)$，交叉项 $\mathbb E[u\,\lvert v\rvert]$ 为零，$\mathbb E[uv]/4$ 是 $\rho$ 的线性函数，
#   $\mathbb E[\lvert u\rvert\,\lvert v\rvert]/4$ 是 $\rho$ 的偶函数。同样，$\mathrm{ReLU}' = \tfrac12 +
#   \tfrac12\operatorname{sign}$ 使 $\mathbb E[\phi'\phi']$ 成为常数加上 $\rho$ 的奇函数，它再
#   乘以线性的输入核。一个隐藏层时 $\rho = \cos\theta$：NTK 是 $c\cos\theta$ 加上 $\cos\theta$ 的
#   偶函数，唯一的奇数模态是 $k = 1$（Cho & Saul 2009 给出了反余弦核的
#   闭式）。第二层接收到的相关系数不再是 $\cos\theta$ 的奇函数，于是出现奇数模态
#   $k \ge 3$。
#
# 偏置会同时打破这两种奇偶性。我们测量 1 到 6 个隐藏层的无偏置 ReLU 网络的 $\mu_3/\mu_1$。

# %% [markdown]
# **运行下一个单元格之前先预测**（先不要往下看）：从两层到六层，$\mu_3/\mu_1$ 会增大、减小，还是保持不变？

# %%
depths = np.arange(1, 7)
odd_ratio = np.array([course.circle_spectrum("relu", int(L), SQRT2)[[3, 5]] / course.circle_spectrum(
    "relu", int(L), SQRT2)[1] for L in depths])
fig, ax = plt.subplots(figsize=(7, 3.6))
ax.plot(depths, odd_ratio[:, 0], "o-", label="μ₃ / μ₁")
ax.plot(depths, odd_ratio[:, 1], "s-", label="μ₅ / μ₁")
ax.set_xlabel(nh._("number of hidden ReLU layers (no bias)"))
ax.set_ylabel(nh._("odd eigenvalue / μ₁"))
ax.set_title(nh._("Odd modes beyond k = 1 by depth: zero at one layer, present from two"))
ax.legend()
plt.show()
print(nh._("μ₃/μ₁ at depth 1: zero (below 1e-12, rounding); at depth 2: {two:.4f}; at depth 6: {six:.3f}")
      .format(two=odd_ratio[1, 0], six=odd_ratio[-1, 0]))

# %% [markdown]
# <details><summary>答案</summary>
#
# 它增大：从两层时的 0.083 到六层时的 0.272（$\mu_5/\mu_1$ 也随之增大）。从两层起存在奇数模态是有原因的：每多一层，就把 ReLU 的逐层映射再施加到一个已经不是 $\cos\theta$ 的奇函数的相关系数上。而它们的占比不断增大只是这里测得的结果：我们没有给出简单的论证。
#
# </details>

# %% tags=["check"]
nh.check_that("one ReLU layer, no bias: |μ₃|/μ₁ below 1e-12 (rounding only)", abs(odd_ratio[0, 0]) < 1e-12,
              measured=abs(odd_ratio[0, 0]), expected="< 1e-12")
nh.check_close("two ReLU layers: μ₃/μ₁ and μ₅/μ₁ (0.0829, 0.0206)", odd_ratio[1], [0.0829, 0.0206], atol=5e-4)
nh.check_that("μ₃/μ₁ grows with depth from 2 to 6 layers", np.all(np.diff(odd_ratio[1:, 0]) > 0),
              measured=np.round(odd_ratio[:, 0], 4), expected="increasing")
nh.check_close("μ₃/μ₁ at six layers (0.272)", odd_ratio[-1, 0], 0.272, atol=5e-4)
nh.check_that("μ₅/μ₁ grows with depth from 2 to 6 layers", np.all(np.diff(odd_ratio[1:, 1]) > 0),
              measured=np.round(odd_ratio[:, 1], 4), expected="increasing")
deep_tanh = course.circle_spectrum("tanh", 3, 1.0)
tanh_even = np.abs(deep_tanh[2:40:2]).max() / deep_tanh[1]
nh.check_that("tanh, 3 layers, no bias: even μ_k / μ₁ below 1e-14 (zero up to rounding)", tanh_even < 1e-14,
              measured=tanh_even, expected="< 1e-14")

# %% [markdown]
# ### ……以及在球面 $S^2$ 上
#
# 在球面 $S^{d-1}$ 上，特征函数是球谐函数。在 $S^2$ 上，$k$ 次球谐函数有 $2k + 1$ 个，
# 特征值都相同，Funk–Hecke 公式由核作为 $t = x \cdot
# x'/d$ 的函数给出它：$\mu_k = \tfrac12\int_{-1}^{1}\kappa(t)P_k(t)\,dt$，$P_k$ 为 Legendre 多项式
# （`course.sphere_coefficients`）。对 ReLU，$\mu_k \propto k^{-3}$（即 $d = 3$ 时的 $k^{-d}$）。把特征值连同
# 重数排序，就得到一个阶梯：直到 $k$ 次的各阶大约占据 $k^2/2$ 个位置（对一个无偏置层，只有 $k = 0, 1$
# 和偶数 $k$ 非零），所以第 $i$ 大的特征值按 $(\sqrt{2i})^{-3}
# \propto i^{-3/2}$ 衰减。$S^2$ 上 $n = 800$ 个随机点的 Gram 矩阵 $K/n$ 的特征值估计的是
# 算子的特征值：它们应当成块出现，每块 $2k + 1$ 个，接近 $\mu_k$。

# %%
sphere_mu = {"ReLU": course.sphere_coefficients("relu", SQRT2), "erf": course.sphere_coefficients("erf", 1.0)}
points = nh.sphere(800, d=3, seed=0)
gram = nh.eigenvalues(nh.mlp(1, "relu").kernel(points).ntk).numpy() / len(points)
stairs = course.staircase(sphere_mu["ReLU"])
index = np.arange(1, len(stairs) + 1)
fig, axes = plt.subplots(1, 2, figsize=(13, 4))
even = np.arange(2, 61, 2)
axes[0].loglog(even, sphere_mu["ReLU"][even] / sphere_mu["ReLU"][0], "o", ms=3, label=nh._("ReLU, even k"))
axes[0].loglog(even, sphere_mu["ReLU"][40] / sphere_mu["ReLU"][0] * (even / 40.0) ** -3.0, "k--", lw=1,
               label=nh._("k⁻³ through the point k = 40"))
odd = np.arange(1, 30, 2)
axes[0].loglog(odd, sphere_mu["erf"][odd] / sphere_mu["erf"][1], "s", ms=3, label=nh._("erf, odd k"))
axes[0].set_xlabel(nh._("degree k"))
axes[0].set_ylabel("μ_k / μ_max")
axes[0].set_title(nh._("On S², ReLU's μ_k falls like k⁻³, erf's far faster"))
axes[1].loglog(index[:800], stairs[:800], "k-", lw=1.5, label=nh._("operator: μ_k repeated 2k + 1 times"))
axes[1].loglog(np.arange(1, 801), gram, ".", ms=3, color=PALETTE[1], label=nh._("Gram matrix K/n, n = 800"))
axes[1].loglog(index[30:800], 1.3 * index[30:800] ** -1.5, "--", color=PALETTE[0], lw=1, label="1.3 i^(−3/2)")
axes[1].set_xlabel(nh._("index i (largest first)"))
axes[1].set_ylabel(nh._("i-th eigenvalue"))
axes[1].set_title(nh._("The staircase falls like i^(−3/2); the Gram matrix follows its first blocks"))
for ax in axes:
    ax.legend(fontsize=9)
plt.show()

# %% [markdown]
# 左：ReLU 的系数从上方逼近斜率为 $-3$ 的参考线（过 $k = 40$ 的点），erf 的向下
# 弯折：又是几何衰减，其步比从下方逼近圆周上的 $r^2$（$k = 21$ 处为 $0.91\,r^2$）。右：算子的阶梯（黑色）、Gram 矩阵的特征值（点；前几块与
# 阶梯吻合到 2 %，后面的块向上偏，因为 800 个点对精细的球谐函数分辨得更差），以及斜率为
# $-3/2$ 的参考线（常数 1.3 只是让它位于点的上方）。$-3/2$ 是 $i$ 很大时的极限：$k$ 次的
# 块结束于序号 $N(k) = k^2/2 + 3k/2 + 4$（对偶数 $k$），并不恰好是 $k^2/2$，所以在
# 第 40 块和第 60 块的末端之间（$N = 864$ 和 $1894$），阶梯下降的斜率是 $-1.53$，随着 $k$ 增大，斜率趋于
# $-3/2$。（拟合出 $-1.4$ 或 $-1.6$ 就是另一种规律了。）

# %% tags=["check"]
relu_sphere = sphere_mu["ReLU"]
nh.check_close("S², ReLU: local exponent of μ_k at k = 20 and 40 (3)",
               [course.local_exponent(relu_sphere, k) for k in (20, 40)], [3.0, 3.0], atol=0.05)
degree_of = [k for k in range(61) if relu_sphere[k] > 1e-12 * relu_sphere.max()]
ends = dict(zip(degree_of, np.cumsum([2 * k + 1 for k in degree_of])))            # N(k): the end of block k
slope = math.log(relu_sphere[60] / relu_sphere[40]) / math.log(ends[60] / ends[40])
nh.check_close("S², ReLU: slope of the staircase between the ends of blocks 40 and 60 (−1.53)", slope, -1.53,
               atol=0.01)
nh.check_close("S², ReLU: N(60), the places filled by degrees 0 … 60 (1894)", float(ends[60]), 1894.0,
               atol=0.5)
blocks, start = [], 0
for k in [0, 1, 2, 4, 6]:
    blocks.append(gram[start:start + 2 * k + 1].mean() / relu_sphere[k])
    start += 2 * k + 1
nh.check_close("S², ReLU: Gram block means / μ_k for k = 0, 1, 2, 4, 6", blocks, np.ones(5), rtol=0.02)
nh.check_between("S², erf: step ratio at k = 21 / r² (0.91: approaching the circle's rate from below)",
                 course.step_ratio(sphere_mu["erf"], 21) / r_squared, 0.88, 0.95)

# %% [markdown]
# ## 4.5.3 ReLU 与 tanh：深度、有序与混沌
#
# 深度就是一遍又一遍地施加逐层映射。对无偏置的 ReLU，齐次性使 $\sigma_w$ 只是一个尺度：
# 取 $\sigma_w^2 = 2$ 时方差保持不变，$\Theta(x, x) = (L + 1)\,\Sigma^{(1)}(x, x)$ 线性增长。
#
# 在给出名称之前先提醒一句：在 Poole et al. (2016) 中，“有序”相把每个相关系数都推向 1，但这需要偏置 $\sigma_b > 0$。我们的 tanh 网络没有偏置，对它们而言，下面的“有序”只表示 $\sigma_w < 1$：方差趋于 0，更深的层几乎线性地作用，并保留它们接收到的相关系数。
#
# 对无偏置的 tanh，方差映射有不动点 $q = 0$，斜率因子 $\chi(q) = \sigma_w^2\,\mathbb
# E[\tanh'(u)^2]$
# （$u \sim \mathcal N(0, q)$）在 $q = 0$ 处取值，等于 $\sigma_w^2$，它决定了网络的命运（第 02 课；
# Poole et al. 2016；Schoenholz et al. 2017）：$\sigma_w < 1$ 时（我们和那些论文一样称之为**有序相**）
# 方差指数衰减；$\sigma_w = 1$ 是边界，此时 $\chi(0) = \tanh'(0)^2 = 1$，方差
# 只按 $1/(2l)$ 衰减；$\sigma_w > 1$ 时（**混沌相**）方差稳定在某个 $q^* > 0$，两个不同输入的
# 相关系数被推向 0。

# %% [markdown]
# 在对角线上，每一层加上它的方差，并把之前的量乘以该层方差处的 $\chi$：$\Theta^{(l+1)}(x, x) = \Sigma^{(l+1)}(x, x) + \chi^{(l+1)}\,\Theta^{(l)}(x, x)$。我们跟踪 60° 处的（归一化）NTK 和对角线上的 NTK，深度从 1 到 12。

# %% [markdown]
# **运行下一个单元格之前先预测**（先不要往下看）：tanh 饱和于 $\pm 1$，所以每一层的方差都低于 $\sigma_w^2$。随着深度增加，混沌相网络（$\sigma_w = 1.5$）的 $\Theta(x, x)$ 会保持有界，还是无界增长？

# %%
depth_settings = {nh._("ReLU, σ_w = √2"): ("relu", SQRT2), nh._("tanh, σ_w = 0.8 (ordered)"): ("tanh", 0.8),
                  nh._("tanh, σ_w = 1 (boundary)"): ("tanh", 1.0),
                  nh._("tanh, σ_w = 1.5 (chaotic)"): ("tanh", 1.5)}
layers = np.arange(1, course.MAX_DEPTH + 1)
rows = {name: course.circle_kernels(act, sigma_w) for name, (act, sigma_w) in depth_settings.items()}
fig, axes = plt.subplots(1, 2, figsize=(13, 4))
for (name, row), marker in zip(rows.items(), "os^D"):
    axes[0].plot(layers, row[:, row.shape[1] // 6] / row[:, 0], marker + "-", ms=4, label=name)
    axes[1].semilogy(layers, row[:, 0], marker + "-", ms=4, label=name)
axes[0].set_ylabel(nh._("normalized NTK at 60°"))
axes[0].set_title(nh._("Chaos decorrelates; ReLU drifts; bias-free order and the boundary barely move"))
axes[1].axhline(0.5, color="k", ls=":", lw=1, label=nh._("½: the boundary's limit"))
axes[1].set_ylabel("Θ(x, x)")
axes[1].set_title(nh._("Θ(x, x) by depth (logarithmic axis)"))
for ax in axes:
    ax.set_xlabel(nh._("number of hidden layers L"))
    ax.legend(fontsize=8)
plt.show()
chaos = {L: course.circle_spectrum("tanh", L, 1.5) for L in (1, 12)}
print(nh._("tanh, σ_w = 1.5: μ₉/μ_max = {one:.1e} at depth 1, {twelve:.3f} at depth 12").format(
    one=chaos[1][9] / chaos[1][1], twelve=chaos[12][9] / chaos[12][1]))

# %% [markdown]
# <details><summary>答案：混沌相的 Θ(x, x) 会保持有界吗？</summary>
#
# 不会：尽管 tanh 会饱和，它仍无界地**指数**增长，从一层时的 2.9 到 12 层时的 27.4，超过了 ReLU 线性的 $2(L + 1) = 26$。比值 $\Theta^{(l+1)}/\Theta^{(l)} = \chi^{(l+1)} + \Sigma^{(l+1)}/\Theta^{(l)}$ 在第一步为 1.30（那里 $\chi = 0.97 < 1$：增长来自加上的方差），在第十二步为 1.17（$\chi = 1.139$ 加上 $0.034$），并趋于不动点 $q^* = 0.79$ 处的 $\chi_1 = \chi(q^*) = 1.14$（即 Poole et al. 的 $\chi_1$），所以深网络有 $\Theta \propto \chi_1^L$。饱和限制了每一层的方差，$\Sigma^{(l)} \le \sigma_w^2 = 2.25$，但限制不了 $\chi$ 因子的连乘积，而正是它乘在下面各层的贡献上。
#
# </details>
#
# 有序相网络的 $\Theta(x, x)$ 则趋于 0（12 层时为 0.0096）。
#
# ½ 处的点线属于边界情形：那里 $\Theta(x, x)$ 只是缓慢下降，12 层时为 0.60，1000 层时为
# 0.503。为什么是 ½？把递推展开，$\Theta^{(L)} = \sum_l \Sigma^{(l)}\prod_{m > l}\chi^{(m)}$。方差按
# $\Sigma^{(l)} \approx 1/(2l)$ 衰减（$l = 1000$ 时 $l\,\Sigma^{(l)} = 0.501$），而方差很小时
# $\chi \approx 1 - 2\Sigma$，所以 $\chi^{(m)} \approx 1 - 1/m$，连乘积约为 $l/L$。求和就成了
# $\sum_{l \le L} \tfrac1{2l}\cdot\tfrac lL = \tfrac12$。
#
# 左图中，只有混沌相 tanh 网络在 60° 处的归一化 NTK 下降得快（12 层内 0.388 → 0.098）；ReLU 的
# 缓慢漂移（0.471 → 0.363），无偏置的有序相网络的则停留在 0.46 与 0.47 之间，接近线性核的
# $\cos 60° = 0.5$，并不趋于 1（边界情形的停留在 0.41 与 0.45 之间）。在混沌相的频谱中，去相关表现为权重移向高频（打印出的 $\mu_9$）。
# Yang & Salman (2019) 描绘了 $\sigma_w$、$\sigma_b$ 和深度如何把 NTK 的频谱在低阶与高阶之间移动。

# %% tags=["check"]
by_depth = {name: row[:, row.shape[1] // 6] / row[:, 0] for name, row in rows.items()}       # 60°
nh.check_close("ReLU: Θ(x, x) = 2(L + 1) for L = 1 … 12", rows[nh._("ReLU, σ_w = √2")][:, 0].numpy(),
               2 * (layers + 1.0), rtol=1e-12)
nh.check_close("ReLU: normalized NTK at 60°, depth 1 and 12 (0.471, 0.363)",
               by_depth[nh._("ReLU, σ_w = √2")][[0, 11]],
               [0.471, 0.3635], atol=0.001)
nh.check_close("tanh, σ_w = 1.5: normalized NTK at 60°, depth 1 and 12 (0.388, 0.098)",
               by_depth[nh._("tanh, σ_w = 1.5 (chaotic)")][[0, 11]], [0.388, 0.098], atol=0.001)
ordered = by_depth[nh._("tanh, σ_w = 0.8 (ordered)")]
nh.check_between("tanh, σ_w = 0.8: spread of the normalized NTK at 60° over depth 1 … 12", np.ptp(ordered),
                 0, 0.02)
nh.check_close("tanh, σ_w = 0.8: normalized NTK at 60°, depth 1 and 12 (0.462, 0.469)", ordered[[0, 11]],
               [0.462, 0.469], atol=0.001)
chaotic_diagonal = rows[nh._("tanh, σ_w = 1.5 (chaotic)")][:, 0].numpy()
nh.check_close("tanh, σ_w = 1.5: Θ(x, x) at depth 1 and 12 / (2.897, 27.44)",
               chaotic_diagonal[[0, 11]] / [2.897, 27.44], [1.0, 1.0], rtol=0.002)
nh.check_close("tanh, σ_w = 1.5: Θ⁽¹²⁾/Θ⁽¹¹⁾ on the diagonal (1.17)",
               chaotic_diagonal[11] / chaotic_diagonal[10], 1.173, atol=0.001)
z = np.linspace(-12, 12, 4001)                    # an independent χ₁ at the fixed point q*, by numpy
gauss = np.exp(-z * z / 2) / np.exp(-z * z / 2).sum()
q_star = 1.0
for _ in range(300):
    q_star = 2.25 * float(gauss @ np.tanh(math.sqrt(q_star) * z) ** 2)
chi_star = 2.25 * float(gauss @ (1 - np.tanh(math.sqrt(q_star) * z) ** 2) ** 2)
_, deep_chaos = nh.self_kernels_by_depth(1.0, depth=200, activation="tanh", sigma_w=1.5)
chi_at = lambda q: 2.25 * float(gauss @ (1 - np.tanh(math.sqrt(q) * z) ** 2) ** 2)      # χ at variance q
var_12, ntk_12 = (t.numpy() for t in nh.self_kernels_by_depth(1.0, depth=12, activation="tanh", sigma_w=1.5))
nh.check_close("tanh, σ_w = 1.5: Θ⁽²⁾/Θ⁽¹⁾ (1.30) = χ⁽²⁾ + Σ⁽²⁾/Θ⁽¹⁾", [ntk_12[1] / ntk_12[0] / 1.3016,
               (chi_at(var_12[0]) + var_12[1] / ntk_12[0]) / 1.3016], [1.0, 1.0], rtol=5e-4)
nh.check_close("tanh, σ_w = 1.5: χ at the first step (0.97, below 1)", chi_at(var_12[0]), 0.968, atol=0.001)
nh.check_close("tanh, σ_w = 1.5: χ and Σ/Θ at the twelfth step (1.139, 0.034)",
               [chi_at(var_12[10]), var_12[11] / ntk_12[10]], [1.139, 0.034], atol=6e-4)
boundary = by_depth[nh._("tanh, σ_w = 1 (boundary)")]
nh.check_between("tanh, σ_w = 1: normalized NTK at 60° over depth 1 … 12 (min, 0.41 … 0.45)", boundary.min(),
                 0.41, 0.45)
nh.check_between("tanh, σ_w = 1: normalized NTK at 60° over depth 1 … 12 (max, 0.41 … 0.45)", boundary.max(),
                 0.41, 0.45)
nh.check_close("tanh, σ_w = 1.5: q* (0.79)", q_star, 0.793, atol=0.001)
nh.check_close("tanh, σ_w = 1.5: Θ⁽²⁰⁰⁾/Θ⁽¹⁹⁹⁾ → χ₁ at q* (1.14)", float(deep_chaos[-1] / deep_chaos[-2]),
               chi_star, rtol=1e-6)
nh.check_close("tanh, σ_w = 0.8: Θ(x, x) at depth 12 (0.0096)",
               float(rows[nh._("tanh, σ_w = 0.8 (ordered)")][11, 0]), 0.0096, rtol=0.02)
variance, ntk_diagonal = nh.self_kernels_by_depth(1.0, depth=1000, activation="tanh", sigma_w=1.0)
nh.check_close("tanh, σ_w = 1: Θ(x, x) at depth 12 and 1000 (0.602, 0.503)", ntk_diagonal[[11, 999]].numpy(),
               [0.602, 0.503], atol=0.001)
nh.check_close("tanh, σ_w = 1: l Σ⁽ˡ⁾ at l = 1000 (½)", 1000 * float(variance[999]), 0.5, rtol=0.005)
nh.check_close("tanh, σ_w = 1.5: μ₉/μ_max at depth 1 (7.0e-4)", chaos[1][9] / chaos[1][1], 7.0e-4, rtol=0.03)
nh.check_close("tanh, σ_w = 1.5: μ₉/μ_max at depth 12 (0.058)", chaos[12][9] / chaos[12][1], 0.058, rtol=0.03)

# %% [markdown]
# ### 对照表
#
# 到目前为止的一切，按教材的对照方式列出 ReLU 和 tanh（除非某行另有说明，均无偏置；
# 数字都来自本课，并在本课的检验单元格中检验过；“一层”指一个隐藏层）：
#
# | 性质 | ReLU | tanh |
# |---|---|---|
# | 齐次性 | 对 $a, b > 0$ 有 $\Theta(ax, bx') = ab\,\Theta(x, x')$；偏置会打破它 | 没有：在 0 附近线性，远处饱和 |
# | 小输入 | 在每个尺度下形状相同 | 线性网络的核（两层，$\sigma_w = 1.5$：$a = 0.01$ 时相差 0.5 % 以内） |
# | 归一化核随输入尺度的变化 | 与尺度无关 | 一层的 NNGP：小输入时为 $\cos\theta$，大输入时为反正弦核 $1 - 2\theta/\pi$ |
# | NTK 在 $\theta = 0$ 处 | 尖角，$1 - c\lvert\theta\rvert$（NNGP 更光滑：它的奇异项是 $\lvert\theta\rvert^3$） | 光滑，$1 - c\,\theta^2$ |
# | 圆周上的频谱，一层 | $\mu_k \propto k^{-2}$（$k = 40$ 处局部指数为 2.00）；在 $S^{d-1}$ 上为 $k^{-d}$，在每个深度都如此 | 比任何幂次都快，但不是几何的（对偶核在 $\rho = 1$ 处不解析）；测得：从 $k = 13$ 到 23，$\mu_{k+2}/\mu_k$ 从 0.19 升到 0.25（erf：几何的，比值 → $r^2 = 0.146$） |
# | 无偏置时存在的模态 | 一层时为 $k = 0, 1$ 和偶数 $k$；从两层起所有 $k$（两层时 $\mu_3/\mu_1 = 0.083$） | 只有奇数 $k$，在每个深度都如此 |
# | 深度 | $\sigma_w^2 = 2$ 时 $\Theta(x, x) = 2(L + 1)$；60° 处的归一化 NTK：0.471 → 0.363（1 → 12 层） | $\sigma_w < 1$：$\Theta \to 0$，相关系数保持不变（无偏置）；$\sigma_w = 1$：$\Theta(x, x) \to \tfrac12$；$\sigma_w > 1$：$\Theta(x, x)$ 按 $\chi_1^L$ 增长，$\chi_1 = \chi(q^*)$（$\sigma_w = 1.5$ 时 2.9 → 27.4），相关 → 0（60° 处 0.388 → 0.098），频谱展宽 |
# | 偏置的用途 | 一层时的奇数模态 $k \ge 3$ | 任何偶函数（见后面几节） |
#
# ## 频谱偏置 = 逐模态的学习速度
#
# $\mu_k$ 为什么重要？用学习率 $\eta$ 的梯度流在平方损失
# $\tfrac1{2n}\sum_i (f(x_i) - y_i)^2$ 上训练无限宽网络。在核区域（无限宽，NTK 保持不变），
# 链式法则给出 $\partial_t f(x) = \nabla_\theta f(x) \cdot \partial_t\theta = -\tfrac{\eta}{n}\sum_i \Theta(x,
# x_i)(f(x_i) - y_i)$。于是在训练输入上，残差 $r = f - y$ 满足 $\partial_t r =
# -\tfrac\eta n K r$，即 $r_t = e^{-\eta K t/n}\,r_0$。取圆周上 $n = 256$ 个等距点（均匀
# 数据，所以 $K$ 是循环矩阵，其特征向量就是傅里叶模态，特征值为 $n\mu_k$），并从
# $f_0 = 0$ 出发，即对初始化取**平均**的网络（单个随机网络从别处出发；$r$ 的平均满足
# 同一个方程）。于是模态 $k$ 上的残差按 $e^{-\eta\mu_k t}$ 衰减：每个频率都有自己的时钟。
# （我们画的是 $y - f_t = -r_t$，所以目标中每个模态的曲线都从 $+1$ 开始。）
#
# **先预测，再验证。**
#
# 1. 运行之前先想一想：目标含模态 1、4 和 10。如果 $\mu_k$ 从 $k = 1$ 起就一直按 $k^{-2}$ 衰减，模态 10
#    被学到所需的时间就是模态 1 的 $10^2 = 100$ 倍。本课的网络所需的时间比 100 倍更多还是更少？

# %%
n = 256
theta_train, x_circle = nh.circle(n)
frequencies = [1, 4, 10]
target = sum(torch.cos(f * theta_train) for f in frequencies)
K = nh.mlp(1, "relu").kernel(x_circle).ntk
eigenvalues, eigenvectors = torch.linalg.eigh(K)
times = np.geomspace(1e-1, 1e5, 60)


def residual_of_mode(t, f):
    # y − f_t = −r_t (η = 1; it starts at y)
    residual = eigenvectors @ (torch.exp(-eigenvalues * t / n) * (eigenvectors.T @ target))
    return float(2 * (residual * torch.cos(f * theta_train)).mean())                        # its cos(fθ) part


curves = {f: np.array([residual_of_mode(t, f) for t in times]) for f in frequencies}
mu = (torch.fft.rfft(K[0]).real / n).numpy()        # this Gram matrix's μ_k
fig, ax = plt.subplots(figsize=(8, 4))
for f, curve in curves.items():
    line, = ax.semilogx(times, curve, label=nh._("mode k = {k}: gradient flow").format(k=f))
    ax.semilogx(times[::3], np.exp(-mu[f] * times[::3]), "o", mfc="none", ms=5, color=line.get_color(),
                label=nh._("mode k = {k}: exp(−μ_k t)").format(k=f))
ax.set_xlabel(nh._("training time t (η = 1)"))
ax.set_ylabel(nh._("residual in mode k"))
ax.set_title(nh._("Spectral bias: mode k decays like exp(−μ_k t), the high modes later"))
ax.legend(fontsize=8)
plt.show()
half_life = {f: float(times[curve < 0.5][0]) if (curve < 0.5).any() else math.inf
             for f, curve in curves.items()}
for f in frequencies:
    if half_life[f] < math.inf:
        print(nh._("mode k = {k}: residual halved at t = {t:.3g} (ln 2/μ_k = {clock:.3g})").format(
            k=f, t=half_life[f], clock=math.log(2) / mu[f]))
    else:
        print(nh._("mode k = {k}: residual never halved up to t = 10⁵ (μ_k/μ_max = {size:.1e})").format(
            k=f, size=abs(mu[f]) / np.abs(mu).max()))

# %% tags=["check"]
nh.check_close("each mode decays like exp(−μ_k t) (residuals start at 1)",
               np.concatenate([curves[f] - np.exp(-mu[f] * times) for f in frequencies]), np.zeros(180),
               atol=1e-9)
nh.check_close("μ₁/μ₁₀ of the ReLU NTK on 256 points (234)", mu[1] / mu[10], 233.7, rtol=0.002)
nh.check_between("half-life of mode 10 / mode 1 (about μ₁/μ₁₀; the time grid has 10 points per decade)",
                 half_life[10] / half_life[1], 234 / 1.3, 234 * 1.3)
nh.check_that("higher modes are slower", half_life[1] < half_life[4] < half_life[10], measured=half_life,
              expected="k = 1 < 4 < 10")
nh.check_close("answer 1: ln 2/μ_k for k = 1 and 10 (0.69, 162)",
               [math.log(2) / mu[1] / 0.693, math.log(2) / mu[10] / 162], [1.0, 1.0], rtol=0.005)
nh.check_close("answer 1: local exponent between k = 2 and 4, and between 10 and 12 (3.2, 2.08)",
               [course.local_exponent(mu, 2), course.local_exponent(mu, 10)], [3.20, 2.08], atol=0.01)
nh.check_that("answer 2: one layer, μ₃/μ_max below 1e-15 (rounding)", abs(mu[3]) / np.abs(mu).max() < 1e-15,
              measured=abs(mu[3]) / np.abs(mu).max(), expected="< 1e-15")
mu_two = (torch.fft.rfft(nh.mlp(2, "relu").kernel(x_circle).ntk[0]).real / n).numpy()     # answer 3's network
nh.check_close("answer 3: two layers, μ₃/μ₁ on 256 points (0.083)", mu_two[3] / mu_two[1], 0.083, atol=5e-4)
nh.check_close("answer 3: two layers, μ₃/μ₁₀ (13)", mu_two[3] / mu_two[10], 13.0, rtol=0.01)
nh.check_close("answer 3: two layers, ln 2/μ_k for k = 1, 3, 10 (0.59, 7.1, 92)",
               [math.log(2) / mu_two[k] / v for k, v in ((1, 0.59), (3, 7.11), (10, 92.3))], [1.0, 1.0, 1.0],
               rtol=0.01)
nh.check_close("answer 3: the grid times just after them (0.65, 8.6, 112)",
               [times[times > math.log(2) / mu_two[k]][0] for k in (1, 3, 10)], [0.651, 8.55, 112.4],
               rtol=0.002)

# %% [markdown]
# <details><summary>答案</summary>
#
# 更多，约 234 倍：$\mu_1/\mu_{10} = 234$，所以模态 10 的残差在 $t = \ln 2/\mu_{10} = 162$ 时减半，
# 模态 1 的在 $0.69$ 时减半（打印出的网格时间是 180 和 0.82）。$k^{-2}$ 律描述的是尾部。$k$ 小时
# 系数衰减得更快：$k = 2$ 与 4 之间的局部指数是 3.2，10 与 12 之间是 2.08。
#
# </details>
#
# 在上面的单元格中每次只改一个数（之后再改回原样：检验单元格检验的是本课的设置）。
#
# 2. 把目标的模态 4 换成模态 3：`frequencies = [1, 3, 10]`。模态 3 介于模态 1 和 10 之间。它被学到的时间
#    也会介于两者之间吗？
#
# <details><summary>答案</summary>
#
# 不会：模态 3 的曲线一直停在 1，从不减半。一个无偏置的 ReLU 隐藏层没有奇数模态 $k \ge 3$
# （见奇偶性一节），所以 $\mu_3 = 0$（打印出的值低于 $10^{-15}\mu_{\max}$，是舍入误差），
# $e^{-\mu_3 t} = 1$。它不是慢，而是缺失。
#
# </details>
#
# 3. 保持 `frequencies = [1, 3, 10]`，给网络加上第二个隐藏层：`nh.mlp(2, "relu")`。模态 3 现在能被学到吗？
#    它比模态 10 早多少倍被学到？
#
# <details><summary>答案</summary>
#
# 能学到，比模态 10 早约 13 倍：第二层带来了 $\mu_3$（$\mu_3/\mu_1 = 0.083$，
# $\mu_3/\mu_{10} = 13$），残差分别在 $t = 0.65$（模态 1）、$8.6$（模态 3）和 $112$（模态 10）时减半，即紧跟在
# $\ln 2/\mu_k = 0.59$、$7.1$ 和 $92$ 之后的网格时间。
#
# </details>
#
# ReLU 的多项式衰减让高频学得慢，而不是学不到（对偶数模态而言；只有一个无偏置隐藏层时，奇数 $k \ge 3$
# 需要偏置或第二层）：这就是频谱偏置（Basri et al. 2019；Bietti & Mairal 2019）。$\mu_k$ 衰减得更快的核
# 学高频还要慢得多。
#
# ## 奇偶性陷阱
#
# 没有偏置时，tanh 是奇函数，由它搭成的每个网络也是：$f(-x) = -f(x)$。它的核对每个
# 自变量都是奇的，所以核回归只能给出**奇函数**。当训练输入成对镜像出现
# （$x$ 与 $-x$），就像这里一样，它拟合目标的奇部分，丢掉偶部分。我们在 $[-2, 2]$ 中的 21 个输入上
# 拟合 $y = x^2 + x/2$（偶部分 $x^2$，奇部分 $x/2$），用有两个隐藏层的 tanh 网络（$\sigma_w =
# 1.5$），
# 分别带偏置和不带偏置。无偏置的 Gram 矩阵把每个偶的目标向量都映为零，所以回归需要一个小的
# 岭参数（$10^{-4}$）。

# %%
x_fit = torch.linspace(-2, 2, 21, dtype=torch.float64)[:, None]
x_plot = torch.linspace(-2.5, 2.5, 201, dtype=torch.float64)[:, None]
parabola = lambda x: x[:, 0] ** 2 + x[:, 0] / 2
parity_nets = {nh._("tanh, no bias"): nh.mlp(2, "tanh", sigma_w=1.5),
               nh._("tanh, σ_b = 0.5"): nh.mlp(2, "tanh", sigma_w=1.5, sigma_b=0.5)}
grams = {name: (net.kernel(x_fit).ntk, net.kernel(x_plot, x_fit).ntk) for name, net in parity_nets.items()}


def fit(name, y):
    train, test_train = grams[name]
    return nh.kernel_regression(train, test_train, y, ridge=1e-4)


predictions = {name: fit(name, parabola(x_fit)) for name in parity_nets}
fig, ax = plt.subplots(figsize=(8, 4))
ax.plot(x_plot, parabola(x_plot), "k--", lw=1, label=nh._("target x² + x/2"))
ax.plot(x_plot[::8], x_plot[::8, 0] / 2, "kx", ms=6, zorder=3, label=nh._("its odd part x/2 (crosses)"))
for name, p in predictions.items():
    ax.plot(x_plot, p, label=nh._("NTK regression, {name}").format(name=name))
ax.plot(x_fit, parabola(x_fit), "ko", ms=4, label=nh._("training points"))
ax.set_xlabel(nh._("input x"))
ax.set_ylabel(nh._("prediction f(x)"))
ax.set_title(nh._("Without a bias, tanh keeps the odd part x/2 and drops x²"))
ax.legend(fontsize=9)
plt.show()
errors = {name: float(((p - parabola(x_plot)) ** 2).mean()) for name, p in predictions.items()}
print(nh._("mean squared error on [−2.5, 2.5]: no bias {without:.3g}, with bias {with_bias:.3g}").format(
    without=errors[nh._("tanh, no bias")], with_bias=errors[nh._("tanh, σ_b = 0.5")]))

# %% tags=["check"]
odd_fit = predictions[nh._("tanh, no bias")]
asymmetry = float((odd_fit + odd_fit.flip(0)).abs().max() / odd_fit.abs().max())
nh.check_that("no bias: |f(x) + f(−x)| / max|f| below 1e-8 (odd prediction)", asymmetry < 1e-8,
              measured=asymmetry, expected="< 1e-8")
even_alone = float(fit(nh._("tanh, no bias"), x_fit[:, 0] ** 2).abs().max() / 4)
nh.check_that("no bias: the even part x² alone gives a prediction below 1e-4 of its size", even_alone < 1e-4,
              measured=even_alone, expected="< 1e-4")
nh.check_between("no bias: max |f(x) − x/2| on [−2, 2]",
                 float((odd_fit - x_plot[:, 0] / 2)[50:151].abs().max()), 0, 0.01)
nh.check_between("no bias: mean squared error (misses x²)", errors[nh._("tanh, no bias")], 1, np.inf)
nh.check_between("with bias: mean squared error", errors[nh._("tanh, σ_b = 0.5")], 0, 0.05)

# %% [markdown]
# 偶部分会从每次拟合中消失吗？用同一个无偏置 tanh 网络在 $[0.1, 2]$ 中的 20 个输入上拟合 $y = x^2$，
# 其中没有一个是负的。

# %% [markdown]
# **运行下一个单元格之前先预测**（先不要往下看）：$x = -1$ 处的预测是多少？

# %%
x_half = torch.linspace(0.1, 2, 20, dtype=torch.float64)[:, None]
odd_net = parity_nets[nh._("tanh, no bias")]
half_fit = nh.kernel_regression(odd_net.kernel(x_half).ntk, odd_net.kernel(x_plot, x_half).ntk,
                                x_half[:, 0] ** 2, ridge=1e-6)
fig, ax = plt.subplots(figsize=(8, 4))
ax.plot(x_plot, x_plot[:, 0] ** 2, "k--", lw=1, label=nh._("target x²"))
left = x_plot[:, 0] < 0
ax.plot(x_plot[left], -x_plot[left, 0] ** 2, "k:", lw=2.5, label=nh._("−x² for x < 0 (the odd reflection)"))
ax.plot(x_plot, half_fit, label=nh._("NTK regression, {name}").format(name=nh._("tanh, no bias")))
ax.plot(x_half, x_half[:, 0] ** 2, "ko", ms=4, label=nh._("training points (x > 0 only)"))
ax.set_xlabel(nh._("input x"))
ax.set_ylabel(nh._("prediction f(x)"))
ax.set_title(nh._("Trained on x > 0 only: what does the odd network predict for x < 0?"))
ax.legend(fontsize=9)
plt.show()
print(nh._("prediction at x = −1: {value:.3f}").format(value=float(half_fit[60])))

# %% tags=["check"]
xs = x_plot[:, 0]
nh.check_between("trained on x in [0.1, 2]: max |f(x) − x²| there",
                 float((half_fit - xs ** 2)[(xs >= 0.1) & (xs <= 2)].abs().max()), 0, 0.01)
nh.check_between("and max |f(x) + x²| on [−2, −0.1]",
                 float((half_fit + xs ** 2)[(xs <= -0.1) & (xs >= -2)].abs().max()), 0, 0.01)
nh.check_close("x_plot[60] is x = −1", float(xs[60]), -1.0, atol=1e-12)

# %% [markdown]
# <details><summary>答案：$x = -1$ 处的预测</summary>
#
# 约为 $-1$：网络把 $x^2$ 镜像成 $-x^2$。在 $x > 0$ 上网络拟合 $x^2$，而奇性随后强迫它在 $-x$ 处给出 $-x^2$。偶部分只会从镜像对称输入上的拟合中消失；在其他情形下，它变成一个奇函数。
#
# </details>

# %% [markdown]
# ## 动手探索
#
# 选择激活函数、深度、$\sigma_w$ 和偏置 $\sigma_b$：交互探索画出 NTK 在圆周上的频谱 $\mu_k/\mu_{\max}$，
# 其中 $\mu_{\max}$ 是最大的系数（无论它的 $k$ 是多少）：偶数 $k$ 为实心，奇数 $k$ 为空心，
# 噪声底用点线表示（tanh：$10^{-10}\mu_{\max}$，是高于数值积分误差的余量；ReLU 和 erf：舍入，
# $10^{-13}\mu_{\max}$）；
# 低于噪声底的都不画。对 ReLU，虚线参考线是 $0.3\,k^{-2}$。图下方的一行给出 $\mu_{\max}$、
# 三个系数、衰减统计量（ReLU：局部指数；tanh 和 erf：噪声底之上第一对和
# 最后一对的步比），以及哪些模态存在、为什么。

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_spectrum,
                       activation=nh.widgets.activation_dropdown("relu", options=course.ACTIVATIONS),
                       depth=nh.widgets.depth_slider(1, max=course.MAX_DEPTH),
                       sigma_w=nh.widgets.sigma_slider(nh._("sigma_w"), 1.0, min=0.5, max=2.5),
                       sigma_b=nh.widgets.sigma_slider(nh._("sigma_b"), 0.0, max=1.0))

# %% [markdown]
# **先预测，再验证。**
#
# 1. 保持 ReLU 无偏置，深度 2，$\sigma_w = 1$。在把 $\sigma_w$ 移到 2 之前：$\mu_{\max}$ 会变为原来的多少倍？
#    有哪个比值 $\mu_k/\mu_{\max}$ 会变吗？
#
# <details><summary>答案</summary>
#
# $\mu_{\max} = \mu_0$ 从 0.271 变为 17.3，是原来的 64 倍，而没有任何比值改变（局部指数仍为 1.99）。
# 无偏置的 ReLU 网络是齐次的，所以它的 $L + 1 = 3$ 个权重层每层都把核乘以
# $\sigma_w^2$：整个核乘以 $(\sigma_w^2)^{L+1} = 4^3 = 64$，每个 $\mu_k$ 也一样。
#
# </details>
#
# 2. 换成 tanh，无偏置。在 $\sigma_w = 1.5$ 时，深度把 $\mu_9/\mu_{\max}$ 从 $7.0 \cdot 10^{-4}$ 变到
#    $0.058$（§4.5.3）。现在取 $\sigma_w = 1.2$，同样是混沌相，但离边界更近：把深度从 1 移到 12，
#    $\mu_9/\mu_{\max}$ 增大的倍数会比那八十倍多还是少？$\sigma_w = 0.8$ 时呢？
#
# <details><summary>答案</summary>
#
# 更少：$\sigma_w = 1.2$ 时它大约增大十倍，从 $2.1 \cdot 10^{-4}$ 到 $2.1 \cdot 10^{-3}$，噪声底之上最后一个
# $k$ 只从 29 移到 33（$\sigma_w = 1.5$ 时：从 37 到 71）。离边界越近，不动点 $q^*$ 越小，网络越接近
# 线性，输入去相关得越慢。$\sigma_w = 0.8$ 时（有序相，无偏置）它下降，约为原来的 1/2.3
# （$1.4 \cdot 10^{-5}$ 到 $6.3 \cdot 10^{-6}$），而 $\mu_{\max}$ 缩小 44 倍，从 0.207 到 0.0047：
# 方差逐渐消失，较深的层几乎是线性的。
#
# </details>
#
# 3. tanh，深度 1，$\sigma_w = 1$：把 $\sigma_b$ 从 0 移到 0.3。出现了什么？有多大？
#
# <details><summary>答案</summary>
#
# 偶数模态：其中最大的 $\mu_2/\mu_{\max}$ 从低于噪声底变为 0.022（打印行给出的 $\mu_4/\mu_{\max}$ 变为
# 0.003）。偏置打破了网络的奇性，所以核不再是 $\cos\theta$ 的奇函数。
# 奇数模态变化不大（$\mu_3/\mu_{\max}$：0.041 到 0.036）。
#
# </details>

# %% tags=["check"]
def shown(activation, depth, sigma_w, sigma_b, k):
    """μ_k/μ_max of the explorer at that setting."""
    mu = course.circle_spectrum(activation, depth, sigma_w, sigma_b)
    return abs(mu[k]) / np.abs(mu).max()


def last_above(activation, depth, sigma_w):
    """The largest k ≤ K_MAX whose μ_k/μ_max is above the noise floor (what the explorer's title reports)."""
    ratios = [shown(activation, depth, sigma_w, 0.0, k) for k in range(course.K_MAX + 1)]
    return max(k for k, v in enumerate(ratios) if v > course.noise_floor(activation))


floor = course.ROUNDING_FLOOR
wide, narrow = course.circle_spectrum("relu", 2, 2.0), course.circle_spectrum("relu", 2, 1.0)
nh.check_close("question 1: ReLU, depth 2: μ_max at σ_w = 1 and 2 (0.271, 17.3)",
               [np.abs(narrow).max() / 0.271, np.abs(wide).max() / 17.3], [1.0, 1.0], rtol=0.002)
present = np.abs(narrow[:61]) > floor * np.abs(narrow).max()
nh.check_close("question 1: μ_k(σ_w = 2) / μ_k(σ_w = 1) / 64 for every mode k ≤ 60 present",
               wide[:61][present] / narrow[:61][present] / 64, np.ones(present.sum()), rtol=1e-6)
nh.check_close("question 2: tanh, σ_w = 1.2: μ₉/μ_max at depth 1 and 12 (2.1e-4, 2.1e-3)",
               [shown("tanh", 1, 1.2, 0, 9) / 2.1e-4, shown("tanh", 12, 1.2, 0, 9) / 2.07e-3], [1.0, 1.0],
               rtol=0.02)
nh.check_close("question 2: σ_w = 1.2: last k above the floor at depth 1 and 12 (29, 33)",
               [last_above("tanh", 1, 1.2), last_above("tanh", 12, 1.2)], [29, 33], atol=0.5)
nh.check_close("question 2: tanh, σ_w = 0.8: μ₉/μ_max at depth 1 (1.4e-5)", shown("tanh", 1, 0.8, 0, 9),
               1.4e-5, rtol=0.04)
nh.check_close("question 2: tanh, σ_w = 0.8: μ₉/μ_max at depth 12 (6.3e-6)", shown("tanh", 12, 0.8, 0, 9),
               6.3e-6, rtol=0.04)
nh.check_close("question 2: σ_w = 1.5: last k above the floor at depth 1 and 12 (37, 71)",
               [last_above("tanh", 1, 1.5), last_above("tanh", 12, 1.5)], [37, 71], atol=0.5)
nh.check_close("question 2: tanh, σ_w = 0.8: μ_max at depth 1 and 12 (0.207, 0.0047)",
               [np.abs(course.circle_spectrum("tanh", L, 0.8)).max() / v
                for L, v in ((1, 0.207), (12, 0.0047))],
               [1.0, 1.0], rtol=0.01)
nh.check_close("question 3: tanh, σ_b = 0.3: μ₂/μ_max and μ₄/μ_max (0.022, 0.003)",
               [shown("tanh", 1, 1.0, 0.3, 2), shown("tanh", 1, 1.0, 0.3, 4)], [0.022, 0.003], atol=3e-4)
nh.check_that("question 3: μ₂ is the largest even mode", shown("tanh", 1, 1.0, 0.3, 2) == max(
    shown("tanh", 1, 1.0, 0.3, k) for k in range(2, 100, 2)), measured=shown("tanh", 1, 1.0, 0.3, 2),
    expected="max over even k")
nh.check_that("question 3: without the bias μ₂ is below the floor",
              shown("tanh", 1, 1.0, 0.0, 2) < course.QUADRATURE_FLOOR,
              measured=shown("tanh", 1, 1.0, 0.0, 2), expected="< 1e-10")
nh.check_close("question 3: μ₃/μ_max without and with the bias (0.041, 0.036)",
               [shown("tanh", 1, 1.0, 0.0, 3), shown("tanh", 1, 1.0, 0.3, 3)], [0.041, 0.036], atol=5e-4)

# %% [markdown]
# ## 检验你的理解
#
# 1. 一个无偏置 ReLU 网络的 $\Theta(x, x') = 0.8$。$\Theta(2x, 3x')$ 是多少？$\Theta(-x, x')$ 呢？
#
# <details><summary>答案</summary>
#
# 由正齐次性，$\Theta(2x, 3x') = 6 \cdot 0.8 = 4.8$。$\Theta(-x, x')$ 不能由 $\Theta(x, x')$ 确定：
# 齐次性只对正的因子成立（$\mathrm{ReLU}(-u) \ne -\mathrm{ReLU}(u)$）；它是夹角为
# $\pi - \theta$ 处的核。
#
# </details>
#
# 2. erf 在 0 处的斜率是 $\operatorname{erf}'(0) = 2/\sqrt\pi \approx 1.13$，tanh 的是 1。第一个实验中的 erf 网络
#    （两个隐藏层）在小输入下的 NTK 是恒等网络的多少倍？它在那里的平台（18.7）是 tanh 的（13.5）的
#    1.39 倍：为什么不是你算出的倍数？
#
# <details><summary>答案</summary>
#
# 一个线性网络，相差因子 $a^2$：所有预激活都很小，而 $\operatorname{erf} u = \tfrac2{\sqrt\pi}
# (u - u^3/3 + \dots)$。但它的斜率是 $\operatorname{erf}'(0) = 2/\sqrt\pi \approx 1.13$，而不是 $\tanh'(0) = 1$：
# 它所趋近的线性网络的激活函数是 $u \mapsto 2u/\sqrt\pi$。两个隐藏层中的每一层都把这个网络的 NTK
# 乘以 $\operatorname{erf}'(0)^2 = 4/\pi$，所以它是恒等网络的 $(4/\pi)^2 = 1.62$ 倍
# （$a = 0.01$ 时 erf 的 NTK 与它相差 0.5 % 以内）。平台要除以每个网络自己在 $a = 1$ 处的核，而在那里
# erf 和 tanh 的饱和程度不同，所以两个高度 18.7 和 13.5 之比是 1.39，而不是 1.62。
#
# </details>
#
# 3. 在频谱偏置的实验中，改为训练一个无偏置的 tanh 网络，目标为 $\cos\theta + \cos
#    2\theta$。$t \to \infty$ 时训练损失 $\tfrac1{2n}\sum_i (f(x_i) - y_i)^2$ 降到多少？
#
# <details><summary>答案</summary>
#
# 降到 $\tfrac14$，而不是 0。无偏置 tanh 的核是奇的，所以 $\mu_2 = 0$，模态 2 的残差 $\cos 2\theta$
# 永远留着，而模态 1 被学到。损失趋于 $\tfrac12$ 乘以 $\cos^2 2\theta$ 在这些点上的平均，即
# $\tfrac12 \cdot \tfrac12 = \tfrac14$。偏置，或者一个不是奇函数的激活函数，才会把模态 2 带进来。
#
# </details>
#
# 4. 一个隐藏层的 ReLU NTK 在 $S^{d-1}$ 上有 $\mu_k \propto k^{-d}$，$k$ 次球谐函数约有 $k^{d-2}$
#    个。第 $i$ 大的特征值随 $i$ 衰减得多快？它在 $S^3$ 上（$d = 4$）给出什么？
#
# <details><summary>答案</summary>
#
# 直到 $k$ 次的各阶约占 $k^{d-1}$ 个位置，所以 $i \sim k^{d-1}$，$\lambda_i \sim k^{-d} \sim
# i^{-d/(d-1)}$。在 $S^3$ 上（$d = 4$）：$i^{-4/3}$；在 $S^2$ 上（$d = 3$）它给出 §4.5.2 阶梯的 $i^{-3/2}$。$d$ 很大时指数趋于
# $-1$。
#
# </details>
#
# 5. 对一层的 erf NTK，$r = \rho_0 - \sqrt{\rho_0^2 - 1}$，$\rho_0 = 1 + 1/(2\sigma_w^2)$。更大的
#    $\sigma_w$ 使衰减更快还是更慢？从激活函数的角度说明原因。
#
# <details><summary>答案</summary>
#
# 更慢：随着 $\sigma_w$ 增大，$\rho_0 \to 1$，$r \to 1$（$\sigma_w = 1$ 时 $r^2 = 0.146$，$\sigma_w =
# 2$ 时为 0.372）。更大的权重使预激活更大，在它们的尺度上 erf 越来越像
# $\operatorname{sign}$。sign 有一个跳跃；它的反正弦核 $1 - 2\theta/\pi$ 在 $\theta = 0$ 处有尖角，
# 而尖角带回了缓慢的幂律衰减。
#
# </details>

# %% tags=["check"]
slope_net = nh.mlp(2, nh.elementwise(lambda u: 2 / math.sqrt(math.pi) * u, "2u/√π"), sigma_w=1.5)
small = 0.01 * pair
erf_small = float(networks["erf"].kernel(small[:1], small[1:]).ntk)
nh.check_close("question 2: erf NTK at a = 0.01 / the linear network with slope 2/√π",
               erf_small / float(slope_net.kernel(small[:1], small[1:]).ntk), 1.0, rtol=0.005)
nh.check_close("question 2: that linear network / the identity network ((4/π)² = 1.62)",
               float(slope_net.kernel(pair[:1], pair[1:]).ntk) /
               float(nh.mlp(2, "identity", sigma_w=1.5).kernel(pair[:1], pair[1:]).ntk), (4 / math.pi) ** 2,
               rtol=1e-9)
nh.check_close("question 2: plateaus at a = 0.01, erf and tanh (18.7, 13.5)",
               [scaled["erf"][0] / 18.72, scaled["tanh"][0] / 13.48], [1.0, 1.0], rtol=0.002)
tanh_two = course.circle_spectrum("tanh", 2, 1.5)     # question 3: mode 2 is absent, mode 1 is not
nh.check_that("question 3: bias-free tanh, two layers: |μ₂|/μ₁ below 1e-14",
              abs(tanh_two[2]) / tanh_two[1] < 1e-14, measured=abs(tanh_two[2]) / tanh_two[1],
              expected="< 1e-14")
theta_n = torch.arange(n, dtype=torch.float64) * 2 * math.pi / n
nh.check_close("question 3: the loss limit ½ · mean cos² 2θ over 256 points (¼)",
               float(0.5 * (torch.cos(2 * theta_n) ** 2).mean()), 0.25, rtol=1e-12)
nh.check_close("question 5: r² at σ_w = 1 and 2 (0.146, 0.372)",
               [course.erf_rate(1.0) ** 2, course.erf_rate(2.0) ** 2], [0.146, 0.372], atol=5e-4)
nh.check_close("question 5: the erf step ratio at k = 25 follows r² at σ_w = 2 as well",
               course.step_ratio(course.circle_spectrum("erf", 1, 2.0), 25) / course.erf_rate(2.0) ** 2, 1.0,
               rtol=0.05)

# %% [markdown]
# ## 小结
#
# - 无偏置的 ReLU 网络是正齐次的，$\Theta(ax, bx') = ab\,\Theta(x, x')$；偏置会打破它，而
#   tanh 在 0 附近线性、远处饱和，所以它的归一化核随输入尺度变化（一层的
#   NNGP：从 $\cos\theta$ 变到反正弦核）。
# - 激活函数的光滑程度决定特征值的衰减：ReLU 的尖角在圆周上给出 $\mu_k \propto k^{-2}$
#   （在 $S^{d-1}$ 上为 $k^{-d}$，在 $S^2$ 上按序号为 $i^{-3/2}$）；erf 以其闭式给出的速率 $r$ 几何衰减；
#   tanh 比任何幂次都快，但没有固定的几何速率。
# - 奇偶性决定哪些模态存在：无偏置的 tanh 只有奇数 $k$（只能拟合奇函数），无偏置的 ReLU
#   一层时没有奇数 $k \ge 3$，从两层起则全都有；偏置带来所有模态。
# - 深度：在 $\sigma_w^2 = 2$、无偏置时，ReLU 的 NTK 线性增长，并保持 $k^{-2}$；无偏置 tanh 的取决于
#   $\sigma_w$：它消失（有序相，相关系数保持不变）、趋于 ½（边界 $\sigma_w = 1$），或按 $\chi_1^L$ 增长
#   （$\chi_1 > 1$：不动点 $q^*$ 处的斜率因子）、使输入去相关并展宽频谱（混沌相）。
# - 在核区域、均匀数据上，模态 $k$ 以速率 $\eta\mu_k$ 被学到：这就是频谱偏置，ReLU 也不例外。

# %% [markdown]
# ## 写给教材第 4 章的读者
#
# <details><summary>§4.5.1：ReLU 核的“尺度不变性”（勘误 A24）</summary>
#
# **教材原文：** 在球面上 ReLU 核只依赖于夹角，因此是尺度不变的，并且
# $\Theta(ax, bx') \ne ab\,\Theta(x, x')$。
#
# **正确的说法：** 没有偏置时，ReLU 的核是正齐次的：对 $a, b > 0$，$\Theta(ax, bx') = ab\,\Theta(x, x')$
# （§4.5.1，检验到 $10^{-12}$）；只有归一化的核才是尺度不变的，偏置会打破
# 齐次性。在球面上只依赖于夹角并不是 ReLU 特有的：每个权重独立同分布于高斯分布的 MLP
# 都有旋转不变的核。[勘误 A24](../../ERRATA.zh.md#a24)
#
# </details>
#
# <details><summary>§4.5.1：tanh 与 erf 的核“更接近 RBF 核”（勘误 A25）</summary>
#
# **教材原文：** tanh 和 erf 的核既依赖于夹角，也依赖于输入的大小，更光滑，并且更接近
# RBF 核。
#
# **正确的说法：** 依赖于输入大小和更光滑都对；“更接近 RBF”没有确切的含义。
# RBF 核是平稳的（是 $x - x'$ 的函数）；erf 和 tanh 的核是旋转不变的，但不是
# 平稳的（§4.5.1 的平移检验），而且对大输入，一层的归一化 NNGP 趋于尺度不变的
# 反正弦核 $1 - 2\theta/\pi$。[勘误 A25](../../ERRATA.zh.md#a25)
#
# </details>
#
# <details><summary>§4.5.2：特征值衰减与缺失的模态（勘误 A26）</summary>
#
# **教材原文：** tanh/erf 的特征值指数衰减，ReLU 的多项式衰减。
#
# **有条件地成立：** ReLU 的衰减是多项式的（在 $S^{d-1}$ 上为 $k^{-d}$）；erf 的是几何的（速率
# $r$ 来自它的闭式）；tanh 的比任何幂次都快，但不是几何的（它的步比一直上升）。教材
# 还遗漏了奇偶性：无偏置的 tanh 和 erf 核只含奇数频率，所以这样的网络只能拟合奇
# 函数；而无偏置 ReLU 的“缺失的奇数模态”只对一个隐藏层成立（两层时 $\mu_3/\mu_1 = 0.083$）。
# [勘误 A26](../../ERRATA.zh.md#a26)
#
# </details>
#
# <details><summary>§4.5.2：ReLU “能有效地学习高频”（勘误 A27）</summary>
#
# **教材原文：** 因为 ReLU 的特征值只按多项式衰减，它能有效地学习高频。
#
# **正确的说法：** ReLU 仍有频谱偏置。在核区域、均匀数据上，模态 $k$ 以
# 速率 $\eta\mu_k$ 被学到，而 $\mu_k$ 按 $k^{-d}$ 衰减：在圆周上，模态 10 所需的时间约为模态 1 的 230 倍
# （$\mu_1/\mu_{10} = 234$）（Basri et al. 2019；Bietti & Mairal 2019）。[勘误 A27](../../ERRATA.zh.md#a27)
#
# </details>
#
# <details><summary>§4.5.3：空着的对照表（勘误 A28）</summary>
#
# **教材原文：** 它预告了一张比较 ReLU 和 tanh 的表，但表是空的。
#
# **正确的说法：** 上面 §4.5.3 的表把它填上了，数字都是本课测得的：齐次性、
# 小输入和大输入的极限、尖角及其 $k^{-2}$ 频谱与 tanh 更快的衰减、存在的模态、
# 深度（有序相、边界 $\sigma_w = 1$、混沌相），以及偏置的用途。[勘误 A28](../../ERRATA.zh.md#a28)
#
# </details>
#
# <details><summary>练习 4.4：“ReLU 因尺度不变性而更受青睐”（勘误 A29、A31）</summary>
#
# **教材原文：** 练习问为什么 ReLU 因其尺度不变性而更受青睐。
#
# **正确的说法：** 这个前提就是 A24 的错误：ReLU 的核是齐次的，而不是尺度不变的。这道练习在
# `exercises/chapter4/ex4_4_relu_vs_erf.ipynb` 中重新提出。[勘误 A29](../../ERRATA.zh.md#a29)
#
# </details>
#
# **练习：** 4.4（ReLU 与 erf：齐次性、特征值衰减、奇偶性）和 4.8（激活函数与双下降）。
#
# **上一课：** [05b · 参数化](05b_parameterization.ipynb) · **下一课：** [07 · 训练动力学](07_training_dynamics.ipynb)
