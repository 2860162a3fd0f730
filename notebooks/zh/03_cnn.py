# %% [markdown]
# # 03 · 卷积网络：局部性、权重共享与池化
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/03_cnn.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F03_cnn.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
#
# *教材第 4.2 节。*
#
# **本课内容**
# - 4.2.1：卷积如何作用于核：核的每个元素对应一个**像素对**，卷积对滤波器的各个偏移求和，而且两幅图像用的是同一个偏移（这就是权重共享）；
# - 4.2.1：为什么全局平均池化使核对平移视而不见，而展平（flatten）读出只看同一位置的像素对，因而忘掉了滤波器是共享的；
# - 4.2.2：为什么单个有限网络的核随着**通道**数增多而变得确定，而不是随着图像变大；以及池化在真实的手写数字上是否有用；
# - 4.2.3：感受野限制的是什么（哪些像素能*影响*某个单元），深度、步长和扩张如何扩大感受野，以及最大池化的核与平均池化的核有何不同。
#
# **预备知识：** 第 01–02 课（NNGP 与 NTK，以及它们在 MLP 中逐层的递归公式）。

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
from ntk_helpers.course import convolution as cnn

nh.plotting.use_style()

# %% [markdown]
# ## 核心思想
#
# 宽 CNN 的核比较两幅图像时，给出的不是一个数，而是**逐像素**的比较：一个定义在像素对上的矩阵 $\Sigma_{p,p'}(x,x')$，
# $p$ 是 $x$ 中的像素，$p'$ 是 $x'$ 中的像素。卷积沿着一小段一小段的对角线对这个矩阵求和，因为同一个滤波器权重 $w_a$
# 既乘以一幅图像的像素 $p+a$，也乘以另一幅图像的像素 $p'+a$；最后的读出层（展平或池化）决定哪些像素对能到达输出。

# %%
cnn.draw_shared_offsets()
plt.show()

# %% [markdown]
# ## 4.2.1 卷积的核
#
# 图像是形如 $(n, C, H, W)$ 的张量：$C$ 个通道，像素记作 $p$。$k\times k$ 的滤波器有偏移 $a \in S$
# （$|S| = k^2$；图中用的是一维信号和 3 个偏移 $a \in \{-1, 0, 1\}$）。在 NTK 参数化下，所有 $W$ 和 $b$ 都取自 $N(0, 1)$，第 $l+1$ 层计算
#
# $$z^{(l+1)}_{c,p}(x) = \frac{\sigma_w}{\sqrt{C\,|S|}}\sum_{a\in S}\sum_{c'=1}^{C}
#   W_{c,c',a}\,\phi\bigl(z^{(l)}_{c',p+a}(x)\bigr) + \sigma_b\, b_c .$$
#
# 同一个 $W_{c,c',a}$ 用于每一个位置 $p$：这就是权重共享。把 $z_{c,p}(x)$ 与 $z_{c,p'}(x')$ 相乘，再对权重取平均：
# 当 $c' = c''$ 且 $a = b$ 时 $\mathbb E[W_{c,c',a}W_{c,c'',b}] = 1$，否则为 0。所以只有两幅图像取**同一偏移** $a$ 的项能留下来：
#
# $$\Sigma^{(l+1)}_{p,p'}(x,x') = \frac{\sigma_w^2}{|S|}\sum_{a\in S}
#   \mathbb E\bigl[\phi(z^{(l)}_{p+a}(x))\,\phi(z^{(l)}_{p'+a}(x'))\bigr] + \sigma_b^2 .$$
#
# 当通道数 $C \to \infty$ 时，对通道的平均变成这个期望，而每个通道的预激活成为定义在（图像，像素）对上的高斯过程：
# 这就是第 02 课的归纳论证，只是把“单元”换成了“通道”。这个期望只需要三个数：元素 $\Sigma^{(l)}_{p+a,p'+a}(x,x')$
# 以及两个方差 $\Sigma^{(l)}_{p+a,p+a}(x,x)$、$\Sigma^{(l)}_{p'+a,p'+a}(x',x')$，所以它就是第 02 课的激活映射，逐个元素地作用。
# NTK 也遵循同样的模式，其中
# $\dot\Sigma^{(l)}_{p,p'} = \mathbb E[\phi'(z^{(l)}_p(x))\,\phi'(z^{(l)}_{p'}(x'))]$：
#
# $$\Theta^{(l+1)}_{p,p'}(x,x') = \Sigma^{(l+1)}_{p,p'}(x,x') + \frac{\sigma_w^2}{|S|}\sum_{a\in S}
#   \dot\Sigma^{(l)}_{p+a,p'+a}(x,x')\,\Theta^{(l)}_{p+a,p'+a}(x,x') .$$
#
# 第一层直接读取输入：在它的公式里，期望换成输入核 $\Sigma^{(0)}_{p+a,p'+a}(x,x')$，其中
# $\Sigma^{(0)}_{p,p'}(x,x') = \frac1C\sum_c x_{c,p}\,x'_{c,p'}$。这些都是定理：多通道 CNN 的 NNGP 由 Novak et al. (2019)
# 和 Garriga-Alonso et al. (2019) 证明，卷积 NTK 由 Arora et al. (2019) 证明，而由这类层搭成的任意架构由 Yang (2019) 证明。
#
# **先预测，再运行。** 两个 16 像素的信号（高度为 1 的图像）：$x$ 是像素 3 处的一个尖峰，$x'$ 是像素 9 处的一个尖峰，
# 所以 $\Sigma^{(0)}$ 只是 $(3, 9)$ 处的一个点。经过一层 3 个抽头的卷积之后，核在哪些位置不为零？经过卷积、ReLU、卷积之后呢？

# %%
length = 16

def spike(at):
    """A signal of `length` pixels (an image of height 1): zero except 1 at pixel `at`."""
    x = torch.zeros(1, 1, 1, length, dtype=torch.float64)
    x[..., at] = 1.0
    return x

conv = lambda **kw: nh.conv(kernel_size=(1, 3), padding="circular", sigma_w=math.sqrt(2), **kw)
body = nh.serial(conv(), nh.relu(), conv())
pixel_pairs = lambda arch, a, b: arch.kernel(a, b).nngp[0, 0, 0, :, 0, :]    # (16, 16): pixel p of a, p′ of b
x, x_prime = spike(3), spike(9)
stages = [nh.Kernel.from_inputs(x, x_prime).nngp[0, 0, 0, :, 0, :], pixel_pairs(conv(), x, x_prime),
          pixel_pairs(body, x, x_prime)]
cnn.pixel_pair_panels(stages, [nh._("input: one dot"), nh._("one conv: a stroke of 3"),
                               nh._("conv, ReLU, conv: longer and wider")],
                      suptitle=nh._("Each convolution smears the kernel along the diagonal"))
plt.show()

