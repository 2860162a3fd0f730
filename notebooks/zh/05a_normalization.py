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
# - 什么是**冻结**的批归一化（初始化时是一个有精确核的固定缩放），以及如何*估计*使用批统计量的批归一化的核，
#   一次一个批次。
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
# 在无限宽时，层归一化把 $\Sigma$ 和 $\Theta$ 除以核的对角元。
#
# 层归一化把一个输入的预激活 $z \in \mathbb R^m$ 映射为
# $\operatorname{LN}(z)_i = (z_i - \mu)/\sqrt{s^2 + \epsilon}$，其中 $\mu = \frac1m\sum_i z_i$，
# $s^2 = \frac1m\sum_i (z_i - \mu)^2$（即本软件包的 `nh.layer_norm()`，$\epsilon = 10^{-5}$）。紧接在第一个全连接层之后、
# 在初始化时，各单元的 $z_i(x)$ 相互独立，均值为 0，方差为 $\Sigma(x, x)$；在更深的全连接层之后，
# 在给定下面一层的条件下同样成立，方差是下面一层的经验 $\hat\Sigma(x, x)$，它趋于 $\Sigma(x, x)$。
# 当 $m \to \infty$ 时，由大数定律得 $\mu \to 0$ 和 $s^2 \to \Sigma(x, x)$：层归一化变成固定的缩放
# $z(x) \mapsto z(x)/\sqrt{\Sigma(x,x) + \epsilon}$，每个输入一个数，$\Sigma$ 按它缩放：
#
# $$\Sigma(x,x') \mapsto \frac{\Sigma(x,x')}{\sqrt{(\Sigma(x,x)+\epsilon)(\Sigma(x',x')+\epsilon)}}.$$
#
# 对 $\Theta$ 需要层归一化的雅可比矩阵。记 $\hat z = (z - \mu\mathbf 1)/s$（暂不考虑 $\epsilon$），
#
# $$\frac{\partial \operatorname{LN}(z)}{\partial z} = \frac1s\Big(I - \tfrac1m \mathbf 1\mathbf 1^\top
#   - \tfrac1m \hat z\hat z^\top\Big) = \frac1s\,(I - P),$$
#
# 其中 $P$ 投影到 $\mathbf 1$ 和 $\hat z$ 这两个方向上。层归一化之前的参数通过 $z$ 起作用；它们的 NTK 是
# $m \times m$ 矩阵 $\hat\Theta_z(x, x') = \frac{\partial z(x)}{\partial \theta}
# \frac{\partial z(x')}{\partial \theta}^{\!\top}$，它趋于 $\Theta(x, x')\,I$。经过层归一化后它是
#
# $$\frac{(I - P)\,\hat\Theta_z(x, x')\,(I - P')}{s\,s'} \;\to\; \frac{\Theta(x, x')}{s\,s'}\,(I - P)(I - P'),
#   \qquad s\,s' \to \sqrt{\Sigma(x,x)\,\Sigma(x',x')}.$$
#
# 矩阵 $(I - P)(I - P')$ 并不接近 $I$：它把两个方向完全去掉了。但下一个全连接层并不是把它当作矩阵来看的。
# 下一层的权重是全新的，与之前的一切相互独立，所以在极限下它只看到归一化的迹
# $\frac1m\operatorname{tr}\big[(I - P)(I - P')\big] = 1 - O(1/m)$：迹等于 $m - 4 + \operatorname{tr}(PP')$，介于 $m - 4$ 和 $m - 2$ 之间。
# 在本课的网络中，层归一化和下一个全连接层之间还有一个 ReLU，于是下一层看到的是
# $\frac1m\operatorname{tr}\big[D(I - P)(I - P')D'\big]$，其中 $D, D'$ 是 ReLU 在 $x$ 和 $x'$ 处的导数组成的对角矩阵。
# 把 $(I - P)(I - P')$ 展开，剩下 ReLU 通常的那一项 $\frac1m\operatorname{tr}(DD')$，再加上三个秩至多为 2、
# 范数至多为 1 的矩阵，它们最多让迹改变 6。
# 换一种说法：反向传播带到层归一化的向量渐近地与 $\mathbf 1$ 和 $\hat z$ 正交，所以去掉这两个方向在极限下没有任何代价。于是
#
# $$\Theta(x,x') \mapsto \frac{\Theta(x,x')}{\sqrt{(\Sigma(x,x)+\epsilon)(\Sigma(x',x')+\epsilon)}}.$$
#
# 这正是 neural-tangents 中 `stax.LayerNorm` 的层归一化规则（Novak et al. 2020）；Tensor Programs
# 框架也涵盖它（Yang 2020，Tensor Programs II）。和 `stax.LayerNorm` 一样，本课不考虑层归一化可学习的增益
# （初始化为 1）和平移（初始化为 0）。它们在初始化时不改变 $\Sigma$，但它们也是参数，会给 $\Theta$ 加上各自的项：
# 增益的梯度是归一化后的预激活，平移的梯度是 1，和偏置一样。
#
# ### 核何时只看方向？
#
# 只有当层归一化之前没有任何东西（特别是偏置）破坏输入的齐次性时，层归一化才会抹掉输入的尺度。
#
# 把一个输入乘以 $a > 0$。层归一化会去掉任何正的因子：对 $c > 0$ 有 $\operatorname{LN}(c\,z) =
# \operatorname{LN}(z)$（不计 $\epsilon$）。考虑一个串联网络，其中输入只经过这个层归一化到达后面的部分
# （层归一化周围没有跳连：在 pre-LN 残差块中 $x$ 还会绕过层归一化）。如果层归一化*之前*的各层对输入是**正齐次**的，
# 即对参数 $\theta$ 的每一个取值都有 $z(ax;\theta) = a^k z(x;\theta)$，那么对每个 $\theta$ 都有
# $f(ax;\theta) = f(x;\theta)$。作为 $\theta$ 的函数，两个相等的函数梯度也相等，
# 所以 $\Theta(ax, x') = \Theta(x, x')$：精确成立（不计 $\epsilon$），在任何宽度下都成立，而不只是在极限下。
# 当层归一化跟在一个无偏置的全连接层之后时，正是这种情形（同样的论证也适用于一叠无偏置的层，只要其中的激活函数是正齐次的）。
#
# **层归一化之前的偏置**会破坏这一点：$z(ax) = a\,Wx + b$ 不是 $z(x) = Wx + b$ 的倍数。
# 层归一化之前任何不是正齐次的层也会破坏它。这时带层归一化的核仍然依赖于输入的范数，
# 依赖的方式取决于层归一化之前的各层对范数做了什么。
#
# 本课用到四组输入，都在 $d = 5$ 维的球面 $x \cdot x/d = 1$ 上：
#
# | 输入 | $x \cdot x'/d$ | 用在 |
# |---|---|---|
# | 一对夹角为锐角的输入 | 0.295 | 第一张图，有限网络的比值 |
# | 一对方向几乎相反的输入 | −0.74 | 尺度的交互探索，检验你的理解第 2、3 题 |
# | 8 个随机输入 | 各不相同 | 有限网络随宽度的扫描 |
# | $x_1$ 和随机的同批样本 | 各不相同 | 批归一化的各节 |
#
# 实验：网络是 dense($\sigma_w = 1.4$，偏置 $\sigma_b$) → [层归一化] → ReLU → dense(1)（读出层
# $\sigma_w = 1$，无偏置），取无限宽。取两个满足 $x \cdot x/d = 1$（$d = 5$）、夹角为锐角的输入，
# 使它们的核明显为正；把 $x$ 乘以从 $1/4$ 到 $4$ 的 $a$，对四个网络画出 $\Theta(ax, x')/\Theta(x, x')$：
# 有层归一化和没有层归一化，$\sigma_b = 0$ 和 $\sigma_b = 0.5$。

