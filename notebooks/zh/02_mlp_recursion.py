# %% [markdown]
# # 02 · MLP 的递归公式、核退化与混沌边缘
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/02_mlp_recursion.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F02_mlp_recursion.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../02_mlp_recursion.ipynb)）
#
# *教材第 4.1 节。*
#
# **本课内容**
# - 4.1.1：逐层计算 MLP 的 NNGP 核 $\Sigma$ 与神经正切核 $\Theta$，以及为什么每一步都需要*三元组*
#   $(\Sigma(x,x), \Sigma(x',x'), \Sigma(x,x'))$；
# - 这个递归从何而来（高斯单元；NTK 是对各层的求和），并在宽度为 4096 的网络上验证；
# - 4.1.2：深度对 ReLU 网络的核做了什么：两个输入的相关系数 $c_l$ 缓慢趋于 1，$1 - c_l$ 按 $1/l^2$ 下降，
#   NNGP 变为常数，NTK 保留一个满秩部分，训练集之外的预测趋于平坦（在 $\sigma_w^2 = 2$、无偏置时）；
# - tanh 与 erf 网络的有序相和混沌相、两者之间的混沌边缘 $\chi_1 = 1$，以及无偏置时的退化情形。
#
# **预备知识：** 第 01 课（NTK 是什么）、高斯过程、反向传播。

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %%
import math

import matplotlib.colors as colors
import matplotlib.patheffects as patheffects
import matplotlib.pyplot as plt
import torch
import ntk_helpers as nh
from ntk_helpers.course import signal_propagation as sp

nh.plotting.use_style()

# %% [markdown]
# ## 一图看懂核心思想
#
# 无限宽的 MLP 是一个高斯过程，它的协方差可以逐层计算。每一层接收一个单元在两个输入处的 $2\times2$ 协方差，
# 计算两个高斯期望 $E$ 和 $\dot E$，并给出下一层的协方差 $\Sigma$ 和 NTK $\Theta$（左图）。把这个映射重复许多层，
# 它会推动两个输入之间的*相关系数* $c$（右图）：以指数速度趋于 1，只以多项式速度趋于 1，或者趋于某个值
# $c^* < 1$（而在无偏置的退化情形中，它几乎不动）。相关系数的去向决定了深层网络还能区分哪些输入；本课逐一分析这几种情形。

# %%
sp.draw_idea()
plt.show()

# %% [markdown]
# ## 4.1.1 递归公式
#
# 网络（NTK 参数化，$L$ 个宽度为 $m$ 的隐藏层，所有权重和偏置均服从 $\mathcal N(0,1)$）：
# $z^{(1)} = \frac{\sigma_w}{\sqrt d}W^{(1)}x + \sigma_b b^{(1)}$，然后
# $z^{(l+1)} = \frac{\sigma_w}{\sqrt m}W^{(l+1)}\phi(z^{(l)}) + \sigma_b b^{(l+1)}$，输出为 $f = z^{(L+1)}$。
# 当 $m\to\infty$ 时，$z^{(l)}$ 的每个单元都是定义在输入上的高斯过程，其协方差为 $\Sigma^{(l)}$，并且
#
# $$\Sigma^{(1)}(x,x') = \sigma_w^2\,\tfrac{x\cdot x'}{d} + \sigma_b^2, \qquad \Theta^{(1)} = \Sigma^{(1)},$$
#
# $$\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2, \qquad
#   \dot\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)], \qquad
#   \Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\,\Theta^{(l)},$$
#
# 其中 $(u, v) \sim \mathcal N(0, \Lambda^{(l)})$，而
# $\Lambda^{(l)} = \begin{pmatrix}\Sigma^{(l)}(x,x) & \Sigma^{(l)}(x,x')\\ \Sigma^{(l)}(x,x') & \Sigma^{(l)}(x',x')\end{pmatrix}$
# 是由三元组构成的矩阵（$\Sigma$ 见 Neal 1996、Lee et al. 2018 和 Matthews et al. 2018；$\Theta$ 见 Jacot et al. 2018
# 和 Arora et al. 2019）。
#
# 对 ReLU，这两个期望都有闭式解，即*反余弦核*（Cho & Saul 2009）。记
# $q = \Sigma^{(l)}(x,x)$、$q' = \Sigma^{(l)}(x',x')$，并用 $\theta$ 表示这对高斯变量的夹角，
# $\cos\theta = \Sigma^{(l)}(x,x')/\sqrt{q q'}$：
#
# $$\mathbb E[\phi(u)\phi(v)] = \frac{\sqrt{q q'}}{2\pi}\bigl(\sin\theta + (\pi-\theta)\cos\theta\bigr), \qquad
#   \mathbb E[\phi'(u)\phi'(v)] = \frac{\pi-\theta}{2\pi}.$$
#
# 取 $\theta = 0$ 得到 $\mathbb E[\phi(u)^2] = q/2$ 和 $\mathbb E[\phi'(u)^2] = 1/2$。因此每个输入的方差各自遵循一个
# 一维映射，即**方差映射**
#
# $$q_{l+1} = \sigma_w^2\,\mathbb E_{z\sim\mathcal N(0,1)}\bigl[\phi(\sqrt{q_l}\,z)^2\bigr] + \sigma_b^2,
#   \qquad\text{对 ReLU}\quad q_{l+1} = \tfrac{\sigma_w^2}{2}\,q_l + \sigma_b^2 .$$
#
# 写成代码，这两个 ReLU 公式只有四行；下面的所有计算都用它们。

# %%
def relu_dual(q1, q2, cov):
    """E[φ(u)φ(v)] and E[φ′(u)φ′(v)] for φ = ReLU and (u, v) ~ N(0, [[q1, cov], [cov, q2]])."""
    theta = torch.arccos((cov / (q1 * q2).sqrt()).clamp(-1, 1))           # the angle of the Gaussian pair
    e = (q1 * q2).sqrt() / (2 * math.pi) * (torch.sin(theta) + (math.pi - theta) * torch.cos(theta))
    return e, (math.pi - theta) / (2 * math.pi)


# %% tags=["check"]
# Against the package's ReLU (its own implementation of the same closed form), on 3 arbitrary triples.
q1, q2, cov = (torch.tensor(v, dtype=torch.float64)
               for v in ([1.0, 2.0, 0.3], [0.5, 2.0, 4.0], [0.2, -1.9, 0.9]))
nh.check_close("E[φ(u)φ(v)] of the formula vs the package", relu_dual(q1, q2, cov)[0],
               nh.relu().dual(q1, q2, cov)[0], rtol=1e-12)
nh.check_close("E[φ′(u)φ′(v)] of the formula vs the package", relu_dual(q1, q2, cov)[1],
               nh.relu().dual(q1, q2, cov)[1], rtol=1e-12)
nh.check_close("E[φ(u)²] = q/2 on the diagonal", relu_dual(q1, q1, q1)[0], q1 / 2, rtol=1e-12)

# %% [markdown]
# ### 递归从何而来，第 1 步：高斯预激活
#
# 取第 $l+1$ 层的某个单元，并把它下方的一切都固定住：
#
# $$z_i^{(l+1)}(x) = \frac{\sigma_w}{\sqrt m}\sum_{j=1}^{m} W_{ij}\,\phi\bigl(z_j^{(l)}(x)\bigr) + \sigma_b\,b_i .$$
#
# - **独立项之和。** 给定第 $l$ 层，这是 $m$ 个相互独立、均值为零的项（每个权重 $W_{ij}$ 对应一项）再加上
#   独立的偏置：它在各输入处的取值服从联合高斯分布（权重为高斯时精确成立），协方差为
#   $\sigma_w^2\,\frac1m\sum_j \phi(z_j^{(l)}(x))\,\phi(z_j^{(l)}(x')) + \sigma_b^2$。
# - **平均值变成确定的量。** 这个协方差是*对第 $l$ 层 $m$ 个单元的平均*。如果这些单元是同一个协方差为
#   $\Sigma^{(l)}$ 的高斯过程的独立副本，大数定律就把它变成
#   $\sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2 = \Sigma^{(l+1)}$，其中 $(u,v)$ 按三元组的矩阵 $\Lambda^{(l)}$ 抽取。
# - **单元之间相互独立。** 第 $l+1$ 层的两个单元 $i\neq i'$ 使用相互独立的权重行和偏置，所以在极限下它们是
#   同一过程的独立副本。这正是下一层求平均时所需要的（归纳法），也是核只描述*一个*单元在两个输入处取值的原因。
# - **起点。** $z^{(1)}$ 精确服从高斯分布，且 $\Sigma^{(1)} = \sigma_w^2\,x\cdot x'/d + \sigma_b^2$。
#
# **一次取一个极限。** 这个归纳让各层宽度依次趋于无穷，第 1 层最先：这是*逐次*极限（sequential limit；
# Jacot et al. 2018 正是在这种极限下证明了 NTK 的收敛）。当所有宽度一起增大时，同一层的单元只是可交换的，
# 而不是独立的，证明需要更仔细；但得到的核相同：Matthews et al.（2018）对 NNGP、Yang（2019, 2020）对 NNGP 与
# NTK 证明了这一点（Arora et al. 2019 给出了有限宽度下 ReLU 网络 NTK 误差的上界）。
#
# 在宽度为 $m = 4096$ 的网络上验证这一点（两个隐藏层，ReLU，$\sigma_w^2 = 2$，$\sigma_b = 0.2$），
# 取两个长度不同的输入。先看递归公式对两个核的预测：

# %%
pair = torch.tensor([[1.0, 0.0, 0.0], [0.9, 1.5, 0.3]], dtype=torch.float64)   # x, x′ in R³, |x| ≠ |x′|
sigma_w, sigma_b, width = math.sqrt(2), 0.2, 4096

Sigma = sigma_w ** 2 * pair @ pair.T / 3 + sigma_b ** 2        # Σ^(1): the 2×2 matrix Λ^(1) of the triple
Theta = Sigma.clone()                                          # Θ^(1) = Σ^(1)
predicted_sigma, predicted_sigma_dot = [Sigma], []
for layer in (1, 2):                                           # two hidden layers, then the readout
    q = torch.diagonal(Sigma)                                  # (Σ(x,x), Σ(x′,x′))
    e, e_dot = relu_dual(q[:, None], q[None, :], Sigma)        # entry (i, j): variances of inputs i and j
    Sigma = sigma_w ** 2 * e + sigma_b ** 2                    # Σ^(l+1)
    Theta = Sigma + sigma_w ** 2 * e_dot * Theta               # Θ^(l+1) = Σ^(l+1) + Σ̇^(l+1) Θ^(l)
    predicted_sigma.append(Sigma)
    predicted_sigma_dot.append(sigma_w ** 2 * e_dot)           # Σ̇^(l+1)
print(nh._("recursion, output: Σ(x,x′) = {sigma:.4f}, Θ(x,x′) = {theta:.4f}").format(
    sigma=float(Sigma[0, 1]), theta=float(Theta[0, 1])))

# %% tags=["check"]
package = nh.mlp(2, "relu", sigma_w=sigma_w, sigma_b=sigma_b).kernel(pair)
nh.check_close("NNGP of the loop vs nh.mlp(...).kernel", Sigma, package.nngp, rtol=1e-12)
nh.check_close("NTK of the loop vs nh.mlp(...).kernel", Theta, package.ntk, rtol=1e-12)

# %% [markdown]
# 在 `relu_dual(q[:, None], q[None, :], Sigma)` 中，两个方差参数是同样两个数排成的*列*和*行*：
# 结果的第 $(i, j)$ 个元素把输入 $i$ 的方差与输入 $j$ 的方差配成一对，正如三元组所要求的。
# （本软件包的 `nh.mlp(...).kernel(...)` 执行的正是这个递归。）
#
# 现在看网络本身。它的模块由全连接层与 ReLU 交替组成；每个全连接层的输出都是预激活 $z^{(l)}$
# （最后一个就是 $f$）。同一层的 4096 个单元（近似）是该层高斯过程的独立样本，所以 $z_i(x)\,z_i(x')$
# 在各单元上的平均值是 $\Sigma^{(l)}(x,x')$ 的估计，其误差在一个标准误（SE）的量级：即乘积的标准差除以
# $\sqrt{4096} = 64$。这个标准误只计入第 $l$ 层自身单元的抽样。最后一列以各自的标准误为单位给出每个误差。
#
# - **第 1 层**下面没有有限宽的层，所以它的误差纯粹来自抽样：在 12 个种子上，其均方根为 0.9 个标准误；
#   几个误差中出现一个约 2 个标准误的，只是偶然。
# - **第 2 层**建立在有限宽的第 1 层之上，第 1 层自己的随机偏差会让第 2 层的所有单元一起偏移；对第 2 层求平均
#   消除不了它。所以第 2 层与递归的差距比它的标准误所示的更大：在 12 个种子上，其误差的均方根为 1.9 个标准误，
#   出现 2–3 个标准误的偏差并不说明有错误。

# %%
network_of = lambda seed: nh.mlp(2, "relu", sigma_w=sigma_w, sigma_b=sigma_b).network(3, width=width,
                                                                                      seed=seed)
wide = network_of(0)
preactivations, h = [], pair
for index, module in enumerate(wide):                  # dense, relu, dense, relu, dense(1)
    h = module(h)
    if index % 2 == 0:
        preactivations.append(h)                       # z^(1), z^(2): (2, 4096); f = z^(3): (2, 1)


def unit_average(products):
    """Mean over the units of a layer, and its standard error."""
    return float(products.mean()), float(products.std() / math.sqrt(products.numel()))


entries = ((0, 0, "(x, x)"), (1, 1, "(x′, x′)"), (0, 1, "(x, x′)"))
for layer in (1, 2):
    z = preactivations[layer - 1].detach()
    for a, b, entry in entries:
        measured, se = unit_average(z[a] * z[b])
        predicted = float(predicted_sigma[layer - 1][a, b])
        print(nh._("layer {layer}, Σ{entry}: recursion {predicted:.3f}, mean over the units {measured:.3f} "
                   "± {se:.3f}, error {error:+.1f} SE").format(layer=layer, entry=entry, measured=measured,
                                                              se=se, predicted=predicted,
                                                              error=(measured - predicted) / se))

