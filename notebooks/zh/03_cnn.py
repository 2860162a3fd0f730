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
# ## 一图看懂核心思想
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
# 当 $c' = c''$ 且 $a = b$ 时 $\mathbb E[W_{c,c',a}W_{c,c'',b}] = 1$，否则为 0，于是剩下
#
# $$\Sigma^{(l+1)}_{p,p'}(x,x') = \frac{\sigma_w^2}{|S|}\sum_{a\in S}
#   \mathbb E\bigl[\phi(z^{(l)}_{p+a}(x))\,\phi(z^{(l)}_{p'+a}(x'))\bigr] + \sigma_b^2 .$$
#
# 本课始终取 $\sigma_b = 0$（`nh.conv` 的默认值），所以 $\sigma_b^2$ 项都消失了。
#
# 当通道数 $C \to \infty$ 时，对通道的平均变成这个期望，而每个通道的预激活成为定义在（图像，像素）对上的高斯过程：
# 这就是第 02 课的归纳论证，只是把“单元”换成了“通道”。这个期望只需要三个数：元素 $\Sigma^{(l)}_{p+a,p'+a}(x,x')$
# 以及两个方差 $\Sigma^{(l)}_{p+a,p+a}(x,x)$、$\Sigma^{(l)}_{p'+a,p'+a}(x',x')$，所以它就是第 02 课的激活映射，逐个元素地作用。
# NTK 也遵循同样的模式，其中
# $\dot\Sigma^{(l)}_{p,p'} = \mathbb E[\phi'(z^{(l)}_p(x))\,\phi'(z^{(l)}_{p'}(x'))]$（其中不含 $\sigma_w^2$：因子 $\sigma_w^2/|S|$ 写在求和前面）：
#
# $$\Theta^{(l+1)}_{p,p'}(x,x') = \Sigma^{(l+1)}_{p,p'}(x,x') + \frac{\sigma_w^2}{|S|}\sum_{a\in S}
#   \dot\Sigma^{(l)}_{p+a,p'+a}(x,x')\,\Theta^{(l)}_{p+a,p'+a}(x,x') .$$
#
# 第一层直接读取输入：在它的公式里，期望换成输入核 $\Sigma^{(0)}_{p+a,p'+a}(x,x')$，其中
# $\Sigma^{(0)}_{p,p'}(x,x') = \frac1C\sum_c x_{c,p}\,x'_{c,p'}$。输入没有参数，$\Theta^{(0)} = 0$，所以第一层的 NTK 就是它的 NNGP：$\Theta^{(1)} = \Sigma^{(1)}$。这些都是定理：多通道 CNN 的 NNGP 由 Novak et al. (2019)
# 和 Garriga-Alonso et al. (2019) 证明，卷积 NTK 由 Arora et al. (2019) 推导得出；对由这类层搭成的任意架构，Yang (2019) 证明了 NNGP 极限，Yang (2020, Tensor Programs II) 证明了 NTK 的收敛。
#
# **做个实验。** 两个 16 像素的信号（高度为 1 的图像）：$x$ 是像素 3 处的一个尖峰，$x'$ 是像素 9 处的一个尖峰，
# 所以 $\Sigma^{(0)}$ 只是 $(3, 9)$ 处的一个点。下面画出经过一层 3 个抽头的卷积之后、以及经过卷积、ReLU、卷积之后的像素对核。

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
# **先解释，再预测。**
#
# 1. 用 $\Sigma^{(l+1)}$ 的公式：一层卷积使哪三个元素不为零？每个有多大（$\sigma_w^2 = 2$，3 个抽头）？
#
# <details><summary>答案</summary>
#
# $(2, 8)$、$(3, 9)$ 和 $(4, 10)$，每个都等于 $\sigma_w^2/3 = 2/3$。元素 $(p, p')$ 收集的是输入核在 $(p+a, p'+a)$
# 处的值，两幅图像用的是同一个偏移 $a$，而输入核只在 $(3, 9)$ 处为 1：这三个元素分别对应 $a = 1, 0, -1$。
#
# </details>
#
# 2. 经过卷积、ReLU、卷积之后，这段笔画不仅更长（5 个像素：两个偏移相加，$a + b \in \{-2, \dots, 2\}$），而且更宽。
#    宽度是从哪里来的？
#
# <details><summary>答案</summary>
#
# 来自 ReLU 为正的均值。取第一层卷积之后的预激活 $u = z_p(x)$ 和 $v = z_{p'}(x')$，方差分别为 $q$ 和 $q'$。
# 在它们协方差为 0 的地方，二者相互独立，对 ReLU 有
# $\mathbb E[\phi(u)\,\phi(v)] = \mathbb E[\phi(u)]\,\mathbb E[\phi(v)] = \sqrt{q\,q'}/2\pi > 0$。
# 所以凡是 $p$ 能被 $x$ 的尖峰触及、$p'$ 能被 $x'$ 的尖峰触及的像素对 $(p, p')$（第 2–4 行、第 8–10 列），
# 都得到一个正的元素：笔画之外为 $1/3\pi \approx 0.106$，笔画之上为 $q/2 = 1/3$。第二层卷积再把这个 $3\times 3$
# 的方块沿对角线抹开。最亮的元素仍在 $p' - p = 6$ 上，即两个尖峰之间的距离。
#
# </details>
#
# 3. 预测：滤波器改为 5 个抽头而不是 3 个。经过一层卷积之后，核在哪些位置不为零？每个元素有多大？
#    要验证，在一个新的单元格中运行
#    `pixel_pairs(nh.conv(kernel_size=(1, 5), padding="circular", sigma_w=math.sqrt(2)), x, x_prime)`。
#
# <details><summary>答案</summary>
#
# 在 $(1, 7), (2, 8), \dots, (5, 11)$ 处，是一段长为 5 的笔画，每个元素都是 $\sigma_w^2/5 = 0.4$。权重要除以
# $\sqrt{C\,|S|}$，所以无论滤波器多大，笔画上各元素之和总是 $\sigma_w^2 = 2$。
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
after_relu = pixel_pairs(nh.serial(conv(), nh.relu()), x, x_prime)
nh.check_close("after conv, ReLU: E[φ(u)]E[φ(v)] = 1/(3π) off the stroke, at (2, 10)", after_relu[2, 10],
               1 / (3 * math.pi), rtol=1e-10)
nh.check_close("and q/2 = 1/3 on it, at (3, 9)", after_relu[3, 9], 1 / 3, rtol=1e-10)
nh.check_that("ReLU fills the whole block of rows 2–4, columns 8–10, and nothing else",
              support(after_relu) == {(i, j) for i in (2, 3, 4) for j in (8, 9, 10)},
              measured=str(sorted(support(after_relu))), expected="rows 2–4 × columns 8–10")
five_taps = pixel_pairs(nh.conv(kernel_size=(1, 5), padding="circular", sigma_w=math.sqrt(2)), x, x_prime)
nh.check_that("5 taps: the kernel is nonzero at (1, 7), ..., (5, 11) only",
              support(five_taps) == {(i, i + 6) for i in range(1, 6)},
              measured=str(sorted(support(five_taps))), expected="[(1, 7), …, (5, 11)]")
