# %% [markdown]
# # 05a · 归一化：层归一化保留了什么，批归一化耦合了什么
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/05a_normalization.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F05a_normalization.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../05a_normalization.ipynb)）
#
# *教材第 4.4.1 节。*
#
# **本课内容**
# - **层归一化**（layer norm）的无限宽核：它把 $\Sigma$ 和 $\Theta$ 除以核的对角元；
# - 这个核**何时**只看输入的方向（层归一化之前是无偏置、正齐次的层），以及一个不满足这一点的网络
#   （层归一化之前有偏置）；
# - 为什么**批归一化**（batch norm）没有两两输入之间的核：它的统计量来自有限的批次，所以一个输入的输出
#   取决于与它同批的样本，任何宽度下都是如此；
# - 什么是**冻结**的批归一化（一个有精确核的仿射映射），以及如何*估计*使用批统计量的批归一化的核。
#
# **预备知识：** 第 01–02 课（NNGP $\Sigma$、NTK $\Theta$ 及其递归）。上一课：
# [04 · 残差网络](04_resnet.ipynb)。

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh
from ntk_helpers.course import normalization as course     # this lesson's experiments, diagram and explorers

nh.plotting.use_style()

# %% [markdown]
# ## 一图看懂核心思想
#
# 层归一化用每个输入*自己*各单元的统计量来缩放这个输入，而在无限宽时这些统计量就是核的对角元，
# 所以层归一化变成对核的一个固定的缩放。批归一化用*批次*的统计量来缩放每个单元，而批次并不随宽度增长，
# 所以一个输入的输出取决于哪些输入与它同在一个批次。

# %%
course.idea_diagram()
plt.show()

# %% [markdown]
# 表中每一行是一个输入的预激活，每一列是一个单元。层归一化沿一行取平均：
# $m$ 个数，当 $m \to \infty$ 时趋于集中。批归一化沿一列取平均：$B$ 个数，批次中每个输入一个，
# 而无论网络多宽，$B$ 都保持不变。
#
# ## 4.4.1 层归一化：一个核映射
#
# 层归一化把一个输入的预激活 $z \in \mathbb R^m$ 映射为
# $\operatorname{LN}(z)_i = (z_i - \mu)/\sqrt{s^2 + \epsilon}$，其中 $\mu = \frac1m\sum_i z_i$，
# $s^2 = \frac1m\sum_i (z_i - \mu)^2$（即本软件包的 `nh.layer_norm()`，不含可学习的增益和平移，
# $\epsilon = 10^{-5}$）。紧接在全连接层之后、在初始化时，各单元的 $z_i(x)$ 相互独立，
# 均值为 0，方差为 $\Sigma(x, x)$。当 $m \to \infty$ 时，由大数定律得 $\mu \to 0$ 和
# $s^2 \to \Sigma(x, x)$：层归一化变成固定的缩放 $z(x) \mapsto z(x)/\sqrt{\Sigma(x,x) + \epsilon}$，
# 每个输入一个数。两个核都按它缩放：
#
# $$\Sigma(x,x') \mapsto \frac{\Sigma(x,x')}{\sqrt{(\Sigma(x,x)+\epsilon)(\Sigma(x',x')+\epsilon)}}, \qquad
#   \Theta(x,x') \mapsto \frac{\Theta(x,x')}{\sqrt{(\Sigma(x,x)+\epsilon)(\Sigma(x',x')+\epsilon)}}.$$
#
# （层归一化的雅可比矩阵还会投影掉 $\mathbf 1$ 和 $z$ 这两个方向：$m$ 个方向中的两个，
# 对 $\Theta$ 的改变是 $O(1/m)$ 的，在极限下消失。）这正是 neural-tangents 中
# `stax.LayerNorm` 的层归一化规则（Novak et al. 2020）；Tensor Programs 框架也涵盖它（Yang 2020，Tensor Programs II）。
#
# ### 核何时只看方向？
#
# 把一个输入乘以 $a > 0$。层归一化会去掉任何正的因子：对 $c > 0$ 有 $\operatorname{LN}(c\,z) =
# \operatorname{LN}(z)$（不计 $\epsilon$）。所以，如果层归一化*之前*的各层对输入是**正齐次**的，
# 即对参数 $\theta$ 的每一个取值都有 $z(ax;\theta) = a^k z(x;\theta)$，那么对每个 $\theta$ 都有
# $f(ax;\theta) = f(x;\theta)$。作为 $\theta$ 的函数，两个相等的函数梯度也相等，
# 所以 $\Theta(ax, x') = \Theta(x, x')$：精确成立，在任何宽度下都成立，而不只是在极限下。
# 当层归一化跟在一个无偏置的全连接层之后，或者跟在由无偏置的全连接层和 ReLU 组成的一叠层之后时，正是这种情形。
#
# **层归一化之前的偏置**会破坏这一点：$z(ax) = a\,Wx + b$ 不是 $z(x) = Wx + b$ 的倍数。
# 不是齐次的激活函数（例如 $\tanh$）也会破坏它。这时带层归一化的核仍然依赖于输入的范数，
# 依赖的方式取决于层归一化之前的各层对范数做了什么。
#
# 实验：两个输入 $x, x'$（$x \cdot x/d = 1$，$d = 5$），方向几乎相反
# （$x \cdot x'/d = -0.74$）。把 $x$ 乘以从 $1/4$ 到 $4$ 的 $a$，对四个网络画出 $\Theta(ax, x')/\Theta(x, x')$：
# 第一层有偏置和无偏置的 ReLU 网络，以及在第一层之后加上层归一化的同样两个网络。