# %% [markdown]
# 现在看这些数本身：左图是输入第 2 层的 4096 个值 $h_j^{(1)}(x')$，右图是第 2 层的 4096 个值
# $z_i^{(2)}(x')$，并附上递归公式预测的 $\mathcal N(0, \Sigma^{(2)}(x',x'))$ 的密度。

# %%
inputs = torch.relu(preactivations[0][1].detach())                             # h^(1)(x′): (4096,)
units = preactivations[1][1].detach()                                          # z^(2)(x′): (4096,)
variance = float(predicted_sigma[1][1, 1])
grid = torch.linspace(-4, 4, 201, dtype=torch.float64) * math.sqrt(variance)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
left.hist(inputs, bins=60, color=nh.plotting.PALETTE[1], alpha=0.6)
left.set_xlabel(nh._("post-activation h⁽¹⁾ⱼ(x′) = relu(z⁽¹⁾ⱼ(x′))"))
left.set_ylabel(nh._("number of units"))
left.set_title(nh._("What layer 2 sums: ReLU outputs, half of them 0"))
heights = right.hist(units, bins=60, density=True, alpha=0.5,
                     label=nh._("{width} units of one network").format(width=width))[0]
right.plot(grid, torch.exp(-grid ** 2 / (2 * variance)) / math.sqrt(2 * math.pi * variance),
           label=nh._("N(0, Σ⁽²⁾(x′,x′)) from the recursion"))
right.set_ylim(0, 1.35 * max(float(heights.max()), 1 / math.sqrt(2 * math.pi * variance)))   # legend room
right.set_xlabel(nh._("pre-activation z⁽²⁾ᵢ(x′)"))
right.set_ylabel(nh._("probability density"))
right.set_title(nh._("Layer 2's units against N(0, Σ⁽²⁾) of the recursion"))
right.legend(loc="upper left", fontsize=9)
plt.show()

# %% [markdown]
# **这些零起什么作用？** 第 2 层求和的 4096 个数中有一半恰好为 0（左图中的尖峰）。
# 这些为零的输出会让第 2 层的单元变得不那么高斯吗？它们对方差有什么影响？先预测，再打开答案；
# 上面的第 1 步已经包含了所需的一切。
#
# <details><summary>答案</summary>
#
# 它们丝毫不损害高斯性。给定第 1 层，第 2 层的单元 $i$ 是
# $\frac{\sigma_w}{\sqrt m}\sum_j W_{ij}h_j^{(1)} + \sigma_b b_i$：一个为零的 $h_j^{(1)}$ 只是去掉了一个高斯项，
# 其余大约 2048 项加起来仍然是一个严格高斯的单元。但这些零确实让方差减半：方差是
# $\sigma_w^2|h^{(1)}|^2/m + \sigma_b^2$，而 $h_j^{(1)2}$ 在各单元上的平均接近
# $\mathbb E[\phi(u)^2] = \Sigma^{(1)}(x',x')/2$（这里为 1.07 = 2.14/2），只有没有 ReLU 时的一半。
# 正是这一半，使得 $\sigma_w^2 = 2$（He et al. 2015）能让方差不再逐层缩小。
#
# </details>

# %% tags=["check"]
# Tolerance 6 SE: the layers below are finite too (over 12 seeds the layer-2 errors had a root-mean-square of
# 1.9 naive SE), so 6 SE is about 3 real standard deviations.
errors_in_se = []
for layer in (1, 2):
    z = preactivations[layer - 1].detach()
    for a, b, _entry in entries:
        measured, se = unit_average(z[a] * z[b])
        errors_in_se.append(abs(measured - float(predicted_sigma[layer - 1][a, b])) / se)
nh.check_between("largest |error|/SE of the six unit covariances", max(errors_in_se), 0.0, 6.0)
inside = float((units.abs() < math.sqrt(variance)).double().mean())
gaussian_inside = math.erf(1 / math.sqrt(2))                                   # P(|u| < 1 sd) = 0.6827
binomial_se = math.sqrt(gaussian_inside * (1 - gaussian_inside) / width)
nh.check_close("fraction of the units within one standard deviation (6 binomial SE)", inside, gaussian_inside,
               atol=6 * binomial_se)
nh.check_close("fraction of the ReLU outputs that are 0 (6 binomial SE)",
               float((inputs == 0).double().mean()), 0.5, atol=6 * math.sqrt(0.25 / width))
half = float((inputs ** 2).mean())                                             # |h^(1)(x′)|² / m
nh.check_close("the answer: |h⁽¹⁾(x′)|²/m vs Σ⁽¹⁾(x′,x′)/2 (6 SE)", half, float(predicted_sigma[0][1, 1]) / 2,
               atol=6 * float((inputs ** 2).std()) / math.sqrt(width))
nh.check_close("the answer: the two numbers, rounded", [half, float(predicted_sigma[0][1, 1])], [1.07, 2.14],
               atol=5e-3)

# %% [markdown]
# ### 递归从何而来，第 2 步：逐层看 NTK
#
# NTK 是对所有参数的求和，$\Theta(x,x') = \sum_p \partial_p f(x)\,\partial_p f(x')$，因此可以按层拆成若干项，
# $\Theta = \sum_{l=1}^{L+1}T_l$，其中 $T_l$ 只对第 $l$ 层的权重和偏置求和（不要与 $\Theta^{(l)}$
# 混淆，后者是前 $l$ 层的 NTK）。记 $h^{(0)} = x$（宽度 $m_0 = d$），$h^{(l)} = \phi(z^{(l)})$，
# $z^{(l)} = \frac{\sigma_w}{\sqrt{m_{l-1}}}W^{(l)}h^{(l-1)} + \sigma_b b^{(l)}$，并令
# $\delta^{(l)}(x) = \partial f(x)/\partial z^{(l)}(x)$ 为反向传播送到第 $l$ 层的信号。
# 由于 $\partial f/\partial W^{(l)}_{ij} = \delta^{(l)}_i\,\sigma_w h^{(l-1)}_j/\sqrt{m_{l-1}}$ 且
# $\partial f/\partial b^{(l)}_i = \sigma_b\,\delta^{(l)}_i$，
#
# $$T_l(x,x') = \underbrace{\bigl\langle\delta^{(l)}(x),\delta^{(l)}(x')\bigr\rangle}_{\text{反向}}\;
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
# - 前向传播中的因子 $\sigma_w/\sqrt m$ 出现了两次：$\sigma_w^2$ 保留下来，而 $1/m$ 把对各单元的求和变成了平均。
# - **唯一微妙的一步。** 对 $j$ 取平均后，两个方括号因子给出
#   $\langle\delta^{(l+1)}(x),\delta^{(l+1)}(x')\rangle$，*前提是*反向传播中的 $W$ 可以当作与前向传播相互独立，
#   尽管前向传播用的是同一个 $W$。为什么这说得通：前向传播只通过乘积 $Wh$（$h$ 为前向传播自己的向量）用到 $W$，
#   而反向向量 $\delta^{(l+1)}$ 带着读出层权重，它们是均值为零的全新随机数；$W^\top\delta$ 与那些乘积之间的相关
#   是许多符号随机的项的平均，在 $m\to\infty$ 时趋于零。这只是启发式的论证，不是证明。Yang（2020，
#   *Tensor Programs II*）证明了：只要读出层权重均值为零、与其他一切相互独立地抽取，并且在前向传播的其他地方都没有
#   用到（我们的 MLP 正是如此），这种“梯度独立性”就给出精确的极限。随后大数定律把 $\phi'\phi'$ 的平均变成
#   $\mathbb E[\phi'(u)\phi'(v)]$。
#
# 因此，上方的每一层都把反向内积乘以 $\dot\Sigma^{(l+1)} = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)]$，
# 于是
#
# $$\Theta = \sum_{l=1}^{L+1}\Sigma^{(l)}\prod_{k=l+1}^{L+1}\dot\Sigma^{(k)},$$
#
# 这正是递归式 $\Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\Theta^{(l)}$ 展开后的形式。
# 下面把它与宽度为 4096 的网络对照，把网络拆成三层（用 autograd，每次对一个输出求导）。单个网络的各项随种子
# 不同会有百分之几的波动，所以取八个网络，比较它们的平均值：

