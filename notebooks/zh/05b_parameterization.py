# %% [markdown]
# # 05b · 参数化：NTK、标准参数化与 μP，惰性训练与特征学习
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/05b_parameterization.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F05b_parameterization.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../05b_parameterization.ipynb)）
#
# *教材第 4.4.2 节。*
#
# **本课内容**
# - 把一种参数化读成**宽度 $m$ 的幂次**：每一层（包括偏置）的方差和学习率，全部列在一张表里；
# - Yang & Hu (2021) 的**稳定性条件与非平凡性条件**，以及在核区域与特征学习之间作出判定的指数 $r$
#   （*动力学二分性*）；
# - 如何从一步 SGD **推导出 μP**，以及几种初始化名称（LeCun、He、Xavier）规定了什么；
# - **惰性训练**的含义，用实验测量：在 NTK 参数化下，特征按 $m^{-1/2}$ 移动，核冻结，而输出照样拟合数据；
#   在 μP 下，特征和核都移动 $\Theta(1)$；
# - 核极限是什么：从 $f_0$ 出发的核梯度下降，收敛时为无岭回归，并且只在写明的条件下成立。
#
# **预备知识：** 第 01–02 课（NTK、它的递归，以及核区域中的训练）。

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
from ntk_helpers.course import parameterization as course   # this lesson's table, experiments and explorer

nh.plotting.use_style()

# %% [markdown]
# ## 一图看懂
#
# 网络的权重及其学习率如何随宽度 $m$ 缩放，决定了一步梯度下降能让隐藏层特征移动多远。如果这个移动量按 $m$
# 的某个幂次缩小，而输出仍在学习，无限宽网络就在一个固定的核下训练（惰性，即核区域）；如果它保持 1 的量级，
# 网络的特征和核都在学习（μP）。
#
# 这为什么重要：在无限宽极限下，处于核区域的网络是一种固定核方法。它的特征从不适应数据，所以它学不到可供预训练或迁移复用的表示
# （Yang & Hu 2021 用 word2vec 和小样本学习说明了这一点）。而一种在每个宽度下指数都正确的参数化，可以让在小网络上
# 调好的超参数直接用到宽网络上（μTransfer，Yang et al. 2022）。

# %%
idea_widths = [128, 512, 2048]                 # the widths of the one-step measurement below
idea_points = {setting: [course.one_step_changes(setting, m)[1] for m in idea_widths]
               for setting in course.SETTINGS}
course.idea_diagram(idea_widths, idea_points)
plt.show()

# %% [markdown]
# 每条线都是对某个隐藏层预激活的预测（即下表的 $\Delta h^l$ 一列），推导见下文；空心圆点和方块是它的测量值：宽度 128、512 和 2048 下的一步 SGD
# （见“测量：一步 SGD”一节），每一行的点整体乘上一个常数上下平移，以便把它们的斜率与直线比较。在 NTK 参数化下一个特征按
# $m^{-1/2}$ 移动，在 μP 下按 $m^0$，
# 而在固定学习率的标准参数化下，第一步让它按 $m^{1/2}$ 移动；这一步使输出权重的大小变为 $m^0$，所以从第二步起
# 特征至少按 $m^{1}$ 移动（只要损失的导数保持 $O(1)$，就恰好是 $m^1$），训练发散。Yang & Hu (2021) 证明：对这一类保持有限、
# 并且确实在学习的参数化，不存在第三种可能（对光滑的激活函数；条件见下文）。

# %% [markdown]
# ## 4.4.2 一张宽度指数表
#
# 用**等效权重**写出网络：对输入 $\xi \in \mathbb R^d$ 有 $h^1 = W^1\xi + b^1$，
# $x^l = \phi(h^l)$，隐藏层为 $h^{l+1} = W^{l+1}x^l + b^{l+1}$，输出为 $f = W^{L+1}x^L + b^{L+1}$。
# 一种参数化对每一层规定两件事：初始化时 $W^l$ 各元素的方差，以及 SGD 移动 $W^l$ 所用的学习率 $\eta_l$。
# 当 $m \to \infty$ 时，只有它们的 **$m$ 的幂次**起作用（$d$、深度和各常数保持固定）：
#
# | | 输入层 $W^1$：Var，$\eta_1$ | 隐藏层 $W^l$：Var，$\eta_l$ | 输出层 $W^{L+1}$：Var，$\eta_{L+1}$ | 隐藏单元的偏置：$\eta_b$ | 输出偏置：$\eta_b$ | 一步之后：$\Delta h^1$，$\Delta h^l$，$\Delta f$ | $m \to \infty$ |
# |---|---|---|---|---|---|---|---|
# | **标准**，固定 $\eta$ | $m^0$, $m^0$ | $m^{-1}$, $m^0$ | $m^{-1}$, $m^0$ | $m^0$ | $m^0$ | $m^{-1/2}$, $m^{1/2}$, $m^{1}$ | 不稳定 |
# | **标准**，$\eta \propto 1/m$ | $m^0$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^{-1}$ | $m^{-1}$ | $m^{-3/2}$, $m^{-1/2}$, $m^0$ | 核区域 |
# | **NTK** | $m^0$, $m^0$ | $m^{-1}$, $m^{-1}$ | $m^{-1}$, $m^{-1}$ | $m^0$ | $m^0$ | $m^{-1/2}$, $m^{-1/2}$, $m^0$ | 核区域（惰性） |
# | **μP** | $m^0$, $m^{1}$ | $m^{-1}$, $m^0$ | $m^{-2}$, $m^{-1}$ | $m^{1}$ | $m^0$ | $m^0$, $m^0$, $m^0$ | 特征学习 |
#
# 每个偏置的方差都是 $m^0$。“一步之后”几列给出从初始化出发的一步 SGD 让输入层的预激活 $h^1$ 和某个隐藏层的 $h^l$
# （二者都相对于其自身大小，即 $\Theta(1)$）以及输出 $f$（绝对变化）移动多远；后面几节由其他各列推导出它们。标准参数化和 NTK 参数化的方差相同
# （初始化时是同一个网络），只有学习率不同；μP 改变了输出层的方差和几乎每一个学习率。
#
# “不稳定”说的是*固定的* $\eta$ 在 $m \to \infty$ 时的情形。实践中标准参数化训练得很好，因为对每个宽度都会重新调节 $\eta$，而最优的 $\eta$ 随网络变宽而减小（Yang et al. 2022 测量了这一偏移）：这是朝“$\eta \propto 1/m$”那一行的方向移动。

# %% [markdown]
# ### 方差各列：初始化的名称与初始化时的稳定性
#
# 方差各列就是各种初始化方案所规定的内容。**LeCun**：$1/\text{fan-in}$。**He**（Kaiming，用于 ReLU）：
# $2/\text{fan-in}$。**Xavier**（Glorot & Bengio 2010）：$2/(\text{fan-in} + \text{fan-out})$，只有对方阵层才等于
# $1/\text{fan-in}$。输入层的扇入（fan-in）是 $d$，所以它的方差是 $m^0$；隐藏层或输出层的扇入是 $m$，所以方差是
# $m^{-1}$。NTK 参数化取 $w \sim \mathcal N(0, 1)$，在前向传播中乘以 $\sigma_w/\sqrt{\text{fan-in}}$：等效权重的方差为
# $\sigma_w^2/\text{fan-in}$，$\sigma_w = 1$ 时是 LeCun 的值，$\sigma_w = \sqrt 2$ 时是 He 的值。
#
# 隐藏层的 $m^{-1}$ 是必须的：它让每个预激活在每个宽度下都保持 $\Theta(1)$ 的大小。再多一个因子 $1/m$，
# 每一层就会缩小 $\sqrt m$ 倍。实验：一个有三个隐藏层的 ReLU 网络，分别采用 He 的方差（本软件包的 NTK 参数化，
# $\sigma_w = \sqrt 2$）和方差 $2/(\text{fan-in}\cdot m)$。

# %%
init_widths = [64, 256, 1024]
he = [course.preactivation_rms(m) for m in init_widths]
shrunk = [course.preactivation_rms(m, extra_one_over_m=True) for m in init_widths]
init_slopes = course.draw_initialization(init_widths, he, shrunk)
plt.show()

# %% tags=["check"]
for layer in (1, 2, 3):
    nh.check_close("He's variance: slope of the pre-activation RMS in m, per layer (0)",
                   init_slopes["he", layer], 0.0, atol=0.05)
    nh.check_close("variance 2/(fan-in·m): slope of layer l's RMS in m (−l/2)", init_slopes["shrunk", layer],
                   -layer / 2, atol=0.05)
nh.check_close("He's variance: every layer's RMS ≈ √2", np.ravel(he), np.full(9, np.sqrt(2)), rtol=0.05)

