# %% [markdown]
# # 04 · 残差网络：分支缩放因子 α 决定一切
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/04_resnet.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F04_resnet.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../04_resnet.ipynb)）
#
# *教材第 4.3 节。*
#
# **本课内容**
# - 残差块 $x + \alpha\,g(x)$ 的核是怎样构成的：跳连把核原样传下去，分支再加上 $\alpha^2$ 乘以它自己的映射；
# - 取 $\alpha = 1$ 时 NTK 随深度爆炸式增长（对 $\sigma_w^2 = 2$ 的 ReLU 是**指数**增长，像 $2^L$；对 erf 则慢一些，像 $e^{c\sqrt L}$）；取 $\alpha = 1/\sqrt L$ 时 NTK 保持有界
#   （对 $\sigma_w^2 = 2$ 的 ReLU 趋于 $3e\,q_0$）；取 $\alpha = 1/L$ 时各分支的作用逐渐消失；
# - 反向传播是否保持有界：为什么块雅可比矩阵的乘积 $\prod_l (I + \alpha J_l)$ 在 $\alpha = 1/\sqrt L$ 时有界，
#   而它却仍然*不*等于一阶公式 $I + \alpha\sum_l J_l$；
# - 为什么对无偏置的 ReLU，分支缩放因子为 $\alpha$ 的 $L$ 个块在 NTK 中所占的份额都相同，以及这个份额如何随
#   $\alpha$ 和 $L$ 变化；
# - 有限宽残差网络离递归有多远，以及对 8 个网络取平均能说明什么。
#
# **预备知识：** 第 02 课（MLP 的 NNGP $\Sigma$ 与 NTK $\Theta$ 的递归）。

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
import ntk_helpers as nh
from ntk_helpers.course import residual as course     # this lesson's experiments, diagram and explorer

nh.plotting.use_style()
PALETTE = nh.plotting.PALETTE

# %% [markdown]
# ## 一图看懂核心思想
#
# 残差块把一个缩放后的分支加到输入上，$x \mapsto x + \alpha\,g(x)$；在无限宽极限下，分支与跳连互不相关，所以两者的核直接相加。
# 于是每个块都把 $\Sigma$ 和 $\Theta$ 传下去，再加上 $\alpha^2$ 乘以分支对它们的作用；仅凭 $\alpha$ 的大小，就决定了叠加许多块之后核是爆炸、趋于平稳，还是把分支遗忘。

# %%
course.induction_diagram()
plt.show()

# %% [markdown]
# 从上往下读这张图。输入层让两个核都从 $q_0 = \Sigma^{(0)}(x, x)$ 出发。每个块都执行虚线框中的规则。
# 读出层把最后的 $\Sigma$ 加到 $\Theta$ 上。本课其余部分要问的是：对 $\alpha$ 的三种取法 $1$、$1/\sqrt L$ 和 $1/L$，
# 这条规则经过许多个块之后会产生什么结果。

# %% [markdown]
# ## 4.3.1 模型及其核
#
# 网络先是输入层 $x^{(0)} = \frac{\sigma_w}{\sqrt d}W^{(0)}x$，然后是 $L$ 个块
# $x^{(l)} = x^{(l-1)} + \alpha\,g_l(x^{(l-1)})$，其中分支为 $g_l(x) = \frac{\sigma_w}{\sqrt m}W^{(l)}\phi(x)$，
# 最后是线性读出层 $f = \frac{1}{\sqrt m}\,w^\top x^{(L)}$。所有权重都从 $\mathcal N(0, 1)$ 中抽取
# （即第 01 课的 NTK 参数化）。读出层的尺度为 1，而不是第 02 课 MLP 中的 $\sigma_w = \sqrt 2$。那个读出层读的是
# $\phi(h)$，ReLU 把它的二阶矩减半，再由 $\sigma_w^2 = 2$ 补回来。这里的读出层直接读 $x^{(L)}$，所以尺度 1
# 已经让输出的方差等于 $\Sigma^{(L)}$。

# %% [markdown]
# **$\Sigma$ 的规则。** 取 $x^{(l-1)}$ 的一个单元 $i$ 在两个输入处的值，$u = x^{(l-1)}_i(x)$ 与
# $v = x^{(l-1)}_i(x')$。在无限宽极限下，$(u, v)$ 是一对中心化的高斯变量，其 $2\times 2$ 协方差矩阵为
# $\Sigma^{(l-1)}$（元素为 $\Sigma^{(l-1)}(x, x)$、$\Sigma^{(l-1)}(x, x')$、$\Sigma^{(l-1)}(x', x')$），
# 并且不同单元相互独立。对 $x^{(0)}$ 这是成立的，因为它是一个高斯矩阵乘以输入。它能传到 $x^{(l)}$，是因为在给定下面各块的条件下，
# 分支 $g_l$ 是 $m$ 项之和，带有新抽取的高斯权重 $W^{(l)}$：它是一对中心化的高斯变量，协方差为
# $\sigma_w^2\frac1m\sum_j\phi(x^{(l-1)}_j(x))\,
# \phi(x^{(l-1)}_j(x'))$，而这个量趋于常数
# $\sigma_w^2\,\mathbb E[\phi(u)\phi(v)]$。

# %% [markdown]
# 在无限宽极限下，一个协方差不再依赖于下面各块的高斯变量与下面各块相互独立，
# 所以跳连与分支是相互独立的高斯变量，它们的协方差相加（Yang 2019 严格证明了这一极限）。记
# $\mathbb E[\phi\phi] = \mathbb E[\phi(u)\phi(v)]$：
#
# $$\Sigma^{(l)} = \Sigma^{(l-1)} + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi] .$$

# %% [markdown]
# **$\Theta$ 的规则。** $\Theta^{(l)}(x, x')$ 是 $x^{(l)}$ 的一个单元（隐藏单元）的核（输出的核见 4.3.2 节），它是对输入层和第 $1, \dots, l$ 个块的参数 $p$ 求和，
# 被求和的是乘积
# $\frac{\partial x^{(l)}_i(x)}{\partial p}\frac{\partial x^{(l)}_i(x')}{\partial p}$（在无限宽极限下它对每个单元
# $i$ 都一样）。把参数分成两组。
#
# - *第 $l$ 个块以下的参数。* 这时 $\partial x^{(l)}/\partial p = \partial x^{(l-1)}/\partial p +
#   \alpha\,\partial g_l/\partial p$。跳连乘跳连给出 $\Theta^{(l-1)}$。分支乘分支给出一个 MLP 层对
#   $\Theta^{(l-1)}$ 的作用（第 02 课）再乘以 $\alpha^2$：$\alpha^2\sigma_w^2\,
#   \mathbb E[\phi'\phi']\,\Theta^{(l-1)}$，其中 $\mathbb E[\phi'\phi'] = \mathbb E[\phi'(u)\phi'(v)]$。两个交叉项
#   关于新抽取的零均值权重 $W^{(l)}$ 是线性的，平均为零。
# - *这个块自己的权重 $W^{(l)}$。* 只有分支依赖于它们，且
#   $\partial x^{(l)}_i/\partial W^{(l)}_{ij} = \frac{\alpha\sigma_w}{\sqrt m}\phi(x^{(l-1)}_j)$；对 $j$ 求和后，
#   这些乘积给出 $\alpha^2\sigma_w^2\,\mathbb E[\phi\phi]$。
#
# $$\Theta^{(l)} = \bigl(1 + \alpha^2\sigma_w^2\,\mathbb E[\phi'\phi']\bigr)\Theta^{(l-1)}
#   + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi]$$

# %% [markdown]
# 两个分支项合起来恰好是第 02 课 MLP 规则的 $\alpha^2$ 倍；跳连再加上 $\Theta^{(l-1)}$。
# （这就是 Hayou et al. 2021 的分析所依据的递归；Huang et al. 2020 对两层的分支推导了同类的递归。）在本软件包中，一个块是
# `nh.residual(nh.relu(), nh.dense(), alpha=...)`，而 `nh.resnet(L, alpha=...)` 构建整个网络：

# %%
print(nh.resnet(2, alpha=0.5))      # dense -> 2 x residual(relu, dense) -> dense(1)

# %% [markdown]
# ## 4.3.2 NTK 如何随深度增长
#
# 对无偏置的 ReLU，在对角线 $x = x'$ 上：$\mathbb E[\phi\phi] = \Sigma/2$，
# $\mathbb E[\phi'\phi'] = 1/2$。记 $\gamma = \alpha^2\sigma_w^2/2$，即每个块的增长率。归纳法只需三行：
#
# 1. $\Sigma^{(l)} = (1+\gamma)\,\Sigma^{(l-1)}$，所以 $\Sigma^{(l)} = q_0 (1+\gamma)^l$。
# 2. $\Theta^{(l)} = (1+\gamma)\,\Theta^{(l-1)} + \gamma\,q_0(1+\gamma)^{l-1}$。两边除以 $(1+\gamma)^l$，
#    就是说 $\Theta^{(l)}/(1+\gamma)^l$ 每经过一个块增加 $q_0\,\gamma/(1+\gamma)$，初值为
#    $\Theta^{(0)} = \Sigma^{(0)} = q_0$（输入层下面没有别的层）。
# 3. 所以 $\Theta^{(L)} = q_0(1+\gamma)^L\bigl(1 + L\gamma/(1+\gamma)\bigr)$，读出层（尺度为 1）再加上
#    $\Sigma^{(L)} = q_0(1+\gamma)^L$：
#
# $$\Theta(x,x) = q_0\,(1+\gamma)^L\Bigl(2 + \frac{L\gamma}{1+\gamma}\Bigr).$$
#
# 两点记账说明。从这里起，不带上标的 $\Theta$ 指输出 $f$ 的核：隐藏单元的 $\Theta^{(L)}$ 加上读出层的部分 $\Sigma^{(L)}$。
# 另外，结果都以 $q_0 = \Sigma^{(0)}(x, x) = \sigma_w^2\,x\cdot x/d$ 为单位，而 $q_0$ 本身随 $\sigma_w^2$ 增大：
# “$\Theta \to 3e\,q_0$”固定的是比值 $\Theta/q_0$。
#
# 下面是本软件包对两个相隔 17° 的输入（$\sigma_w^2 = 2$，$q_0 = 2$）计算的递归结果，涵盖三种缩放，最多 256 个块。注意在 $L = 1$ 时三种缩放都有 $\alpha = 1$（$1$、$1/\sqrt 1$ 和 $1/1$）：
# 下面每条曲线都从同一个网络出发，$\Theta/q_0 = 2^1(2 + 1/2) = 5$。

# %%
x = nh.pair_at_angle(math.radians(17), d=2)          # two inputs 17° apart, q₀ = σ_w² x·x/d = 2
q0 = 2.0
# α = 1: Θ ~ 2^L; the recursion multiplies two variances, a product that leaves float64 near L = 500
depths = [1, 2, 4, 8, 16, 32, 64, 128, 256]
scalings = course.SCALINGS                          # α as a function of L: 1, 1/√L, 1/L
diagonal, correlation = {}, {}
for name, alpha in scalings.items():
    kernels = [nh.resnet(L, alpha=alpha(L)).kernel(x).ntk for L in depths]
    diagonal[name] = np.array([float(k[0, 0]) for k in kernels])
    correlation[name] = np.array([float(k[0, 1] / k[0, 0]) for k in kernels])

# %% tags=["check"]
ratio = np.concatenate([diagonal[name] / [course.closed_form_ntk(L, alpha(L), q0) for L in depths]
                        for name, alpha in scalings.items()])
# the recursion and the closed form are the same algebra: they agree to rounding
nh.check_close("Θ(x, x) of the recursion / the closed form, 3 scalings × 9 depths", ratio,
               np.ones_like(ratio), rtol=1e-10)

# %%
fig, ax = plt.subplots()
ax.semilogx(depths, np.log(diagonal["α = 1"] / q0) / depths, "o-", label="α = 1")
ax.axhline(math.log(2), color="k", ls="--", lw=1, label="log 2 = 0.693")
nh.plotting.width_ticks(ax, depths)
ax.set_xlabel(nh._("number of residual blocks L"))
ax.set_ylabel("log(Θ(x, x) / q₀) / L")
ax.set_title(nh._("α = 1: Θ grows by a factor of about 2 per block"))
ax.legend()
plt.show()
print(nh._("α = 1, L = 256: Θ(x, x)/q₀ = {value:.3g}").format(value=diagonal["α = 1"][-1] / q0))

# %% [markdown]
# 图中画的是每个块平均的 $\log\Theta$，因为 $\Theta$ 本身在 $L = 256$ 时达到 $1.5\cdot 10^{79}\,q_0$：
# 取 $\alpha = 1$ 时 ReLU 网络的 NTK 随深度指数增长。另外两种缩放则一直很小，下面用线性纵轴来画（横轴仍是对数的）：

# %%
fig, ax = plt.subplots()
for name, color in zip(scalings, PALETTE):
    if name != "α = 1":
        ax.semilogx(depths, diagonal[name] / q0, "o-", color=color, label=name)
