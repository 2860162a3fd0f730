# %% [markdown]
# # 05 · 归一化与参数化：什么保持不变，什么在移动
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/05_normalization_parameterization.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F05_normalization_parameterization.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../05_normalization_parameterization.ipynb)）
#
# *教材第 4.4 节。*
#
# **本课内容**
# - 4.4.1：**层归一化**（layer norm）的无限宽核，以及为什么**批归一化**（batch norm）没有这样的核
#   （批次把不同输入耦合在一起）；
# - 4.4.2：几种初始化的名称（LeCun、He、Xavier），以及 NTK 参数化对它们改变了什么；
# - **推导 μP**：在标准参数化、NTK 参数化和 μP 下，一步 SGD 让特征移动多远（表示为宽度的幂）；
#   Yang & Hu (2021) 的 abc 参数化及其指数表；
# - 为什么 NTK 参数化是**惰性的**（特征的移动量按 $m^{-1/2}$ 缩小），而 μP **学习特征**（特征移动 $\Theta(1)$），
#   并用实验测量；**动力学二分性**：二者必居其一，不能兼得；
# - “惰性”的真正含义：*输出*仍然移动 $O(1)$，核极限是从 $f_0$ 出发的无岭核回归，而不是核岭回归。
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
import textwrap

import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 4.4.1 层归一化
#
# 层归一化对每个输入，用其预激活在各单元上的均值和标准差做标准化。在无限宽时，
# 这个标准差由核的对角元给出，因此紧接在全连接层（或卷积层）之后，
#
# $$\Sigma \mapsto \frac{\Sigma(x,x')}{\sqrt{\Sigma(x,x)\,\Sigma(x',x')}}, \qquad
#   \Theta \mapsto \frac{\Theta(x,x')}{\sqrt{\Sigma(x,x)\,\Sigma(x',x')}}$$
#
# （雅可比矩阵中的投影项是 $O(1/\text{宽度})$ 的。）于是核只通过输入的方向依赖于输入。
# 实验：把其中一个输入乘以 $a$（给层归一化提供输入的那一层没有偏置，所以它的输出也随 $a$ 等比例缩放）。
# 两个输入的方向几乎相反（$x\cdot x'/d = -0.74$），所以 $\Theta(x,x') < 0$。有偏置时，核中有一部分不随 $a$
# 缩放，并且为正；$a$ 较小时这部分占主导，比值因而变号（在 $a \approx 0.55$ 以下）。

# %%
pair = nh.sphere(2, d=5, seed=0)
scales = np.geomspace(0.25, 4, 17)
nets = {
    "ReLU, no bias": nh.serial(nh.dense(sigma_w=1.4), nh.relu(), nh.dense(1)),
    "ReLU + bias": nh.serial(nh.dense(sigma_w=1.4, sigma_b=0.5), nh.relu(), nh.dense(1)),
    "dense → layer norm → ReLU": nh.serial(nh.dense(sigma_w=1.4), nh.layer_norm(), nh.relu(),
                                           nh.dense(1, sigma_b=0.5)),
}
ratios = {name: np.array([float(net.kernel(a * pair[:1], pair[1:]).ntk / net.kernel(pair[:1], pair[1:]).ntk)
                          for a in scales])
          for name, net in nets.items()}
fig, ax = plt.subplots()
for name, r in ratios.items():
    ax.plot(scales, r, "o-", ms=4, label=name)
ax.axhline(0, color="k", lw=0.5)
ax.set_xscale("log")                                       # a on a log axis, the ratio on a linear one:
nh.plotting.width_ticks(ax, [0.25, 0.5, 1, 2, 4])          # with a bias it changes sign
ax.set_xlabel("scale a of the first input")
ax.set_ylabel("Θ(a x, x′) / Θ(x, x′)")
ax.legend()
plt.show()

# %%
homogeneity = float(np.abs(ratios["ReLU, no bias"] / scales - 1).max())
ln_spread = float(np.ptp(ratios["dense → layer norm → ReLU"]))
bias_gap = float(np.abs(ratios["ReLU + bias"] / scales - 1).max())
assert homogeneity < 1e-10, \
    f"ReLU without bias: ratio = a to 1e-10 relative expected, measured {homogeneity:.1e}"
assert ln_spread < 1e-4, \
    f"layer norm: ratio independent of a to 1e-4 (eps = 1e-5) expected, spread {ln_spread:.1e}"
assert bias_gap > 0.1, f"ReLU + bias: ratio should differ from a by > 10%, measured {bias_gap:.3f}"
print(nh._("ReLU: linear in a; layer norm: independent of a; a bias breaks both "
           "(largest relative gap to a: {gap:.2f})").format(gap=bias_gap))

# %% [markdown]
# 带层归一化的有限宽网络会收敛到这个核：

# %%
inputs = nh.sphere(8, d=5, seed=1) * 2
arch = nh.serial(nh.dense(sigma_w=1.4, sigma_b=0.3), nh.layer_norm(), nh.relu(), nh.dense(sigma_w=1.4),
                 nh.layer_norm(), nh.tanh(), nh.dense(1))
sweep = nh.width_sweep(arch, inputs, widths=[64, 256, 1024], seeds=4)
print(nh._("relative error per width: {errors}  slope {slope:.2f}").format(
    errors=sweep.errors.mean(1).round(3), slope=sweep.slope))
assert sweep.slope < -0.35, \
    f"convergence slope: expected about -0.5 (below -0.35), measured {sweep.slope:.3f}"

# %% [markdown]
# ## 批归一化把同一批次的输入耦合在一起
#
# > **教材原文：** 批归一化「当 BN 统计量变化时，BN 引入了非平滑性」；层归一化则「是更兼容 NTK
# > 极限的实践选择」。  
# > **正确的说法：** 批归一化是光滑的。它的问题在于统计量取自**有限的批次**，而批次大小并不随宽度增长：
# > 一个输入的输出取决于还有哪些输入和它同在一个批次，因此不存在逐对定义的核（Yang et al. 2019）。
# > 在评估模式下使用固定的统计量（“冻结”，frozen）时，它就是仿射映射，通常的递归可以精确地套用。
# > （[勘误 A17](../../ERRATA.zh.md#a17)）
#
# 实验：固定 $x_1$，把与它同批的另外 7 个样本重新随机抽取 200 次，记录每次的 $f(x_1)$。