# %% [markdown]
# <details><summary>答案</summary>
#
# 一层卷积之后：在 $(2, 8)$、$(3, 9)$ 和 $(4, 10)$，每个都等于 $\sigma_w^2/3 = 2/3$：元素 $(p, p')$ 收集的是 $(p+a, p'+a)$，
# 所以那个点变成了沿对角线的、长为 3 的一笔。第二层卷积之后，这一笔长为 5（两个偏移相加：$a + b \in \{-2, \dots, 2\}$），
# 而且向两侧变宽了：中间的 ReLU 均值为正，所以两个信号*都*有激活的每一对像素（第 2–4 行、第 8–10 列）
# 即使协方差为 0，也得到 $\mathbb E[\phi]\,\mathbb E[\phi'] > 0$；下一层卷积再把这个 $3\times 3$ 的方块沿对角线抹开。
# 最亮的元素仍在 $p' - p = 6$ 上，即两个尖峰之间的距离。
#
# </details>

# %% tags=["check"]
support = lambda k: {tuple(map(int, ij)) for ij in (k.abs() > 1e-12).nonzero()}
after_one, after_two = stages[1], stages[2]
nh.check_that("after one conv the kernel is nonzero at (2, 8), (3, 9), (4, 10) only",
              support(after_one) == {(2, 8), (3, 9), (4, 10)}, measured=str(sorted(support(after_one))),
              expected="[(2, 8), (3, 9), (4, 10)]")
nh.check_close("each of them is sigma_w^2 / 3", after_one[3, 9], 2 / 3, rtol=1e-12)   # exact up to rounding
nh.check_that("after conv, ReLU, conv: every nonzero entry within 2 of the diagonal p' - p = 6",
              all(abs(j - i - 6) <= 2 for i, j in support(after_two)),
              measured=str(sorted(support(after_two))), expected="|p′ − p − 6| ≤ 2")
nh.check_that("the largest entries lie on p' - p = 6",
              all(j - i == 6 for i, j in support(after_two) if after_two[i, j] >= after_two.max() - 1e-12),
              measured=float(after_two.max()), expected="on p′ − p = 6")

# %% [markdown]
# ### 不变性需要池化
#
# **平移会移动图像。** 采用循环填充时，把 $x$ 平移 $s$ 个像素，像素对核的各行就移动 $s$；把 $x'$ 平移 $t$，各列就移动 $t$：
# $\Sigma^{(l)}_{p+s,\,p'+t}(T_s x, T_t x') = \Sigma^{(l)}_{p,p'}(x,x')$，$\Theta^{(l)}$ 也一样。
# （用归纳法：它对 $\Sigma^{(0)} = x_p x'_{p'}$ 成立；偏移求和给两个下标加上同一个 $a$；激活映射用到该元素和两个方差，
# 每个方差都随各自的图像一起移动。）这就是**等变性**，它体现在像素对矩阵里。
#
# **读出层决定什么能到达输出。** 标量输出对每一对图像只需要一个数：
#
# - **展平**，再接全连接层：每个像素有自己的读出权重，所以对这些权重取平均后，只有同一位置的像素对留下来：读出对最后一层的核在**对角线**
#   $p = p'$ 上取平均；
# - **全局平均池化**（GAP），再接全连接层：每个通道先对所有像素取平均，所以读出对核的**全部** $P^2$ 个像素对 $(p, p')$ 取平均。
#
# **预测。** 下面还是那两个尖峰，经过卷积、ReLU、卷积：保持原样、一起平移 4，以及只把 $x$ 平移 6。哪种读出的值会变，怎么变？

# %%
shift = lambda signal, s: torch.roll(signal, s, dims=-1)
cases = {nh._("$x$, $x'$: spikes at 3 and 9"): (x, x_prime),
         nh._("both shifted by 4: slides along"): (shift(x, 4), shift(x_prime, 4)),
         nh._("only $x$ shifted by 6: onto $p = p'$"): (shift(x, 6), x_prime)}
cnn.pixel_pair_panels([pixel_pairs(body, a, b) for a, b in cases.values()], list(cases), diagonal=True,
                      suptitle=nh._("Flatten reads only the dashed diagonal, GAP the whole square"))
plt.show()
gap_net = nh.serial(body, nh.relu(), nh.global_avg_pool(), nh.dense(1))
flat_net = nh.serial(body, nh.relu(), nh.flatten(), nh.dense(1))
for name, (a, b) in zip([nh._("as they are"), nh._("both shifted"), nh._("x shifted")], cases.values()):
    print(nh._("{case}: NTK with flatten {flat:.3f}, with GAP {gap:.3f}").format(
        case=name, flat=float(flat_net.kernel(a, b).ntk[0, 0]), gap=float(gap_net.kernel(a, b).ntk[0, 0])))

# %% [markdown]
# <details><summary>答案</summary>
#
# 联合平移对两种读出都没有影响：图像沿对角线滑动，对角线上的内容（这里什么也没有）和所有元素之和都保持不变。
# 只平移 $x$ 则把图像移到对角线上：展平的值从 0 跳到 0.188，GAP 保持 0.019。展平是在*同一位置*比较两幅图像，
# 所以它在意尖峰在哪里；GAP 对每一个像素对求和，所以它不在意。
#
# </details>
#
# 在噪声上也一样：两个随机信号，只把 $x$ 平移 $s = 0, \dots, 15$ 个像素。