# %% [markdown]
# ### 这张表从何而来：一步 SGD
#
# 取损失 $\ell(f)$，记 $\chi = \ell'(f) = \Theta(1)$。记 $s$ 为输出权重各元素的量级
# （$\operatorname{Var} W^{L+1} = s^2$），$g^l = \partial f/\partial h^l$，$x^0 = \xi$。一步 SGD 给 $W^l$ 加上秩一矩阵
# $\Delta W^l = -\eta_l\,\chi\, g^l\,x^{l-1}(\xi)^\top$（在输入 $\xi$ 上走一步），于是该层在输入 $\xi'$ 上的预激活改变
#
# $$\Delta W^l\, x^{l-1}(\xi') \;=\; -\,\eta_l \;\chi\; g^l \;\big(x^{l-1}(\xi)^\top x^{l-1}(\xi')\big)
#   \qquad\text{（学习率）} \times \text{（每个单元的梯度）} \times \text{（许多项之和）}.$$
#
# - **每个单元的梯度。** $g^L = \phi'(h^L)\odot (W^{L+1})^\top$ 的元素量级为 $s$。反向经过一个隐藏层时，
#   $(W^{l+1})^\top g^{l+1}$ 是 $m$ 个量级为 $m^{-1/2}s$、符号随机的项之和：量级仍然是 $s$。
# - **求和的项数。** $x^{l-1}(\xi)^\top x^{l-1}(\xi')$ 对输入层是 $d$ 项之和，对其他每一层是 $m$ 项之和，而且这些项**不会**
#   相互抵消：对同一个输入它们都是平方；对另一个输入，它们的平均是特征核。
#   对同一个输入以及一般的相关输入，这个和是 $\Theta(m)$，而不是符号随机之和的 $\Theta(\sqrt m)$
#   （对无偏置的奇激活函数和正交的输入，特征核为 0，这个和只有 $\Theta(\sqrt m)$；ReLU 的特征核从不为负，只有在无偏置的第一个隐藏层、输入互为相反（$\xi' = -\xi$）时才为 0，此时每一项都是 0）。

# %% [markdown]
# **输出。** 输出以两种方式变化，$\Delta f = \Delta W^{L+1} x^L + W^{L+1}\Delta x^L$。第一项是同样的秩一更新，只是 $g = 1$：
# $\eta_{L+1}\chi\,(x^L)^\top x^L \sim \eta_{L+1}\, m$。第二项是输出权重读出特征的变化：$m$ 个量级为 $s\,\Delta x^L$ 的项，
# 它们方向一致，因为 $\Delta x^L$ 跟随 $g^L \propto W^{L+1}$。对同一个输入，到一阶有
# $\Delta x^L_i = \phi'(h^L_i)\,\Delta h^L_i$，其中 $\Delta h^L_i = -\eta_L\chi\,g^L_i\,|x^{L-1}|^2$（这只是该层自身的一项；下面一层传上来的部分见下一段），
# $g^L_i = \phi'(h^L_i)\,W^{L+1}_i$，所以
# $W^{L+1}\Delta x^L = -\eta_L\chi\,|x^{L-1}|^2\sum_i \phi'(h^L_i)^2\,(W^{L+1}_i)^2$：$m$ 个同号的项。偏置 $b^l$ 移动 $\eta_b\,\chi\, g^l$，
# 所以它所在的层移动 $\eta_b s$。因此，忽略常数（Yang & Hu 2021），
#
# $$\Delta h^1 \sim \eta_1\, s\, d, \qquad \Delta h^l \sim \eta_l\, s\, m \ \ (\text{隐藏层}), \qquad
#   \Delta f \sim \eta_{L+1}\, m \;+\; m\, s\, \Delta x^L .$$
#
# 算例，NTK 参数化下的一个隐藏层：$\eta_l = 1/m$、$s = m^{-1/2}$ 和 $m$ 个求和项给出
# $\Delta h^l \sim m^{-1}\cdot m^{-1/2}\cdot m = m^{-1/2}$。

# %% [markdown]
# **下一层传上来的变化。** 隐藏层还会把下一层的变化传上来，即 $W^l\Delta x^{l-1}$：$m$ 个量级为 $m^{-1/2}\Delta x^{l-1}$、符号随机的项，
# 所以其大小与 $\Delta x^{l-1}$ 本身相当（反向传播经由 $(W^l)^\top$ 构造出 $\Delta x^{l-1}$，所以它还含有一个与 $W^l$ 方向一致的部分，大小相同）。在表中每一行里，它都不超过该层自己的那一项；Tensor Programs IV
# 把整个论证严格化了，对多步训练也成立。偏置的项也从来不是最大的（每一行都有 $\eta_b s \le$ 权重的那一项）。

# %% [markdown]
# ### 推导 μP
#
# **μP**（“maximal update”，最大更新）要求每一层的特征*和*输出都移动 $\Theta(1)$：
# - 当 $\Delta x^L = \Theta(1)$ 时，$\Delta f$ 的第二项必须保持 $O(1)$：$m\,s = \Theta(1)$，所以 $s = 1/m$，
#   即输出方差为 $m^{-2}$ 而不是 $m^{-1}$；
# - 于是 $\Delta h^1 = \Theta(1)$ 需要 $\eta_1 \sim m$，隐藏层的 $\Delta h^l = \Theta(1)$ 需要 $\eta_l \sim 1$，
#   $\eta_{L+1} m = \Theta(1)$ 需要 $\eta_{L+1} \sim 1/m$，而隐藏单元的偏置需要 $\eta_b s = \Theta(1)$，
#   即 $\eta_b \sim m$。
#
# 其他各行按同样的方式得到。**NTK**：$s = m^{-1/2}$，$\eta = (1, 1/m, 1/m)$，所以 $\Delta h^1 \sim
# \Delta h^l \sim m^{-1/2}$，$\Delta f \sim 1$：输出在学习，特征几乎不动。**标准参数化，固定
# $\eta$**：$s = m^{-1/2}$，$\eta = (1, 1, 1)$，所以 $\Delta h^l \sim m^{1/2}$，$\Delta f \sim m$：发散。
# **标准参数化，$\eta \propto 1/m$**：$\Delta h^1 \sim m^{-3/2}$，$\Delta h^l \sim m^{-1/2}$，$\Delta f \sim 1$。
# μP 只规定这些指数：前面的常数可以在较小的宽度下调好，再原样搬到任意宽度
# （μTransfer，Yang et al. 2022, Tensor Programs V）。

# %% [markdown]
# ### 作出判定的条件（Yang 与 Hu 2021，Tensor Programs IV）
#
# Yang & Hu 把每一种这样的参数化写成 $W^l = m^{-a_l} w^l$，其中可训练的 $w^l \sim \mathcal N(0,
# m^{-2b_l})$，并用学习率为 $\eta\, m^{-c}$ 的 SGD 训练。于是 $\operatorname{Var} W^l \propto m^{-2(a_l + b_l)}$；
# 又因为 $\partial\ell/\partial w = m^{-a}\,\partial\ell/\partial W$ 且 $\Delta W = m^{-a}\Delta w$，
# 所以 $\eta_l \propto m^{-(2a_l + c)}$。他们对表中各行的取法：
#
# | | $a$：输入层、隐藏层、输出层 | $b$：输入层、隐藏层、输出层 | $c$ |
# |---|---|---|---|
# | **标准** | $0,\ 0,\ 0$ | $0,\ \tfrac12,\ \tfrac12$ | $0$（固定 $\eta$）或 $1$（$\eta \propto 1/m$） |
# | **NTK** | $0,\ \tfrac12,\ \tfrac12$ | $0,\ 0,\ 0$ | $0$ |
# | **μP** | $-\tfrac12,\ 0,\ \tfrac12$ | $\tfrac12,\ \tfrac12,\ \tfrac12$ | $0$ |
#
# 设网络有 $L$ 个隐藏层（$W^1$ 是输入层，$W^{L+1}$ 是输出层），定义
#
# $$r = \min\big(a_{L+1} + b_{L+1},\; 2a_{L+1} + c\big) + c - 1 + \min_{l = 1, \dots, L}\big(2a_l + \mathbb 1[l = 1]\big).$$
#
# 它就是写成指数形式的一步论证。训练中输出权重的大小是
# $s = m^{-\min(a_{L+1} + b_{L+1},\ 2a_{L+1} + c)}$：取其初始大小 $m^{-(a+b)}$ 与其更新
# $\eta_{L+1}\chi x^L$ 的大小 $m^{-(2a+c)}$ 中较大的一个。由 $\Delta h^1 \sim \eta_1 s\,d$ 和
# $\Delta h^l \sim \eta_l s\, m$，第 $l$ 层自身的变化的指数是
#
# $$e_l = -(2a_l + c) \;-\; \min\big(a_{L+1} + b_{L+1},\; 2a_{L+1} + c\big) \;+\; 1 - \mathbb 1[l = 1].$$
#
# $\mathbb 1[l = 1]$ 的来由是：输入层是 $d$ 项之和，而不是 $m$ 项之和，少了一个 $m$ 的幂次。变化以自身的大小向上传递（见一步论证一节末尾），所以最大的 $e_l$ 决定 $\Delta x^L$，而 $r$ 就是它的相反数。把负号移进去，$-\max_l e_l = \min\big(a_{L+1} + b_{L+1},\ 2a_{L+1} + c\big) + c - 1 +
# \min_l\big(2a_l + \mathbb 1[l = 1]\big)$：这正是 $r$ 的公式。例如 NTK：
# $\min(\tfrac12 + 0,\ 1 + 0) + 0 - 1 + \min(0 + 1,\ 1) = \tfrac12$，即表中的 $m^{-1/2}$。
# 对固定 $\eta$ 的标准参数化，两者不同：$r = -1$，而表中的第一步给出 $m^{1/2}$。第一步从大小为 $m^{-1/2}$
# 的输出权重出发；它加上 $\eta_{L+1}\chi x^L$，其元素大小为 $m^0$，所以从第二步起特征至少按 $m^{1}$ 移动（只要损失的导数保持 $O(1)$，就恰好如此），即 $-r = 1$。
# 定理的条件：
#
# 1. **初始化时稳定**（特征为 $\Theta(1)$，输出为 $O(1)$）：$a_1 + b_1 = 0$；各隐藏层 $a_l + b_l = \tfrac12$；
#    $a_{L+1} + b_{L+1} \ge \tfrac12$。
# 2. **训练中稳定**（$m \to \infty$ 时没有任何量发散）：$r \ge 0$，并且 $\Delta f$ 的两项都保持
#    $O(1)$：$2a_{L+1} + c \ge 1$（即 $\eta_{L+1} m = O(1)$）且 $a_{L+1} + b_{L+1} + r \ge 1$（即
#    $m\,s\,\Delta x^L = O(1)$）。
# 3. **非平凡**（输出确实在学习）：$2a_{L+1} + c = 1$ 或 $a_{L+1} + b_{L+1} + r = 1$。
#
# **动力学二分性**（他们的主要分类定理，针对 $m \to \infty$ 时任意固定步数的 SGD，不同于下文 Lee et al.
# 对全部训练时间的结论）：一种稳定且非平凡的 abc 参数化，要么 $r = 0$ 并且**学习特征**（对某个输入、某一步和某次训练，
# $\Delta x^L = \Omega(1)$），要么 $r > 0$ 并且处于**核区域**（在这些步中特征的变化趋于零，函数按固定核的核梯度下降演化）；
# 二者不能兼得，也没有第三种情形。他们的定理假设激活函数是光滑的（例如 tanh 或光滑化的 GELU）、$d$ 和 $L$ 固定，
# 并对损失有一些条件（确切条件见原论文），所以本课实验所用的 ReLU 不在其覆盖范围内：对 ReLU，下面测得的吻合只是观察结果。
# 有两个检查单元格用 tanh 重复了测量：NTK 和 μP 的一步指数，以及 NTK 参数化在 50 步中的变化。
#
# 同时作平移 $a_l \to a_l + \theta$、$b_l \to b_l - \theta$（每一层用同一个 $\theta$）、$c \to c - 2\theta$，
# 等效权重及其学习率都不变：许多组三元组描述的是宽度表中的同一行。