# %%
def layer_terms(network):
    """T_l(x, x′), l = 1, 2, 3: the gradients of f(x) and f(x′) over layer l's parameters, multiplied."""
    outputs = network(pair)[:, 0]                                              # f(x), f(x′)
    parameters = list(network.parameters())
    gradient_x = torch.autograd.grad(outputs[0], parameters, retain_graph=True)  # ∂f(x)/∂p, one tensor per p
    gradient_x2 = torch.autograd.grad(outputs[1], parameters)                   # ∂f(x′)/∂p
    layer_of = [int(name.split(".")[0]) // 2 for name, _p in network.named_parameters()]  # modules 0, 2, 4
    terms = torch.zeros(3, dtype=torch.float64)
    for layer, a, b in zip(layer_of, gradient_x, gradient_x2):
        terms[layer] += (a * b).sum()
    return terms


terms = torch.stack([layer_terms(wide)] + [layer_terms(network_of(seed)) for seed in range(1, 8)])  # (8, 3)
cross = lambda matrices: [float(m[0, 1]) for m in matrices]                     # the (x, x′) entries
backward = [math.prod(cross(predicted_sigma_dot)[l:]) for l in range(3)]       # ∏_{k>l} Σ̇^(k)(x, x′)
predicted_terms = [sigma * factor for sigma, factor in zip(cross(predicted_sigma), backward)]
for layer in range(3):
    measured = terms[:, layer]
    print(nh._("layer {layer}: Σ⁽ˡ⁾(x,x′) = {sigma:.3f} × ∏ Σ̇ = {backward:.3f} → {predicted:.3f}; "
               "8 networks: mean {mean:.3f}, from {low:.3f} to {high:.3f}").format(
        layer=layer + 1, sigma=cross(predicted_sigma)[layer], backward=backward[layer],
        predicted=predicted_terms[layer], mean=float(measured.mean()), low=float(measured.min()),
        high=float(measured.max())))
total = terms.sum(1)
print(nh._("sum, Θ(x,x′): recursion {predicted:.3f}; 8 networks: mean {mean:.3f}, from {low:.3f} to "
           "{high:.3f}").format(predicted=float(Theta[0, 1]), mean=float(total.mean()),
                                low=float(total.min()), high=float(total.max())))

# %% [markdown]
# **为什么第一层所占的份额最小？** 三层使用相同的 $\sigma_w$ 和 $\sigma_b$，但第一层的贡献只有读出层的三分之一。
# 从打印结果中找出原因。
#
# <details><summary>答案</summary>
#
# 两个效应相乘。前向协方差沿网络向上增大，$\Sigma^{(l)}(x,x') = 0.640, 0.806, 0.933$：每个 ReLU 层都提高这一对输入的
# 相关系数，而偏置给每个元素加上 $\sigma_b^2$。此外，每一项都要乘以它上方所有层的反向因子
# $\dot\Sigma^{(k)}(x,x') = 1 - \theta/\pi$，其中 $\theta$ 是下面一层中这一对输入的夹角：只要 $x$ 与 $x'$ 方向不同，
# 这个因子就小于 1。第 2 层得到一个因子（0.718），第 1 层得到两个（合起来为 0.484），读出层一个也没有。
# 单个网络的值围绕这些预测波动（第 1 层：从 0.286 到 0.353），而八个网络的平均值与每个预测之差都在一个标准误
# （波动除以 $\sqrt 8$）之内。
#
# </details>

# %% tags=["check"]
per_layer = terms[0]                                                           # the network `wide` (seed 0)
nh.check_close("sum of the three layers vs nh.empirical_ntk", per_layer.sum(),
               nh.empirical_ntk(wide, pair)[0, 1], rtol=1e-10)
nh.check_close("Σ Σ⁽ˡ⁾ ∏ Σ̇ vs the recursion's Θ(x,x′)", sum(predicted_terms), Theta[0, 1], rtol=1e-12)
h2 = torch.relu(preactivations[1].detach())                                    # h^(2): (2, 4096)
forward, forward_se = unit_average(sigma_w ** 2 * h2[0] * h2[1])
nh.check_close("readout term = σ_w² h·h′/m + σ_b² exactly", per_layer[2], forward + sigma_b ** 2, rtol=1e-10)
nh.check_close("readout term vs Σ⁽³⁾(x,x′) (6 SE)", per_layer[2], predicted_sigma[2][0, 1],
               atol=6 * forward_se)
for layer in (1, 2):                            # the backward factor: σ_w² × mean of φ′φ′ over the units
    step = (preactivations[layer - 1].detach() > 0).double()                   # φ′(z) for ReLU
    measured, se = unit_average(sigma_w ** 2 * step[0] * step[1])
    nh.check_close("σ_w² × mean of φ′(z(x))φ′(z(x′)) vs Σ̇(x,x′) (6 SE)", measured,
                   predicted_sigma_dot[layer - 1][0, 1], atol=6 * se)
# The mean of 8 networks against the recursion, with SE = the seed-to-seed standard deviation / √8: per layer
# within one SE, as the answer says (these 8 seeds give at most 0.9 SE); the sum within 4 SE.
mean_error_in_se = (terms.mean(0) - torch.tensor(predicted_terms)).abs() / (terms.std(0) / math.sqrt(8))
nh.check_between("each layer's term: |mean of 8 networks − Σ⁽ˡ⁾ ∏ Σ̇| in SE, largest of the three",
                 mean_error_in_se.max(), 0.0, 1.0)
nh.check_between("one network's terms scatter by several percent: relative std, smallest of the layers",
                 (terms.std(0) / terms.mean(0)).min(), 0.02, 0.1)
nh.check_between("one network's terms scatter by several percent: relative std, largest of the layers",
                 (terms.std(0) / terms.mean(0)).max(), 0.02, 0.1)
nh.check_close("Θ(x,x′): mean of 8 networks vs the recursion (4 SE)", total.mean(), Theta[0, 1],
               atol=4 * float(total.std()) / math.sqrt(8))
# One network's NTK fluctuates around the limit with a relative standard deviation of about √(5L/m): Hanin &
# Nica 2020 prove it for the diagonal Θ(x,x) of a bias-free ReLU network; here it is only used as a scale for
# Θ(x,x′) with σ_b = 0.2 (4.9 %; over 12 seeds we measured 5.4 %, ddof 0). Tolerance 4 √(5L/m):
# this check tests the scatter only, the 4-SE mean check above carries the claim.
nh.check_close("Θ(x,x′) of each of the 8 networks vs the recursion (4 √(5L/m))", total,
               torch.full_like(total, float(Theta[0, 1])), rtol=4 * math.sqrt(5 * 2 / width))
nh.check_close("the answer: Σ⁽ˡ⁾(x,x′) and the backward products", cross(predicted_sigma) + backward[:2],
               [0.640, 0.806, 0.933, 0.484, 0.718], atol=5e-4)
nh.check_close("the answer: the first layer's share of the readout's (a third)",
               predicted_terms[0] / predicted_terms[2], 1 / 3, atol=0.02)
nh.check_close("the answer: one network's layer-1 term ranges from 0.286 to 0.353",
               [terms[:, 0].min(), terms[:, 0].max()], [0.286, 0.353], atol=5e-4)

# %% [markdown]
# ### 为什么需要三元组
#
# 从 4.1.2 起，本课和大多数研究深层核的论文一样，只考虑长度相同的输入：这时
# $\Sigma(x,x) = \Sigma(x',x')$，一个方差 $q$ 就够两个输入用，递归变成只关于相关系数的映射。
# 人们很容易把这个单一方差的公式沿用到长度不同的输入上，即两个输入都用 $\Sigma(x,x)$。我们的两个输入长度不同
# （$|x'|^2 = 3.15$，$|x|^2 = 1$）。下面把这种图省事的做法与三元组以及真实值对照，真实值按第 1 步的方法测量：
# 取有 $2^{20}$ 个单元的随机层，$\sigma_w^2$ 乘以 $\phi(z_j(x))\,\phi(z_j(x'))$ 在各单元上的平均，再加上
# $\sigma_b^2$，就是下一层看到的协方差 $\Sigma^{(2)}(x,x')$。

# %%
q, cov = torch.diagonal(predicted_sigma[0]), predicted_sigma[0][0, 1]          # layer 1: the triple
correct = float(sigma_w ** 2 * relu_dual(q[0], q[1], cov)[0] + sigma_b ** 2)     # Σ(x,x) and Σ(x′,x′)
shortcut = float(sigma_w ** 2 * relu_dual(q[0], q[0], cov)[0] + sigma_b ** 2)    # Σ(x,x) twice: wrong

layer_1 = nh.serial(nh.dense(sigma_w=sigma_w, sigma_b=sigma_b), nh.relu())
h1 = layer_1.network(3, width=2 ** 20, seed=0)(pair).detach()                  # φ(z^(1)): (2, 2^20)
monte_carlo, mc_se = unit_average(sigma_w ** 2 * h1[0] * h1[1] + sigma_b ** 2)
print(nh._("Σ⁽²⁾(x,x′): with the triple {correct:.4f}, shortcut {shortcut:.4f}, layer of 2^20 units "
           "{measured:.4f}").format(correct=correct, shortcut=shortcut, measured=monte_carlo))

# %% tags=["check"]
nh.check_close("the wide layer agrees with the triple (6 SE)", monte_carlo, correct, atol=6 * mc_se)
nh.check_that("the shortcut misses the wide layer by more than 6 SE", abs(shortcut - monte_carlo) > 6 * mc_se,
              measured=abs(shortcut - monte_carlo), expected=6 * mc_se)
nh.check_close("|x′|² and |x|²", [float(pair[1] @ pair[1]), float(pair[0] @ pair[0])], [3.15, 1.0],
               rtol=1e-12)
nh.check_close("question 1 at the end: shortcut, triple, wide layer", [shortcut, correct, monte_carlo],
               [0.686, 0.806, 0.807], atol=5e-4)

# %% [markdown]
# ## 4.1.2 核退化：深度带来了什么
#
# **编号约定，本课此后一律如此。** *深度*为 $L$ 的网络有 $L$ 个隐藏层；它的输出是第 $L+1$ 层，所以深度 $L$
# 处显示的核是 $\Sigma^{(L+1)}$ 和 $\Theta^{(L+1)}$（深度 1 显示的是 $\Sigma^{(2)}$）。
#
# 取采用常用初始化 $\sigma_w^2 = 2$（He et al. 2015）、$\sigma_b = 0$ 的 ReLU 网络。由 4.1.1 的公式立即可知
# **没有单元失活**：方差映射是 $q_{l+1} = q_l$，所以每一层的方差都相同；在对角元上
# $\dot\Sigma(x,x) = \sigma_w^2\cdot\tfrac12 = 1$ 精确成立，因此单个输入的反向信号既不增大也不减小。
# 随深度改变的是两个输入之间的**夹角**。
#
# ### 相关映射
#
# 方差 $q$ 固定时，一层网络把两个输入的相关系数 $c = \cos\theta$ 映射为（把反余弦公式除以 $q/2$）
#
# $$c_{l+1} = \rho(c_l), \qquad \rho(c) = \frac{\sqrt{1-c^2} + (\pi - \arccos c)\,c}{\pi}.$$
#
# $\rho(1) = 1$，且对每个 $c < 1$ 都有 $\rho(c) > c$，所以每一对输入都被推向相关系数 1。
# 迭代一个映射，最直观的画法是*蛛网图*：从 $c_0$ 竖直走到曲线上（得到 $c_1$），再水平走到对角线，
# 然后再竖直走到曲线上，如此往复；阶梯的每一级就是一层。

# %%
c = torch.linspace(-1, 1, 201, dtype=torch.float64)
path = nh.correlation_trajectory(torch.tensor(0.0, dtype=torch.float64), 12, "relu")   # c_0 = 0, ..., c_12
stairs = path.repeat_interleave(2)                                             # c0 c0 c1 c1 c2 c2 ...
fig, ax = plt.subplots(figsize=(5.2, 4.8))
ax.plot(c, nh.correlation_map(c, "relu"), label="ReLU, σ_w² = 2")
ax.plot(c, c, "k--", lw=1, label="c′ = c")
ax.plot(stairs[:-1], stairs[1:], color=nh.plotting.PALETTE[1], lw=1.2, label=nh._("12 layers from c₀ = 0"))
ax.set_xlabel(nh._("correlation c at layer l"))
ax.set_ylabel(nh._("correlation c′ at layer l + 1"))
ax.set_title(nh._("Each layer is one step; near c = 1 the steps shrink"))
ax.legend(loc="upper left", fontsize=9)
plt.show()

# %% [markdown]
# **先解释，再预测。** (a) 为什么台阶在 $c = 1$ 附近变短？(b) 十二层把相关系数从 0 推到 0.897。
# 要越过 0.999 需要多少层？先写下一个数，再到下一张图中找曲线穿过 $10^{-3}$ 的位置。
#
# <details><summary>答案</summary>
#
# (a) 曲线在 $c = 1$ 处以恰好为 1 的斜率与对角线相切，所以在 1 附近，曲线与对角线之间的间隙 $\rho(c) - c$
# （也就是下一级台阶的长度）比 $1 - c$ 本身缩小得更快。不动点 $c^* = 1$ 是吸引的，但只是*临界*吸引：
# 逼近的速度是多项式的，而不是指数的。
#
# (b) 199 层。仅仅越过 0.99 就要 57 层：最后的 0.09 用了 45 层，几乎是最初 0.897 所用 12 层的四倍。
# 每一层消除的剩余间隙 $1 - c$ 的比例都比前一层小：第一层消除了约三分之一（阶梯从 0 跳到 0.32），之后各层越来越少。
# 因此间隙只按 $l$ 的某个幂次下降。如果把 $l = 12$ 处的间隙 0.103 按 $(12/l)^2$ 缩放，会得到约 122 层：太少了，
# 因为下面推导的规律 $1 - c_l \approx 9\pi^2/(2l^2)$ 只在 $l$ 很大时成立；在 $l = 12$ 处它给出 0.31，
# 是真实间隙的三倍。
#
# </details>

# %% tags=["check"]
h_step = 1e-6                                 # the finite difference itself is off by about 0.3 √h = 3e-4
slope_at_one = (1 - nh.correlation_map(torch.tensor(1 - h_step, dtype=torch.float64), "relu")) / h_step
nh.check_close("slope of ρ at c = 1 (finite difference)", slope_at_one, 1.0, atol=1e-3)
gap = nh.correlation_map(c[:-1], "relu") - c[:-1]
nh.check_that("ρ(c) > c for every c < 1 on the grid", bool((gap > 0).all()), measured=float(gap.min()),
              expected="> 0")
nh.check_that("the steps of the staircase shrink", bool((path.diff()[1:] < path.diff()[:-1]).all()))
longer = nh.correlation_trajectory(torch.tensor(0.0, dtype=torch.float64), 100, "relu")   # c_0 .. c_100
closed = longer.diff() / (1 - longer[:-1])                    # the share of the gap that each layer closes
nh.check_close("answer (b): c after 12 layers", path[12], 0.897, atol=5e-4)
passes = int((longer > 0.99).nonzero()[0])
nh.check_that("answer (b): the correlation first passes 0.99 after 57 layers", passes == 57, measured=passes,
              expected=57)
farther = nh.correlation_trajectory(torch.tensor(0.0, dtype=torch.float64), 300, "relu")
passes = int((farther > 0.999).nonzero()[0])
nh.check_that("answer (b): the correlation first passes 0.999 after 199 layers", passes == 199,
              measured=passes, expected=199)
nh.check_close("answer (b): the gap at l = 12 scaled by (12/l)² reaches 10⁻³ at l ≈ 122",
               12 * math.sqrt((1 - float(path[12])) / 1e-3), 122, atol=1)
law_at_12 = 9 * math.pi ** 2 / (2 * 12 ** 2)
nh.check_close("answer (b): 9π²/(2l²) at l = 12, about three times the true gap",
               [law_at_12, law_at_12 / (1 - float(path[12]))], [0.31, 3.0], atol=0.01)
nh.check_that("answer (b): each layer closes a smaller fraction of the gap", bool((closed.diff() < 0).all()))
nh.check_close("answer (b): the fraction of the gap that the first layer closes (1/π)", closed[0],
               1 / math.pi, rtol=1e-12)

# %% [markdown]
# ### 为什么是 $1/l^2$：三行推导
#
# 对小角度 $\theta$ 展开 $\rho$：$\sin\theta + (\pi - \theta)\cos\theta = \pi - \pi\theta^2/2 + \theta^3/3 +
# O(\theta^4)$，所以
#
# $$\cos\theta_{l+1} = 1 - \frac{\theta_l^2}{2} + \frac{\theta_l^3}{3\pi} + O(\theta_l^4)
#   \quad\Longrightarrow\quad \theta_{l+1} = \theta_l - \frac{\theta_l^2}{3\pi} + O(\theta_l^3).$$
#
# 于是 $1/\theta_{l+1} = 1/\theta_l + 1/(3\pi) + O(\theta_l)$：角度的倒数每层增加 $1/(3\pi)$，所以
# $\theta_l \approx 3\pi/l$，并且
#
# $$1 - c_l = 1 - \cos\theta_l \approx \frac{\theta_l^2}{2} \approx \frac{9\pi^2}{2l^2}.$$
#
# 从正交输入出发的精确迭代与这个规律对照：

# %%
layers = torch.arange(0, 1001)
trajectory = nh.correlation_trajectory(torch.tensor([0.0], dtype=torch.float64), 1000, "relu")[:, 0]
fig, ax = plt.subplots()
ax.loglog(layers[1:], 1 - trajectory[1:], label=nh._("1 − c_l (orthogonal inputs)"))
ax.loglog(layers[10:], 9 * math.pi ** 2 / (2 * layers[10:] ** 2), "k--", lw=1, label="9π²/(2l²)")
ax.set_xlabel(nh._("layer l"))
ax.set_ylabel("1 − c_l")
ax.set_title(nh._("Correlations reach 1 polynomially: 1 − c_l ≈ 9π²/(2l²)"))
ax.legend()
plt.show()

# %% tags=["check"]
ratio = (1 - trajectory[1000]) * 1000 ** 2 / (9 * math.pi ** 2 / 2)
nh.check_between("(1 − c_l) / (9π²/(2l²)) at l = 1000 (the O(θ) terms make it approach 1 from below)", ratio,
                 0.9, 1.0)

# %% [markdown]
# ### NNGP → 常数，NTK → ¾ I + ¼ 11ᵀ
#
# 深层网络的 NNGP 是最后一层的协方差 $q\,c_L \to q$：归一化后，它对每一对输入都趋于 1，成为常数核。
# NTK 记住的更多，因为它是对各层的求和（第 2 步）：
#
# $$\Theta^{(L+1)}(x,x') = \sum_{l=1}^{L+1}\Sigma^{(l)}(x,x')\prod_{k=l+1}^{L+1}\dot\Sigma^{(k)}(x,x').$$
#
# - 在对角元上每个因子都是精确的：$\Sigma^{(l)}(x,x) = q$，$\dot\Sigma^{(k)}(x,x) = 1$，所以
#   $\Theta^{(L+1)}(x,x) = (L+1)\,q$。
# - 在非对角元上 $\Sigma^{(l)}(x,x') = q\,c_{l-1} \to q$，但反向因子始终小于 1。第 $k$ 层的因子是
#   $\dot\Sigma^{(k)}(x,x') = \sigma_w^2\,\frac{\pi-\theta}{2\pi} = 1 - \frac{\theta}{\pi}$，其中 $\theta$ 是下面一层中
#   两个输入的预激活之间的夹角。经过大约 $k$ 层之后，这个夹角为 $\theta \approx 3\pi/k$（见上面的推导；严格地说，第 $k$ 层的因子用的是
#   下面一层的夹角 $\theta_{k-1}$，但 $k$ 较大时 $3\pi/(k-1) \approx 3\pi/k$），所以这个因子约为 $1 - 3/k$，而这些因子的乘积是一个幂律：
#   $\prod_{k=l+1}^{L+1}\bigl(1 - \frac3k\bigr) \approx \exp\bigl(-3\sum_{k=l+1}^{L+1}\frac1k\bigr) \approx \bigl(\frac lL\bigr)^3$。
# - 所以第 $l$ 层给 $\Theta(x,x')$ 贡献约 $q\,(l/L)^3$，而给 $\Theta(x,x)$ 贡献 $q$，于是
#
# $$\frac{\Theta^{(L+1)}(x,x')}{\Theta^{(L+1)}(x,x)} \approx \frac1{L+1}\sum_{l=1}^{L+1}\Bigl(\frac lL\Bigr)^3
#   \;\longrightarrow\; \int_0^1 u^3\,du = \frac14 .$$
#
# 对任意一对长度相同的不同输入，无论夹角多大，这个极限都一样：在 $n$ 个这样的输入上，归一化 NTK 趋于
# $\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$。下面是两个正交输入，深度直到 1000：

# %%
orthogonal = nh.pair_at_angle(math.pi / 2, d=2)
deep = nh.mlp_kernels_by_depth(orthogonal, depth=1000, activation="relu")
ntk_corr = deep.ntk[:, 0, 1] / deep.ntk[:, 0, 0]
nngp_corr = deep.nngp[:, 0, 1] / deep.nngp[:, 0, 0]
fig, ax = plt.subplots()
ax.semilogx(deep.depths, nngp_corr, label="NNGP  Σ(x,x′)/Σ(x,x)")
ax.semilogx(deep.depths, ntk_corr, label="NTK  Θ(x,x′)/Θ(x,x)")
ax.axhline(0.25, color="k", ls="--", lw=1, label="1/4")
ax.set_xlabel(nh._("depth L"))
ax.set_ylabel(nh._("normalized kernel, orthogonal inputs"))
ax.set_title(nh._("The NNGP forgets the angle; the normalized NTK settles at ¼"))
ax.legend()
plt.show()

# %%
print(nh._("depth 1000: normalized NNGP {nngp:.4f}, normalized NTK {ntk:.4f}, Θ(x,x) = {theta:.0f} = (L+1)·q")
      .format(nngp=float(nngp_corr[-1]), ntk=float(ntk_corr[-1]), theta=float(deep.ntk[-1, 0, 0])))
peak = int(ntk_corr.argmax())
print(nh._("normalized NTK: largest {peak:.3f} at depth {at}; {at_100:.4f} at depth 100").format(
    peak=float(ntk_corr[peak]), at=int(deep.depths[peak]), at_100=float(ntk_corr[99])))
k = torch.tensor([10, 100])
damping = k * torch.arccos(trajectory[k - 2]) / math.pi          # layer k's factor is 1 − θ/π = 1 − damping/k
print(nh._("backward factors 1 − a/k: a = {a_10:.2f} at k = 10, {a_100:.2f} at k = 100 (large k: a → 3)")
      .format(a_10=float(damping[0]), a_100=float(damping[1])))

# %% [markdown]
# **为什么会有一个凸起？** 归一化 NTK 并不是直接降到 ¼：它先在 $L = 10$ 附近升到 0.3 以上。
# 上面推导中的哪一个近似在深度较小时不成立？最后打印的那一行是提示。
#
# <details><summary>答案</summary>
#
# 反向因子 $1 - \theta/\pi \approx 1 - 3/k$ 用的是 $k$ 较大时的夹角 $\theta \approx 3\pi/k$。在最初几层，夹角还远小于
# $3\pi/k$（当 $k < 3$ 时 $3\pi/k$ 甚至超过 π），所以这些因子的衰减作用更弱：写成 $1 - a/k$ 的形式，
# $k = 10$ 时 $a = 1.86$，$k = 100$ 时 $a = 2.74$，都不是 3。如果 $a$ 是常数，权重 $(l/L)^a$ 给出的比值是
# $1/(a+1)$，只要 $a < 3$ 就大于 ¼。随着 $a$ 缓慢地趋于 3，曲线慢慢降下来：最大值 0.316 出现在 $L = 11$，
# $L = 100$ 时为 0.2725，$L = 1000$ 时为 0.2533。（最开始的上升来自前向因子：正交输入的起点是
# $\Sigma^{(1)}(x,x') = 0$。）
#
# </details>

# %% tags=["check"]
nh.check_between("normalized NNGP at depth 1000", nngp_corr[-1], 0.999, 1.0)
nh.check_close("normalized NTK at depth 1000 (0.2533, still approaching 1/4)", ntk_corr[-1], 0.2533,
               atol=5e-5)
with_bias = nh.mlp_kernels_by_depth(orthogonal, depth=1000, activation="relu", sigma_b=0.5).ntk[-1]
nh.check_between("the ¼ limit needs σ_b = 0: with σ_b = 0.5 the normalized NTK at depth 1000 heads for 4/7",
                 with_bias[0, 1] / with_bias[0, 0], 0.55, 4 / 7)
nh.check_close("Θ(x,x) at depth 1000 = (L+1) q = 2002", deep.ntk[-1, 0, 0], 1001 * 2.0, rtol=1e-12)
nh.check_close("the bump: largest normalized NTK, and at depth 100", [ntk_corr[peak], ntk_corr[99]],
               [0.316, 0.2725], atol=5e-4)
nh.check_that("the bump: the largest normalized NTK is at depth 11", int(deep.depths[peak]) == 11,
              measured=int(deep.depths[peak]), expected=11)
nh.check_close("the bump: a at k = 10 and k = 100", damping, [1.86, 2.74], atol=5e-3)
every_k = torch.arange(2, 1001)
nh.check_that("the bump: a < 3 at every k ≤ 1000 (the factors damp less than 1 − 3/k)",
              bool((every_k * torch.arccos(trajectory[every_k - 2]) / math.pi < 3).all()))
# Layer k's factor read off the kernels: Σ̇^(k) = (Θ^(k) − Σ^(k)) / Θ^(k−1), where deep.ntk[L − 1] is Θ^(L+1).
factor = lambda k: (deep.ntk[k - 2, 0, 1] - deep.nngp[k - 2, 0, 1]) / deep.ntk[k - 3, 0, 1]
nh.check_close("the bump: a = k (1 − Σ̇⁽ᵏ⁾) from the kernels, k = 10 and 100", [10 * (1 - factor(10)),
               100 * (1 - factor(100))], damping, rtol=1e-9)

# %% [markdown]
# 常数加上单位矩阵的倍数是**满秩**的。为了数出一个核矩阵 $K$ 实际用到了多少个方向，本课程使用它的
# **有效秩**（第 08 课）
#
# $$r_\text{eff}(K) = \frac{(\operatorname{tr} K)^2}{\operatorname{tr}(K^2)} = \frac{\bigl(\sum_i\lambda_i\bigr)^2}{\sum_i\lambda_i^2},$$
#
# 对 $n\times n$ 单位矩阵它等于 $n$，对秩为一的矩阵等于 1。对 $\tfrac34 I + \tfrac14\mathbf 1\mathbf
# 1^\top$ 它等于 $16n/(n+15)$（文末的一道题推导了它），$n = 50$ 时为 12.3。下面取 $\mathbb R^{10}$ 中半径为 $\sqrt d$ 的球面（因而 $x\cdot x/d = 1$）上的 50 个随机点，
# 深度 500：

# %%
points = nh.sphere(50, d=10, seed=2)
deep50 = nh.mlp_kernels_by_depth(points, depth=500, activation="relu")
r_ntk = nh.effective_rank(nh.normalize(deep50.ntk[-1]))
r_nngp = nh.effective_rank(deep50.nngp[-1])
smallest = float(nh.eigenvalues(nh.normalize(deep50.ntk[-1]))[-1])
print(nh._("depth 500, n = 50: r_eff(NTK) = {r_ntk:.2f} (limit 16n/(n+15) = {limit:.2f}), r_eff(NNGP) = "
           "{r_nngp:.4f}; smallest eigenvalue of the normalized NTK {smallest:.3f} (limit 3/4)").format(
    r_ntk=r_ntk, limit=16 * 50 / 65, r_nngp=r_nngp, smallest=smallest))

# %% tags=["check"]
nh.check_close("r_eff of the normalized NTK vs 16n/(n+15) (10 %: depth 500 is not yet the limit)", r_ntk,
               16 * 50 / 65, rtol=0.1)
nh.check_between("r_eff of the NNGP at depth 500 (→ 1)", r_nngp, 1.0, 1.01)
nh.check_between("smallest eigenvalue of the normalized NTK (limit 3/4)", smallest, 0.7, 0.8)

# %% [markdown]
# ### 核退化的代价：泛化
#
# 用 NTK 做核回归，$\hat f(x) = \Theta(x,X)\,\Theta(X,X)^{-1}y$，得到的是无限宽网络在平方损失上用梯度下降训练到收敛、
# 再对随机初始化取平均后的**平均**预测。（单个这样的网络还要加上 $f_0(x) - \Theta(x,X)\Theta(X,X)^{-1}f_0(X)$，
# 其中 $f_0$ 是它在初始化时的随机函数；见 Lee et al. 2019 和第 [07](07_training_dynamics.ipynb) 课。）
# 对深层 ReLU 的 NTK：
#
# - 在训练点上它精确地返回标签，因为 $\Theta(X,X)$ 是满秩的；
# - 在训练集之外，对*每个*训练点 $x_i$ 和每个新输入 $x$ 都有 $\Theta(x, x_i)/\Theta(x,x) \approx \tfrac14$，
#   所以预测几乎处处是同一个数。
#
# 下面取 $\mathbb R^{10}$ 中半径为 $\sqrt{10}$ 的球面（$x\cdot x/d = 1$）上的一个光滑目标函数，100 个训练点和 200 个测试点，以及深度 1 到 50 的 NTK：

# %%
data = nh.sphere(300, d=10, seed=1)
direction_a, direction_b = nh.sphere(2, d=10, seed=7) / math.sqrt(10)
target = lambda X: torch.cos(2 * X @ direction_a / math.sqrt(10)) + X @ direction_b / math.sqrt(10)
y = target(data)
train, test = slice(0, 100), slice(100, 300)
depths = [1, 2, 5, 20, 50]
by_depth = nh.mlp_kernels_by_depth(data, depth=max(depths), activation="relu")
predictions = {L: nh.kernel_regression(by_depth.ntk[L - 1][train, train], by_depth.ntk[L - 1][test, train],
                                       y[train]) for L in depths}
test_mse = [float(((predictions[L] - y[test]) ** 2).mean()) for L in depths]
spread = float(predictions[50].std() / predictions[1].std())
print(nh._("test MSE by depth {depths}: {mse}; variance of the test labels {variance:.3f}").format(
    depths=depths, mse=", ".join(f"{v:.4f}" for v in test_mse), variance=float(y[test].var())))
print(nh._("spread of the test predictions (standard deviation), depth 50 / depth 1: {ratio:.3f}").format(
    ratio=spread))

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.semilogy(depths, test_mse, "o-", label=nh._("NTK regression"))
left.axhline(float(y[test].var()), color="k", ls="--", lw=1, label=nh._("predict the mean"))
left.set_xlabel(nh._("depth L"))
left.set_ylabel(nh._("test MSE"))
left.set_title(nh._("Test error rises with depth"))
left.legend()
for L, colour in ((1, 0), (50, 1)):
    right.plot(y[test], predictions[L], ".", color=nh.plotting.PALETTE[colour],
               label=nh._("depth {depth}").format(depth=L))
right.plot([-0.2, 1.8], [-0.2, 1.8], "k--", lw=1)                              # prediction = target
right.set_xlabel(nh._("target y on a test point"))
right.set_ylabel(nh._("prediction"))
right.set_title(nh._("At depth 50 the predictions are nearly flat"))
right.legend()
plt.show()

# %% tags=["check"]
fit = nh.kernel_regression(by_depth.ntk[49][train, train], by_depth.ntk[49][train, train], y[train])
nh.check_close("depth 50 still fits every training label", fit, y[train], atol=1e-6)
nh.check_that("the test MSE grows with every depth step", all(a < b for a, b in zip(test_mse, test_mse[1:])),
              measured=str([round(v, 4) for v in test_mse]), expected="increasing")
nh.check_between("test MSE at depth 50 / variance of the labels (near predicting the mean)",
                 test_mse[-1] / float(y[test].var()), 0.5, 1.0)
nh.check_between("spread of the test predictions, depth 50 / depth 1 (they flatten)", spread, 0.0, 0.25)
nh.check_close("question 5 at the end: the spread ratio, the test MSE at depth 50, the label variance",
               [spread, test_mse[-1], float(y[test].var())], [1 / 6, 0.101, 0.129], atol=5e-3)
nh.check_close("question 5: the spread ratio, printed as 0.171", spread, 0.171, atol=5e-4)
ones = torch.ones(100, dtype=torch.float64)
limit_kernel = 0.75 * torch.eye(100, dtype=torch.float64) + 0.25 * ones[:, None] * ones[None, :]
nh.check_close("question 5: ¼ 1ᵀ(¾I + ¼11ᵀ)⁻¹y = n ȳ/(n + 3)",
               0.25 * ones @ torch.linalg.solve(limit_kernel, y[train]), 100 / 103 * y[train].mean(),
               rtol=1e-10)
nh.check_close("question 5: ȳ of the training labels and n ȳ/(n + 3)",
               [y[train].mean(), 100 / 103 * y[train].mean()], [0.807, 0.783], atol=5e-4)
nh.check_close("question 5: the mean of the depth-50 test predictions", predictions[50].mean(), 0.793,
               atol=5e-4)

# %% [markdown]
# ## 有序与混沌（tanh、erf）
#
# 对带偏置的有界激活函数，方差映射有一个不动点 $q^* > 0$，几层之内就能到达（除非 $\sigma_w^2\phi'(0)^2 \approx 1$ 且 $\sigma_b$ 很小：对 tanh、$\sigma_w = 1$、$\sigma_b = 0.05$，要大约 40 层才能相差不到 1 %）。
# 当两个输入的方差都是 $q^*$ 时，一层按一般的**相关映射**变换它们的相关系数：
#
# $$c_{l+1} = \rho(c_l), \qquad \rho(c) = \frac{\sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2}{q^*}, \qquad
#   (u, v) \sim \mathcal N\Bigl(0,\ q^*\begin{pmatrix}1 & c\\ c & 1\end{pmatrix}\Bigr)$$
#
# （对无偏置、$\sigma_w^2 = 2$ 的 ReLU，它就是 4.1.2 中的 $\rho$，对任意 $q$ 都一样）。
#
# **它的斜率就是 $\dot\Sigma$。** 对中心化的高斯对，$\partial\,\mathbb E[\phi(u)\phi(v)] / \partial\,
# \mathrm{Cov}(u,v) = \mathbb E[\phi'(u)\phi'(v)]$，其中方差保持不变（Price 定理，或高斯分部积分）。这里
# $\mathrm{Cov}(u,v) = q^*c$，所以 $q^*$ 被约掉：
#
# $$\rho'(c) = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)] = \dot\Sigma(x,x'),$$
#
# 即相关系数为 $c$ 的一对输入的 $\dot\Sigma$。在 $c = 1$ 处，这就是决定相关系数命运的那个数（Poole et al. 2016；Schoenholz et al. 2017）：
#
# $$\chi_1 = \rho'(1) = \sigma_w^2\,\mathbb E_{z\sim\mathcal N(0,1)}\bigl[\phi'(\sqrt{q^*}\,z)^2\bigr] = \dot\Sigma(x,x),$$
#
# 即每一层把反向传播梯度的平方范数放大或缩小的倍数（第 2 步）。对 $\sigma_w^2 = 2$ 的 ReLU，
# $\dot\Sigma(x,x) = 1$：这就是它的映射在 $c = 1$ 处斜率恰好为 1 的原因。

# %% [markdown]
# **三种相。** $\chi_1$ 小于、大于还是等于 1，决定了深度的作用。在每一种相中，**深度尺度**都是剩余距离缩小 $e$ 倍
# 所需的层数。
#
# - $\chi_1 < 1$，**有序相**：所有输入都变得完全相关，而且是指数式的：$1 - c$ 每层大约乘以 $\chi_1$
#   （深度尺度为 $-1/\ln\chi_1$）。NTK 比 NNGP 更慢地趋于常数矩阵
#   $q^*/(1-\chi_1)\,\mathbf 1\mathbf 1^\top$：秩为一，因此梯度下降只能让所有输出一起移动。
# - $\chi_1 > 1$，**混沌相**：$c = 1$ 是排斥的，相关系数稳定在 $\rho$ 的稳定不动点 $c^* < 1$，那里的斜率
#   $\chi_c = \rho'(c^*)$ 小于 1。相关系数高于 $c^*$ 的输入对被推开，低于 $c^*$ 的被拉近，到 $c^*$ 的距离每层大约乘以
#   $\chi_c$（深度尺度为 $-1/\ln\chi_c$）。$\Theta(x,x)$ 按 $\chi_1^l$ 增长，而在非对角元上递归变成
#   $\Theta(x,x') \leftarrow q^*c^* + \chi_c\,\Theta(x,x')$，它保持有界（趋于 $q^*c^*/(1-\chi_c)$）。
#   所以归一化 NTK 趋于单位矩阵：每个输入看起来都与其他输入无关；用它做核回归，训练集之外的预测值随深度增加而趋于 0。
# - $\chi_1 = 1$，**混沌边缘**：缓慢的、多项式速度的区域，与 $\sigma_w^2 = 2$ 时的 ReLU 类似。
#
# 带偏置的 ReLU 也有相：当 $\sigma_w^2 < 2$ 时，它的方差映射有不动点
# $q^* = \sigma_b^2/(1 - \sigma_w^2/2)$，且 $\chi_1 = \sigma_w^2/2 < 1$，所以它处于有序相（从不进入混沌相：当 $\sigma_w^2 > 2$ 时方差无界增长）。
#
# 下面 tanh 的相图用颜色表示 $\log\chi_1$。底边上的绿色线段是第四种、退化的情形，在接下来两幅图之后讨论。

# %%
sigma_w2_grid = torch.linspace(0.5, 4.0, 36, dtype=torch.float64)
sigma_b2_grid = torch.linspace(0.0, 0.5, 26, dtype=torch.float64)
chi = nh.chi1("tanh", sigma_w=sigma_w2_grid[None, :].sqrt(),        # the axes show the squares σ_w², σ_b²
              sigma_b=sigma_b2_grid[:, None].sqrt())                  # (26, 36)

fig, ax = plt.subplots()
log_chi = torch.log(chi)
norm = colors.TwoSlopeNorm(vmin=float(log_chi.min()), vcenter=0.0, vmax=float(log_chi.max()))   # 0 = white
image = ax.pcolormesh(sigma_w2_grid, sigma_b2_grid, log_chi, cmap="RdBu_r", norm=norm, shading="auto")
ax.contour(sigma_w2_grid, sigma_b2_grid, chi, levels=[1.0], colors="k")
ax.plot([], [], "k-", label=nh._("edge of chaos, χ₁ = 1"))
ax.plot([1.761], [0.05], "k*", ms=12, label=nh._("a point on the edge of chaos (1.761, 0.05)"))
ax.plot([0.5, 1.0], [0.0, 0.0], color=nh.plotting.PALETTE[2], lw=6, label=nh._("q* = 0 (degenerate)"))
outline = [patheffects.withStroke(linewidth=3, foreground="black")]                # readable on dark blue
ax.text(0.7, 0.42, nh._("ordered\nχ₁ < 1"), fontsize=12, color="white", fontweight="bold",
        path_effects=outline)
ax.text(3.1, 0.3, nh._("chaotic\nχ₁ > 1"), fontsize=12)
ax.set_xlabel("σ_w²")
ax.set_ylabel("σ_b²")
ax.set_title(nh._("tanh: the line χ₁ = 1 separates order (blue) from chaos (red)"))
ax.legend(loc="lower right", fontsize=9)
plt.colorbar(image, ax=ax, label="log χ₁")
plt.show()

# %% tags=["check"]
edge = nh.chi1("tanh", sigma_w=math.sqrt(1.761), sigma_b=math.sqrt(0.05))
nh.check_close("χ₁ at the point (1.761, 0.05) on the edge of chaos (5e-3: its three digits)", edge, 1.0,
               atol=5e-3)

# %% [markdown]
# 两个输入的相关系数在每个相中穿过 40 个 tanh 层（图例标出 $(\sigma_w^2, \sigma_b^2)$，始终取
# $\sigma_b^2 = 0.05$），分别从 $c_0 = 0.2$（实线）和 $c_0 = 0.95$（虚线）出发。两个输入的起始方差都是 $q_0 = 1$，
# 而不是 $q^*$，所以前几层同时也在把方差带到它的不动点：

# %%
phases = {nh._("ordered (1.0, 0.05)"): 1.0, nh._("edge (1.761, 0.05)"): 1.761,  # σ_w² of each
          nh._("chaotic (3.0, 0.05)"): 3.0}
starts = torch.tensor([0.2, 0.95], dtype=torch.float64)
fig, ax = plt.subplots(figsize=(9.5, 4.2))
paths = []                                                                   # ordered, edge, chaotic
for index, (name, w2) in enumerate(phases.items()):
    paths.append(nh.correlation_trajectory(starts, 40, "tanh", sigma_w=math.sqrt(w2),
                                           sigma_b=math.sqrt(0.05)))                   # (41 layers, 2 starts)
    ax.plot(paths[-1][:, 0], color=nh.plotting.PALETTE[index], label=name)
    ax.plot(paths[-1][:, 1], "--", color=nh.plotting.PALETTE[index])
ax.plot([], [], "k-", label=nh._("from c₀ = 0.2"))
ax.plot([], [], "k--", label=nh._("from c₀ = 0.95"))
ax.set_xlabel(nh._("layer"))
ax.set_ylabel(nh._("correlation c_l"))
ax.set_title(nh._("Order pulls correlations to 1, the edge only slowly; chaos drives them to c* < 1 "
                  "from both sides"), fontsize=11)
ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0))     # outside: the curves cross inside
zoom = ax.inset_axes([1.08, 0.0, 0.3, 0.36])                                 # below the legend, outside
zoom.plot(paths[1][:13, 1], "--", color=nh.plotting.PALETTE[1])
zoom.axhline(0.95, color="k", ls=":", lw=1)
zoom.set_title(nh._("zoom: the edge from 0.95 first dips"), fontsize=9)
zoom.tick_params(labelsize=8)
plt.show()
chaotic_w2 = list(phases.values())[-1]
chaos = nh.signal_regime("tanh", sigma_w=math.sqrt(chaotic_w2), sigma_b=math.sqrt(0.05))
print(nh._("chaotic (σ_w² = {w2}): χ₁ = {chi:.3f}, c* = {c_star:.3f}, depth scale {scale:.1f} layers").format(
    w2=chaotic_w2, chi=chaos.chi1, c_star=chaos.c_star, scale=chaos.depth_scale))