# %%
ratios, bases = {}, {}
for name, bias, with_ln in [(nh._("ReLU, no bias"), 0.0, False), (nh._("ReLU + bias σ_b = 0.5"), 0.5, False),
                            (nh._("layer norm, no bias before it"), 0.0, True),
                            (nh._("layer norm, bias σ_b = 0.5 before it"), 0.5, True)]:
    theta, bases[name] = course.kernel_vs_scale(bias, with_layer_norm=with_ln, pair="aligned")
    ratios[name] = theta / bases[name]                                  # Θ(a x, x′) / Θ(x, x′) for every a
fig, ax = plt.subplots()
for name, ratio in ratios.items():
    ax.plot(course.SCALES, ratio, "o-", ms=4, label=name)
ax.set_xscale("log")
ax.set_yscale("log")
nh.plotting.width_ticks(ax, [0.25, 0.5, 1, 2, 4])
ax.set_yticks([0.25, 0.5, 1, 2, 4], ["1/4", "1/2", "1", "2", "4"])
ax.yaxis.set_minor_formatter(plt.NullFormatter())
ax.set_xlabel(nh._("scale a of the first input"))
ax.set_ylabel("Θ(a x, x′) / Θ(x, x′)")
ax.set_title(nh._("Layer norm erases the scale only when no bias comes before it"))
ax.legend(fontsize="small")
plt.show()

# %% tags=["check"]
relu_names, ln_names = list(ratios)[:2], list(ratios)[2:]
nh.check_close("the two inputs: x·x′/d (0.295)", float(course.ALIGNED[0] @ course.ALIGNED[1]) / course.D,
               0.295, atol=0.0005)
nh.check_close("Θ(x, x′) of the four networks, in the legend's order (0.642, 0.841, 0.328, 0.381)",
               list(bases.values()), [0.642, 0.841, 0.328, 0.381], atol=0.0005)
nh.check_between("all four networks: smallest Θ(a x, x′) over a (positive)",
                 min(float((ratio * bases[name]).min()) for name, ratio in ratios.items()), 0.1, np.inf)
# no bias: the ReLU network is homogeneous of degree 1 in x (rounding only)
nh.check_close("ReLU, no bias: Θ(a x, x′)/Θ(x, x′) = a", ratios[relu_names[0]], course.SCALES, rtol=1e-10)
# layer norm after a bias-free layer: a changes only the ε term, 1e-5 against Σ(ax, ax) ≥ 0.12
nh.check_close("layer norm, no bias before it: the ratio is 1 for every a", ratios[ln_names[0]],
               np.ones_like(course.SCALES), atol=1e-4)
biased = ratios[ln_names[1]]
nh.check_close("layer norm, bias 0.5 before it: the ratio at a = 1/4 and 4 (1.11, 0.88)", biased[[0, -1]],
               [1.111, 0.880], atol=0.0005)
nh.check_between("layer norm, bias 0.5 before it: largest ratio over a (1.114)", float(biased.max()),
                 1.1, 1.12)
nh.check_that("layer norm, bias 0.5 before it: the ratio is above 1 for a < 1, below 1 for a > 1",
              bool(np.all(biased[:8] > 1) and np.all(biased[9:] < 1)))
nh.check_close("ReLU + bias: the ratio at a = 1/4 and 4 (0.46, 3.33)", ratios[relu_names[1]][[0, -1]],
               [0.456, 3.33], atol=0.005)
gap_to_diagonal = ratios[relu_names[1]] - course.SCALES
nh.check_that("ReLU + bias: the ratio is above a for every a < 1 and below a for every a > 1",
              bool(np.all(gap_to_diagonal[:8] > 0) and np.all(gap_to_diagonal[9:] < 0)))

# %% [markdown]
# 读一读这四条曲线（两个坐标轴都是对数坐标）。没有偏置时，ReLU 网络是齐次的，
# $\Theta(ax, x') = a\,\Theta(x, x')$：即对角线。无偏置的层之后的层归一化把这条对角线变成常数 1。
# 层归一化之前有偏置时，曲线几乎是平的，但并不平：$a < 1$ 时高于 1，$a > 1$ 时低于 1，从大约 1.1 降到大约 0.9，
# 所以核仍然能看到 $x$ 的尺度。有偏置、没有层归一化的 ReLU 网络也不是齐次的：小 $a$ 时它位于对角线之上
# （它的偏置给 $\Theta$ 垫了一个底），大 $a$ 时位于对角线之下。
#
# ## 动手探索：偏置放在哪里
#
# 这个交互探索移动层归一化之前和之后的偏置，用的是一对更难的输入：两个输入（$x \cdot x/d = 1$）方向几乎相反，
# $x \cdot x'/d = -0.74$，所以 $\Theta(x, x')$ 很小，而且是负的。它画出 $\Theta(ax, x')$ 本身随 $a$ 的变化，
# 网络是 dense($\sigma_w = 1.4$，之前的 $\sigma_b$) → 层归一化 → ReLU → dense(1，之后的 $\sigma_b$)（实线），
# 以及去掉层归一化的同一个网络（虚线）；点线标出每条曲线在 $a = 1$ 处的值。标题给出层归一化曲线在
# $a \in [1/4, 4]$ 上变化了多少（相对于核的大小 $\sqrt{\Theta(x,x)\,\Theta(x',x')}$），下面一行给出它的三个值。
# 这个大小在任何设置下都是 $1 + \sigma_b^2$（之后的偏置）：紧接在第一个全连接层之后的层归一化给出
# $\Sigma(x, x) = 1$，与它之前的偏置无关；ReLU 和读出层接着给出 $\Theta(x, x) = \tfrac12 \cdot 1 + \tfrac12 = 1$，
# 读出层的偏置再加上 $\sigma_b^2$。层归一化之后没有偏置时，相对变化量就是绝对变化量。交互探索的初始设置是完全没有偏置。

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_scale,
                       bias_before=nh.widgets.sigma_slider(nh._("σ_b before layer norm"), 0.0, max=2.0),
                       bias_after=nh.widgets.sigma_slider(nh._("σ_b after layer norm"), 0.0, max=2.0))