# %%
for row, (a, b, c) in course.ABC.items():
    verdict = course.classify(a, b, c)                      # two hidden layers: one m x m matrix
    print(nh._("{row}: r = {r}, stable: {stable}, non-trivial: {nontrivial} → {regime}").format(
        row=course.row_name(row), r=verdict.r, stable=verdict.stable,
        nontrivial=course.nontrivial_name(verdict),
        regime=course.regime_name(verdict.regime)))

# %% tags=["check"]
verdicts = {row: course.classify(*abc) for row, abc in course.ABC.items()}
nh.check_close("r of standard (fixed η), standard (η ∝ 1/m), NTK, μP (−1, ½, ½, 0)",
               [float(v.r) for v in verdicts.values()], [-1, 0.5, 0.5, 0], atol=1e-12)
nh.check_that("regimes: unstable, kernel, kernel, feature learning",
              [v.regime for v in verdicts.values()] == ["unstable", "kernel regime", "kernel regime",
                                                        "feature learning"],
              measured=str([v.regime for v in verdicts.values()]), expected="as the table says")
for row, (a, b, c) in course.ABC.items():                  # the formula's r is the one-step Δh^l exponent
    if verdicts[row].stable:
        nh.check_close("stable rows: −r = the one-step exponent of Δh^l",
                       -float(verdicts[row].r),
                       float(course.one_step_exponents(course.width_exponents(a, b, c))[1]), atol=1e-12)
theta = 0.5                                                # the symmetry: same widths exponents, same verdict
a, b, c = course.ABC["μP"]
shifted = ([x + theta for x in a], [x - theta for x in b], c - 2 * theta)
nh.check_that("the shift θ = ½ leaves μP's width exponents and verdict unchanged",
              course.width_exponents(*shifted) == course.width_exponents(a, b, c)
              and course.classify(*shifted) == verdicts["μP"], measured=str(course.classify(*shifted).regime),
              expected="feature learning")

# %% [markdown]
# ## 测量：一步 SGD
#
# 两个隐藏层（输入层、一个 $m \times m$ 隐藏层、输出层），ReLU，16 个输入，**一**步 SGD，宽度为
# 128、512 和 2048：对表中的四行，分别在无偏置和有偏置（$\sigma_b = 0.5$）时测量 $h^1$ 和 $h^2$ 的相对 RMS 变化，
# 以及 $f$ 的 RMS 变化。为了让每个宽度看到相同的损失导数，我们在 $y + f_0(x)$ 上训练：这样无论随机初始函数 $f_0$
# 是什么，第一个残差都恰好是 $-y$。
# 图中每个子图对应表中“一步之后”那几列中的一列。每种设置的 $\eta$（NTK 为 0.5，μP 为 0.02，标准参数化为 0.005 或 $1/m$）
# 只是一个全局的数；第 $l$ 层的学习率是
# $\eta_l = \eta\cdot\text{lr}_l\cdot\sigma_w^2\,\text{mult}_l^2$，表中 $m$ 的幂次就在这些因子里（见附录）。

# %%
step_widths = [128, 512, 2048]
one_step = {(setting, sigma_b): np.array([course.one_step_changes(setting, m, sigma_b=sigma_b)
                                          for m in step_widths])
            for setting in course.SETTINGS for sigma_b in (0.0, 0.5)}
exponents = {key: [nh.loglog_slope(step_widths, changes[:, j]) for j in range(3)]
             for key, changes in one_step.items()}
predicted = {setting: [float(e) for e in course.one_step_exponents(course.width_exponents(*course.ABC[row]))]
             for setting, row in course.ROW.items()}
print(nh._("slopes in m after one step, σ_b = 0 | σ_b = 0.5   (Δh¹, Δh², Δf; the table's value in brackets)"))
for setting in course.SETTINGS:
    measured = [" ".join(f"{e:+.2f}" for e in exponents[setting, sigma_b]) for sigma_b in (0.0, 0.5)]
    table = " ".join(f"{p:+.1f}" for p in predicted[setting])
    print(f"{course.setting_name(setting)}:  {measured[0]} | {measured[1]}   ({table})")

# %%
course.draw_one_step(step_widths, {setting: one_step[setting, 0.0] for setting in course.SETTINGS})
plt.show()

# %% tags=["check"]
# slopes from three widths, exact up to corrections in 1/√m: 0.1 is the room the table's exponents leave them
nh.check_close("no bias: the measured one-step exponents (Δh¹, Δh², Δf) of all four settings",
               np.array([exponents[s, 0.0] for s in course.SETTINGS]),
               np.array([predicted[s] for s in course.SETTINGS]), atol=0.1)
nh.check_close("σ_b = 0.5: the measured one-step exponents of all four settings",
               np.array([exponents[s, 0.5] for s in course.SETTINGS]),
               np.array([predicted[s] for s in course.SETTINGS]), atol=0.1)
smooth = {s: [nh.loglog_slope(step_widths, np.array([course.one_step_changes(s, m, activation="tanh")
                                                     for m in step_widths])[:, j]) for j in range(3)]
          for s in ("NTK, η = 0.5", "μP, η = 0.02")}
mup_steps = np.log(one_step["μP, η = 0.02", 0.0])
fits = [np.polyval(np.polyfit(np.log(step_widths), column, 1), np.log(step_widths)) for column in mup_steps.T]
scatter = float(np.exp(max(np.abs(fit - column).max() for fit, column in zip(fits, mup_steps.T))))
nh.check_between("μP, one step: largest factor between a point and its fitted line (up to about 1.2)",
                 scatter, 1, 1.25)
nh.check_close("tanh (a smooth activation): NTK and μP one-step exponents",
               np.array(list(smooth.values())), np.array([predicted[s] for s in smooth]), atol=0.1)
nh.check_between("Θ(1) is not large: μP's relative Δh¹ at η = 0.02, smallest over the widths (0.015)",
                 one_step["μP, η = 0.02", 0.0][:, 0].min(), 0.015, 0.018)
nh.check_between("Θ(1) is not large: μP's relative Δh¹ at η = 0.02, largest over the widths (0.018)",
                 one_step["μP, η = 0.02", 0.0][:, 0].max(), 0.015, 0.018)
antipodal = nh.sphere(1, d=8, seed=0)
with torch.no_grad():
    relu_features = torch.relu(course.network("ntk", 512)[0](torch.cat([antipodal, -antipodal])))
nh.check_close("ReLU, first hidden layer without bias: the feature kernel of ξ and −ξ is 0",
               float(relu_features[0] @ relu_features[1]), 0.0, atol=1e-12)