# %%
signals = torch.randn(2, 1, 1, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
noise, noise_prime = signals[:1], signals[1:]
shifts = list(range(16))
change = {}
for name, net in [("GAP", gap_net), ("flatten", flat_net)]:
    base = net.kernel(noise, noise_prime).ntk[0, 0]
    change[name] = [float((net.kernel(shift(noise, s), noise_prime).ntk[0, 0] - base) / base) for s in shifts]

fig, ax = plt.subplots()
for name, values in change.items():
    ax.plot(shifts, values, "o-", label=name)
ax.set_xlabel("shift s of x (pixels)")
ax.set_ylabel("relative change of Θ(T_s x, x′)")
ax.set_title(nh._("Shift one image: GAP does not notice, flatten does"))
ax.legend()
plt.show()

# %% tags=["check"]
base = flat_net.kernel(noise, noise_prime).ntk[0, 0]
joint = float(flat_net.kernel(shift(noise, 3), shift(noise_prime, 3)).ntk[0, 0] / base - 1)
# exact identities, up to rounding: 1e-12 relative
nh.check_close("GAP: Θ(T_s x, x′) = Θ(x, x′) for every shift", np.array(change["GAP"]), np.zeros(16),
               atol=1e-12)
nh.check_between("flatten: the largest relative change under a shift of x", max(map(abs, change["flatten"])),
                 0.01, np.inf)
nh.check_that("flatten: a joint shift changes nothing (relative change below 1e-12)", abs(joint) < 1e-12,
              measured=abs(joint), expected="< 1e-12")

# %% [markdown]
# ### 展平丢掉了权重共享
#
# 展平只读取 $p = p'$ 的像素对，而计算这些元素时，递归只需要 $(p+a, p+a)$ 这样的像素对：它从不离开对角线。
# 现在设想一个**局部连接**网络，它在每个位置都用不同的滤波器。它在 $p$ 和 $p' \neq p$ 处的权重相互独立，
# 所以对权重取平均后只有 $p = p'$ 留下来：它的递归*就是*这个对角线上的递归。使用展平时，CNN 与局部连接网络具有相同的无限宽核
# （Novak et al. 2019）：没有池化时，权重共享根本不改变核。
#
# 做个实验：在*输入*核中抹去所有 $p \neq p'$ 的像素对，再运行同样的两种架构。预测一下哪一种会察觉。

# %%
exact = nh.Kernel.from_inputs(noise, noise_prime)
wiped = nh.spatial.same_position_pairs_only(exact)
for name, net in [("flatten", flat_net), ("GAP", gap_net)]:
    full, diagonal_only = net.transform(exact).ntk[0, 0], net.transform(wiped).ntk[0, 0]
    print(nh._("{name:>7}: NTK {full:.4f}, with the p ≠ p′ pairs wiped {wiped:.4f}").format(
        name=name, full=float(full), wiped=float(diagonal_only)))

# %% [markdown]
# <details><summary>答案</summary>
#
# 展平两次打印出同一个 NTK（0.4585）：它从来没有看过 $p \neq p'$。GAP 从 0.900 降到 0.623：它对非对角的像素对求和，
# 而权重共享正体现在这些像素对上。
#
# </details>

# %% tags=["check"]
relative = lambda net: float(abs(net.transform(wiped).ntk[0, 0] / net.transform(exact).ntk[0, 0] - 1))
nh.check_that("flatten: wiping p ≠ p′ changes nothing (relative change below 1e-12)",
              relative(flat_net) < 1e-12, measured=relative(flat_net), expected="< 1e-12")
nh.check_between("GAP: wiping p ≠ p′ changes the NTK by (relative)", relative(gap_net), 0.01, np.inf)

# %% [markdown]
# ## 4.2.2 靠的是通道多，不是像素多
#
# ### 是什么让单个网络的核变得确定？
#
# 上面的核都是极限。一个有限的 CNN 有它自己的经验 NTK（第 01 课），它随初始化而不同。MLP 的经验 NTK 随宽度增大而变得确定；
# CNN 的宽度就是它的**通道**数 $C$。但图像也有很多像素，而全局平均池化会对它们取平均。
#
# **预测。** 固定一个噪声信号，一个 CNN（卷积、ReLU、卷积、ReLU、GAP、全连接层）和 64 次随机初始化：
# $\Theta(x, x)$ 的波动（在各个种子上的标准差，相对于极限值），先看通道增多时（32 个像素），再看信号变长时（16 个通道）。
# 两者中哪一个能让它变小，变小得多快？

# %%
spread_net = nh.serial(conv(), nh.relu(), conv(), nh.relu(), nh.global_avg_pool(), nh.dense(1))
noise_of_length = lambda n: torch.randn(1, 1, 1, n, generator=torch.Generator().manual_seed(5),
                                        dtype=torch.float64)
channels, lengths = [16, 32, 64, 128, 256], [16, 32, 64, 128, 256]
by_channels = [cnn.ntk_spread(spread_net, noise_of_length(32), width=c, seeds=64) for c in channels]
by_length = [cnn.ntk_spread(spread_net, noise_of_length(n), width=16, seeds=64) for n in lengths]

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
std_by_channels = [s.relative_std for s in by_channels]
std_by_length = [s.relative_std for s in by_length]
slope_channels = nh.plotting.loglog_fit(left, channels, std_by_channels, label=nh._("32 pixels"),
                                        guide_slope=-0.5)
slope_length = nh.plotting.loglog_fit(right, lengths, std_by_length, label=nh._("16 channels"),
                                      color=nh.plotting.PALETTE[1])
right.loglog(lengths, std_by_length[0] * (np.array(lengths) / lengths[0]) ** -0.5, ":", color="0.4",
             label=nh._("if averaging over pixels did it"))
right.legend()
for ax, values, name in [(left, channels, nh._("channels C")),
                          (right, lengths, nh._("pixels in the signal"))]:
    nh.plotting.width_ticks(ax, values)
    ax.set_xlabel(name)
left.set_yticks([0.1, 0.2, 0.3, 0.5], ["0.1", "0.2", "0.3", "0.5"])
left.yaxis.set_minor_locator(plt.NullLocator())
left.set_ylabel(nh._("spread of Θ(x, x) over seeds / Θ∞"))
left.set_title(nh._("More channels: the spread falls like $C^{-1/2}$"))
right.set_title(nh._("More pixels: the spread barely moves"))
plt.show()
print(nh._("spread {a:.2f} at 16 channels, {b:.2f} at 256; {c:.2f} at 16 pixels, {d:.2f} at 256").format(
    a=std_by_channels[0], b=std_by_channels[-1], c=std_by_length[0], d=std_by_length[-1]))

# %% [markdown]
# <details><summary>答案</summary>
#
# 通道：波动从 0.52 降到 0.11，斜率为 $-0.50$，正是第 01 课中宽度的 $C^{-1/2}$。像素：从 16 到 256 个像素，它变化不大，
# 从 0.54 到 0.43（斜率 $-0.09$），而如果是对相互独立的像素取平均，它会缩小到四分之一（点线）。
#
# </details>
#
# 原因在于：每个通道的滤波器只抽取**一次**，却用于每一个像素。把一个通道在各个位置上取平均，是用*同一组*权重对图像的各个图块取平均，
# 所以一个通道池化后的特征趋于一个仍然取决于它那个随机滤波器的数，而不是趋于常数。消除随机性的是对许多相互独立的通道取平均，
# 即误差为 $C^{-1/2}$ 的大数定律。这就是为什么 4.2.1 中的定理在固定图像的同时让通道数趋于无穷。

# %% tags=["check"]
# 64 seeds: a standard deviation is then known to about 1/sqrt(2 * 63) = 9 %, a slope over 16x to about 0.1
nh.check_between("slope of the spread against channels", slope_channels, -0.7, -0.3)
nh.check_between("slope of the spread against pixels", slope_length, -0.2, 0.1)
nh.check_between("spread at 256 pixels / spread at 16 (pixel averaging would give 0.25)",
                 std_by_length[-1] / std_by_length[0], 0.6, 1.5)
nh.check_close("the mean over seeds is the infinite-width NTK (256 channels)", by_channels[-1].relative_mean,
               1.0, atol=4 * by_channels[-1].relative_std / 8)     # 4 standard errors of a mean of 64

# %% [markdown]
# ### 这有影响吗？两个任务
#
# **平移不变的任务。** 输入是长度为 16 的噪声信号，正类信号在某个位置含有图样 (2, −2, 2)。在 80
# 个训练信号上用 NTK 做核回归：$\Theta(x, X)\,\Theta(X, X)^{-1} y$。它是无限宽网络（梯度流、平方损失）
# 训练到收敛后、对随机初始化取平均得到的**平均**预测。单个训练好的网络还带有它自己的随机初始函数
# $f_0$（协方差为 NNGP 核、均值为 0 的高斯过程）：它的预测是
# $f_0(x) + \Theta(x, X)\,\Theta(X,X)^{-1}\bigl(y - f_0(X)\bigr)$（Lee et al. 2019），只有当 $f_0 = 0$
# 时才与核回归相同。
#
# 三个核：作用在展平信号上的 MLP、接展平的 CNN、接 GAP 的 CNN。预测一下它们的排名。

# %%
x_train, y_train = nh.motif_sequences(80, seed=0)
x_test, y_test = nh.motif_sequences(200, seed=1)

def ntk_accuracy(net, train, test, targets, labels, flat_inputs=False, progress=False):
    """Kernel regression with the NTK; accuracy of the sign (2 classes) or argmax (one-hot targets).
    progress=True shows a bar over the pieces of the kernel (pairs of images, or blocks of inputs)."""
    if flat_inputs:
        train, test = train.flatten(1), test.flatten(1)
    n = train.shape[0]
    K = net.kernel(torch.cat([train, test]), progress=progress).ntk
    prediction = nh.kernel_regression(K[:n, :n], K[n:, :n], targets)
    guess = prediction.sign() if prediction.ndim == 1 else prediction.argmax(1)
    return float((guess == labels).double().mean())

motif_nets = {"MLP": (nh.mlp(2), True), "CNN + flatten": (flat_net, False), "CNN + GAP": (gap_net, False)}
motif_accuracy = {name: ntk_accuracy(net, x_train, x_test, y_train, y_test, flat)
                  for name, (net, flat) in motif_nets.items()}
print({name: round(acc, 3) for name, acc in motif_accuracy.items()})

# %%
def draw_accuracy(accuracy, title, chance):
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    bars = ax.bar(list(accuracy), list(accuracy.values()), color=nh.plotting.PALETTE[:len(accuracy)])
    ax.bar_label(bars, fmt="%.3f")
    ax.axhline(chance, color="k", ls=":", lw=1, label=f"chance ({chance:g})")
    ax.set_ylim(0, 1.1)
    ax.set_xlabel("kernel (infinite width)")
    ax.set_ylabel("test accuracy")
    ax.set_title(title)
    ax.legend(loc="upper left")
    plt.show()

draw_accuracy(motif_accuracy, nh._("Only the pooled CNN finds the motif wherever it sits"), chance=0.5)

# %% [markdown]
# <details><summary>答案</summary>
#
# CNN + GAP 为 0.86，远高于 MLP（0.70）和接展平的 CNN（0.685），后两者差不多：展平的核和 MLP 的核一样，
# 是逐个位置比较两个信号的，图样出现在另一个位置，对它来说就是另一种模式。GAP 的核则不管图样在哪里都一样。
#
# </details>

# %% tags=["check"]
nh.check_between("motif task: CNN + GAP's accuracy minus CNN + flatten's",
                 motif_accuracy["CNN + GAP"] - motif_accuracy["CNN + flatten"], 0.1, 1.0)
nh.check_between("motif task: CNN + GAP's accuracy minus the MLP's",
                 motif_accuracy["CNN + GAP"] - motif_accuracy["MLP"], 0.1, 1.0)

# %% [markdown]
# **真实图像。** scikit-learn 自带 1797 张 8 × 8 像素的手写数字图像（无需下载）。我们使用 100
# 张训练图像、10 个类别（one-hot 目标）和 200 张测试图像；CNN 有两层 $3\times3$ 卷积。下一个单元格要在 300 张图像上计算两个
# CNN 核，需要几秒；进度条统计已经算完的图像对。

# %% tags=["nbval-ignore-output"]
x_tr, y_tr, labels_tr, x_te, y_te, labels_te = nh.digits(100, 200, seed=0)
square = lambda **kw: nh.conv(sigma_w=math.sqrt(2), **kw)
two_convs = [square(), nh.relu(), square(), nh.relu()]
digit_nets = {
    "MLP": (nh.mlp(1), True),
    "CNN + flatten": (nh.serial(*two_convs, nh.flatten(), nh.dense(1)), False),
    "CNN + GAP": (nh.serial(*two_convs, nh.global_avg_pool(), nh.dense(1)), False),
}
digit_accuracy = {name: ntk_accuracy(net, x_tr, x_te, y_tr, labels_te, flat, progress=not flat)
                  for name, (net, flat) in digit_nets.items()}

# %%
print({name: round(acc, 3) for name, acc in digit_accuracy.items()})
draw_accuracy(digit_accuracy, nh._("Digits: pooling, not locality, buys the accuracy"), chance=0.1)

# %% tags=["check"]
nh.check_between("digits: CNN + GAP's accuracy minus the best of the others",
                 digit_accuracy["CNN + GAP"] - max(digit_accuracy["MLP"], digit_accuracy["CNN + flatten"]),
                 0.03, 1.0)

# %% [markdown]
# 在这里，仅靠局部性（CNN + 展平）比 MLP 没有任何优势：两者都是 0.87。池化把一幅图像的每个位置与另一幅图像的每个位置相比较，
# 只用 100 个样本就达到 0.96。
#
# ## 4.2.3 步长、扩张与感受野
#
# 步长为 $s$ 时，每隔 $s$ 个位置才保留一个输出；扩张 $\delta$ 使滤波器相邻抽头的间距为 $\delta$。
# 单元的**感受野**是能够影响它的输入像素的集合。若滤波器有 $k$ 个抽头、共 $L$ 层，且每层的 $\delta$ 和 $s$
# 都相同，则感受野的跨度为
#
# $$1 + (k-1)\,\delta\,\bigl(1 + s + s^2 + \dots + s^{L-1}\bigr) \text{ 个像素：}$$
#
# 深度让跨度逐层累加；扩张把每一层的贡献成倍放大；步长则把它上方每一层的贡献成倍放大。
#
# 填充约定：`padding="same"` 总共填充 $\delta(k-1)$ 个零，较少的一半放在左边，与 PyTorch 的
# `nn.Conv2d(padding=k//2)` 相同。步长为 2 时，这与 neural-tangents/XLA 的 “SAME” 不同，
# 后者把多出来的那个零放在右边；本软件包的核与其网络使用同一种约定。

# %%
def conv_stack(depth, activation=nh.relu, *, dilation=1, stride=1, out_last=None):
    """depth convolutions with 1 x 3 filters and the activation between them (no activation after the
    last); the last one has out_last channels (None: the network's width)."""
    layer = lambda out=None: nh.conv(out, kernel_size=(1, 3), dilation=(1, dilation), stride=(1, stride),
                                     sigma_w=math.sqrt(2))
    layers = []
    for _ in range(depth - 1):
        layers += [layer(), activation()]
    return nh.serial(*layers, layer(out_last))

# %% [markdown]
# ### 相关性并不度量感受野
#
# 很自然会想到这样检验：两个单元只有在感受野重叠时才应当相关。对同一个输入，核给出像素 $p$ 处的单元与像素
# $p'$ 处的单元在随机网络上的相关系数
# $\Sigma_{pp'}(x,x)/\sqrt{\Sigma_{pp}(x,x)\,\Sigma_{p'p'}(x,x)}$。我们在 64 个噪声信号上对它取平均
# （共享的滤波器会把远处图块之间偶然的相似变成相关，取平均可以消除这种偶然因素），看三层卷积之后的结果：
# 感受野为 7 个像素，相距超过 6 个像素的单元感受野互不相交（灰色区域表示感受野重叠）。预测一下灰色带之外的曲线，ReLU 和 erf 各是什么样。

# %%
many_noises = torch.randn(64, 1, 1, 32, generator=torch.Generator().manual_seed(2), dtype=torch.float64)

def correlation_with_middle(arch, middle=16):
    """Correlation of the last layer's unit at pixel `middle` with the one at each pixel (mean over noise)."""
    var = torch.cat([arch.kernel(n[None]).var1 for n in many_noises])[:, 0, :, 0, :]   # Σ_pp′(x, x), each x
    diagonal = torch.diagonal(var, dim1=1, dim2=2)
    return (var / (diagonal[:, :, None] * diagonal[:, None, :]).sqrt()).mean(0)[middle]

activations = {"ReLU": nh.relu, "erf": nh.erf}
correlation = {name: correlation_with_middle(conv_stack(3, act)) for name, act in activations.items()}
pixels = np.arange(32)
far = np.abs(pixels - 16) > 6                                          # disjoint receptive fields
fig, ax = plt.subplots()
ax.axvspan(16 - 6.5, 16 + 6.5, color="0.9", label="receptive fields overlap")
for name, values in correlation.items():
    ax.plot(pixels, values, "o-", label=f"{name} between the convolutions")
ax.axhline(0, color="k", lw=1)
ax.set_xlabel("pixel p′ (the middle unit sits at p = 16)")
ax.set_ylabel("correlation of units p and p′")
ax.set_title(nh._("Disjoint receptive fields, yet ReLU units stay correlated"))
ax.legend()
plt.show()
relu_far, erf_far = correlation["ReLU"][far], correlation["erf"][far]
print(nh._("units with disjoint receptive fields: ReLU correlation {relu:.2f} on average "
           "(smallest {low:.2f}); erf {erf:.3f} (largest |r| {high:.2f})").format(
    relu=float(relu_far.mean()), low=float(relu_far.min()), erf=float(erf_far.mean()),
    high=float(erf_far.abs().max())))

# %% tags=["check"]
nh.check_between("ReLU: the smallest correlation of units with disjoint receptive fields", relu_far.min(),
                 0.25, 1.0)
nh.check_close("erf: their mean correlation", erf_far.mean(), 0.0, atol=0.05)   # 64 signals: noise ~ 0.01

# %% [markdown]
# 感受野没有任何公共像素的单元仍然是相关的：使用 ReLU 时，平均相关系数约为 0.5。原因在于激活函数的**均值**：
# 每个 ReLU 特征平均而言都是正的，$\mathbb E[\phi(u)] = \sqrt{q/2\pi}$，
# 而下一层共享的权重把这些均值传给各处的单元。对两个相互独立的预激活，一层 ReLU 就已经给出相关系数
# $\mathbb E[\phi]^2/\mathbb E[\phi^2] = 1/\pi \approx 0.32$，更深的层还会使它升高（第 02 课的相关映射）。erf
# 这类零均值激活函数没有这个下限。感受野的重叠在这里也不会带来额外的相关：
# 共享的滤波器使两个单元的相关程度等于它们输入图块的相似程度（输入在滞后 $p'-p$ 处的自相关），
# 而白噪声没有自相关。所以远处像素之间的相关并不为零，而且它完全不能说明感受野。
#
# ### 影响：感受野限制的是什么
#
# 感受野限制的是哪些输入像素能够**影响**某个单元。我们直接测量这种影响：取一个有限宽网络，看它在位置 $p$ 的
# 输出 $f$ 对输入像素 $q$ 的敏感度 $\partial f_p / \partial x_q$（网络的最后一层是只有一个输出通道的卷积）。在感受野之外，
# 它*恰好*为零，对任何权重和任何输入都如此：没有任何权重路径把 $q$ 连到 $p$。`nh.receptive_field`
# 仅凭几何结构就能预测感受野（它数出从 $q$ 到 $p$ 的权重路径条数）。

# %%
signal = torch.randn(1, 1, 64, generator=torch.Generator().manual_seed(3), dtype=torch.float64)   # (C, H, W)

def sensitivity(arch, signal, width=32, seed=0):
    """d f_p / d x_q of one finite network with one output channel: (P_out, P_in), one backward pass."""
    model = arch.network(tuple(signal.shape), width=width, seed=seed)
    n_out = model(signal[None]).shape[-1]
    copies = signal.expand(n_out, *signal.shape).clone().requires_grad_()     # copy p asks about unit p
    model(copies)[:, 0, 0, :].diagonal().sum().backward()
    return copies.grad[:, 0, 0, :]

print(nh._("depth  dilation  stride | middle unit: span (formula), pixels that influence it"))
table = []
for depth, dilation, stride in [(1, 1, 1), (2, 1, 1), (4, 1, 1), (2, 2, 1), (4, 2, 1), (2, 1, 2), (4, 1, 2)]:
    arch = conv_stack(depth, dilation=dilation, stride=stride, out_last=1)
    s, paths = sensitivity(arch, signal), nh.receptive_field(arch, (1, 64))[0, :, 0, :]    # (P_out, 64) each
    middle = cnn.influence_summary(s, paths)
    formula = cnn.span_formula(depth, dilation=dilation, stride=stride)
    table.append((s, paths, middle, formula))
    print(f"{depth:5d} {dilation:9d} {stride:7d} | {middle.span:3d} ({formula:3d}), {middle.count:3d}")

# %% tags=["check"]
outside = sum(int((s[paths == 0] != 0).sum()) for s, paths, middle, formula in table)
inside = sum(int((s[paths > 0] == 0).sum()) for s, paths, middle, formula in table)
nh.check_that("the sensitivity is exactly 0 outside every receptive field", outside == 0, measured=outside,
              expected=0)
nh.check_that("and nonzero everywhere inside", inside == 0, measured=inside, expected=0)
nh.check_that("every measured span follows the formula", all(m.span == f for s, p, m, f in table),
              measured=str([m.span for s, p, m, f in table]), expected=str([f for s, p, m, f in table]))

# %% [markdown]
# 在所有情形下，敏感度在预测的感受野之外恰好为零，在其内部都不为零，而且跨度符合公式：步长为 1
# 时随深度线性增长，扩张为 2 时加倍，步长为 2 时随深度按几何级数增长。当*每一层*都使用扩张 2 时，
# 跨度内会出现空洞：所有抽头都落在偶数偏移上，
# 所以只有隔一个取一个的像素与该单元相连（即堆叠扩张卷积的“网格效应”，gridding；混合使用不同的扩张即可避免）。
#
# ### 感受野内部：有效感受野
#
# 感受野内的各个像素对单元的影响并不相同。对 ReLU，取 $\sigma_w^2 = 2$ 且不加偏置，
# $(\partial f_p/\partial x_q)^2$ 在随机权重上的均值在**任意**宽度下都恰好等于 $2\,N_{pq}/3^{L}$，其中
# $N_{pq}$ 是从 $q$ 到 $p$ 的权重路径条数（即 `receptive_field` 返回的计数），3 是每个滤波器的抽头数。
# 第一层为每条路径贡献 $\sigma_w^2 = 2$，之后的每一层都乘以 $\sigma_w^2\,\mathbb E[\phi'(u)^2] = 1$：
# 给定下面各层时，预激活与它的导数构成一对对称的高斯变量，因此 ReLU 平均保留平方导数的一半。
# 由此得到两个推论：
#
# - 总影响 $\sum_q \mathbb E(\partial f_p/\partial x_q)^2 = 2$ 不随深度变化（远离边界处共有 $3^L$ 条路径）；
# - 它的扩散方式与每步取 $-1, 0, 1$ 的随机游走相同：形成宽度为 $\sqrt{2L/3}$ 的钟形，远窄于感受野的半宽
#   $L$（即“有效感受野”，Luo et al. 2016）。
#
# 下面在 64 个宽度为 32 的网络上测量中间那个单元：

# %%
def unit_sensitivity(arch, unit, seed):
    """d f_unit / d x_q for every input pixel q, one network of width 32."""
    model = arch.network(tuple(signal.shape), width=32, seed=seed)
    x = signal[None].clone().requires_grad_()
    model(x)[0, 0, 0, unit].backward()
    return x.grad[0, 0, 0]

offsets = torch.arange(64) - 32
effective = {}
for depth in (2, 8):
    arch = conv_stack(depth, out_last=1)
    measured = torch.stack([unit_sensitivity(arch, 32, seed) ** 2 for seed in range(64)]).mean(0)
    predicted = 2 * nh.receptive_field(arch, (1, 64))[0, 32, 0, :] / 3 ** depth
    effective[depth] = measured, predicted

fig, ax = plt.subplots()
for (depth, (measured, predicted)), color in zip(effective.items(), nh.plotting.PALETTE):
    inside = predicted > 0                                   # outside: exactly 0, not drawn on a log axis
    ax.semilogy(offsets[inside], measured[inside], "o", color=color, label=f"depth {depth}: 64 networks")
    ax.semilogy(offsets[inside], predicted[inside], "-", color=color, label=f"depth {depth}: 2 N_pq / 3^L")
ax.set_xlabel("offset q − p of the input pixel (pixels)")
ax.set_ylabel("mean of (∂f_p / ∂x_q)²")
ax.set_title(nh._("Inside the receptive field, influence is a narrow bell"))
ax.legend()
plt.show()
for depth, (measured, predicted) in effective.items():
    total, spread = float(measured.sum()), float(((measured * offsets ** 2).sum() / measured.sum()).sqrt())
    print(nh._("depth {depth}: total influence {total:.2f} (exact: 2), width {width:.2f} (sqrt(2L/3) = "
               "{bell:.2f}), receptive field half-width {depth}").format(
        depth=depth, total=total, width=spread, bell=math.sqrt(2 * depth / 3)))

# %% tags=["check"]
for depth, (measured, predicted) in effective.items():
    width = float(((measured * offsets ** 2).sum() / measured.sum()).sqrt())
    # one network's total influence has a spread of about 1.5, so 64 networks: 0.2; +-0.4 is 2 standard errors
    nh.check_close("total influence sum_q E(df_p/dx_q)^2", measured.sum(), 2.0, atol=0.4)
    nh.check_close("width of the influence bell, against sqrt(2L/3)", width, math.sqrt(2 * depth / 3),
                   rtol=0.08)

# %% [markdown]
# ### 动手探索
#
# 网络只有一个输出通道，输入是 64 个像素的信号。图中画出每个输出单元 $p$（行）对每个输入像素 $q$（列）的
# $|\partial f_p/\partial x_q|$，以最大元素为基准取对数刻度。空白表示恰好为零。在移动滑块之前，先读一读交互探索下面的问题，
# 把你的预测写下来。

# %%
def explore_receptive_field(depth, dilation, stride):
    arch = conv_stack(depth, dilation=dilation, stride=stride, out_last=1)
    paths = nh.receptive_field(arch, (1, 64))[0, :, 0, :]
    cnn.show_receptive_field(sensitivity(arch, signal), paths, depth=depth, dilation=dilation, stride=stride)

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(explore_receptive_field, depth=nh.widgets.depth_slider(3, max=6),
                       dilation=nh.widgets.int_slider("dilation", 1, min=1, max=4),
                       stride=nh.widgets.int_slider("stride", 1, min=1, max=2))

# %% [markdown]
# **先预测，再验证。**
#
# 1. 深度 3、扩张 3、步长 1：单元 32 的感受野跨越多少个像素？其中有多少个像素真正影响它？
#
# <details><summary>答案</summary>
#
# 跨度为 $1 + 2\cdot 3\cdot 3 = 19$ 个像素（23–41），但只有其中 7 个影响该单元：每个抽头都落在 3 的倍数上，
# 所以偏移是 $-9, -6, \dots, 9$。交互探索的说明会指出这些空洞。
#
# </details>
#
# 2. 深度 4、扩张 1、步长 2：还剩多少个输出单元？中间那个单元的感受野有多宽？
#
# <details><summary>答案</summary>
#
# $64/2^4 = 4$ 个单元，中间那个（单元 2）受像素 17–47 这全部 31 个像素的影响：
# $1 + 2\,(1 + 2 + 4 + 8) = 31$，没有空洞。深度为 5 时只剩 2 个单元，每个几乎覆盖整个信号；深度为 6 时，边界把感受野截断了。
#
# </details>
#
# 3. 深度 6、扩张 1、步长 1：感受野中的 13 个像素都影响单元 32。影响一样大吗？
#
# <details><summary>答案</summary>
#
# 不一样。两端的像素（26 和 38）比这一行最强的像素分别弱约 40 倍和 1000 倍（$10^{-1.6}$ 和 $10^{-3.1}$），
# 而较强的像素都在中间附近几个像素以内。单个网络有噪声；对许多网络取平均，就是上一节的钟形，宽度为 $\sqrt{2\cdot 6/3} = 2$ 个像素。
#
# </details>

# %% [markdown]
# ### 最大池化与平均池化
#
# 平均池化是一个固定的线性映射 $A$（对每个窗口取平均），所以它精确地作用在像素对核上：$\Sigma \mapsto A\,\Sigma\,A^\top$，
# 即核在各窗口的像素对上的平均。最大池化不是线性的：每个通道保留它在窗口中的最大值，不管这个值出现在哪个像素。
# 它的无限宽极限是存在的（Yang 2019），但它的核是
# $\max_{p\in w}\phi(z_p(x))\,\max_{p'\in w'}\phi(z_{p'}(x'))$ 在一个高斯向量上的期望，这个向量在两个窗口的每个像素各有一个分量；
# 目前没有已知的闭式解，所以我们用有限宽网络来估计它（蒙特卡洛）。
#
# 在 12 张手写数字上，一层 $3\times3$ 卷积、ReLU、$2\times2$ 窗口的池化、展平。由于一个窗口内非负的 ReLU 特征的最大值至少等于它们的平均值，
# 最大池化的核更大。**预测：** 它是否*仅仅*更大，即只是平均池化的核乘上一个比例？把尺度除掉（余弦
# $K(x,x')/\sqrt{K(x,x)K(x',x')}$）：对于不同数字组成的图像对，两种池化会一致吗？对于一个数字和它平移 1–3 个像素的副本呢？

# %%
images = x_tr[:12]
average_net = nh.serial(square(), nh.relu(), nh.avg_pool(2), nh.flatten())
max_net = nh.serial(square(), nh.relu(), nh.max_pool(2), nh.flatten())
average = average_net.kernel(images).nngp                                                 # exact
maximum = nh.monte_carlo_kernel(max_net, images, width=128, n_networks=8, ntk=False).nngp  # Monte Carlo
scale = torch.diagonal(maximum) / torch.diagonal(average)
average_cos = cnn.normalized(average)
max_cos, max_cos_sem = cnn.feature_cosines(max_net, images, width=128, n_networks=8)
different = ~torch.eye(12, dtype=torch.bool)                                # pairs of different digits

shifted = lambda s: torch.roll(images, s, dims=-1)       # the digits have blank borders: a roll is a shift
image_shifts = [0, 1, 2, 3]
exact_readouts = {nh._("flatten (no pooling)"): nh.serial(square(), nh.relu(), nh.flatten()),
                  nh._("average pool 2"): average_net,
                  nh._("global average pool"): nh.serial(square(), nh.relu(), nh.global_avg_pool())}
own_copy = {name: [float(cnn.paired_cosines(net, images, shifted(s)).mean()) for s in image_shifts]
            for name, net in exact_readouts.items()}
max_copy = [cnn.mean_paired_feature_cosine(max_net, images, shifted(s), width=128, n_networks=8)
            for s in image_shifts]

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.4))
left.errorbar(average_cos[different], max_cos[different], yerr=2 * max_cos_sem[different], fmt="o", ms=4,
              label=nh._("pairs of different digits (± 2 s.e.)"))