# %%
x1 = nh.sphere(1, d=5, seed=2)
outputs = {}
for name, norm in [("batch norm (batch statistics)", nh.batch_norm()),
                   ("frozen batch norm", nh.batch_norm(frozen=True))]:
    model = nh.serial(nh.dense(sigma_w=1.4), norm, nh.relu(), nh.dense(1)).network(5, width=512, seed=0)
    with torch.no_grad():
        outputs[name] = torch.stack([model(torch.cat([x1, nh.sphere(7, d=5, seed=100 + b)]))[0, 0]
                                     for b in range(200)])
fig, ax = plt.subplots()
everything = torch.cat(list(outputs.values()))
bins = np.linspace(float(everything.min()), float(everything.max()), 31)      # one set of bins for both
for name, values in outputs.items():
    ax.hist(values.numpy(), bins=bins, alpha=0.7, label=f"{name}: std {float(values.std()):.3f}")
ax.set_xlabel("f(x₁) for 200 different batch mates")
ax.set_ylabel("count")
ax.legend()
plt.show()

# %%
coupled_std = float(outputs["batch norm (batch statistics)"].std())
coupled_rms = float(outputs["batch norm (batch statistics)"].pow(2).mean().sqrt())
frozen_std = float(outputs["frozen batch norm"].std())
frozen_scale = float(outputs["frozen batch norm"].abs().max())
assert coupled_std > 0.1 * coupled_rms, \
    f"batch statistics: f(x₁) varies (std > 10% of RMS {coupled_rms:.3f}) expected, std {coupled_std:.3f}"
assert frozen_std <= 1e-12 * frozen_scale, \
    f"frozen: f(x₁) fixed to 1e-12 of its size {frozen_scale:.3f} expected, std {frozen_std:.1e}"
bn = nh.serial(nh.dense(sigma_w=1.4), nh.batch_norm(), nh.relu(), nh.dense(1))
try:
    bn.kernel(x1)
except NotImplementedError as error:
    print("bn.kernel(...):", str(error)[:80], "…")

# %% [markdown]
# 它的核仍然可以用一组有限宽网络来*估计*，并给出误差棒：

# %%
batch = nh.sphere(6, d=5, seed=3)
estimate = nh.monte_carlo_kernel(bn, batch, width=256, n_networks=16)
first_row, errors_row = nh._("Monte Carlo NTK, first row:"), nh._("standard errors:")
print(first_row, estimate.ntk[0].numpy().round(3))
print(f"{errors_row:<{len(first_row) - 1}}", estimate.ntk_sem[0].numpy().round(3))

# %% [markdown]
# ## 4.4.2 同一个网络的三种参数化
#
# ### 先说初始化的名称
#
# > **综述原文：** 权重取自 $\mathcal N(0, 1/m)$ 就是「按Xavier初始化」；Xavier 指方差 $1/n_\text{in}$；
# > 而 NTK 初始化的方差是 $1/(n_\text{in}\, m)$。  
# > **正确的说法：** 这几个名称对应不同的方差。**LeCun**：$1/\text{fan-in}$。**He**（Kaiming，用于 ReLU）：
# > $2/\text{fan-in}$。**Xavier**（Glorot & Bengio 2010）：$2/(\text{fan-in} + \text{fan-out})$，只有对方阵层才等于
# > $1/\text{fan-in}$。第一层的扇入（fan-in）是输入维数 $d$，而不是 $m$。NTK 参数化取 $w \sim \mathcal N(0, 1)$，
# > 在前向传播中乘以 $\sigma_w/\sqrt{\text{fan-in}}$，所以等效权重的方差为 $\sigma_w^2/\text{fan-in}$：
# > $\sigma_w = 1$ 时是 LeCun 的值，$\sigma_w = \sqrt 2$ 时是 He 的值。两者在初始化时是同一个网络，
# > 只有梯度不同（见后面几节）。方差 $1/(n_\text{in}\, m)$ 会让预激活每经过一层就缩小 $\sqrt m$ 倍。
# > （[勘误 B5](../../ERRATA.zh.md#b5)、[B23](../../ERRATA.zh.md#b23)、[B25](../../ERRATA.zh.md#b25)）
#
# 实验：取有三个隐藏层的 ReLU 网络，分别采用 NTK 参数化（$\sigma_w = \sqrt 2$，即 He 的方差）和综述给出的方差
# （再乘以 ReLU 的增益 2，使两者只在对宽度的依赖上不同）。

# %%
def preactivation_rms(variance, width, depth=3, d=8):
    """RMS of each layer's pre-activations over 64 inputs, weights N(0, variance(fan_in, width))."""
    g = torch.Generator().manual_seed(0)
    h, rms = nh.sphere(64, d, seed=1), []
    for _ in range(depth):
        weights = torch.randn(width, h.shape[1], generator=g, dtype=torch.float64)
        z = h @ weights.T * math.sqrt(variance(h.shape[1], width))
        rms.append(float(z.pow(2).mean().sqrt()))
        h = torch.relu(z)
    return rms

init_widths = [64, 256, 1024]
ntk_param_rms = []
for m in init_widths:
    model = nh.mlp(3, "relu").network(8, width=m, seed=0)            # NTK parameterization, σ_w = √2
    with torch.no_grad():
        layers = nh.preactivations(model, nh.sphere(64, 8, seed=1))  # z^(1), z^(2), z^(3): (64, m) each
    ntk_param_rms.append([float(z.pow(2).mean().sqrt()) for z in layers])