with torch.no_grad():
    second = torch.relu(course.network("ntk", 512, depth=2)[:3](torch.cat([antipodal, -antipodal])))
antipodal_ratio = float(second[0] @ second[1] / (second[0] @ second[0]))
nh.check_between("… but not at the second hidden layer: feature kernel of ξ, −ξ over that of ξ, ξ (1/π)",
                 antipodal_ratio, 0.25, 0.4)

# %% [markdown]
# 在 NTK 参数化下，一步让每个特征移动其自身大小的 $m^{-1/2}$：在无限宽时，特征以及由特征构成的核在任意固定的步数内都不会移动。
# 这就是**惰性**训练。在 μP 下，它们移动的量与 $m$ 无关（它的点在一条水平线上下最多偏离约 20 %，
# 这是只用一个随机种子、只走一步带来的噪声）。$\Theta(1)$ 的意思是与 $m$ 无关，而不是很大：其大小由 $\eta$ 决定，在 $\eta = 0.02$ 时 μP 的 $h^1$ 只移动其自身大小的 0.015 到 0.018。标准参数化的隐藏层随着网络变宽反而移动得*更多*（中间的子图），
# 输出更是如此（$m^{1}$，右边的子图），尽管它输入层特征的变化在缩小，按 $m^{-1/2}$（左边的子图）。偏置不改变任何一个指数。

# %% [markdown]
# ## 测量：多步训练中的惰性训练与特征学习
#
# 一个隐藏层，16 个训练点，50 步梯度下降，宽度为 256、1024 和 4096，3 个随机种子，NTK
# （$\eta = 0.5$）与 μP（$\eta = 0.1$）。μP 的 $\eta$ 是这样选的：两次训练结束时的训练损失相当（见下面的输出），
# 于是两者是在拟合的相当阶段上比较的。我们记录以下各量的相对变化：按学习率加权的 NTK
# $\sum_l \eta_l \langle \partial f/\partial W^l, \partial f'/\partial W^l\rangle$（驱动
# $\mathrm d f/\mathrm dt$ 的那个核）、隐藏层特征 $h$ 本身、特征核 $\Phi\Phi^\top/m$、全部权重
# $\lVert w_T - w_0\rVert / \lVert w_0\rVert$，以及输出移动了多远。所有范数都是 Frobenius 范数（各元素平方和的平方根）：训练输入上 $16 \times 16$ 的核矩阵的、$16 \times m$ 的特征矩阵的，以及全部权重合在一起的。

# %%
widths = [256, 1024, 4096]
learning_rate = {"ntk": 0.5, "mup": 0.1}
results = {}
for p, lr in learning_rate.items():
    runs = [[course.movement(p, m, lr=lr, seed=seed) for seed in range(3)] for m in widths]
    results[p] = [course.Movement(*np.mean([[getattr(run, f) for f in course.Movement.__dataclass_fields__]
                                            for run in at_width], axis=0)) for at_width in runs]
tanh_ntk = [np.mean([course.movement("ntk", m, lr=0.5, seed=seed, activation="tanh").ntk   # smooth
                     for seed in range(3)]) for m in widths]
for p, rows in results.items():
    print(nh._("{parameterization}: output change {outputs} (relative to |y|) at widths {widths}").format(
        parameterization=course.parameterization_name(p), widths=widths,
        outputs=", ".join(f"{row.outputs:.2f}" for row in rows)))
    print(nh._("    training loss before → after the 50 steps: {losses}").format(
        losses=", ".join(f"{row.loss_start:.3g} → {row.loss_end:.2g}" for row in rows)))

# %%
slopes = course.draw_movement(widths, results)
plt.show()

# %% tags=["check"]
nh.check_close("NTK param., features h: slope −½", slopes["ntk", "features"], -0.5, atol=0.1)
nh.check_close("NTK param., weights: slope −½", slopes["ntk", "weights"], -0.5, atol=0.1)
nh.check_close("NTK param., feature kernel: slope −1", slopes["ntk", "feature_kernel"], -1.0, atol=0.15)
nh.check_between("NTK param., NTK (ReLU, 3 seeds): slope between −1 and the bound −½", slopes["ntk", "ntk"],
                 -1.0, -0.5)
nh.check_close("NTK param., NTK with tanh (3 seeds): slope −1, the 1/m rate of smooth activations",
               nh.loglog_slope(widths, tanh_ntk), -1.0, atol=0.1)
nh.check_close("μP: slopes of the NTK, features, feature kernel, weights (0)",
               [slopes["mup", what] for what in course.QUANTITIES], [0.0] * 4, atol=0.05)
nh.check_between("NTK param.: outputs move by O(1) (smallest change / |y|)",
                 min(row.outputs for row in results["ntk"]), 1.5, 2.5)
nh.check_between("μP: the feature kernel moves by Θ(1) (smallest relative change)",
                 min(row.feature_kernel for row in results["mup"]), 0.5, 0.9)
nh.check_between("NTK param.: the loss falls by more than 100 times (smallest factor over the widths)",
                 min(row.loss_start / row.loss_end for row in results["ntk"]), 100, np.inf)
final_ratio = [ntk.loss_end / mup.loss_end for ntk, mup in zip(results["ntk"], results["mup"])]
nh.check_between("comparable final loss: NTK's / μP's after 50 steps, smallest over the widths",
                 min(final_ratio), 1 / 3, 3)
nh.check_between("comparable final loss: NTK's / μP's after 50 steps, largest over the widths",
                 max(final_ratio), 1 / 3, 3)
nh.check_between("the two runs' final losses are within a factor 2.3 (largest ratio either way)",
                 max(max(final_ratio), 1 / min(final_ratio)), 1, 2.3)
slow = course.trained("μP, η = 0.02", 1024)[0]
nh.check_between("μP at η = 0.02 (the explorer's setting), width 1024: the loss falls by about 4 times",
                 float(slow.loss[0] / slow.loss[-1]), 3.5, 5)
nh.check_between("μP at η = 0.02: the feature kernel still moves by Θ(1) (smallest change, widths 256, 4096)",
                 min(course.trained("μP, η = 0.02", m)[0].feature_change for m in (256, 4096)), 0.25, 0.45)

# %% [markdown]
# 所以，**惰性**的意思是：网络拟合了数据（它的输出从随机的 $f_0$ 走到 $y$，变化约为 $\lVert y - f_0\rVert$；
# 这里它约为 $2|y|$，只是因为这个网络的 $f_0$ 比目标 $y = \sin 2\xi_1$ 大），而它的核和特征（几乎）停留在出发点。
# 两次训练结束时处在相当的阶段（最终损失相差不到 2.3 倍）：50 步之后，NTK 训练的损失为 0.0025 到 0.0091，μP 的为 0.0029 到 0.0040，随宽度而不同。
# （若用一步实验中的 $\eta = 0.02$，μP 的损失在 50 步中只会下降到约四分之一：它的特征仍会移动 $\Theta(1)$，
# 但那是一个离拟合还很远的网络的特征。）权重在移动，相对变化为 $m^{-1/2}$，特征也随之移动（$m^{-1/2}$，与一步之后相同）。
# 特征*核*的移动还要更小（$m^{-1}$；原因见下面的检验 5）。NTK 的变化介于两者之间：3 个随机种子平均的斜率为 −0.71，
# 但逐个种子分别为 −0.53、−0.89 和 −0.72。Lee et al. (2019) 证明它的变化至多是 $m^{-1/2}$ 的量级（对光滑的激活函数、
# 平方损失和 $\eta < \eta_\text{critical}$）；对光滑的激活函数，这个变化实际上是 $1/m$ 的量级（Dyer & Gur-Ari 2020；
# Huang & Yau 2020），用 tanh 做同样的实验，斜率为 −1.02（3 个随机种子）。ReLU 的折点给出一个介于其间、噪声更大的斜率。
#
# 在 μP 下，对这个只有一个隐藏层的网络，四种变化都不随宽度缩小：在每个宽度下，NTK 移动 0.56 到 0.62，其余三者移动
# 0.64 到 0.76（3 个随机种子）。这并不适用于更深网络的每一个权重矩阵。有两个隐藏层时（μP，$\eta = 0.02$，50 步），
# $m \times m$ 矩阵 $W^2$ 相对其自身大小的移动随宽度减小，而它算出的预激活 $h^2$ 仍然移动 $\Theta(1)$
# （两者如何同时成立：见下面的检验 4）：

# %%
deep = {m: course.hidden_matrix_movement(m) for m in (256, 1024)}   # μP, 2 hidden layers, η = 0.02, 50 steps
for m, change in deep.items():
    text = nh._("μP, width {m}: W² moved by {frobenius:.4f} of its size (Frobenius norm), "
                "h² by {features:.2f}; the update ΔW² has ‖ΔW²‖_F / ‖ΔW²‖_op = {ratio:.2f}")
    print(text.format(m=m, frobenius=change["frobenius"], features=change["features"],
                      ratio=change["update_f_over_op"]))