# %% [markdown]
# **先预测，再检验。**
#
# 1. 在初始设置下，实线是平的，$\Theta(x, x')$ 是负的：两个输入的方向几乎相反。把层归一化之前的偏置升到 0.5：
#    $\Theta(x/4, x')$ 会是什么符号？为什么？
#
# <details><summary>答案</summary>
#
# 正的：实线在 $a = 0.5$ 和 $a = 0.6$ 之间穿过零，在 $a = 1/4$ 处到达大约 $+0.1$。
# $a$ 很小时，偏置在 $z(ax) = aWx + b$ 中占主导，所以层归一化返回的几乎就是归一化后的 $b$：
# 对每个小的输入几乎都是同一个向量，不论它的方向如何。$x'$ 也带着同一个偏置，所以在层归一化之后的各层看来，
# 这个小的输入和 $x'$ 有几分相像。
#
# </details>
#
# 2. 把层归一化之前的偏置调回 0，把它*之后*（读出层中）的偏置升到 1。实线会依赖于 $a$ 吗？
#
# <details><summary>答案</summary>
#
# 不会：它仍然是平的，只是上移了 $\sigma_b^2 = 1$（在本课程使用的 NTK 参数化中，读出层的偏置在每个输入处的梯度都是
# $\sigma_b$，所以它给 $\Theta$ 的每个元素加上 $\sigma_b^2$）。层归一化之后的部分只看到归一化后的向量，
# 它对 $ax$ 和对 $x$ 是同一个，所以对每个 $\theta$ 仍有 $f(ax;\theta) = f(x;\theta)$。虚线不是平的：
# 没有层归一化、之前也没有偏置时，$\Theta(ax, x') = a\,\Theta_0(x, x') + 1$，其中 $\Theta_0$ 是没有任何偏置时的核，
# 这是一条关于 $a$ 的斜率为负的直线。
#
# </details>
#
# 3. 把层归一化之后的偏置调回 0，把它之前的偏置从 0.5 推到 2。核对 $a$ 的依赖会更强还是更弱？
#    为什么 $a = 1$ 处的 $\Theta(x, x')$ 现在是正的？
#
# <details><summary>答案</summary>
#
# 更强：标题中的变化量从 0.16 增大到 0.57。$\sigma_b = 2$ 时，对 $x'$ 来说偏置也压过了权重
# （每个单元的方差 $\sigma_b^2 = 4$，而 $\sigma_w^2 = 1.96$），所以即使在 $a = 1$ 处，两个输入经过层归一化后
# 也大部分是共同的偏置，$\Theta(x, x') \approx 0.42$。$a$ 越小，$x$ 越像偏置，核也越大。
# 标题中的 $\Theta(4x, x')$ 等于第 1 题的设置（$\sigma_b = 0.5$）下的 $\Theta(x/4, x')$，这并非巧合：因为 $z(ax) = a\,(Wx + b/a)$，
# 而层归一化去掉了因子 $a$，把 $x$ 乘以 $a$ 相当于把它的偏置除以 $a$。两种设置给出同一对层归一化输入，
# 一个的偏置为 0.5，另一个为 2，只是 $x$ 和 $x'$ 的角色互换了（它们的范数相同）。
#
# </details>

# %% tags=["check"]
def explorer_theta(before, after, with_ln=True):
    theta, base = course.kernel_vs_scale(before, after, with_layer_norm=with_ln)
    return [float(theta[0]), base, float(theta[-1])]            # a = 1/4, 1, 4


start = course.kernel_vs_scale(0.5)[0]
nh.check_that("explorer, start: Θ(a x, x′) is positive at a = 0.5 and negative at a = 0.59",
              start[4] > 0 > start[5], measured=start[4:6].round(4), expected="> 0, < 0")
nh.check_close("explorer, start: Θ(x, x′) and Θ(x/4, x′) (−0.038, +0.101)",
               explorer_theta(0.5, 0)[1::-1], [-0.038, 0.101], atol=0.0005)
nh.check_close("the explorer's pair: x·x′/d (−0.74)", float(course.PAIR[0] @ course.PAIR[1]) / course.D,
               -0.74, atol=0.005)
nh.check_close("explorer, no bias: Θ(a x, x′) at a = 1/4, 1, 4 (flat at −0.0666)", explorer_theta(0, 0),
               [-0.0666] * 3, atol=5e-5)
nh.check_between("explorer, no bias: variation over a (3e-6, from ε)", course.flatness(0, 0), 1e-6, 5e-6)
nh.check_close("explorer, bias 1 after layer norm: flat at −0.0666 + 1", explorer_theta(0, 1), [0.9334] * 3,
               atol=5e-5)
plain = course.kernel_vs_scale(0, 1, with_layer_norm=False)[0]
nh.check_close("explorer, bias 1 after, no layer norm: Θ(a x, x′) = a Θ₀(x, x′) + 1 (Θ₀ = −0.130)",
               plain, course.SCALES * explorer_theta(0, 0, with_ln=False)[1] + 1, rtol=1e-10)
nh.check_close("explorer, bias before 0.5 and 2: variation over a (0.16, 0.57)",
               [course.flatness(0.5, 0), course.flatness(2, 0)], [0.16, 0.57], atol=0.005)