text_rms = [preactivation_rms(lambda fan_in, m: 2 / (fan_in * m), m) for m in init_widths]
fig, ax = plt.subplots(figsize=(10, 4))
for layer, (marker, shift) in enumerate([("o", 0.93), ("^", 1.0), ("D", 1.07)]):
    ax.loglog([m * shift for m in init_widths], [r[layer] for r in ntk_param_rms], marker + "-", ms=7,
              color=nh.plotting.PALETTE[layer], label=f"layer {layer + 1}, NTK parameterization (= He)")
    ax.loglog(init_widths, [r[layer] for r in text_rms], "s--", color=nh.plotting.PALETTE[layer],
              label=f"layer {layer + 1}, variance 2/(fan-in·m)")
ax.text(init_widths[0], 0.5, "solid: all three layers ≈ √2 (drawn slightly apart in m)", fontsize=10)
nh.plotting.width_ticks(ax, init_widths)
ax.set_xlabel("width m")
ax.set_ylabel("RMS of the pre-activations")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
plt.show()

# %%
init_slopes = {layer + 1: (nh.loglog_slope(init_widths, [r[layer] for r in ntk_param_rms]),
                           nh.loglog_slope(init_widths, [r[layer] for r in text_rms])) for layer in range(3)}
for layer, (ntk_slope, text_slope) in init_slopes.items():
    print(nh._("layer {layer}: slope in m  NTK parameterization {ntk_slope:+.2f}, "
               "variance 2/(fan-in·m) {text_slope:+.2f}").format(layer=layer, ntk_slope=ntk_slope,
                                                                 text_slope=text_slope))
    assert abs(ntk_slope) < 0.05, \
        f"NTK parameterization, layer {layer}: slope 0 ± 0.05 expected, measured {ntk_slope:.3f}"
    assert abs(text_slope + layer / 2) < 0.05, \
        f"variance 2/(fan-in·m), layer {layer}: slope {-layer / 2} ± 0.05 expected, measured {text_slope:.3f}"

# %% [markdown]
# ### 本软件包的三种参数化
#
# 参数化是架构描述的一部分：`nh.mlp(depth, activation,
# parameterization="ntk" | "standard" | "mup")`（也可以逐层使用 `nh.dense(..., parameterization=...)`）。
# 每种参数化都写成同一种形式（Yang et al. 2022, Tensor Programs V, Table 3）：每个可训练权重
# $w_l$ 都服从 $\mathcal N(0,1)$，第 $l$ 层计算 $\sigma_w\,\text{mult}_l\cdot h\,w_l^\top$，并以学习率
# $\eta\cdot\text{lr}_l$ 学习（宽度为 $m$，输入维数为 $d$，默认 $\sigma_w = \sqrt 2$）。构建出的网络同时带有这两个数：
# `nh.lr_multipliers(model)` 列出各个 $\text{lr}_l$，`nh.train` 会用到它们。
#
# | | 输入层 | 隐藏层 | 输出层 | 宽度 → ∞ |
# |---|---|---|---|---|
# | **NTK** | mult $1/\sqrt d$，lr 1 | mult $1/\sqrt m$，lr 1 | mult $1/\sqrt m$，lr 1 | 核固定：*惰性* |
# | **标准**（类似 PyTorch） | mult $1/\sqrt d$，lr $d$ | mult $1/\sqrt m$，lr $m$ | mult $1/\sqrt m$，lr $m$ | 固定 $\eta$ 时不稳定；$\eta \propto 1/m$ 时有核极限 |
# | **μP** | mult $1/\sqrt d$，lr $md$ | mult $1/\sqrt m$，lr $m$ | mult $\mathbf{1/m}$，lr $m$ | 特征移动：*特征学习* |
#
# 等效权重 $W_l = \sigma_w\,\text{mult}_l\, w_l$ 的方差为 $\sigma_w^2\,\text{mult}_l^2$；由链式法则，它的等效学习率为
# $\eta_l = \eta\cdot\text{lr}_l\cdot\sigma_w^2\,\text{mult}_l^2$。其中的常数（$\sigma_w$、$d$、$1/\sqrt d$）是本软件包的选择；
# 当 $m \to \infty$ 时，决定结果的只有 **$m$ 的幂次**，下一节推导的正是它们。
#
# 每种描述还带有其参数化所定义的核。“ntk”：第 01–04 课中的 NTK。“standard”：前向传播相同，因此 NNGP 相同；
# 它的按学习率加权的正切核随 $m$ 线性增长，而取 $\eta \propto 1/m$（唯一能得到有限且非零极限的缩放）时，
# 它趋于去掉输入层项（$d/m \to 0$）和偏置项（$1/m \to 0$）之后的 NTK：对单个 ReLU 隐藏层，
# 它等于下面 NTK 参数化数值的一半。“mup”：没有核极限，`kernel()` 会抛出 `nh.NoClosedForm`（它的特征移动
# $\Theta(1)$，见后面几节）。

# %%
x_demo = nh.sphere(4, d=8, seed=0)                       # |x|² = d, so Σ⁽¹⁾(x, x) = σ_w² = 2
self_ntk = {}
for parameterization in nh.PARAMETERIZATIONS:
    arch = nh.mlp(1, "relu", parameterization=parameterization)
    model = arch.network(8, width=256, seed=0)
    scales = ", ".join(f"{layer.weight_scale:.4g}" for layer in (model[0], model[2]))
    factors = ", ".join(f"{v:g}" for v in nh.lr_multipliers(model).values())
    try:
        self_ntk[parameterization] = float(arch.kernel(x_demo).ntk[0, 0])
        kernel = f"Θ(x, x) = {self_ntk[parameterization]:.4f}"
    except nh.NoClosedForm:
        kernel = nh._("no kernel: nh.NoClosedForm")
    print(nh._("{parameterization:>8} at m = 256: σ_w·mult = {scales}; lr = {factors}; {kernel}").format(
        parameterization=parameterization, scales=scales, factors=factors, kernel=kernel))