# %%
ratios = {}
for name, bias, with_ln in [("ReLU, no bias", 0.0, False), ("ReLU + bias", 0.5, False),
                            (nh._("layer norm, no bias before it"), 0.0, True),
                            (nh._("layer norm, bias σ_b = 0.5 before it"), 0.5, True)]:
    theta, base = course.kernel_vs_scale(bias, with_layer_norm=with_ln)   # Θ(a x, x′) for each a, Θ(x, x′)
    ratios[name] = theta / base
fig, ax = plt.subplots()
for name, ratio in ratios.items():
    ax.plot(course.SCALES, ratio, "o-", ms=4, label=name)
ax.axhline(0, color="k", lw=0.5)
ax.set_xscale("log")
nh.plotting.width_ticks(ax, [0.25, 0.5, 1, 2, 4])
ax.set_xlabel("scale a of the first input")
ax.set_ylabel("Θ(a x, x′) / Θ(x, x′)")
ax.set_title(nh._("Layer norm erases the scale only when no bias comes before it"))
ax.legend(fontsize="small")
plt.show()

# %% tags=["check"]
ln_names = list(ratios)[2:]
# no bias: the ReLU network is homogeneous of degree 1 in x (rounding only)
nh.check_close("ReLU, no bias: Θ(a x, x′)/Θ(x, x′) = a", ratios["ReLU, no bias"], course.SCALES, rtol=1e-10)
# layer norm after a bias-free layer: a changes only the ε term, 1e-5 against Σ(ax, ax) ≥ 0.12
nh.check_close("layer norm, no bias before it: the ratio is 1 for every a", ratios[ln_names[0]],
               np.ones_like(course.SCALES), atol=1e-4)
biased = ratios[ln_names[1]]
nh.check_close("layer norm, bias 0.5 before it: the ratio at a = 1/4, 1, 4 (−2.66, 1, 1.55)",
               biased[[0, 8, -1]], [-2.66, 1.0, 1.55], atol=0.005)
nh.check_that("layer norm, bias before it: the ratio is negative at a = 0.5 and positive at a = 0.59",
              biased[4] < 0 < biased[5], measured=biased[4:6].round(3), expected="< 0, > 0")
nh.check_between("ReLU + bias: largest relative gap between the ratio and a (above 0.1)",
                 float(np.abs(ratios["ReLU + bias"] / course.SCALES - 1).max()), 0.1, np.inf)

