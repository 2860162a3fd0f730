# %% [markdown]
# # 03 · Convolutional networks: locality, weight sharing, pooling
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/03_cnn.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F03_cnn.ipynb)
#
# *Chapter 4.2.*
#
# **You will learn**
# - 4.2.1: what a convolution does to the kernel: it acts on **pixel pairs**, and weight sharing means a
#   shared sum over filter offsets;
# - why the chapter's "Toeplitz Gram matrix" confuses data with pixels, and which readout gives
#   shift *invariance* (global average pooling) and which only joint-shift symmetry (flatten);
# - 4.2.2: CNN kernels on real images (scikit-learn's digits) and on a shift-invariant task;
# - 4.2.3: what a receptive field limits (which pixels can *influence* a unit, not which units correlate), how
#   depth, stride and dilation grow it, and why max pooling has no closed form.
#
# **Prerequisites:** lessons 01–02.

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
# ## 4.2.1 The kernel of a convolution
#
# Images are tensors $(n, C, H, W)$. A convolution with filter offsets $a \in S$ ($|S| = k^2$) computes
# $z_{c,p} = \frac{\sigma_w}{\sqrt{C|S|}} \sum_{a\in S}\sum_{c'} W_{c,c',a}\, h_{c',p+a} + \sigma_b b_c$. At
# infinite width (many channels) each channel is a Gaussian process over **(input, pixel)** pairs:
#
# $$\Sigma'_{p,p'}(x,x') = \frac{\sigma_w^2}{|S|}\sum_{a\in S}
#   \mathbb E\bigl[\phi(z_{p+a}(x))\,\phi(z_{p'+a}(x'))\bigr] + \sigma_b^2 .$$
#
# The offset $a$ is **shared** by both positions: different offsets have independent weights, so only "same
# offset" terms survive. That is where weight sharing enters (Arora et al. 2019; Novak et al. 2019).
#
# Two 1-D signals of length 16 (images of height 1) and the pixel-pair NNGP after two conv layers:

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
# **Equivariance lives in this pixel-pair tensor.** With circular padding, shifting *both* signals by $s$
# rolls the tensor along its diagonal: $\Sigma_{p+s,p'+s}(T_s x, T_s x') = \Sigma_{p,p'}(x,x')$.

# %%
shift = lambda x, s: torch.roll(x, s, dims=-1)
shifted = body.kernel(shift(signals[:1], 5), shift(signals[1:], 5)).nngp[0, 0, 0, :, 0, :]
rolled = torch.roll(pairs, (5, 5), dims=(0, 1))
error = float((shifted - rolled).abs().max() / pairs.abs().max())
assert error < 1e-12, f"joint shift: expected the rolled tensor (relative error < 1e-12), got {error:.1e}"
print("joint shift by 5 = rolling the pixel-pair tensor by (5, 5): equal up to rounding (relative 1e-12)")

# %% [markdown]
# ## Invariance needs pooling
#
# > **The text says:** a CNN's NTK Gram matrix over data is circulant / block-Toeplitz, $\Theta(x_i, x_j)$
# > depends on the "relative position" of $x_i$ and $x_j$, and non-overlapping receptive fields make it
# > sparse.  
# > **What is true:** the data index $i$ is not a pixel index: the $n\times n$ Gram matrix is an ordinary
# > dense Gram matrix with no Toeplitz structure. Shift symmetry is a property of the **readout**: with global
# > average pooling (GAP) the output is invariant, $\Theta(T_s x, x') = \Theta(x, x')$; with flatten
# > only *joint* shifts leave it unchanged, $\Theta(T_s x, T_s x') = \Theta(x, x')$. Locality makes the kernel
# > a sum of local patch kernels, not a sparse matrix. ([errata A7](../ERRATA.md#a7),
# > [errata A8](../ERRATA.md#a8))
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
base = flat_net.kernel(x, x_prime).ntk[0, 0]
joint = float(flat_net.kernel(shift(x, 3), shift(x_prime, 3)).ntk[0, 0] / base - 1)
gap_change, flat_change = max(map(abs, change["GAP"])), max(map(abs, change["flatten"]))
print(f"largest relative change: GAP below 1e-12: {gap_change < 1e-12}; flatten {flat_change:.2f}; "
      f"flatten under a joint shift below 1e-12: {abs(joint) < 1e-12}")
assert gap_change < 1e-12, f"GAP: expected relative change 0 (< 1e-12), measured {gap_change:.1e}"
assert flat_change > 1e-2, f"flatten: expected a relative change > 0.01, measured {flat_change:.3f}"
assert abs(joint) < 1e-12, f"flatten, joint shift: expected relative change 0 (< 1e-12), measured {joint:.1e}"