assert abs(self_ntk["standard"] - self_ntk["ntk"] / 2) <= 1e-12 * self_ntk["ntk"], \
    f"one ReLU layer: standard Θ = NTK Θ / 2 expected, measured {self_ntk}"

# %% [markdown]
# > **综述原文：** μP 就是「按 $1/\sqrt m$ 缩放每层输出」，其 `MuPLinear` 代码实现了 μP；
# > 在惰性训练区域中，网络输出的变化为 $O(t/\sqrt m)$。  
# > **正确的说法：** “按 $1/\sqrt m$ 缩放”*正是* NTK 参数化。μP 需要输出乘子 $1/m$ 和逐层的学习率，
# > 而单纯的 $1/\sqrt m$ 初始化（`MuPLinear` 所做的仅此而已）并不具备这些。此外，在惰性区域中输出的移动是 $O(1)$
# > （它要拟合数据）：随宽度趋于零的是**核**与**特征**的变化。（[勘误 B33](../../ERRATA.zh.md#b33)、[B34](../../ERRATA.zh.md#b34)、
# > [B11](../../ERRATA.zh.md#b11)）

# %% [markdown]
# ### 推导 μP：一步 SGD 让一个特征移动多远？
#
# 用等效权重写出网络：对输入 $\xi \in \mathbb R^d$ 有 $h^1 = W^1\xi$，$x^l = \phi(h^l)$，
# 对隐藏层 $l = 1, \dots, L-1$ 有 $h^{l+1} = W^{l+1}x^l$，最后 $f = W^{L+1}x^L$。初始化时，每个 $h^l$ 的每个坐标
# 都应当是 $\Theta(1)$ 量级；这就确定了 $\operatorname{Var} W^1 \sim 1$（$d$ 固定：我们只跟踪 $m$ 的幂次），
# 以及隐藏层的 $\operatorname{Var} W^l \sim 1/m$。记 $s$ 为输出权重各元素的量级（$\operatorname{Var} W^{L+1} = s^2$），
# $\eta_l$ 为 $W^l$ 的学习率。
#
# 对损失 $\ell(f)$ 做一步 SGD，记 $\chi = \ell'(f) = \Theta(1)$，它给 $W^l$ 加上秩一矩阵，
# $\Delta W^l = -\eta_l\,\chi\, g^l\,(x^{l-1})^\top$，其中 $g^l = \partial f/\partial h^l$，$x^0 = \xi$；
# 于是该层的预激活改变
#
# $$\Delta W^l\, x^{l-1} \;=\; -\,\eta_l \;\chi\; g^l \;\big((x^{l-1})^\top x^{l-1}\big)
#   \qquad\text{（学习率）} \times \text{（每个单元的梯度）} \times \text{（许多项之和）}.$$
#
# - **每个单元的梯度。** $g^L = \phi'(h^L)\odot (W^{L+1})^\top$ 的元素量级为 $s$。反向经过一个隐藏层时，
#   $(W^{l+1})^\top g^{l+1}$ 是 $m$ 个量级为 $m^{-1/2}s$、符号随机的项之和：量级仍然是 $s$。所以每个
#   $g^l$ 的元素量级都是 $s$。
# - **求和的项数。** $(x^{l-1})^\top x^{l-1}$ 对输入层是 $d$ 项之和，对其他每一层是 $m$ 项之和，而且这些项**不会**
#   相互抵消：更新本身就由特征构成，所以对同一个输入，各项都是平方；对另一个输入，它们的平均是特征核，
#   即 $O(1)$ 量级的数。这个和是 $\Theta(m)$，而不是符号随机之和的 $\Theta(\sqrt m)$。
#
# 因此，忽略常数（Yang & Hu 2021），
#
# $$\Delta h^1 \sim \eta_1\, s, \qquad \Delta h^l \sim \eta_l\, s\, m \ \ (\text{隐藏层}), \qquad
#   \Delta f \sim \eta_{L+1}\, m \;+\; m\, s\, \Delta x^L .$$
#
# 最后一项是输出权重读出特征的变化：$m$ 个同向的项，每项量级为 $s\,\Delta x^L$。
# （前面各层传下来的部分 $W^l \Delta x^{l-1}$，在下面每一种情形中都不超过已列出的项；
# Tensor Programs IV 把整个论证严格化了。）
#
# **μP**（“maximal update”，最大更新）要求每一层的特征*和*输出都移动 $\Theta(1)$：
# - 当 $\Delta x^L = \Theta(1)$ 时，$\Delta f$ 的第二项必须保持 $O(1)$：$m\,s = \Theta(1)$，所以 $s = 1/m$，
#   即输出方差为 $1/m^2$ 而不是 $1/m$；
# - 于是 $\Delta h^1 = \Theta(1)$ 需要 $\eta_1 \sim m$，隐藏层的 $\Delta h^l = \Theta(1)$ 需要 $\eta_l \sim 1$，
#   而 $\eta_{L+1} m = \Theta(1)$ 需要 $\eta_{L+1} \sim 1/m$。
#
# **NTK 参数化**：$s = m^{-1/2}$，$\eta = (1, 1/m, 1/m)$，所以 $\Delta h^1 \sim \Delta h^l \sim m^{-1/2}$，
# $\Delta f \sim 1$：输出在学习，特征几乎不动。**标准参数化，固定 $\eta$**：$s = m^{-1/2}$，
# $\eta = (1, 1, 1)$，所以 $\Delta h^l \sim m^{1/2}$，$\Delta f \sim m$：发散。**标准参数化，
# $\eta \propto 1/m$**：$\Delta h^1 \sim m^{-3/2}$，$\Delta h^l \sim m^{-1/2}$，$\Delta f \sim 1$：
# 得到核极限，其中输入层的贡献消失。
#
# **宽度指数表**（每一项都是 $m$ 的幂；$d$、$\sigma_w$ 和 $\eta$ 固定）：
#
# | | 输入层 $W^1$：Var，$\eta_1$ | 隐藏层 $W^l$：Var，$\eta_l$ | 输出层 $W^{L+1}$：Var，$\eta_{L+1}$ | 一步之后：$\Delta h^1$，$\Delta h^l$，$\Delta f$ | $m \to \infty$ |
# |---|---|---|---|---|---|
# | **标准**，固定 $\eta$ | $m^0$, $m^0$ | $m^{-1}$, $m^0$ | $m^{-1}$, $m^0$ | $m^{-1/2}$, $m^{1/2}$, $m^{1}$ | 不稳定 |
# | **标准**，$\eta \propto 1/m$ | $m^0$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^{-3/2}$, $m^{-1/2}$, $m^0$ | 核极限 |
# | **NTK** | $m^0$, $m^0$ | $m^{-1}$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^{-1/2}$, $m^{-1/2}$, $m^0$ | 核极限（惰性） |
# | **μP** | $m^0$, $m^{1}$ | $m^{-1}$, $m^0$ | $m^{-2}$, $m^{-1}$ | $m^0$, $m^0$, $m^0$ | 特征学习 |
#
# **abc 形式。** Yang & Hu (2021) 写 $W^l = m^{-a_l} w^l$，其中 $w^l \sim \mathcal N(0, m^{-2b_l})$，并用学习率为
# $\eta\, m^{-c}$ 的 SGD 训练。于是 $\operatorname{Var} W^l \propto m^{-2(a_l + b_l)}$；又因为
# $\partial\ell/\partial w = m^{-a}\,\partial\ell/\partial W$ 且 $\Delta W = m^{-a}\Delta w$，
# 所以 $\eta_l \propto m^{-(2a_l + c)}$：
#
# | | $a$：输入层、隐藏层、输出层 | $b$：输入层、隐藏层、输出层 | $c$ |
# |---|---|---|---|
# | **标准** | $0,\ 0,\ 0$ | $0,\ \tfrac12,\ \tfrac12$ | $0$（不稳定）或 $1$（核极限） |
# | **NTK** | $0,\ \tfrac12,\ \tfrac12$ | $0,\ 0,\ 0$ | $0$ |
# | **μP** | $-\tfrac12,\ 0,\ \tfrac12$ | $\tfrac12,\ \tfrac12,\ \tfrac12$ | $0$ |
#
# 同时作平移 $a_l \to a_l + \theta$、$b_l \to b_l - \theta$（每一层用同一个 $\theta$）、$c \to c - 2\theta$，
# 训练过程没有任何改变，因此许多组三元组描述的是同一种参数化；第一张表中的指数正是它们的共同之处。
# 本软件包的形式取 $b = 0$ 并使用逐层学习率：它的 μP 一行给出
# $\eta_1 = md \cdot \tfrac1d \propto m$，
# $\eta_l = m\cdot\tfrac1m = 1$，$\eta_{L+1} = m \cdot \tfrac1{m^2} = \tfrac1m$。
# μP 只规定这些指数：前面的常数可以在较小的宽度下调好，再原样搬到任意宽度（μTransfer，Tensor Programs V）。

