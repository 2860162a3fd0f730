# %% [markdown]
# # 03 · 卷积网络：局部性、权重共享与池化
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/03_cnn.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F03_cnn.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../03_cnn.ipynb)）
#
# *教材第 4.2 节。*
#
# **本课内容**
# - 4.2.1：卷积如何作用于核：它作用在**像素对**上，而权重共享意味着两个位置按同一个滤波器偏移一起求和；
# - 为什么本章的“Toeplitz Gram 矩阵”把数据和像素混为一谈；两种读出方式有何不同：全局平均池化带来平移*不变性*，
#   展平（flatten）只保留联合平移对称性；
# - 4.2.2：CNN 核在真实图像（scikit-learn 的手写数字）和平移不变任务上的表现；
# - 4.2.3：感受野限制的是什么（哪些像素能*影响*某个单元，而不是哪些单元彼此相关）；深度、
#   步长和扩张如何扩大感受野；最大池化为什么没有闭式解。
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

import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 4.2.1 卷积的核
#
# 图像是形如 $(n, C, H, W)$ 的张量。设滤波器偏移为 $a \in S$（$|S| = k^2$），卷积计算
# $z_{c,p} = \frac{\sigma_w}{\sqrt{C|S|}} \sum_{a\in S}\sum_{c'} W_{c,c',a}\, h_{c',p+a} + \sigma_b b_c$。
# 在无限宽（通道数很多）时，每个通道都是定义在**（输入，像素）**对上的高斯过程：
#
# $$\Sigma'_{p,p'}(x,x') = \frac{\sigma_w^2}{|S|}\sum_{a\in S}
#   \mathbb E\bigl[\phi(z_{p+a}(x))\,\phi(z_{p'+a}(x'))\bigr] + \sigma_b^2 .$$
#
# 两个位置共用**同一个**偏移 $a$：不同偏移的权重相互独立，所以只有“同一偏移”的项能留下来。
# 权重共享正是从这里进入核的（Arora et al. 2019；Novak et al. 2019）。
#
# 两个长度为 16 的一维信号（高度为 1 的图像），以及经过两层卷积之后的像素对 NNGP：