nh.check_close("explorer, bias 2 before: Θ(a x, x′) at a = 1/4, 1, 4 (0.668, 0.419, 0.101)",
               explorer_theta(2, 0), [0.668, 0.419, 0.101], atol=0.0005)
nh.check_close("explorer: Θ(4x, x′) at bias 2 equals Θ(x/4, x′) at bias 0.5 (up to ε)",
               explorer_theta(2, 0)[2], explorer_theta(0.5, 0)[0], rtol=1e-4)

# %% [markdown]
# ### 有限宽度
#
# 有限网络精确地保持这种不变性，并按 $m^{-1/2}$ 趋近无限宽的核。
#
# 上面的论证对每一个有限网络都成立，而不只是在极限下：对第一张图的输入和无偏置的网络，经验 NTK
# （自动微分，一个网络）在任何宽度下都给出 $\Theta(4x, x') / \Theta(x, x') = 1$，只差来自 $\epsilon$ 的变化。
# 层归一化之前有偏置时，6 个网络（种子 0–5）的比值分散在无限宽的值周围，从宽度 256 到 1024 再到 4096（图中的宽度）越来越集中；
# 这个单元格把它们打印出来。
#
# 图中比较的是整个核：8 个满足 $x \cdot x/d = 1$ 的输入，每个宽度 4 个网络（第一张图中带层归一化的网络）的
# $8 \times 8$ 经验 NTK $\hat\Theta$，以及它的相对误差 $\lVert \hat\Theta - \Theta \rVert_F / \lVert \Theta \rVert_F$
# （Frobenius 范数，与无限宽的核 $\Theta$ 比较），对 4 个网络取平均。

# %%
seeds = range(6)
theta_biased, base_biased = course.kernel_vs_scale(0.5, pair="aligned")
limit = float(theta_biased[-1] / base_biased)
print(nh._("infinite width, bias before layer norm: Θ(4x, x′)/Θ(x, x′) = {limit:.2f}").format(limit=limit))
finite = {width: {bias: np.array([course.finite_ntk_ratio(bias, width, seed=seed, pair="aligned")
                                  for seed in seeds])
                  for bias in (0.0, 0.5)} for width in (256, 1024, 4096)}
for width, ratio in finite.items():
    values = ", ".join(f"{v:.2f}" for v in ratio[0.5])
    print(nh._("width {width}: without a bias before layer norm, Θ(4x, x′)/Θ(x, x′) − 1 is at most "
               "{dev:.0e}; with one, seeds 0–5 give {values}").format(
        width=width, dev=float(np.abs(ratio[0.0] - 1).max()), values=values))
inputs = nh.sphere(8, d=course.D, seed=1)
sweep_widths = [256, 1024, 4096]
sweeps = {bias: nh.width_sweep(course.ln_network(bias), inputs, widths=sweep_widths, seeds=4)
          for bias in (0.0, 0.5)}
fig, ax = plt.subplots()
slopes = {bias: nh.plotting.loglog_fit(ax, sweep_widths, sweep.errors.mean(1),
                                       label=nh._("σ_b = {bias} before layer norm").format(bias=bias))
          for bias, sweep in sweeps.items()}
nh.plotting.width_ticks(ax, sweep_widths)
ax.set_xlabel(nh._("width m"))
ax.set_ylabel(nh._("relative error of the empirical NTK"))
ax.set_title(nh._("Finite networks approach the layer-norm kernel like $m^{-1/2}$, bias or not"))
ax.legend()
plt.show()

# %% tags=["check"]
# the invariance of the bias-free network is exact up to ε (1e-5 against Σ(x, x) = 1.96)
nh.check_between("finite, no bias before layer norm: largest |Θ(4x, x′)/Θ(x, x′) − 1|, 18 networks (3e-6)",
                 max(float(np.abs(finite[w][0.0] - 1).max()) for w in finite), 1e-6, 5e-6)
nh.check_close("infinite width, bias before layer norm: the limit of the ratio (0.88)", limit, 0.880,
               atol=0.0005)
nh.check_close("finite, bias before layer norm: median of 6 networks' ratios, widths 256, 1024, 4096 "
               "(0.880, 0.888, 0.890)", [float(np.median(finite[w][0.5])) for w in finite],
               [0.880, 0.888, 0.890], atol=0.0005)
nh.check_close("finite, bias before layer norm: range of the 6 ratios, widths 256, 1024, 4096 (0.073, 0.046, "
               "0.016)", [float(np.ptp(finite[w][0.5])) for w in finite], [0.073, 0.046, 0.016], atol=0.0005)
nh.check_close("the layer-norm network's Θ(x, x) and Θ(x′, x′) (1)",
               course.ln_network(0.5).kernel(course.ALIGNED).ntk.diagonal(), [1.0, 1.0], atol=1e-4)
# the spread of an empirical NTK falls like m^(-1/2); 4 networks per width leave about ± 0.1 in the slope
nh.check_between("finite, no bias before layer norm: slope of the error in m (about −0.5)",
                 slopes[0.0], -0.65, -0.35)
nh.check_between("finite, bias 0.5 before layer norm: slope of the error in m (about −0.5)",
                 slopes[0.5], -0.65, -0.35)
# a wrong limit would leave an error that stops falling: at m = 4096 it must be below 3 × m^(-1/2) from 256
nh.check_between("finite, both networks: largest error at m = 4096 over 3 × (error at 256) × (256/4096)^½",
                 max(float(sweep.errors.mean(1)[-1] / (3 * sweep.errors.mean(1)[0] / 4))
                     for sweep in sweeps.values()), 0, 1)