# %% [markdown]
# 混沌边缘的虚线先下降，四层之内从 0.950 降到 0.944（见右侧放大图），然后才上升。这是因为起点 $q_0 = 1$
# 高于混沌边缘的 $q^* = 0.57$。
#
# - **方差 $q$ 变化时的斜率。** 第 $l+1$ 层给出 $c_{l+1} = (\sigma_w^2\,\mathbb E[\phi(u)\phi(v)] + \sigma_b^2)/q_{l+1}$，
#   其中 $\mathrm{Cov}(u,v) = q_l c_l$，所以由 Price 定理，斜率为 $\partial c_{l+1}/\partial c_l =
#   \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)]\,q_l/q_{l+1}$；在 $c = 1$ 处它是
#   $\sigma_w^2\,\mathbb E[\phi'(\sqrt{q_l}\,z)^2]\,q_l/q_{l+1}$。
# - **每一层都大于 1。** 方差缩小时，$q_l/q_{l+1} > 1$ 把这个斜率抬到 1 以上：前五层依次为 1.099、1.043、
#   1.021、1.010、1.005，随着 $q_l \to q^*$ 趋于 1。所以在 $c = 1$ 附近，每一层都把这一对输入稍稍推开。
# - **下降为何停止。** 在 1 处的斜率只确定那里的切线；映射是向上弯的，所以在 $c = 0.944$ 处它略高于那条切线。
#   四层之后斜率已非常接近 1，这个弯曲占了上风，相关系数转而上升。若从 $q_0 = q^*$ 出发，虚线每一层都上升。
#
# **先预测，再运行。** 在上面的单元格中，把混沌相的 $\sigma_w^2$ 从 3.0 提高到 4.0（把 `phases` 的最后一项改成
# `"chaotic (4.0, 0.05)": 4.0`），再运行一次。$c^*$ 会更高还是更低？虚线到达那里所需的层数会更少还是更多？
# （之后请改回 3.0。）提示：$c^*$ 是 $\rho$ 与对角线的交点，而 $\rho$ 从 $\rho(0) = \sigma_b^2/q^*$（tanh 是奇函数）
# 走到 $\rho(1) = 1$，在那里的斜率为 $\chi_1$。$\sigma_w^2$ 增大时，$q^*$ 和 $\chi_1$ 各往哪个方向变？
#
# <details><summary>答案</summary>
#
# 更低，而且更快：$c^* = 0.165$，而不是 0.299。更大的 $\sigma_w^2$ 使 $q^*$ 增大，于是 $\rho(0) = \sigma_b^2/q^*$ 下降；
# 它还让 $\rho$ 在 1 处更陡（$\chi_1 = 1.342$，而不是 1.209）：曲线与对角线的交点更低。速度由 $c^*$ 处的斜率决定：
# 到 $c^*$ 的距离每层乘以 $\chi_c = 0.867$，而不是 0.895（深度尺度 $-1/\ln\chi_c$ 为 7.0 层，而不是 9.1 层），
# 虚线在 20 层之后就降到约 0.33，而不是 40 层之后。
#
# </details>

