# %% [markdown]
# # 02 · MLP 的递归公式、核退化与混沌边缘
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/02_mlp_recursion.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F02_mlp_recursion.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../02_mlp_recursion.ipynb)）
#
# *教材第 4.1 节。*
#
# **本课内容**
# - 4.1.1：MLP 的 NNGP 核 $\Sigma$ 与神经正切核 $\Theta$ 如何逐层计算，以及为什么每一步都需要*三元组*
#   $(\Sigma(x,x), \Sigma(x',x'), \Sigma(x,x'))$；
# - 递归公式从何而来：预激活服从高斯分布；NTK 是对各层的求和，每一层的梯度都要经过它上方的各层反向传回
#   （并与宽度为 4096 的网络对照）；
# - 4.1.2：深层核实际上发生了什么（“核退化”），以及为什么本章给出的解释（单元失活或饱和）并不是真正的机制；
# - tanh 网络的有序/混沌相图，以及无偏置时方差消失的退化情形（$q^* = 0$）。
#
# **预备知识：** 第 01 课。

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %%
import functools
import math
import textwrap

import ipywidgets as widgets
import matplotlib.patheffects as patheffects
import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh
from ntk_helpers import self_kernels_by_depth, signal_regime

nh.plotting.use_style()

# %% [markdown]
# ## 4.1.1 递归公式
#
# 网络（NTK 参数化，$L$ 个宽度为 $m$ 的隐藏层，所有权重和偏置均服从 $\mathcal N(0,1)$）：
# $z^{(1)} = \frac{\sigma_w}{\sqrt d}W^{(1)}x + \sigma_b b^{(1)}$，然后
# $z^{(l+1)} = \frac{\sigma_w}{\sqrt m}W^{(l+1)}\phi(z^{(l)}) + \sigma_b b^{(l+1)}$，最后 $f = z^{(L+1)}$。
#
# 当 $m\to\infty$ 时，$z^{(l)}$ 的每个单元都是定义在输入上的高斯过程，其协方差为 $\Sigma^{(l)}$，并且
#
# $$\Sigma^{(1)}(x,x') = \sigma_w^2\,\tfrac{x\cdot x'}{d} + \sigma_b^2, \qquad \Theta^{(1)} = \Sigma^{(1)},$$
#
# $$\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2, \qquad
#   \dot\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)], \qquad
#   \Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\,\Theta^{(l)},$$
#
# 其中 $(u, v) \sim \mathcal N\!\left(0, \begin{pmatrix}\Sigma^{(l)}(x,x) & \Sigma^{(l)}(x,x')\\ \Sigma^{(l)}(x,x') & \Sigma^{(l)}(x',x')\end{pmatrix}\right)$
# （Jacot et al. 2018；Lee et al. 2019；Arora et al. 2019）。
#
# > **教材原文：** NNGP 核为 $K^{(l)}(x,x') = \mathbb E[\sigma(z_i^{(l)})\,\sigma(z_j^{(l)})]$，并且
# > $\Theta^{(l)} = K^{(l)} + \dot K^{(l-1)}\Theta^{(l-1)}$。  
# > **正确的说法：** 期望是对**同一个**单元在两个输入处的取值求的，即 $\mathbb E[\phi(z_i(x))\,\phi(z_i(x'))]$；
# > 两个不同的单元 $i\neq j$ 相互独立，它们的协方差为零。NTK 的递归步加上的是*预激活*的协方差，
# > 如上式所示，$\sigma_w^2$ 与 $\sigma_b^2$ 两项缺一不可
# > （[勘误 A1](../../ERRATA.zh.md#a1)、[A2](../../ERRATA.zh.md#a2)）。

# %% [markdown]
# ### 递归从何而来，第 1 步：高斯预激活
#
# 取第 $l+1$ 层的某个单元，并把它下方的一切都固定住：
#
# $$z_i^{(l+1)}(x) = \frac{\sigma_w}{\sqrt m}\sum_{j=1}^{m} W_{ij}\,\phi\bigl(z_j^{(l)}(x)\bigr) + \sigma_b\,b_i .$$
#
# - **许多独立项之和。** 给定第 $l$ 层，这是 $m$ 个相互独立、均值为零的项（每个权重 $W_{ij}$ 对应一项）
#   再加上独立的偏置。因此它在任意有限个输入处的取值服从联合高斯分布（权重为高斯时精确成立；
#   对任何方差为 1 的权重，则由中心极限定理在 $m\to\infty$ 时成立），其协方差为
#   $\sigma_w^2\,\frac1m\sum_j \phi(z_j^{(l)}(x))\,\phi(z_j^{(l)}(x')) + \sigma_b^2$。
# - **平均值变成确定的量。** 这个协方差是*对第 $l$ 层 $m$ 个单元的平均*。
#   如果这些单元是同一个协方差为 $\Sigma^{(l)}$ 的高斯过程的独立副本，大数定律就把这个平均变成
#   $\mathbb E[\phi(u)\phi(v)]$，$(u,v)\sim\mathcal N(0,\Lambda^{(l)})$，其中 $\Lambda^{(l)}$ 是由上面的三元组构成的
#   $2\times2$ 矩阵。随机的协方差变成了固定的协方差，由此得到
#   $\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2$。
# - **单元之间相互独立。** 第 $l+1$ 层的两个单元 $i\neq i'$ 使用相互独立的权重行和偏置：
#   $\mathbb E[z_i z_{i'}] = 0$，在极限下它们是同一过程的独立副本。这正是下一层求平均时所需要的（归纳法），
#   也是核只涉及*一个*单元在两个输入处取值的原因。
# - **起点。** $z^{(1)} = \frac{\sigma_w}{\sqrt d}Wx + \sigma_b b$ 精确服从高斯分布，且
#   $\Sigma^{(1)} = \sigma_w^2\,x\cdot x'/d + \sigma_b^2$。
#
# 在宽度为 $m = 4096$ 的**单个**网络上验证这一点（深度 2，ReLU，$\sigma_w^2 = 2$，$\sigma_b = 0.2$），
# 取两个长度不同的输入。先看递归公式对每一层的预测：

# %%
pair = torch.tensor([[1.0, 0.0, 0.0], [0.9, 1.5, 0.3]], dtype=torch.float64)   # (2, 3), |x| ≠ |x'|
sigma_w, sigma_b, width = math.sqrt(2), 0.2, 4096
hidden, activation = nh.dense(sigma_w=sigma_w, sigma_b=sigma_b), nh.relu()

predicted_sigma, predicted_sigma_dot = [], []   # Σ^(l), l = 1, 2, 3, and Σ̇^(l+1), l = 1, 2: (2, 2) each
k = nh.Kernel.from_inputs(pair)
for layer in (1, 2, 3):
    k = hidden.transform(k)                                                   # Σ^(l): covariance of z^(l)
    predicted_sigma.append(k.nngp)
    if layer < 3:                                                             # layer 3 is the readout f
        e_dot = activation.dual(k.var1[:, None], k.var1[None, :], k.nngp)[1]
        predicted_sigma_dot.append(sigma_w ** 2 * e_dot)                # Σ̇^(l+1) = σ_w² E[φ'(u)φ'(v)]
        k = activation.transform(k)

# %% [markdown]
# 现在看网络本身。它的模块由全连接层与 ReLU 交替组成；每个全连接层的输出都是预激活 $z^{(l)}$
# （最后一个就是 $f$）：

# %%
wide = nh.mlp(2, "relu", sigma_w=sigma_w, sigma_b=sigma_b).network(3, width=width, seed=0)
preactivations, h = [], pair
for index, module in enumerate(wide):               # dense, relu, dense, relu, dense(1)
    h = module(h)
    if index % 2 == 0:
        preactivations.append(h)                    # z^(1), z^(2): (2, 4096); f = z^(3): (2, 1)