# %% [markdown]
# ## 批归一化把同一批次的输入耦合在一起
#
# 使用批统计量时，一个输入的输出在任何宽度下都取决于与它同批的样本，所以不存在两两输入之间的核。
#
# 批归一化在批次上对每个单元 $i$ 做标准化：对批次中的 $B$ 个输入取 $\mu_i = \frac1B\sum_{b} z_i(x_b)$ 和
# $s_i^2 = \frac1B\sum_b (z_i(x_b) - \mu_i)^2$，输入 $x_b$ 得到
# $(z_i(x_b) - \mu_i)/\sqrt{s_i^2 + \epsilon}$。这是每个输入和每个权重的光滑函数。但这些统计量是对
# $B$ 个输入取的平均，而不是对 $m$ 个单元：当 $m \to \infty$ 时它们仍然是随机的，并且依赖于批次中的每一个成员。
# 所以一个输入的输出取决于与它同批的样本，不存在两两输入之间的核 $\Theta(x, x')$。
# 无限宽极限对整个批次一起存在，其核依赖于批次（前向的核 $\Sigma$：Yang et al. 2019；NTK：Yang 2020，
# Tensor Programs II）。在评估模式下统计量是固定的数，即每个单元的滑动平均均值和方差：这时批归一化对每个输入
# 单独是一个仿射映射，即**冻结**的批归一化，两两输入之间的核存在。初始化时每个单元的滑动统计量都是 0 和 1，
# 所以冻结的批归一化是固定的映射 $z \mapsto z/\sqrt{1 + \epsilon}$，递归公式可以精确地套用：
# $\Sigma \mapsto \Sigma/(1 + \epsilon)$，$\Theta \mapsto \Theta/(1 + \epsilon)$。（一旦各单元的统计量互不相同，
# 例如训练之后，核就不再是这样简单的缩放。）
#
# 实验：一个网络，dense($\sigma_w = 1.4$) → 批归一化 → ReLU → dense(1)，无偏置，宽度 1024。固定输入 $x_1$，
# 把它放进 200 个 $B = 8$ 的批次，每次重新抽取另外 7 个成员（在球面 $x \cdot x/d = 1$ 上均匀分布，$d = 5$），记录 $f(x_1)$；然后在冻结的统计量下做同样的事。

# %%
coupled = course.batch_outputs(1024, 8)
frozen = course.batch_outputs(1024, 8, frozen=True)
large = course.batch_outputs(1024, 2048, resamples=2)             # two batches of 2048: near the B → ∞ limit
fig, ax = plt.subplots()
ax.hist(coupled.numpy(), bins=30, alpha=0.7,
        label=nh._("batch statistics, B = 8: mean {mean:.2f}, std {spread:.3f}").format(
            mean=float(coupled.mean()), spread=float(coupled.std())))
ax.axvline(float(frozen[0]), color=nh.plotting.PALETTE[1], lw=2,
           label=nh._("frozen statistics: {value:.2f} in every batch (std {spread:.0f})").format(
               value=float(frozen[0]), spread=float(frozen.std())))
ax.axvline(float(large.mean()), color=nh.plotting.PALETTE[2], lw=2, ls="--",
           label=nh._("batch statistics, B = 2048: {value:.2f}").format(value=float(large.mean())))
ax.set_xlabel(nh._("f(x₁) for {n} different batches").format(n=course.RESAMPLES))
ax.set_ylabel(nh._("count"))
ax.set_ylim(top=ax.get_ylim()[1] * 1.4)                           # room for the legend above the bars
ax.set_title(nh._("f(x₁) moves with its batch mates; frozen, it is one value, not their mean"))
ax.legend(fontsize="small", loc="upper left")
plt.show()

# %% tags=["check"]
coupled_rms = float(coupled.pow(2).mean().sqrt())
nh.check_between("batch statistics: std of f(x₁) over the batches, relative to its RMS (above 0.1)",
                 float(coupled.std()) / coupled_rms, 0.1, np.inf)
nh.check_close("frozen statistics: f(x₁) is the same in every batch (std relative to |f|)",
               float(frozen.std() / frozen.abs().max()), 0.0, atol=1e-12)
nh.check_close("f(x₁): mean over batches of 8, frozen, two batches of 2048 (−1.16, −1.41, −1.23, −1.21)",
               [float(coupled.mean()), float(frozen[0]), float(large[0]), float(large[1])],
               [-1.16, -1.41, -1.23, -1.21], atol=0.005)
# a unit's variance over the sphere, σ_w² ‖w_i‖²/d, for the 1024 units of the histogram's network
unit_norms = course.bn_network().network(course.D, width=1024, seed=0)[0].weight.detach().pow(2).sum(1)
nh.check_close("d = 5: the units' variances σ_w² ‖w_i‖²/d, mean (1.96) and std over mean (√(2/5) = 0.63)",
               [float(course.SIGMA_W ** 2 * unit_norms.mean() / course.D),
                float(unit_norms.std() / unit_norms.mean())], [1.96, 0.632], atol=0.06)

# %% [markdown]
# 冻结的那条线并不在直方图的中心。初始化时冻结的统计量（均值 0，方差 1）按定义既不是使用批统计量时输出的平均，
# 也不是它们在大批次下的极限，一般也不等于两者中的任何一个：当 $B \to \infty$ 时，批归一化减去每个单元在整个输入分布上的均值
# （这里是 0），再除以它在那里的标准差（一个接近 $\Sigma(x, x) = 1.96$、各单元互不相同的方差的平方根），而不是除以 1。这个差异很大：在球面上，单元 $i$ 的方差是 $\sigma_w^2\lVert w_i\rVert^2/d$，
# 而 $d = 5$ 时平方范数 $\lVert w_i\rVert^2$ 服从自由度为 5 的卡方分布，其标准差是均值的 $\sqrt{2/5} = 63\,\%$。
# 两个大小为 2048 的批次彼此一致，而与冻结的值不一致。
#
# 所以本软件包不给使用批统计量的批归一化提供核：请求核会抛出 `nh.NoClosedForm`，并给出两条出路。
# 一条是冻结的统计量。另一条是用有限网络的集成来*估计*一个批次的核，并附上误差棒（这里用 16 个宽度为 256 的网络）。
# 这个单元格在同一个批次上做这两件事：$x_1$ 和 5 个同批样本，都满足 $x \cdot x/d = 1$；然后把 $x_1$
# 放进另一个同批样本不同的批次。对这个只有一个隐藏层的网络，估计的均值与宽度无关：每个单元的批归一化只用到这个单元自己的权重和批次，
# 各单元相互独立、同分布，所以经验 NTK 是 $m$ 个独立的逐单元项之和的 $\frac1m$ 倍，其均值在任何 $m$ 下都相同。
# 宽度只改变网络之间的波动，更多的网络会缩小标准误。这个单元格在宽度 1024 下把第一个批次重做一遍来展示这一点。

# %%
bn, frozen_bn = course.bn_network(), course.bn_network(frozen=True)
try:
    bn.kernel(course.X1)
except nh.NoClosedForm:
    print(nh._("bn.kernel(...) raises nh.NoClosedForm: batch statistics have no closed form"))