# %% [markdown]
# 来读这四条曲线。没有偏置时 ReLU 网络是齐次的：$\Theta(ax, x') = a\,\Theta(x, x')$，
# 是 $a$ 的一条斜率为 1 的直线（这里看起来弯曲，只是因为 $a$ 轴是对数坐标）。无偏置的层之后接层归一化，
# 就把这条直线变成常数 1。层归一化之前有 $\sigma_b = 0.5$ 的偏置时，比值从 $a = 1/4$ 处的 $-2.66$
# 变到 $a = 4$ 处的 $1.55$，并在 $a = 0.5$ 与 $a = 0.6$ 之间变号。为什么离 1 这么远？
# 两个输入几乎方向相反，所以 $\Theta(x, x') = -0.038$ 很小且为负。对一个小的输入，
# $z(ax) = aWx + b$ 主要是偏置，而 $x'$ 也带着同一个偏置。它们之间的核是正的：$\Theta(x/4, x') = +0.101$。
#
# ## 动手探索：偏置放在哪里
#
# 交互探索画出 $\Theta(ax, x')$ 本身随 $a$ 的变化（而不是比值，因为比值的分母可能经过零）：
# 实线是网络 dense($\sigma_b$ before) → 层归一化 → ReLU → dense(1, $\sigma_b$ after)，
# 虚线是去掉层归一化的同一网络；点线标出每条曲线在 $a = 1$ 处的值。标题给出层归一化曲线在
# $a \in [1/4, 4]$ 上的变化幅度，相对于核的大小 $\sqrt{\Theta(x,x)\,\Theta(x',x')}$。
# 它的初始设置就是上面的反例：层归一化之前 $\sigma_b = 0.5$，之后没有偏置。

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_scale,
                       bias_before=nh.widgets.sigma_slider(nh._("σ_b before layer norm"), 0.5, max=2.0),
                       bias_after=nh.widgets.sigma_slider(nh._("σ_b after layer norm"), 0.0, max=2.0))

# %% [markdown]
# **先预测，再检验。**
#
# 1. 把层归一化之前的偏置移到 0。实线会怎样？虚线呢？
#
# <details><summary>答案</summary>
#
# 实线变平，停在 $\Theta(x, x') = -0.0666$：标题说它的变化幅度是 $3\cdot 10^{-6}$，
# 这是 $\epsilon$ 的作用。虚线（无层归一化、无偏置）是 $a\,\Theta(x, x')$，其中它自己的
# $\Theta(x, x') = -0.130$：从 $a = 1/4$ 处的 $-0.033$ 变到 $a = 4$ 处的 $-0.52$。
#
# </details>
#
# 2. 保持层归一化之前没有偏置，把层归一化*之后*（读出层中）的偏置调到 1。实线会开始依赖于 $a$ 吗？
#
# <details><summary>答案</summary>
#
# 不会：它保持平坦，整体上移 $\sigma_b^2 = 1$，到 $0.9334$（读出层的偏置在每个输入处的梯度都是
# $\sigma_b = 1$，所以它给 $\Theta$ 的每个矩阵元都加上 $\sigma_b^2$）。层归一化之后的部分
# 只看到归一化后的向量，而这个向量对 $ax$ 和对 $x$ 是相同的，所以对每个 $\theta$ 仍有
# $f(ax;\theta) = f(x;\theta)$。虚线不是平的：那里 $\Theta(ax, x') = a\,\Theta_0(x, x') + 1$，
# 其中 $\Theta_0(x, x') = -0.130$ 是不含任何偏置时的核，从 $a = 1/4$ 处的 $0.967$ 变到 $a = 4$ 处的 $0.478$。
#
# </details>
#
# 3. 把层归一化之后的偏置调回 0，再把层归一化之前的偏置从 0.5 推到 2。核对 $a$ 的依赖会更强还是更弱？
#    层归一化会把一个小的输入变成什么？
#
# <details><summary>答案</summary>
#
# 更强：标题中的变化幅度从 0.16 增大到 0.57。取 $\sigma_b = 2$ 时，对小的 $a$，偏置在
# $z(ax) = aWx + b$ 中占主导，于是层归一化返回的几乎就是归一化后的 $b$：对每个小的输入几乎都是同一个向量，
# 无论它的方向如何。$\Theta(x/4, x') = 0.668$，而 $a = 1$ 时为 $0.419$，$a = 4$ 时为 $0.101$。
#
# </details>

# %% tags=["check"]
def explorer_theta(before, after, with_ln=True):
    theta, base = course.kernel_vs_scale(before, after, with_layer_norm=with_ln)
    return [float(theta[0]), base, float(theta[-1])]            # a = 1/4, 1, 4


nh.check_close("explorer, no bias: Θ(a x, x′) at a = 1/4, 1, 4 (flat at −0.0666)", explorer_theta(0, 0),
               [-0.0666] * 3, atol=5e-5)