print(wide)

# %% [markdown]
# 同一层的 4096 个单元（近似）是该层高斯过程的独立样本，所以 $z_i(x)\,z_i(x')$ 在各单元上的平均值
# 是 $\Sigma^{(l)}(x,x')$ 的估计，其标准误 SE =（乘积的标准差）/$\sqrt m$。我们以 **6 SE** 为容差：
# 下方各层的宽度也是有限的，而且我们在 12 个随机种子上测得，第 2 层误差的波动约为朴素 SE 的 1.6 倍。

# %%
def unit_average(products):
    """Mean over the units of a layer and its standard error."""
    return float(products.mean()), float(products.std() / math.sqrt(products.numel()))


print(f"{'layer':<7}{'entry':<10}{'predicted':>10}{'measured':>10}{'6 SE':>8}")
for layer in (1, 2):
    z = preactivations[layer - 1].detach()
    for a, b, entry in ((0, 0, "(x, x)"), (1, 1, "(x′, x′)"), (0, 1, "(x, x′)")):
        measured, se = unit_average(z[a] * z[b])
        expected = float(predicted_sigma[layer - 1][a, b])
        print(f"{layer:<7}{entry:<10}{expected:>10.4f}{measured:>10.4f}{6 * se:>8.4f}")
        assert abs(measured - expected) < 6 * se, (
            f"Σ^({layer}){entry}: expected {expected:.4f} ± {6 * se:.4f} (6 SE), measured {measured:.4f}")

# %% [markdown]
# 而且这些单元看起来确实服从高斯分布：4096 个值 $z_i^{(2)}(x')$ 的直方图，与
# $\mathcal N(0, \Sigma^{(2)}(x',x'))$ 的密度对照。

# %%
units = preactivations[1][1].detach()                                          # z^(2)(x′): (4096,)
variance = float(predicted_sigma[1][1, 1])
grid = torch.linspace(-4, 4, 201, dtype=torch.float64) * math.sqrt(variance)
fig, ax = plt.subplots()
heights, _, _ = ax.hist(units, bins=60, density=True, alpha=0.5, label=f"{width} units of one network")
ax.plot(grid, torch.exp(-grid ** 2 / (2 * variance)) / math.sqrt(2 * math.pi * variance),
        label="N(0, Σ⁽²⁾(x′,x′)) from the recursion")
peak = max(float(heights.max()), 1 / math.sqrt(2 * math.pi * variance))
ax.set_ylim(0, 1.35 * peak)                                                    # room for the legend
ax.set_xlabel("pre-activation z⁽²⁾ᵢ(x′)")
ax.set_ylabel("probability density")
ax.legend(loc="upper left")
plt.show()

# %%
inside = float((units.abs() < math.sqrt(variance)).double().mean())
gaussian_inside = math.erf(1 / math.sqrt(2))                                   # P(|u| < 1 sd) = 0.6827
tolerance = 6 * math.sqrt(gaussian_inside * (1 - gaussian_inside) / width)
print(f"fraction of units within one standard deviation: {inside:.4f} (Gaussian: {gaussian_inside:.4f})")
assert abs(inside - gaussian_inside) < tolerance, (
    f"fraction within 1 sd: expected {gaussian_inside:.4f} ± {tolerance:.4f} (6 SE), measured {inside:.4f}")

# %% [markdown]
# ### 递归从何而来，第 2 步：逐层看 NTK
#
# NTK 是对所有参数的求和，$\Theta(x,x') = \sum_p \partial_p f(x)\,\partial_p f(x')$，因此可以按层拆成若干项，
# $\Theta = \sum_{l=1}^{L+1}\Theta_l$。记 $h^{(0)} = x$（宽度 $m_0 = d$），$h^{(l)} = \phi(z^{(l)})$，
# $z^{(l)} = \frac{\sigma_w}{\sqrt{m_{l-1}}}W^{(l)}h^{(l-1)} + \sigma_b b^{(l)}$，并令
# $\delta^{(l)}(x) = \partial f(x)/\partial z^{(l)}(x)$ 为反向传播送到第 $l$ 层的信号。
# 由于 $\partial f/\partial W^{(l)}_{ij} = \delta^{(l)}_i\,\sigma_w h^{(l-1)}_j/\sqrt{m_{l-1}}$ 且
# $\partial f/\partial b^{(l)}_i = \sigma_b\,\delta^{(l)}_i$，
#
# $$\Theta_l(x,x') = \underbrace{\bigl\langle\delta^{(l)}(x),\delta^{(l)}(x')\bigr\rangle}_{\text{反向}}\;
#   \underbrace{\Bigl(\sigma_w^2\,\tfrac{h^{(l-1)}(x)\cdot h^{(l-1)}(x')}{m_{l-1}} + \sigma_b^2\Bigr)}_{\text{前向}\;\to\;\Sigma^{(l)}} .$$
#
# 前向因子就是第 1 步中的协方差，所以它趋于 $\Sigma^{(l)}$。在读出层
# $\delta^{(L+1)} = 1$：**最后一层贡献 $\Sigma^{(L+1)}$**。往下走一层，链式法则给出
# $\delta^{(l)} = \phi'(z^{(l)})\odot\frac{\sigma_w}{\sqrt m}W^{(l+1)\top}\delta^{(l+1)}$，因此
#
# $$\bigl\langle\delta^{(l)}(x),\delta^{(l)}(x')\bigr\rangle = \sigma_w^2\;\frac1m\sum_{j=1}^m
#   \phi'\bigl(z^{(l)}_j(x)\bigr)\phi'\bigl(z^{(l)}_j(x')\bigr)\,
#   \bigl[W^{(l+1)\top}\delta^{(l+1)}(x)\bigr]_j\bigl[W^{(l+1)\top}\delta^{(l+1)}(x')\bigr]_j .$$
#
# - 前向传播中的因子 $\sigma_w/\sqrt m$ 出现了两次：$\sigma_w^2$ 保留下来，而 $1/m$ 把对各单元的求和
#   变成了平均。
# - 权重的方差为 1，所以对 $j$ 取平均后，两个方括号因子给出
#   $\langle\delta^{(l+1)}(x),\delta^{(l+1)}(x')\rangle$。（在反向传播中把 $W$ 当作与前向传播相互独立，
#   这在极限下是精确的；Yang 2020，*Tensor Programs II*。）大数定律把 $\phi'\phi'$ 的平均变成
#   $\mathbb E[\phi'(u)\phi'(v)]$。
#
# 因此，上方的每一层都把反向内积乘以梯度传播因子 $\dot\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)]$，
# 于是
#
# $$\Theta = \sum_{l=1}^{L+1}\Sigma^{(l)}\prod_{k=l+1}^{L+1}\dot\Sigma^{(k)},$$
#
# 这正是递归式 $\Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\Theta^{(l)}$ 展开后的形式。
# 在同一个网络上逐项对照。先看按层的拆分（用 autograd，每次对一个输出求导）：

# %%
outputs = preactivations[2][:, 0]                                              # f(x), f(x′)
parameters = list(wide.parameters())
gradients = [torch.autograd.grad(outputs[n], parameters + preactivations[:2], retain_graph=True)
             for n in (0, 1)]                       # ∂f/∂θ for every parameter, then δ^(1), δ^(2)
