# %% [markdown]
# # 03 · Convolutional networks: locality, weight sharing, pooling
#
# *Chapter 4.2.*
#
# **You will learn**
# - 4.2.1: what a convolution does to the kernel: it acts on **pixel pairs**, and weight sharing means a
#   shared sum over filter offsets;
# - why the chapter's "Toeplitz Gram matrix" confuses data with pixels, and which readout gives shift
#   *invariance* (global average pooling) and which only joint-shift symmetry (flatten);
# - 4.2.2: CNN kernels on real images (scikit-learn's digits) and on a shift-invariant task;
# - 4.2.3: stride, dilation, and why max pooling has no closed form.
#
# **Prerequisites:** lessons 01–02.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 4.2.1 The kernel of a convolution
#
# Images are tensors $(n, C, H, W)$. A convolution with filter offsets $a \in S$ ($|S| = k^2$) computes
# $z_{c,p} = \frac{\sigma_w}{\sqrt{C|S|}} \sum_{a\in S}\sum_{c'} W_{c,c',a}\, h_{c',p+a} + \sigma_b b_c$.
# At infinite width (many channels) each channel is a Gaussian process over **(input, pixel)** pairs:
#
# $$\Sigma'_{p,p'}(x,x') = \frac{\sigma_w^2}{|S|}\sum_{a\in S} \mathbb E\bigl[\phi(z_{p+a}(x))\,\phi(z_{p'+a}(x'))\bigr] + \sigma_b^2 .$$
#
# The offset $a$ is **shared** by both positions: different offsets have independent weights, so only
# "same offset" terms survive. That is where weight sharing enters (Arora et al. 2019; Novak et al. 2019).
#
# Two 1-D signals of length 16 (images of height 1) and the pixel-pair NNGP after two conv layers:

# %%
signals = torch.randn(2, 1, 1, 16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
conv = lambda **kw: nh.conv(kernel_size=(1, 3), padding="circular", sigma_w=math.sqrt(2), **kw)
body = nh.serial(conv(), nh.relu(), conv())
pairs = body.kernel(signals[:1], signals[1:]).nngp[0, 0, 0, :, 0, :]       # (16, 16): pixel p of x, p' of x'
fig, ax = plt.subplots(figsize=(4.6, 4))
nh.plotting.heatmap(ax, pairs, title="Σ_pp′(x, x′) after two convs", symmetric=True)
plt.show()

# %% [markdown]
# **Equivariance lives in this pixel-pair tensor.** With circular padding, shifting *both* signals by $s$ rolls
# the tensor along its diagonal: $\Sigma_{p+s,p'+s}(T_s x, T_s x') = \Sigma_{p,p'}(x,x')$.

# %%
shift = lambda x, s: torch.roll(x, s, dims=-1)
shifted = body.kernel(shift(signals[:1], 5), shift(signals[1:], 5)).nngp[0, 0, 0, :, 0, :]
assert torch.allclose(shifted, torch.roll(pairs, (5, 5), dims=(0, 1)), atol=1e-12)
print("joint shift by 5 = rolling the pixel-pair tensor by (5, 5): checked")

# %% [markdown]
# ## Invariance needs pooling
#
# > **The text says:** a CNN's NTK Gram matrix over data is circulant / block-Toeplitz, $\Theta(x_i, x_j)$ depends
# > on the "relative position" of $x_i$ and $x_j$, and non-overlapping receptive fields make it sparse.  
# > **What is true:** the data index $i$ is not a pixel index: the $n\times n$ Gram matrix is an ordinary dense
# > Gram matrix with no Toeplitz structure. Shift symmetry is a property of the **readout**:
# > with global average pooling (GAP) the output is invariant, $\Theta(T_s x, x') = \Theta(x, x')$; with flatten
# > only *joint* shifts leave it unchanged, $\Theta(T_s x, T_s x') = \Theta(x, x')$.
#
# Shift one signal by $s$ and watch the NTK between the two:

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
joint = float(flat_net.kernel(shift(x, 3), shift(x_prime, 3)).ntk[0, 0] / flat_net.kernel(x, x_prime).ntk[0, 0] - 1)
print(f"largest change: GAP below 1e-12: {max(map(abs, change['GAP'])) < 1e-12}; flatten "
      f"{max(map(abs, change['flatten'])):.2f}; flatten under a joint shift below 1e-12: {abs(joint) < 1e-12}")
assert max(map(abs, change["GAP"])) < 1e-12 < 1e-2 < max(map(abs, change["flatten"])) and abs(joint) < 1e-12

# %% [markdown]
# And the Gram matrix over a data set? Its first off-diagonal is not constant, because nothing relates data
# point $i$ to data point $i+1$:

# %%
data = torch.randn(8, 1, 1, 16, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
gram = gap_net.kernel(data).ntk
first_off_diagonal = torch.diagonal(gram, offset=1)
print("first off-diagonal:", first_off_diagonal.numpy().round(3))
assert first_off_diagonal.std() / first_off_diagonal.abs().mean() > 0.1 and (gram.abs() > 1e-3).all()

# %% [markdown]
# ### Flatten forgets weight sharing
#
# After flatten, a dense readout gives every pixel its own weights, so only same-position pairs $p = p'$ reach
# the output, and the conv recursion on those diagonal entries never looks at $p \neq p'$. The resulting kernel
# is that of a *locally connected* network with unshared filters (Novak et al. 2019): without pooling, weight
# sharing does not change the infinite-width kernel. The experiment: wipe every pair with $p \neq p'$ from the
# *input* kernel and run the same architectures. Flatten does not notice; GAP does.

# %%
exact = nh.Kernel.from_inputs(x, x_prime)
wiped = nh.spatial.same_position_pairs_only(exact)
for name, net in [("flatten", flat_net), ("GAP", gap_net)]:
    a, b = net.transform(exact).ntk[0, 0], net.transform(wiped).ntk[0, 0]
    print(f"{name:>7}: NTK {float(a):.4f}, with p ≠ p′ pairs wiped {float(b):.4f}")
assert torch.isclose(flat_net.transform(wiped).ntk, flat_net.transform(exact).ntk, rtol=1e-12).all()
assert not torch.isclose(gap_net.transform(wiped).ntk, gap_net.transform(exact).ntk, rtol=1e-2).all()

# %% [markdown]
# ## 4.2.2 Does it matter? Two tasks
#
# **A shift-invariant task.** Noise signals of length 16; the positive ones carry the motif (2, −2, 2) somewhere.
# Kernel regression with the NTK (an infinitely wide network trained to convergence) on 80 training signals:

# %%
x_train, y_train = nh.motif_sequences(80, seed=0)
x_test, y_test = nh.motif_sequences(200, seed=1)

def ntk_accuracy(net, train, test, targets, labels, flat_inputs=False):
    """Kernel regression with the NTK; accuracy of the sign (2 classes) or argmax (one-hot targets)."""
    if flat_inputs:
        train, test = train.flatten(1), test.flatten(1)
    n = train.shape[0]
    K = net.kernel(torch.cat([train, test]), block_size=25).ntk
    prediction = nh.kernel_regression(K[:n, :n], K[n:, :n], targets)
    guess = prediction.sign() if prediction.ndim == 1 else prediction.argmax(1)
    return float((guess == labels).double().mean())

motif_nets = {"MLP": (nh.mlp(2), True), "CNN + flatten": (flat_net, False), "CNN + GAP": (gap_net, False)}
motif_accuracy = {name: ntk_accuracy(net, x_train, x_test, y_train, y_test, flat)
                  for name, (net, flat) in motif_nets.items()}
print({name: round(acc, 3) for name, acc in motif_accuracy.items()})

# %%
def draw_accuracy(accuracy, title):
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    ax.bar(list(accuracy), list(accuracy.values()), color=nh.plotting.PALETTE[:len(accuracy)])
    ax.set_ylim(0.5, 1.0)
    ax.set_ylabel("test accuracy")
    ax.set_title(title)
    plt.show()

draw_accuracy(motif_accuracy, "motif detection, 80 training signals")

# %%
assert motif_accuracy["CNN + GAP"] > motif_accuracy["CNN + flatten"] + 0.1
assert motif_accuracy["CNN + GAP"] > motif_accuracy["MLP"] + 0.1

# %% [markdown]
# **Real images.** scikit-learn ships 1797 handwritten digits of 8 × 8 pixels (nothing is downloaded). With 100
# training images, 10 classes (one-hot targets), 200 test images:

# %%
x_tr, y_tr, labels_tr, x_te, y_te, labels_te = nh.digits(100, 200, seed=0)
square = lambda **kw: nh.conv(sigma_w=math.sqrt(2), **kw)
digit_nets = {
    "MLP": (nh.mlp(1), True),
    "CNN + flatten": (nh.serial(square(), nh.relu(), square(), nh.relu(), nh.flatten(), nh.dense(1)), False),
    "CNN + GAP": (nh.serial(square(), nh.relu(), square(), nh.relu(), nh.global_avg_pool(), nh.dense(1)), False),
}
digit_accuracy = {name: ntk_accuracy(net, x_tr, x_te, y_tr, labels_te, flat) for name, (net, flat) in digit_nets.items()}
print({name: round(acc, 3) for name, acc in digit_accuracy.items()})

# %%
draw_accuracy(digit_accuracy, "digits, 100 training images")

# %%
assert digit_accuracy["CNN + GAP"] > max(digit_accuracy["MLP"], digit_accuracy["CNN + flatten"]) + 0.03

# %% [markdown]
# Locality alone (CNN + flatten) buys little over the MLP here; pooling, which shares statistics across
# positions, is what helps with few examples.
#
# ## 4.2.3 Stride, dilation, receptive fields
#
# Stride $s$ keeps every $s$-th output position; dilation $\delta$ spaces the filter taps $\delta$ apart. Both
# enlarge the **receptive field**. You can see it in the pixel-pair kernel averaged over random inputs: pixels
# $p, p'$ are correlated only if their receptive fields overlap.
#
# Padding convention: `padding="same"` pads $\delta(k-1)$ zeros in total, the smaller half on the left, like
# PyTorch's `nn.Conv2d(padding=k//2)`. For stride 2 this differs from neural-tangents/XLA "SAME", which puts the
# extra zero on the right; the package's kernel and its networks use the same convention.

# %%
noise = torch.randn(64, 1, 1, 32, generator=torch.Generator().manual_seed(2), dtype=torch.float64)

def draw_receptive_field(depth, dilation, stride):
    layers = []
    for _ in range(depth):
        layers += [nh.conv(kernel_size=(1, 3), dilation=(1, dilation), stride=(1, stride), sigma_w=math.sqrt(2)), nh.relu()]
    k = nh.serial(*layers).kernel(noise)
    mean_pairs = k.var1.mean(0)[0, :, 0, :]                      # (P, P): average over the 64 inputs
    fig, ax = plt.subplots(figsize=(4.6, 4))
    nh.plotting.heatmap(ax, nh.normalize(mean_pairs), title=f"depth {depth}, dilation {dilation}, stride {stride}")
    width = int((nh.normalize(mean_pairs)[mean_pairs.shape[0] // 2] > 0.45).sum())
    print(f"output length {mean_pairs.shape[0]}; pixels correlated > 0.45 with the middle one: {width}")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_receptive_field, depth=nh.widgets.depth_slider(2, max=6),
                       dilation=nh.widgets.int_slider("dilation", 1, min=1, max=4),
                       stride=nh.widgets.int_slider("stride", 1, min=1, max=2))

# %% [markdown]
# ## Max pooling vs average pooling
#
# Average pooling is a fixed linear map $A$: on kernels $K \mapsto A K A^\top$, exact. Max pooling picks a
# different position for every channel and input: its kernel is a Gaussian expectation over the whole window
# with no closed form (neural-tangents refuses it), so we estimate it from finite networks (Monte Carlo).

# %%
images = x_tr[:12]
head = [nh.flatten(), nh.dense(512)]
average = nh.serial(square(), nh.relu(), nh.avg_pool(2), *head).kernel(images).nngp
maximum = nh.monte_carlo_kernel(nh.serial(square(), nh.relu(), nh.max_pool(2), *head), images,
                                width=256, n_networks=4, ntk=False)
fig, ax = plt.subplots(figsize=(4.8, 4.2))
ax.errorbar(average.flatten(), maximum.nngp.flatten(), yerr=2 * maximum.nngp_sem.flatten(), fmt="o", ms=4)
lims = [0, float(max(average.max(), maximum.nngp.max()))]
ax.plot(lims, lims, "k--", lw=1)
ax.set_xlabel("NNGP with average pooling (exact)")
ax.set_ylabel("NNGP with max pooling (Monte Carlo)")
plt.show()

# %%
gap = float((maximum.nngp - average).norm() / average.norm())
print(f"relative difference max vs average pooling: {gap:.2f}")
assert gap > 0.1

# %% [markdown]
# ## Summary
#
# - Convolutions act on pixel-pair covariances with a shared sum over filter offsets.
# - Equivariance is a property of the pixel-pair tensor; the data Gram matrix has no Toeplitz structure.
#   Global average pooling makes the kernel shift **invariant**; flatten keeps only same-position pairs, which
#   makes weight sharing irrelevant (the locally connected kernel).
# - Pooling is what pays off on small shift-invariant tasks and on real digits.
# - Average pooling is linear and exact; max pooling needs Monte Carlo.
#
# **Exercises:** 4.2 (which shift symmetries, which readout) and 4.6 (alternatives to max pooling).