nh.check_between("explorer, no bias: variation over a (3e-6, from ε)", course.flatness(0, 0), 1e-6, 5e-6)
nh.check_close("explorer, no layer norm, no bias: Θ(a x, x′) at a = 1/4, 1, 4 (−0.033, −0.130, −0.52)",
               explorer_theta(0, 0, with_ln=False), [-0.033, -0.130, -0.52], atol=0.003)
nh.check_close("explorer, bias 1 after layer norm: flat at 0.9334", explorer_theta(0, 1), [0.9334] * 3,
               atol=5e-5)
nh.check_close("explorer, bias 1 after, no layer norm: 0.967 at a = 1/4, 0.478 at a = 4",
               explorer_theta(0, 1, with_ln=False)[::2], [0.967, 0.478], atol=0.001)
nh.check_close("explorer, bias before 0.5 and 2: variation over a (0.16, 0.57)",
               [course.flatness(0.5, 0), course.flatness(2, 0)], [0.16, 0.57], atol=0.005)
nh.check_close("explorer, bias 2 before: Θ(a x, x′) at a = 1/4, 1, 4 (0.668, 0.419, 0.101)",
               explorer_theta(2, 0), [0.668, 0.419, 0.101], atol=0.0005)

# %% [markdown]
# ### 有限宽网络与之一致，并且精确保持这种不变性
#
# 上面的论证对每一个有限宽网络都成立，而不只是在极限下：对无偏置的网络，
# 经验 NTK（自动求导，单个网络）在每个宽度下都给出 $\Theta(4x, x') / \Theta(x, x') = 1$。
# 层归一化之前有偏置时，这个比值不等于 1。随着宽度增大，两个网络的经验 NTK 都趋近层归一化的核
# （8 个输入，每个宽度 4 个网络）。

# %%
finite = {width: [course.finite_ntk_ratio(bias, width) for bias in (0.0, 0.5)] for width in (64, 1024)}
for width, (no_bias, with_bias) in finite.items():
    print(nh._("width {width}: Θ(4x, x′)/Θ(x, x′) = {no_bias:.6f} without a bias before layer norm, "
               "{with_bias:.2f} with one").format(width=width, no_bias=no_bias, with_bias=with_bias))
inputs = nh.sphere(8, d=course.D, seed=1) * 2
sweep_widths = [256, 1024, 4096]
sweeps = {bias: nh.width_sweep(course.ln_network(bias, 0.5), inputs, widths=sweep_widths, seeds=4)
          for bias in (0.0, 0.5)}
fig, ax = plt.subplots()
slopes = {bias: nh.plotting.loglog_fit(ax, sweep_widths, sweep.errors.mean(1),
                                       label=nh._("bias {bias} before layer norm").format(bias=bias))
          for bias, sweep in sweeps.items()}
nh.plotting.width_ticks(ax, sweep_widths)
ax.set_xlabel("width m")
ax.set_ylabel(nh._("relative error of the empirical NTK"))
ax.set_title(nh._("Finite networks approach the layer-norm kernel like $m^{-1/2}$, bias or not"))
ax.legend()
plt.show()

# %% tags=["check"]
# the invariance of the bias-free network is exact up to ε (1e-5 against Σ(x, x) = 1.96)
nh.check_close("finite, no bias before layer norm: Θ(4x, x′)/Θ(x, x′) at widths 64 and 1024",
               [finite[64][0], finite[1024][0]], [1.0, 1.0], atol=1e-4)
# with the bias, Θ(x, x′) = −0.038 is small, so a finite network's ratio scatters widely around the limit 1.55
nh.check_between("finite, bias before layer norm: smallest distance of the ratio from 1 (above 0.3)",
                 min(abs(finite[64][1] - 1), abs(finite[1024][1] - 1)), 0.3, np.inf)
# the spread of an empirical NTK falls like m^(-1/2); 4 networks per width leave about ± 0.1 in the slope
nh.check_between("finite, no bias before layer norm: slope of the error in m (about −0.5)",
                 slopes[0.0], -0.65, -0.35)
nh.check_between("finite, bias 0.5 before layer norm: slope of the error in m (about −0.5)",
                 slopes[0.5], -0.65, -0.35)