nh.check_close("each of them is sigma_w^2 / 5", five_taps[3, 9], 0.4, rtol=1e-12)

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
# 下面的两个网络都是卷积、ReLU、卷积，然后**再接一个 ReLU**，最后是读出层：读出层看到的是最后这个 ReLU 之后的核。
# 在两个预激活不相关的地方，这个 ReLU 留下的是它们均值的乘积 $\mathbb E[\phi(u)]\,\mathbb E[\phi(v)] > 0$（与上面第 2 题相同）。
# 下面画出这个核：两个尖峰保持原样、一起平移 4，以及只把 $x$ 平移 6（它的尖峰移到像素 9，正好落在 $x'$ 的尖峰处）。

# %%
shift = lambda signal, s: torch.roll(signal, s, dims=-1)
cases = {nh._("$x$, $x'$: spikes at 3 and 9"): (x, x_prime),
         nh._("both shifted by 4: slides along"): (shift(x, 4), shift(x_prime, 4)),
         nh._("only $x$ shifted by 6: onto $p = p'$"): (shift(x, 6), x_prime)}
seen_by_readout = nh.serial(body, nh.relu())                       # conv, ReLU, conv, ReLU
cnn.pixel_pair_panels([pixel_pairs(seen_by_readout, a, b) for a, b in cases.values()], list(cases),
                      diagonal=True, suptitle=nh._("After the last ReLU: a joint shift slides the picture "
                                                   "along the dashed diagonal, a shift of x alone moves it"))
plt.show()

# %% [markdown]
# **先预测，再运行下一个单元格。** 展平读取这些图中的对角线 $p = p'$，GAP 读取全部元素。
#
# 1. 对三种情形中的每一种：展平的 NTK 是否为零？GAP 的 NTK 是否随情形而变？
#
# <details><summary>答案</summary>
#
# 展平：0、0，然后是 0.188。前两幅图中对角线是空的；联合平移让图像沿对角线滑动，所以对角线上的内容（什么也没有）保持不变。
# 只平移 $x$ 会移动各行，这里恰好移到对角线上。GAP：三次都是 0.019。它对所有元素求和，而移动行或列不改变这个和。
# 展平比较的是两幅图像*在同一位置上*的内容，所以它在乎尖峰在哪里；GAP 不在乎。
#
# </details>

# %%
gap_net = nh.serial(body, nh.relu(), nh.global_avg_pool(), nh.dense(1))
flat_net = nh.serial(body, nh.relu(), nh.flatten(), nh.dense(1))
for name, (a, b) in zip([nh._("as they are"), nh._("both shifted"), nh._("x shifted")], cases.values()):
    print(nh._("{case}: NTK with flatten {flat:.3f}, with GAP {gap:.3f}").format(
        case=name, flat=float(flat_net.kernel(a, b).ntk[0, 0]), gap=float(gap_net.kernel(a, b).ntk[0, 0])))

# %% [markdown]
# **预测。**
#
# 2. 保持 $x$ 在像素 3，把 $x'$ 的尖峰从像素 9 移到像素 6，再移到像素 8。对每种情形，预测两个 NTK：是否为零，是否改变？
#    要验证，运行 `float(flat_net.kernel(x, spike(6)).ntk[0, 0])`，再对 `gap_net` 和 `spike(8)` 做同样的事。
#
# <details><summary>答案</summary>
#
# GAP 两次都是 0.019：只移动 $x'$ 就是只平移一幅图像。展平在尖峰位于 6 时为 0.006，位于 8 时恰好为 0。
# 经过卷积、ReLU、卷积之后，一个尖峰只能触及与它相距不超过 2 的像素（两层 3 个抽头的滤波器）。在最后一个 ReLU 之前，
# 即使两个尖峰只相距 3，对角线也是空的（笔画落在 $p' - p \in \{1, \dots, 5\}$ 上）。最后一个 ReLU 在两个尖峰都能触及的像素处填入均值的乘积：
# 尖峰在 3 和 6 时是像素 4 和 5（各为 0.050），尖峰相距 5 时一个也没有。只有当两个尖峰相距不超过 4 个像素时，展平才能看到这一对信号。
#
# </details>
#
# 再在噪声上看同样的事：两个随机信号，只把 $x$ 平移 $s = 0, \dots, 15$ 个像素。

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
ax.set_xlabel(nh._("shift s of x (pixels)"))
ax.set_ylabel(nh._("relative change of Θ(T_s x, x′)"))
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
ntk_of = lambda net, a, b: float(net.kernel(a, b).ntk[0, 0])
nh.check_close("spikes at 3 and 9: flatten's NTK is 0", ntk_of(flat_net, x, x_prime), 0.0, atol=1e-12)
nh.check_close("x shifted onto x′: flatten's NTK", ntk_of(flat_net, shift(x, 6), x_prime), 0.188, atol=5e-4)
nh.check_close("GAP's NTK, spikes at 3 and 9", ntk_of(gap_net, x, x_prime), 0.019, atol=5e-4)
nh.check_close("spikes at 3 and 6: flatten's NTK", ntk_of(flat_net, x, spike(6)), 0.006, atol=5e-4)
before_relu, after_relu_6 = pixel_pairs(body, x, spike(6)), pixel_pairs(seen_by_readout, x, spike(6))
nh.check_close("spikes at 3 and 6: the diagonal before the last ReLU is 0", torch.diagonal(before_relu),
               torch.zeros(16, dtype=torch.float64), atol=1e-15)
nh.check_close("after it: 0.050 at pixel 4", after_relu_6[4, 4], 0.050, atol=5e-4)
nh.check_close("and at pixel 5", after_relu_6[5, 5], 0.050, atol=5e-4)
others = [i for i in range(16) if i not in (4, 5)]
nh.check_that("and 0 at every other pixel of the diagonal",
              float(torch.diagonal(after_relu_6)[others].abs().max()) == 0.0,
              measured=float(torch.diagonal(after_relu_6).abs().sum()), expected="0 outside pixels 4, 5")
nh.check_that("the first two pictures have an empty diagonal",
              all(float(torch.diagonal(pixel_pairs(seen_by_readout, a, b)).abs().max()) == 0.0
                  for a, b in list(cases.values())[:2]), measured="cases 1, 2", expected="0 on p = p′")
nh.check_close("spikes at 3 and 8: flatten's NTK is exactly 0", ntk_of(flat_net, x, spike(8)), 0.0,
               atol=1e-15)
nh.check_close("GAP: the same NTK for x′ at pixels 6 and 8 as at 9",
               np.array([ntk_of(gap_net, x, spike(6)), ntk_of(gap_net, x, spike(8))]),
               np.full(2, ntk_of(gap_net, x, x_prime)), rtol=1e-12)
nh.check_that("flatten sees the pair exactly when the spikes are at most 4 pixels apart",
              all((ntk_of(flat_net, x, spike(j)) > 1e-15) == (min(abs(j - 3), 16 - abs(j - 3)) <= 4)
                  for j in range(16)), measured="16 positions of x′", expected="nonzero iff distance ≤ 4")

# %% [markdown]
# ### 展平丢掉了权重共享
#
# 展平只读取 $p = p'$ 的像素对，而计算这些元素时，递归只需要 $(p+a, p+a)$ 这样的像素对：它从不离开对角线。
# 现在设想一个**局部连接**网络，它在每个位置都用不同的滤波器。它在 $p$ 和 $p' \neq p$ 处的权重相互独立，
# 所以对权重取平均后只有 $p = p'$ 留下来：它的递归*就是*这个对角线上的递归。因此，使用展平时，CNN 与局部连接网络具有相同的无限宽 NNGP
# （Novak et al. 2019），也具有相同的 NTK，因为 4.2.1 中 $\Theta$ 的递归读取的像素对 $(p+a, p'+a)$ 与 $\Sigma$ 的递归相同。
# 没有池化时，权重共享根本不改变使用展平读出的无限宽核。
#
# 在那两个噪声信号上做个实验：把局部连接网络的核与 CNN 的核放在一起比较，两种读出都看。`cnn.locally_connected_kernel`
# 运行同样的递归，但在每一层卷积之后把 $p \neq p'$ 的像素对置为零（$x$ 与 $x'$ 之间的，以及每幅图像与自身的）；
# 之后的 ReLU 再用均值的乘积把它们填上。