lims = [float(average_cos[different].min()) - 0.02, 1.0]
left.plot(lims, lims, "k--", lw=1, label=nh._("same cosine"))
left.set_xlabel(nh._("cosine, average pooling (exact)"))
left.set_ylabel(nh._("cosine, max pooling (Monte Carlo)"))
left.set_title(nh._("Scale divided out, the poolings nearly agree on different digits"))
left.legend(loc="lower right")
for (name, values), color in zip(own_copy.items(), nh.plotting.PALETTE[1:]):
    right.plot(image_shifts, values, "o-", color=color, label=name)
right.errorbar(image_shifts, [m for m, se in max_copy], yerr=[2 * se for m, se in max_copy], fmt="s-",
               color=nh.plotting.PALETTE[0], label=nh._("max pool 2 (Monte Carlo)"))
right.set_xticks(image_shifts)
right.set_xlabel(nh._("shift of the copy (pixels)"))
right.set_ylabel(nh._("cosine of a digit and its shifted copy"))
right.set_title(nh._("Shifted copies: max pooling forgives more"))
right.legend()
plt.show()
print(nh._("max pooling's kernel is {low:.1f}–{high:.1f} times average pooling's on the diagonal").format(
    low=float(scale.min()), high=float(scale.max())))
print(nh._("a digit and its copy shifted by 2 pixels: cosine {avg:.2f} with average pooling, {max:.2f} with "
           "max pooling").format(avg=own_copy[nh._("average pool 2")][2], max=max_copy[2][0]))