# %% tags=["check"]
nh.check_close("μP, two hidden layers: slope of W²'s relative Frobenius change (−½)",
               nh.loglog_slope([256, 1024], [deep[m]["frobenius"] for m in (256, 1024)]), -0.5, atol=0.1)
nh.check_between("μP, two hidden layers: h² moves by Θ(1) at both widths (smallest change)",
                 min(deep[m]["features"] for m in (256, 1024)), 0.3, 1.0)
mup_ntk = [row.ntk for row in results["mup"]]
nh.check_close("μP, one hidden layer, 50 steps: the NTK's smallest and largest change (0.56, 0.62)",
               [min(mup_ntk), max(mup_ntk)], [0.56, 0.62], atol=0.005)
others = [getattr(row, q) for row in results["mup"] for q in ("features", "feature_kernel", "weights")]
nh.check_close("μP, one hidden layer: features, feature kernel, weights, smallest change (0.64)",
               min(others), 0.64, atol=0.005)
nh.check_close("μP, one hidden layer: features, feature kernel, weights, largest change (0.76)",
               max(others), 0.76, atol=0.005)
nh.check_close("the final losses quoted: NTK at widths 256, 1024, 4096 / (0.0091, 0.0025, 0.0038)",
               [row.loss_end for row in results["ntk"]] / np.array([0.0091, 0.0025, 0.0038]), np.ones(3),
               rtol=0.03)
nh.check_close("the final losses quoted: μP at widths 256, 1024, 4096 / (0.0040, 0.0029, 0.0034)",
               [row.loss_end for row in results["mup"]] / np.array([0.0040, 0.0029, 0.0034]), np.ones(3),
               rtol=0.03)

# %% [markdown]
# 上表的另一个推论：μP 在初始化时的输出按 $m^{-1/2}$ 缩小（输出方差 $m^{-2}$，对 $m$ 个单元求和）。

# %%
x_train, y_train = course.training_data()
with torch.no_grad():
    rms_f0 = [float(torch.stack([course.network("mup", m, seed=s)(x_train) for s in range(20)])
                    .pow(2).mean().sqrt()) for m in widths]
print(nh._("μP output at init (RMS): {values}, slope {slope:.2f}").format(
    values=", ".join(f"{v:.3g}" for v in rms_f0), slope=nh.loglog_slope(widths, rms_f0)))

# %% tags=["check"]
nh.check_close("μP output at init: slope −½", nh.loglog_slope(widths, rms_f0), -0.5, atol=0.15)

# %% [markdown]
# ## 核极限是什么
#
# 在核区域中，训练出的网络跟随它在初始化处的线性化。平方损失下的结论是 Lee et al. (2019, Thm 2.1)：
# 如果 $n$ 个训练输入上的极限 NTK **正定**（$\lambda_\min > 0$），并且学习率低于
# $\eta_\text{critical} = 2/(\lambda_\min + \lambda_\max)$（对损失 $\tfrac12\sum_i (f(x_i) - y_i)^2$ 而言；对本软件包的平均损失
# $\tfrac1{2n}\sum_i$，条件写成 $\eta < 2n/(\lambda_\min + \lambda_\max)$），那么全批量梯度下降在**全部**训练时间上
# 一致地与线性化网络相差 $O(m^{-1/2})$ 以内。他们的证明假设激活函数具有 Lipschitz 连续的导数，所以对下面的 ReLU
# 网络，这种吻合同样只是观察结果。对其他损失，Jacot et al. (2018) 证明：在梯度流下，
# 当各层宽度依次趋于无穷时，NTK 在任意固定的时间区间 $[0, T]$ 上保持不变，条件是激活函数的二阶导数有界，
# 并且训练方向在 $[0, T]$ 上的积分保持有界；
# 他们没有给出关于 $m$ 的收敛速率。
# 线性化网络就是从随机初始函数 $f_0$ 出发的核**梯度下降**；训练到收敛时给出
#
# $$f_\infty(x) = f_0(x) + \Theta(x, X)\,\Theta(X, X)^{-1}\big(y - f_0(X)\big),$$
#
# 即**无岭**核回归，再加上来自 $f_0$ 的偏移。实验：把一个宽度为 4096、采用 NTK 参数化的网络训练到收敛，
# 在 8 个新输入上把它的预测与这个公式（用初始化时的经验 NTK）比较，也与忘掉了 $f_0$ 的无岭回归比较。

# %%
x_new = nh.sphere(8, d=8, seed=5)
model = course.network("ntk", 4096)
with torch.no_grad():
    f0_train, f0_new = model(x_train)[:, 0], model(x_new)[:, 0]
theta = nh.empirical_ntk(model, torch.cat([x_train, x_new]))
limit = torch.linalg.eigvalsh(torch.as_tensor(nh.mlp(1, "relu").kernel(x_train).ntk))   # the limiting NTK's
eigenvalues = torch.linalg.eigvalsh(theta[:16, :16])
lee_number = 1.0 * float(eigenvalues[0] + eigenvalues[-1]) / len(x_train)     # η (λ_min + λ_max) / n, η = 1
record = nh.train(model, x_train, y_train, lr=1.0, steps=600, x_eval=x_new, record_every=600,
                  track_kernels=False)
with_offset = f0_new + nh.kernel_regression(theta[:16, :16], theta[16:, :16], y_train - f0_train)
without_offset = nh.kernel_regression(theta[:16, :16], theta[16:, :16], y_train)
gap = float((record.outputs[-1] - with_offset).abs().max())
gap_without = float((record.outputs[-1] - without_offset).abs().max())
print(nh._("limiting NTK: λ_min = {low:.4f}, λ_max = {high:.2f}: η(λ_min + λ_max)/n = {number:.2f} < 2")
      .format(low=float(limit[0]), high=float(limit[-1]), number=float(limit[0] + limit[-1]) / len(x_train)))
print(nh._("empirical NTK at width 4096: λ_min = {low:.3f}, λ_max = {high:.2f}: "
           "η(λ_min + λ_max)/n = {number:.2f}").format(
    low=float(eigenvalues[0]), high=float(eigenvalues[-1]), number=lee_number))
print(nh._("training loss after 600 steps: {loss:.1e}").format(loss=float(record.loss[-1])))
print(nh._("max |network - (f0 + ridgeless regression on y - f0)| = {gap:.3f};  "
           "max |network - ridgeless regression on y| = {gap_without:.2f}").format(
    gap=gap, gap_without=gap_without))

# %% tags=["check"]
nh.check_close("Lee et al.'s conditions hold: λ_min of the limiting NTK (0.6105 > 0)", float(limit[0]),
               0.6105, rtol=1e-3)
nh.check_between("Lee et al.'s conditions hold: η(λ_min + λ_max)/n of the limiting NTK",
                 float(limit[0] + limit[-1]) / len(x_train), 0, 2)
nh.check_between("the empirical NTK at width 4096 is in the same range: η(λ_min + λ_max)/n", lee_number, 0, 2)
# the network stays O(m^-1/2) from its linearization: at m = 4096 a few hundredths on outputs of size 1
nh.check_between("width 4096: max |network − (f₀ + ridgeless regression)| on 8 new inputs", gap, 0, 0.05)
nh.check_between("… and forgetting f₀ is off by far more (ratio)", gap_without / gap, 5, np.inf)
nh.check_close("the numbers quoted for readers of chapter 4: the two gaps (0.022, 1.28)", [gap, gap_without],
               [0.022, 1.28], atol=0.005)

# %% [markdown]
# ## 动手探索：四种设置，四个宽度
#
# 训练一个网络（一个隐藏层，50 步），比较它的特征核矩阵元在训练前后的值（左图）以及它的损失（右图）。四种设置就是表中的四行。
# 这个网络唯一的隐藏特征是输入层的预激活 $h^1$，所以适用于它们的是表中的 $\Delta h^1$ 一列，而不是开头那张图的
# $\Delta h^l$ 一列。图下方的文字给出特征核的相对变化和 $\eta\,\lambda_\max/n$，即梯度下降的稳定性数：
# $\lambda_\max$ 是初始化时按学习率加权的 NTK 的最大特征值，这个数超过 2 时，线性化网络会发散。
# 这不是上文 Lee et al. 那个更严格的条件：每一步把残差沿某个特征向量的分量乘以 $1 - \eta\lambda/n$，所以线性化网络是否发散只由 $\lambda_\max$ 决定；而 $\eta(\lambda_\min + \lambda_\max)/n < 2$ 是他们证明全部训练时间内都接近线性化网络所需要的。
# 这些设置与一步实验中的相同，所以这里 μP 用 $\eta = 0.02$ 训练：它的损失比上面 50 步的比较中下降得慢。

# %% tags=["nbval-ignore-output"]
options = [(course.setting_name(s), s) for s in course.SETTINGS]          # (label shown, value the code sees)
nh.widgets.live_figure(course.draw_training,
                       setting=nh.widgets.dropdown(nh._("setting"), "NTK, η = 0.5", options=options),
                       width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)))