batches = [course.batch_with_x1(6, resample) for resample in (0, 1)]
exact_frozen = frozen_bn.kernel(batches[0]).ntk
estimates = [nh.monte_carlo_kernel(bn, batch, width=256, n_networks=16) for batch in batches]
wider = nh.monte_carlo_kernel(bn, batches[0], width=1024, n_networks=16)
frozen_estimate = nh.monte_carlo_kernel(frozen_bn, batches[0], width=256, n_networks=16)
print(nh._("frozen, exact: Θ(x, x) = {values} for the 6 inputs of the batch").format(
    values=", ".join(f"{v:.3f}" for v in exact_frozen.diagonal())))
print(nh._("frozen, Monte Carlo: Θ(x, x) = {values}").format(
    values=", ".join(f"{v:.2f}" for v in frozen_estimate.ntk.diagonal())))
print(nh._("batch statistics, Monte Carlo: Θ(x, x) = {values}").format(
    values=", ".join(f"{v:.2f} ± {e:.2f}" for v, e in zip(estimates[0].ntk.diagonal(),
                                                         estimates[0].ntk_sem.diagonal()))))
print(nh._("batch statistics, Monte Carlo at width 1024: Θ(x, x) = {values}").format(
    values=", ".join(f"{v:.2f} ± {e:.2f}" for v, e in zip(wider.ntk.diagonal(), wider.ntk_sem.diagonal()))))
print(nh._("x₁ in the other batch, batch statistics: Θ(x₁, x₁) = {value:.2f} ± {sem:.2f}, against "
           "{first:.2f} ± {first_sem:.2f} in the first").format(value=float(estimates[1].ntk[0, 0]),
                                                  sem=float(estimates[1].ntk_sem[0, 0]),
                                                  first=float(estimates[0].ntk[0, 0]),
                                                  first_sem=float(estimates[0].ntk_sem[0, 0])))

# %% tags=["check"]
# frozen at mean 0 and variance 1: the kernel without batch norm, its first layer's Σ and Θ divided by 1 + ε
nh.check_close("frozen batch norm: Θ(x₁, x₁) equals the kernel with Σ, Θ of the first layer divided by 1 + ε",
               float(exact_frozen[0, 0]),
               float(nh.serial(nh.dense(sigma_w=course.SIGMA_W / (1 + 1e-5) ** 0.5), nh.relu(),
                               nh.dense(1)).kernel(course.X1).ntk[0, 0]), rtol=1e-12)
nh.check_close("frozen batch norm: Θ(x, x) is 1.96 for all 6 inputs", exact_frozen.diagonal(), [1.96] * 6,
               atol=1e-4)
frozen_z = (frozen_estimate.ntk - exact_frozen) / frozen_estimate.ntk_sem
nh.check_between("frozen batch norm: largest gap Monte Carlo − exact NTK, in standard errors (36 entries)",
                 float(frozen_z.abs().max()), 0, 4)
batch_diagonal = estimates[0].ntk.diagonal()
nh.check_close("batch statistics: Θ(x, x) of the 6 inputs, lowest and highest (1.04, 1.32)",
               [float(batch_diagonal.min()), float(batch_diagonal.max())], [1.04, 1.32], atol=0.005)
nh.check_between("batch statistics: highest Θ(x, x) of the batch below the frozen 1.96, in standard errors",
                 float((1.96 - batch_diagonal.max()) / estimates[0].ntk_sem.diagonal().max()), 4, np.inf)
population = nh.serial(nh.dense(sigma_w=course.SIGMA_W / (1.96 + 1e-5) ** 0.5), nh.relu(), nh.dense(1))
nh.check_close("reference frozen at the population statistics (mean 0, variance 1.96): Θ(x, x) = 1.00",
               float(population.kernel(course.X1).ntk[0, 0]), 1.0, atol=1e-4)
nh.check_between("batch statistics: lowest Θ(x, x) of the batch over the reference 1.00 (1.04, above 1)",
                 float(batch_diagonal.min()), 1.0, 1.1)
# a unit's batch variance, averaged over the weights: (1/B) tr[(I − 11ᵀ/B) Σ], Σ the batch's 6 × 6 kernel
batch_sigma = course.SIGMA_W ** 2 * batches[0] @ batches[0].T / course.D
centred = torch.eye(6, dtype=batch_sigma.dtype) - 1 / 6
nh.check_close("the batch's variance per unit, averaged over the weights, over the population's 1.96 (0.87)",
               float(torch.trace(centred @ batch_sigma) / 6 / 1.96), 0.87, atol=0.005)
# one hidden layer: the mean kernel is the same at every width, so the two estimates agree within their SE
width_z = (wider.ntk.diagonal() - batch_diagonal) / (wider.ntk_sem.diagonal() ** 2
                                                     + estimates[0].ntk_sem.diagonal() ** 2).sqrt()
nh.check_between("Monte Carlo, width 1024 against width 256: largest gap of the 6 Θ(x, x), in combined SE",
                 float(width_z.abs().max()), 0, 3)
nh.check_between("width 1024: highest Θ(x, x) of the batch below the frozen 1.96, in standard errors",
                 float((1.96 - wider.ntk.diagonal().max()) / wider.ntk_sem.diagonal().max()), 4, np.inf)
wide_diagonal = wider.ntk.diagonal()
nh.check_between("width 1024: highest minus lowest Θ(x, x) of the batch, in standard errors (still apart)",
                 float((wide_diagonal.max() - wide_diagonal.min()) / wider.ntk_sem.diagonal().max()),
                 3, np.inf)
gap = float(estimates[1].ntk[0, 0] - estimates[0].ntk[0, 0])
combined = float(estimates[0].ntk_sem[0, 0] ** 2 + estimates[1].ntk_sem[0, 0] ** 2) ** 0.5
nh.check_between("batch statistics: Θ(x₁, x₁) in the two batches differs by more than 3 combined SE",
                 gap / combined, 3, np.inf)