# %%
inputs = nh.Kernel.from_inputs(noise, noise_prime)
for name, net in [("flatten", flat_net), ("GAP", gap_net)]:
    shared = float(net.transform(inputs).ntk[0, 0])
    local = float(cnn.locally_connected_kernel(net, inputs).ntk[0, 0])
    print(nh._("{name:>7}: NTK of the CNN {cnn:.4f}, of the locally connected network {lcn:.4f}").format(
        name=name, cnn=shared, lcn=local))

# %% [markdown]
# **解释一下。** 使用 GAP 时，局部连接网络的 NTK 约为 CNN 的三分之一。是哪些像素对造成了这个差别？在两种网络中，它们分别由什么填充？
#
# <details><summary>答案</summary>
#
# 是 $p \neq p'$ 的像素对，只有 GAP 读取它们（使用展平时两种网络都给出 0.4585）。在 CNN 中，同一个滤波器同时服务于 $p$ 和 $p'$，
# 所以两个单元的相关程度等于它们输入图块的相似程度。在局部连接网络中，它们的滤波器相互独立：每层卷积之后这些像素对都为 0，
# ReLU 只留下均值的乘积。这里结果是 0.311，而 CNN 为 0.900。
#
# </details>

# %% tags=["check"]
ntk_pair = lambda net: (float(net.transform(inputs).ntk[0, 0]),
                        float(cnn.locally_connected_kernel(net, inputs).ntk[0, 0]))
flat_pair, gap_pair = ntk_pair(flat_net), ntk_pair(gap_net)
nh.check_close("flatten: the locally connected network's NTK equals the CNN's", flat_pair[1], flat_pair[0],
               rtol=1e-12)
nh.check_close("flatten's NTK", flat_pair[0], 0.4585, atol=5e-5)
nh.check_close("GAP: the CNN's NTK, and the locally connected network's", np.array(gap_pair),
               np.array([0.900, 0.311]), atol=5e-4)
nh.check_between("GAP: locally connected / CNN (about a third)", gap_pair[1] / gap_pair[0], 0.3, 0.4)

# %% [markdown]
# ## 4.2.2 靠的是通道多，不是像素多
#
# ### 是什么让单个网络的核变得确定？
#
# 上面的核都是极限。一个有限的 CNN 有它自己的经验 NTK（第 01 课），它随初始化而不同。MLP 的经验 NTK 随宽度增大而变得确定；
# CNN 的宽度就是它的**通道**数 $C$。但图像也有很多像素，而全局平均池化会对它们取平均。
#
# 固定一个噪声信号，一个 CNN（卷积、ReLU、卷积、ReLU、GAP、全连接层）和 64 次随机初始化：
# 看 $\Theta(x, x)$ 的波动（`cnn.ntk_spread`：它在各个种子上的标准差，除以 4.2.1 中的无限宽 NTK $\Theta_\infty$），先看通道增多时（32 个像素），再看信号变长时（16 个通道）。

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
# **先解释，再预测。**
#
# 1. 通道把波动从 0.52 降到 0.11（斜率 $-0.50$，正是第 01 课中宽度的 $C^{-1/2}$）。从 16 到 256 个像素，波动只从 0.54 降到 0.43
#    （斜率 $-0.09$），而对 16 倍之多的相互独立的数取平均，本应把它缩小到四分之一（点线）。为什么 GAP 对像素取平均做不到这一点？
#
# <details><summary>答案</summary>
#
# 每个通道的滤波器只抽取**一次**，却用于每一个像素。把一个通道在各个位置上取平均，是用*同一组*权重对图像的各个图块取平均，
# 所以一个通道池化后的特征趋于一个仍然取决于它那个随机滤波器的数，而不是趋于常数。消除随机性的是对许多相互独立的通道取平均，
# 即误差为 $C^{-1/2}$ 的大数定律。
#
# </details>
#
# 2. 预测信号长 1024 个像素、16 个通道时的波动：它会沿着拟合的斜率 $-0.09$ 继续下降（那样约为 0.38）吗？要验证，在一个新的单元格中运行
#    `cnn.ntk_spread(spread_net, noise_of_length(1024), width=16, seeds=64).relative_std`。
#
# <details><summary>答案</summary>
#
# 0.43，与 256 个像素时一样，而不是 0.38：这个斜率并不是定律。在长信号上，一个通道池化后的特征已经是它的滤波器在许多图块上的平均响应，更多的像素只是让这个平均更精确。
# 如果是对相互独立的像素取平均，结果会是 $0.54/8 \approx 0.07$。
#
# </details>
#
# 这就是为什么 4.2.1 中的定理在固定图像的同时让通道数趋于无穷。

# %% tags=["check"]
# 64 seeds: a standard deviation is then known to about 1/sqrt(2 * 63) = 9 %, a slope over 16x to about 0.1
nh.check_between("slope of the spread against channels", slope_channels, -0.7, -0.3)
nh.check_between("slope of the spread against pixels", slope_length, -0.2, 0.1)
nh.check_between("spread at 256 pixels / spread at 16 (pixel averaging would give 0.25)",
                 std_by_length[-1] / std_by_length[0], 0.6, 1.5)
nh.check_close("the mean over seeds is the infinite-width NTK (256 channels)", by_channels[-1].relative_mean,
               1.0, atol=4 * by_channels[-1].relative_std / 8)     # 4 standard errors of a mean of 64
# the numbers the text quotes, as printed (two decimals)
nh.check_close("spread at 16 and at 256 channels (32 pixels)",
               np.array([std_by_channels[0], std_by_channels[-1]]), np.array([0.52, 0.11]), atol=0.005)
nh.check_close("spread at 16 and at 256 pixels (16 channels)",
               np.array([std_by_length[0], std_by_length[-1]]), np.array([0.54, 0.43]), atol=0.005)
nh.check_close("the two slopes", np.array([slope_channels, slope_length]), np.array([-0.50, -0.09]),
               atol=0.005)
long_signal = cnn.ntk_spread(spread_net, noise_of_length(1024), width=16, seeds=64).relative_std
nh.check_close("spread at 1024 pixels (16 channels)", long_signal, 0.43, atol=0.005)

# %% [markdown]
# ### 这有影响吗？两个任务
#
# **平移不变的任务。** 输入是长度为 16 的噪声信号，正类信号在某个位置含有图样 (2, −2, 2)。在 80
# 个训练信号上用 NTK 做核回归：$\Theta(x, X)\,\Theta(X, X)^{-1} y$。它是无限宽网络（梯度流、平方损失）
# 训练到收敛后、对随机初始化取平均得到的**平均**预测。单个训练好的网络还带有它自己的随机初始函数
# $f_0$（协方差为 NNGP 核、均值为 0 的高斯过程）：在无限宽（有限宽度下则为近似）、用梯度流训练到收敛、采用 NTK 参数化时，它的预测是
# $f_0(x) + \Theta(x, X)\,\Theta(X,X)^{-1}\bigl(y - f_0(X)\bigr)$（Lee et al. 2019），只有当 $f_0 = 0$
# 时才与核回归相同。
#
# 三个核：作用在展平信号上、有两个隐藏层的 MLP（与有两层卷积的 CNN 一样深）、接展平的 CNN、接 GAP 的 CNN。
# 把数据分成 80 个训练信号和 200 个测试信号，一次划分测得的准确率只精确到约 $\pm 0.03$（它的标准误），
# 所以我们一次性抽取 280 个信号，再随机划分 5 次：每个点是一次划分，每根柱是它们的平均。