# %% [markdown]
# 实验：实际测量一下。两个隐藏层（输入层、一个 $m \times m$ 的隐藏层、输出层），16 个输入，**一步** SGD；
# 在宽度 128、512、2048 下，测量输入层预激活 $h^1$ 和隐藏层预激活 $h^2$ 的相对 RMS 变化，以及 $f$ 的 RMS 变化。
# 为了让每个宽度看到相同的损失导数，我们在 $y + f_0(x)$ 上训练：这样第一次的残差恰好是 $-y$，
# 与随机的初始函数 $f_0$ 无关。

# %%
x_train = nh.sphere(16, d=8, seed=0)
y_train = torch.sin(2 * x_train[:, 0])
settings = {          # label: (parameterization, learning rate as a function of the width m)
    "NTK, η = 0.5": ("ntk", lambda m: 0.5),
    "μP, η = 0.02": ("mup", lambda m: 0.02),
    "standard, fixed η = 0.005": ("standard", lambda m: 0.005),
    "standard, η = 1/m": ("standard", lambda m: 1 / m),
}
setting_names = {"NTK, η = 0.5": "NTK, η = 0.5", "μP, η = 0.02": "μP, η = 0.02",   # as printed
                 "standard, fixed η = 0.005": nh._("standard, fixed η = 0.005"),
                 "standard, η = 1/m": nh._("standard, η = 1/m")}
predicted = {"NTK, η = 0.5": (-0.5, -0.5, 0.0), "μP, η = 0.02": (0.0, 0.0, 0.0),
             "standard, fixed η = 0.005": (-0.5, 0.5, 1.0), "standard, η = 1/m": (-1.5, -0.5, 0.0)}
step_widths = [128, 512, 2048]

def rms(t):
    return float(t.pow(2).mean().sqrt())

def network(parameterization, width, depth=1, seed=0):
    """A ReLU MLP with ``depth`` hidden layers on inputs of dimension 8; f(x) has shape (n, 1)."""
    return nh.mlp(depth, "relu", parameterization=parameterization).network(8, width=width, seed=seed)

def one_step_changes(parameterization, lr, width):
    model = network(parameterization, width, depth=2)
    with torch.no_grad():
        h_before, f_before = nh.preactivations(model, x_train), model(x_train)[:, 0]
    nh.train(model, x_train, y_train + f_before, lr=lr, steps=1, track_kernels=False)
    with torch.no_grad():
        h_after, f_after = nh.preactivations(model, x_train), model(x_train)[:, 0]
    return [rms(a - b) / rms(b) for a, b in zip(h_after, h_before)] + [rms(f_after - f_before)]

one_step = {label: np.array([one_step_changes(p, rule(m), m) for m in step_widths])
            for label, (p, rule) in settings.items()}