# %% [markdown]
# **先预测，再检验。**
#
# **探索 1.** 起始画面是宽度 1024 的 NTK 设置，它让特征核移动 0.0025（见图下方）。根据上面对这个量测得的斜率 −1.08，
#    预测宽度 64 时的变化；然后把宽度调到 64。
#
# <details><summary>答案</summary>
#
# $0.0025 \cdot 16^{1.08} \approx 0.050$；测得 0.044（宽度 4096 时为 0.00052）。在宽度 256 到 4096 上拟合的幂律
# 对宽度 64 的预测误差在 15 % 以内，而且即使在宽度 64，特征核的移动也不到 5 %。
#
# </details>
#
# **探索 2.** 固定 $\eta = 0.005$ 的标准参数化。表中只说这一行在 $m \to \infty$ 时失败；它没有说从哪个宽度起失败，也没有说
#    在那之前会发生什么。在宽度 64 时它的稳定性数为 0.33。预测这个数如何随宽度增长（把这一行的学习率与 NTK 那一行比较），在四个宽度中从哪一个起
#    梯度下降会发散，以及在此之前的宽度上特征移动得多还是少；然后检验。
#
# <details><summary>答案</summary>
#
# 它随 $m$ 线性增长（原因见检验 2）：宽度 256 时为 $0.33 \cdot 4 = 1.3$，宽度 1024 时为 $0.33 \cdot 16 = 5.3$，所以从宽度 1024 起。测得：在宽度 256、1024
# 和 4096 下为 1.10、3.99 和 15.9（相邻之比 3.4、3.6、4.0，随宽度增大趋于 4）；损失在宽度 1024 时于第 13 步溢出，
# 在 4096 时于第 8 步溢出。在那之前它甚至看起来是惰性的：它的隐藏特征 $h^1$ 移动得很少，50 步内在宽度 64 时移动其自身大小的 0.021，在 256 时移动 0.0053
# （斜率 −1.0，比 $\Delta h^1$ 一列的一步指数 $m^{-1/2}$ 更陡：拟合速度随宽度加快），它的特征核在宽度 64 时移动 0.0092，在 256 时移动 0.00079：在这两个宽度之间斜率为 −1.77，比 NTK 参数化的 −1 更陡；
# 这只来自一次逐渐接近不稳定的训练的两个宽度，所以不是一个干净的指数。随宽度增长的是输出层自身的那一项
# $\eta_{L+1} m$，其中 $\eta_{L+1} \sim m^0$。
#
# </details>
#
# **探索 3.** 现在看“标准参数化，η = 1/m”：它的稳定性数依赖于宽度吗？根据 $\Delta h^1$ 一列预测它的特征核变化关于 $m$
#    的斜率，假设一个特征的变化与特征核的变化之间差着与 NTK 参数化下相同的额外因子 $m^{-1/2}$。
#
# <details><summary>答案</summary>
#
# 它趋于平稳：从宽度 64 到 4096 依次为 1.03、0.86、0.78 和 0.78，所以从不发散。$\Delta h^1$ 一列给出 $m^{-3/2}$，
# 所以特征核约为 $m^{-2}$；测得：宽度 64 时为 0.012，4096 时为 $2.8\cdot 10^{-6}$，斜率为 −2.0。它处于核区域，
# 与 NTK 参数化一样，只是核不同（它的输入层学得太慢，贡献可以忽略；见附录）。
#
# </details>

# %% [markdown]
# ## 检验你的理解
#
# **检验 1.** 某种参数化采用 NTK 一行的方差，而输入层、隐藏层和输出层的学习率为 $\eta = (m, 1, 1/m)$。
#    计算一步之后的 $\Delta h^1$、$\Delta h^l$ 和 $\Delta f$。它稳定吗？
#
# <details><summary>答案</summary>
#
# $s = m^{-1/2}$：$\Delta h^1 \sim \eta_1 s = m^{1/2}$，$\Delta h^l \sim \eta_l s m = m^{1/2}$，而 $\Delta f \sim
# \eta_{L+1} m + m s \Delta x^L = 1 + m^{1/2}\cdot m^{1/2} = m$。输入层和隐藏层的特征都发散，输出也随之发散：
# 不稳定。μP 较大的学习率需要它较小的输出权重（$s = 1/m$）来配合。
#
# </details>
#
# **检验 2.** 为什么标准参数化按其学习率加权的正切核会随 $m$ 线性增长？
#
# <details><summary>答案</summary>
#
# 它的前向传播与 NTK 参数化相同，但隐藏层和输出层权重的学习率大 $m$ 倍
# （表中为 $m^0$ 而不是 $m^{-1}$）。加权的核 $\sum_l \eta_l \langle\partial f/\partial W^l,
# \partial f'/\partial W^l\rangle$ 对各 $\eta_l$ 是线性的，所以它的隐藏层项和输出层项是 NTK 参数化相应项的 $m$ 倍，
# 而后者有有限的极限。因此 $\lambda_\max \propto m$，任何固定的 $\eta$ 超过某个宽度后都会失败。
#
# </details>
#
# **检验 3.** 条件一节的输出给出了 μP 的 $r = 0$。从 $r$ 的公式逐项推导出它：哪些项相互抵消？是哪个条件使 μP 非平凡？
#
# <details><summary>答案</summary>
#
# $a = (-\tfrac12, 0, \tfrac12)$，$b = \tfrac12$，$c = 0$：$\min(a_{L+1} + b_{L+1}, 2a_{L+1} + c) = \min(1, 1) = 1$，
# $c - 1 = -1$，而 $\min_l(2a_l + \mathbb 1[l = 1]) = \min(-1 + 1, 0) = 0$，所以 $r = 0$。两个非平凡性条件
# 都以等号成立：$2a_{L+1} + c = 1$ 且 $a_{L+1} + b_{L+1} + r = 1$：输出既通过它自己的权重移动，也通过特征移动。
#
# </details>
#
# **检验 4.** 在有两个隐藏层的 μP 下，$m \times m$ 矩阵 $W^2$ 在宽度 256 时移动了其自身大小的 0.0091，在 1024 时移动了
#    0.0044，而 $h^2 = W^2 x^1$ 在两个宽度下都移动约 0.55。两者怎么能同时成立？
#
# <details><summary>答案</summary>
#
# 每一步给 $W^2$ 加上一组秩一矩阵 $\propto g^2 (x^1)^\top$ 之和，每个训练输入一个：在 16 个输入上走 50 步之后，无论宽度多大，这个更新的秩至多为 $\min(800, m)$（宽度 256 时为 256），而它的*有效*秩要小得多。它的 Frobenius 范数只是其算子范数的 1.35 倍（宽度 256）和 1.37 倍（宽度 1024）（见上面的输出），有效秩 $(\lVert\Delta W\rVert_F/\lVert\Delta W\rVert_\text{op})^2 \approx 1.8$：更新集中在少数几个方向上。所以它的 Frobenius 范数与算子范数同一量级，而在 μP 下这个范数是 $\Theta(1)$，与 $W^2$ 本身的算子范数相当（测得：更新的算子范数是
# $W^2$ 的 0.055 倍（宽度 256）和 0.052 倍（宽度 1024））。但 $W^2$ 的 Frobenius 范数是 $\sqrt m$ 的量级：
# $m^2$ 个大小为 $m^{-1/2}$ 的元素。所以相对的 Frobenius 变化按 $m^{-1/2}$ 减小。可是 $h^2$ 移动约 0.55，而这主要不是 $\Delta W^2$ 的作用：把它拆成
# $\Delta h^2 = \Delta W^2 x^1_T + W^2_0\,\Delta x^1$（相对 RMS 大小，测量值）。从下一层传上来的部分 $W^2_0\Delta x^1$
# 在宽度 256 时为 0.527，在 1024 时为 0.510，因为在 μP 下 $h^1$ 本身就移动 $\Theta(1)$（两个宽度下都是 0.39）：
# 即使冻结 $W^2$，$h^2$ 也仍会移动差不多这么多。更新自身的部分 $\Delta W^2 x^1_T$ 为 0.069 和 0.063，约为 $W^2$
# 相对 Frobenius 变化的 7 倍和 14 倍：一个与构造它的 $x^1$ 方向一致的低秩更新，尽管
# $\lVert\Delta W^2\rVert_F /
# \lVert W^2\rVert_F$ 按 $m^{-1/2}$ 减小，仍以 $\Theta(1)$ 起作用。权重矩阵的相对变化小，并不意味着惰性训练。
#
# </details>
#
# **检验 5.** 在 NTK 参数化下，单个特征移动 $m^{-1/2}$，特征核却只移动 $m^{-1}$。为什么不也是 $m^{-1/2}$？
#
# <details><summary>答案</summary>
#
# 特征核是对 $m$ 个单元的平均，$\frac1m\sum_i \phi(h_i(x))\phi(h_i(x'))$。到一阶，它的变化是 $m$ 个大小为
# $m^{-1/2}$、符号随单元而变的项的平均。符号为什么会变：一个单元的变化正比于它的梯度 $\phi'(h_i)\,v_i$，其中 $v_i$ 是它的输出权重，它在初始化时与 $h_i$ 独立，取负值和取正值的机会一样多。这样的平均的量级是 $m^{-1/2}\cdot m^{-1/2} = m^{-1}$（测得的斜率为 −1.08）。
#
# </details>