# %% [markdown]
# ## 批归一化把同一批次的输入耦合在一起
#
# 批归一化在批次上对每个单元 $i$ 做标准化：对批次中的 $B$ 个输入取 $\mu_i = \frac1B\sum_{b} z_i(x_b)$ 和
# $s_i^2 = \frac1B\sum_b (z_i(x_b) - \mu_i)^2$，输入 $x_b$ 得到
# $(z_i(x_b) - \mu_i)/\sqrt{s_i^2 + \epsilon}$。这是每个输入和每个权重的光滑函数。但这些统计量是对
# $B$ 个输入取的平均，而不是对 $m$ 个单元：当 $m \to \infty$ 时它们仍然是随机的，并且依赖于批次中的每一个成员。
# 所以一个输入的输出取决于与它同批的样本，不存在两两输入之间的核 $\Theta(x, x')$。
# 无限宽极限对整个批次一起存在，其核依赖于批次（Yang et al. 2019）。在评估模式下统计量是固定的数
# （滑动平均的均值和方差；初始化时为 0 和 1）：这时批归一化是一个仿射映射，即**冻结**的批归一化，
# 递归公式可以精确地套用，这里是 $\Sigma \mapsto \Sigma/(1 + \epsilon)$ 和
# $\Theta \mapsto \Theta/(1 + \epsilon)$。
#
# 实验：一个网络，全连接 → 批归一化 → ReLU → dense(1)，宽度 1024。固定输入 $x_1$，把它放进
# 200 个 $B = 8$ 的批次，每次重新抽取另外 7 个成员，记录 $f(x_1)$；然后在冻结的统计量下做同样的事。

# %%
coupled = course.batch_outputs(1024, 8)
frozen = course.batch_outputs(1024, 8, frozen=True)
fig, ax = plt.subplots()
ax.hist(coupled.numpy(), bins=30, alpha=0.7,
        label=nh._("batch statistics: std {spread:.3f}").format(spread=float(coupled.std())))
ax.axvline(float(frozen[0]), color=nh.plotting.PALETTE[1], lw=2,
           label=nh._("frozen statistics: std {spread:.3f}").format(spread=float(frozen.std())))
ax.set_xlabel(nh._("f(x₁) for {n} different batches").format(n=course.RESAMPLES))
ax.set_ylabel("count")
ax.set_title(nh._("With batch statistics f(x₁) depends on its batch mates; frozen, it does not"))
ax.legend()
plt.show()

# %% tags=["check"]
coupled_rms = float(coupled.pow(2).mean().sqrt())
nh.check_between("batch statistics: std of f(x₁) over the batches, relative to its RMS (above 0.1)",
                 float(coupled.std()) / coupled_rms, 0.1, np.inf)
nh.check_close("frozen statistics: f(x₁) is the same in every batch (std relative to |f|)",
               float(frozen.std() / frozen.abs().max()), 0.0, atol=1e-12)

# %% [markdown]
# 所以本软件包不给使用批统计量的批归一化提供核：请求核会抛出 `nh.NoClosedForm`，
# 并给出两条出路。一条是冻结的统计量。另一条是用一组有限宽网络来*估计*一个批次的核，并给出误差棒
# （这里是 16 个宽度为 256 的网络，一个包含 6 个输入的批次）：

# %%
bn = course.bn_network()
try:
    bn.kernel(course.X1)
except nh.NoClosedForm:
    print(nh._("bn.kernel(...) raises nh.NoClosedForm: batch statistics have no closed form"))
frozen_bn = course.bn_network(frozen=True)
print(nh._("frozen: Θ(x₁, x₁) = {value:.6f}").format(value=float(frozen_bn.kernel(course.X1).ntk[0, 0])))
estimate = nh.monte_carlo_kernel(bn, nh.sphere(6, d=course.D, seed=3), width=256, n_networks=16)
print(nh._("Monte Carlo NTK of one batch, first row:"), estimate.ntk[0].numpy().round(3))
print(nh._("its standard errors:"), estimate.ntk_sem[0].numpy().round(3))

# %% tags=["check"]
# frozen at mean 0 and variance 1: the kernel without batch norm, its first layer's Σ and Θ divided by 1 + ε
nh.check_close("frozen batch norm: Θ(x₁, x₁) equals the kernel with Σ, Θ of the first layer divided by 1 + ε",
               float(frozen_bn.kernel(course.X1).ntk[0, 0]),
               float(nh.serial(nh.dense(sigma_w=course.SIGMA_W / (1 + 1e-5) ** 0.5), nh.relu(),
                               nh.dense(1)).kernel(course.X1).ntk[0, 0]), rtol=1e-12)