# %%
motif_x, motif_y = nh.motif_sequences(280, seed=0)
motif_nets = {"MLP": nh.mlp(2), "CNN + flatten": flat_net, "CNN + GAP": gap_net}
motif_accuracy = {}
for name, net in motif_nets.items():
    inputs = motif_x.flatten(1) if name == "MLP" else motif_x           # the MLP reads the flattened signal
    kernel = net.kernel(inputs).ntk                                      # (280, 280): every pair of signals
    motif_accuracy[name] = cnn.split_accuracies(kernel, motif_y, motif_y, n_train=80, splits=5)

def print_accuracies(accuracy):
    for name, values in accuracy.items():
        line = nh._("{name}: accuracy {mean:.3f} on average over {n} splits (from {low:.3f} to {high:.3f})")
        print(line.format(name=name, mean=values.mean(), n=len(values), low=values.min(), high=values.max()))

cnn.accuracy_bars(motif_accuracy, title=nh._("A motif that moves: the pooled CNN finds it most often"),
                  chance=0.5)
plt.show()
print_accuracies(motif_accuracy)

# %% [markdown]
# **解释一下。** MLP 与接展平的 CNN 得分差不多，接 GAP 的 CNN 则好得多。为什么？
#
# <details><summary>答案</summary>
#
# 展平的核和 MLP 的核一样，是逐个位置比较两个信号的，对它们来说，图样出现在另一个位置就是另一种模式。
# GAP 的核把一个信号的每个位置与另一个信号的每个位置相比较，所以无论图样在哪里都算数。在各次划分上平均，
# CNN + GAP 的准确率为 0.846，而 MLP 为 0.656、CNN + 展平为 0.665；并且在每一次划分上它都领先这两者，至少领先 0.15。
#
# </details>

# %% tags=["check"]
gap_lead = {name: motif_accuracy["CNN + GAP"] - motif_accuracy[name] for name in ("MLP", "CNN + flatten")}
nh.check_between("motif task: CNN + GAP's smallest lead over the MLP and CNN + flatten, over the splits",
                 min(lead.min() for lead in gap_lead.values()), 0.15 - 1e-9, 1.0)
nh.check_close("motif task: mean accuracy of the MLP, CNN + flatten and CNN + GAP",
               np.array([values.mean() for values in motif_accuracy.values()]),
               np.array([0.656, 0.665, 0.846]), atol=5e-4)
nh.check_between("motif task: CNN + flatten's mean accuracy minus the MLP's",
                 motif_accuracy["CNN + flatten"].mean() - motif_accuracy["MLP"].mean(), -0.03, 0.03)

# %% [markdown]
# **真实图像。** scikit-learn 自带 1797 张 8 × 8 像素的手写数字图像（无需下载）。我们取其中 300 张，随机划分 5 次，
# 每次 100 张用于训练、200 张用于测试；10 个类别（one-hot 目标）。CNN 有两层 $3\times3$ 卷积，MLP 有两个隐藏层。
# 下一个单元格要在这 300 张图像上计算三个核，需要几秒；进度条统计已经算完的图像对。

# %% tags=["nbval-ignore-output"]
digit_images, digit_targets, digit_labels, *_ = nh.digits(300, 1, seed=0)     # 300 images (and one spare)
square = lambda **kw: nh.conv(sigma_w=math.sqrt(2), **kw)
two_convs = [square(), nh.relu(), square(), nh.relu()]
digit_kernels = {
    "MLP": nh.mlp(2).kernel(digit_images.flatten(1)).ntk,
    "CNN + flatten": nh.serial(*two_convs, nh.flatten(), nh.dense(1)).kernel(digit_images, progress=True).ntk,
    "CNN + GAP": nh.serial(*two_convs, nh.global_avg_pool(), nh.dense(1)).kernel(digit_images,
                                                                               progress=True).ntk,
}

# %%
digit_accuracy = {name: cnn.split_accuracies(kernel, digit_targets, digit_labels, n_train=100, splits=5)
                  for name, kernel in digit_kernels.items()}
cnn.accuracy_bars(digit_accuracy, title=nh._("Digits: pooling helps, locality alone does not"), chance=0.1)
plt.show()
print_accuracies(digit_accuracy)

# %% [markdown]
# **解释一下。** 接展平的 CNN 是由局部图块搭起来的，但它的准确率与 MLP 差不多；只有池化才让准确率提高。为什么？
#
# <details><summary>答案</summary>
#
# 使用展平时，核只把一个数字的每个图块与另一个数字*同一位置*的图块相比较，就像 MLP 的核逐个像素地比较一样：
# 对两者来说，向右移了一个像素的笔画就是另一种模式。GAP 把一个数字的每个图块与另一个数字的每个图块相比较，
# 所以平移过的笔画仍然能对上。在 5 次划分上平均：MLP 为 0.887，CNN + 展平为 0.884，CNN + GAP 为 0.945；
# 在每一次划分上 GAP 都领先展平，领先幅度为 0.035 到 0.085。
#
# </details>

# %% tags=["check"]
digit_lead = digit_accuracy["CNN + GAP"] - digit_accuracy["CNN + flatten"]
nh.check_close("digits: mean accuracy of the MLP, CNN + flatten and CNN + GAP",
               np.array([values.mean() for values in digit_accuracy.values()]),
               np.array([0.887, 0.884, 0.945]), atol=5e-4)
nh.check_close("digits: CNN + GAP's smallest and largest lead over CNN + flatten, over the splits",
               np.array([digit_lead.min(), digit_lead.max()]), np.array([0.035, 0.085]), atol=5e-4)
nh.check_between("digits: CNN + flatten's mean accuracy minus the MLP's",
                 digit_accuracy["CNN + flatten"].mean() - digit_accuracy["MLP"].mean(), -0.02, 0.02)

# %% [markdown]
# ## 4.2.3 步长、扩张与感受野
#
# 步长为 $s$ 时，每隔 $s$ 个位置才保留一个输出；扩张 $\delta$ 使滤波器相邻抽头的间距为 $\delta$。
# 单元的**感受野**是能够影响它的输入像素的集合。若滤波器有 $k$ 个抽头、共 $L$ 层，且每层的 $\delta$ 和 $s$
# 都相同，则感受野的跨度为
#
# $$1 + (k-1)\,\delta\,\bigl(1 + s + s^2 + \dots + s^{L-1}\bigr) \text{ 个像素：}$$
#
# 深度让跨度逐层累加；扩张把每一层的贡献成倍放大；步长则把它上方每一层的贡献成倍放大。

# %%
def conv_stack(depth, activation=nh.relu, *, dilation=1, stride=1, out_last=None):
    """depth convolutions with 1 x 3 filters and the activation between them (no activation after the
    last); the last one has out_last channels (None: the network's width). Zero padding."""
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
# $\Sigma_{pp'}(x,x)/\sqrt{\Sigma_{pp}(x,x)\,\Sigma_{p'p'}(x,x)}$。我们在 64 个噪声信号上对它取平均，看三层卷积之后的结果：
# 感受野为 7 个像素，相距超过 6 个像素的单元感受野互不相交（灰色区域表示感受野重叠）。

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
ax.axvspan(16 - 6.5, 16 + 6.5, color="0.9", label=nh._("receptive fields overlap"))
for name, values in correlation.items():
    ax.plot(pixels, values, "o-", label=nh._("{name} between the convolutions").format(name=name))