exponents = {label: [nh.loglog_slope(step_widths, c[:, j]) for j in range(3)]
             for label, c in one_step.items()}
print(nh._("slopes in m after one step:   Δh¹ (input layer)   Δh² (hidden layer)   Δf"))
for label, measured in exponents.items():
    pairs = zip(measured, predicted[label])
    print(f"{setting_names[label]:>26}: " + "   ".join(
        nh._("{measured:+.2f} (predicted {predicted:+.1f})").format(measured=e, predicted=p)
        for e, p in pairs))

# %%
fig, ax = plt.subplots(figsize=(10, 4))
for label, changes in one_step.items():
    nh.plotting.loglog_fit(ax, step_widths, changes[:, 1], label=label)
nh.plotting.width_ticks(ax, step_widths)
ax.set_xlabel("width m")
ax.set_ylabel("relative change of h² after one step")
ax.set_title("hidden-layer features after one SGD step")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
plt.show()

# %%
for label, measured in exponents.items():
    for what, e, p in zip(["Δh¹", "Δh²", "Δf"], measured, predicted[label]):
        assert abs(e - p) <= 0.1, f"{label}, {what}: slope {p:+.1f} ± 0.1 expected, measured {e:+.3f}"
print(nh._("every measured exponent is within 0.1 of the table"))

# %% [markdown]
# 在 NTK 参数化下，一步让每个特征移动其自身大小的 $m^{-1/2}$：在无限宽时，特征以及由特征构成的核都不会移动。
# 这就是**惰性**训练。在 μP 下，它们移动的量与 $m$ 无关（其大小由 $\eta$ 决定）。标准参数化的隐藏层
# 随着网络变宽反而移动得*更多*，输出更是如此（$m^{1}$）。
#
# ### 多步训练：惰性训练与特征学习
#
# 一个隐藏层，16 个训练点，50 步梯度下降，宽度 256 … 4096，3 个随机种子。我们记录按学习率加权的 NTK
# $\sum_l \eta_l \langle \partial f/\partial W^l,
# \partial f'/\partial W^l\rangle$（驱动 $\mathrm d f/\mathrm dt$ 的那个核）、隐藏层特征核
# $\Phi\Phi^\top/m$、全部权重（$\lVert w_T - w_0\rVert / \lVert w_0\rVert$）各自的相对变化，以及输出移动了多远。

# %%
widths = [256, 1024, 4096]
learning_rate = {"ntk": 0.5, "mup": 0.02}

def movement(parameterization, width, seed):
    model = network(parameterization, width, seed=seed)
    weights = list(model.parameters())
    start = [w.detach().clone() for w in weights]
    record = nh.train(model, x_train, y_train, lr=learning_rate[parameterization], steps=50)
    with torch.no_grad():
        weight_change = math.sqrt(sum(float((w - w0).pow(2).sum()) for w, w0 in zip(weights, start))
                                  / sum(float(w0.pow(2).sum()) for w0 in start))
    output_change = float((record.outputs[-1] - record.outputs[0]).norm() / y_train.norm())
    return record.ntk_change, record.feature_change, weight_change, output_change

results = {p: np.array([[movement(p, m, s) for s in range(3)] for m in widths]).mean(1)
           for p in learning_rate}
for p, r in results.items():
    print(nh._("{parameterization:>4}: NTK change {ntk}, feature change {features}, weight change {weights}, "
               "output change {outputs}").format(parameterization=p,
                                                 ntk=np.array2string(r[:, 0], precision=3),
                                                 features=np.array2string(r[:, 1], precision=3),
                                                 weights=np.array2string(r[:, 2], precision=3),
                                                 outputs=np.array2string(r[:, 3], precision=2)))

# %%
fig, ax = plt.subplots(figsize=(10, 4))
slopes = {}
for p, r in results.items():
    slopes[p, "NTK"] = nh.plotting.loglog_fit(ax, widths, r[:, 0], label=f"{p}: NTK change")
    slopes[p, "features"] = nh.plotting.loglog_fit(ax, widths, r[:, 1], label=f"{p}: feature-kernel change")
    slopes[p, "weights"] = nh.plotting.loglog_fit(ax, widths, r[:, 2], label=f"{p}: weight change")
nh.plotting.width_ticks(ax, widths)
ax.set_xlabel("width m")
ax.set_ylabel("relative change after 50 steps")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))
plt.show()

# %%
quantities = {"NTK": "NTK", "features": nh._("features"), "weights": nh._("weights")}       # as printed
print({f"{p} {quantities[what]}": round(float(v), 2) for (p, what), v in slopes.items()})
assert slopes["ntk", "NTK"] <= -0.4, f"NTK param., kernel: slope ≤ -0.4 expected, {slopes['ntk', 'NTK']:.3f}"
assert slopes["ntk", "features"] <= -0.7, \
    f"NTK param., feature kernel: slope ≤ -0.7 expected, measured {slopes['ntk', 'features']:.3f}"
assert abs(slopes["ntk", "weights"] + 0.5) <= 0.1, \
    f"NTK param., weights: slope -0.5 ± 0.1 expected, measured {slopes['ntk', 'weights']:.3f}"
assert abs(slopes["mup", "NTK"]) <= 0.2, f"μP, kernel: slope 0 ± 0.2 expected, {slopes['mup', 'NTK']:.3f}"
assert abs(slopes["mup", "features"]) <= 0.15, \
    f"μP, feature kernel: slope 0 ± 0.15 expected, measured {slopes['mup', 'features']:.3f}"
assert results["ntk"][:, 3].min() > 0.5, \
    f"NTK param.: outputs move by O(1) (> 0.5 of |y|) expected, smallest {results['ntk'][:, 3].min():.3f}"