ax.axhline(3 * math.e, color="k", ls="--", lw=1, label=nh._("3e (limit of α = 1/√L)"))
ax.axhline(2, color="k", ls=":", lw=1, label=nh._("2 (limit of α = 1/L)"))
nh.plotting.width_ticks(ax, depths)
ax.set_xlabel(nh._("number of residual blocks L"))
ax.set_ylabel("Θ(x, x) / q₀")
ax.set_title(nh._("α = 1/√L levels off, α = 1/L falls back: both stay of order q₀"))
ax.legend()
plt.show()

# %% [markdown]
# 两条曲线都从 5 出发，因为在 $L = 1$ 时每种缩放都有 $\alpha = 1$。随后 $\alpha = 1/L$ 的曲线下降，因为随着 $L$ 增大，
# 它的各分支逐渐消失。
#
# **为什么这很重要。** 在线性化（NTK）区域中，对 $n$ 个输入上第 01 课的损失 $\frac{1}{2n}\sum_i (f(x_i) - y_i)^2$ 做梯度下降，只有当学习率 $\eta < 2n/\lambda_{\max}$（$\lambda_{\max}$
# 是 NTK 格拉姆矩阵的最大特征值）时才稳定（第 01 课），而 $\lambda_{\max}$ 随 $\Theta$ 增大。下一个单元格对球面上的
# 8 个输入、在几个深度下、对 $\alpha = 1$ 和 $\alpha = 1/\sqrt L$ 计算这个上界。

# %%
inputs = nh.sphere(8, d=6, seed=0)                  # 8 inputs with x·x/d = 1; used again below


def stable_rate(L, alpha):
    """2n/λ_max of the NTK Gram matrix of the 8 inputs: gradient descent's largest stable learning rate."""
    gram = nh.resnet(L, alpha=alpha).kernel(inputs).ntk.numpy()
    return 2 * len(inputs) / np.linalg.eigvalsh(gram).max()


lr_depths = [1, 4, 16, 256]
rates = {name: [stable_rate(L, scalings[name](L)) for L in lr_depths] for name in ("α = 1", "α = 1/√L")}
for name, values in rates.items():
    print(nh._("{scaling}: largest stable learning rate 2n/λ_max at L = 1, 4, 16, 256: {values}").format(
        scaling=name, values=", ".join(f"{v:.3g}" for v in values)))

# %% [markdown]
# 取 $\alpha = 1$ 时，可用的学习率大致按 $1/\Theta(x, x) \propto 1/\bigl(2^L(2 + L/2)\bigr)$ 缩小，比 $2^{-L}$ 更快：$L = 4$ 时为 0.036，$L = 16$ 时为 $3.4\cdot 10^{-6}$，相差约 $1.1\cdot 10^4$ 倍，接近 $\Theta(x, x)$ 增大的倍数 $2^{12}\cdot 10/4 = 10\,240$。
# 说“大致”，是因为 $\lambda_{\max}$ 还取决于 8 个输入的核元素之间相关得多强：取 $\alpha = 1$ 时，$L = 1, 4, 16, 256$ 对应的 $\lambda_{\max}/\Theta(x, x)$ 为 3.1、3.4、3.6 和 2.9，取 $\alpha = 1/\sqrt L$ 时为 3.13–3.15。
# 取 $\alpha = 1/\sqrt L$ 时它也会缩小，但只缩小一个有界的倍数，而且越来越慢：从 $L = 1$ 时的 0.51 到 $L = 4$ 时的 0.37、
# $L = 16$ 时的 0.33 和 $L = 256$ 时的 0.31：总共缩小 1.6 倍，接近 $\Theta(x, x)$ 之比 $8.13/5$。只有在 $L \to \infty$、
# 核趋于一个极限时，这个上界才不再依赖于深度。

# %% [markdown]
# 实践中让深层 ResNet 保持可训练，靠的也是同一个想法——初始化时让分支很小：
# Fixup（Zhang et al. 2019）随深度缩小分支权重，并把每个分支的最后一层置零；SkipInit（De & Smith 2020）和 ReZero
# （Bachlechner et al. 2020）给每个分支乘上一个可学习的标量，其初值为 0 或接近 0；批归一化则隐式地让分支相对于跳连变小
# （De & Smith 2020）。第 05a 课会讨论归一化。

# %% [markdown]
# **用闭式来解释。**
#
# 1. 为什么 $\alpha = 1$ 时 $\log(\Theta/q_0)/L$ 趋于 $\log 2$？为什么是从上方趋近？
#
# <details><summary>答案</summary>
#
# 取 $\alpha = 1$、$\sigma_w^2 = 2$ 时 $\gamma = 1$：每个块都把 $\Sigma$ 和从下面带上来的 $\Theta$ 翻一倍，所以
# $\Theta = q_0\,2^L(2 + L/2)$。它的对数等于 $L\log 2$ 加上增长缓慢的 $\log(2 + L/2)$，所以
# $\log(\Theta/q_0)/L = \log 2 + \log(2 + L/2)/L$：第二项为正，并逐渐降到零（$L = 1$ 时为 0.916，$L = 256$ 时为 0.019），所以 $\log(\Theta/q_0)/L$ 从
# $\log 5 = 1.609$ 降到 0.712。在 $L = 32$ 与 $64$ 之间，$\log\Theta$ 每个块上升
# $\log 2 + \log(34/18)/32 = 0.7130$，因子 $2 + L/2$ 使它比 $\log 2$ 高出 2.9 %。
#
# </details>
#
# 2. 虚线和点线分别位于 $3e$ 和 $2$。从闭式推出这两个极限：闭式中哪个因子给出 $e$？网络的哪些层给出 2？
#
# <details><summary>答案</summary>
#
# 取 $\alpha = 1/\sqrt L$ 时 $\gamma = 1/L$：$(1 + 1/L)^L \to e$，且 $L\gamma/(1+\gamma) \to 1$，所以
# $\Theta \to e\,q_0\,(2 + 1) = 3e\,q_0$（$L = 256$ 时为 8.128 $q_0$，而 $3e = 8.155$）。取 $\alpha = 1/L$ 时
# $\gamma = 1/L^2$：$(1 + 1/L^2)^L \to 1$，且 $L\gamma \to 0$，于是只剩下 2：输入层和读出层各贡献 $q_0$。
#
# </details>
#
# **先预测，再动手试。** 闭式对任何 $\sigma_w^2$ 都成立，其中 $\gamma = \alpha^2\sigma_w^2/2$。在下一个单元格中设
# `sigma_w2 = 1.0` 并重新运行：取 $\alpha = 1/\sqrt L$、$L = 256$ 时，$\Theta(x, x)/q_0$ 会是多少？仍然约为 $3e$ 吗？
#
# <details><summary>答案</summary>
#
# 不是：约为 4.12，大致是 $3e$ 的一半。现在 $\gamma = 1/(2L)$，所以 $(1 + \gamma)^L \to e^{1/2}$，
# $L\gamma/(1+\gamma) \to 1/2$：$\Theta \to e^{1/2}(2 + 1/2)\,q_0 = 4.122\,q_0$，单元格在 $L = 256$ 时输出 4.118。
# 一般地，$\Theta \to e^{\sigma_w^2/2}(2 + \sigma_w^2/2)\,q_0$；本课的 $3e\,q_0$ 是 $\sigma_w^2 = 2$ 的情形。
#
# </details>

# %%
# Try it: change sigma_w2 (the weight variance of the input layer and of the blocks) and re-run this cell
sigma_w2, L = 2.0, 256
q0_here = sigma_w2 * float(x[0] @ x[0]) / x.shape[1]          # Σ⁽⁰⁾(x, x) = σ_w² x·x/d
theta = float(nh.resnet(L, alpha=L ** -0.5, sigma_w=math.sqrt(sigma_w2)).kernel(x).ntk[0, 0])
print(nh._("σ_w² = {sigma_w2:g}, α = 1/√L, L = {depth}: Θ(x, x)/q₀ = {value:.3f}").format(
    sigma_w2=sigma_w2, depth=L, value=theta / q0_here))

# %% tags=["check"]
growth_per_block = math.log(diagonal["α = 1"][6] / diagonal["α = 1"][5]) / (64 - 32)
# Θ = q₀ 2^L (2 + L/2): between L = 32 and 64 log Θ rises by log 2 + log(34/18)/32 per block (rounding only)
nh.check_close("α = 1: growth of log Θ per block, L = 32 → 64 (0.7130)", growth_per_block,
               math.log(2) + math.log(34 / 18) / 32, rtol=1e-10)
nh.check_close("α = 1: that growth, rounded (0.7130)", growth_per_block, 0.7130, atol=0.00005)
nh.check_close("α = 1: that growth / log 2 (2.9 % above)", growth_per_block / math.log(2), 1.029, atol=0.0005)
# the O(1/L) correction at L = 256 is 0.3 %
nh.check_close("α = 1/√L: Θ(x, x)/q₀ at L = 256 (limit 3e)", diagonal["α = 1/√L"][-1] / q0, 3 * math.e,
               rtol=0.01)
nh.check_close("α = 1/L: Θ(x, x)/q₀ at L = 256 (limit 2)", diagonal["α = 1/L"][-1] / q0, 2.0, rtol=0.01)
# the try-it cell at sigma_w2 = 1 (the inputs have x·x/d = 1, so q₀ = σ_w² = 1)
at_one = float(nh.resnet(256, alpha=1 / 16, sigma_w=1.0).kernel(x).ntk[0, 0])
nh.check_close("σ_w² = 1, α = 1/√L, L = 256: Θ(x, x)/q₀ (the try-it cell prints 4.118)", at_one, 4.118,
               rtol=2e-4)
nh.check_close("σ_w² = 1: recursion / closed form",
               at_one / course.closed_form_ntk(256, 1 / 16, 1.0, sigma_w2=1.0), 1.0, rtol=1e-10)
nh.check_close("σ_w² = 1: the limit e^(σ_w²/2)(2 + σ_w²/2)", math.exp(0.5) * 2.5, 4.122, rtol=1e-4)
nh.check_close("L = 1: Θ(x, x)/q₀ = 5 for all three scalings (α = 1)",
               [diagonal[name][0] / q0 for name in scalings],
               [5.0, 5.0, 5.0], rtol=1e-12)
per_block = np.log(diagonal["α = 1"] / q0) / depths
nh.check_close("L = 1: largest stable learning rate 2n/λ_max on the 8 inputs (0.51)", rates["α = 1"][0], 0.51,
               atol=0.005)
nh.check_close("α = 1: 2n/λ_max at L = 4 (0.036)", rates["α = 1"][1], 0.036, atol=0.0005)
nh.check_close("α = 1: 2n/λ_max at L = 16 (3.4·10⁻⁶)", rates["α = 1"][2], 3.4e-6, rtol=0.015)
for L, value, quoted in zip(lr_depths[1:], rates["α = 1/√L"][1:], (0.37, 0.33, 0.31)):
    nh.check_close("α = 1/√L: 2n/λ_max at L = 4, 16, 256 (0.37, 0.33, 0.31)", value, quoted, atol=0.005)
nh.check_that("α = 1/√L: 2n/λ_max falls at every step L = 1 → 4 → 16 → 256",
              all(a > b for a, b in zip(rates["α = 1/√L"], rates["α = 1/√L"][1:])),
              measured=str(np.round(rates["α = 1/√L"], 3)), expected="decreasing")
nh.check_close("α = 1/√L: 2n/λ_max, L = 1 / L = 256 (1.6), against Θ(x, x) at L = 256 / L = 1 (8.13/5)",
               rates["α = 1/√L"][0] / rates["α = 1/√L"][-1],
               diagonal["α = 1/√L"][-1] / diagonal["α = 1/√L"][0],
               rtol=0.01)
nh.check_close("α = 1/√L: that ratio (1.6)", rates["α = 1/√L"][0] / rates["α = 1/√L"][-1], 1.6, atol=0.05)
nh.check_close("α = 1: log(Θ/q₀)/L at L = 1 (log 5 = 1.609)", per_block[0], 1.609, atol=0.0005)
nh.check_close("α = 1: log(Θ/q₀)/L at L = 256 (0.712)", per_block[-1], 0.712, atol=0.0005)
nh.check_close("α = 1, L = 256: Θ(x, x)/q₀ (1.5·10^79)", diagonal["α = 1"][-1] / q0, 1.5e79, rtol=0.05)
nh.check_close("α = 1: the second term log(Θ/q₀)/L − log 2 at L = 1 (0.916)", per_block[0] - math.log(2),
               0.916, atol=0.0005)
nh.check_close("α = 1: the second term at L = 256 (0.019)", per_block[-1] - math.log(2), 0.019, atol=0.0005)
nh.check_close("α = 1/√L: Θ(x, x)/q₀ at L = 256 (8.128)", diagonal["α = 1/√L"][-1] / q0, 8.128, atol=5e-4)
nh.check_close("α = 1: 2n/λ_max at L = 4 / at L = 16 (about 1.1·10⁴)", rates["α = 1"][1] / rates["α = 1"][2],
               1.1e4, rtol=0.05)
for name, quoted in (("α = 1", (3.1, 3.4, 3.6, 2.9)), ("α = 1/√L", (3.14, 3.13, 3.14, 3.15))):
    kappa = [2 * len(inputs) / (rate * course.closed_form_ntk(L, scalings[name](L), 2.0))
             for L, rate in zip(lr_depths, rates[name])]            # λ_max / Θ(x, x); the inputs have q₀ = 2
    nh.check_close("λ_max / Θ(x, x), L = 1, 4, 16, 256, α = 1 (3.1, 3.4, 3.6, 2.9) and 1/√L (3.13–3.15)",
                   kappa, quoted, atol=0.05 if name == "α = 1" else 0.006)