ax.axhline(0, color="k", lw=1)
ax.set_xlabel(nh._("pixel p′ (the middle unit sits at p = 16)"))
ax.set_ylabel(nh._("correlation of units p and p′"))
ax.set_title(nh._("Disjoint receptive fields, yet ReLU units stay correlated"))
ax.legend()
plt.show()
relu_far, erf_far = correlation["ReLU"][far], correlation["erf"][far]
print(nh._("units with disjoint receptive fields: ReLU correlation {relu:.2f} on average "
           "(smallest {low:.2f}); erf {erf:.3f} (largest |r| {high:.2f})").format(
    relu=float(relu_far.mean()), low=float(relu_far.min()), erf=float(erf_far.mean()),
    high=float(erf_far.abs().max())))

# %% [markdown]
# **先解释，再预测。**
#
# 1. 感受野没有任何公共像素的单元：为什么使用 ReLU 时它们是相关的（平均约 0.5），而使用 erf 时不相关？
#
# <details><summary>答案</summary>
#
# 原因在于激活函数的**均值**：每个 ReLU 特征平均而言都是正的，$\mathbb E[\phi(u)] = \sqrt{q/2\pi}$，
# 而下一层共享的权重把这些均值传给各处的单元。相关系数 $c = 0$ 的两个预激活经过一层 ReLU 之后，相关系数为
# $\mathbb E[\phi]^2/\mathbb E[\phi^2] = 1/\pi \approx 0.32$（$c < 0$ 时更小，$c = -1$ 时降到 0）。
# 第二层 ReLU 把 0.32 变成 0.49（第 02 课的相关映射）；测得的平均值 0.50 略高一些，因为 $c$ 只是在噪声上平均为 0。
# erf 的均值为 0，所以它不会带来这样的下限。
#
# </details>
#
# 2. 在上面的单元格中把 GELU（`"GELU": nh.gelu`）加进 `activations`，然后重新运行。相距较远的 GELU 单元会像 ReLU 的那样相关，
#    还是像 erf 的那样不相关？
#
# <details><summary>答案</summary>
#
# 相关，平均约为 0.35（ReLU 为 0.50）：$\mathrm{GELU}(u) = u\,\Phi(u)$ 的均值也为正，只是相对于它自身的大小，比 ReLU 的均值小。
#
# </details>
#
# 感受野的重叠在这里也不会带来额外的相关：共享的滤波器使两个单元的相关程度等于它们输入图块的相似程度
# （输入在滞后 $p'-p$ 处的自相关），而白噪声没有自相关。在单个噪声信号上，远处的图块会偶然相似；在 64 个信号上取平均基本消除了这一点。所以远处像素之间的相关并不为零，而且它完全不能说明感受野。

# %% tags=["check"]
nh.check_between("ReLU: the smallest correlation of units with disjoint receptive fields", relu_far.min(),
                 0.25, 1.0)
nh.check_close("erf: their mean correlation", erf_far.mean(), 0.0, atol=0.05)   # 64 signals: noise ~ 0.01
nh.check_close("ReLU: their mean correlation, as printed", relu_far.mean(), 0.50, atol=0.005)
relu_map = lambda c: (math.sqrt(1 - c ** 2) + (math.pi - math.acos(c)) * c) / math.pi    # lesson 02
nh.check_close("one ReLU at c = 0: correlation 1/π", relu_map(0.0), 1 / math.pi, rtol=1e-12)
nh.check_close("a second ReLU: 1/π → 0.49", relu_map(1 / math.pi), 0.49, atol=0.005)
as_tensor = lambda v: torch.tensor([v], dtype=torch.float64)
package_relu = lambda c: 2 * float(nh.relu().dual(as_tensor(1.0), as_tensor(1.0), as_tensor(c))[0][0])
nh.check_close("the formula against the package's ReLU kernel at c = 0", relu_map(0.0), package_relu(0.0),
               rtol=1e-12)
nh.check_close("the formula against the package's ReLU kernel at c = 1/π", relu_map(1 / math.pi),
               package_relu(1 / math.pi), rtol=1e-12)
nh.check_that("below c = 0 one ReLU gives less than 1/π, and 0 at c = -1",
              relu_map(-0.5) < 1 / math.pi and abs(relu_map(-1.0)) < 1e-12, measured=relu_map(-0.5),
              expected="< 1/π")
gelu_far = correlation_with_middle(conv_stack(3, nh.gelu))[far]
nh.check_close("GELU: mean correlation of units with disjoint receptive fields", gelu_far.mean(), 0.355,
               atol=0.005)

# %% [markdown]
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
# 时随深度线性增长；扩张 2 使中心像素之外的部分加倍（跨度 − 1：深度 2 时 4 → 8，深度 4 时 8 → 16）；步长为 2 时随深度按几何级数增长。当*每一层*都使用扩张 2 时，
# 跨度内会出现空洞：所有抽头都落在偶数偏移上，
# 所以只有隔一个取一个的像素与该单元相连（即堆叠扩张卷积的“网格效应”，gridding；混合使用不同的扩张即可避免）。
#
# ### 感受野内部：有效感受野
#
# 感受野内的各个像素对单元的影响并不相同。对 ReLU，取 $\sigma_w^2 = 2$ 且不加偏置，
# $(\partial f_p/\partial x_q)^2$ 在随机权重上的均值在**任意**宽度下都恰好等于 $2\,N_{pq}/3^{L}$，其中
# $N_{pq}$ 是从 $q$ 到 $p$ 的权重路径条数（即 `receptive_field` 返回的计数），3 是每个滤波器的抽头数。
# 原因是：沿着一条路径，每一层把均方乘以 $\sigma_w^2/3 = 2/3$（该层权重的方差，对各通道求和），而两层之间的每个 ReLU
# 再把它乘以 $\tfrac12$。ReLU 在单元打开（$u > 0$）时让导数通过（$\phi'(u) = 1$），在单元关闭时把它挡住（$\phi'(u) = 0$）；
# 没有偏置且权重关于 0 对称时，把一个单元所有输入权重的符号翻转，$u$ 的符号也随之翻转，所以在全部权重抽样中，
# 该单元恰好有一半时间是打开的。于是一条路径贡献 $(2/3)^L (1/2)^{L-1} = 2/3^L$。（这些一半在任意宽度下都恰好相乘，
# Hanin 2018 对全连接 ReLU 网络证明了这一点；这个论证可以逐条路径地照搬过来。）由此得到两个推论：
#
# - 总影响 $\sum_q \mathbb E(\partial f_p/\partial x_q)^2 = 2$ 不随深度变化（远离边界处共有 $3^L$ 条路径）；
# - 它的扩散方式与每步取 $-1, 0, 1$ 的随机游走相同：形成宽度为 $\sqrt{2L/3}$ 的钟形，窄于感受野的半宽
#   $L$，而且深度越大越明显：$\sqrt L$ 对 $L$（即“有效感受野”，Luo et al. 2016）。
#
# 下面在 64 个宽度为 32 的网络上测量中间那个单元（左：线性坐标轴，点线位于 $\pm\sqrt{2L/3}$；右：同样的数据画在对数坐标轴上，可以看到钟形的尾部）：

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