# %% tags=["check"]
nh.check_that("Check 1: the abc form of η = (m, 1, 1/m) with the NTK variances is classified unstable",
              course.classify((0, 0.5, 1), (0, 0, -0.5), -1).regime == "unstable",
              measured=course.classify((0, 0.5, 1), (0, 0, -0.5), -1).regime, expected="unstable")
nh.check_that("Check 1: its one-step exponents (½, ½, 1)",
              course.one_step_exponents(course.WidthExponents((0, -1, -1), (1, 0, -1))) == (0.5, 0.5, 1),
              measured=str(course.one_step_exponents(course.WidthExponents((0, -1, -1), (1, 0, -1)))),
              expected="(1/2, 1/2, 1)")
nh.check_close("Check 5: the measured feature-kernel slope (−1.08)", slopes["ntk", "feature_kernel"],
               -1.08, atol=0.005)
nh.check_close("Check 4: the update's operator norm / W²'s at widths 256, 1024 (0.055, 0.052)",
               [deep[m]["operator"] for m in (256, 1024)], [0.055, 0.052], atol=0.001)
nh.check_close("Check 4: W²'s relative Frobenius change at widths 256, 1024 (0.0091, 0.0044)",
               [deep[m]["frobenius"] / f for m, f in ((256, 0.0091), (1024, 0.0044))], [1, 1], rtol=0.01)
nh.check_close("Check 4: the update's ‖ΔW²‖_F / ‖ΔW²‖_op at widths 256, 1024 (1.35, 1.37)",
               [deep[m]["update_f_over_op"] for m in (256, 1024)], [1.35, 1.37], atol=0.006)
nh.check_close("Check 4: its effective rank (‖ΔW²‖_F / ‖ΔW²‖_op)² at widths 256, 1024 (≈ 1.8)",
               [deep[m]["update_f_over_op"] ** 2 for m in (256, 1024)], [1.8, 1.8], atol=0.1)
nh.check_close("Check 4: h² moves by about 0.55 at widths 256 and 1024",
               [deep[m]["features"] for m in (256, 1024)], [0.55, 0.55], atol=0.015)
nh.check_close("Check 4: the part passed on, W²₀Δx¹, at widths 256, 1024 (0.527, 0.510)",
               [deep[m]["passed_on"] for m in (256, 1024)], [0.527, 0.510], atol=0.01)
nh.check_close("Check 4: the update's own part, ΔW²x¹, at widths 256, 1024 (0.069, 0.063)",
               [deep[m]["own"] for m in (256, 1024)], [0.069, 0.063], atol=0.003)
nh.check_close("Check 4: h¹ moves by Θ(1) under μP, at widths 256, 1024 (0.39)",
               [deep[m]["h1"] for m in (256, 1024)], [0.39, 0.39], atol=0.01)
check1 = course.width_exponents((0, 0.5, 1), (0, 0, -0.5), -1)
nh.check_that("Check 1: the abc triple has the NTK variances and η = (m, 1, 1/m)",
              check1 == course.WidthExponents((0, -1, -1), (1, 0, -1)), measured=str(check1),
              expected="variances (0, −1, −1), learning rates (1, 0, −1)")
lazy = [course.trained("NTK, η = 0.5", m)[0].feature_change for m in (64, 1024, 4096)]
nh.check_close("Explore 1, NTK: feature-kernel change at widths 64, 1024, 4096 / (0.044, 0.0025, 0.00052)",
               np.array(lazy) / [0.044, 0.0025, 0.00052], np.ones(3), rtol=0.02)
nh.check_close("Explore 1: the prediction 0.0025 · 16^1.08 (0.050)", 0.0025 * 16 ** 1.08, 0.050, rtol=0.01)
nh.check_close("Explore 2, standard fixed η: feature-kernel change at widths 64, 256 / (0.0092, 0.00079)",
               np.array([course.trained("standard, fixed η = 0.005", m)[0].feature_change for m in (64, 256)])
               / [0.0092, 0.00079], np.ones(2), rtol=0.02)
standard_h1 = [course.trained_feature_change("standard, fixed η = 0.005", m) for m in (64, 256)]
nh.check_close("Explore 2, standard fixed η: h¹'s relative change at widths 64, 256 / (0.021, 0.0053)",
               np.array(standard_h1) / [0.021, 0.0053], np.ones(2), rtol=0.02)
nh.check_close("Explore 2: its slope in m over 50 steps (−1.0)", nh.loglog_slope([64, 256], standard_h1),
               -1.0, atol=0.05)
overflow = [course.trained("standard, fixed η = 0.005", m)[0].diverged_at for m in (1024, 4096)]
nh.check_that("Explore 2: the loss overflows at step 13 (width 1024) and step 8 (width 4096)",
              overflow == [13, 8], measured=str(overflow), expected="[13, 8]")
scaled = [course.trained("standard, η = 1/m", m)[0].feature_change for m in (64, 256, 1024, 4096)]
nh.check_close("Explore 3, standard η = 1/m: feature-kernel change at widths 64, 4096 (0.012, 2.8e-6)",
               [scaled[0] / 0.012, scaled[-1] / 2.8e-6], [1, 1], rtol=0.03)
nh.check_close("Explore 3: its slope in m (−2.0)", nh.loglog_slope([64, 256, 1024, 4096], scaled), -2.0,
               atol=0.05)
fixed = np.array([course.stability_number("standard, fixed η = 0.005", m) for m in (64, 256, 1024, 4096)])
nh.check_close("Explore 2, standard fixed η: η·λ_max/n at widths 64 … 4096 / (0.33, 1.10, 3.99, 15.9)",
               fixed / [0.33, 1.10, 3.99, 15.9], np.ones(4), rtol=0.01)
nh.check_close("Explore 2: its growth per factor 4 in width (3.4, 3.6, 4.0)", fixed[1:] / fixed[:-1],
               [3.4, 3.6, 4.0], atol=0.05)
nh.check_close("Explore, standard η = 1/m: η·λ_max/n at widths 64 … 4096 (1.03, 0.86, 0.78, 0.78)",
               [course.stability_number("standard, η = 1/m", m) for m in (64, 256, 1024, 4096)],
               [1.03, 0.86, 0.78, 0.78], atol=0.01)

# %% [markdown]
# ## 小结
#
# - 一种参数化就是一组 $m$ 的幂次：每一层权重的方差和学习率（偏置也一样）。方差由初始化时的稳定性决定
#   （输入层为 $m^0$，隐藏层为 $m^{-1}$；LeCun、He、Xavier 这些初始化名称只在常数上不同）。
# - 一步 SGD 让一个特征移动（学习率）×（每个单元的梯度）×（同向项的个数）。要求每一层和输出都移动 $\Theta(1)$，
#   就得到 μP：输出方差 $m^{-2}$，输入层、隐藏层和输出层的学习率分别为 $m^{1}, m^{0},
#   m^{-1}$，隐藏单元的偏置为 $m^1$。
# - Yang & Hu 的指数 $r$ 及其稳定性与非平凡性条件作出判定：一种稳定且非平凡的参数化要么学习特征
#   （$r = 0$，例如 μP），要么处于核区域（$r > 0$，NTK，以及 $\eta \propto 1/m$ 的标准参数化），二者不能兼得
#   （对光滑激活函数、任意固定步数已证明）。
# - 惰性（NTK 参数化）：权重和特征按 $m^{-1/2}$ 移动，特征核按 $m^{-1}$，对 ReLU 而言 NTK 介于两者之间
#   （对 tanh 按 $1/m$），而输出照样拟合数据。有一个隐藏层的 μP：它们在每个宽度下都移动 $\Theta(1)$；
#   $m \times m$ 的隐藏矩阵移动其 Frobenius 范数的 $m^{-1/2}$ 倍，但它的特征仍然移动 $\Theta(1)$。
# - 核极限是从 $f_0$ 出发的核梯度下降：收敛时为对 $y - f_0$ 的无岭回归；对平方损失，条件是 $\lambda_\min > 0$
#   且 $\eta$ 低于 $2n/(\lambda_\min + \lambda_\max)$（平均损失）。
#
# **练习：** 4.5（μP 如何打破核极限）。
#
# **上一课：** [05a · 归一化](05a_normalization.ipynb) · **下一课：** [06 · 激活函数](06_activations.ipynb)