layer_of = [int(name.split(".")[0]) // 2 for name, _ in wide.named_parameters()]   # modules 0, 2, 4 → 0, 1, 2
per_layer = torch.zeros(3, dtype=torch.float64)
for layer, gradient_x, gradient_x2 in zip(layer_of, gradients[0], gradients[1]):
    per_layer[layer] += (gradient_x * gradient_x2).sum()
empirical = float(nh.empirical_ntk(wide, pair)[0, 1])
print(f"Θ(x,x′): sum of the three layers {float(per_layer.sum()):.4f}, nh.empirical_ntk {empirical:.4f}")
assert abs(float(per_layer.sum()) - empirical) <= 1e-10 * abs(empirical), (
    f"sum over layers: expected {empirical:.6f} (nh.empirical_ntk), measured {float(per_layer.sum()):.6f}")

# %% [markdown]
# 最后一层的项是读出层输入的经验协方差 $\sigma_w^2\,h\cdot h'/m + \sigma_b^2$，它趋于 $\Sigma^{(3)}$：

# %%
h2 = torch.relu(preactivations[1].detach())                                    # h^(2): (2, 4096)
forward, se = unit_average(sigma_w ** 2 * h2[0] * h2[1])
expected = float(predicted_sigma[2][0, 1])
print(f"last layer: gradient inner product {float(per_layer[2]):.4f}, "
      f"σ_w² h·h′/m + σ_b² {forward + sigma_b ** 2:.4f}, Σ⁽³⁾(x,x′) {expected:.4f} ± {6 * se:.4f} (6 SE)")
assert abs(float(per_layer[2]) - (forward + sigma_b ** 2)) <= 1e-10 * abs(forward), (
    f"readout term: expected {forward + sigma_b ** 2:.6f}, measured {float(per_layer[2]):.6f}")
assert abs(float(per_layer[2]) - expected) < 6 * se, (
    f"readout term vs Σ^(3): expected {expected:.4f} ± {6 * se:.4f}, measured {float(per_layer[2]):.4f}")

# %% [markdown]
# 每一层的反向因子：$\sigma_w^2$ 乘以 $\phi'(z_j(x))\,\phi'(z_j(x'))$ 在各单元上的平均（对 ReLU，$\phi'$ 是阶跃函数
# $z > 0$），与 $\dot\Sigma$ 对照；旁边列出它所代表的反向传播内积之比
# $\langle\delta^{(l)},\delta^{(l)\prime}\rangle / \langle\delta^{(l+1)},\delta^{(l+1)\prime}\rangle$。
# 单元平均值以 $\dot\Sigma$ 为准进行检验（6 个标准误）；比值只展示、不检验：在这个宽度下，
# 每个比值都有百分之几的波动。

# %%
def backward_inner(layer):
    """⟨δ^(l)(x), δ^(l)(x′)⟩ from autograd; δ^(3) = ∂f/∂f = 1."""
    if layer == 3:
        return 1.0
    return float(gradients[0][len(parameters) + layer - 1][0] @ gradients[1][len(parameters) + layer - 1][1])


print(f"{'layer':<7}{'Σ̇ predicted':>13}{'σ_w² mean φ′φ′':>16}{'6 SE':>8}{'ratio of ⟨δ,δ′⟩':>17}")
for layer in (1, 2):
    step = (preactivations[layer - 1].detach() > 0).double()                  # φ'(z) for ReLU
    measured, se = unit_average(sigma_w ** 2 * step[0] * step[1])
    expected = float(predicted_sigma_dot[layer - 1][0, 1])                      # Σ̇^(l+1)(x, x′)
    ratio = backward_inner(layer) / backward_inner(layer + 1)
    print(f"{layer:<7}{expected:>13.4f}{measured:>16.4f}{6 * se:>8.4f}{ratio:>17.4f}")
    assert abs(measured - expected) < 6 * se, (
        f"Σ̇^({layer + 1})(x,x′): expected {expected:.4f} ± {6 * se:.4f} (6 SE), measured {measured:.4f}")

# %% [markdown]
# 最后，把每一层的项与 $\Sigma^{(l)}\prod_{k>l}\dot\Sigma^{(k)}$ 对照，并把它们的和与解析 NTK 对照。
# 单个有限网络的 NTK 在极限值附近波动，相对标准差约为 $\sqrt{5L/m}$
# （Hanin & Nica 2020，针对无偏置 ReLU 网络的对角元），这里为 4.9%；我们在 12 个随机种子上对这个元素测得 5.4%。
# 各层的项只展示、不检验：在这个宽度下，每一项都有百分之几的波动（这里最多约 8%）。
# 只有总和接受检验，容差为 $\sqrt{5L/m}$ 的 4 倍。

# %%
cross = lambda matrices: [float(m[0, 1]) for m in matrices]                     # the (x, x′) entries
predicted_terms = [sigma * math.prod(cross(predicted_sigma_dot)[l:])            # Σ^(l) ∏_{k>l} Σ̇^(k)
                   for l, sigma in enumerate(cross(predicted_sigma))]
analytic = float(nh.mlp(2, "relu", sigma_w=sigma_w, sigma_b=sigma_b).kernel(pair).ntk[0, 1])
for layer in range(3):
    print(f"layer {layer + 1}: gradient inner product {float(per_layer[layer]):.4f}, "
          f"Σ⁽ˡ⁾ ∏ Σ̇ {predicted_terms[layer]:.4f}")
relative_error = float(per_layer.sum()) / analytic - 1
tolerance = 4 * math.sqrt(5 * 2 / width)
print(f"total: width {width} {float(per_layer.sum()):.4f}, analytic NTK {analytic:.4f} "
      f"(relative error {relative_error:+.3f}, tolerance ±{tolerance:.3f})")
assert abs(sum(predicted_terms) - analytic) <= 1e-12 * analytic, (
    f"unrolled sum: expected {analytic:.6f} (recursion), measured {sum(predicted_terms):.6f}")
assert abs(relative_error) < tolerance, (
    f"finite-width NTK: expected relative error within ±{tolerance:.3f}, measured {relative_error:+.3f}")

# %% [markdown]
# ### 逐步演示
#
# 本软件包中的层*就是*这个递归：`dense(...).transform(k)` 是第一个公式，激活函数的 `transform` 是求期望的那一步。
# 下面跟踪两个长度不同的输入穿过深度为 3 的 ReLU 网络的过程。
# （经过激活函数之后，Θ 列中存放的是 $\mathbb E[\phi'\phi']\,\Theta$，即下一个全连接层要乘以 $\sigma_w^2$ 的那一部分。）

# %%
depth = 3
readout = nh.dense(1, sigma_w=sigma_w, sigma_b=sigma_b)           # hidden, activation and pair as above

k = nh.Kernel.from_inputs(pair)
print(f"{'step':<10}{'Σ(x,x)':>9}{'Σ(x′,x′)':>10}{'Σ(x,x′)':>10}{'Θ(x,x′)':>10}")
for step, layer in enumerate([hidden, activation] * depth + [readout]):
    k = layer.transform(k)
    name = "dense" if layer in (hidden, readout) else "relu"
    print(f"{step + 1:>2} {name:<7}{k.var1[0]:9.4f}{k.var2[1]:10.4f}{k.nngp[0, 1]:10.4f}{k.ntk[0, 1]:10.4f}")

# %%
same = nh.mlp(depth, "relu", sigma_w=sigma_w, sigma_b=sigma_b).kernel(pair)
gap = max(float((same.ntk - k.ntk).abs().max() / k.ntk.abs().max()),
          float((same.nngp - k.nngp).abs().max() / k.nngp.abs().max()))
assert gap <= 1e-12, f"nh.mlp(...).kernel vs the loop: expected the same kernels, relative gap {gap:.1e}"

# %% [markdown]
# ### 为什么需要三元组
#
# 求期望的那一步需要两个方差。有一种图省事的做法：两个输入都用 $\Sigma(x,x)$。
# 下面把它与真实值对照。真实值按推导第 1 步的方法测量：取有 $2^{20}$ 个单元的随机层，
# $\sigma_w^2$ 乘以 $\phi(z_j(x))\,\phi(z_j(x'))$ 在各单元上的平均，再加上 $\sigma_b^2$，
# 就是下一层看到的协方差 $\Sigma^{(2)}(x,x')$。

# %%
correct = float(nh.serial(hidden, activation, readout).kernel(pair).nngp[0, 1])       # Σ^(2)(x, x′)

k1 = hidden.transform(nh.Kernel.from_inputs(pair))
shortcut_e, _ = activation.dual(k1.var1[0], k1.var1[0], k1.nngp[0, 1])      # wrong: var(x) twice
shortcut = sigma_w ** 2 * float(shortcut_e) + sigma_b ** 2

units = nh.serial(hidden, activation).network(3, width=2 ** 20, seed=0)(pair).detach()  # φ(z^(1)): (2, 2^20)
monte_carlo, se = unit_average(sigma_w ** 2 * units[0] * units[1] + sigma_b ** 2)
print(f"Σ(x,x′): correct {correct:.4f}, shortcut {shortcut:.4f}, wide layer {monte_carlo:.4f} "
      f"± {6 * se:.4f} (6 SE)")
assert abs(monte_carlo - correct) < 6 * se, (
    f"wide layer vs the triple: expected {correct:.4f} ± {6 * se:.4f}, measured {monte_carlo:.4f}")
assert abs(shortcut - correct) > 6 * se, (
    f"the shortcut should miss by more than 6 SE = {6 * se:.4f}; it misses by {abs(shortcut - correct):.4f}")

# %% [markdown]
# ### 有限网络与之吻合
#
# 在 8 个随机种子上取平均，宽度为 1024 的网络的 NTK 与递归公式的结果一致：

# %%
x = nh.sphere(12, d=5, seed=0)
arch = nh.mlp(3, "relu", sigma_w=sigma_w, sigma_b=sigma_b)
sweep = nh.width_sweep(arch, x, widths=[1024], seeds=8)
analytic = arch.kernel(x).ntk
error = float((sweep.mean_ntk[0] - analytic).norm() / analytic.norm())
print(f"relative error: one network {sweep.errors.mean():.3f}, mean of 8 networks {error:.3f}")
assert error < 0.05, f"mean NTK of 8 networks: expected relative error < 0.05, measured {error:.3f}"

# %% [markdown]
# ## 4.1.2 核退化：深度增加时实际发生了什么
#
# > **教材原文：** 深层核之所以退化，是因为单元失活（ReLU）或饱和（tanh），即
# > 「大部分隐藏单元饱和或失活（即进入“死区”）」，于是 $\dot K \to 0$，
# > NTK「变得几乎不变或收敛到低秩结构」。  
# > **正确的说法：** 对采用标准初始化 $\sigma_w^2 = 2, \sigma_b = 0$ 的 ReLU 网络，平均而言并没有单元“失活”：
# > $\dot\Sigma(x,x) = 1$ 精确成立，方差 $q$ 在每一层都保持不变。改变的是输入之间的**夹角**：
# > 相关映射在 $c=1$ 处的不动点是临界稳定（marginally stable）的，因此相关系数按
# > $1 - c_l \approx 9\pi^2/(2l^2)$ 缓慢地趋向 1。于是 NNGP 核趋于常数（秩为一），而 NTK 趋于
# > $(L+1)\,q\,\bigl[\tfrac34 I + \tfrac14 \mathbf 1\mathbf 1^\top\bigr]$，它是**满秩**的
# > （[勘误 A3](../../ERRATA.zh.md#a3)、[A4](../../ERRATA.zh.md#a4)）。
#
# 首先看各深度下的反向因子 $\dot\Sigma(x,x)$：

# %%
q = torch.tensor([1.0, 2.0, 5.0], dtype=torch.float64)
relu_dual = nh.relu()
sigma_dot_diag = 2.0 * relu_dual.diagonal(q)[1]           # σ_w² E[φ'(u)²] with σ_w² = 2
variance_next = 2.0 * relu_dual.diagonal(q)[0]            # σ_w² E[φ(u)²]
print("Σ̇(x,x) =", sigma_dot_diag.numpy(), "  q → q:", variance_next.numpy())
deviation = max(float((sigma_dot_diag - 1).abs().max()), float(((variance_next - q) / q).abs().max()))
assert deviation <= 1e-12, (
    f"ReLU at σ_w² = 2: expected Σ̇(x,x) = 1 and q → q, measured a relative deviation of {deviation:.1e}")

# %% [markdown]
# ### 相关映射
#
# 方差固定后，一层网络把两个输入的相关系数 $c$ 映射为
# $c' = \bigl(\sqrt{1-c^2} + (\pi - \arccos c)\,c\bigr)/\pi$。它唯一的不动点是 $c^* = 1$，且在该点的斜率恰好为 1。

# %%
c = torch.linspace(-1, 1, 201, dtype=torch.float64)
fig, ax = plt.subplots(figsize=(4.8, 4.2))
ax.plot(c, nh.correlation_map(c, "relu"), label="ReLU, σ_w² = 2")
ax.plot(c, c, "k--", lw=1, label="c′ = c")
ax.set_xticks([-1, -0.5, 0, 0.5, 1])
ax.set_yticks([-1, -0.5, 0, 0.5, 1])
ax.set_xlabel("correlation c at layer l")
ax.set_ylabel("correlation c′ at layer l + 1")
ax.legend()
plt.show()

# %%
h = 1e-6
slope_at_one = float((1 - nh.correlation_map(torch.tensor(1 - h, dtype=torch.float64), "relu")) / h)
print(f"slope of the map at c = 1: {slope_at_one:.5f}")
assert abs(slope_at_one - 1) < 1e-3, (           # the finite difference itself is off by about 0.3 √h = 3e-4
    f"slope at c = 1: expected 1 ± 1e-3 (finite difference, h = 1e-6), measured {slope_at_one:.5f}")

# %% [markdown]
# 斜率为 1 意味着*缓慢的*、多项式速度的逼近：$1 - c_l \approx 9\pi^2/(2 l^2)$。

# %%
layers = torch.arange(0, 1001)
trajectory = nh.correlation_trajectory(torch.tensor([0.0], dtype=torch.float64), 1000, "relu")[:, 0]
fig, ax = plt.subplots()
ax.loglog(layers[1:], 1 - trajectory[1:], label="1 − c_l (orthogonal inputs)")
ax.loglog(layers[10:], 9 * math.pi ** 2 / (2 * layers[10:] ** 2), "k--", lw=1, label="9π²/(2l²)")
ax.set_xlabel("layer l")
ax.set_ylabel("1 − c_l")
ax.legend()
plt.show()

# %%
ratio = float((1 - trajectory[1000]) * 1000 ** 2 / (9 * math.pi ** 2 / 2))
print(f"(1 − c_l) / (9π²/2l²) at l = 1000: {ratio:.3f}")
assert 0.9 < ratio < 1.0, f"(1 − c_l) l²/(9π²/2) at l = 1000: expected in (0.9, 1), measured {ratio:.3f}"

# %% [markdown]
# ### NNGP → 常数，NTK → ¾ I + ¼ 11ᵀ
#
# 两个正交输入的归一化 NTK 元素 $\Theta(x,x')/\Theta(x,x)$ 趋于 $\int_0^1 u^3\,du = 1/4$：
# 第 $l$ 层贡献 $\Sigma^{(l)}\prod_{k>l}\dot\Sigma^{(k)}$，而对于几乎平行的输入，
# 非对角元上 $\dot\Sigma^{(k)}\approx 1 - 3/k$，对角元上则恰好为 1。

# %%
orthogonal = nh.pair_at_angle(math.pi / 2, d=2)
deep = nh.mlp_kernels_by_depth(orthogonal, depth=1000, activation="relu")
ntk_corr = deep.ntk[:, 0, 1] / deep.ntk[:, 0, 0]
nngp_corr = deep.nngp[:, 0, 1] / deep.nngp[:, 0, 0]
fig, ax = plt.subplots()
ax.semilogx(deep.depths, nngp_corr, label="NNGP  Σ(x,x′)/Σ(x,x)")
ax.semilogx(deep.depths, ntk_corr, label="NTK  Θ(x,x′)/Θ(x,x)")
ax.axhline(0.25, color="k", ls="--", lw=1, label="1/4")
ax.set_xlabel("depth L")
ax.set_ylabel("normalized kernel, orthogonal inputs")
ax.legend()
plt.show()

# %%
print(f"depth 1000: NNGP {nngp_corr[-1]:.4f}, NTK {ntk_corr[-1]:.4f}; "
      f"Θ(x,x) = {deep.ntk[-1, 0, 0]:.0f} = (L+1)·q")
assert nngp_corr[-1] > 0.999, f"normalized NNGP at depth 1000: expected > 0.999, measured {nngp_corr[-1]:.4f}"
assert abs(ntk_corr[-1] - 0.2533) < 2e-3, (        # 0.2533 at L = 1000, tending to 1/4 like 1/L
    f"normalized NTK at depth 1000: expected 0.2533 ± 0.002, measured {ntk_corr[-1]:.4f}")
theta_diagonal = float(deep.ntk[-1, 0, 0])
assert abs(theta_diagonal / (1001 * 2.0) - 1) <= 1e-12, (
    f"Θ(x,x) at depth 1000: expected (L+1) q = 2002 exactly, measured {theta_diagonal:.6f}")

# %% [markdown]
# “常数加白噪声”是满秩的。在 50 个随机点上，它的有效秩趋近 $16n/(n+15)$，而 NNGP 的有效秩降到 1：

# %%
points = nh.sphere(50, d=10, seed=2)
deep50 = nh.mlp_kernels_by_depth(points, depth=500, activation="relu")
r_ntk = nh.effective_rank(nh.normalize(deep50.ntk[-1]))
r_nngp = nh.effective_rank(deep50.nngp[-1])
limit = 16 * 50 / 65
smallest = float(nh.eigenvalues(nh.normalize(deep50.ntk[-1]))[-1])
print(f"depth 500, n = 50: r_eff(NTK) = {r_ntk:.2f} (limit 16n/(n+15) = {limit:.2f}), "
      f"r_eff(NNGP) = {r_nngp:.4f}")
print(f"smallest eigenvalue of the normalized NTK: {smallest:.3f} (limit 3/4)")
assert abs(r_ntk / limit - 1) < 0.1, f"r_eff(NTK): expected {limit:.2f} ± 10%, measured {r_ntk:.2f}"
assert r_nngp < 1.01, f"r_eff(NNGP) at depth 500: expected < 1.01 (→ 1), measured {r_nngp:.4f}"

# %% [markdown]
# ### 核退化的代价：泛化
#
# > **教材原文：** 核退化意味着很深的网络「其函数空间几乎与浅层网络相同，甚至比浅层网络更简单」。  
# > **正确的说法：** 深层 NTK 仍然能拟合每个训练点（它是满秩的），但在训练集之外，
# > 它的预测趋于平坦、接近常数。测试误差随深度增大（[勘误 A5](../../ERRATA.zh.md#a5)）。
#
# 我们用 NTK 做核回归，$\hat f(x) = \Theta(x,X)\,\Theta(X,X)^{-1}y$。它是无限宽网络（在平方损失上做梯度下降）
# 训练到收敛后、对随机初始化取平均得到的**平均**预测，即无限集成（infinite ensemble）。
# *单个*这样的网络的预测是
# $f_0(x) + \Theta(x,X)\,\Theta(X,X)^{-1}\bigl(y - f_0(X)\bigr)$，其中 $f_0$ 是它在初始化时的随机函数
# （Lee et al. 2019）。当 $f_0 = 0$ 时两者一致：即减去初始输出，或者采用反对称初始化
# （网络的两个副本使用符号相反的输出权重，它们的输出在开始时相互抵消）。
# 第 [07](07_training_dynamics.ipynb) 课（第 4 节）把训练后的网络与这个集成作比较。
# 目标函数是球面 $S^9$ 上的光滑函数；100 个训练点，200 个测试点：

# %%
data = nh.sphere(300, d=10, seed=1)
direction_a, direction_b = nh.sphere(2, d=10, seed=7) / math.sqrt(10)
target = lambda X: torch.cos(2 * X @ direction_a / math.sqrt(10)) + X @ direction_b / math.sqrt(10)
y = target(data)
train, test = slice(0, 100), slice(100, 300)
depths = [1, 2, 5, 20, 50]
by_depth = nh.mlp_kernels_by_depth(data, depth=max(depths), activation="relu")
test_mse = []
for L in depths:
    K = by_depth.ntk[L - 1]
    prediction = nh.kernel_regression(K[train, train], K[test, train], y[train])
    test_mse.append(float(((prediction - y[test]) ** 2).mean()))
print("depth:   ", depths)
print("test MSE:", np.round(test_mse, 4), f"  (variance of y: {float(y[test].var()):.3f})")

# %%
fig, ax = plt.subplots()
ax.semilogy(depths, test_mse, "o-", label="NTK regression")
ax.axhline(float(y[test].var()), color="k", ls="--", lw=1, label="predict the mean")
ax.set_xlabel("depth L")
ax.set_ylabel("test MSE")
ax.legend()
plt.show()

# %%
assert all(a < b for a, b in zip(test_mse, test_mse[1:])), f"expected MSE growing with depth, got {test_mse}"
assert test_mse[-1] > 10 * test_mse[0], (
    f"test MSE at depth 50 vs depth 1: expected a ratio > 10, measured {test_mse[-1] / test_mse[0]:.1f}")

# %% [markdown]
# ### 关于 ResNet 的一条经验法则
#
# > **教材原文：** 「具有 ReLU 激活和标准参数化的深层 MLP，在无限宽极限下容易发生核退化」，
# > 这是「ResNet 结构诞生的理论动机之一」，其跳连（skip connection）用来对抗这种退化。  
# > **正确的说法：** 残差网络是为解决*退化问题*（degradation problem）而提出的：超过一定深度后，
# > 普通网络的*训练误差*反而比较浅的网络更高。这是优化上的困难，恒等跳连（identity shortcut）消除了它（He et al. 2016）；
# > 无限宽极限下的核与此毫无关系。从 NTK 退化的角度来理解深度是后来的事
# > （Huang et al. 2020；Hayou et al. 2021）：残差分支经过适当缩放时，核不会随深度退化。
# > 分支不缩放（$\alpha = 1$）时核仍然会退化：归一化核与 MLP 的一样随深度退化，而其大小呈指数增长
# > （[勘误 A15](../../ERRATA.zh.md#a15)）；分支必须按 $1/\sqrt L$ 缩放。
# > 第 [04 · 残差网络](04_resnet.ipynb) 课对此做了测量（[勘误 A6](../../ERRATA.zh.md#a6)）。

# %% [markdown]
# ### 动手探索：深度、激活函数、尺度
#
# 曲线给出固定输入 $x$ 与同一圆周上夹角为 $\theta$ 的输入 $x'$ 之间的归一化 NTK $\Theta(x,x')/\Theta(x,x)$（实线）
# 和归一化 NNGP $\Sigma(x,x')/\Sigma(x,x)$（虚线）。图中画出所选深度的曲线，并以深度 1 的曲线作对照
# （浅色；深度为 1 时只有一组曲线）。
# 图的上方有一行文字，根据 $q^*$ 和 $\chi_1$ 指出当前设置所处的区域（见下文“有序与混沌”）；
# 读数给出两个核在 60° 处的值，此时两个输入的相关系数为 0.5。可以尝试：
#
# - **ReLU，$\sigma_b = 0$**：每个 $\sigma_w$ 都给出同样的图像。$\sigma_w$ 滑块在 1.40 与 1.45 之间设有精确值
#   $\sqrt 2$（默认值，$\sigma_w^2 = 2$：方差保持不变，即“混沌边缘”）；其他取值会使方差缩小或增大，
#   但归一化曲线保持不变。ReLU 是正齐次的，所以尺度 $q$ 从归一化核中消去：
#   这就是上面的相关映射所描述的、多项式速度的缓慢退化。
#   有偏置且 $\sigma_w^2 < 2$ 时 ReLU 处于有序相；$\sigma_w^2 > 2$ 时方差无界增长，偏置逐渐变得无关紧要。
# - **带偏置的 tanh 或 erf**，例如 $\sigma_b = 0.5$：小的 $\sigma_w$ 处于**有序相**：当深度 → ∞ 时，
#   所有相关系数都趋于 1，深度尺度为图上方打印的 $-1/\ln\chi_1$（$\sigma_w = 1$ 时为 2 层，
#   而在接近边缘的 $\sigma_w = 1.5$ 时约为 30 层）。NTK 比 NNGP 更慢到达那里，所以在图中显示的深度上，
#   它看起来可能仍像常数加对角矩阵。大的 $\sigma_w$ 处于**混沌相**（NNGP 稳定在 $c^* < 1$，
#   NTK 在 $\theta = 0$ 以外趋于 0）。在 $\chi_1 = 1$ 附近，那一行文字显示**混沌边缘**：
#   此时相关系数只会缓慢移动，视所在的一侧趋向 1 或趋向 $c^*$。
# - **无偏置的 tanh 或 erf**，且 $\sigma_w$ 较小（$\sigma_w^2\phi'(0)^2 \le 1$，其中 tanh 的 $\phi'(0) = 1$，
#   erf 的为 $2/\sqrt\pi$）：这是 $q^* = 0$ 的**退化**情形：方差逐渐消失，预激活缩小到 $\phi$ 呈线性的范围内，
#   曲线几乎不随深度变化。这不是有序：没有偏置就不存在有序相。$\sigma_w$ 超过这个值后，无偏置网络处于混沌相，
#   $c^* = 0$（刚超过时那一行文字显示混沌边缘：$\chi_1$ 只是略大于 1，相关系数缓慢漂移到 0）。
#   无偏置的奇激活函数还会给出奇的核：$\theta$ 与 $180° - \theta$ 处的值只差一个符号。
#
# 角度止于 175°：在无偏置的奇函数网络中，方向完全相反的两个输入的相关系数永远保持为 $-1$；
# 而在混沌相中，核公式会把它们的舍入误差每层放大 $\chi_1$ 倍。

# %%
ring_degrees = torch.arange(0, 180, 5, dtype=torch.float64)                       # 0°, 5°, ..., 175°
ring = torch.stack([torch.deg2rad(ring_degrees).cos(), torch.deg2rad(ring_degrees).sin()], 1) * math.sqrt(2)
AT_60 = 12                                                                        # ring_degrees[12] = 60°


@functools.lru_cache(maxsize=32)
def normalized_by_angle(activation, sigma_w, sigma_b, max_depth=100):
    """Normalized NNGP and NTK from ring[0] to every ring point, depths 1..max_depth: (max_depth, 36) each.

    |x|² = d = 2, so x·x/d = 1. Each kernel is divided by its value for the input with itself, computed
    from the variance map alone (self_kernels_by_depth): exact even in the chaotic phase, where a cross
    kernel of two identical inputs would drift.
    """
    kwargs = dict(depth=max_depth, activation=activation, sigma_w=sigma_w, sigma_b=sigma_b)
    cross = nh.mlp_kernels_by_depth(ring[:1], ring[1:], **kwargs)
    nngp_self, ntk_self = self_kernels_by_depth(1.0, **kwargs)
    ones = torch.ones(max_depth, 1, dtype=torch.float64)                         # angle 0: the input itself
    nngp = torch.cat([ones, cross.nngp[:, 0] / nngp_self[:, None]], 1)
    ntk = torch.cat([ones, cross.ntk[:, 0] / ntk_self[:, None]], 1)
    return nngp, ntk, nngp_self


@functools.lru_cache(maxsize=64)
def regime_of(activation, sigma_w, sigma_b):
    first_variance = sigma_w ** 2 + sigma_b ** 2                                  # Σ^(1)(x,x), |x|² = d
    return signal_regime(activation, sigma_w=sigma_w, sigma_b=sigma_b, q0=first_variance)


# %% [markdown]
# 每个区域一句话，对当前设置成立（句中的数值来自 `signal_regime`）：

# %%
def describe(activation, sigma_w, sigma_b, depth, q_at_depth):
    regime = regime_of(activation, sigma_w, sigma_b)
    chi, q = regime.chi1, regime.q_star
    if regime.name == "ordered":
        return (f"ordered: χ₁ = {chi:.3f} < 1 at q* = {q:.3g}. As depth → ∞ every correlation goes to 1 "
                f"(1 − c shrinks by about χ₁ per layer: depth scale −1/ln χ₁ = {regime.depth_scale:.1f} "
                f"layers), and the NTK tends to the constant q*/(1 − χ₁) = {q / (1 - chi):.3g} on every "
                f"entry (rank one). The NTK gets there more slowly than the NNGP, so at the depths shown it "
                f"can still look like a constant plus a diagonal.")
    if regime.name == "edge of chaos" and activation == "relu":
        return (f"edge of chaos: σ_w² = 2 without bias preserves every variance (q = {q:.3g}) and χ₁ = 1. "
                f"The correlation map is marginal at c = 1, so correlations creep to 1 polynomially, "
                f"1 − c ≈ 9π²/(2l²) (the marginal map above).")
    if regime.name == "edge of chaos":
        scale = f"depth scale 1/|ln χ₁| = {1 / abs(math.log(chi)):.0f} layers near c = 1"
        target = "towards 1, as χ₁ < 1" if chi < 1 else f"towards c* = {regime.c_star:.3f}, as χ₁ > 1"
        return (f"edge of chaos: χ₁ = {chi:.4f} ≈ 1 at q* = {q:.3g}. The correlation map is nearly marginal "
                f"at c = 1, so correlations move only slowly ({scale}): {target}.")
    if regime.name == "chaotic":
        return (f"chaotic: χ₁ = {chi:.3f} > 1 at q* = {q:.3g}. Nearby inputs are pushed apart: correlations "
                f"settle at c* = {regime.c_star:.3f}, from above or below (depth scale "
                f"{regime.depth_scale:.1f} layers), and the "
                f"normalized NTK tends to 0 off the diagonal (the identity).")
    homogeneous = activation == "relu"
    if regime.name == "vanishing variance" and homogeneous:
        return (f"q* = 0: the variance shrinks by σ_w²/2 = {chi:.3f} per layer (q = {q_at_depth:.2g} at "
                f"depth {depth}). ReLU is positively homogeneous, so without bias the scale drops out of the "
                f"normalized kernel: it is the same for every σ_w, and correlations creep to 1 polynomially "
                f"(the marginal map).")
    if regime.name == "vanishing variance":
        return (f"degenerate, q* = 0: without bias σ_w² φ′(0)² = {chi:.3f} ≤ 1, and the variance dies out "
                f"(q = {q_at_depth:.2g} at depth {depth}). The pre-activations shrink into the range where "
                f"φ is linear, the correlation map tends to the identity, and correlations barely change "
                f"with depth: neither order nor chaos. A bias (σ_b > 0) gives the ordered phase.")
    if homogeneous:
        bias = ", so the bias soon stops mattering" if sigma_b > 0 else ""
        return (f"growing variance: q grows by σ_w²/2 = {chi:.3f} per layer{bias}. ReLU is positively "
                f"homogeneous, so correlations creep to 1 polynomially (the marginal map).")
    return f"{regime.name}: q* = {q:.3g}, χ₁ = {chi:.3f}"


# %%
def sigma_label(sigma_w):
    """The slider's label: the exact √2 is written as such, every other value with two decimals."""
    return "√2" if sigma_w == math.sqrt(2) else f"{sigma_w:.2f}"


def draw_collapse(depth, activation, sigma_w, sigma_b):
    try:
        nngp, ntk, q_by_depth = normalized_by_angle(activation, sigma_w, sigma_b)
        name = regime_of(activation, sigma_w, sigma_b).name
    except (OverflowError, ValueError) as error:
        print(f"no kernel for these settings: {error}")
        return
    fig, ax = plt.subplots()
    curves = [(ntk[depth - 1], 0, "-", 1.0, f"NTK, depth {depth}"),
              (nngp[depth - 1], 1, "--", 1.0, f"NNGP, depth {depth}")]
    if depth > 1:                                                         # depth 1, drawn faint for reference
        curves = [(ntk[0], 0, "-", 0.3, "NTK, depth 1"), (nngp[0], 1, "--", 0.3, "NNGP, depth 1")] + curves
    for values, colour, style, alpha, label in curves:
        ax.plot(ring_degrees, values, color=nh.plotting.PALETTE[colour], ls=style, alpha=alpha, label=label)
    low = min(float(values.min()) for values, *_ in curves)
    high = max(float(values.max()) for values, *_ in curves)
    margin = 0.05 * max(high - low, 0.1)
    ax.set_ylim(low - margin, high + margin)                                     # follows the data
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel("angle θ between the inputs (degrees)")
    ax.set_ylabel("normalized kernel  K(x,x′)/K(x,x)")
    ax.set_title(f"{activation}: {'q* = 0, ' if name == 'vanishing variance' else ''}{name}")
    ax.legend(fontsize=9)
    text = describe(activation, sigma_w, sigma_b, depth, float(q_by_depth[depth - 1]))
    settings = f"depth {depth}, {activation}, σ_w = {sigma_label(sigma_w)}, σ_b = {sigma_b:.2f}"
    print(textwrap.fill(f"{settings}: {text}", 110))
    if depth == 1:
        print(f"at 60° (input correlation 0.5), depth 1: NTK {float(ntk[0, AT_60]):.3f}, "
              f"NNGP {float(nngp[0, AT_60]):.3f}")
        return
    print(f"at 60° (input correlation 0.5): NTK {float(ntk[0, AT_60]):.3f} at depth 1, "
          f"{float(ntk[depth - 1, AT_60]):.3f} at depth {depth}; "
          f"NNGP {float(nngp[0, AT_60]):.3f} at depth 1, "
          f"{float(nngp[depth - 1, AT_60]):.3f} at depth {depth}")


# %%
sigma_w_values = sorted([round(0.5 + 0.05 * k, 2) for k in range(41)] + [math.sqrt(2)])   # 0.5 .. 2.5 and √2
sigma_w_slider = widgets.SelectionSlider(
    options=[(sigma_label(v), v) for v in sigma_w_values], value=math.sqrt(2), description="sigma_w",
    style={"description_width": "initial"}, layout=widgets.Layout(width="420px"))
print(f"σ_w slider: {len(sigma_w_values)} values, default {sigma_label(sigma_w_slider.value)}, "
      f"σ_w² = {sigma_w_slider.value ** 2:.6f}")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(
    draw_collapse,
    depth=nh.widgets.depth_slider(10, max=100),
    activation=nh.widgets.activation_dropdown("relu", options=("relu", "tanh", "erf")),
    sigma_w=sigma_w_slider,
    sigma_b=nh.widgets.sigma_slider("sigma_b", 0.0, max=1.0),
)

# %% [markdown]
# 为上面列表中的每种情形各取一组 tanh 设置，计算一次，以检验上述说法
# （第 [06](06_activations.ipynb) 课比较了更多的激活函数）：

# %%
examples = {"ordered": ("tanh", 1.0, 0.5), "chaotic": ("tanh", 2.5, 0.5), "degenerate": ("tanh", 0.5, 0.0)}
at_60 = {}
for name, settings in examples.items():
    nngp = normalized_by_angle(*settings)[0]
    at_60[name] = float(nngp[0, AT_60]), float(nngp[-1, AT_60])                   # depth 1, depth 100
    print(f"{settings[0]}, σ_w = {settings[1]}, σ_b = {settings[2]}: {regime_of(*settings).name}; "
          f"NNGP at 60°: depth 1 {at_60[name][0]:.3f}, depth 100 {at_60[name][1]:.3f}")

# %%
c_star = regime_of(*examples["chaotic"]).c_star
assert at_60["ordered"][1] > 0.999, f"ordered: expected the 60° NNGP → 1, measured {at_60['ordered'][1]:.4f}"
assert abs(at_60["chaotic"][1] - c_star) < 1e-3, (
    f"chaotic: expected the 60° NNGP → c* = {c_star:.4f} ± 1e-3, measured {at_60['chaotic'][1]:.4f}")
start, end = at_60["degenerate"]
assert abs(end - start) < 1e-3 * start, (
    f"degenerate: expected the 60° NNGP to stay at {start:.4f} (± 0.1%), measured {end:.4f} at depth 100")

# %% [markdown]
# ## 有序与混沌（tanh、erf）
#
# 对有界激活函数，方差稳定在方差映射的不动点 $q^*$ 上，而相关系数的命运由一个数决定：
# $\chi_1 = \sigma_w^2\,\mathbb E[\phi'(\sqrt{q^*}z)^2]$，即相关映射在 $c = 1$ 处的斜率
# （Poole et al. 2016；Schoenholz et al. 2017）。
#
# - $\chi_1 < 1$，**有序相**：所有输入都变得完全相关，且随深度指数式趋近（深度尺度为
#   $-1/\ln\chi_1$，在 $\chi_1 = 1$ 附近很长）；NTK 比 NNGP 更慢地趋于常数矩阵
#   $q^*/(1-\chi_1)\,\mathbf 1\mathbf 1^\top$（秩为一：训练停滞）。
# - $\chi_1 > 1$，**混沌相**：相关系数稳定在 $c^* < 1$（从上方或下方趋近）；归一化 NTK 趋于单位矩阵
#   （每个输入看起来都与其他输入无关：无法泛化）。
# - $\chi_1 = 1$，**混沌边缘**：缓慢的、多项式速度的区域，与上面的 ReLU 类似。
# - $q^* = 0$，**退化**情形（方差消失）：没有偏置且 $\sigma_w^2\phi'(0)^2 \le 1$（对 tanh 即 $\sigma_w^2 \le 1$）时，
#   方差逐渐消失。预激活最终落在 $\phi$ 呈线性的范围内，因此相关映射趋于恒等映射：
#   输出尺度趋于零，而相关系数几乎不动。这不是有序相；没有偏置时奇激活函数根本没有有序相，
#   而在这个 $\sigma_w$ 以上它处于混沌相。在下面的相图上，它是底边
#   $\sigma_b^2 = 0$、$\sigma_w^2 \le 1$（那里的颜色显示的是极限 $\chi_1 \to \sigma_w^2$）。
#
# > **综述原文：** 「令Lyapunov指数=0」。  
# > **正确的说法：** 条件是 $\chi_1 = 1$，并且要在方差的不动点处计算
# > （[勘误 B26](../../ERRATA.zh.md#b26)）。

# %%
sigma_w2_grid = torch.linspace(0.5, 4.0, 36, dtype=torch.float64)
sigma_b2_grid = torch.linspace(0.0, 0.5, 26, dtype=torch.float64)
chi = nh.chi1("tanh", sigma_w=sigma_w2_grid[None, :].sqrt(),        # the axes show the squares σ_w², σ_b²
              sigma_b=sigma_b2_grid[:, None].sqrt())                  # (26, 36)

fig, ax = plt.subplots()
image = ax.pcolormesh(sigma_w2_grid, sigma_b2_grid, torch.log(chi), cmap="RdBu_r", vmin=-1, vmax=1,
                      shading="auto")
ax.contour(sigma_w2_grid, sigma_b2_grid, chi, levels=[1.0], colors="k")
ax.plot([], [], "k-", label="edge of chaos, χ₁ = 1")
ax.plot([1.761], [0.05], "k*", ms=12, label="(1.761, 0.05), Schoenholz et al.")
ax.plot([0.5, 1.0], [0.0, 0.0], color=nh.plotting.PALETTE[2], lw=6, label="q* = 0 (degenerate)")
outline = [patheffects.withStroke(linewidth=3, foreground="black")]                # readable on dark blue
ax.text(0.7, 0.42, "ordered\nχ₁ < 1", fontsize=12, color="white", fontweight="bold", path_effects=outline)
ax.text(3.1, 0.3, "chaotic\nχ₁ > 1", fontsize=12)
ax.set_xlabel("σ_w²")
ax.set_ylabel("σ_b²")
ax.set_title("tanh: log χ₁")
ax.legend(loc="lower right", fontsize=9)
plt.colorbar(image, ax=ax, label="log χ₁")
plt.show()

# %%
edge = float(nh.chi1("tanh", sigma_w=math.sqrt(1.761), sigma_b=math.sqrt(0.05)))
print(f"χ₁ at (σ_w², σ_b²) = (1.761, 0.05): {edge:.4f}")
assert abs(edge - 1) < 5e-3, f"χ₁ on the published edge of chaos: expected 1 ± 5e-3, measured {edge:.4f}"

# %% [markdown]
# 两个输入（初始相关系数 $c_0 = 0.2$）穿过 40 个 tanh 层时的相关系数，每个相各一条曲线：

# %%
phases = {"ordered (1.0, 0.05)": 1.0, "edge (1.761, 0.05)": 1.761, "chaotic (3.0, 0.05)": 3.0}  # (σ_w², σ_b²)
paths = nh.correlation_trajectory(torch.full((3,), 0.2, dtype=torch.float64), 40, "tanh",
                                  sigma_w=torch.tensor(list(phases.values()), dtype=torch.float64).sqrt(),
                                  sigma_b=math.sqrt(0.05))
fig, ax = plt.subplots()
for index, name in enumerate(phases):
    ax.plot(paths[:, index], label=name)
ax.set_xlabel("layer")
ax.set_ylabel("correlation c_l")
ax.legend()
plt.show()

# %%
print("final correlations:", paths[-1].numpy().round(4))
final = [float(v) for v in paths[-1]]
assert final[0] > 0.999, f"ordered phase after 40 layers: expected c > 0.999, measured {final[0]:.4f}"
assert final[2] < 0.5, f"chaotic phase after 40 layers: expected c < 0.5, measured {final[2]:.4f}"
assert final[0] > final[1] > final[2], f"expected ordered > edge > chaotic, measured {final}"

# %% [markdown]
# NTK 也随之变化：有序相中秩为一，混沌相中为单位矩阵（erf，深度 50，20 个点）：

# %%
points20 = nh.sphere(20, d=10, seed=3)
ordered = nh.mlp(50, "erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)).kernel(points20).ntk
chaotic = nh.mlp(50, "erf", sigma_w=2.0, sigma_b=math.sqrt(0.05)).kernel(points20).ntk
q_star = float(nh.q_fixed_point("erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)))
chi_ordered = float(nh.chi1("erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)))
off_diagonal = float((nh.normalize(chaotic) - torch.eye(20, dtype=torch.float64)).abs().max())
constant = q_star / (1 - chi_ordered)
r_ordered, r_chaotic = nh.effective_rank(ordered), nh.effective_rank(chaotic)
print(f"ordered: entries in [{ordered.min():.3f}, {ordered.max():.3f}], q*/(1−χ₁) = {constant:.3f}, "
      f"r_eff = {r_ordered:.3f}")
print(f"chaotic: largest normalized off-diagonal below 1e-6: {off_diagonal < 1e-6}, "
      f"r_eff = {r_chaotic:.2f} of 20")
spread = float((ordered / constant - 1).abs().max())
assert spread < 0.02, f"ordered NTK: expected every entry = {constant:.3f} ± 2%, measured ±{spread:.3f}"
assert r_ordered < 1.05, f"ordered NTK: expected r_eff < 1.05 (rank one), measured {r_ordered:.3f}"
assert r_chaotic > 19.9 and off_diagonal < 1e-6, (
    f"chaotic NTK: expected r_eff > 19.9, off-diagonal < 1e-6; measured {r_chaotic:.2f}, {off_diagonal:.1e}")

# %% [markdown]
# ## 小结
#
# - NNGP/NTK 递归是对各层的循环，携带三元组 $(\Sigma(x,x),\Sigma(x',x'),\Sigma(x,x'))$；
#   $\sigma_w^2$ 和 $\sigma_b^2$ 出现在每一步中。本软件包中的层正是这样实现的，有限网络也与之吻合。
# - 递归的来源：预激活服从高斯分布，因为每个单元都是许多独立项之和，而它的协方差是对下方一层各单元的平均
#   （大数定律）。NTK 是各层梯度内积之和：前向部分为 $\Sigma^{(l)}$；在反向部分中，上方的每一层各贡献一个因子
#   $\dot\Sigma = \sigma_w^2\,\mathbb E[\phi'\phi']$。
# - 深层 ReLU 核以**多项式**速度丢失角度信息，原因是相关映射在 $c=1$ 处是临界的，而不是单元失活。
#   NNGP 变为常数；NTK 变为“常数加白噪声”（满秩），它能拟合训练数据，但泛化表现与常数无异。
#   （ResNet 并不是为对抗这一点而发明的：它解决的是优化问题；核的视角是后来才出现的。）
# - 有界激活函数有有序相（NTK 秩为一）、混沌相（NTK 接近单位矩阵），以及两者之间的混沌边缘 $\chi_1 = 1$。
#   没有偏置就没有有序相：小的 $\sigma_w$ 给出 $q^* = 0$ 的退化情形，此时网络表现为线性，相关系数几乎不动。
#
# **练习：** 4.1（$\dot\Sigma$ 的作用，恒等激活函数）和 4.7（50 层 MLP 的核退化与有效秩）。
#
# **下一课：** [03 · 卷积网络](03_cnn.ipynb)