# %% [markdown]
# <details><summary>答案</summary>
#
# 大体如此，但不完全是。在对角线上，最大池化的核是平均池化的 2.5–3.3 倍。除掉这个尺度后，两种池化对不同数字组成的图像对几乎一致
# （左图：点都落在对角线附近，最不相似的那些对略高于对角线；两种核对 66 个图像对的排序几乎相同，秩相关系数为 0.96）。
# 它们在平移副本上有差别（右图）：平移 1 个像素时两者都是 0.86，但平移 2 个像素时，平均池化的余弦为 0.63，最大池化为 0.68；
# 平移 3 个像素时为 0.47 对 0.55。平移把一笔的部分响应移进相邻的窗口；每个窗口的平均值随之改变，
# 而只要还留有某个强响应，最大值就保持不变。全局平均池化是极端情形，它对任何平移都不在意（余弦高于 0.99），
# 但也觉得几乎所有数字都很像。
#
# </details>

# %% tags=["check"]
from scipy.stats import spearmanr

average_mc, average_mc_sem = cnn.feature_cosines(average_net, images, width=128, n_networks=8)
# the Monte Carlo estimator, checked where the exact kernel is known: within 4 standard errors, plus 0.003
# for the O(1/width) bias of a ratio
nh.check_close("Monte Carlo cosines of average pooling vs the exact ones", average_mc[different],
               average_cos[different], atol=4 * float(average_mc_sem[different].max()) + 0.003)