# %% tags=["check"]
nh.check_between("ordered: correlation after 40 layers, from both starts", paths[0][-1].min(), 0.999,
                 1.0)
nh.check_close("chaotic: correlation after 40 layers from c₀ = 0.2 vs c* (depth scale 9 layers: 3e-3)",
               paths[2][-1, 0], chaos.c_star, atol=3e-3)
nh.check_that("chaotic: from c₀ = 0.95 the correlation falls at every layer (inputs pushed apart)",
              bool((paths[2][:, 1].diff() < 0).all()))
nh.check_that("ordered > edge > chaotic after 40 layers, from c₀ = 0.2",
              bool(paths[0][-1, 0] > paths[1][-1, 0] > paths[2][-1, 0]),
              measured=str([round(float(p[-1, 0]), 4) for p in paths]), expected="decreasing")
hotter = nh.signal_regime("tanh", sigma_w=2.0, sigma_b=math.sqrt(0.05))                 # σ_w² = 4
hotter_path = nh.correlation_trajectory(starts, 40, "tanh", sigma_w=2.0, sigma_b=math.sqrt(0.05))
nh.check_close("the answer: χ₁, c*, depth scale at σ_w² = 3 and 4",
               [chaos.chi1, chaos.c_star, chaos.depth_scale, hotter.chi1, hotter.c_star, hotter.depth_scale],
               [1.209, 0.299, 9.05, 1.342, 0.165, 6.98], atol=6e-3)
nh.check_close("the answer: the dashed curve after 20 layers at σ_w² = 4 and after 40 at σ_w² = 3",
               [hotter_path[20, 1], paths[2][40, 1]], [0.33, 0.33], atol=0.01)