fig, (linear, log) = plt.subplots(1, 2, figsize=(11, 4.2), sharex=True)
for (depth, (measured, predicted)), color in zip(effective.items(), nh.plotting.PALETTE):
    inside = predicted > 0                                   # outside: exactly 0, not drawn on a log axis
    for ax in (linear, log):
        ax.plot(offsets[inside], measured[inside], "o", color=color,
                label=nh._("depth {depth}: 64 networks").format(depth=depth))
        ax.plot(offsets[inside], predicted[inside], "-", color=color,
                label=nh._("depth {depth}: 2 N_pq / 3^L").format(depth=depth))
    for edge in (-1, 1):
        linear.axvline(edge * math.sqrt(2 * depth / 3), color=color, ls=":", lw=1.2)
log.set_yscale("log")
linear.set_xlim(-9, 9)
for ax in (linear, log):
    ax.set_xlabel(nh._("offset q − p of the input pixel (pixels)"))
linear.set_ylabel(nh._("mean of (∂f_p / ∂x_q)²"))
linear.set_title(nh._("Depth 8: the field spans ±8, the bell about ±2.3"))
log.set_title(nh._("On a log axis: tails down to the field's edge"))
linear.legend(fontsize=8)
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
# 网络只有一个输出通道，输入是 64 个像素的信号。上图：每个输出单元 $p$（行）对每个输入像素 $q$（列）的
# $|\partial f_p/\partial x_q|$，以最大元素为基准取对数刻度；空白表示恰好为零。下图：中间那个单元的一行（上图中框出的那一行），
# 以这一行的最大元素为基准；另有随机网络上的均方根 $\sqrt{2N_{pq}/3^L}$，以它自己的最大值为基准（曲线）。
# 在移动滑块之前，先读一读交互探索下面的问题，把你的预测写下来。

# %%
def explore_receptive_field(depth, dilation, stride):
    arch = conv_stack(depth, dilation=dilation, stride=stride, out_last=1)
    paths = nh.receptive_field(arch, (1, 64))[0, :, 0, :]
    cnn.show_receptive_field(sensitivity(arch, signal), paths, depth=depth, dilation=dilation, stride=stride)

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(explore_receptive_field, depth=nh.widgets.depth_slider(2, max=6),
                       dilation=nh.widgets.int_slider(nh._("dilation"), 1, min=1, max=4),
                       stride=nh.widgets.int_slider(nh._("stride"), 1, min=1, max=2))

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
# $1 + 2\,(1 + 2 + 4 + 8) = 31$，没有空洞。深度为 5 时剩下 2 个单元；它们的感受野本应跨越 63 个像素，但被边界截断了：
# 单元 0 受像素 0–31 的影响，单元 1 受像素 1–63 的影响。深度为 6 时，仅剩的那个单元受全部 64 个像素的影响。
#
# </details>
#
# 3. 深度 6、扩张 1、步长 1：感受野中的 13 个像素都影响单元 32。数一数权重路径：端点像素影响的均方根比中间像素的小多少？
#
# <details><summary>答案</summary>
#
# 对许多网络取平均（曲线）：从中间像素 32 到该单元有 141 条权重路径，而从两端的像素 26 和 38 各只有一条，
# 所以端点像素影响的均方根是中间像素的 $1/\sqrt{141} \approx 1/12$（$10^{-1.07}$）：这就是上一节的钟形，宽度为
# $\sqrt{2\cdot 6/3} = 2$ 个像素。这一个网络（圆点）则围绕着钟形上下散布：它最强的像素是 30 而不是 32，两个端点像素分别是它的
# $10^{-1.6}$ 和 $10^{-3.1}$，而像素 27（$10^{-2.5}$）紧挨着像素 28（$10^{-0.7}$）。
#
# </details>

# %% tags=["check"]
def middle_unit(depth, dilation, stride):
    """The explorer's network at one setting: its middle unit's sensitivity row and weight-path counts."""
    arch = conv_stack(depth, dilation=dilation, stride=stride, out_last=1)
    s, paths = sensitivity(arch, signal), nh.receptive_field(arch, (1, 64))[0, :, 0, :]
    return s, paths, cnn.influence_summary(s, paths)

_, _, holes = middle_unit(3, 3, 1)
nh.check_that("depth 3, dilation 3: unit 32 spans 23–41 and 7 pixels influence it",
              (holes.unit, holes.low, holes.high, holes.count) == (32, 23, 41, 7),
              measured=str((holes.unit, holes.low, holes.high, holes.count)), expected="(32, 23, 41, 7)")
_, _, strided = middle_unit(4, 1, 2)
nh.check_that("depth 4, stride 2: 4 units, unit 2 influenced by all 31 pixels 17–47",
              (strided.n_out, strided.unit, strided.low, strided.high, strided.count) == (4, 2, 17, 47, 31),
              measured=str((strided.n_out, strided.unit, strided.low, strided.high, strided.count)),
              expected="(4, 2, 17, 47, 31)")
s5, _, _ = middle_unit(5, 1, 2)
reach = [((row != 0).nonzero().min().item(), (row != 0).nonzero().max().item()) for row in s5]
nh.check_that("depth 5, stride 2: unit 0 feels pixels 0–31, unit 1 pixels 1–63", reach == [(0, 31), (1, 63)],
              measured=str(reach), expected="[(0, 31), (1, 63)]")
nh.check_that("and the span formula says 63", cnn.span_formula(5, stride=2) == 63,
              measured=cnn.span_formula(5, stride=2), expected=63)
_, _, last = middle_unit(6, 1, 2)
nh.check_that("depth 6, stride 2: one unit, influenced by all 64 pixels", (last.n_out, last.count) == (1, 64),
              measured=str((last.n_out, last.count)), expected="(1, 64)")
s6, paths6, deep = middle_unit(6, 1, 1)
row6 = s6[32].abs() / s6[32].abs().max()
deep_reach = (deep.count, deep.low, deep.high)
nh.check_that("depth 6: 13 pixels, 26–38, influence unit 32", deep_reach == (13, 26, 38),
              measured=str(deep_reach), expected="(13, 26, 38)")
nh.check_close("weight paths from pixels 32, 26 and 38", paths6[32, [32, 26, 38]].double(),
               torch.tensor([141.0, 1.0, 1.0], dtype=torch.float64), rtol=1e-12)
nh.check_close("an edge pixel's root-mean-square influence, log10 relative to the middle's",
               0.5 * math.log10(1 / 141), -1.07, atol=0.005)
nh.check_that("this network's strongest pixel for unit 32 is 30", int(row6.argmax()) == 30,
              measured=int(row6.argmax()), expected=30)
nh.check_close("log10 of pixels 26, 38, 27, 28 relative to it", row6[[26, 38, 27, 28]].log10(),
               torch.tensor([-1.6, -3.1, -2.5, -0.7], dtype=torch.float64), atol=0.05)