nh.check_that("batch statistics: every Monte Carlo standard error is positive and finite",
              bool(((estimate.ntk_sem > 0) & estimate.ntk_sem.isfinite()).all()))

# %% [markdown]
# ## 动手探索：宽度与批次大小
#
# 交互探索在你选择的宽度和批次大小下，对一个网络重复这个实验：使用批统计量时 $f(x_1)$ 在 200 个批次上的直方图，
# 以及冻结统计量时的那一个值（竖线）。标题和下面的一行文字给出 $f(x_1)$ 在各批次之间的波动（标准差）。

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_batch, width=nh.widgets.width_slider(256, options=(64, 256, 1024, 4096)),
                       batch_size=nh.widgets.int_slider(nh._("batch size"), 8, min=2, max=64))

# %% [markdown]
# **先预测，再检验。**
#
# 1. 保持批次大小为 8，把宽度从 64 移到 4096。层归一化的统计量是对 $m$ 个单元取平均，
#    其波动按 $m^{-1/2}$ 缩小。$f(x_1)$ 的波动也会这样缩小吗？
#
# <details><summary>答案</summary>
#
# 不会：它一直在 0.2 左右（宽度 64、256、1024 和 4096 时分别为 0.226、0.196、0.204 和 0.179）。
# 无论宽度多大，每个单元的统计量都只是对批次中 8 个输入取的平均。更多的单元带来更多这样的统计量，
# 而不是更准确的统计量。
#
# </details>
#
# 2. 回到宽度 256，把批次大小从 8 移到 32。波动会变化多少？
#
# <details><summary>答案</summary>
#
# 它从 0.196 降到 0.088，即原来的 0.45。批统计量是对 $B$ 个输入取的平均，所以它们的波动，
# 以及随之而来的 $f(x_1)$ 的波动，大致按 $B^{-1/2}$ 下降：批次变为 4 倍时缩小为 $1/2$。
# 只有 $B \to \infty$ 才能消除这种耦合；那时批归一化除以的是整个输入分布的统计量，又成了固定的数。
#
# </details>
#
# 3. 把批次大小设为 2。对 $x_1$，批归一化逐个单元交给 ReLU 的是什么？（提示：这个批次就是
#    $x_1$ 和一个同批样本 $x_2$。）
#
# <details><summary>答案</summary>
#
# 大约是 $\pm 1$：只有两个输入时，$\mu_i$ 是它们的中点，$s_i$ 是它们距离的一半，所以 $x_1$ 得到
# $\pm 1$（不计 $\epsilon$）：若 $z_i(x_1) > z_i(x_2)$ 则为 $+1$，否则为 $-1$。256 个单元中有 98 % 得到的值
# 与 $\pm 1$ 相差不到 0.01。逐个单元来看，网络只看到两个输入中哪个更大，而波动是目前为止最大的：
# 0.281，而批次大小为 8 时是 0.196。
#
# </details>

# %% tags=["check"]
def spread(width, batch_size):
    return float(course.batch_outputs(width, batch_size).std())


nh.check_close("batch explorer, batch 8: spread at widths 64, 256, 1024, 4096",
               [spread(w, 8) for w in (64, 256, 1024, 4096)], [0.226, 0.196, 0.204, 0.179], atol=0.0005)
nh.check_close("batch explorer, width 256: spread at batch 32 (0.088)", spread(256, 32), 0.088, atol=0.0005)
nh.check_close("batch explorer, width 256: spread ratio batch 32 / batch 8 (0.45)",
               spread(256, 32) / spread(256, 8), 0.45, atol=0.005)
units = course.unit_outputs(256, 2)
nh.check_close("batch 2: share of units that batch norm maps within 0.01 of ±1 (98 %)",
               float((units.abs() > 0.99).double().mean()), 0.98, atol=0.005)
nh.check_close("batch explorer, width 256: spread at batch 2 (0.281)", spread(256, 2), 0.281, atol=0.0005)
nh.check_that("batch explorer, width 256: batch 2 has the largest spread of batch sizes 2, 4, 8, 16, 32, 64",
              spread(256, 2) == max(spread(256, b) for b in (2, 4, 8, 16, 32, 64)))