nh.check_between("max pooling's kernel / average pooling's, smallest diagonal ratio", scale.min(), 2.0, 4.0)
nh.check_between("and the largest", scale.max(), 2.0, 4.0)
nh.check_between("rank correlation of the two poolings' cosines over pairs of different digits",
                 spearmanr(average_cos[different], max_cos[different]).statistic, 0.9, 1.0)
gain_shift = max_copy[2][0] - own_copy[nh._("average pool 2")][2]
gain_different = float((max_cos - average_cos)[different].mean())
nh.check_between("max minus average pooling: cosine with a copy shifted by 2, in standard errors",
                 gain_shift / max_copy[2][1], 5.0, np.inf)
nh.check_that("that gain is larger than max pooling's gain on different digits",
              gain_shift > 2 * gain_different, measured=gain_shift,
              expected="> 2 × the gain on different digits")
nh.check_between("global average pooling: cosine with a copy shifted by 3",
                 own_copy[nh._("global average pool")][3], 0.99, 1.0)

# %% [markdown]
# ## 检验你的理解
#
# 1. 一层 3 个抽头的卷积。输入核只在一个像素对 $(i, j)$ 处不为零。$\Sigma^{(1)}$ 的哪些元素不为零？为什么不是一个 $3\times3$ 的方块？
#
# <details><summary>答案</summary>
#
# $(i-1, j-1)$、$(i, j)$ 和 $(i+1, j+1)$：元素 $(p, p')$ 对前一层核在 $(p+a, p'+a)$ 处的值求和，两幅图像用同一个偏移。
# $a \neq b$ 的像素对 $(p+a, p'+b)$ 乘的是两个相互独立的权重 $w_a w_b$，平均为 0。（经过 ReLU 之后，均值会把一个方块填满，
# 就像 4.2.1 中那样，但卷积本身只沿对角线求和。）
#
# </details>
#
# 2. 为什么使用全局平均池化的 CNN 给出 $\Theta(T_s x, x') = \Theta(x, x')$，而使用展平的 CNN 只给出
#    $\Theta(T_s x, T_s x') = \Theta(x, x')$（循环填充）？
#
# <details><summary>答案</summary>
#
# 只平移 $x$ 会移动像素对核的各行。GAP 对所有元素取平均，而各行的重新排列不改变这个平均。展平对对角线 $p = p'$ 取平均，
# 只移动各行时，对角线上的元素就换成了别的元素；联合平移让行和列一起移动，把对角线映到它自身。
#
# </details>
#
# 3. 一个使用展平读出的 CNN，和一个局部连接网络（滤波器大小相同，每个位置有单独的滤波器）：它们的无限宽核相比如何？
#    如果使用全局平均池化呢？
#
# <details><summary>答案</summary>
#
# 使用展平时二者相同：只有 $p = p'$ 的像素对能到达输出，而在这些像素对上两种递归一致（Novak et al. 2019）。使用 GAP 时二者不同，
# 因为 GAP 还读取 $p \neq p'$ 的像素对：在那里，CNN 的预激活是相关的（同一个滤波器同时服务于 $p$ 和 $p'$），
# 而局部连接网络的预激活相互独立（协方差为 0；经过 ReLU 之后只剩下均值的乘积）。
#
# </details>
#
# 4. 在 16 个通道下，你把图像放大 16 倍。单个网络的 NTK 在不同初始化之间的波动会缩小多少？如果保持图像不变、改用 64 个通道呢？
#
# <details><summary>答案</summary>
#
# 图像放大几乎没有用：一个通道的每个像素用的都是同一个随机滤波器，所以对位置取平均并不是对相互独立的权重取平均
# （4.2.2：从 16 到 256 个像素，约从 0.54 降到 0.43）。通道数变为 4 倍时，波动减半：$C^{-1/2}$。
#
# </details>
#
# 5. 三层卷积，每层 5 个抽头，扩张 2，步长 1。一个单元的感受野跨越多少个像素？其中有多少个能影响它？
#
# <details><summary>答案</summary>
#
# $1 + (5-1)\cdot 2\cdot 3 = 25$ 个像素；只有偶数偏移 $-12, \dots, 12$ 是连通的，所以其中 13 个像素影响该单元（远离边界时）。
#
# </details>
#
# 6. 为什么两个 ReLU 单元之间的相关性不能告诉你它们的感受野是否重叠？
#
# <details><summary>答案</summary>
#
# ReLU 特征的均值为正，下一层共享的权重把它传给各处的单元：经过三层之后，感受野互不相交的单元的相关系数约为 0.5
# （经过一层 ReLU 至少为 $1/\pi$）。感受野限制的是*影响*，即在感受野之外 $\partial f_p/\partial x_q = 0$，而不是相关性。
#
# </details>