# %%
signals = torch.randn(2, 1, 1, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
conv = lambda **kw: nh.conv(kernel_size=(1, 3), padding="circular", sigma_w=math.sqrt(2), **kw)
body = nh.serial(conv(), nh.relu(), conv())
pairs = body.kernel(signals[:1], signals[1:]).nngp[0, 0, 0, :, 0, :]       # (16, 16): pixel p of x, p' of x'
fig, ax = plt.subplots(figsize=(5, 4))
nh.plotting.heatmap(ax, pairs, title="pixel-pair NNGP after two convolutions", xlabel="pixel p′ of x′",
                    ylabel="pixel p of x", symmetric=True, colorbar_label="Σ_pp′(x, x′)")
ax.set_xticks(range(0, 16, 3))
ax.set_yticks(range(0, 16, 3))
plt.show()

# %% [markdown]
# **等变性体现在这个像素对张量里。** 采用循环填充（circular padding）时，把*两个*信号同时平移 $s$，
# 张量就沿对角线方向滚动：$\Sigma_{p+s,p'+s}(T_s x, T_s x') = \Sigma_{p,p'}(x,x')$。

# %%
shift = lambda x, s: torch.roll(x, s, dims=-1)
shifted = body.kernel(shift(signals[:1], 5), shift(signals[1:], 5)).nngp[0, 0, 0, :, 0, :]
rolled = torch.roll(pairs, (5, 5), dims=(0, 1))
error = float((shifted - rolled).abs().max() / pairs.abs().max())
assert error < 1e-12, f"joint shift: expected the rolled tensor (relative error < 1e-12), got {error:.1e}"
print("joint shift by 5 = rolling the pixel-pair tensor by (5, 5): equal up to rounding (relative 1e-12)")

# %% [markdown]
# ## 不变性需要池化
#
# > **教材原文：** 在数据上计算的 NTK 矩阵呈现「循环/块-Toeplitz 结构」，$\Theta(x_i, x_j)$「主要依赖于 $x_i$
# > 和 $x_j$ 在图像中的相对位置关系（位移）」，而感受野不重叠的项为零，「这在一定程度上反映了 NTK
# > 矩阵的结构化稀疏性」。  
# > **正确的说法：** 数据下标 $i$ 不是像素下标：$n\times n$ 的 Gram 矩阵只是普通的稠密 Gram 矩阵，没有任何
# > Toeplitz 结构。平移对称性是**读出层**的性质：使用全局平均池化（GAP）时，输出具有平移不变性，
# > $\Theta(T_s x, x') = \Theta(x, x')$；使用展平时，只有*联合*平移才使它保持不变，
# > $\Theta(T_s x, T_s x') = \Theta(x, x')$。局部性使核成为各局部图块（patch）核之和，而不是使它变成稀疏矩阵。
# > （[勘误 A7](../../ERRATA.zh.md#a7)，[勘误 A8](../../ERRATA.zh.md#a8)）
#
# 把其中一个信号平移 $s$，观察两者之间的 NTK 如何变化：

# %%
gap_net = nh.serial(body, nh.relu(), nh.global_avg_pool(), nh.dense(1))
flat_net = nh.serial(body, nh.relu(), nh.flatten(), nh.dense(1))
x, x_prime = signals[:1], signals[1:]
shifts = list(range(16))
change = {}
for name, net in [("GAP", gap_net), ("flatten", flat_net)]:
    base = net.kernel(x, x_prime).ntk[0, 0]
    change[name] = [float((net.kernel(shift(x, s), x_prime).ntk[0, 0] - base) / base) for s in shifts]

fig, ax = plt.subplots()
for name, values in change.items():
    ax.plot(shifts, values, "o-", label=name)
ax.set_xlabel("shift s of x (pixels)")
ax.set_ylabel("relative change of Θ(T_s x, x′)")
ax.legend()
plt.show()

# %%
base = flat_net.kernel(x, x_prime).ntk[0, 0]
joint = float(flat_net.kernel(shift(x, 3), shift(x_prime, 3)).ntk[0, 0] / base - 1)
gap_change, flat_change = max(map(abs, change["GAP"])), max(map(abs, change["flatten"]))
print(f"largest relative change: GAP below 1e-12: {gap_change < 1e-12}; flatten {flat_change:.2f}; "
      f"flatten under a joint shift below 1e-12: {abs(joint) < 1e-12}")
assert gap_change < 1e-12, f"GAP: expected relative change 0 (< 1e-12), measured {gap_change:.1e}"
assert flat_change > 1e-2, f"flatten: expected a relative change > 0.01, measured {flat_change:.3f}"
assert abs(joint) < 1e-12, f"flatten, joint shift: expected relative change 0 (< 1e-12), measured {joint:.1e}"

# %% [markdown]
# 那么数据集上的 Gram 矩阵呢？次对角线（offset = 1，紧邻主对角线）上的元素并不是常数，
# 因为数据点 $i$ 与数据点 $i+1$ 之间并没有任何联系：

# %%
data = torch.randn(8, 1, 1, 16, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
gram = gap_net.kernel(data).ntk
first_off_diagonal = torch.diagonal(gram, offset=1)
spread = float(first_off_diagonal.std() / first_off_diagonal.abs().mean())
smallest = float(gram.abs().min() / gram.abs().max())
print("first off-diagonal:", first_off_diagonal.numpy().round(3))
print(f"its spread (std / mean) {spread:.2f}; smallest Gram matrix entry / largest {smallest:.2f}: dense")
assert spread > 0.1, f"Toeplitz needs a constant off-diagonal: expected spread > 0.1, measured {spread:.3f}"
assert smallest > 1e-3, f"dense Gram matrix: expected every |entry| > 1e-3 x largest, measured {smallest:.1e}"

# %% [markdown]
# ### 展平丢掉了权重共享
#
# 展平之后，全连接读出层给每个像素各配一组权重，所以只有同一位置的像素对 $p = p'$ 能到达输出，
# 而卷积递归在计算这些对角元时从不用到 $p \neq p'$ 的元素。
# 由此得到的核就是滤波器不共享的*局部连接*网络的核（Novak et al. 2019）：没有池化时，
# 权重共享不会改变无限宽极限下的核。实验：在*输入*核中抹去所有 $p \neq p'$ 的像素对，再运行同样的架构。
# 展平察觉不到任何差别，GAP 则能察觉。

# %%
exact = nh.Kernel.from_inputs(x, x_prime)
wiped = nh.spatial.same_position_pairs_only(exact)
for name, net in [("flatten", flat_net), ("GAP", gap_net)]:
    a, b = net.transform(exact).ntk[0, 0], net.transform(wiped).ntk[0, 0]
    print(f"{name:>7}: NTK {float(a):.4f}, with p ≠ p′ pairs wiped {float(b):.4f}")
relative = lambda net: float(abs(net.transform(wiped).ntk[0, 0] / net.transform(exact).ntk[0, 0] - 1))
assert relative(flat_net) < 1e-12, f"flatten: expected no change (< 1e-12), measured {relative(flat_net):.1e}"
assert relative(gap_net) > 1e-2, f"GAP: expected a relative change > 0.01, measured {relative(gap_net):.3f}"

# %% [markdown]
# ## 4.2.2 这有影响吗？两个任务
#
# **平移不变的任务。** 输入是长度为 16 的噪声信号，正类信号在某个位置含有图样 (2, −2, 2)。在 80
# 个训练信号上用 NTK 做核回归：$\Theta(x, X)\,\Theta(X, X)^{-1} y$。它是无限宽网络（梯度流、平方损失）
# 训练到收敛后、对随机初始化取平均得到的**平均**预测。单个训练好的网络还带有它自己的随机初始函数
# $f_0$（协方差为 NNGP 核、均值为 0 的高斯过程）：它的预测是
# $f_0(x) + \Theta(x, X)\,\Theta(X,X)^{-1}\bigl(y - f_0(X)\bigr)$（Lee et al. 2019），只有当 $f_0 = 0$
# 时才与核回归相同。

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
    ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
    plt.show()

draw_accuracy(motif_accuracy, "motif detection, 80 training signals", chance=0.5)

# %%
for other in ("CNN + flatten", "MLP"):
    assert motif_accuracy["CNN + GAP"] > motif_accuracy[other] + 0.1, \
        f"expected CNN + GAP ahead of {other} by > 0.1, measured {motif_accuracy['CNN + GAP']:.3f} vs " \
        f"{motif_accuracy[other]:.3f}"

# %% [markdown]
# **真实图像。** scikit-learn 自带 1797 张 8 × 8 像素的手写数字图像（无需下载）。我们使用 100
# 张训练图像、10 个类别（one-hot 目标）和 200 张测试图像。下一个单元格要在 300 张图像上计算两个 CNN 核，
# 只需几秒（在一次会话中，第一次计算带池化的 CNN 核时还要先编译一次融合代码，会再多花几秒）。
# 每个 CNN 各有一个进度条，统计核中已经算完的部分。

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

# %%
draw_accuracy(digit_accuracy, "digits, 100 training images", chance=0.1)

# %%
best_other = max(digit_accuracy["MLP"], digit_accuracy["CNN + flatten"])
assert digit_accuracy["CNN + GAP"] > best_other + 0.03, \
    f"expected CNN + GAP ahead by > 0.03, measured {digit_accuracy['CNN + GAP']:.3f} vs {best_other:.3f}"

# %% [markdown]
# 在这里，仅靠局部性（CNN + 展平）比 MLP 好不了多少；样本很少时，真正起作用的是池化，
# 它在各个位置之间共享统计量。
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
# > **教材原文：** 步长使网络「只考虑特定间隔的特征点之间的关系，从而影响核的平滑性」；扩张卷积使
# > NTK「能够捕捉到更远距离的像素相关性，从而可能增加核的有效维数」。  
# > **正确的说法：** 步长对输出位置做下采样，扩张把滤波器的抽头拉开间距；两者都会扩大感受野，
# > 即能够影响某个单元的输入像素的集合。无论扩张多大，远处的像素都是相关的（见下文：
# > 单是激活函数的均值就能造成相关）；也没有任何结果把步长与平滑性、把扩张与有效维数联系起来。
# > （[勘误 A10](../../ERRATA.zh.md#a10)）
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
# 感受野为 7 个像素，相距超过 6 个像素的单元感受野互不相交（灰色区域表示感受野重叠）。

# %%
noise = torch.randn(64, 1, 1, 32, generator=torch.Generator().manual_seed(2), dtype=torch.float64)

def correlation_with_middle(arch, middle=16):
    """Correlation of the last layer's unit at pixel `middle` with the one at each pixel (mean over noise)."""
    var = torch.cat([arch.kernel(x[None]).var1 for x in noise])[:, 0, :, 0, :]    # (64, 32, 32): Σ_pp′(x, x)
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
ax.legend()
plt.show()

# %%
relu_far, erf_far = correlation["ReLU"][far], correlation["erf"][far]
print(f"units with disjoint receptive fields: ReLU correlation {relu_far.mean():.2f} on average "
      f"(smallest {relu_far.min():.2f}); erf {erf_far.mean():.3f} (largest |r| {erf_far.abs().max():.2f})")
assert relu_far.min() > 0.25, f"ReLU: expected all far correlations > 0.25, measured min {relu_far.min():.3f}"
assert abs(erf_far.mean()) < 0.05, f"erf: expected a far correlation mean 0 ± 0.05, got {erf_far.mean():.3f}"

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

print("depth  dilation  stride | middle unit: span (formula), pixels that influence it")
for depth, dilation, stride in [(1, 1, 1), (2, 1, 1), (4, 1, 1), (2, 2, 1), (4, 2, 1), (2, 1, 2), (4, 1, 2)]:
    arch = conv_stack(depth, dilation=dilation, stride=stride, out_last=1)
    s = sensitivity(arch, signal)
    paths = nh.receptive_field(arch, (1, 64))[0, :, 0, :]             # (P_out, 64) path counts
    outside = int((s[paths == 0] != 0).sum())
    assert outside == 0, f"expected sensitivity 0 outside the receptive field, got {outside} nonzero entries"
    zeros = int((s[paths > 0] == 0).sum())
    assert zeros == 0, f"expected nonzero sensitivity inside the receptive field, {zeros} entries are 0"
    influence = (s[s.shape[0] // 2] != 0).nonzero().flatten()
    span = int(influence[-1] - influence[0] + 1)
    formula = 1 + 2 * dilation * sum(stride ** l for l in range(depth))          # k = 3 taps
    assert span == formula, f"receptive field span: expected {formula} pixels, measured {span}"
    print(f"{depth:5d} {dilation:9d} {stride:7d} | {span:3d} ({formula:3d}), {len(influence):3d}")

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
ax.legend()
plt.show()

# %%
for depth, (measured, predicted) in effective.items():
    total, spread = float(measured.sum()), float(((measured * offsets ** 2).sum() / measured.sum()).sqrt())
    print(f"depth {depth}: total influence {total:.2f} (exact: 2), width {spread:.2f} "
          f"(sqrt(2L/3) = {math.sqrt(2 * depth / 3):.2f}), receptive field half-width {depth}")
    assert abs(total - 2) < 0.4, f"depth {depth}: expected total influence 2 ± 0.4, measured {total:.3f}"
    assert abs(spread / math.sqrt(2 * depth / 3) - 1) < 0.08, \
        f"depth {depth}: expected width {math.sqrt(2 * depth / 3):.3f} ± 8%, measured {spread:.3f}"

# %% [markdown]
# ### 动手探索
#
# 网络只有一个输出通道，输入是 64 个像素的信号。图中画出每个输出单元 $p$（行）对每个输入像素 $q$（列）的
# $|\partial f_p/\partial x_q|$，以最大元素为基准取对数刻度。白色表示恰好为零，即位于感受野之外。步长 2
# 使每一层的输出单元数减半；深度为 5–6 时只剩下一两个单元，每个单元几乎覆盖整个信号（交互探索会打印说明）。

# %%
def draw_receptive_field(depth, dilation, stride):
    arch = conv_stack(depth, dilation=dilation, stride=stride, out_last=1)
    s = sensitivity(arch, signal).abs()
    paths = nh.receptive_field(arch, (1, 64))[0, :, 0, :]
    n_out, p = s.shape[0], s.shape[0] // 2
    units = f"{n_out} output unit" + ("s" if n_out > 1 else "")
    shown = (s / s.max()).log10().where(s > 0, torch.nan)                    # exactly 0: left blank
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    nh.plotting.heatmap(ax, shown, title=f"depth {depth}, dilation {dilation}, stride {stride}: {units}",
                        xlabel="input pixel q", ylabel="output unit p", vmin=-4, vmax=0,
                        colorbar_label="log₁₀ |∂f_p/∂x_q| (0 = largest)")
    ax.set_aspect("auto")
    ax.set_yticks(range(0, n_out, max(1, n_out // 8)))
    influence = (s[p] > 0).nonzero().flatten()
    low, high = int(influence[0]), int(influence[-1])
    formula = 1 + 2 * dilation * sum(stride ** l for l in range(depth))
    agrees = bool(((s > 0) == (paths > 0)).all())
    others = "every other pixel has sensitivity exactly 0" if len(influence) < 64 else "that is every pixel"
    print(f"{units}. Unit p = {p} is influenced by {len(influence)} of the 64 pixels, spanning {low}–{high}; "
          f"{others} (the zeros are where nh.receptive_field predicts: {agrees}).")
    if len(influence) < high - low + 1:
        print(f"Holes: with dilation {dilation} in every layer, all offsets are multiples of {dilation}.")
    if high - low + 1 < formula:
        print(f"The receptive field would span {formula} pixels; the borders (zero padding) cut it off.")
    if n_out <= 2:
        print(f"Stride {stride} in each of {depth} layers has shrunk 64 pixels to {units}: "
              f"the map has {n_out} row{'s' if n_out > 1 else ''}.")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_receptive_field, depth=nh.widgets.depth_slider(3, max=6),
                       dilation=nh.widgets.int_slider("dilation", 1, min=1, max=4),
                       stride=nh.widgets.int_slider("stride", 1, min=1, max=2))

# %% [markdown]
# ## 最大池化与平均池化
#
# 平均池化是固定的线性映射 $A$：它对核的作用是 $K \mapsto A K A^\top$，而且是精确的。
# 最大池化则对每个通道、每个输入各自选出不同的位置。它的无限宽核是存在的（Tensor Programs 框架涵盖窗口上的取最大值运算，Yang 2019），
# 但它是对整个窗口的高斯期望，没有闭式解（neural-tangents 不支持它，会直接报错），
# 所以我们用有限宽网络来估计它（蒙特卡洛方法）。

# %%
images = x_tr[:12]
head = [nh.flatten(), nh.dense(512)]
average = nh.serial(square(), nh.relu(), nh.avg_pool(2), *head).kernel(images).nngp
maximum = nh.monte_carlo_kernel(nh.serial(square(), nh.relu(), nh.max_pool(2), *head), images,
                                width=256, n_networks=4, ntk=False)
fig, ax = plt.subplots(figsize=(4.8, 4.2))
ax.errorbar(average.flatten(), maximum.nngp.flatten(), yerr=2 * maximum.nngp_sem.flatten(), fmt="o", ms=4,
            label="kernel entries (± 2 standard errors)")
lims = [0, float(max(average.max(), maximum.nngp.max()))]
ax.plot(lims, lims, "k--", lw=1, label="max = average")
ax.set_xlabel("NNGP with average pooling (exact)")
ax.set_ylabel("NNGP with max pooling (Monte Carlo)")
ax.legend()
plt.show()

# %%
gap = float((maximum.nngp - average).norm() / average.norm())
print(f"relative difference max vs average pooling: {gap:.2f}")
assert gap > 0.1, f"expected max and average pooling kernels to differ by > 10%, measured {gap:.3f}"

# %% [markdown]
# ## 小结
#
# - 卷积作用在像素对协方差上，并对滤波器偏移做共享的求和。
# - 等变性是像素对张量的性质；数据的 Gram 矩阵没有 Toeplitz 结构。全局平均池化使核具有平移**不变性**；展平
#   只保留同一位置的像素对，这使权重共享变得无关紧要（得到局部连接网络的核）。
# - 在小规模的平移不变任务和真实手写数字上，带来收益的是池化。核回归是训练后无限宽网络的平均；
#   单个网络还要加上它的初始函数。
# - 感受野限制的是**影响**：单元对感受野之外像素的敏感度恰好为零。感受野的跨度是
#   $1 + (k-1)\,\delta\,(1 + s + \dots + s^{L-1})$ 个像素；在其内部，影响呈宽度为 $\sim\sqrt L$ 的钟形。
#   单元之间的相关性不能说明感受野：ReLU 的均值会使相距很远的单元相关。
# - 平均池化是线性的、精确的；最大池化需要蒙特卡洛方法。
#
# **练习：** 4.2（哪些平移对称性，用哪种读出层）和 4.6（最大池化的替代方案）。
#
# **下一课：** [04 · 残差网络](04_resnet.ipynb)