# %% [markdown]
# ### 最大池化与平均池化
#
# 平均池化是一个固定的线性映射 $A$（对每个窗口取平均），所以它精确地作用在像素对核上：$\Sigma \mapsto A\,\Sigma\,A^\top$，
# 即核在各窗口的像素对上的平均。最大池化不是线性的：每个通道保留它在窗口中的最大值，不管这个值出现在哪个像素。
# 它的无限宽极限是存在的（Yang 2019），但它的核是
# $\max_{p\in w}\phi(z_p(x))\,\max_{p'\in w'}\phi(z_{p'}(x'))$ 在一个高斯向量上的期望，这个向量在两个窗口的每个像素各有一个分量；
# 目前没有已知的闭式解，所以我们用有限宽网络来估计它（蒙特卡洛）。
#
# 在 12 张手写数字上：一层 $3\times3$ 卷积、ReLU、$2\times2$ 窗口的池化、展平。一个窗口内非负的 ReLU 特征的最大值至少等于它们的平均值，
# 所以最大池化的核更大（这里在对角线上是平均池化的 2.5–3.3 倍）。要比较两者，先把尺度除掉：看余弦
# $K(x,x')/\sqrt{K(x,x)\,K(x',x')}$，这里是一个数字与它自己向右平移 0–3 个像素后的副本之间的余弦（空出的列填零）。最大池化的余弦在 8 个
# 128 通道的网络上测量（误差棒：2 个标准误），其余的都是精确值。

# %%
images = digit_images[:12]
average_net = nh.serial(square(), nh.relu(), nh.avg_pool(2), nh.flatten())
max_net = nh.serial(square(), nh.relu(), nh.max_pool(2), nh.flatten())
def shifted(s):
    """The 12 digits moved s pixels to the right, zeros filling the s columns on the left."""
    moved = torch.zeros_like(images)
    moved[..., s:] = images[..., :images.shape[-1] - s]
    return moved
image_shifts = [0, 1, 2, 3]
exact_readouts = {nh._("flatten (no pooling)"): nh.serial(square(), nh.relu(), nh.flatten()),
                  nh._("average pool 2"): average_net,
                  nh._("global average pool"): nh.serial(square(), nh.relu(), nh.global_avg_pool())}
own_copy = {name: [float(cnn.paired_cosines(net, images, shifted(s)).mean()) for s in image_shifts]
            for name, net in exact_readouts.items()}
max_copy = [cnn.mean_paired_feature_cosine(max_net, images, shifted(s), width=128, n_networks=8)
            for s in image_shifts]

fig, ax = plt.subplots(figsize=(7, 4.2))
for (name, values), color in zip(own_copy.items(), nh.plotting.PALETTE[1:]):
    ax.plot(image_shifts, values, "o-", color=color, label=name)
ax.errorbar(image_shifts, [m for m, se in max_copy], yerr=[2 * se for m, se in max_copy], fmt="s-",
            color=nh.plotting.PALETTE[0], label=nh._("max pool 2 (Monte Carlo)"))
ax.set_xticks(image_shifts)
ax.set_xlabel(nh._("shift of the copy (pixels)"))
ax.set_ylabel(nh._("cosine of a digit and its shifted copy"))
ax.set_title(nh._("Shifted copies: max pooling forgives more than average pooling"))
ax.legend()
plt.show()
copy_line = nh._("copy shifted by {s} (pixels): cosine {avg:.2f} with average pooling, "
                 "{max:.2f} with max pooling")
for s in image_shifts[1:]:
    print(copy_line.format(s=s, avg=own_copy[nh._("average pool 2")][s], max=max_copy[s][0]))

# %% [markdown]
# **解释一下。** 平移 1 个像素时两种池化一致；平移 2 和 3 个像素时，最大池化让副本离原数字更近。
# 为什么窗口的最大值能宽容平均值所不能宽容的平移？
#
# <details><summary>答案</summary>
#
# 平移会把笔画的一部分响应移进相邻的窗口。窗口的平均值随每一个移进或移出的像素而变化；而只要最强的响应还留在窗口里，最大值就不变。
# 所以平移 2 个像素时，余弦在平均池化下为 0.63，在最大池化下为 0.67；平移 3 个像素时为 0.45 对 0.51（平移 1 个像素时两者都是 0.86）。
# 全局平均池化只有一个覆盖整幅图像的窗口，是极端情形：它宽容这里展示的每一种平移，即 0–3 个像素（余弦高于 0.99）。
#
# </details>

# %% tags=["check"]
from scipy.stats import spearmanr

average = average_net.kernel(images).nngp                                                 # exact
maximum = nh.monte_carlo_kernel(max_net, images, width=128, n_networks=8, ntk=False).nngp  # Monte Carlo
scale = torch.diagonal(maximum) / torch.diagonal(average)
average_cos = cnn.normalized(average)
different = ~torch.eye(12, dtype=torch.bool)                                # pairs of different digits
average_mc, average_mc_sem = cnn.feature_cosines(average_net, images, width=128, n_networks=8)
# the Monte Carlo estimator, checked where the exact kernel is known: within 4 standard errors, plus 0.003
# for the O(1/width) bias of a ratio
nh.check_close("Monte Carlo cosines of average pooling vs the exact ones", average_mc[different],
               average_cos[different], atol=4 * float(average_mc_sem[different].max()) + 0.003)
nh.check_close("max pooling's kernel / average pooling's on the diagonal: smallest and largest",
               np.array([float(scale.min()), float(scale.max())]), np.array([2.5, 3.3]), atol=0.05)
nh.check_close("cosine with the copy shifted by 1, 2, 3: average pooling",
               np.array(own_copy[nh._("average pool 2")][1:]), np.array([0.86, 0.63, 0.45]), atol=0.005)
nh.check_close("and max pooling (Monte Carlo)", np.array([m for m, se in max_copy[1:]]),
               np.array([0.86, 0.67, 0.51]), atol=0.005)
for s in (2, 3):
    nh.check_between("max minus average pooling: cosine with the copy shifted by 2 and 3, in standard errors",
                     (max_copy[s][0] - own_copy[nh._("average pool 2")][s]) / max_copy[s][1], 5.0, np.inf)
nh.check_between("global average pooling: cosine with a copy shifted by 3",
                 own_copy[nh._("global average pool")][3], 0.99, 1.0)
max_cos, _ = cnn.feature_cosines(max_net, images, width=128, n_networks=8)
nh.check_close("rank correlation of the two poolings' cosines over pairs of different digits (A12)",
               spearmanr(average_cos[different], max_cos[different]).statistic, 0.96, atol=0.005)

# %% [markdown]
# ## 检验你的理解
#
# 1. 一层 3 个抽头、扩张为 2 的卷积（偏移 $a \in \{-2, 0, 2\}$）。输入核只在一个像素对 $(i, j)$ 处不为零。
#    $\Sigma^{(1)}$ 的哪些元素不为零？为什么不是一个 $3\times3$ 的方块？
#
# <details><summary>答案</summary>
#
# $(i-2, j-2)$、$(i, j)$ 和 $(i+2, j+2)$，每个都等于 $\sigma_w^2/3$：元素 $(p, p')$ 对前一层核在 $(p+a, p'+a)$ 处的值求和，
# 两幅图像用同一个偏移，所以这段笔画沿对角线分布，中间隔开一个像素。$a \neq b$ 的像素对 $(p+a, p'+b)$
# 乘的是两个相互独立的权重 $w_a w_b$，平均为 0。（经过 ReLU 之后，均值会把一个方块填满，就像 4.2.1 中那样，但卷积本身只沿对角线求和。）
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
# 使用展平时二者相同：只有 $p = p'$ 的像素对能到达输出，而在这些像素对上两种递归一致，对 NNGP 如此（Novak et al. 2019），
# 由同样的论证，对 NTK 也如此。使用 GAP 时二者不同，因为 GAP 还读取 $p \neq p'$ 的像素对：在那里，CNN 的预激活是相关的
# （同一个滤波器同时服务于 $p$ 和 $p'$），而局部连接网络的预激活相互独立（协方差为 0；经过 ReLU 之后只剩下均值的乘积）：在 4.2.1 的噪声信号上为 0.900 对 0.311。
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
# （对不相关的预激活，经过一层 ReLU 为 $1/\pi$）。感受野限制的是*影响*，即在感受野之外 $\partial f_p/\partial x_q = 0$，而不是相关性。
#
# </details>