# %% [markdown]
# 冻结时，这六个输入的核对角元相同，$\Theta(x, x) = 1.96$，因为它们的范数相同；冻结网络的蒙特卡洛估计
# 在几个标准误以内与它一致。使用批统计量时，对角元低得多，并且在范数相同的输入之间各不相同。
#
# 下降的大部分来自除法。批归一化把每个单元除以它在批次上的标准差，而冻结的批归一化除以的是 1；按总体统计量（均值 0，方差 1.96）冻结的无限宽网络给出 $\Theta(x, x) = 1.00$，
# 而这个批次的对角元在 1.04 到 1.32 之间，位于它之上。（这个批次每个单元的方差比总体的小，对权重取平均后是总体的 0.87，
# 因为它是从批次自己的均值算起的；除数更小会让核变大，但本课并不由此推导这个批次的核。）
# 各输入之间的不同也来自批次：每个单元的统计量来自六个输入，而不是整个分布，
# 归一化如何对待一个输入，取决于这个输入在同批样本中的位置。
# 把 $x_1$ 放进另一个批次，它的 $\Theta(x_1, x_1)$ 会移动好几个误差棒：这就是在核中看到的批次耦合。
# 在宽度 1024 下，对角线与宽度 256 时在误差棒以内一致（两者估计的是同一个均值），仍远低于 1.96，并且各输入仍然不同。
#
# ## 动手探索：宽度与批次大小
#
# 用这个交互探索可以检验宽度或批次大小能否驯服这种耦合。
#
# 交互探索对你选定的宽度和批次大小、对一个网络重复这个实验：使用批统计量时 $f(x_1)$ 在 200 个批次上的直方图，
# 以及使用冻结统计量时的那一个值（竖线）。标题给出各批次之间的波动（标准差），第二行给出平均值、波动和冻结时的值。
# 每个宽度都是一个不同的随机网络（种子 0）。

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_batch, width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)),
                       batch_size=nh.widgets.int_slider(nh._("batch size"), 8, min=2, max=64))

# %% [markdown]
# **先预测，再检验。**
#
# 1. 保持批次大小为 8，把宽度从 64 移到 4096，单元数变为 64 倍。读出层对越来越多的单元取平均：
#    $f(x_1)$ 的波动会缩小为 1/8，还是大致不变？
#
# <details><summary>答案</summary>
#
# 大致不变：它在大约 0.18 到 0.23 之间变动，甚至并非每一步都下降。对更多单元取平均并没有帮助，
# 因为每个单元都用同一个批次来标准化：同批样本一变，所有单元一起变，它们的平均也跟着变。
# 无论宽度多大，每个单元的统计量仍然只是对 8 个输入取的平均；更多的单元带来更多这样的统计量，而不是更准确的统计量。
# 不同宽度之间的变化主要来自随机网络本身（每个宽度都是一个新网络）：种子 1–3 的波动在 0.17 到 0.43 之间，
# 从宽度 64 到 4096 没有一个缩小到 1/2 以下。也留意冻结的那条线：宽度 256 时它恰好落在直方图的平均值上，
# 在另外三个宽度下则不是。
#
# </details>
#
# 2. 在宽度 256 下，把批次大小从 8 移到 32。波动会变化多少？
#
# <details><summary>答案</summary>
#
# 它降到原来的 0.45。批统计量是对 $B$ 个输入取的平均，所以它们的波动，
# 以及随之而来的 $f(x_1)$ 的波动，大致按 $B^{-1/2}$ 下降：批次变为 4 倍时缩小为 $1/2$。
# 只有 $B \to \infty$ 才能消除这种耦合；那时批归一化除以的是整个输入分布的统计量，又成了固定的数，
# 但不是初始化时冻结的 0 和 1（直方图中表示大小为 2048 的批次的虚线，并不是冻结的那条线）。
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
# 与 $\pm 1$ 相差不到 0.01。逐个单元来看，网络只看到两个输入中哪个更大，而波动是所有批次大小中最大的。
#
# </details>

# %% tags=["check"]
def spread(width, batch_size):
    return float(course.batch_outputs(width, batch_size).std())


nh.check_close("batch explorer, batch 8: spread at widths 64, 256, 1024, 4096",
               [spread(w, 8) for w in (64, 256, 1024, 4096)], [0.226, 0.196, 0.204, 0.179], atol=0.0005)
other_seeds = np.array([[float(course.batch_outputs(w, 8, seed=seed).std()) for w in (64, 256, 1024, 4096)]
                        for seed in (1, 2, 3)])
nh.check_close("batch 8, seeds 1–3: smallest and largest spread over widths 64 to 4096 (0.165, 0.427)",
               [float(other_seeds.min()), float(other_seeds.max())], [0.165, 0.427], atol=0.0005)
falls = [spread(64, 8) / spread(4096, 8), *(other_seeds[:, 0] / other_seeds[:, -1])]
nh.check_between("batch 8, seeds 0–3: largest fall of the spread, width 64 → 4096 (8 for m^(-1/2))",
                 float(max(falls)), 0, 2)
nh.check_close("batch explorer, width 256: spread at batch 32 (0.088)", spread(256, 32), 0.088, atol=0.0005)
means = {w: float(course.batch_outputs(w, 8).mean()) for w in (64, 256, 1024, 4096)}
frozen_values = {w: float(course.batch_outputs(w, 8, frozen=True)[0]) for w in means}
nh.check_between("batch 8, width 256: |frozen − mean over the batches| (small, 0.002)",
                 abs(frozen_values[256] - means[256]), 0, 0.01)
nh.check_between("batch 8, widths 64, 1024, 4096: smallest |frozen − mean over the batches| (above 0.1)",
                 min(abs(frozen_values[w] - means[w]) for w in (64, 1024, 4096)), 0.1, np.inf)
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
# 比值在 $a = 1/4$ 处为 $0.949$，在 $a = 4$ 处为 $0.994$（用交互探索的输入）。
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
# 4. 交互探索的批次大小最小为 2。对只有一个输入的批次，使用批统计量的批归一化会交给 ReLU 什么？
#    网络 全连接 → 批归一化 → ReLU → dense(1)（无偏置）会计算出什么？
#
# <details><summary>答案</summary>
#
# 每个单元都是零：只有一个输入时 $\mu_i = z_i(x_1)$，所以 $z_i(x_1) - \mu_i = 0$，输出是
# $0/\sqrt{0 + \epsilon} = 0$。ReLU 给出 0，网络对每个输入、每组权重都输出 0：它什么也没有计算，它的 NTK 是 0。
# （这就是为什么 PyTorch 的 `BatchNorm1d` 在训练模式下拒绝形状为 $(1, C)$ 的输入：其中每个通道只有一个值；而 `BatchNorm2d` 接受一张图像，它的每个通道有 $H \cdot W$ 个值。）$\epsilon$ 让它保持有限；没有 $\epsilon$，
# 这个映射就是 $0/0$。
#
# </details>
#
# 5. 每个单元的滑动均值为 0、滑动方差为 4 的冻结批归一化，跟在一个无偏置的全连接层之后，该层的
#    $\Sigma(x, x) = 2$，$\Theta(x, x') = 1$。经过它之后 $\Sigma(x, x)$ 和 $\Theta(x, x')$ 是多少（忽略 $\epsilon$）？
#    对 $x$ 的输出取决于批次吗？
#
# <details><summary>答案</summary>
#
# 它是固定的映射 $z \mapsto z/2$，对每个输入都一样，所以两个核都除以 4：
# $\Sigma(x, x) = 0.5$，$\Theta(x, x') = 0.25$，就像把全连接层的 $\sigma_w$ 减半一样。它对 $x$ 的输出
# 只取决于 $x$ 和权重，而不取决于批次，所以两两输入之间的核存在。
#
# </details>