nh.check_close("α = 1: Θ(x, x) at L = 16 / at L = 4 (2¹²·10/4 = 10 240)",
               course.closed_form_ntk(16, 1.0, q0) / course.closed_form_ntk(4, 1.0, q0), 10240, rtol=1e-12)

# %% [markdown]
# **erf 增长得更慢。** 用 erf、$\alpha = 1$、$\sigma_w^2 = 2$ 时，增长比指数慢。
# 由于 $\operatorname{erf}^2 \le 1$，每个块给 $\Sigma$ 至多加 2，预激活变大后加的量接近 2，所以 $\Sigma^{(l)} \approx 2l$。每个块把从下面带上来的 $\Theta$ 乘以
# $1 + 2\,\mathbb E[\operatorname{erf}'(u)^2]$，而
# $\mathbb E[\operatorname{erf}'(u)^2] = \frac4\pi\mathbb E[e^{-2u^2}] = \frac{4/\pi}{\sqrt{1 + 4\Sigma}}$ 按
# $1/\sqrt l$ 下降。把它们加起来，对大的 $L$ 有 $\log\Theta \approx \sum_l \frac{8/\pi}{\sqrt{8l}} \approx \frac{16}{\pi\sqrt8}\sqrt L
# = 1.80\sqrt L$：按 $e^{c\sqrt L}$ 增长。下一个单元格测量 $\log(\Theta/q_0)/\sqrt L$。

# %%
erf_growth = {L: math.log(float(nh.resnet(L, "erf", alpha=1.0).kernel(x).ntk[0, 0]) / q0)
              for L in (25, 100, 400)}
print(nh._("erf, α = 1: log(Θ(x, x)/q₀)/√L at L = 25, 100, 400: {values} (limit 16/(π√8) = 1.80)").format(
    values=", ".join(f"{value / math.sqrt(L):.2f}" for L, value in erf_growth.items())))

# %% tags=["check"]
erf_ratio = [value / math.sqrt(L) for L, value in erf_growth.items()]
nh.check_close("erf, α = 1: log(Θ/q₀)/√L at L = 25, 100, 400 (1.58, 1.69, 1.74)", erf_ratio,
               [1.58, 1.69, 1.74], atol=0.006)
nh.check_that("erf, α = 1: log(Θ/q₀)/√L rises towards 16/(π√8), from below",
              erf_ratio[0] < erf_ratio[1] < erf_ratio[2] < 16 / (math.pi * math.sqrt(8)),
              measured=str(np.round(erf_ratio, 3)), expected="rising, below 1.80")
nh.check_close("16/(π√8) (1.80)", 16 / (math.pi * math.sqrt(8)), 1.80, atol=0.005)
nh.check_close("erf, α = 1: log(Θ/q₀)/L, L = 400 / L = 25 (0.276; a √L law gives 0.25)",
               (erf_growth[400] / 400) / (erf_growth[25] / 25), 0.276, atol=0.005)

# %% [markdown]
# ### *归一化*的核：深度还会改变什么吗？
#
# 除以对角线：考虑两个相隔 17° 的输入的 $\Theta(x, x')/\Theta(x, x)$。在深层 MLP 中，这个相关系数随深度衰减，
# 而且对任意一对不平行的输入，无论它们的夹角是多少，它都趋于同一个值（对 ReLU MLP 为 $1/4$，第 02 课）。
# 我们说网络**忘掉了夹角**：它的核不再能区分相近的输入和相距很远的输入（核退化）。下图把三种缩放与同样深度（按隐藏层计数）的 ReLU MLP
# 作比较：`nh.mlp(L, "relu")` 有 $L$ 个隐藏层（$L + 1$ 个权重矩阵），ResNet 有 $L$ 个块（$L + 2$ 个权重矩阵：输入层、各块、读出层）。一条浅色的线另外画出一半深度的 MLP，
# 即 $L/2$ 个隐藏层（下面第 1 题说明原因）。