# The chaotic depth scale is −1/ln χ_c, χ_c = ρ′(c*) = Σ̇(x,x′) at c* (central difference of one layer at q*).
one_layer = lambda c0: float(nh.correlation_trajectory(torch.tensor(c0, dtype=torch.float64), 1, "tanh",
                                                       sigma_w=math.sqrt(3.0), sigma_b=math.sqrt(0.05),
                                                       q0=chaos.q_star)[1])
chi_c = (one_layer(chaos.c_star + 1e-5) - one_layer(chaos.c_star - 1e-5)) / 2e-5
nh.check_close("chaotic depth scale = −1/ln ρ′(c*)", chaos.depth_scale, -1 / math.log(chi_c), rtol=1e-6)
nh.check_close("ρ′(1) = χ₁ (one-sided difference: 1e-4)", (1 - one_layer(1 - 1e-6)) / 1e-6, chaos.chi1,
               rtol=1e-4)
chaotic_pair = nh.mlp(60, "tanh", sigma_w=math.sqrt(3.0), sigma_b=math.sqrt(0.05)).kernel(
    nh.pair_at_angle(math.pi / 3)).ntk
nh.check_close("chaotic: Θ(x,x′) at depth 60 vs q*c*/(1 − χ_c) (2 %: still approaching)", chaotic_pair[0, 1],
               chaos.q_star * chaos.c_star / (1 - chi_c), rtol=0.02)
edge_dashed = paths[1][:, 1]
nh.check_close("the dip: the edge's dashed curve at its lowest, 4 layers in", edge_dashed.min(), 0.944,
               atol=5e-4)
nh.check_that("the dip: lowest after 4 layers", int(edge_dashed.argmin()) == 4,
              measured=int(edge_dashed.argmin()), expected=4)
edge_regime = nh.signal_regime("tanh", sigma_w=math.sqrt(1.761), sigma_b=math.sqrt(0.05))
nh.check_close("the dip: the edge's q*", edge_regime.q_star, 0.57, atol=5e-3)
near_one = torch.tensor(1 - 1e-6, dtype=torch.float64)
first_slope = (1 - float(nh.correlation_trajectory(near_one, 1, "tanh", sigma_w=math.sqrt(1.761),
                                                   sigma_b=math.sqrt(0.05))[1])) / 1e-6
nh.check_close("the dip: the first layer's slope at c = 1, from q₀ = 1", first_slope, 1.10, atol=5e-3)
from_q_star = nh.correlation_trajectory(starts, 40, "tanh", sigma_w=math.sqrt(1.761), sigma_b=math.sqrt(0.05),
                                        q0=edge_regime.q_star)[:, 1]
nh.check_that("the dip: from q₀ = q* the dashed curve rises at every layer",
              bool((from_q_star.diff() > 0).all()))
near = nh.correlation_trajectory(torch.tensor(1 - 1e-7, dtype=torch.float64), 40, "tanh",
                                 sigma_w=math.sqrt(1.761), sigma_b=math.sqrt(0.05))
slopes = (1 - near[1:]) / (1 - near[:-1])                         # each layer's slope at c = 1, from q₀ = 1
nh.check_close("the dip: the slopes at c = 1 of the first five layers", slopes[:5],
               [1.099, 1.043, 1.021, 1.010, 1.005], atol=6e-4)
nh.check_that("the dip: the slope at c = 1 is above 1 at every one of the 40 layers",
              bool((slopes > 1).all()),
              measured=float(slopes.min()), expected="> 1")
tangent = 1 - slopes * (1 - edge_dashed[:-1])                     # each layer's tangent at c = 1, at c_l
nh.check_that("the dip: each layer's map lies above its tangent at c = 1 (it curves upwards)",
              bool((edge_dashed[1:] > tangent).all()))
nh.check_close("the answer: χ_c = exp(−1/depth scale) at σ_w² = 3 and 4",
               [math.exp(-1 / chaos.depth_scale), math.exp(-1 / hotter.depth_scale)], [0.895, 0.867],
               atol=5e-4)
nh.check_close("the answer: χ_c at σ_w² = 3 from the central difference", chi_c, 0.895, atol=5e-4)
nh.check_that("the hint: q* grows with σ_w² (3 → 4), so ρ(0) = σ_b²/q* drops",
              hotter.q_star > chaos.q_star,
              measured=str([round(chaos.q_star, 3), round(hotter.q_star, 3)]), expected="increasing")
nh.check_close("the hint: ρ(0) = σ_b²/q* for tanh at σ_w² = 3", one_layer(0.0), 0.05 / chaos.q_star,
               rtol=1e-9)

# %% [markdown]
# ### 一种退化情形：无偏置、$\sigma_w$ 较小
#
# 取**无偏置且 $\sigma_w$ 较小**的情形，$\sigma_w^2\phi'(0)^2 \le 1$（tanh 为 $\sigma_w \le 1$，erf 为
# $\sigma_w \le \sqrt\pi/2 \approx 0.89$）。这时方差映射在 0 以上没有不动点：方差逐渐消失，$q^* = 0$。
# 在相图上，这种情形是绿色的底边 $\sigma_b^2 = 0$、$\sigma_w^2 \le 1$，它的端点 $(1, 0)$ 正是混沌边缘曲线与它相交的地方。
#
# - **梯度。** 在边界以下，即 $\sigma_w^2\phi'(0)^2 < 1$ 时，方差和 NTK 的尺度都随深度按指数消失，到达前面各层的梯度
#   也是如此。（在有序相中只有梯度如此：那里 $q \to q^* > 0$，$\Theta(x,x) \to q^*/(1-\chi_1)$。）而*在*边界
#   $\sigma_w^2\phi'(0)^2 = 1$ 上，方差只按 $1/(2l)$ 下降，梯度只以多项式速度缩小，$\Theta(x,x)$ 趋于 ½，而不是趋于 0。
# - **相关系数**既不趋于 1，也不趋于一个共同的 $c^*$：预激活缩小到 $\phi$ 呈线性的范围内，相关映射趋于恒等映射，
#   每一对输入的相关系数都*冻结*了：几乎不离开它的起始值。

# %% [markdown]
# 退化情形：无偏置的 tanh，取 $\sigma_w = 0.5$、$0.8$ 以及边界上的 $\sigma_w = 1$，画出 100 层内的方差
# $q_l$、NTK 的尺度 $\Theta(x,x)$ 以及 60° 处（输入相关系数 0.5）的归一化 NNGP。在边界上，方差只按 $1/(2l)$
# 衰减：那里 $\tanh(u)^2 \approx u^2 - \tfrac23u^4$ 给出 $q_{l+1} \approx q_l - 2q_l^2$，所以 $q_l \approx 1/(2l)$。
# 在边界以下则按指数衰减。中间一图的插图以线性刻度画出 $\sigma_w = 1$ 时的 $\Theta(x,x)$。
#
# 在右图中，点线是输入相关系数 0.5。在深度 1 处曲线就已位于它下方：第一个隐藏层的方差为 $q_1 = \sigma_w^2$
# （这里 $x\cdot x/d = 1$），大到 tanh 还不能近似为线性；而对无偏置的奇函数 $\phi$，相关映射在 $0 < c < 1$ 时满足
# $\rho(c) < c$（它关于 $c$ 的展开只含奇次幂）。

# %%
layers_100 = torch.arange(1, 101)
fig, (left, middle, right) = plt.subplots(1, 3, figsize=(14, 3.9))
for index, small in enumerate((0.5, 0.8, 1.0)):
    kernels = sp.ring_kernels("tanh", small, 0.0)                          # depths 1..100, inputs on a circle
    style = dict(color=nh.plotting.PALETTE[index], label=f"σ_w = {small}")
    left.loglog(layers_100 + 1, kernels.variance, **style)                 # mlp(L)'s output: layer l = L + 1
    middle.semilogy(layers_100, kernels.ntk_scale, **style)
    right.plot(layers_100, kernels.nngp[:, sp.AT_60], **style)
left.loglog(layers_100 + 1, 1 / (2 * (layers_100 + 1.0)), "k--", lw=1, label="1/(2l)")
left.set_ylim(1e-12, 3)
middle.axhline(0.5, color="k", ls=":", lw=1)
linear = middle.inset_axes([0.1, 0.08, 0.42, 0.36])                       # empty lower left of the panel
linear.plot(layers_100, sp.ring_kernels("tanh", 1.0, 0.0).ntk_scale, color=nh.plotting.PALETTE[2])
linear.axhline(0.5, color="k", ls=":", lw=1)
linear.set_ylim(0, 1)
linear.set_title(nh._("σ_w = 1, linear scale"), fontsize=8)
linear.tick_params(labelsize=7)
right.axhline(0.5, color="k", ls=":", lw=1, label=nh._("input correlation 0.5"))
right.set_ylim(0.3, 0.7)
for ax, x_label, y_label, title in (
        (left, nh._("layer l = L + 1"), nh._("variance q_l"),
         nh._("The variance dies, like 1/(2l) at σ_w = 1")),
        (middle, nh._("depth L"), "Θ(x,x)",
         nh._("So does the NTK's scale, but not at σ_w = 1 (→ ½, inset)")),
        (right, nh._("depth L"), nh._("normalized NNGP at 60°"),
         nh._("The correlation stays below the input's 0.5, never nears 1"))):
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_title(title, fontsize=11)
    ax.legend(fontsize=9, loc="center right" if ax is middle else "best")
plt.show()
boundary = nh.self_kernels_by_depth(1.0, depth=1000, activation="tanh", sigma_w=1.0, sigma_b=0.0)[1]
print(nh._("tanh, σ_w = 1, no bias: Θ(x,x) = {d10:.3f}, {d100:.3f}, {d1000:.3f} at depths 10, 100, 1000")
      .format(d10=float(boundary[9]), d100=float(boundary[99]), d1000=float(boundary[999])))

# %% [markdown]
# **解释一下。** 在边界 $\sigma_w = 1$ 上，方差仍然趋于 0，但 $\Theta(x,x)$ 却稳定在 ½ 附近。这个 ½ 从何而来？
# 提示：$\Theta(x,x) = \sum_l q_l\prod_{k>l}\dot\Sigma^{(k)}(x,x)$，并且 $u$ 很小时 $\tanh'(u)^2 \approx 1 - 2u^2$。
#
# <details><summary>答案</summary>
#
# 由 $q_l \approx 1/(2l)$，第 $k$ 层在对角元上的反向因子为
# $\dot\Sigma^{(k)}(x,x) = \mathbb E[\tanh'(\sqrt{q_{k-1}}\,z)^2] \approx 1 - 2q_{k-1} \approx 1 - 1/k$，所以第 $l$ 层
# 上方所有因子的乘积约为 $l/L$：到达第 $l$ 层的梯度平方只按 $l/L$ 缩小，即只以多项式速度缩小。于是
# $\Theta(x,x) \approx \sum_l \frac1{2l}\cdot\frac lL = \frac12$：每一层大约贡献 $1/(2L)$。打印结果正在逼近它：
# 0.616、0.520、0.503。在边界以下，方差每层大约缩小为原来的 $\sigma_w^2$ 倍，每个反向因子也约为 $\sigma_w^2 < 1$，
# 所以它们的乘积同样按几何级数缩小，$\Theta(x,x)$ 按指数下降：对 $\sigma_w = 0.8$，深度 100 时已低于 $10^{-18}$。
#
# </details>

# %% tags=["check"]
at_60_nngp = {s: sp.ring_kernels("tanh", s, 0.0).nngp[:, sp.AT_60] for s in (0.5, 0.8, 1.0)}   # depths 1..100
drift = {s: float(values[-1] / values[0]) - 1 for s, values in at_60_nngp.items()}
nh.check_between("relative drift of the 60° NNGP over 100 layers, σ_w = 0.5", abs(drift[0.5]), 0.0, 0.002)
nh.check_between("relative drift of the 60° NNGP over 100 layers, σ_w = 0.8", abs(drift[0.8]), 0.0, 0.02)
nh.check_between("relative drift of the 60° NNGP over 100 layers, σ_w = 1.0 (the boundary)", abs(drift[1.0]),
                 0.03, 0.10)
nh.check_that("the right panel's curves stay inside its limits 0.3 .. 0.7",
              all(0.3 < float(v.min()) and float(v.max()) < 0.7 for v in at_60_nngp.values()))
nh.check_that("the right panel: below the input correlation 0.5 from depth 1 on",
              all(float(v.max()) < 0.5 for v in at_60_nngp.values()))
nh.check_close("the right panel: depth 1 at σ_w = 0.5, 0.8, 1", [at_60_nngp[s][0] for s in (0.5, 0.8, 1.0)],
               [0.494, 0.482, 0.473], atol=5e-4)
nh.check_close("the inset: Θ(x,x) at σ_w = 1, depths 10 and 100",
               sp.ring_kernels("tanh", 1.0, 0.0).ntk_scale[[9, 99]], [0.616, 0.520], atol=5e-4)
nh.check_that("the correlation never moves towards 1", all(d < 0 for d in drift.values()),
              measured=str(drift), expected="every drift < 0")
nh.check_close("q at σ_w = 1 after 101 layers vs 1/(2l) (5 %: higher-order terms)",
               sp.ring_kernels("tanh", 1.0, 0.0).variance[-1] * 2 * 101, 1.0, rtol=0.05)
nh.check_between("Θ(x,x) at σ_w = 0.5, depth 100: the NTK's scale vanishes",
                 sp.ring_kernels("tanh", 0.5, 0.0).ntk_scale[-1], 0.0, 1e-50)
nh.check_between("Θ(x,x) at σ_w = 0.8, depth 100: below 1e-18",
                 sp.ring_kernels("tanh", 0.8, 0.0).ntk_scale[-1], 0.0, 1e-18)
nh.check_close("the boundary: Θ(x,x) at depths 10, 100, 1000", boundary[[9, 99, 999]], [0.616, 0.520, 0.503],
               atol=5e-4)