# %% [markdown]
# 所以，**惰性**的意思是：网络拟合了数据（它的输出从随机的 $f_0$ 走到 $y$，在每个宽度下变化都约为 $2|y|$），
# 而它的核和特征（几乎）停留在出发点。参数确实在移动（这里只有一个隐藏层，每个参数都在动，
# 相对变化都是 $m^{-1/2}$，合起来足以让 $f$ 移动 $O(1)$；若是 $m \times m$ 的层，其元素的相对变化是
# $m^{-1}$），但它们对特征的影响趋于零。特征*核*的移动比单个特征还小（是 $m^{-1}$ 而不是
# $m^{-1/2}$）：各单元的变化符号随机，在平均 $\Phi\Phi^\top/m$ 中相互抵消。NTK 的变化介于 $m^{-1/2}$ 与
# $m^{-1}$ 之间，这里约为 $m^{-0.71}$（上面打印的斜率）。Lee et al. (2019) 证明了 $m^{-1/2}$
# 是上界；激活函数光滑时变化能达到 $m^{-1}$，而在 ReLU 网络中，那些由开变关或由关变开的单元使它
# 衰减得比 $m^{-1}$ 慢。在 μP 下，核与特征在每个宽度下都移动同样的 $O(1)$ 量。
#
# > **教材原文：** 在 μP 下，「网络的函数 $f(x)$ 仍然能显著地偏离其初始状态，即特征仍在学习」。  
# > **正确的说法：** 在 NTK 参数化下 $f$ 同样移动 $O(1)$（上面已经打印：每个宽度下输出的变化都约为 $2|y|$）；
# > 输出是否移动并不是判据。μP 与众不同之处在于：当 $m \to \infty$ 时，**隐藏层的特征以及随之而来的核，
# > 其变化是 $\Theta(1)$**，而在 NTK 参数化下这两种变化都趋于零。（[勘误 A20](../../ERRATA.zh.md#a20)）
#
# ### 动力学二分性
#
# Yang & Hu (2021, Tensor Programs IV) 对每一种用 SGD 训练的 abc 参数化证明了这一点，只要它是*稳定的*
# （$m \to \infty$ 时没有任何量发散）且*非平凡的*（输出确实在学习）：特征的更新按 $m^{-r}$ 缩放，
# 其中指数 $r \ge 0$ 由 $a$、$b$、$c$ 算出，并且
# - $r > 0$：特征在极限中冻结，函数按固定核的核梯度下降演化：这是**核区域**（kernel regime；NTK 参数化，
#   以及 $\eta \propto 1/m$ 的标准参数化；含一个 $m \times m$ 隐藏层时 $r = \tfrac12$，即上面测得的 $m^{-1/2}$）；
# - $r = 0$：特征移动 $\Theta(1)$：**特征学习**（μP：所有层同时如此，即“最大更新”）。
#
# 直观上，二者不能兼得：正切核由特征和反向传播的向量构成，所以移动 $\Theta(1)$ 的特征会让核也移动 $\Theta(1)$，
# 而核要保持固定，特征就必须保持固定。
#
# 上表还有两个推论：μP 在初始化时的输出按 $m^{-1/2}$ 缩小（输出权重方差 $1/m^2$，对 $m$ 个单元求和），
# 而标准参数化在固定学习率下，每一步的步幅随宽度增大。

# %%
with torch.no_grad():
    rms_f0 = [float(torch.stack([network("mup", m, seed=s)(x_train) for s in range(20)]).pow(2).mean().sqrt())
              for m in widths]
loss_after_one_step = [float(nh.train(network("standard", m), x_train, y_train, lr=1.0, steps=1,
                                      track_kernels=False).loss[-1]) for m in widths]
f0_slope = nh.loglog_slope(widths, rms_f0)
print(nh._("μP output at init (RMS): {values}, slope {slope:.2f}").format(values=[f"{v:.3g}" for v in rms_f0],
                                                                         slope=f0_slope))
print(nh._("standard parameterization, loss after one step at η = 1: {values}").format(
    values=[f"{v:.3g}" for v in loss_after_one_step]))
assert abs(f0_slope + 0.5) < 0.15, f"μP output at init: slope -0.5 ± 0.15 expected, measured {f0_slope:.3f}"
assert loss_after_one_step[0] < loss_after_one_step[1] < loss_after_one_step[2], \
    f"standard, η = 1: loss after one step should grow with m, measured {loss_after_one_step}"

# %% [markdown]
# ### 核极限是什么，不是什么
#
# > **教材原文：** NTK 参数化「保证了网络在整个训练过程中都停留在参数空间的线性化区域。训练过程等价于核岭回归。」  
# > **正确的说法：** 只有当 $m \to \infty$，并且学习率低于稳定性界限（$\eta\,\lambda_{\max}/n < 2$）时，
# > 线性化才变得精确。对平方损失和全批量梯度下降，它在整个训练时间上一致成立，包括收敛本身（Lee et al. 2019）；
# > 对其他损失只在有限的时间内成立（Jacot et al. 2018）。在有限宽度下它只是近似，误差随 $m$ 减小。
# > 它给出的是从随机初始函数 $f_0$ 出发的核**梯度下降**。训练到收敛时，
# > $f_\infty(x) = f_0(x) + \Theta(x, X)\,\Theta(X, X)^{-1}\big(y - f_0(X)\big)$：即**无岭**核回归，再加上来自 $f_0$
# > 的偏移。只有加上把权重拉回初始值的显式惩罚项，才会出现岭项；早停的作用与之类似。
# > 第 07 课（`07_training_dynamics.ipynb`）会把这些结论与真实的梯度下降逐一对照检验。
# > （[勘误 A19](../../ERRATA.zh.md#a19)）
#
# 快速检验：把一个宽度为 4096 的网络训练到收敛，在 8 个新输入上把它的预测与上面的公式（用初始化时的经验 NTK）比较，
# 也与忘掉了 $f_0$ 的普通无岭回归比较。

# %%
x_new = nh.sphere(8, d=8, seed=5)
model = network("ntk", 4096)
with torch.no_grad():
    f0_train, f0_new = model(x_train)[:, 0], model(x_new)[:, 0]