# %% [markdown]
# And the Gram matrix over a data set? Its first off-diagonal is not constant, because nothing relates data
# point $i$ to data point $i+1$:

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
# ### Flatten forgets weight sharing
#
# After flatten, a dense readout gives every pixel its own weights, so only same-position pairs $p = p'$ reach
# the output, and the conv recursion on those diagonal entries never looks at $p \neq p'$. The resulting
# kernel is that of a *locally connected* network with unshared filters (Novak et al. 2019): without pooling,
# weight sharing does not change the infinite-width kernel. The experiment: wipe every pair with $p \neq p'$
# from the *input* kernel and run the same architectures. Flatten does not notice; GAP does.

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
# ## 4.2.2 Does it matter? Two tasks
#
# **A shift-invariant task.** Noise signals of length 16; the positive ones carry the motif (2, −2, 2)
# somewhere. Kernel regression with the NTK on 80 training signals, $\Theta(x, X)\,\Theta(X, X)^{-1} y$. That
# is the **mean** prediction of infinitely wide networks trained to convergence (gradient flow, squared loss),
# averaged over their random initializations. One trained network adds its own random initial function $f_0$
# (a Gaussian process with the NNGP kernel and mean 0): it predicts
# $f_0(x) + \Theta(x, X)\,\Theta(X,X)^{-1}\bigl(y - f_0(X)\bigr)$ (Lee et al. 2019), which equals kernel
# regression only when $f_0 = 0$.

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
# **Real images.** scikit-learn ships 1797 handwritten digits of 8 × 8 pixels (nothing is downloaded). With
# 100 training images, 10 classes (one-hot targets), 200 test images. The next cell computes two CNN kernels
# over 300 images: a few seconds (the first pooled CNN kernel in a session also compiles its fused code once,
# a few seconds more). A progress bar for each CNN counts the pieces of the kernel it has finished.

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
# Locality alone (CNN + flatten) buys little over the MLP here; pooling, which shares statistics across
# positions, is what helps with few examples.
#
# ## 4.2.3 Stride, dilation, receptive fields
#
# Stride $s$ keeps every $s$-th output position; dilation $\delta$ spaces the filter taps $\delta$ apart.
# The **receptive field** of a unit is the set of input pixels that can influence it. With filters of $k$
# taps, $L$ layers, the same $\delta$ and $s$ in every layer, it spans
#
# $$1 + (k-1)\,\delta\,\bigl(1 + s + s^2 + \dots + s^{L-1}\bigr) \text{ pixels:}$$
#
# depth adds to it, dilation multiplies each layer's contribution, stride multiplies the contribution of every
# layer above it.
#
# > **The text says:** stride makes the kernel relate only features at fixed intervals, which changes its
# > smoothness; dilation lets the kernel capture correlations between more distant pixels and may raise its
# > effective dimension.  
# > **What is true:** stride subsamples the output positions and dilation spaces the filter taps; both enlarge
# > the receptive field, the set of input pixels that can influence a unit. Distant pixels are correlated at
# > any dilation (below: the activation's mean alone does it), and no result ties stride to smoothness or
# > dilation to effective dimension. ([errata A10](../ERRATA.md#a10))
#
# Padding convention: `padding="same"` pads $\delta(k-1)$ zeros in total, the smaller half on the left, like
# PyTorch's `nn.Conv2d(padding=k//2)`. For stride 2 this differs from neural-tangents/XLA "SAME", which puts
# the extra zero on the right; the package's kernel and its networks use the same convention.

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
# ### Correlation does not measure the receptive field
#
# A tempting test: two units should be correlated only if their receptive fields overlap. The kernel gives the
# correlation over random networks of the unit at pixel $p$ and the unit at pixel $p'$ for the same input,
# $\Sigma_{pp'}(x,x)/\sqrt{\Sigma_{pp}(x,x)\,\Sigma_{p'p'}(x,x)}$. We average it over 64 noise signals (so
# that chance similarities between distant patches, which shared filters turn into correlations, average out),
# after three convolutions: receptive fields of 7 pixels, disjoint for units more than 6 pixels apart (grey:
# they overlap).

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
# Units whose receptive fields share no pixel are still correlated, about 0.5 on average, with ReLU. The
# reason is the activation's **mean**: every ReLU feature is positive on average,
# $\mathbb E[\phi(u)] = \sqrt{q/2\pi}$, and the next layer's shared weights pass these means to units
# everywhere. For two independent pre-activations one ReLU already gives a correlation of
# $\mathbb E[\phi]^2/\mathbb E[\phi^2] = 1/\pi \approx 0.32$, and deeper layers raise it (the correlation map
# of lesson 02). A zero-mean activation such as erf has no such floor. Nor do overlapping receptive fields add
# anything here: shared filters correlate two units as much as their input patches are alike (the input's
# autocorrelation at lag $p'-p$), and white noise has none. So the correlation between distant pixels is not
# zero, and it says nothing about the receptive field.
#
# ### Influence: what the receptive field limits
#
# The receptive field limits which input pixels can **influence** a unit. Measure that directly: the
# sensitivity $\partial f_p / \partial x_q$ of one finite network's output $f$ at position $p$ to input pixel
# $q$ (the network ends in a convolution with one output channel). Outside the receptive field it is *exactly*
# zero, for every weight and input: no path of weights connects $q$ to $p$. `nh.receptive_field`
# predicts the receptive fields from the geometry alone (it counts the weight paths from $q$ to $p$).

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
# In every case the sensitivity is exactly zero outside the predicted receptive field and nonzero inside, and
# the span follows the formula: linear in depth at stride 1, doubled by dilation 2, geometric in depth at
# stride 2. With dilation 2 in *every* layer the span has holes: all taps sit at even offsets, so only every
# second pixel is connected (the "gridding" effect of stacked dilated convolutions; mix dilations to avoid
# it).
#
# ### Inside the receptive field: the effective receptive field
#
# Pixels inside the receptive field do not influence a unit equally. For ReLU with $\sigma_w^2 = 2$ and no
# bias, the mean over random weights of $(\partial f_p/\partial x_q)^2$ is exactly $2\,N_{pq}/3^{L}$
# at **any** width, where $N_{pq}$ is the number of weight paths from $q$ to $p$ (the count `receptive_field`
# returns) and 3 the taps per filter. The first layer gives $\sigma_w^2 = 2$ per path, and every further layer
# multiplies by $\sigma_w^2\,\mathbb E[\phi'(u)^2] = 1$: given the layers below, a pre-activation and its
# derivative are a symmetric Gaussian pair, so the ReLU keeps half of the squared derivative on average. Two
# consequences:
#
# - the total influence $\sum_q \mathbb E(\partial f_p/\partial x_q)^2 = 2$ does not change with depth (away
#   from the borders there are $3^L$ paths);
# - it spreads like a random walk with steps $-1, 0, 1$: a bell of width $\sqrt{2L/3}$, much narrower than the
#   receptive field's half-width $L$ (the "effective receptive field", Luo et al. 2016).
#
# Measured for the middle unit over 64 networks of width 32:

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
# ### Explore
#
# One network with one output channel on a 64-pixel signal: $|\partial f_p/\partial x_q|$ for every output
# unit $p$ (rows) and input pixel $q$ (columns), on a log scale relative to the largest entry. White means
# exactly zero: outside the receptive field. Stride 2 halves the number of output units at every layer; at
# depth 5–6 only one or two remain, each spanning nearly the whole signal (the explorer says so).

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
# ## Max pooling vs average pooling
#
# Average pooling is a fixed linear map $A$: on kernels $K \mapsto A K A^\top$, exact. Max pooling picks a
# different position for every channel and input. Its infinite-width kernel exists (a max over a window is
# covered by Tensor Programs, Yang 2019), but it is a Gaussian expectation over the whole window with no
# closed form (neural-tangents refuses it), so we estimate it from finite networks (Monte Carlo).

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
# ## Summary
#
# - Convolutions act on pixel-pair covariances with a shared sum over filter offsets.
# - Equivariance is a property of the pixel-pair tensor; the data Gram matrix has no Toeplitz structure.
#   Global average pooling makes the kernel shift **invariant**; flatten keeps only same-position pairs, which
#   makes weight sharing irrelevant (the locally connected kernel).
# - Pooling is what pays off on small shift-invariant tasks and on real digits. Kernel regression is the mean
#   of infinitely wide trained networks; a single one adds its initial function.
# - The receptive field limits **influence**: outside it a unit's sensitivity to a pixel is exactly zero. It
#   spans $1 + (k-1)\,\delta\,(1 + s + \dots + s^{L-1})$ pixels; inside, the influence is a bell of width
#   $\sim\sqrt L$. Correlations between units say nothing about it: ReLU's mean correlates distant units.
# - Average pooling is linear and exact; max pooling needs Monte Carlo.
#
# **Exercises:** 4.2 (which shift symmetries, which readout) and 4.6 (alternatives to max pooling).
#
# **Next:** [04 · Residual networks](04_resnet.ipynb)