nh.check_close("the boundary: Θ(x,x) → ½ (depth 1000, 1 %)", boundary[-1], 0.5, rtol=0.01)
variances, scales = nh.self_kernels_by_depth(1.0, depth=1000, activation="tanh", sigma_w=1.0, sigma_b=0.0)
# The diagonal recursion Θ^(k) = Σ^(k) + Σ̇^(k) Θ^(k−1) gives layer k's factor; entry j holds layer j + 2.
factors = (scales[1:] - variances[1:]) / scales[:-1]                          # layers 3 .. 1001
above = lambda l: float(factors[l - 2:].prod())                               # layers l + 1 .. 1001
nh.check_close("the boundary: the product of the factors above layer l is about l/L (l = 100, 500; 3 %)",
               [above(100), above(500)], [100 / 1001, 500 / 1001], rtol=0.03)
erf_boundary = nh.self_kernels_by_depth(1.0, depth=1000, activation="erf", sigma_w=math.sqrt(math.pi) / 2)[1]
nh.check_close("the boundary: the same for erf at σ_w = √π/2 (depth 1000, 1 %)", erf_boundary[-1], 0.5,
               rtol=0.01)

# %% [markdown]
# NTK 也随相而变：有序相中几乎秩为一，混沌相中为单位矩阵（erf，深度 50，20 个点）：

# %%
points20 = nh.sphere(20, d=10, seed=3)
ordered = nh.mlp(50, "erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)).kernel(points20).ntk
chaotic = nh.mlp(50, "erf", sigma_w=2.0, sigma_b=math.sqrt(0.05)).kernel(points20).ntk
ordered_regime = nh.signal_regime("erf", sigma_w=1.0, sigma_b=math.sqrt(0.05))
constant = ordered_regime.q_star / (1 - ordered_regime.chi1)
print(nh._("ordered: entries between {low:.3f} and {high:.3f}, q*/(1 − χ₁) = {constant:.3f}, "
           "r_eff = {rank:.3f}").format(low=float(ordered.min()), high=float(ordered.max()),
                                        constant=constant, rank=nh.effective_rank(ordered)))
print(nh._("chaotic: r_eff = {rank:.2f} of 20").format(rank=nh.effective_rank(chaotic)))

# %% tags=["check"]
nh.check_close("ordered NTK: every entry = q*/(1 − χ₁) (2 %)", ordered, torch.full_like(ordered, constant),
               rtol=0.02)
nh.check_between("ordered NTK: r_eff (nearly rank one)", nh.effective_rank(ordered), 1.0, 1.05)
nh.check_between("chaotic NTK: r_eff (the identity)", nh.effective_rank(chaotic), 19.9, 20.0)
nh.check_close("chaotic NTK: normalized, the identity", nh.normalize(chaotic),
               torch.eye(20, dtype=torch.float64), atol=1e-6)

# %% [markdown]
# ### 动手探索：深度、激活函数、尺度
#
# 交互探索画出固定输入 $x$ 与同一圆周上夹角为 $\theta$ 的输入 $x'$ 之间的归一化 NTK $\Theta(x,x')/\Theta(x,x)$（实线）
# 和归一化 NNGP $\Sigma(x,x')/\Sigma(x,x)$（虚线），取所选的深度，并以浅色画出深度 1 作对照。
# 图的上方有一段文字，根据 $q^*$ 和 $\chi_1$ 指出当前设置所处的区域（只要 $|\chi_1 - 1| \le 1\,\%$ 就称为“混沌边缘”，所以少数略在有序或混沌一侧的设置也会得到这个名称）；标题写出区域名称，并给出两个核在 60° 处
# （输入相关系数 0.5）的值，所以保存下来的初始设置（relu、$\sigma_w = \sqrt2$、无偏置、深度 10）的图也带着这些数。
# $\sigma_w$ 滑块在 1.40 与 1.45 之间设有精确值 $\sqrt2$（$\sigma_w^2 = 2$）。请先读下面的问题、做出预测，
# 再移动滑块来检验。

# %%
def draw_collapse(depth, activation, sigma_w, sigma_b):
    kernels = sp.ring_kernels(activation, sigma_w, sigma_b)             # every depth 1..100 at once, cached
    fig, ax = plt.subplots()
    for shown in sorted({1, depth}):
        alpha = 1.0 if shown == depth else 0.3                             # depth 1 faint, for reference
        ax.plot(sp.DEGREES, kernels.ntk[shown - 1], color=nh.plotting.PALETTE[0], alpha=alpha,
                label=nh._("NTK, depth {depth}").format(depth=shown))
        ax.plot(sp.DEGREES, kernels.nngp[shown - 1], "--", color=nh.plotting.PALETTE[1], alpha=alpha,
                label=nh._("NNGP, depth {depth}").format(depth=shown))
    ax.set_ylim(*sp.y_limits(kernels.ntk[[0, depth - 1]], kernels.nngp[[0, depth - 1]]))
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xlabel(nh._("angle θ between the inputs (degrees)"))
    ax.set_ylabel(nh._("normalized kernel  K(x,x′)/K(x,x)"))
    ax.set_title(sp.figure_title(activation, sigma_w, sigma_b, depth), fontsize=11)
    ax.legend(fontsize=9)
    print(sp.report(activation, sigma_w, sigma_b, depth))


# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(
    draw_collapse,
    depth=nh.widgets.depth_slider(10, max=100),
    activation=nh.widgets.activation_dropdown("relu", options=("relu", "tanh", "erf")),
    sigma_w=sp.sigma_w_slider(),
    sigma_b=nh.widgets.sigma_slider(nh._("sigma_b"), 0.0, max=1.0),
)

# %% [markdown]
# **1. 对无偏置的 ReLU，$\sigma_w$ 重要吗？** 选 relu、$\sigma_b = 0$，把 $\sigma_w$ 从 $\sqrt2$ 移到
# 1.00，再移到 2.00。预测曲线会怎样变化。
#
# <details><summary>答案</summary>
#
# 完全不变：在深度 10，对每个 $\sigma_w$，读数都显示 60° 处 NTK 为 0.373、NNGP 为 0.898。ReLU
# 是正齐次的（对 $a > 0$ 有 $\phi(az) = a\,\phi(z)$），所以在无偏置时，与 $\sigma_w = \sqrt2$ 相比，
# 每一层都把 $\Sigma$ 的每个元素以及 $\Theta$ 的每一项乘以同一个因子 $\sigma_w^2/2$；归一化的核把它约掉了。
# 只有标题和图上方的那段文字会变：方差现在按几何级数缩小或增大。
#
# </details>
#
# **2. 在 $\sigma_w = \sqrt2$ 时，偏置有多重要？** 把深度设为 100，读出无偏置时 60° 处的 NTK。
# 预测：当 $\sigma_b = 0.5$ 时，它更高还是更低，差一点还是差很多？提示：方差映射
# $q_{l+1} = \tfrac{\sigma_w^2}{2}q_l + \sigma_b^2$ 说明了方差如何增长；$l$ 层之后，一层的偏置 $\sigma_b^2$ 在 $q_l$ 中占多大份额？
# 然后保留偏置，把 $\sigma_w$ 设为 2.00。
#
# <details><summary>答案</summary>
#
# 更高，而且高很多：0.544，无偏置时为 0.278（$\sigma_b = 1$ 时为 0.621）。偏置给 $\Sigma(x,x)$ 和
# $\Sigma(x,x')$ 加上同一个 $\sigma_b^2$，所以每一层中两个输入的相关性都更强，反向因子 $\dot\Sigma(x,x')$
# 更接近 1，$\Theta$ 中的乘积 $\prod\dot\Sigma$ 衰减得更慢。在 $\sigma_w^2 = 2$ 时方差只是按加法增长，每层增加
# $\sigma_b^2 = 0.25$（从深度 1 的 2.5 到深度 100 的 27.25），所以一层的偏置所占的份额 $\sigma_b^2/q_l$ 只按 $1/l$ 下降：
# 在任何深度，NTK 都高于无偏置时的值（它趋于 4/7，而不是 ¼）。在 $\sigma_w = 2.00$ 时方差每层翻倍，偏置的份额按几何级数消失，60° 处的 NTK 为
# 0.279，与无偏置时的 0.278 几乎相同。
#
# </details>
#
# **3. tanh 在哪里变成混沌？** 先别动任何东西，根据“有序与混沌”中关于混沌相的那一条预测：
# 在一个 100 层深的混沌 tanh 网络中，NNGP 曲线是什么形状？与深度 1 相比，哪些角度处的值上升了、哪些下降了？
# 然后选 tanh、$\sigma_b = 0.50$，即 $\sigma_b^2 = 0.25$。在上面的相图上读出 $\chi_1 = 1$ 这条线与 $\sigma_b^2 = 0.25$
# 相交处的 $\sigma_w^2$，并预测标题从“有序”切换到“混沌”时的 $\sigma_w$。检验之后，在同样的设置下试试 erf；
# 最后把 tanh 设为 $\sigma_w = 1.60$、深度 100，检验你的第一个预测。
#
# <details><summary>答案</summary>
#
# 在 $\sigma_w = 1.60$、深度 100 时，tanh 的 NNGP 曲线几乎是平的，除 0° 外在每个角度都接近 $c^* = 0.928$：
# 60° 处为 0.925，175° 处为 0.924（深度 1 时为 $-0.514$）。相关性较弱的输入对被拉升到 $c^*$；5° 的那一对则被推开，
# 从深度 1 时的 0.996 降到 0.956，而且还在继续下降：这里的深度尺度 $-1/\ln\chi_c$ 为 33.4 层。与此同时，
# 60° 处的 NTK 为 0.032：正在趋于 0。
#
# 这条线大约在 $\sigma_w^2 \approx 2.4$ 处相交，所以 $\sigma_w \approx 1.55$。在 1.50 处标题显示有序
# （$\chi_1 = 0.967$，深度尺度 30 层），在 1.55 处显示混沌边缘（$\chi_1 = 1.0002$），在 1.60 处显示混沌（$\chi_1 = 1.033$，
# $c^* = 0.928$）。erf 切换得更早：在 $\sigma_w = 1.50$ 时它已经处于混沌相（$\chi_1 = 1.098$，$c^* = 0.815$），
# 因为它在 0 附近更陡（$\phi'(0) = 2/\sqrt\pi \approx 1.13$，而 tanh 为 1）。
#
# </details>

# %% tags=["check"]
at_60 = lambda activation, sigma_w, sigma_b, depth: float(
    sp.ring_kernels(activation, sigma_w, sigma_b).ntk[depth - 1, sp.AT_60])
regimes = {(a, s): sp.regime(a, s, 0.5)
           for a, s in (("tanh", 1.5), ("tanh", 1.55), ("tanh", 1.6), ("erf", 1.5))}
nh.check_close("answer 1: relu, no bias, NTK at 60°, depth 10, σ_w = 1 and 2 vs √2",
               [at_60("relu", 1.0, 0.0, 10), at_60("relu", 2.0, 0.0, 10)],
               [at_60("relu", sp.SQRT2, 0.0, 10)] * 2, rtol=1e-10)
nh.check_close("answer 1: the NTK at 60°, depth 10", at_60("relu", sp.SQRT2, 0.0, 10), 0.373, atol=5e-4)
nh.check_close("answer 1: the NNGP at 60°, depth 10",
               sp.ring_kernels("relu", sp.SQRT2, 0.0).nngp[9, sp.AT_60], 0.898, atol=5e-4)
nh.check_close("answer 2: NTK at 60°, depth 100, σ_w = √2, σ_b = 0, 0.5, 1",
               [at_60("relu", sp.SQRT2, b, 100) for b in (0.0, 0.5, 1.0)], [0.278, 0.544, 0.621], atol=5e-4)
nh.check_close("answer 2: q at depth 1 and 100, σ_w = √2, σ_b = 0.5",
               sp.ring_kernels("relu", sp.SQRT2, 0.5).variance[[0, 99]], [2.5, 27.25], rtol=1e-12)
nh.check_close("answer 2: NTK at 60°, depth 100, σ_w = 2, σ_b = 0.5", at_60("relu", 2.0, 0.5, 100), 0.279,
               atol=5e-4)
biased, depth_axis = sp.ring_kernels("relu", sp.SQRT2, 0.5), torch.arange(1, 101, dtype=torch.float64)
nh.check_close("question 2 at the end: Σ⁽ᴸ⁺¹⁾(x,x) = 2 + (L+1)/4 at σ_b² = 0.25", biased.variance,
               2 + (depth_axis + 1) / 4, rtol=1e-12)
nh.check_close("question 2 at the end: Θ(x,x) = 2(L+1) + (L+1)(L+2)/8 at σ_b² = 0.25", biased.ntk_scale,
               2 * (depth_axis + 1) + (depth_axis + 1) * (depth_axis + 2) / 8, rtol=1e-12)
nh.check_close("question 2 at the end: Θ(x,x) at depths 1 and 3", biased.ntk_scale[[0, 2]], [4.75, 10.5],
               rtol=1e-12)
names = [found.name for found in regimes.values()]
nh.check_that("answer 3: ordered, edge, chaotic for tanh at σ_w = 1.50, 1.55, 1.60; erf chaotic at 1.50",
              names == ["ordered", "edge of chaos", "chaotic", "chaotic"], measured=str(names),
              expected="ordered, edge of chaos, chaotic, chaotic")
nh.check_close("answer 3: χ₁ of tanh at σ_w = 1.50, 1.55, 1.60 and of erf at 1.50",
               [found.chi1 for found in regimes.values()], [0.967, 1.0002, 1.033, 1.098], atol=6e-4)
nh.check_close("answer 3: the depth scale −1/ln χ_c of tanh at 1.60", regimes["tanh", 1.6].depth_scale, 33.4,
               atol=0.05)
nh.check_close("answer 3: c* of tanh at 1.60 and of erf at 1.50",
               [regimes["tanh", 1.6].c_star, regimes["erf", 1.5].c_star], [0.928, 0.815], atol=5e-4)
hot = sp.ring_kernels("tanh", 1.6, 0.5)
nh.check_close("answer 3: tanh at 1.60, NNGP at 5°, 60°, 175°: depth 1 and depth 100",
               [hot.nngp[0, 1], hot.nngp[0, 35], hot.nngp[99, 1], hot.nngp[99, sp.AT_60], hot.nngp[99, 35]],
               [0.996, -0.514, 0.956, 0.925, 0.924], atol=5e-4)