# %% [markdown]
# ## 检验你的理解
#
# 1. 在层归一化之前，$\Sigma(x,x) = 2$，$\Sigma(x',x') = 8$，$\Sigma(x,x') = -2$，$\Theta(x,x') = -3$。
#    层归一化之后 $\Sigma(x,x')$ 和 $\Theta(x,x')$ 是多少（忽略 $\epsilon$）？
#
# <details><summary>答案</summary>
#
# 两者都除以 $\sqrt{2 \cdot 8} = 4$：$\Sigma(x,x') = -0.5$，$\Theta(x,x') = -0.75$。对角元
# 变成 $\Sigma(x,x) = \Sigma(x',x') = 1$，所以层归一化之后 $\Sigma$ 是一个相关系数。
#
# </details>
#
# 2. 两个带层归一化的无偏置网络：全连接 → ReLU → 全连接 → 层归一化 → ReLU → 全连接，以及
#    全连接 → tanh → 全连接 → 层归一化 → ReLU → 全连接。在哪一个中，对所有 $a > 0$ 都有 $\Theta(ax, x') = \Theta(x, x')$？
#
# <details><summary>答案</summary>
#
# 只有第一个。无偏置的全连接层和 ReLU 都是正齐次的，所以对每一组权重，到达层归一化的都是
# $x$ 所给出的东西的 $a$ 倍。而 $\tanh(au) \neq a^k\tanh(u)$：层归一化之前有 $\tanh$ 时，
# 比值在 $a = 1/4$ 处为 $0.949$，在 $a = 4$ 处为 $0.994$（用本课的输入）。
#
# </details>
#
# 3. 一个没有归一化的无偏置 ReLU 网络：对 $a, b > 0$，用 $\Theta(x, x')$ 表示 $\Theta(ax, bx')$ 是多少？
#    如果在它的第一层之后加上层归一化呢？
#
# <details><summary>答案</summary>
#
# $ab\,\Theta(x, x')$：这个网络是 1 次正齐次的，$f(ax) = a f(x)$，所以每个梯度都乘以 $a$，
# 它们的内积乘以 $ab$。这个核是齐次的，而不是尺度不变的。在第一层之后加上层归一化时，
# $\Theta(ax, bx') = \Theta(x, x')$：这时它才是尺度不变的。
#
# </details>
#
# 4. 为什么网络变宽会让层归一化的统计量变成确定的，却不会让批归一化的统计量变成确定的？
#
# <details><summary>答案</summary>
#
# 层归一化对一个输入的 $m$ 个单元取平均：当 $m \to \infty$ 时大数定律适用，
# 其波动按 $m^{-1/2}$ 缩小。批归一化对一个单元在批次中的 $B$ 个输入上取平均：$B$ 并不随 $m$ 增长，
# 所以无论宽度多大，它的统计量都仍然是随机的（见交互探索处的第一个问题）。
#
# </details>
#
# 5. 初始化时（均值 0，方差 1）冻结的批归一化对核做了什么？为什么它可以有核，而使用批统计量的批归一化不行？
#
# <details><summary>答案</summary>
#
# 它把 $\Sigma$ 和 $\Theta$ 除以 $1 + \epsilon$：它是固定的映射 $z \mapsto z/\sqrt{1 + \epsilon}$，
# 对每个输入单独作用。它对 $x$ 的输出只取决于 $x$ 和权重，所以两两输入之间的核存在。
# 使用批统计量时，输出还取决于批次中的其他输入。
#
# </details>

# %% tags=["check"]
nh.check_close("question 1: Σ(x, x′) and Θ(x, x′) after layer norm",
               [-2 / (2 * 8) ** 0.5, -3 / (2 * 8) ** 0.5], [-0.5, -0.75], rtol=1e-12)
tanh_ln = nh.serial(nh.dense(sigma_w=course.SIGMA_W), nh.tanh(), nh.dense(sigma_w=course.SIGMA_W),
                    nh.layer_norm(), nh.relu(), nh.dense(1))
relu_ln = nh.serial(nh.dense(sigma_w=course.SIGMA_W), nh.relu(), nh.dense(sigma_w=course.SIGMA_W),
                    nh.layer_norm(), nh.relu(), nh.dense(1))
x, x_other = course.PAIR[:1], course.PAIR[1:]


def scale_ratio(net, a):
    return float(net.kernel(a * x, x_other).ntk / net.kernel(x, x_other).ntk)


nh.check_close("question 2: ReLU before layer norm: ratio at a = 1/4 and 4", [scale_ratio(relu_ln, a)
               for a in (0.25, 4)], [1.0, 1.0], atol=1e-4)