# %%
mlp_correlation = [float(k[0, 1] / k[0, 0]) for k in (nh.mlp(L, "relu").kernel(x).ntk for L in depths)]
half_mlp = [float(k[0, 1] / k[0, 0]) for k in (nh.mlp(L // 2, "relu").kernel(x).ntk for L in depths[1:])]
fig, ax = plt.subplots()
for name in scalings:
    ax.semilogx(depths, correlation[name], "o-", label=f"ResNet, {name}")
ax.semilogx(depths, mlp_correlation, "k--", label=nh._("MLP (no skips)"))
ax.semilogx(depths[1:], half_mlp, "k:", alpha=0.5, label=nh._("MLP with L/2 hidden layers"))
nh.plotting.width_ticks(ax, depths)
ax.set_xlabel(nh._("depth L"))
ax.set_ylabel(nh._("Θ(x, x′) / Θ(x, x), 17° apart"))
ax.set_title(nh._("α = 1 forgets the angle like an MLP of half its depth; α = 1/√L and α = 1/L keep it"))
ax.legend()
plt.show()

# %% [markdown]
# 三条 ResNet 曲线都从 0.94 出发，而不是从 $\cos 17° = 0.956$：在 $L = 1$ 时每种缩放都有 $\alpha = 1$，
# 一个全强度的块已经让相关系数降低了一点。取 $\alpha = 1/L$ 时各分支随后逐渐消失，曲线又回升到输入层的 $\cos 17°$。
#
# **解释一下。**
#
# 1. 在 $\alpha = 1$ 的网络中，每个块都通过跳连把输入传下去。为什么它仍然几乎像 MLP 一样忘掉夹角？
#
# <details><summary>答案</summary>
#
# 因为取 $\alpha = 1$、$\sigma_w^2 = 2$ 时，分支和跳连一样强。在对角线上，分支加上的
# $\sigma_w^2\,\mathbb E[\phi\phi] = \Sigma^{(l-1)}$ 恰好等于跳连带过来的量，所以经过这个块之后，归一化的 $\Sigma$
# 是跳连带来的相关系数与一个 MLP 层会给出的相关系数的平均：每个块相当于半个 MLP 层（NTK 的情形也一样）。
# 许多个半层仍然会让核退化：在 $L$ 从 2 到 256 的每个深度上，$\alpha = 1$ 的曲线与那条 $L/2$ 层 MLP 的浅色曲线相差都不超过 0.02
# （$L = 256$ 个块时为 0.32，128 层的 MLP 为 0.31，256 层的 MLP 为 0.28）。两者很接近，但并不完全一样：
# 与跳连取平均，并不完全等同于把一个完整的 MLP 层只用一半的次数。
#
# </details>
#
# 2. 为什么 $\alpha = 1/L$ 的曲线最终停在 0.956？$\alpha = 1/\sqrt L$ 又稳定在什么值？
#
# <details><summary>答案</summary>
#
# 取 $\alpha = 1/L$ 时，各分支的总权重 $L\alpha^2 = 1/L$ 趋于零，核趋于输入层的核，$\cos 17° = 0.956$。
# 取 $\alpha = 1/\sqrt L$ 时，每个块把相关系数朝一个 MLP 层会给出的值移动一步，步长为 $\gamma = 1/L$；
# $L$ 步加起来是一个固定的、有限的变化：相关系数稳定在一个与深度无关、不退化的值上（从 $L = 32$ 起为 0.916–0.917）。
# Hayou et al.（2021）对按 $1/\sqrt L$ 缩放的分支证明了这类不退化的深度极限；Belfer et al.（2021）分析了 ReLU ResNet 的 NTK
# 的谱，表明取决于跳连与分支之间如何平衡，归一化的核要么像 MLP 的核那样随深度变得尖锐，要么保持稳定的形状；
# Huang et al.（2020）证明了当分支缩放因子为
# $\alpha = L^{-\beta}$、$\beta \ge 1/2$（在他们讨论的范围内）时 NTK 的极限不退化，他们的网络使用两层的分支，
# 且不训练整个网络的输入层和输出层。
#
# </details>

# %% tags=["check"]
last = correlation["α = 1/√L"][-4:]
nh.check_close("L = 1: correlation 0.94 for all three scalings (α = 1)",
               [correlation[name][0] for name in scalings],
               [0.94] * 3, atol=0.005)
nh.check_that("α = 1/L: the correlation rises from L = 1 to 256",
              correlation["α = 1/L"][-1] > correlation["α = 1/L"][0],
              measured=str(np.round(correlation["α = 1/L"][[0, -1]], 3)), expected="rising")
nh.check_between("α = 1/√L: spread of the correlation over L = 32 … 256", last.max() - last.min(), 0, 0.002)
nh.check_close("α = 1/√L: correlation at L = 256 (0.916)", correlation["α = 1/√L"][-1], 0.916, atol=0.0005)
nh.check_close("α = 1: correlation at L = 256 (0.32)", correlation["α = 1"][-1], 0.32, atol=0.005)
nh.check_close("MLP: correlation at L = 256 (0.28)", mlp_correlation[-1], 0.28, atol=0.005)
nh.check_close("MLP with 128 hidden layers: correlation (0.31)", half_mlp[-1], 0.31, atol=0.005)
nh.check_between("α = 1 ResNet against the MLP with L/2 layers, L = 2 … 256: largest gap (within 0.02)",
                 np.abs(correlation["α = 1"][1:] - half_mlp).max(), 0.005, 0.02)
# 1/L from the linear kernel at L = 256: the branches' total weight Lα² is 1/256
nh.check_close("α = 1/L: correlation at L = 256 (cos 17°)", correlation["α = 1/L"][-1],
               math.cos(math.radians(17)), atol=0.005)

# %% [markdown]
# ### 反向传播是否保持有界？块雅可比矩阵的乘积
#
# 取 $\alpha = 1/\sqrt L$ 时核保持有界。梯度呢？对靠前的块求的梯度要反向穿过它上面的每一个块，而反向传播穿过第 $l$ 个块时
# 把反向信号映射为 $\delta \mapsto (I + \alpha J_l)^\top\delta$，其中 $J_l = \partial g_l/\partial x$ 是分支的雅可比矩阵：这是 $L$ 个矩阵的乘积，即 $P = \prod_l (I + \alpha J_l)$ 的转置。一个矩阵与它的转置有相同的 Frobenius 范数，所以在随机方向上 $P^\top$ 的均方增长与 $P$ 相同；我们测量的是 $P$，让方向向前穿过各块。
# 一种常见的直觉说法是，跳连让梯度*相加*：如果每个 $\Delta_l = \alpha J_l$ 都很小，那么
# $\prod_l(I + \Delta_l) \approx I + \sum_l \Delta_l$，于是梯度按加法而不是乘法传播。
# 这里有两个问题：乘积是否保持有界？它是否接近一阶公式 $I + \alpha\sum_l J_l$？我们两者都检验。

# %% [markdown]
# **块雅可比矩阵是什么。** 对 ReLU 分支，$J_l = \frac{\sigma_w}{\sqrt m} W^{(l)} D_l$，其中 $D_l$ 是在
# $x^{(l-1)}$ 处打开的 ReLU 门组成的对角矩阵。各 $J_l$ 并不相互独立，因为 $D_l$ 依赖于下面的各块。成立的是：
# $W^{(l)}$ 是新抽取的：在给定第 $l$ 个块以下一切的条件下，$J_l$ 的均值为零，且
# $\mathbb E_{W^{(l)}}\|J_l v\|^2 = \sigma_w^2\|D_l v\|^2 \approx c\,\|v\|^2$，其中均方增益为
# $c = \sigma_w^2\,\mathbb E[\phi'(u)^2]$（对 $\sigma_w^2 = 2$ 的 ReLU，$c = 1$：大约一半的门是打开的；
# 对 ReLU，$\alpha^2 c = \alpha^2\sigma_w^2/2$ 就是 4.3.2 节的 $\gamma$）。没有任何东西让 $J_l$ 本身变小：
# 在任何宽度下，它的算子范数都是 1 的量级。

# %% [markdown]
# **它们按平方相加。** 让一个方向 $v$ 穿过各块，$v_l = (I + \alpha J_l)\,v_{l-1}$。新抽取的 $W^{(l)}$
# 使交叉项平均为零，所以
# $\mathbb E\|v_l\|^2 = \mathbb E\|v_{l-1}\|^2 + \alpha^2\sigma_w^2\,\mathbb E\|D_l v_{l-1}\|^2
# \approx (1 + \alpha^2 c)\,\mathbb E\|v_{l-1}\|^2$，从而
#
# $$\mathbb E\bigl\|\textstyle\prod_l(I + \alpha J_l)\,v\bigr\|^2 \approx (1 + \alpha^2 c)^L\,\|v\|^2 ,$$
#
# 取 $\alpha = 1/\sqrt L$ 时有界（$\to e^c$），取 $\alpha = 1$ 时按 $(1 + c)^L$ 增长。

# %% [markdown]
# **一阶公式保留了什么：先看两个块。** 取 $L = 2$，
# $(I + \alpha J_2)(I + \alpha J_1)v = v + \alpha J_1 v + \alpha J_2 v + \alpha^2 J_2 J_1 v$：块的每个子集
# $\{\}$、$\{1\}$、$\{2\}$、$\{1, 2\}$ 各对应一项。它们的均方约为 $1$、$\alpha^2 c$、
# $\alpha^2 c$ 和 $\alpha^4 c^2$，并且直接相加（交叉项平均为零，见下一段）：
# $1 + 2\alpha^2 c + \alpha^4 c^2 = (1 + \alpha^2 c)^2$。一阶公式 $I + \alpha(J_1 + J_2)$ 保留了前三项
# $1 + 2\alpha^2 c$，漏掉了最后一项 $\alpha^4 c^2$。

# %% [markdown]
# **任意多个块。** 乘积是对块的子集的求和。不同子集的项在宽极限下互不相关：一个在某个子集中而不在另一个子集中的块，只把它新抽取的零均值 $W^{(l)}$ 放进两项中的一项，所以两项的乘积对
# $W^{(l)}$ 平均为零（例如 $\alpha J_1 v$ 与 $\alpha^2 J_2 J_1 v$：它们的乘积关于 $W^{(2)}$ 是线性的）。含 $k$ 个因子的 $\binom Lk$ 项，每一项的均方约为 $(\alpha^2 c)^k$。它们加起来是 $(1+\alpha^2 c)^L$，
# 其中一阶部分保留了 $1 + L\alpha^2 c$。一阶以外的全部部分的相对大小为
#
# $$r = \sqrt{1 - \frac{1 + L\alpha^2 c}{(1+\alpha^2 c)^L}} \;\approx\; \frac{L\alpha^2 c}{\sqrt 2}
#   \quad\text{当 } L\alpha^2 c \ll 1 .$$
#
# 我们用初始化时宽度为 256 的真实 ReLU 残差网络来测量这两条规律：它们的门来自它们自己的前向传播
# （`course.jacobian_product` 让 32 个随机单位方向，即 $V$ 的各列，穿过一个网络（种子 0）的各块）。“一阶以外的部分”是 $\|PV - FV\|_F/\|PV\|_F$，其中 $F = I + \alpha\sum_l J_l$，$\|\cdot\|_F$ 是 Frobenius 范数（各元素平方和的平方根）。

# %%
block_counts = [2, 4, 8, 16, 32, 64, 128, 256]
measured = {name: [course.jacobian_product(L, alpha(L), width=256) for L in block_counts]
            for name, alpha in scalings.items()}
predicted = {name: [course.beyond_first_order(L, alpha(L)) for L in block_counts]
             for name, alpha in scalings.items()}
for name in scalings:
    print(nh._("{scaling}, L = 256: beyond first order {measured:.3f} of the product (predicted r = {r:.3f})")
          .format(scaling=name, measured=measured[name][-1].beyond_first_order, r=predicted[name][-1]))
norms = [course.branch_jacobian_norm(m) for m in (64, 256, 1024)]
print(nh._("operator norm of one branch Jacobian at widths 64, 256, 1024: {a:.1f}, {b:.1f}, {c:.1f}")
      .format(a=norms[0], b=norms[1], c=norms[2]))
gates = course.first_gates_open(256)
print(nh._("first block of these networks: {fraction:.1%} of the gates open, so its gain c = {gain:.3f}")
      .format(fraction=gates, gain=2 * gates))

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(10.4, 4.0))
for name, color in zip(scalings, PALETTE):
    law = [(1 + scalings[name](L) ** 2) ** L for L in block_counts]           # (1 + α²c)^L with c = 1
    for ax in (left,) if name == "α = 1" else (right,):
        ax.plot(block_counts, [p.growth for p in measured[name]], "o", color=color,
                label=nh._("{scaling}: measured").format(scaling=name))
        ax.plot(block_counts, law, "--", color=color,
                label=nh._("{scaling}: (1 + α²)^L").format(scaling=name))
left.set_yscale("log")
left.set_title(nh._("α = 1 follows (1 + α²)^L = 2^L (log scale)"), fontsize=10)
right.axhline(math.e, color="k", ls=":", lw=1, label=nh._("e (limit of α = 1/√L)"))
right.set_title(nh._("linear scale: α = 1/√L levels off near e, α = 1/L near 1"), fontsize=10)
for ax in (left, right):
    ax.set_xscale("log")
    nh.plotting.width_ticks(ax, block_counts)
    ax.set_xlabel(nh._("number of residual blocks L"))
    ax.legend(fontsize="small")
left.set_ylabel(nh._("mean square ‖∏(I+αJ)v‖² of a unit direction"))
fig.suptitle(nh._("Jacobian products stay bounded for α = 1/√L (→ e), grow like 2^L for α = 1"))
plt.show()

# %%
fig, ax = plt.subplots()
for name, color in zip(scalings, PALETTE):          # first column of the legend: measured; second: predicted
    ax.loglog(block_counts, [p.beyond_first_order for p in measured[name]], "o", color=color,
              label=nh._("{scaling}: measured").format(scaling=name))
for name, color in zip(scalings, PALETTE):
    ax.loglog(block_counts, predicted[name], "--", color=color,
              label=nh._("{scaling}: predicted r").format(scaling=name))
nh.plotting.width_ticks(ax, block_counts)
ax.set_xlabel(nh._("number of residual blocks L"))
ax.set_ylabel(nh._("part beyond first order"))
ax.set_title(nh._("Of these scalings only α = 1/L becomes first-order as L grows"))
ax.legend(ncol=2, fontsize="small")
plt.show()

# %% [markdown]
# 在有限宽度的波动范围内，这两条规律在这个网络（种子 0）中都成立：测得的点与预测的 $r$ 相差不到 8 %，
# 对 $\alpha = 1/\sqrt L$ 和 $1/L$，均方与 $(1 + \alpha^2)^L$ 相差不到 8 %。预测用的是宽网络的增益 $c = 1$（一半的门打开），
# 而宽度为 256 时打开的比例有波动（第一个块中为 51.2 %，见上面的输出），而且每个网络的波动各不相同：种子 6 的网络有一个点
# 与预测的 $r$ 相差 12 %。取 $\alpha = 1$ 时，乘积的均方按 $2^L$ 增长（在这个网络中与 $2^L$ 相差不到 3 倍），
# 而一阶部分几乎一点也没有保留。

# %% [markdown]
# 1. **解释一下。** 由 $r$ 的公式：当 $L \to \infty$ 时 $\alpha = 1/\sqrt L$ 的曲线趋于平稳在哪里？
#    为什么它既不像 $\alpha = 1/L$ 那样下降，也不像 $\alpha = 1$ 那样升到 1？
#
# <details><summary>答案</summary>
#
# 因为 $L\alpha^2 c = c$ 保持不变。乘积保持有界，$\|\prod\|^2 \approx (1 + 1/L)^L \|v\|^2 \to e\,\|v\|^2$，
# 但一阶部分只保留了这 $e \approx 2.72$ 中的 $1 + L\alpha^2 = 2$，所以 $r \to \sqrt{1 - 2/e} \approx 0.51$：
# 在 $L = 256$ 时，测得一阶以外的部分占乘积的 0.523（预测为 0.513）。取 $\alpha = 1/L$ 时 $L\alpha^2 c = 1/L$，
# 余项按 $1/(\sqrt 2\,L)$ 下降（$L = 256$ 时为 0.003）：一阶公式变得精确。取 $\alpha = 1$ 时，
# $(1 + c)^L = 2^L$ 远远超过一阶部分保留的 $1 + L$。
#
# </details>
#
# 2. **先预测，再动手试。** 把分支缩放因子减半：在下一个单元格中设 `alpha = 0.5 / math.sqrt(256)` 并重新运行。
#    $L = 256$ 时一阶以外的部分约为 0.51、0.25 还是 0.16？
#
# <details><summary>答案</summary>
#
# 约为 0.16：现在 $L\alpha^2 c = 1/4$，所以 $r \approx \sqrt{1 - 1.25\,e^{-1/4}} = 0.163$（$L = 256$ 时为 0.162）
# （小 $L\alpha^2 c$ 时的近似式给出 $1/(4\sqrt 2) = 0.177$），网络测得 0.164。把 $\alpha$ 减半使 $L\alpha^2 c$
# 变为四分之一，一阶以外的部分约缩小到三分之一：只有当 $L\alpha^2 c$ 远小于 1 时，一阶公式才是好的近似。
#
# </details>

# %%
# Try it: change alpha (the branch scale) and re-run this cell: L = 256 blocks of width 256, as above
alpha = 1 / math.sqrt(256)
trial = course.jacobian_product(256, alpha, width=256)
print(nh._("{scaling}, L = 256: beyond first order {measured:.3f} of the product (predicted r = {r:.3f})")
      .format(scaling=f"α = {alpha:.4g}", measured=trial.beyond_first_order,
              r=course.beyond_first_order(256, alpha)))

# %% tags=["check"]
ones = np.ones(len(block_counts))
beyond = {name: np.array([p.beyond_first_order for p in measured[name]]) for name in scalings}
growth = {name: np.array([p.growth / (1 + alpha(L) ** 2) ** L for p, L in zip(measured[name], block_counts)])
          for name, alpha in scalings.items()}
# at width 256 the open-gate fraction is 1/2 ± 0.03 (binomial), the gain 1 ± 0.06; the text: "within 8 %"
# (seed 0: 7.95 % at most)
nh.check_close("α = 1: part beyond first order / r, L = 2 … 256", beyond["α = 1"] / predicted["α = 1"], ones,
               rtol=0.08)
nh.check_close("α = 1/√L: part beyond first order / r, L = 2 … 256",
               beyond["α = 1/√L"] / predicted["α = 1/√L"], ones, rtol=0.08)
nh.check_close("α = 1/L: part beyond first order / r, L = 2 … 256", beyond["α = 1/L"] / predicted["α = 1/L"],
               ones, rtol=0.08)
nh.check_close("α = 1/√L, L = 256: part beyond first order (0.523)", beyond["α = 1/√L"][-1], 0.523,
               atol=0.0005)
nh.check_close("α = 1/√L, L = 256: predicted r (0.513)", predicted["α = 1/√L"][-1], 0.513, atol=0.0005)
nh.check_close("α = 1/L, L = 256: part beyond first order (0.003)", beyond["α = 1/L"][-1], 0.003, atol=0.0005)
nh.check_close("r → √(1 − 2/e) for α = 1/√L (0.51)", math.sqrt(1 - 2 / math.e), 0.51, atol=0.005)
# the product's mean square is about e^c at α = 1/√L; the text: "within 8 %" (seed 0: 7.0 % at most)
nh.check_close("α = 1/√L: ‖∏(I + αJ)v‖² / (1 + α²)^L, L = 2 … 256 (within 8 %)", growth["α = 1/√L"],
               ones, rtol=0.08)
nh.check_close("α = 1/L: ‖∏(I + αJ)v‖² / (1 + α²)^L, L = 2 … 256 (within 8 %)", growth["α = 1/L"],
               ones, rtol=0.08)
nh.check_that("α = 1: ‖∏(I + αJ)v‖² / 2^L, L = 2 … 256, within a factor of 3 of 1",
              ((1 / 3 <= growth["α = 1"]) & (growth["α = 1"] <= 3)).all(),
              measured=str(np.round(growth["α = 1"], 2)), expected="1/3 … 3")
nh.check_close("open gates at the first block, width 256 (51.2 %)", gates, 0.512, atol=0.0005)

# %% tags=["check"]
# another network (seed 6), the branch Jacobian's norm, and the try-it at half the branch scale
seed_six = np.array([course.jacobian_product(L, L ** -0.5, width=256, seed=6).beyond_first_order
                     for L in block_counts]) / predicted["α = 1/√L"]
nh.check_close("seed 6, α = 1/√L: largest |measured / predicted r − 1| over L = 2 … 256 (12 %)",
               np.abs(seed_six - 1).max(), 0.12, atol=0.005)
# the largest singular value of √(2/m) W D with m/2 open gates tends to 1 + √2 (Marchenko–Pastur edge)
nh.check_close("operator norm of one branch Jacobian at width 1024 (1 + √2 as m → ∞)", norms[-1],
               1 + math.sqrt(2), rtol=0.05)
halved = course.jacobian_product(256, 0.5 / 16, width=256)
nh.check_close("α = 1/(2√L), L = 256: part beyond first order (0.164)", halved.beyond_first_order, 0.164,
               atol=0.0005)
nh.check_close("α = 1/(2√L), L = 256: predicted r (0.162)", course.beyond_first_order(256, 0.5 / 16), 0.162,
               atol=0.0005)
nh.check_close("small-Lα²c rule at Lα²c = 1/4 (0.177)", 1 / (4 * math.sqrt(2)), 0.177, atol=0.0005)

# %% [markdown]
# ## 4.3.3 NTK 从哪里来：各块按平方相加
#
# $\Theta(x, x) = \sum_p (\partial f/\partial p)^2$ 是梯度平方对**参数**的求和，因此可以拆成每一层各占一份。
# 第 $l$ 个块的权重得到的梯度是
# $\partial f/\partial W^{(l)}_{ij} = \frac{\alpha\sigma_w}{\sqrt m}\,\delta_i\,\phi(x^{(l-1)})_j$，其中
# $\delta = \partial f/\partial x^{(l)}$ 是反向信号。它的平方和为
# $\alpha^2\sigma_w^2\,\|\delta\|^2\,\|\phi(x^{(l-1)})\|^2/m$：前置因子 $\alpha^2\sigma_w^2 = 2\gamma$ 乘以前向因子
# $\Sigma^{(l-1)}/2 = q_0(1+\gamma)^{l-1}/2$ 乘以反向因子 $\|\delta\|^2 = (1+\gamma)^{L-l}$：在顶端，
# $\delta = \partial f/\partial x^{(L)} = w/\sqrt m$，$\|\delta\|^2 = \|w\|^2/m \to 1$，而第 $l$ 个块以上的每个块都把它乘以 $1 + \gamma$（雅可比矩阵乘积的均方，见上一节）。对无偏置的 ReLU，这给每个块都带来
# $\gamma\,q_0(1+\gamma)^{L-1}$：每个块在 $\Theta(x, x)$ 中所占的份额为
#
# $$\frac{\gamma/(1+\gamma)}{2 + L\gamma/(1+\gamma)}$$
#
# 而输入层和读出层各占 $1/(2 + L\gamma/(1+\gamma))$。

# %% [markdown]
# **何时成立，说明了什么。** 份额相等要求前向因子 $\mathbb E[\phi\phi]$ 从一个块到下一个块增长的速度，
# 恰好等于反向因子缩小的速度。对无偏置的 ReLU，在对角线 $x = x'$ 上正是如此，这时 $\mathbb E[\phi\phi] = \Sigma/2$，
# $\mathbb E[\phi'\phi'] = 1/2$；其他激活函数会打破这一点：对 erf，同样的递归给出不相等的份额（“检验你的理解”的第 5 题问的是哪个块占得更多）。
#
# 份额的大小取决于 $L\gamma$。只要 $L\gamma$ 保持有界（$\alpha = O(1/\sqrt L)$），分母就保持 1 的量级，一个块的份额是
# $\gamma = \alpha^2\sigma_w^2/2$ 的量级，也就是分支缩放因子的**平方**。当 $L\gamma$ 随 $L$ 增大时（$\alpha = 1$）会怎样，
# 是下面第 2 题的内容。
#
# 对每个 $L$，取 $\alpha = 1/\sqrt L$，我们在 8 个宽度为 256 的有限宽网络中测量每一层的份额
# （`course.block_shares`：一次反向传播，把梯度平方按层归类）。

# %%
share_depths = [2, 4, 8, 16, 32, 64]
shares = {L: [course.block_shares(L, L ** -0.5, inputs[0], width=256, seed=seed) for seed in range(8)]
          for L in share_depths}
closed = {L: course.ntk_shares(L, L ** -0.5) for L in share_depths}
all_blocks = {L: np.mean([s.blocks.sum() for s in shares[L]]) for L in share_depths}
one_block = np.array([all_blocks[L] / L for L in share_depths])

# %%
fig, ax = plt.subplots()
ax.loglog(share_depths, one_block, "o", label=nh._("finite networks (width 256, mean of 8)"))
ax.loglog(share_depths, [closed[L].block for L in share_depths], "-", label=nh._("closed form"))
ax.loglog(share_depths, one_block[0] * (np.array(share_depths) / share_depths[0]) ** -0.5, "k:",
          label=nh._("if it fell like α = 1/√L"))
nh.plotting.width_ticks(ax, share_depths)
ax.set_xlabel(nh._("number of residual blocks L"))
ax.set_ylabel(nh._("one block's share of Θ(x, x)"))
ax.set_title(nh._("Each block's share falls like α² = 1/L, not like α = 1/√L"))
ax.legend()
plt.show()

# %% [markdown]
# $\Theta$ 的其余部分从哪里来？闭式把它分给输入层、全部块合起来以及读出层；圆点是有限宽网络中输入层与各块的份额之和。（$L = 1$ 时同样 $\alpha = 1$：唯一的块占 $\frac{1/2}{2 + 1/2} = 0.2$。）

# %%
bar_depths = [1, 4, 16, 64, 256]
parts = [course.ntk_shares(L, L ** -0.5) for L in bar_depths]
labels = [str(L) for L in bar_depths]
fig, ax = plt.subplots(figsize=(8.6, 4.0))
bottom = np.zeros(len(bar_depths))
layers = [("input", nh._("input layer"), PALETTE[0]), ("blocks", nh._("all blocks"), PALETTE[2]),
          ("readout", nh._("readout"), PALETTE[4])]
for field, name, color in layers:
    height = np.array([getattr(part, field) for part in parts])
    ax.bar(labels, height, bottom=bottom, color=color, label=name)
    bottom += height
top = [np.mean([s.input + s.blocks.sum() for s in shares[L]]) for L in (4, 16, 64)]
ax.plot(["4", "16", "64"], top, "ko", label=nh._("finite networks: input layer + blocks"))
for third in (1 / 3, 2 / 3):
    ax.axhline(third, color="k", ls=":", lw=1)
ax.set_xlabel(nh._("number of residual blocks L"))
ax.set_ylabel(nh._("share of Θ(x, x), α = 1/√L"))
ax.set_title(nh._("α = 1/√L: input layer, blocks and readout end with a third each"))
ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
plt.show()

# %% [markdown]
# 1. **解释一下。** 为什么这三部分最终各占三分之一？这与 4.3.2 节的极限 $3e\,q_0$ 有什么关系？
#
# <details><summary>答案</summary>
#
# 取 $\alpha = 1/\sqrt L$ 时 $L\gamma/(1+\gamma) \to 1$，所以分母 $2 + L\gamma/(1+\gamma)$ 趋于 3，
# 输入层、全部块合起来以及读出层各得 $1/3$。按绝对大小来看，每一部分都趋于 $e\,q_0$：输入层和读出层各占
# $q_0(1+\gamma)^L \to e\,q_0$，全部块合起来占 $L\gamma\,q_0(1+\gamma)^{L-1} \to e\,q_0$，
# 而 $3e\,q_0 = e\,q_0 + e\,q_0 + e\,q_0$。
#
# </details>
#
# 2. **先预测，再动手试。** 下一个单元格打印 $\alpha = 1/\sqrt L$ 时 $L = 4$ 和 $16$ 的全部块的份额，以及第一个块和最后一个块的份额，
#    都是 8 个有限宽网络的平均值，并给出它们的波动。你将设 `alpha_of = lambda L: 1.0` 并重新运行它。在此之前，先用上面的份额公式（取 $\gamma = 1$）：
#    (a) 在 $L = 16$ 时，全部块合起来会占多少？每个单独的块又占多少？随着 $L$ 增大，每个块的份额趋向哪里？
#    (b) 8 个有限宽网络给出的第 1 个块和第 16 个块的平均份额略有不同。这个差异是这 8 个网络能看到的有限宽度效应，还是波动？
#    要判断这一点，你需要知道什么？
#
# <details><summary>答案</summary>
#
# (a) 取 $\alpha = 1$ 时 $\gamma = 1$，全部块合起来占 $\frac{L/2}{2 + L/2} = L/(L + 4)$：$L = 4$ 时为 0.50，
# $L = 16$ 时为 0.80（有限宽网络测得 0.501 和 0.800），$L = 16$ 时每个块占 $1/(L + 4) = 0.050$。
# 随着 $L$ 增大，这些块占去了一个按 $2^L(2 + L/2)$ 增长的 $\Theta$ 的几乎全部，每个块的份额趋于 $1/L$：
# 它不再是 $\gamma$ 的量级。
#
# (b) 你需要知道波动有多大，单元格会打印它。两个平均份额分别是：第 1 个块 0.055，第 16 个块 0.050。全部块的总份额在网络之间的波动只有 3 %，
# 单个块的份额按 16 个块平均有 20 %，第 1 个块和第 16 个块分别为 24 % 和 30 %：单个网络中这两个块的份额约在 0.03 到 0.08 之间，
# 8 个网络的每个平均值的不确定度约为 $\pm 0.005$（一个标准误）。两者之差为 $0.005 \pm 0.009$（由 8 个成对的差得出），
# 远不到它的标准误的两倍：这 8 个网络分不出这两个块。
#
# </details>

# %%
# Try it: change alpha_of (the branch scale as a function of L) and re-run this cell
alpha_of = lambda L: L ** -0.5                      # α = 1/√L
for L in (4, 16):
    runs = [course.block_shares(L, alpha_of(L), inputs[0], width=256, seed=seed) for seed in range(8)]
    print(nh._("L = {depth}, α = {alpha:.3g}: all blocks carry {measured:.3f} of Θ(x, x), mean of 8 networks "
               "(closed form {closed:.3f})").format(depth=L, alpha=alpha_of(L),
                                                     measured=np.mean([r.blocks.sum() for r in runs]),
                                                     closed=course.ntk_shares(L, alpha_of(L)).blocks))
    print(nh._("    block 1 carries {first:.3f}, block {depth} {last:.3f} (closed form {closed:.3f} each)")
          .format(first=np.mean([r.blocks[0] for r in runs]), depth=L,
                  last=np.mean([r.blocks[-1] for r in runs]), closed=course.ntk_shares(L, alpha_of(L)).block))
    ends = np.array([[r.blocks[0], r.blocks[-1]] for r in runs])
    spread, gap = ends.std(axis=0, ddof=1), ends[:, 0] - ends[:, 1]
    print(nh._("    scatter over the 8 networks: block 1 {s1:.0%}, block {depth} {s2:.0%}; "
               "standard errors of the means ±{e1:.4f}, ±{e2:.4f}; "
               "block 1 − block {depth} = {gap:+.4f} ± {egap:.4f}").format(
        s1=spread[0] / ends[:, 0].mean(), s2=spread[1] / ends[:, 1].mean(), depth=L,
        e1=spread[0] / math.sqrt(8), e2=spread[1] / math.sqrt(8), gap=gap.mean(),
        egap=gap.std(ddof=1) / math.sqrt(8)))

# %% tags=["check"]
# one network's block total scatters by 8 % at width 256 (α = 1/√L, L = 16), the mean of 8 by about 3 %;
# 10 % is
# three standard errors, and a block share that fell like α = 1/√L would miss by a factor of √L
nh.check_close("α = 1/√L, L = 4: all blocks' share of Θ(x, x), mean of 8 networks (closed form 0.286)",
               all_blocks[4], closed[4].blocks, rtol=0.1)
nh.check_close("α = 1/√L, L = 16: all blocks' share of Θ(x, x), mean of 8 networks (closed form 0.320)",
               all_blocks[16], closed[16].blocks, rtol=0.1)
slope, closed_slope = (np.polyfit(np.log(share_depths), np.log(y), 1)[0]
                       for y in (one_block, [closed[L].block for L in share_depths]))
# the closed form's slope is −0.92 over L = 2 … 64 (−1 as L → ∞); the O(√L) arithmetic would give −0.5
nh.check_close("log-log slope of one block's share against L", slope, closed_slope, atol=0.08)
# one block of one network is 9 % off the closed form on average (α = 1/√L, L = 16), the mean of 8 networks
# 2.4 % (5.3 % at most): 10 % per block leaves room for 16 blocks
per_block = np.mean([s.blocks for s in shares[16]], axis=0) / closed[16].block
nh.check_close("α = 1/√L, L = 16: each of the 16 blocks' shares / the closed form, mean of 8 networks",
               per_block, np.ones(16), rtol=0.1)
nh.check_close("α = 1/√L, L = 16: input layer + blocks, mean of 8 networks", top[1],
               closed[16].input + closed[16].blocks, rtol=0.1)
limit = course.ntk_shares(10 ** 6, 1e-3)                     # α = 1/√L at L = 10⁶
for part in (limit.input, limit.blocks, limit.readout):
    nh.check_close("α = 1/√L: input layer, all blocks and readout carry 1/3 each as L → ∞", part, 1 / 3,
                   rtol=1e-5)

# %% tags=["check"]
# the conditions: equal shares for ReLU without bias on the diagonal, not for erf
relu_parts = course.recursion_shares(16, 16 ** -0.5, "relu").blocks
nh.check_close("ReLU, α = 1/√L, L = 16: block 1's share / block 16's, the recursion (1)",
               relu_parts[0] / relu_parts[-1], 1.0, rtol=1e-12)
nh.check_close("erf: the recursion's Θ(x, x) is the engine's", course.recursion_shares(16, 0.25, "erf").total,
               float(nh.resnet(16, "erf", alpha=0.25).kernel(inputs[:1]).ntk[0, 0]), rtol=1e-10)
# a block's share: of order γ while Lγ is bounded, about 1/L when Lγ grows
for L in (64, 1024):
    nh.check_close("α = 1/√L, L = 64 and 1024: one block's share / γ (→ 1/3: of order γ)",
                   course.ntk_shares(L, L ** -0.5).block / course.growth_per_block(L ** -0.5), 1 / 3,
                   rtol=0.02)
    nh.check_close("α = 1, L = 64 and 1024: one block's share × L (→ 1: about 1/L)",
                   course.ntk_shares(L, 1.0).block * L, 1.0, rtol=0.07)

# %% tags=["check"]
# the try-it at α = 1: closed form L/(L + 4), the same 8 networks as the cell prints
for L, quoted in ((4, 0.5), (16, 0.8)):
    nh.check_close("α = 1: all blocks' share at L = 4 and 16 (closed form 0.50, 0.80)",
                   course.ntk_shares(L, 1.0).blocks, quoted, rtol=1e-12)
at_alpha_one = {L: np.array([course.block_shares(L, 1.0, inputs[0], width=256, seed=seed).blocks
                             for seed in range(8)]) for L in (4, 16)}
for L, quoted in ((4, 0.501), (16, 0.800)):
    nh.check_close("α = 1: all blocks' share at L = 4 and 16, mean of 8 networks (0.501, 0.800)",
                   at_alpha_one[L].sum(1).mean(), quoted, atol=0.0005)
totals = at_alpha_one[16].sum(1)
nh.check_close("α = 1, L = 16: relative scatter of all blocks' share over the 8 networks (3 %)",
               totals.std(ddof=1) / totals.mean(), 0.03, atol=0.005)
single = at_alpha_one[16]
nh.check_close("α = 1, L = 16: relative scatter of one block's share over 8 networks (20 %, all blocks)",
               np.mean(single.std(axis=0, ddof=1) / single.mean(axis=0)), 0.20, atol=0.01)
ends_at_one = single[:, [0, -1]]
nh.check_close("α = 1, L = 16: block 1's share, mean of 8 networks (0.055)", ends_at_one[:, 0].mean(), 0.055,
               atol=0.0005)
nh.check_close("α = 1, L = 16: block 16's share, mean of 8 networks (0.050)", ends_at_one[:, 1].mean(), 0.050,
               atol=0.0005)
for standard_error in ends_at_one.std(axis=0, ddof=1) / math.sqrt(8):
    nh.check_close("α = 1, L = 16: standard error of block 1's and block 16's mean share (± 0.005)",
                   standard_error, 0.005, atol=0.0007)
relative_ends = ends_at_one.std(axis=0, ddof=1) / ends_at_one.mean(axis=0)
nh.check_close("α = 1, L = 16: relative scatter of block 1's share over 8 networks (24 %)", relative_ends[0],
               0.24, atol=0.005)
nh.check_close("α = 1, L = 16: relative scatter of block 16's share over 8 networks (30 %)", relative_ends[1],
               0.30, atol=0.005)
difference = ends_at_one[:, 0] - ends_at_one[:, 1]
nh.check_close("α = 1, L = 16: block 1 − block 16, mean of 8 networks (0.005)", difference.mean(), 0.005,
               atol=0.0005)
nh.check_close("α = 1, L = 16: standard error of that difference (0.009)",
               difference.std(ddof=1) / math.sqrt(8), 0.009, atol=0.0005)
nh.check_between("α = 1, L = 16: (block 1 − block 16) / its standard error: below 2, no clear difference",
                 abs(difference.mean()) / (difference.std(ddof=1) / math.sqrt(8)), 0.0, 2.0)
nh.check_that("α = 1, L = 16: one network's share of block 1 or 16 (about 0.03 to 0.08)",
              ((0.025 <= ends_at_one) & (ends_at_one <= 0.085)).all(),
              measured=f"{ends_at_one.min():.3f} … {ends_at_one.max():.3f}", expected="0.025 … 0.085")
nh.check_close("α = 1, L = 16: each block's share, closed form 1/(L + 4)", course.ntk_shares(16, 1.0).block,
               0.05, rtol=1e-12)
nh.check_close("α = 1, L = 1: the single block's share (0.2)", course.ntk_shares(1, 1.0).block, 0.2,
               rtol=1e-12)

# %% [markdown]
# ### 有限宽网络与之一致
#
# 递归是关于无限宽极限的结论。对每种缩放，我们取 8 个宽度为 1024、含 4 个块的网络，在上面的 8 个输入上计算它们的经验 NTK，
# 并与递归比较：单个网络离解析 NTK 有多远（差的相对 Frobenius 范数），以及 8 个网络的平均值离它有多远
# （`course.finite_networks` 会保存这 24 个经验 NTK，再次调用不再花时间）。

# %%
finite = {name: course.finite_networks(name, width=1024) for name in scalings}     # seeds 0 … 7 each
for name, run in finite.items():
    text = nh._("{scaling}: one network is {one:.1%} off the NTK on average ({low:.1%} to {high:.1%} over 8 "
                "seeds), the mean of the 8 networks {mean:.1%}")
    print(text.format(scaling=name, one=run.errors.mean(), low=run.errors.min(), high=run.errors.max(),
                      mean=run.mean_error))

# %% [markdown]
# 8 个网络的平均值相差 1.9–4.9 %。其中有多少是更多网络就能平均掉的波动？如果这些网络围绕递归的核独立地波动，
# 8 个网络的平均值的误差应约为单个网络的均方根误差除以 $\sqrt 8$：对 $\alpha = 1$、$1/\sqrt L$ 和 $1/L$ 分别为
# 4.0 %、3.0 % 和 2.2 %。测得的 4.9 %、2.7 % 和 1.9 % 与之接近（相差不到 25 %）：看不出偏差的迹象。
#
# 它们能排除什么？平均值的偏差 $b$ 会与波动 $s$ 按平方相加，得到 $\sqrt{b^2 + s^2}$。对 $\alpha = 1$，测得的 4.9 % 留下了
# $b \approx \sqrt{4.9^2 - 4.0^2} = 2.8\,\%$ 的余地。对另外两种缩放，测得的误差已低于波动的估计；若有 2 % 的偏差，误差会是
# 3.6 % 和 3.0 %，为实测值的 1.3 倍和 1.6 倍。所以这 8 个网络给偏差留下的余地约为至多 3 %（$\alpha = 1$）或 1–2 %（另外两种）。

# %% [markdown]
# 1. **解释一下。** 平均而言，单个网络在 $\alpha = 1$ 时离 NTK 最远，在 $\alpha = 1/L$ 时最近。
#    是什么让更大的分支缩放因子带来更大的噪声？（提示：$\alpha$ 增大时，哪些层在 $\Theta(x, x)$ 中占得更多？）
#
# <details><summary>答案</summary>
#
# 一个可能的原因（下一张图会检验它）：$\alpha$ 越大，核中穿过随机块的部分就越多（$L = 4$ 时各块合起来占 $\Theta(x, x)$ 的 0.50、0.29 和 0.11，
# 来自 4.3.3 节的闭式解）。每个块中随机的隐藏层到隐藏层权重都在输入层的有限宽度波动之上再加上它们自己的波动。
# 这个排序是 8 个种子上的平均：单个网络之间有重叠（见上面打印的范围）。对 MLP，Hanin & Nica（2020）证明了 NTK 的波动
# 随深度与宽度之比增大；Li, Nica & Roy（2021）证明了在 ResNet 中（与 MLP 一样），初始化时输出的波动由深度与宽度之比决定。
#
# </details>

# %% [markdown]
# **检验这个答案。** 把 8 个网络（宽度 1024，4 个块，种子 0–7，8 个输入中的第一个）的 $\Theta(x, x)$ 像 4.3.3 节那样
# 拆成输入层、全部块和读出层三部分，再从每一部分中减去它在无限宽极限下的值。如果答案是对的，全部块的点在 $\alpha = 1$ 时散得最开。

# %%
def layer_parts(run, exact):
    """One network's input-layer, all-blocks and readout parts of Θ(x, x), as fractions of the analytic Θ."""
    return np.array([run.input, run.blocks.sum(), run.readout]) * run.total / exact


deviation = {}
fig, ax = plt.subplots(figsize=(8.6, 4.0))
for i, (name, alpha) in enumerate(scalings.items()):
    exact = course.closed_form_ntk(4, alpha(4), q0=2.0)             # the 8 inputs have q₀ = σ_w² x·x/d = 2
    share = course.ntk_shares(4, alpha(4))
    runs = [course.block_shares(4, alpha(4), inputs[0], width=1024, seed=seed) for seed in range(8)]
    closed_parts = [share.input, share.blocks, share.readout]
    deviation[name] = np.array([layer_parts(r, exact) for r in runs]) - closed_parts
    for j, (field, label, color) in enumerate(layers):              # input layer, all blocks, readout
        ax.plot(np.full(8, i + 0.22 * (j - 1)), deviation[name][:, j], "o", color=color, alpha=0.7,
                label=label if i == 0 else None)
ax.axhline(0, color="k", lw=0.8)
ax.set_xticks(range(3), list(scalings))
ax.set_ylabel(nh._("(part − infinite-width part) / Θ(x, x)"))
ax.set_title(nh._("The blocks' part scatters the most at α = 1, where the blocks carry the most"))
ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
plt.show()
for name in scalings:
    spread = deviation[name].std(axis=0, ddof=1)
    print(nh._("{scaling}: scatter over the 8 networks, as a fraction of Θ(x, x): input layer {input:.1%}, "
               "all blocks {blocks:.1%}, readout {readout:.1%}").format(scaling=name, input=spread[0],
                                                                      blocks=spread[1], readout=spread[2]))

# %% [markdown]
# 全部块所占的部分在 $\alpha = 1$、$1/\sqrt L$ 和 $1/L$ 时的波动分别是 $\Theta(x, x)$ 的 5.0 %、2.7 % 和 1.1 %：
# 在三种情形中都约为它所占份额（0.50、0.29、0.11）的十分之一。输入层和读出层所占部分的波动在三种情形中都是 2–3.5 %。
# 所以更大的 $\alpha$ 带来的额外波动来自各块，正如答案所说。这只是一个输入和 8 个网络（上面每个波动值本身约有四分之一的不确定度），
# 所以它支持这个答案，但并不证明它。

# %% tags=["check"]
spreads = {name: deviation[name].std(axis=0, ddof=1) for name in scalings}
for name, quoted in zip(scalings, (0.050, 0.027, 0.011)):
    nh.check_close("L = 4: scatter of all blocks' part / Θ(x, x), α = 1, 1/√L, 1/L (5.0, 2.7, 1.1 %)",
                   spreads[name][1], quoted, atol=0.0005)
    nh.check_between("that scatter / all blocks' share (about a tenth)",
                     spreads[name][1] / course.ntk_shares(4, scalings[name](4)).blocks, 0.08, 0.11)
    for value in spreads[name][[0, 2]]:
        nh.check_between("scatter of the input layer's and the readout's parts / Θ(x, x) (2–3.5 %)", value,
                         0.02, 0.035)
nh.check_that("the blocks' part scatters the most at α = 1, the least at α = 1/L",
              spreads["α = 1"][1] > spreads["α = 1/√L"][1] > spreads["α = 1/L"][1],
              measured=str([round(float(v[1]), 4) for v in spreads.values()]), expected="decreasing")
# a standard deviation from 8 Gaussian samples is uncertain by about 1/√(2·7) of itself
nh.check_close("relative uncertainty of a spread from 8 networks (about a quarter)", 1 / math.sqrt(14), 0.25,
               atol=0.03)

# %% [markdown]
# 2. **先预测，再动手试。** 在下一个单元格中设 `trial_width = 256` 并重新运行。单个网络的平均误差会增大多少倍？
#
# <details><summary>答案</summary>
#
# 约 2 倍（这里为 1.5–2.0）。对 $m$ 个随机单元的平均按 $1/\sqrt m$ 波动，而 $\sqrt{1024/256} = 2$：宽度为 256 时单个网络平均相差
# 21.5 %、14.7 % 和 8.8 %，宽度为 1024 时为 10.6 %、8.1 % 和 5.9 %，比值为 2.0、1.8 和 1.5。$\alpha = 1/L$ 的 1.5 比 2 低约两个标准误：这提示（但不能证明）它的误差增长得更少。每个宽度 8 个种子使每个比值有
# 0.2–0.4 的不确定度（一个标准误，由 8 个网络的离散程度估计），所以它们无法把这个规律确定得更精确。
#
# </details>

# %%
# Try it: change trial_width and re-run this cell (8 networks per scaling; no other cell uses trial_width)
trial_width = 1024
for name in scalings:
    trial = course.finite_networks(name, width=trial_width)
    print(nh._("{scaling}, width {width}: one network is {one:.1%} off on average, {ratio:.2f} times its "
               "error at width 1024").format(scaling=name, width=trial_width, one=trial.errors.mean(),
                                    ratio=trial.errors.mean() / finite[name].errors.mean()))

# %% tags=["check"]
ones_error = [run.errors.mean() for run in finite.values()]
for name, value, quoted in zip(scalings, ones_error, (0.106, 0.081, 0.059)):
    nh.check_close("width 1024: one network's average error, α = 1, 1/√L, 1/L (10.6 %, 8.1 %, 5.9 %)", value,
                   quoted, atol=0.0005)
means_error = [run.mean_error for run in finite.values()]
for name, value, quoted in zip(scalings, means_error, (0.049, 0.027, 0.019)):
    nh.check_close("width 1024: error of the mean of 8 networks, α = 1, 1/√L, 1/L (4.9 %, 2.7 %, 1.9 %)",
                   value, quoted, atol=0.0005)
# independent scatter around the kernel: the mean of 8 is off by about RMS(one network)/√8
independent = [math.sqrt(np.mean(run.errors ** 2) / 8) for run in finite.values()]
for value, quoted in zip(independent, (0.040, 0.030, 0.022)):
    nh.check_close("RMS error of one network / √8, α = 1, 1/√L, 1/L (4.0 %, 3.0 %, 2.2 %)", value, quoted,
                   atol=0.0005)
for mean, expected in zip(means_error, independent):
    nh.check_between("error of the mean of 8 / (RMS of one / √8): within 25 % of 1", mean / expected,
                     0.75, 1.25)
nh.check_close("α = 1: room for a bias, √(mean error² − (RMS/√8)²) (2.8 %)",
               math.sqrt(means_error[0] ** 2 - independent[0] ** 2), 0.028, atol=0.0015)
for mean, expected, quoted in zip(means_error[1:], independent[1:], (1.3, 1.6)):
    nh.check_close("α = 1/√L, 1/L: with a 2 % bias, the error of the mean / the measured one (1.3, 1.6)",
                   math.sqrt(0.02 ** 2 + expected ** 2) / mean, quoted, atol=0.05)
nh.check_that("one network's average error falls from α = 1 to 1/√L to 1/L (L = 4, width 1024)",
              ones_error[0] > ones_error[1] > ones_error[2], measured=str(np.round(ones_error, 3)),
              expected="decreasing")
for alpha, quoted in zip(scalings.values(), (0.50, 0.29, 0.11)):
    nh.check_close("closed form, L = 4: all blocks' share of Θ(x, x) for α = 1, 1/√L, 1/L (0.50, 0.29, 0.11)",
                   course.ntk_shares(4, alpha(4)).blocks, quoted, atol=0.005)

# %% tags=["check"]
# the try-it at width 256 (same seeds and inputs; computed here whatever trial_width the learner chose)
narrow = [course.finite_networks(name, width=256).errors for name in scalings]
for errors, quoted in zip(narrow, (0.215, 0.147, 0.088)):
    nh.check_close("width 256: one network's average error, α = 1, 1/√L, 1/L (21.5 %, 14.7 %, 8.8 %)",
                   errors.mean(), quoted, atol=0.0005)
error_growth = np.array([e.mean() for e in narrow]) / ones_error
for value, quoted in zip(error_growth, (2.0, 1.8, 1.5)):
    nh.check_close("one network's error, width 256 / width 1024 (2.0, 1.8, 1.5)", value, quoted, atol=0.05)
relative_spread = [(n.std(ddof=1) / n.mean()) ** 2 + (run.errors.std(ddof=1) / run.errors.mean()) ** 2
                   for n, run in zip(narrow, finite.values())]
standard_error = error_growth * np.sqrt(np.array(relative_spread) / 8)
for value in standard_error:
    nh.check_between("standard error of each ratio, from the 8 networks' spread (0.2–0.4)", value, 0.15, 0.45)
nh.check_between("α = 1/L: (2 − its ratio) / its standard error (about 2)",
                 (2 - error_growth[2]) / standard_error[2], 1.5, 2.5)

# %% [markdown]
# ## 动手探索
#
# 交互探索画出归一化 NTK $\Theta(x, x')/\Theta(x, x)$ 随两个输入之间夹角的变化：深度为 $L$ 时（深色）、
# 深度减半时（虚线）、只有一个块时（淡色；在 $L = 1$ 时每种缩放都有 $\alpha = 1$），以及线性核
# $\cos\theta$（点线）。图的标题用一句话说明深度对核做了什么；标题中给出的变化量，是从 $L/2$ 个块到 $L$ 个块的最大变化。
# 打印的一行给出 $\Theta(x, x)$ 以及 3°、90° 和 180° 处的值（在课程的静态页面中，它位于图的上方）。这里只提供核有闭式表达式的激活函数（ReLU、erf、GELU），
# 所以即使有 200 个块，重新作图也很快。它从 $L = 16$、$\alpha = 1/\sqrt L$、ReLU 开始（课程的静态页面显示的就是这个设置）。

# %% tags=["nbval-ignore-output"]
print(course.explorer_line(16, "α = 1/√L", "relu"))     # the line at the starting setting (for a static view)
nh.widgets.live_figure(course.draw_normalized_ntk, depth=nh.widgets.depth_slider(16, max=200),
                       scaling=nh.widgets.dropdown(nh._("scaling"), "α = 1/√L", options=list(scalings)),
                       activation=nh.widgets.activation_dropdown("relu", options=["relu", "erf", "gelu"]))

# %% [markdown]
# **先预测，再验证。**
#
# 1. 保持 $\alpha = 1/\sqrt L$ 和 ReLU。$L = 16$ 时 90° 处的值为 0.186。把深度调到 200：它的变化会大于还是小于 0.01？
#    先预测，再拖动滑块。
#
# <details><summary>答案</summary>
#
# 小于 0.01：它只变到 0.191。在 $L = 16$ 时，标题给出的变化（从 8 个块到 16 个块最多 0.02）已经很小；
# 在 $L = 50$ 时，标题显示从 25 个块到 50 个块只让核改变约 0.005，核已经稳定。取 $\alpha = 1/\sqrt L$ 时，核收敛到一个与深度无关的极限。
#
# </details>
#
# 2. 换成 $\alpha = 1$，仍用 ReLU。从 16 个块增加到 200 个块时，3° 处的值还会接近 1 吗？曲线会变成什么样？
#
# <details><summary>答案</summary>
#
# 不会：$L = 16$ 时为 0.940，$L = 100$ 时为 0.720，$L = 200$ 时为 0.582，标题也一直显示深度仍在改变核的形状。
# 曲线逐渐变平，趋于同一个值，在 90° 和 180° 处都约为 0.27：远近不同的输入看起来都差不多。
# 这就是深层 MLP 的核退化（第 02 课），因为取 $\alpha = 1$ 时分支承担了 $\Theta$ 的几乎全部。（而在初始设置 $\alpha = 1/\sqrt L$ 下，180° 处的值是负的，为 −0.257，这与深层 ReLU MLP 不同：线性的输入层给 $\Theta(x, x')$ 贡献 $q_0\cos 180° = -q_0$，而跳连把它的 $\Sigma^{(0)}(x, x') = -q_0$ 一直传到读出层。）
#
# </details>
#
# 3. 换成 erf。先别看：在任何深度和缩放下，90° 和 180° 处的归一化 NTK 会是多少？
#    （erf 是奇函数，$\operatorname{erf}(-u) = -\operatorname{erf}(u)$，而这些网络没有偏置。）
#    然后选 $\alpha = 1$，把深度从 16 调到 50：只相差 3° 的两个输入会怎样？（提示：
#    $\operatorname{erf}'(u) = \frac{2}{\sqrt\pi}e^{-u^2}$ 是一个窄峰，而取 $\alpha = 1$ 时预激活一个块接一个块地增大。）
#
# <details><summary>答案</summary>
#
# 在任何设置下，90° 处都是 0.000，180° 处都是 −1.000。在 180° 处 $x' = -x$：由奇函数构成、没有偏置的网络本身是奇函数，
# $f(-x) = -f(x)$，它对参数的梯度也是奇的，因此 $\Theta(x, -x) = -\Theta(x, x)$。在 90° 处，输入层的两个预激活是
# 互不相关的高斯变量，因而相互独立，
# $\mathbb E[\operatorname{erf}(u)\operatorname{erf}(v)] = \mathbb E[\operatorname{erf}(u)]\,
# \mathbb E[\operatorname{erf}(v)] = 0$；所以 90° 处的 $\Sigma$ 一个块接一个块地保持为 0，$\Theta$ 也一样，
# 因为它从 $\Sigma^{(0)} = 0$ 开始，之后只加上 $\Theta^{(l-1)}$ 和 $\mathbb E[\phi\phi]$ 的倍数。
# （ReLU 不是奇函数，且 $\mathbb E[\operatorname{relu}(u)] > 0$：所以它在 90° 处的值为正。）
#
# 取 $\alpha = 1$ 时，3° 处的值从 $L = 16$ 时的 0.733 降到 $L = 50$ 时的 0.031：连很近的相邻输入也变得几乎不相关。
# $\Sigma$ 每个块最多增加 $\sigma_w^2 = 2$（因为 $\operatorname{erf}^2 \le 1$），所以预激活变得很大，
# 而 $\operatorname{erf}'(u) = \frac{2}{\sqrt\pi}e^{-u^2}$ 始终是一个宽度约为 1 的峰。所以只有当 $u$ 和 $v$ 都接近 0 时，
# $\phi'(u)\phi'(v)$ 才不小。当 $u = \pm v$（即 $x' = \pm x$）时，只要 $u$ 落到那里，$v$ 就一起落到那里；当 $u$ 和 $v$
# 并非完全相关且方差很大时，两者同时接近 0 就罕见得多。因此 $\mathbb E[\phi'(u)\phi'(v)]$ 在 $x' = \pm x$ 时远大于任何不十分接近 $\pm x$ 的 $x'$ 处，每个块的因子 $1 + \alpha^2\sigma_w^2\,\mathbb E[\phi'\phi']$
# 都偏向对角线，经过许多块之后，对角线元素就远远超过其他所有元素。
#
# </details>

# %% tags=["check"]
def explorer(depth, scaling, activation, degrees):
    """The normalized NTK the explorer's line prints at that setting and angle (3°, 90° or 180°)."""
    index = {3: course.AT_3, 90: course.AT_90, 180: course.AT_180}[degrees]
    return float(course.normalized_ntk(depth, scaling, activation)[1][index])


nh.check_close("α = 1/√L, ReLU: normalized NTK at 90°, L = 16 and 200 (0.186, 0.191)",
               [explorer(16, "α = 1/√L", "relu", 90), explorer(200, "α = 1/√L", "relu", 90)], [0.186, 0.191],
               atol=0.0005)
half_change = float((course.normalized_ntk(50, "α = 1/√L", "relu")[1]
                     - course.normalized_ntk(25, "α = 1/√L", "relu")[1]).abs().max())
nh.check_between("α = 1/√L, ReLU: largest change of the kernel from 25 to 50 blocks (0.005)", half_change,
                 0.0045, 0.0055)
change_16 = float((course.normalized_ntk(16, "α = 1/√L", "relu")[1]
                   - course.normalized_ntk(8, "α = 1/√L", "relu")[1]).abs().max())
nh.check_between("α = 1/√L, ReLU: largest change of the kernel from 8 to 16 blocks (0.02, still reshaping)",
                 change_16, 0.015, 0.025)
nh.check_that("α = 1/√L, ReLU: the titles at L = 16 (still reshaping) and L = 50 (settled)",
              course.describe(16, "α = 1/√L", "relu") == nh._(
                  "{half} → {depth} blocks still reshape the kernel (by up to {change:.2f})").format(
                  half=8, depth=16, change=change_16)
              and course.describe(50, "α = 1/√L", "relu") == nh._(
                  "{half} → {depth} blocks change the kernel by {change:.3f} at most: it has settled").format(
                  half=25, depth=50, change=half_change))
nh.check_close("α = 1/√L, ReLU, L = 16: normalized NTK at 180° (negative, −0.257)",
               explorer(16, "α = 1/√L", "relu", 180), -0.257, atol=0.0005)
nh.check_close("α = 1, ReLU: normalized NTK at 3°, L = 16, 100, 200 (0.940, 0.720, 0.582)",
               [explorer(L, "α = 1", "relu", 3) for L in (16, 100, 200)], [0.940, 0.720, 0.582], atol=0.0005)
nh.check_close("α = 1, ReLU, L = 200: normalized NTK at 90° and 180° (about 0.27)",
               [explorer(200, "α = 1", "relu", 90), explorer(200, "α = 1", "relu", 180)], [0.27, 0.27],
               atol=0.006)
def reshaping_title(L):
    """The explorer's title for α = 1, ReLU, L blocks if depth still reshapes the kernel (either language)."""
    change = float((course.normalized_ntk(L, "α = 1", "relu")[1]
                    - course.normalized_ntk(L // 2, "α = 1", "relu")[1]).abs().max())
    return nh._("{half} → {depth} blocks still reshape the kernel (by up to {change:.2f})").format(
        half=L // 2, depth=L, change=change)


nh.check_that("α = 1, ReLU: the title says depth still reshapes the kernel at L = 16, 50, 100, 200",
              all(course.describe(L, "α = 1", "relu") == reshaping_title(L) for L in (16, 50, 100, 200)))
erf_ends = [explorer(L, s, "erf", a) for s in scalings for L in (1, 16, 50, 200) for a in (90, 180)]
nh.check_close("erf: normalized NTK at 90° and 180° (0 and −1), 3 scalings × 4 depths", erf_ends,
               [0.0, -1.0] * 12, atol=1e-6)
nh.check_close("α = 1, erf: normalized NTK at 3°, L = 16 and 50 (0.733, 0.031)",
               [explorer(16, "α = 1", "erf", 3), explorer(50, "α = 1", "erf", 3)], [0.733, 0.031],
               atol=0.0005)

# %% [markdown]
# ## 检验你的理解
#
# 1. 为什么在无限宽极限下跳连与分支互不相关，从而它们的核可以相加？举一个使它们相关的块的例子。
#
# <details><summary>答案</summary>
#
# 分支的末端是一组均值为零的新权重 $W^{(l)}$，所以无论 $x$ 是什么，都有 $\mathbb E[x_i\,(W^{(l)}\phi(x))_i] = 0$。
# 没有这最后一层的块，例如 $x + \alpha\,\phi(x)$，就会使两者相关：对 ReLU，
# $\mathbb E[x\,\phi(x)] = \Sigma/2 \neq 0$，核会多出一个交叉项。
#
# </details>
#
# 2. ReLU，$\sigma_w^2 = 2$，无偏置，$\alpha = 1/2$，$L = 4$，$q_0 = 2$：计算 $\Theta(x, x)$。
#
# <details><summary>答案</summary>
#
# $\gamma = \alpha^2\sigma_w^2/2 = 1/4$，所以 $\Theta = 2 \cdot 1.25^4 \cdot (2 + 4 \cdot 0.25/1.25) = 2 \cdot 2.441
# \cdot 2.8 = 13.67$。
#
# </details>
#
# 3. 一个 ResNet 无论多深都取固定的分支缩放因子 $\alpha = 0.1$（ReLU，$\sigma_w^2 = 2$，无偏置）。在 $L = 100$ 时这正是
#    $\alpha = 1/\sqrt L$。$L = 100$ 时 $\Theta(x, x)/q_0$ 是多少？$L = 1000$ 时呢？一个小的固定 $\alpha$ 能防止爆炸吗？
#
# <details><summary>答案</summary>
#
# $\gamma = 0.01$。$L = 100$ 时：$1.01^{100}(2 + 100 \cdot 0.01/1.01) = 2.705 \cdot 2.990 = 8.09$，与该深度下
# $\alpha = 1/\sqrt L$ 的值相同。$L = 1000$ 时：$1.01^{1000}(2 + 9.90) = 20\,959 \cdot 11.90 \approx
# 2.5\cdot 10^5$，而 $\alpha = 1/\sqrt L$ 给出 8.15。固定的 $\alpha$ 只是推迟了爆炸：只要 $L\alpha^2$ 是 1 的量级，
# 也就是直到大约 $L = 1/\alpha^2$ 个块，$\Theta$ 都保持 $q_0$ 的量级；超过之后它按 $(1 + \alpha^2)^L$ 增长。
# 要在每个深度都保持有界，$\alpha$ 必须随 $L$ 缩小。
#
# </details>
#
# 4. 为什么 $\alpha = 1/\sqrt L$ 足以让块雅可比矩阵的乘积保持有界，却不足以让一阶公式
#    $I + \alpha\sum_l J_l$ 成立？
#
# <details><summary>答案</summary>
#
# 有界增长只要求均方 $(1 + \alpha^2 c)^L$ 保持有界：取 $\alpha = 1/\sqrt L$ 时它趋于 $e^c$。
# 一阶公式则要求含两个及以上因子的项都很小，即 $L\alpha^2 c \ll 1$；在 $\alpha = 1/\sqrt L$ 时 $L\alpha^2 c = c$，
# 一阶公式的误差约为乘积范数的一半（对 $c = 1$，$r \to \sqrt{1 - 2/e} \approx 0.51$）。
#
# </details>
#
# 5. 对无偏置的 ReLU，为什么无论处在网络中的什么位置，每个块在 $\Theta(x, x)$ 中所占的份额都相同？对 erf（$\sigma_w^2 = 2$、$q_0 = 2$、$\alpha = 1/\sqrt L$、$L = 16$），第 1 个块和第 16 个块哪个占得更多？
#
# <details><summary>答案</summary>
#
# 第 $l$ 个块的梯度平方是前向因子乘以反向因子。到达它的前向信号增长了 $(1+\gamma)^{l-1}$ 倍，反向信号增长了 $(1+\gamma)^{L-l}$ 倍；
# 两者的乘积 $(1+\gamma)^{L-1}$ 与 $l$ 无关。这用到了对角线上的 $\mathbb E[\phi\phi] = \Sigma/2$ 和
# $\mathbb E[\phi'\phi'] = 1/2$，对无偏置的 ReLU 成立。对 erf，这两个因子不再相互抵消，第 1 个块占得更多：erf 会饱和（$\operatorname{erf}^2 \le 1$），所以第 16 个块的前向因子
# $\mathbb E[\phi\phi]$ 只是第 1 个块的 1.12 倍，而第 1 个块的反向因子仍是第 16 个块的 2.00 倍。第 1 个块的份额是第 16 个块的 1.78 倍。
#
# </details>
#
# 6. 你只训练一个有 $L = 64$ 个块的 ReLU ResNet 的输入层和读出层，而让每个块都冻结在初始权重上。
#    取 $\alpha = 1/\sqrt L$ 时 $\Theta(x, x)$ 还剩下多少比例？取 $\alpha = 1$ 时呢？
#
# <details><summary>答案</summary>
#
# NTK 只对*被训练的*参数求和，所以各块的部分消失了，剩下 $2/(2 + L\gamma/(1+\gamma))$。取 $\alpha = 1/\sqrt L$ 时，
# $\gamma = 1/64$，$L\gamma/(1+\gamma) = 64/65$：剩下 0.670，约三分之二（$L \to \infty$ 时恰为 $2/3$）。取
# $\alpha = 1$ 时 $\gamma = 1$：只剩下 $2/(2 + 32) = 0.059$，因为在这个缩放下各块承担了核的几乎全部。
#
# </details>

# %% tags=["check"]
nh.check_close("question 2: Θ(x, x) at α = 1/2, L = 4, q₀ = 2 (13.67)", course.closed_form_ntk(4, 0.5, 2.0),
               13.67, atol=0.005)
nh.check_close("question 2: the recursion agrees", float(nh.resnet(4, alpha=0.5).kernel(x).ntk[0, 0]),
               course.closed_form_ntk(4, 0.5, 2.0), rtol=1e-10)
fixed = {L: float(nh.resnet(L, alpha=0.1).kernel(x).ntk[0, 0]) / q0 for L in (100, 1000)}
nh.check_close("question 3: α = 0.1, L = 100: Θ(x, x)/q₀ (8.09)", fixed[100], 8.09, atol=0.005)
nh.check_close("question 3: α = 0.1, L = 1000: Θ(x, x)/q₀ (about 2.5·10⁵)", fixed[1000], 2.5e5, rtol=0.01)
nh.check_close("question 3: α = 0.1, L = 1000: the closed form agrees", fixed[1000],
               course.closed_form_ntk(1000, 0.1), rtol=1e-10)
nh.check_close("question 3: α = 1/√L, L = 1000: Θ(x, x)/q₀ (8.15)",
               course.closed_form_ntk(1000, 1000 ** -0.5), 8.15, atol=0.005)
nh.check_close("question 3: 1.01¹⁰⁰⁰ (20 959)", 1.01 ** 1000, 20959, atol=0.5)
erf_parts = course.recursion_shares(16, 16 ** -0.5, "erf").blocks
forward, backward = course.block_factors(16, 16 ** -0.5, "erf")
nh.check_close("question 5: erf, L = 16: forward factor of block 16 / block 1's (1.12)",
               forward[-1] / forward[0], 1.12, atol=0.005)
nh.check_close("question 5: erf, L = 16: backward factor of block 1 / block 16's (2.00)",
               backward[0] / backward[-1], 2.00, atol=0.005)
nh.check_close("question 5: erf, α = 1/√L, L = 16: block 1's share / block 16's, the recursion (1.78)",
               erf_parts[0] / erf_parts[-1], 1.78, atol=0.005)
for alpha, quoted in ((1 / 8, 0.670), (1.0, 0.059)):
    frozen = course.ntk_shares(64, alpha)
    nh.check_close("question 6: L = 64, α = 1/√L and 1: input layer + readout share (0.670, 0.059)",
                   frozen.input + frozen.readout, quoted, atol=0.0005)

# %% [markdown]
# ## 小结
#
# - 残差块通过跳连把核传下去，再加上 $\alpha^2$ 乘以分支的映射；对 ReLU，
#   每个块把尺度乘以 $1 + \gamma$，$\gamma = \alpha^2\sigma_w^2/2$。
# - $\alpha = 1$（ReLU，$\sigma_w^2 = 2$）：$\Theta = q_0\,2^L(2 + L/2)$，核像 MLP 的一样退化。$\alpha = 1/\sqrt L$：$\Theta$ 趋于
#   $e^{\sigma_w^2/2}(2 + \sigma_w^2/2)\,q_0$（$\sigma_w^2 = 2$ 时为 $3e\,q_0$），核与深度无关。
#   $\alpha = 1/L$：各分支的作用逐渐消失，$\Theta \to 2q_0$。
# - 块雅可比矩阵是 1 的量级；新抽取的权重使它们按平方相加，所以
#   $\prod_l(I + \alpha J_l)$ 在 $\alpha = 1/\sqrt L$ 时保持有界，但只有 $L\alpha^2 \ll 1$ 才能使它成为一阶形式（$I + \alpha\sum_l J_l$）。
# - 对无偏置的 ReLU，每个块在 $\Theta(x, x)$ 中的份额都相同（erf 则不然）；只要 $L\gamma$ 保持有界，这个份额就是
#   $\alpha^2$ 的量级，全部块合起来是 $O(1)$。
# - 有限宽残差网络与递归吻合：8 个宽度为 1024、含 4 个块的网络的平均值与它相差 1.9–4.9 %，大约正是独立波动留下的误差，
#   看不出偏差的迹象，但留有至多约 3 %（$\alpha = 1$）或 1–2 %（另外两种）的偏差余地。

# %% [markdown]
# ## 写给教材第 4 章的读者
#
# <details><summary>§4.3.1：块雅可比矩阵的乘积（勘误 A14）</summary>
#
# **教材原文：** 「当 $\Delta_l$ 项足够小（如通过 NTK parameterization 缩放）时」，
# $\prod_l (I + \Delta_l) \approx I + \sum_l \Delta_l$，即「梯度流从乘法机制转向了加法机制」。
#
# **正确的说法：** NTK 参数化下 $\|J_l\|_{op}$ 仍是 1 的量级（对 ReLU 分支约为 $1 + \sqrt 2$）；
# $\Delta_l = \alpha J_l$ 之所以小，只能靠分支缩放因子 $\alpha$。有界增长只需要
# $\alpha = O(1/\sqrt L)$，因为末端是新抽取的零均值权重的雅可比矩阵按平方相加：
# $\mathbb E\|\prod_l(I + \alpha J_l)v\|^2 \approx (1 + \alpha^2 c)^L\|v\|^2$。一阶公式则需要
# $L\alpha^2 c \ll 1$，例如 $\alpha = 1/L$（在最坏情形下，即各 $\Delta_l$ 方向一致、范数均为 $\delta$ 时，
# 余项只能以 $(1+\delta)^L - 1 - L\delta$ 为上界，这要求 $L\delta \ll 1$）。在 $\alpha = 1/\sqrt L$ 时乘积有界，
# 但一阶公式的误差约为乘积范数的一半（$r \approx 0.51$；一阶部分占均方的
# $2/e \approx 74\,\%$）。[勘误 A14](../../ERRATA.zh.md#a14)
#
# </details>
#
# <details><summary>§4.3.2：NTK 如何随深度增长（勘误 A15）</summary>
#
# **教材原文：** ResNet 的 NTK 在各块之间*线性*累积（「线性累积性」），
# 「即使网络非常深，其核也不会退化」，其有效深度按 $L$ 增长。
#
# **正确的说法：** 每个块都把前向方差和反向信号乘以 $1 + \gamma$，因此对 ReLU 取
# $\alpha = 1$、$\sigma_w^2 = 2$ 时 NTK 按 $2^L$ 增长，即指数增长，归一化的核也像 MLP 的一样退化。
# 取 $\alpha = 1/\sqrt L$ 时，它在 $\sigma_w^2 = 2$ 下趋于 $3e\,q_0$（一般情形为 $e^{\sigma_w^2/2}(2 + \sigma_w^2/2)\,q_0$）；
# 取 $\alpha = 1/L$ 时趋于 $2q_0$。
# [勘误 A15](../../ERRATA.zh.md#a15)
#
# </details>
#
# <details><summary>§4.3.3：O(√L) 的量级估算（勘误 A16）</summary>
#
# **教材原文：** 取 $\alpha = 1/\sqrt L$ 时，「每个块对总梯度的贡献是」$O(1/\sqrt L)$，因此总量为
# $\sum_l O(1/\sqrt L) = O(\sqrt L)$。
#
# **正确的说法：** NTK 是梯度平方对参数的求和。每个块的部分是
# $\alpha^2$ 的量级，所以取 $\alpha = 1/\sqrt L$ 时全部块给出 $L \cdot \alpha^2 \cdot O(1) = O(1)$（$L = 4$ 时占
# $\Theta(x, x)$ 的 0.286，$L = 16$ 时占 0.320，极限为 $1/3$）。[勘误 A16](../../ERRATA.zh.md#a16)
#
# </details>
#
# <details><summary>综述 §5.1：残差连接与独立同分布假设（勘误 B21）</summary>
#
# **综述原文：** 「残差连接打破了独立同分布假设」，这使 NTK 分析变得复杂。
#
# **正确的说法：** ResNet 的 NTK 是良定义的，且已有系统分析（Huang et al. 2020；Hayou et al. 2021），
# Tensor Programs 框架（Yang 2019, 2020）也涵盖残差网络。在无限宽极限下跳连与分支互不相关，
# 因此递归只是把两者的协方差相加，有限宽网络也与它吻合（见“有限宽网络与之一致”一节）。[勘误 B21](../../ERRATA.zh.md#b21)
#
# </details>
#
# **练习：** 4.3（ResNet NTK 的深度缩放）。
#
# **下一课：** [05a · 归一化](05a_normalization.ipynb)