nh.check_that("answer 3: at depth 100 every angle but 0° is within 0.03 of c* (flat)",
              bool(((hot.nngp[99, 1:] - regimes["tanh", 1.6].c_star).abs() < 0.03).all()))
nh.check_close("answer 3: the NTK at 60°, depth 100", hot.ntk[99, sp.AT_60], 0.032, atol=5e-4)

# %% [markdown]
# ## 检验你的理解
#
# **1.** 递归除了 $\Sigma(x,x)$ 和 $\Sigma(x,x')$ 之外还需要 $\Sigma(x',x')$。如果把 $\Sigma(x,x)$ 用两次，
# 究竟哪里出错？上面的误差有多大？
#
# <details><summary>答案</summary>
#
# 期望 $\mathbb E[\phi(u)\phi(v)]$ 是对一对协方差矩阵为 $\Lambda$ 的高斯变量求的：两个方差决定 $u$ 和 $v$ 的尺度，
# 并与 $\Sigma(x,x')$ 一起确定夹角，
# $\cos\theta = \Sigma(x,x')/\sqrt{\Sigma(x,x)\Sigma(x',x')}$。对 ReLU，两者都进入公式：通过
# $\sqrt{q q'}$，也通过 $\theta$。把同一个方差用两次，两处都会出错：上面图省事的做法给出 0.686，
# 而三元组给出 0.806，有 $2^{20}$ 个单元的层测得 0.807。
#
# </details>
#
# **2.** ReLU，$\sigma_w^2 = 2$，这次*带*偏置 $\sigma_b^2 = 0.25$，输入满足 $x\cdot x/d = 1$。不做任何数值计算，
# 给出有 $L$ 个隐藏层的网络的 $\Sigma^{(l)}(x,x)$、$\dot\Sigma^{(l)}(x,x)$ 和 $\Theta(x,x)$。（无偏置时，4.1.2 得到
# $\Theta(x,x) = (L+1)\,q$。）
#
# <details><summary>答案</summary>
#
# $\Sigma^{(1)}(x,x) = \sigma_w^2 + \sigma_b^2 = 2.25$，而方差映射 $q_{l+1} = \tfrac{\sigma_w^2}{2}q_l + \sigma_b^2 =
# q_l + 0.25$ 每层加 0.25：$\Sigma^{(l)}(x,x) = 2 + l/4$。偏置不进入 $\dot\Sigma$：
# $\dot\Sigma(x,x) = \sigma_w^2\,\mathbb E[\phi'(u)^2] = 2\cdot\tfrac12 = 1$，与方差无关。所以
# $\Theta = \sum_l\Sigma^{(l)}\prod_{k>l}\dot\Sigma^{(k)}$ 的各项就是各层的方差本身，
# $\Theta(x,x) = \sum_{l=1}^{L+1}(2 + l/4) = 2(L+1) + (L+1)(L+2)/8$：深度 1 时为 4.75，深度 3 时为 10.5。
# 没有偏置时，同样的步骤给出 $2(L+1)$，即 $L = 1000$ 时打印出的 2002。
#
# </details>
#
# **3.** 证明 $\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$（$n\times n$）的有效秩是 $16n/(n+15)$。
#
# <details><summary>答案</summary>
#
# $\mathbf 1\mathbf 1^\top$ 有一个特征值 $n$（特征向量为 $\mathbf 1$），其余都是 0，所以这个矩阵的特征值是
# $\tfrac34 + \tfrac n4$（一次）和 $\tfrac34$（$n - 1$ 次）。于是 $\operatorname{tr}K = n$，
# $\operatorname{tr}K^2 = \bigl(\tfrac{n+3}{4}\bigr)^2 + (n-1)\tfrac9{16} = \tfrac{n^2+15n}{16}$，所以
# $r_\text{eff} = n^2\cdot 16/(n^2+15n) = 16n/(n+15)$：$n = 50$ 时为 12.3，而且无论点有多少，都不超过 16。
#
# </details>
#
# **4.** 在有序相中，为什么 NTK 的每个元素都趋于同一个数 $q^*/(1-\chi_1)$？
#
# <details><summary>答案</summary>
#
# 在网络深处，每一对输入的相关系数都是 1，所以 $\Sigma$ 的每个元素都是 $q^*$，$\dot\Sigma$ 的每个元素都是
# $\sigma_w^2\,\mathbb E[\phi'(\sqrt{q^*}z)^2] = \chi_1$。递归 $\Theta^{(l+1)} = \Sigma^{(l+1)} +
# \dot\Sigma^{(l+1)}\Theta^{(l)}$ 对每个元素都变成 $\Theta \leftarrow q^* + \chi_1\Theta$，其不动点为
# $q^*/(1-\chi_1)$（因为 $\chi_1 < 1$，它是吸引的）。所有元素都相等的矩阵秩为一。
#
# </details>
#
# **5.** 深度 50 的 ReLU NTK 能精确拟合每个训练标签，但它的测试 MSE（0.101）已经走完了通向“预测均值”的误差
# （0.129）的大部分路程。在深度很大的极限下，它在训练集之外的预测趋于哪个常数？提示：那里
# $\Theta(x,X) \approx \tfrac14\Theta(x,x)\,\mathbf 1^\top$，$\Theta(X,X) \approx \Theta(x,x)\bigl(\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top\bigr)$；
# 试试把 $\mathbf 1$ 当作特征向量。
#
# <details><summary>答案</summary>
#
# 预测变成 $\tfrac14\mathbf 1^\top\bigl(\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top\bigr)^{-1}y$。向量 $\mathbf 1$ 是特征值为
# $\tfrac34 + \tfrac n4$ 的特征向量，所以 $\mathbf 1^\top(\cdots)^{-1} = \tfrac4{n+3}\mathbf 1^\top$，预测为
# $\sum_i y_i/(n+3) = \tfrac n{n+3}\,\bar y$：训练标签的均值，略微缩小；这里为 0.783（$n = 100$，$\bar y = 0.807$）。
# 让核能够拟合的 $\tfrac34 I$ 这一部分只作用在训练点自身上。深度 50 还不是极限：测试预测的平均为 0.793，
# 其离散程度约为深度 1 时的六分之一（比值 0.171）。
#
# </details>
#
# **6.** 第 1 步的推导在哪里用到了各层宽度依次趋于无穷？
#
# <details><summary>答案</summary>
#
# 在第 $l+1$ 层的大数定律中：它对第 $l$ 层的各单元求平均，就好像这些单元已经是协方差为 $\Sigma^{(l)}$ 的
# 独立高斯过程；只有当第 $l$ 层（及其下方各层）的宽度先趋于无穷时，这一点才成立。如果所有宽度一起增长，
# 那么在每个有限宽度下这些单元只是可交换的；极限仍然相同，这正是 Matthews et al.（2018）和 Yang（2019）的结果。
#
# </details>

# %% [markdown]
# ## 小结
#
# - 无限宽的 MLP 逐层把三元组 $(\Sigma(x,x),\Sigma(x',x'),\Sigma(x,x'))$ 映射到下一层的三元组，所用的是两个
#   高斯期望 $E$、$\dot E$（对 ReLU 即反余弦公式）；NTK 随之由
#   $\Theta^{(l+1)} = \Sigma^{(l+1)} + \sigma_w^2\dot E\,\Theta^{(l)}$ 得到。宽度为 4096 的网络与之吻合，
#   差异在随种子变化的波动之内。
# - 递归的来源：每个单元是许多独立项之和（高斯），它的协方差是对下方一层各单元的平均（大数定律，各层宽度依次
#   趋于无穷），而 NTK 是对各层的求和，每一项是前向协方差乘以反向因子 $\dot\Sigma$。
# - $\sigma_w^2 = 2$、无偏置的深层 ReLU 核以**多项式**速度丢失角度信息，$1 - c_l \approx 9\pi^2/(2l^2)$，原因是相关映射在
#   $c = 1$ 处是临界的；并没有单元失活。NNGP 趋于常数，归一化 NTK 趋于
#   $\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top$：它满秩，能拟合训练集，但预测趋于平坦，测试误差随深度增大。（有偏置时角度仍以多项式速度丢失，但极限是 $\tfrac37 I + \tfrac47\mathbf 1\mathbf 1^\top$。）
# - 有界激活函数处于有序相（$\chi_1 < 1$：NTK 秩为一）、混沌相（$\chi_1 > 1$：NTK 接近单位矩阵）或混沌边缘
#   $\chi_1 = 1$；带偏置的 ReLU 在 $\sigma_w^2 < 2$ 时处于有序相（从不进入混沌相）。无偏置且 $\sigma_w^2\phi'(0)^2 \le 1$ 时方差消失（$q^* = 0$），相关系数冻结；
#   在这个边界以下梯度按指数消失，在边界上只以多项式速度缩小（$\Theta(x,x) \to \tfrac12$）。
# - 偏置很重要：在 $\sigma_w^2 = 2$ 时，方差每层增加 $\sigma_b^2$，在任何深度归一化 NTK 都高于无偏置时的值（它趋于 4/7 而不是 ¼）。
#
# **练习：** 4.1（$\dot\Sigma$ 的作用，恒等激活函数）和 4.7（50 层 MLP 的核退化与有效秩）。
#
# **下一课：** [03 · 卷积网络：局部性、权重共享、池化](03_cnn.ipynb)

# %% [markdown]
# ## 写给教材第 4 章的读者
#
# <details><summary>§4.1.1：NNGP 核与 NTK 递归（勘误 A1、A2）</summary>
#
# **教材原文：** NNGP 核为 $K^{(l)}(x,x') = \mathbb E[\sigma(z_i^{(l)})\,\sigma(z_j^{(l)})]$，并且
# $\Theta^{(l)} = K^{(l)} + \dot K^{(l-1)}\Theta^{(l-1)}$。  
# **正确的说法：** 期望是对**同一个**单元在两个输入处的取值求的，即 $\mathbb E[\phi(z_i(x))\,\phi(z_i(x'))]$；
# 两个不同的单元 $i\neq j$ 相互独立，它们的协方差为零。NTK 的递归步加上的是*预激活*的协方差，
# 而且如上面 4.1.1 所示，$\sigma_w^2$ 与 $\sigma_b^2$ 两项缺一不可
# （[勘误 A1](../../ERRATA.zh.md#a1)、[A2](../../ERRATA.zh.md#a2)）。
#
# </details>
#
# <details><summary>§4.1.2：深层核为什么退化（勘误 A3）</summary>
#
# **教材原文：** 深层核之所以退化，是因为单元失活（ReLU）或饱和（tanh），于是 $\dot K \to 0$。  
# **正确的说法：** 在 $\sigma_w^2 = 2$、$\sigma_b = 0$ 时，平均而言没有 ReLU 单元失活（$\dot\Sigma(x,x) = 1$，方差保持不变）；
# 夹角之所以消失，是因为相关映射在 $c = 1$ 处是临界的。对 tanh 和 erf，则是有序相或混沌相的作用
# （[勘误 A3](../../ERRATA.zh.md#a3)）。
#
# </details>
#
# <details><summary>§4.1.2：“NTK 变得几乎不变或低秩”（勘误 A4）</summary>
#
# **教材原文：** 深层 NTK 变得几乎不变或低秩。  
# **正确的说法：** 这取决于所处的相。对 $\sigma_w^2 = 2$、$\sigma_b = 0$、输入长度相等的 ReLU，深层 NTK 趋于 $(L+1)\,q\,\bigl[\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top\bigr]$，
# 它是满秩的；只有 NNGP 变为常数。有序相的 NTK（$\chi_1 < 1$ 的 tanh/erf，或带偏置且 $\sigma_w^2 < 2$ 的 ReLU）趋于秩一，混沌相的则趋于单位矩阵
# （[勘误 A4](../../ERRATA.zh.md#a4)）。
#
# </details>
#
# <details><summary>§4.1.2：深层网络的函数空间（勘误 A5）</summary>
#
# **教材原文：** 很深的网络的函数空间与浅层网络相同，甚至更简单。  
# **正确的说法：** 深层 NTK 仍然能拟合每个训练点（它是满秩的），但在训练集之外，它的预测趋于平坦、接近常数，
# 测试误差随深度增大（[勘误 A5](../../ERRATA.zh.md#a5)）。
#
# </details>
#
# <details><summary>§4.1.2：关于 ResNet 的一条经验法则（勘误 A6、A15）</summary>
#
# **教材原文：** 深层 ReLU MLP 的核退化是残差网络的理论动机之一，其跳连用来对抗这种退化。  
# **正确的说法：** 残差网络回应的是*退化问题*：更深的普通网络反而有更高的*训练*误差，这是一种优化上的困难，
# 恒等跳连消除了它（He et al. 2016）；无限宽极限下的核与此毫无关系。从核的角度理解深度是后来的事
# （Huang et al. 2020；Hayou et al. 2021）：按 $1/\sqrt L$ 缩放的分支使核不随深度退化，而不缩放的分支（$\alpha = 1$）
# 像 MLP 一样退化，并且核的大小呈指数增长。第 [04](04_resnet.ipynb) 课对此做了测量（[勘误 A6](../../ERRATA.zh.md#a6)、
# [A15](../../ERRATA.zh.md#a15)）。
#
# </details>
#
# <details><summary>综述 §6.1：“令 Lyapunov 指数为零”（勘误 B26）</summary>
#
# **综述原文：** 令“Lyapunov 指数”为零，从而在混沌边缘初始化。  
# **正确的说法：** 这就是条件 $\chi_1 = 1$ 的另一种说法（$\tfrac12\ln\chi_1$ 是线性化后的逐层映射的 Lyapunov 指数）。
# 它没有说清楚的是 $\chi_1$ 在哪里取值：在方差映射的不动点 $q^*$ 处，而 $q^*$ 取决于 $\sigma_w$ 和 $\sigma_b$
# （[勘误 B26](../../ERRATA.zh.md#b26)）。
#
# </details>