# %% [markdown]
# ## 小结
#
# - 宽 CNN 的核是定义在**像素对**上的矩阵；每一层卷积对滤波器的各个偏移求和，两幅图像用同一个偏移（权重共享），
#   所以它把核沿对角线抹开。
# - 平移一幅图像会移动这个矩阵的行（或列）。**全局平均池化**对每个元素求和，所以它的核具有平移**不变性**；
#   **展平**只读取对角线 $p = p'$，只对联合平移不变，并给出局部连接网络的核：只有在池化时，权重共享才有意义。
# - 单个网络的核随着**通道**增多而变得确定，其波动按 $C^{-1/2}$ 下降；图像变大没有帮助，因为滤波器在它的各个像素之间是共享的。
# - 在平移不变的任务和真实的手写数字上，起作用的是池化（0.96 对 0.87）。核回归是无限宽网络训练后的平均；单个网络还要加上它的初始函数。
# - 感受野限制的是**影响**：在感受野之外，$\partial f_p/\partial x_q = 0$ 恰好成立。它跨越
#   $1 + (k-1)\,\delta\,(1 + s + \dots + s^{L-1})$ 个像素，而在它内部，影响呈宽度为 $\sim\sqrt L$ 的钟形。平均池化是精确且线性的；
#   最大池化（蒙特卡洛）大体上就是乘了一个比例的平均池化，只是对平移更宽容一些。