theta = nh.empirical_ntk(model, torch.cat([x_train, x_new]))
record = nh.train(model, x_train, y_train, lr=1.0, steps=600, x_eval=x_new, record_every=600,
                  track_kernels=False)
with_offset = f0_new + nh.kernel_regression(theta[:16, :16], theta[16:, :16], y_train - f0_train)
without_offset = nh.kernel_regression(theta[:16, :16], theta[16:, :16], y_train)
gap = float((record.outputs[-1] - with_offset).abs().max())
gap_without = float((record.outputs[-1] - without_offset).abs().max())
print(nh._("training loss after 600 steps: {loss:.1e}").format(loss=float(record.loss[-1])))
print(nh._("max |network - (f0 + ridgeless regression on y - f0)| = {gap:.3f};  "
           "max |network - ridgeless regression on y| = {gap_without:.2f}").format(
    gap=gap, gap_without=gap_without))
assert gap < 0.1 * gap_without, f"the f0 offset matters: gap {gap:.3f} should be < 10% of {gap_without:.3f}"

# %% [markdown]
# ## 动手探索
#
# 训练一个网络（一个隐藏层，50 步），比较它训练前后的特征核（左图）以及损失（右图）。四种设置与单步实验中的相同。
# 对每种设置，滑块下方打印的一行给出 $\eta\,\lambda_\max/n$，即梯度下降的稳定性数：$\lambda_\max$ 是初始化时
# 按学习率加权的 NTK 的最大特征值，这个数超过 2 时，线性化网络会发散。在标准参数化下 $\lambda_\max$ 随 $m$
# 线性增长，因此任何固定的 $\eta$ 超过某个宽度后都会失败（这里从 $m = 1024$ 起）；让 $\eta$ 按 $1/m$ 缩放，
# 这个数就保持不变，从而得到核极限。

# %%
explanations = {
    "ntk": nh._("lazy: the kernel and the features barely move, and move less at larger widths"),
    "mup": nh._("feature learning: the feature kernel moves by about the same amount at every width"),
    "standard": nh._("stable at this width, but λ_max grows like m: at a fixed η a wider network diverges"),
}

def draw_training(setting, width):
    parameterization, rule = settings[setting]
    lr = rule(width)
    model = network(parameterization, width)
    lam_max = float(torch.linalg.eigvalsh(nh.empirical_ntk(model, x_train,
                                                           parameter_weights=nh.lr_multipliers(model)))[-1])
    stability = lr * lam_max / len(x_train)
    record = nh.train(model, x_train, y_train, lr=lr, steps=50, on_divergence="stop")
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    right.semilogy(record.loss)
    right.set_xlabel("step")
    right.set_ylabel("training loss")
    left.set_xlabel("feature kernel entry before training")
    left.set_ylabel("same entry after training")
    if record.diverged_at is not None:
        left.text(0.5, 0.5, f"diverged at step {record.diverged_at}:\nno kernel after training", ha="center",
                  va="center", transform=left.transAxes)
        left.axis("off")
        print(textwrap.fill(nh._("{setting}, width {width}: η·λ_max/n = {stability:.3g} {relation} 2, "
                                 "gradient descent diverged (the loss overflowed at step {step}); λ_max "
                                 "grows like m, so a fixed η fails at large widths").format(
            setting=setting_names[setting], width=width, stability=stability,
            relation=">" if stability > 2 else "≤", step=record.diverged_at), 110))
        return
    left.scatter(record.features_start.flatten(), record.features_end.flatten(), s=8, label="kernel entries")
    lims = [float(record.features_start.min()), float(record.features_start.max())]
    left.plot(lims, lims, "k--", lw=1, label="no change")
    left.legend()
    if setting == "standard, η = 1/m":
        story = nh._("kernel limit: η·λ_max/n tends to a constant as m grows, and the features freeze")
    else:
        story = explanations[parameterization]
    print(textwrap.fill(nh._("{setting}, width {width}: η·λ_max/n = {stability:.3g}; NTK change {ntk:.3g}, "
                             "feature change {features:.3g}, loss {start:.3g} → {end:.3g}. {story}").format(
        setting=setting_names[setting], width=width, stability=stability, ntk=record.ntk_change,
        features=record.feature_change, start=float(record.loss[0]), end=float(record.loss[-1]),
        story=story), 110))

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_training,
                       setting=nh.widgets.dropdown("setting", "NTK, η = 0.5", options=list(settings)),
                       width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)))

# %% [markdown]
# ## 小结
#
# - 全连接层/卷积层之后的层归一化把核除以它的对角元：核只看得到方向。
# - 使用批统计量的批归一化把同一批次中的输入耦合在一起；它的核只能用蒙特卡洛方法估计，没有闭式形式。
#   冻结的批归一化是仿射映射。
# - LeCun $1/\text{fan-in}$，He $2/\text{fan-in}$，Xavier $2/(\text{fan-in} + \text{fan-out})$；NTK
#   参数化的前向传播与 LeCun/He 相同，只是梯度的尺度不同。
# - 一步 SGD 让一个特征移动（学习率）×（每个单元的梯度）×（同向项的个数）。要求每一层都移动 $\Theta(1)$，
#   就得到 μP：输出方差 $m^{-2}$，输入层、隐藏层和输出层的学习率分别为 $m^{1}, m^{0}, m^{-1}$
#   （即上表；测得的指数与之相差都在 0.1 以内）。
# - NTK 参数化：随着宽度增大，核和特征冻结，而输出照样拟合数据；极限是从 $f_0$ 出发的核梯度下降
#   （收敛时为无岭回归）。μP：在每个宽度下特征都移动 $\Theta(1)$。一种参数化只能是二者之一
#   （Yang & Hu 的二分性）。标准参数化：固定 $\eta$ 时不稳定，$\eta \propto 1/m$ 时有核极限。
#
# **练习：** 4.5（μP 如何打破核极限）。
#
# **下一课：** [06 · 激活函数](06_activations.ipynb)