# %% tags=["check"]
dilated = pixel_pairs(nh.conv(kernel_size=(1, 3), dilation=(1, 2), padding="circular", sigma_w=math.sqrt(2)),
                      x, x_prime)
nh.check_that("question 1: with dilation 2 the dot (3, 9) becomes (1, 7), (3, 9), (5, 11)",
              support(dilated) == {(1, 7), (3, 9), (5, 11)}, measured=str(sorted(support(dilated))),
              expected="[(1, 7), (3, 9), (5, 11)]")
five_taps_dilated = lambda out=None: nh.conv(out, kernel_size=(1, 5), dilation=(1, 2), sigma_w=math.sqrt(2))
five_tap_stack = nh.serial(five_taps_dilated(), nh.relu(), five_taps_dilated(), nh.relu(),
                           five_taps_dilated(1))
reached = (nh.receptive_field(five_tap_stack, (1, 64))[0, 32, 0, :] > 0).nonzero().flatten()
nh.check_that("question 5: the span is 25 pixels, 13 of them connected",
              (int(reached[-1] - reached[0] + 1), len(reached), cnn.span_formula(3, taps=5, dilation=2))
              == (25, 13, 25), measured=str((int(reached[-1] - reached[0] + 1), len(reached))),
              expected="(25, 13)")

# %% [markdown]
# ## 小结
#
# - 宽 CNN 的核是定义在**像素对**上的矩阵；每一层卷积对滤波器的各个偏移求和，两幅图像用同一个偏移（权重共享），
#   所以它把核沿对角线抹开。
# - 平移一幅图像会移动这个矩阵的行（或列）。**全局平均池化**对每个元素求和，所以它的核具有平移**不变性**；
#   **展平**只读取对角线 $p = p'$，只对联合平移不变，并给出局部连接网络的核：只有在池化时，权重共享才有意义。
# - 单个网络的核随着**通道**增多而变得确定，其波动按 $C^{-1/2}$ 下降；图像变大没有帮助，因为滤波器在它的各个像素之间是共享的。
# - 起作用的是池化，无论是在位置会变的图样上，还是在真实的手写数字上（在 5 次划分上平均，0.945 对展平的 0.884）；
#   单靠局部性，效果与 MLP 差不多。核回归是无限宽网络训练后的平均；单个网络还要加上它的初始函数。
# - 感受野限制的是**影响**：在感受野之外，$\partial f_p/\partial x_q = 0$ 恰好成立。它跨越
#   $1 + (k-1)\,\delta\,(1 + s + \dots + s^{L-1})$ 个像素，而在它内部，影响呈宽度为 $\sim\sqrt L$ 的钟形。平均池化精确且线性地作用在核上；
#   最大池化没有闭式解（蒙特卡洛），除掉尺度之后，它对小的平移更宽容。

# %% [markdown]
# ## 写给教材第 4 章的读者
#
# 教材第 4.2 节对其中一些内容的说法有所不同。下面每一处更正都注明了它在勘误表中的条目。
#
# <details><summary>A7 · CNTK 的 Gram 矩阵不是 Toeplitz 矩阵</summary>
#
# **教材原文：** CNN 在数据上的 NTK Gram 矩阵是循环矩阵 / 块 Toeplitz 矩阵，$\Theta(x_i, x_j)$ 取决于 $x_i$ 和 $x_j$ 的“相对位置”。
#
# **正确的说法：** 数据下标 $i$ 不是像素下标。等变性体现在像素对核中（4.2.1，“不变性需要池化”）；数据上的 $n \times n$ Gram
# 矩阵只是普通的稠密 Gram 矩阵，没有 Toeplitz 结构（下面的检查单元格给出一个示例：8 个噪声信号的 Gram 矩阵，其次对角线上的元素并不是常数，变化幅度约为其均值的 34 %）。
# 使用 GAP 时，输出具有平移不变性，$\Theta(T_s x, x') = \Theta(x, x')$；使用展平时，只有联合平移才使它保持不变。
# [勘误 A7](../../ERRATA.zh.md#a7)
#
# </details>
#
# <details><summary>A8 · 感受野不重叠并不会使 NTK 稀疏</summary>
#
# **教材原文：** 感受野不重叠的项为零，因此 NTK 是稀疏的。
#
# **正确的说法：** 感受野互不相交并不会迫使某些项为零：某个元素为 0，只可能是输入造成的。局部性使核成为各局部图块核之和；感受野限制的是哪些像素能*影响*某个单元，
# 而不是两个单元是否相关：感受野没有任何公共像素的两个单元，它们的像素对核并不为零；使用 ReLU 时，它们的相关系数约为 0.5
# （4.2.3，“相关性并不度量感受野”）。
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
# （NNGP 见 Novak et al. 2019；NTK 的递归读取的是同样的像素对）。
# [勘误 A9](../../ERRATA.zh.md#a9)
#
# </details>
#
# <details><summary>A10 · 步长与扩张</summary>
#
# **教材原文：** 步长使核只关联固定间隔的特征，从而改变核的平滑性；扩张使核能捕捉更远像素之间的相关，并可能提高其有效维数。
#
# **正确的说法：** 步长对输出位置做下采样，扩张把滤波器的抽头拉开间距；两者都会扩大感受野，即能够影响某个单元的输入像素的集合（4.2.3）。
# 对均值不为零的激活函数，无论扩张多大，远处的像素都是相关的（ReLU 约为 0.5；均值为 0 的 erf 约为 0，见 4.2.3）。教材没有引用任何把步长与平滑性、把扩张与有效维数联系起来的结果，本课也没有给出这样的结果。
# [勘误 A10](../../ERRATA.zh.md#a10)
#
# </details>
#
# <details><summary>A12 · 最大池化的核</summary>
#
# **教材原文：** 最大池化没有简单的解析形式。
#
# **正确的说法：** 没错，但要补充一点：它的无限宽极限是存在的（Yang 2019），它的核是在各窗口上的高斯期望，目前没有已知的闭式解，
# 我们用蒙特卡洛来估计它。它是否“更尖锐”并无定论。这里的测量表明，除掉尺度之后，它对不同数字组成的图像对的排序与平均池化几乎相同
# （秩相关系数 0.96，见 4.2.3 的检查单元格），并且对小的平移更宽容。
# [勘误 A12](../../ERRATA.zh.md#a12)
#
# </details>

# %% tags=["check"]
data = torch.randn(8, 1, 1, 16, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
gram = gap_net.kernel(data).ntk
first_off_diagonal = torch.diagonal(gram, offset=1)
nh.check_between("Toeplitz needs a constant off-diagonal: its std / mean", first_off_diagonal.std()
                 / first_off_diagonal.abs().mean(), 0.1, np.inf)
nh.check_close("that std / mean, as quoted (34 %)",
               first_off_diagonal.std() / first_off_diagonal.abs().mean(), 0.34, atol=0.005)

# %% [markdown]
# **练习：** 4.2（哪些平移对称性，用哪种读出）和 4.6（最大池化的替代方案）。
#
# **下一课：** [04 · 残差网络](04_resnet.ipynb)