nh.check_close("question 2: tanh before layer norm: ratio at a = 1/4 and 4 (0.949, 0.994)",
               [scale_ratio(tanh_ln, a) for a in (0.25, 4)], [0.949, 0.994], atol=0.0005)
relu_plain = nh.serial(nh.dense(sigma_w=course.SIGMA_W), nh.relu(), nh.dense(1))
nh.check_close("question 3: bias-free ReLU: Θ(2x, 3x′) / Θ(x, x′) = 6",
               float(relu_plain.kernel(2 * x, 3 * x_other).ntk / relu_plain.kernel(x, x_other).ntk), 6.0,
               rtol=1e-10)
ln_first = course.ln_network(0.0)
nh.check_close("question 3: with layer norm after the first layer: Θ(2x, 3x′) / Θ(x, x′) = 1",
               float(ln_first.kernel(2 * x, 3 * x_other).ntk / ln_first.kernel(x, x_other).ntk), 1.0,
               atol=1e-4)

# %% [markdown]
# ## 小结
#
# - 在无限宽时，层归一化的统计量就是核的对角元：紧接在全连接层之后，它把
#   $\Sigma$ 和 $\Theta$ 除以 $\sqrt{\Sigma(x,x)\,\Sigma(x',x')}$（加上 $\epsilon$），递归照常进行。
# - 这时核只看输入的方向，**前提是**给层归一化提供输入的部分是正齐次的
#   （无偏置的全连接层和 ReLU）：这时对每个 $\theta$ 都有 $f(ax;\theta) = f(x;\theta)$，在任何宽度下都成立。
# - 层归一化之前的偏置（或 $\tanh$）会让输入的尺度重新进入核：在本课的例子中
#   $\Theta(ax,x')/\Theta(x,x') = -2.66$、1、$1.55$，对应 $a = 1/4$、1、4。层归一化之后的偏置则不会。
# - 使用批统计量的批归一化是光滑的，但它耦合了批次：一个输入的输出随同批样本而变
#   （批次大小为 8 时波动约为 0.2，宽度从 64 到 4096 都是如此），所以不存在两两输入之间的核；
#   它的核可以用蒙特卡洛方法一次一个批次地估计。
# - 冻结的批归一化是一个有精确核的仿射映射（初始化时为 $\Sigma/(1+\epsilon)$）。

# %% [markdown]
# ## 写给教材第 4 章的读者
#
# <details><summary>§4.4.1：批归一化“非平滑”；层归一化“更兼容 NTK 极限”（勘误 A17）</summary>
#
# **教材原文：** 批归一化「当 BN 统计量变化时，BN 引入了非平滑性」；层归一化只依赖于输入本身的统计量，
# 「是更兼容 NTK 极限的实践选择」。
#
# **正确的说法：** 只要批次方差加上 $\epsilon$ 为正，批归一化就是光滑的。它的问题在于
# **有限的批次**：随着宽度增大，统计量并不会被平均掉，所以一个输入的输出取决于批次中的其他成员
# （见“批归一化把同一批次的输入耦合在一起”一节：波动不随宽度缩小），核也依赖于批次（Yang et al. 2019）。
# 冻结的统计量使它成为仿射映射。层归一化确实有核映射，但只有当它之前的部分是正齐次的
# （没有偏置，用 ReLU 而不是 $\tanh$）时，才使核只依赖于方向（见“核何时只看方向？”一节）。
# [勘误 A17](../../ERRATA.zh.md#a17)
#
# </details>
#
# <details><summary>§4.5.1：ReLU 核“尺度不变”（勘误 A24）</summary>
#
# **教材原文：** 这「赋予了 ReLU NTK 一种内在的尺度不变性」，即 $\Theta(ax, bx') \neq ab\,\Theta(x, x')$。
#
# **正确的说法：** 没有偏置时，ReLU 网络是正齐次的，它的核也是：对 $a, b > 0$ 有
# $\Theta(ax, bx') = ab\,\Theta(x, x')$（第一幅图中的 “ReLU, no bias” 曲线；“检验你的理解”第 3 题）。
# 只有归一化之后的核，或者接在无偏置层之后的层归一化，才是尺度不变的；偏置会破坏齐次性。
# [勘误 A24](../../ERRATA.zh.md#a24)
#
# </details>
#
# **下一课：** [05b · 参数化](05b_parameterization.ipynb)