# %% tags=["check"]
# question 1's division rule, on the package's kernels of dense → ReLU → dense before and after layer norm
stack = [nh.dense(sigma_w=course.SIGMA_W), nh.relu(), nh.dense(sigma_w=course.SIGMA_W)]
pair = torch.cat([course.PAIR[:1], 2 * course.PAIR[1:]])                 # Σ(x, x) = 1.92, Σ(x′, x′) = 7.68
before, after = nh.serial(*stack).kernel(pair), nh.serial(*stack, nh.layer_norm()).kernel(pair)
divisor = float(((before.nngp[0, 0] + 1e-5) * (before.nngp[1, 1] + 1e-5)) ** 0.5)
nh.check_close("question 1: Σ(x, x′) after layer norm is Σ(x, x′) / √((Σ(x, x)+ε)(Σ(x′, x′)+ε))",
               float(after.nngp[0, 1]), float(before.nngp[0, 1]) / divisor, rtol=1e-10)
nh.check_close("question 1: Θ(x, x′) after layer norm is Θ(x, x′) / √((Σ(x, x)+ε)(Σ(x′, x′)+ε))",
               float(after.ntk[0, 1]), float(before.ntk[0, 1]) / divisor, rtol=1e-10)
nh.check_close("question 1: after layer norm Σ(x, x) = Σ(x′, x′) = 1 (up to ε)", after.nngp.diagonal(),
               [1.0, 1.0], atol=1e-5)
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
halved = nh.dense(sigma_w=course.SIGMA_W / 2).kernel(course.PAIR)          # z/2 after a bias-free dense layer
full = nh.dense(sigma_w=course.SIGMA_W).kernel(course.PAIR)
nh.check_close("question 5: dividing z by 2 divides Σ(x, x) and Θ(x, x′) by 4",
               [float(halved.nngp[0, 0] / full.nngp[0, 0]), float(halved.ntk[0, 1] / full.ntk[0, 1])],
               [0.25, 0.25], rtol=1e-10)
alone = course.bn_network().network(course.D, width=256, seed=0)
with torch.no_grad():
    alone_units, alone_output = alone[1](alone[0](course.X1)), alone(course.X1)
nh.check_close("question 4: batch of one: what batch norm hands the ReLU, and f(x₁)",
               [float(alone_units.abs().max()), float(alone_output.abs().max())], [0.0, 0.0], atol=1e-12)

# %% [markdown]
# ## 小结
#
# - 在无限宽时，层归一化的统计量就是核的对角元：紧接在全连接层之后，它把
#   $\Sigma$ 和 $\Theta$ 除以 $\sqrt{\Sigma(x,x)\,\Sigma(x',x')}$（加上 $\epsilon$），递归照常进行。
# - 这时核只看输入的方向，**前提是**给层归一化提供输入的部分是正齐次的
#   （无偏置的全连接层和 ReLU），并且输入只经过层归一化到达后面的部分（串联网络，层归一化周围没有跳连）：
#   这时对每个 $\theta$ 都有 $f(ax;\theta) = f(x;\theta)$，在任何宽度下都成立。
# - 层归一化之前的偏置（或 $\tanh$）会让输入的尺度重新进入核：对核明显为正的输入只是一点点，
#   对方向几乎相反的输入则足以让核变号。在这样的串联网络中，层归一化之后的偏置则不会。
# - 使用批统计量的批归一化是光滑的，但它耦合了批次：一个输入的输出和它的核都随同批样本而变
#   ，而且波动不随宽度缩小，所以不存在两两输入之间的核；
#   它的核可以用蒙特卡洛方法一次一个批次地估计，并附上误差棒。
# - 冻结的批归一化对每个输入是一个仿射映射，有核；初始化时（统计量为 0 和 1）它把 $\Sigma$ 和 $\Theta$ 除以
#   $1+\epsilon$。

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
# （见“批归一化把同一批次的输入耦合在一起”一节：波动不随宽度缩小），核也依赖于批次（Yang et al. 2019；NTK：Yang 2020，Tensor Programs II）。
# 冻结的统计量使它成为仿射映射。层归一化确实有核映射；当它之前的部分是正齐次的
# （没有偏置，用 ReLU 或任何正齐次的激活函数，而不是 $\tanh$），并且输入只经过层归一化到达后面的部分时，
# 它使核只依赖于方向（见“核何时只看方向？”一节）。
# [勘误 A17](../../ERRATA.zh.md#a17)
#
# </details>
#
# <details><summary>§4.5.1：ReLU 核“尺度不变”（勘误 A24）</summary>
#
# **教材的说法：** 在单位球面上 ReLU 核只依赖于输入之间的夹角，由此它们具有一种尺度不变性；教材把这一性质写成
# $\Theta(ax, bx') \neq ab\,\Theta(x, x')$，也就是声称核*不*随输入的范数缩放。
#
# **正确的说法：** 没有偏置时，ReLU 网络是正齐次的，它的核也是：对 $a, b > 0$ 有
# $\Theta(ax, bx') = ab\,\Theta(x, x')$（第一幅图中的 “ReLU, no bias” 曲线；“检验你的理解”第 3 题）。
# 只有归一化之后的核，或者接在无偏置的全连接层和 ReLU 层之后的层归一化，才是尺度不变的（在
# 全连接 → $\tanh$ → 全连接 → 层归一化之后则不是，见第 2 题）；偏置会破坏齐次性。
# [勘误 A24](../../ERRATA.zh.md#a24)
#
# </details>
#
# **下一课：** [05b · 参数化](05b_parameterization.ipynb)