# %% [markdown]
# ## 给第 4 章读者
#
# 教材第 4.2 节对其中一些内容的说法有所不同。下面每一处更正都注明了它在勘误表中的条目。
#
# <details><summary>A7 · CNTK 的 Gram 矩阵不是 Toeplitz 矩阵</summary>
#
# **教材原文：** CNN 在数据上的 NTK Gram 矩阵是循环矩阵 / 块 Toeplitz 矩阵，$\Theta(x_i, x_j)$ 取决于 $x_i$ 和 $x_j$ 的“相对位置”。
#
# **正确的说法：** 数据下标 $i$ 不是像素下标。等变性体现在像素对核中（4.2.1，“不变性需要池化”）；数据上的 $n \times n$ Gram
# 矩阵只是普通的稠密 Gram 矩阵，没有 Toeplitz 结构（见下面的检查单元格：8 个噪声信号的 Gram 矩阵，其次对角线上的元素变化幅度约为其均值的 34 %）。
# 使用 GAP 时，输出具有平移不变性，$\Theta(T_s x, x') = \Theta(x, x')$；使用展平时，只有联合平移才使它保持不变。
# [勘误 A7](../../ERRATA.zh.md#a7)
#
# </details>
#
# <details><summary>A8 · 感受野不重叠并不会使 NTK 稀疏</summary>
#
# **教材原文：** 感受野不重叠的项为零，因此 NTK 是稀疏的。
#
# **正确的说法：** Gram 矩阵是稠密的（见下面：它最小的元素约为最大元素的 20 %）。局部性使核成为各局部图块核之和；
# 感受野限制的是哪些像素能*影响*某个单元，而不是两个单元是否相关：使用 ReLU 时，感受野互不相交的单元的相关系数约为 0.5（4.2.3）。
# [勘误 A8](../../ERRATA.zh.md#a8)
#
# </details>
#
# <details><summary>A9 · 空间平均并不能使核变得确定</summary>
#
# **教材原文：** 空间平均使有限图像的核变得确定。
#
# **正确的说法：** 起作用的是通道数。单个网络的 NTK 波动随通道数按 $C^{-1/2}$ 下降，而随像素数几乎不变（4.2.2），
# 因为一个通道在每个像素上用的都是同一个随机滤波器。没有池化时，只有同一位置的像素对能到达输出，核等于局部连接网络的核
# （Novak et al. 2019）。[勘误 A9](../../ERRATA.zh.md#a9)
#
# </details>
#
# <details><summary>A10 · 步长与扩张</summary>
#
# **教材原文：** 步长使核只关联固定间隔的特征，从而改变核的平滑性；扩张使核能捕捉更远像素之间的相关，并可能提高其有效维数。
#
# **正确的说法：** 步长对输出位置做下采样，扩张把滤波器的抽头拉开间距；两者都会扩大感受野，即能够影响某个单元的输入像素的集合（4.2.3）。
# 无论扩张多大，远处的像素都是相关的（单是激活函数的均值就能造成相关）；也没有任何结果把步长与平滑性、把扩张与有效维数联系起来。
# [勘误 A10](../../ERRATA.zh.md#a10)
#
# </details>
#
# <details><summary>A12 · 最大池化的核</summary>
#
# **教材原文：** 最大池化没有简单的解析形式。
#
# **正确的说法：** 没错，但要补充一点：它的无限宽极限是存在的（Yang 2019），它的核是在各窗口上的高斯期望，目前没有已知的闭式解，
# 我们用蒙特卡洛来估计它。它是否“更尖锐”并无定论；这里的测量表明，除掉尺度之后，它与平均池化的核很接近，并且对小的平移更宽容。
# [勘误 A12](../../ERRATA.zh.md#a12)
#
# </details>

# %% tags=["check"]
data = torch.randn(8, 1, 1, 16, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
gram = gap_net.kernel(data).ntk
first_off_diagonal = torch.diagonal(gram, offset=1)
nh.check_between("Toeplitz needs a constant off-diagonal: its std / mean", first_off_diagonal.std()
                 / first_off_diagonal.abs().mean(), 0.1, np.inf)
nh.check_between("dense: the smallest |entry| of the Gram matrix / the largest", gram.abs().min()
                 / gram.abs().max(), 1e-3, 1.0)

# %% [markdown]
# **练习：** 4.2（哪些平移对称性，用哪种读出）和 4.6（最大池化的替代方案）。
#
# **下一课：** [04 · 残差网络](04_resnet.ipynb)