# %% [markdown]
# ## 写给教材第 4 章的读者
#
# <details><summary>§4.4.2 与综述：初始化的名称（勘误 B5、B23、B25）</summary>
#
# **综述原文：** 权重取自 $\mathcal N(0, 1/m)$ 就是「按Xavier初始化」；Xavier 指方差 $1/n_\text{in}$；
# 而 NTK 初始化的方差是 $1/(n_\text{in}\, m)$。
#
# **正确的说法：** LeCun 是 $1/\text{fan-in}$，He 是 $2/\text{fan-in}$，Xavier 是 $2/(\text{fan-in} + \text{fan-out})$；
# 第一层的扇入是 $d$，而不是 $m$。NTK 参数化在初始化时的等效方差为 $\sigma_w^2/\text{fan-in}$，
# 即 LeCun 或 He 的值；不同的只有学习率。方差 $1/(n_\text{in}\,m)$ 会让第 $l$ 层的预激活按 $m^{-l/2}$ 缩小
# （上面测得的斜率为 −0.5、−1.0、−1.5）。[勘误 B5](../../ERRATA.zh.md#b5)、[B23](../../ERRATA.zh.md#b23)、[B25](../../ERRATA.zh.md#b25)
#
# </details>
#
# <details><summary>综述 §7.2：“μP 把每一层按 1/√m 缩放”、MuPLinear 与 O(t/√m)（勘误 B33、B34、B11）</summary>
#
# **综述原文：** μP 就是把每一层的输出按 $1/\sqrt m$ 缩放，它的 `MuPLinear` 代码实现了 μP；在惰性区域中
# 输出的变化是 $O(t/\sqrt m)$。
#
# **正确的说法：** “按 $1/\sqrt m$ 缩放”*就是* NTK 参数化。μP 需要输出方差 $m^{-2}$ 和逐层的学习率（见表），
# 而仅仅按 $1/\sqrt m$ 初始化（`MuPLinear` 所做的全部事情）并不具备这些。在惰性区域中输出移动 $O(1)$
# （它拟合了数据）：随宽度趋于零的是核与特征的变化。[勘误 B33](../../ERRATA.zh.md#b33)、[B34](../../ERRATA.zh.md#b34)、[B11](../../ERRATA.zh.md#b11)
#
# </details>
#
# <details><summary>§4.4.2：“f 远离其初始值，即特征在学习”（勘误 A20）</summary>
#
# **教材原文：** 在 μP 下，「网络的函数 $f(x)$ 仍然能显著地偏离其初始状态，即特征仍在学习」。
#
# **正确的说法：** 在 NTK 参数化下 $f$ 同样移动 $O(1)$（上面测得：每个宽度下都约为 $2|y|$）；
# 输出是否移动并不是判据。μP 与众不同之处在于：当 $m \to \infty$ 时，隐藏层的特征以及随之而来的核，
# 其变化是 $\Theta(1)$，而在 NTK 参数化下这两种变化都趋于零。
# [勘误 A20](../../ERRATA.zh.md#a20)
#
# </details>
#
# <details><summary>§4.4.2：“训练过程等价于核岭回归”（勘误 A19）</summary>
#
# **教材原文：** NTK 参数化「保证了网络在整个训练过程中都停留在参数空间的线性化区域。训练过程等价于核岭回归。」
#
# **正确的说法：** 只有当 $m \to \infty$ 时线性化才变得精确，而且需要条件（对全部训练时间：
# 平方损失，$\lambda_\min > 0$，平均损失下 $\eta < 2n/(\lambda_\min + \lambda_\max)$；Lee et al. 2019）。它
# 给出的是从 $f_0$ 出发的核梯度下降，收敛时为**无岭**回归，并带有 $f_0$ 的偏移（上面：与公式相差 0.022，
# 而去掉偏移时相差 1.28）。只有加上显式惩罚项才会出现岭项；把权重拉回初始值的惩罚项恰好给出核岭回归加上 $f_0$
# （拉向 0 的权重衰减还会多出一项）。早停的作用与之类似（第 07 课）。
# [勘误 A19](../../ERRATA.zh.md#a19)
#
# </details>
#
# <details><summary>§4.4.2 与小结：空着的参数化对比表（勘误 A28）</summary>
#
# **教材原文：** 各种参数化的对比留成了一张空表。
#
# **正确的说法：** 本课的宽度表填上了它，并给出了决定每一行的条件，测得的一步指数与表中的值相差都在 0.1 以内。
# [勘误 A28](../../ERRATA.zh.md#a28)
#
# </details>

# %% [markdown]
# ## 附录：本软件包如何写出各种参数化
#
# 参数化是架构描述的一部分：`nh.mlp(depth, activation,
# parameterization="ntk" | "standard" | "mup")`（也可以逐层使用 `nh.dense(..., parameterization=...)`）。本软件包
# 把 μP 和标准参数化写成与 Yang et al. (2022, Tensor Programs V, Table 3) 逐层等价的形式（有效方差和学习率相同；平移 $\theta_l$ 随层而变，$c_l \to c_l - 2\theta_l$）（该表列出它们的初始方差和学习率，SP 用灰色标出），把 NTK 参数化写成 Jacot et al. (2018) 定义的形式。每个可训练权重 $w_l$ 都服从
# $\mathcal N(0,1)$，第 $l$ 层计算 $\sigma_w\,\text{mult}_l\cdot h\,w_l^\top$，并以学习率
# $\eta\cdot\text{lr}_l$ 学习，所以 $\operatorname{Var} W^l = \sigma_w^2\,\text{mult}_l^2$，
# $\eta_l = \eta\cdot\text{lr}_l\cdot\sigma_w^2\,\text{mult}_l^2$（宽度为 $m$，输入维数为 $d$）：
#
# | | 输入层 | 隐藏层 | 输出层 | 偏置 |
# |---|---|---|---|---|
# | **NTK** | mult $1/\sqrt d$，lr 1 | mult $1/\sqrt m$，lr 1 | mult $1/\sqrt m$，lr 1 | lr 1 |
# | **标准**（Yang & Hu 的 SP） | mult $1/\sqrt d$，lr $d$ | mult $1/\sqrt m$，lr $m$ | mult $1/\sqrt m$，lr $m$ | lr 1 |
# | **μP** | mult $1/\sqrt d$，lr $md$ | mult $1/\sqrt m$，lr $m$ | mult $\mathbf{1/m}$，lr $m$ | lr 为扇出（$m$；输出层为 1） |
#
# PyTorch 的 `nn.Linear` 以方差 $1/(3\,\text{fan-in})$ 均匀抽取权重和偏置：权重的 $m$ 幂次相同，
# 但隐藏层之后的偏置方差是 $m^{-1}$ 而不是 $m^0$。
# `nh.lr_multipliers(model)` 列出已构建网络的各个 $\text{lr}_l$，`nh.train` 会用到它们。每种描述还带有其参数化所定义的核。
# “ntk”：第 01–04 课中的 NTK。“standard”：前向传播相同，因此 NNGP 相同；取 $\eta \propto 1/m$ 时，它按学习率加权的
# 正切核趋于去掉输入层项（$d/m \to 0$）和偏置项（$1/m \to 0$）之后的 NTK。对无偏置、$|x|^2 = d$ 的单个 ReLU 隐藏层，
# 它的对角元 $\Theta(x, x)$ 是 NTK 参数化的一半；在对角线之外，两者相差输入层的那一项 $2\rho(\pi - \theta)/\pi$
# （$\rho = \cos\theta$，$\theta$ 为两个输入之间的夹角），剩下的只有输出层的那一项
# $\tfrac2\pi\big(\sin\theta + (\pi - \theta)\rho\big)$。“mup”：μP 同样有无限宽极限（Yang & Hu 用 Tensor Programs 算出了它），而且它按学习率加权的
# 正切核在初始化时也收敛，但这个核在训练中移动 $\Theta(1)$，所以没有一个固定的核能描述训练；`kernel()` 会抛出
# `nh.NoClosedForm`。

# %%
x_demo = nh.sphere(4, d=8, seed=0)                       # |x|² = d, so Σ⁽¹⁾(x, x) = σ_w² = 2
self_ntk = {}
for parameterization in nh.PARAMETERIZATIONS:
    arch = nh.mlp(1, "relu", parameterization=parameterization)
    factors = ", ".join(f"{v:g}" for v in nh.lr_multipliers(arch.network(8, width=256, seed=0)).values())
    try:
        self_ntk[parameterization] = torch.as_tensor(arch.kernel(x_demo).ntk)
        kernel = f"Θ(x, x) = {float(self_ntk[parameterization][0, 0]):.4f}"
    except nh.NoClosedForm:
        kernel = nh._("no closed-form kernel: nh.NoClosedForm")
    print(nh._("{parameterization} at m = 256: lr = {factors}; {kernel}").format(
        parameterization=parameterization, factors=factors, kernel=kernel))

# %% tags=["check"]
for i in range(len(x_demo)):
    nh.check_close("one ReLU layer, diagonal: standard Θ(x, x) = NTK Θ(x, x) / 2",
                   float(self_ntk["standard"][i, i]), float(self_ntk["ntk"][i, i]) / 2, rtol=1e-12)
rho = (x_demo @ x_demo.T / 8).clamp(-1, 1)
input_term = 2 * rho * (np.pi - torch.arccos(rho)) / np.pi
nh.check_close("one ReLU layer: NTK Θ − standard Θ = the input layer's term 2ρ(π − θ)/π (largest error)",
               float((self_ntk["ntk"] - self_ntk["standard"] - input_term).abs().max()), 0.0, atol=1e-12)
mup = nh.mlp(1, "relu", parameterization="mup").network(8, width=256, seed=0)
nh.check_close("μP's package form at m = 256: Var W¹ (2/d), η_out/η (2/m), η_1/η (2m)",
               [mup[0].weight_scale ** 2, mup[2].weight_scale ** 2 * mup[2].lr_multiplier,
                mup[0].weight_scale ** 2 * mup[0].lr_multiplier],
               [2 / 8, 2 / 256, 2 * 256], rtol=1e-12)
