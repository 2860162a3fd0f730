# %% [markdown]
# # 03 · Convolutional networks: locality, weight sharing, pooling
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/03_cnn.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F03_cnn.ipynb)
#
# *Chapter 4.2.*
#
# **You will learn**
# - 4.2.1: how a convolution acts on the kernel: one entry per **pair of pixels**, summed over the filter's
#   offsets, the same offset in both images (that is weight sharing);
# - 4.2.1: why global average pooling makes the kernel blind to shifts, while a flatten readout sees only
#   same-position pixel pairs and so forgets that the filters were shared;
# - 4.2.2: why one finite network's kernel becomes deterministic as the number of **channels** grows, and
#   not as the image grows; and whether pooling pays off on real digits;
# - 4.2.3: what a receptive field limits (which pixels can *influence* a unit), how depth, stride and dilation
#   grow it, and how max pooling's kernel differs from average pooling's.
#
# **Prerequisites:** lessons 01–02 (the NNGP and the NTK, and their layer-by-layer recursion for an MLP).

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
# ## The idea in one picture
#
# A wide CNN's kernel does not compare two images with one number: it compares them **pixel by pixel**, a
# matrix $\Sigma_{p,p'}(x,x')$ over pairs of pixels, $p$ in $x$ and $p'$ in $x'$. A convolution sums this
# matrix along short diagonal strokes, because one filter weight $w_a$ multiplies pixel $p+a$ of one image and
# pixel $p'+a$ of the other; the readout at the end (flatten or pooling) decides which pixel pairs reach the
# output.

# %%
cnn.draw_shared_offsets()
plt.show()

# %% [markdown]
# ## 4.2.1 The kernel of a convolution
#
# Images are tensors $(n, C, H, W)$: $C$ channels, pixels $p$. A convolution with a $k\times k$ filter has
# the offsets $a \in S$ ($|S| = k^2$; the pictures use 1-D signals and 3 offsets $a \in \{-1, 0, 1\}$). In
# the NTK parameterization, with every $W$ and $b$ drawn from $N(0, 1)$, layer $l+1$ computes
#
# $$z^{(l+1)}_{c,p}(x) = \frac{\sigma_w}{\sqrt{C\,|S|}}\sum_{a\in S}\sum_{c'=1}^{C}
#   W_{c,c',a}\,\phi\bigl(z^{(l)}_{c',p+a}(x)\bigr) + \sigma_b\, b_c .$$
#
# The same $W_{c,c',a}$ serves every position $p$: that is weight sharing. Multiply $z_{c,p}(x)$ by
# $z_{c,p'}(x')$ and average over the weights: $\mathbb E[W_{c,c',a}W_{c,c'',b}] = 1$ if $c' = c''$ and
# $a = b$, and 0 otherwise. Only the terms with the **same offset** $a$ in both images survive:
#
# $$\Sigma^{(l+1)}_{p,p'}(x,x') = \frac{\sigma_w^2}{|S|}\sum_{a\in S}
#   \mathbb E\bigl[\phi(z^{(l)}_{p+a}(x))\,\phi(z^{(l)}_{p'+a}(x'))\bigr] + \sigma_b^2 .$$
#
# As the number of channels $C \to \infty$, the average over channels becomes this expectation and each
# channel's pre-activations become a Gaussian process over (image, pixel) pairs: the induction of lesson 02,
# with "unit" replaced by "channel". The expectation needs only three numbers: the entry
# $\Sigma^{(l)}_{p+a,p'+a}(x,x')$ and the two variances $\Sigma^{(l)}_{p+a,p+a}(x,x)$,
# $\Sigma^{(l)}_{p'+a,p'+a}(x',x')$, so it is lesson 02's activation map, applied entry by entry. The NTK
# follows the same pattern, with
# $\dot\Sigma^{(l)}_{p,p'} = \mathbb E[\phi'(z^{(l)}_p(x))\,\phi'(z^{(l)}_{p'}(x'))]$:
#
# $$\Theta^{(l+1)}_{p,p'}(x,x') = \Sigma^{(l+1)}_{p,p'}(x,x') + \frac{\sigma_w^2}{|S|}\sum_{a\in S}
#   \dot\Sigma^{(l)}_{p+a,p'+a}(x,x')\,\Theta^{(l)}_{p+a,p'+a}(x,x') .$$
#
# The first layer reads the input itself: in its formula the expectation is the input kernel
# $\Sigma^{(0)}_{p+a,p'+a}(x,x')$, where $\Sigma^{(0)}_{p,p'}(x,x') = \frac1C\sum_c x_{c,p}\,x'_{c,p'}$.
# These are theorems: Novak et al. (2019) and Garriga-Alonso et al. (2019) for the NNGP of CNNs with many
# channels, Arora et al. (2019) for the convolutional NTK, Yang (2019) for any architecture built from such
# layers.
#
# **Predict, then run.** Two signals of 16 pixels (images of height 1): $x$ is a single spike at pixel 3, $x'$
# a spike at pixel 9, so $\Sigma^{(0)}$ is one dot at $(3, 9)$. Where is the kernel nonzero after one
# convolution with 3 taps? After convolution, ReLU, convolution?

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
# <details><summary>Answer</summary>
#
# After one convolution: at $(2, 8)$, $(3, 9)$ and $(4, 10)$, each $\sigma_w^2/3 = 2/3$: the entry $(p, p')$
# collects $(p+a, p'+a)$, so the dot becomes a stroke of 3 along the diagonal. After the second convolution
# the stroke is 5 long (two offsets add: $a + b \in \{-2, \dots, 2\}$), and it has grown sideways: the ReLU
# in between has a positive mean, so every pair of pixels where *both* signals are active (rows 2–4, columns
# 8–10) gets $\mathbb E[\phi]\,\mathbb E[\phi'] > 0$ even where the covariance is 0, and the next convolution
# smears that $3\times 3$ block along the diagonal too. The brightest entries stay on $p' - p = 6$, the
# distance between the spikes.
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
# ### Invariance needs pooling
#
# **Shifts move the picture.** With circular padding, shifting $x$ by $s$ pixels moves the rows of the
# pixel-pair kernel by $s$, and shifting $x'$ by $t$ moves its columns by $t$:
# $\Sigma^{(l)}_{p+s,\,p'+t}(T_s x, T_t x') = \Sigma^{(l)}_{p,p'}(x,x')$, and the same for $\Theta^{(l)}$.
# (By induction: it holds for $\Sigma^{(0)} = x_p x'_{p'}$; the offset sum adds the same $a$ to both
# indices, and the activation map uses the entry and the two variances, each moving with its own image.)
# This is **equivariance**, and it lives in the pixel-pair matrix.
#
# **The readout decides what reaches the output.** A scalar output needs one number per pair of images:
#
# - **flatten**, then a dense layer: every pixel has its own readout weights, so only same-position pairs
#   survive the average over them: the readout averages the last layer's kernel over the **diagonal**
#   $p = p'$;
# - **global average pooling** (GAP), then a dense layer: each channel is averaged over all pixels first, so
#   the readout averages the kernel over **all** $P^2$ pairs $(p, p')$.
#
# **Predict.** Below, the spikes again, after conv, ReLU, conv: as they are, shifted together by 4, and only
# $x$ shifted by 6. Which readout changes its value, and how?

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
# <details><summary>Answer</summary>
#
# The joint shift changes nothing for either readout: the picture slides along the diagonal, and what lies
# on the diagonal (here nothing) and the sum of all entries stay the same. Shifting only $x$ moves the
# picture onto the diagonal: flatten jumps from 0 to 0.188, GAP stays 0.019. Flatten compares the two
# images *at the same positions*, so it cares where the spikes are; GAP sums every pair, so it does not.
#
# </details>
#
# The same on noise: two random signals, and $x$ alone shifted by $s = 0, \dots, 15$ pixels.

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
# ### Flatten forgets weight sharing
#
# Flatten reads only the pairs $p = p'$, and on those the recursion needs only the pairs
# $(p+a, p+a)$: it never leaves the diagonal. Now picture a **locally connected** network, which has a
# different filter at every position. Its weights at $p$ and $p' \neq p$ are independent, so in the average
# over weights only $p = p'$ survives: its recursion *is* this diagonal recursion. With flatten, a CNN and
# the locally connected network have the same infinite-width kernel (Novak et al. 2019): without pooling,
# weight sharing does not change the kernel at all.
#
# An experiment: wipe every pair $p \neq p'$ from the *input* kernel and run the same two architectures.
# Predict which one notices.

# %%
exact = nh.Kernel.from_inputs(noise, noise_prime)
wiped = nh.spatial.same_position_pairs_only(exact)
for name, net in [("flatten", flat_net), ("GAP", gap_net)]:
    full, diagonal_only = net.transform(exact).ntk[0, 0], net.transform(wiped).ntk[0, 0]
    print(nh._("{name:>7}: NTK {full:.4f}, with the p ≠ p′ pairs wiped {wiped:.4f}").format(
        name=name, full=float(full), wiped=float(diagonal_only)))

# %% [markdown]
# <details><summary>Answer</summary>
#
# Flatten prints the same NTK twice (0.4585): it never looked at $p \neq p'$. GAP drops from 0.900 to
# 0.623: it sums the off-diagonal pairs, and those are where weight sharing shows.
#
# </details>

# %% tags=["check"]
relative = lambda net: float(abs(net.transform(wiped).ntk[0, 0] / net.transform(exact).ntk[0, 0] - 1))
nh.check_that("flatten: wiping p ≠ p′ changes nothing (relative change below 1e-12)",
              relative(flat_net) < 1e-12, measured=relative(flat_net), expected="< 1e-12")
nh.check_between("GAP: wiping p ≠ p′ changes the NTK by (relative)", relative(gap_net), 0.01, np.inf)

# %% [markdown]
# ## 4.2.2 Many channels, not many pixels
#
# ### What makes one network's kernel deterministic?
#
# The kernels above are limits. One finite CNN has its own empirical NTK (lesson 01), which differs from
# initialization to initialization. An MLP's becomes deterministic as the width grows; a CNN's width is its
# number of **channels** $C$. But an image also has many pixels, and global average pooling averages over
# them.
#
# **Predict.** One fixed noise signal, a CNN (conv, ReLU, conv, ReLU, GAP, dense) and 64 random
# initializations: the spread (standard deviation over seeds, relative to the limit) of $\Theta(x, x)$,
# first as the channels grow (32 pixels), then as the signal grows (16 channels). Which of the two makes it
# shrink, and how fast?

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
# <details><summary>Answer</summary>
#
# Channels: the spread falls from 0.52 to 0.11, slope $-0.50$, the $C^{-1/2}$ of lesson 01's width. Pixels:
# from 16 to 256 pixels it changes little, 0.54 to 0.43 (slope $-0.09$), while averaging over independent
# pixels would have cut it by 4 (the dotted line).
#
# </details>
#
# The reason: each channel's filter is drawn **once** and used at every pixel. Averaging a channel over the
# positions averages over the image's patches with the *same* weights, so a channel's pooled feature tends
# to a number that still depends on its random filter, not to a constant. What removes the randomness is the
# average over many independent channels, the law of large numbers with its $C^{-1/2}$ error. That is why
# the theorems of 4.2.1 take the channels to infinity with the image fixed.

# %% tags=["check"]
# 64 seeds: a standard deviation is then known to about 1/sqrt(2 * 63) = 9 %, a slope over 16x to about 0.1
nh.check_between("slope of the spread against channels", slope_channels, -0.7, -0.3)
nh.check_between("slope of the spread against pixels", slope_length, -0.2, 0.1)
nh.check_between("spread at 256 pixels / spread at 16 (pixel averaging would give 0.25)",
                 std_by_length[-1] / std_by_length[0], 0.6, 1.5)
nh.check_close("the mean over seeds is the infinite-width NTK (256 channels)", by_channels[-1].relative_mean,
               1.0, atol=4 * by_channels[-1].relative_std / 8)     # 4 standard errors of a mean of 64

# %% [markdown]
# ### Does it matter? Two tasks
#
# **A shift-invariant task.** Noise signals of length 16; the positive ones carry the motif (2, −2, 2)
# somewhere. Kernel regression with the NTK on 80 training signals, $\Theta(x, X)\,\Theta(X, X)^{-1} y$. That
# is the **mean** prediction of infinitely wide networks trained to convergence (gradient flow, squared loss),
# averaged over their random initializations. One trained network adds its own random initial function $f_0$
# (a Gaussian process with the NNGP kernel and mean 0): it predicts
# $f_0(x) + \Theta(x, X)\,\Theta(X,X)^{-1}\bigl(y - f_0(X)\bigr)$ (Lee et al. 2019), which equals kernel
# regression only when $f_0 = 0$.
#
# Three kernels: an MLP on the flattened signal, the CNN with flatten, the CNN with GAP. Predict their order.

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
# <details><summary>Answer</summary>
#
# CNN + GAP 0.86, far ahead of the MLP (0.70) and the CNN with flatten (0.685), which are about equal: the
# flatten kernel, like the MLP's, compares the signals position by position, and a motif at another position
# is a different pattern to it. GAP's kernel is the same wherever the motif sits.
#
# </details>

# %% tags=["check"]
nh.check_between("motif task: CNN + GAP's accuracy minus CNN + flatten's",
                 motif_accuracy["CNN + GAP"] - motif_accuracy["CNN + flatten"], 0.1, 1.0)
nh.check_between("motif task: CNN + GAP's accuracy minus the MLP's",
                 motif_accuracy["CNN + GAP"] - motif_accuracy["MLP"], 0.1, 1.0)

# %% [markdown]
# **Real images.** scikit-learn ships 1797 handwritten digits of 8 × 8 pixels (nothing is downloaded). With
# 100 training images, 10 classes (one-hot targets), 200 test images; the CNNs have two $3\times3$
# convolutions. The next cell computes two CNN kernels over 300 images, a few seconds; a progress bar counts
# the pairs of images done.

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
# Locality alone (CNN + flatten) buys nothing over the MLP here: both score 0.87. Pooling, which compares
# every position of one image with every position of the other, reaches 0.96 with 100 examples.
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
# they overlap). Predict the curve outside the grey band, for ReLU and for erf.

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
# ### Explore
#
# One network with one output channel on a 64-pixel signal: $|\partial f_p/\partial x_q|$ for every output
# unit $p$ (rows) and input pixel $q$ (columns), on a log scale relative to the largest entry. Blank means
# exactly zero. Before you move a slider, read the questions below the explorer and write down your
# predictions.

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
# **Predict, then check.**
#
# 1. Depth 3, dilation 3, stride 1: how many pixels does unit 32's receptive field span, and how many of them
#    influence it?
#
# <details><summary>Answer</summary>
#
# It spans $1 + 2\cdot 3\cdot 3 = 19$ pixels (23–41), but only 7 of them influence the unit: every tap sits
# at a multiple of 3, so the offsets are $-9, -6, \dots, 9$. The explorer says "Holes".
#
# </details>
#
# 2. Depth 4, dilation 1, stride 2: how many output units are left, and how wide is the receptive field of
#    the middle one?
#
# <details><summary>Answer</summary>
#
# $64/2^4 = 4$ units, and the middle one (unit 2) is influenced by all 31 pixels 17–47:
# $1 + 2\,(1 + 2 + 4 + 8) = 31$, no holes. At depth 5 only 2 units remain, each spanning almost the whole
# signal, and at depth 6 the borders cut the receptive field off.
#
# </details>
#
# 3. Depth 6, dilation 1, stride 1: the 13 pixels of the receptive field all influence unit 32. Equally?
#
# <details><summary>Answer</summary>
#
# No. The two edge pixels (26 and 38) are about 40 and 1000 times weaker than the strongest pixel of that
# row ($10^{-1.6}$ and $10^{-3.1}$), and the strong ones sit within a few pixels of the middle. One network
# is noisy; its average over networks is the bell of the previous section, of width $\sqrt{2\cdot 6/3} = 2$
# pixels.
#
# </details>

# %% [markdown]
# ### Max pooling vs average pooling
#
# Average pooling is a fixed linear map $A$ (the mean over each window), so it acts on the pixel-pair kernel
# exactly: $\Sigma \mapsto A\,\Sigma\,A^\top$, the kernel averaged over the windows' pixel pairs. Max pooling
# is not linear: each channel keeps its largest value in the window, whichever pixel holds it. Its
# infinite-width limit exists (Yang 2019), but its kernel is an expectation of
# $\max_{p\in w}\phi(z_p(x))\,\max_{p'\in w'}\phi(z_{p'}(x'))$ over a Gaussian vector with one entry per pixel
# of both windows, with no known closed form; we estimate it from finite networks (Monte Carlo).
#
# On 12 digits, one $3\times3$ convolution, ReLU, pooling over $2\times2$ windows, flatten. Since the maximum
# of a window of nonnegative ReLU features is at least their mean, max pooling's kernel is the larger one.
# **Predict:** is it *only* larger, a rescaled average-pooling kernel? Divide the scale out (the cosine
# $K(x,x')/\sqrt{K(x,x)K(x',x')}$): will the two poolings agree on pairs of different digits? On a digit and
# its copy shifted by 1–3 pixels?

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
# <details><summary>Answer</summary>
#
# Mostly, but not only. On the diagonal max pooling's kernel is 2.5–3.3 times average pooling's. With that
# scale divided out, the two poolings nearly agree on pairs of different digits (left: the points lie near
# the diagonal, a little above it for the least similar pairs, and the two kernels rank the 66 pairs almost
# alike, rank correlation 0.96). They differ on shifted copies (right): at 1 pixel both give 0.86, but at 2
# pixels the cosine is 0.63 with average pooling and 0.68 with max pooling, at 3 pixels 0.47 against 0.55.
# A shift moves part of a stroke's response into the neighbouring window; the average of each window changes
# with it, while the maximum stays as long as some strong response is left. Global average pooling, the
# extreme case, forgives every shift (cosine above 0.99) but also finds nearly all digits alike.
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
# ## Check your understanding
#
# 1. One convolution with 3 taps. The input kernel is nonzero at a single pixel pair $(i, j)$. Which entries
#    of $\Sigma^{(1)}$ are nonzero, and why not a $3\times3$ block?
#
# <details><summary>Answer</summary>
#
# $(i-1, j-1)$, $(i, j)$ and $(i+1, j+1)$: entry $(p, p')$ sums the previous kernel at $(p+a, p'+a)$, one
# offset for both images. The pairs $(p+a, p'+b)$ with $a \neq b$ are multiplied by two independent weights
# $w_a w_b$, which average to 0. (After a ReLU the mean fills in a block, as in 4.2.1, but the convolution
# itself only sums along diagonals.)
#
# </details>
#
# 2. Why does a CNN with global average pooling give $\Theta(T_s x, x') = \Theta(x, x')$, while a CNN with
#    flatten gives only $\Theta(T_s x, T_s x') = \Theta(x, x')$ (circular padding)?
#
# <details><summary>Answer</summary>
#
# Shifting $x$ alone moves the rows of the pixel-pair kernel. GAP averages all entries, which a permutation of
# the rows does not change. Flatten averages the diagonal $p = p'$, which moves off its entries when only the
# rows move; a joint shift moves rows and columns together and maps the diagonal onto itself.
#
# </details>
#
# 3. A CNN with a flatten readout and a locally connected network (same filter sizes, a separate filter at
#    every position): how do their infinite-width kernels compare? And with global average pooling?
#
# <details><summary>Answer</summary>
#
# With flatten they are the same: only pairs $p = p'$ reach the output, and on those the two recursions
# agree (Novak et al. 2019). With GAP they differ, because GAP also reads the pairs $p \neq p'$: there the
# CNN's pre-activations are correlated (the same filter serves $p$ and $p'$), while the locally connected
# network's are independent (covariance 0; after a ReLU only the product of the means is left).
#
# </details>
#
# 4. At 16 channels you make the image 16 times larger. By how much does the spread of one network's NTK over
#    initializations shrink? And if you keep the image and use 64 channels instead?
#
# <details><summary>Answer</summary>
#
# Hardly at all for the larger image: every pixel of a channel uses the same random filter, so averaging over
# positions does not average over independent weights (4.2.2: about 0.54 → 0.43 from 16 to 256 pixels). With
# 4 times the channels it halves: $C^{-1/2}$.
#
# </details>
#
# 5. Three convolutions with 5 taps, dilation 2, stride 1. How many pixels does a unit's receptive field
#    span, and how many of them can influence it?
#
# <details><summary>Answer</summary>
#
# $1 + (5-1)\cdot 2\cdot 3 = 25$ pixels; only the even offsets $-12, \dots, 12$ are connected, so 13 of them
# influence the unit (away from the borders).
#
# </details>
#
# 6. Why can the correlation between two ReLU units not tell you whether their receptive fields overlap?
#
# <details><summary>Answer</summary>
#
# ReLU features have a positive mean, which the next layer's shared weights pass to units everywhere: units
# with disjoint receptive fields correlate about 0.5 after three layers (at least $1/\pi$ after one ReLU). The
# receptive field limits *influence*, $\partial f_p/\partial x_q = 0$ outside it, not correlation.
#
# </details>

# %% [markdown]
# ## Summary
#
# - A wide CNN's kernel is a matrix over **pixel pairs**; each convolution sums it over the filter's
#   offsets, the same offset in both images (weight sharing), so it smears the kernel along the diagonal.
# - Shifting one image moves the rows (or columns) of that matrix. **Global average pooling** sums every
#   entry, so its kernel is shift **invariant**; **flatten** reads only the diagonal $p = p'$, sees only joint
#   shifts, and gives the kernel of a locally connected network: weight sharing matters only with pooling.
# - One network's kernel becomes deterministic as the **channels** grow, its spread falling like $C^{-1/2}$; a
#   larger image does not help, since the filters are shared across its pixels.
# - Pooling is what pays off on a shift-invariant task and on real digits (0.96 against 0.87). Kernel
#   regression is the mean of infinitely wide trained networks; a single one adds its initial function.
# - The receptive field limits **influence**: outside it, $\partial f_p/\partial x_q = 0$ exactly. It spans
#   $1 + (k-1)\,\delta\,(1 + s + \dots + s^{L-1})$ pixels, and inside it the influence is a bell of width
#   $\sim\sqrt L$. Average pooling is exact and linear; max pooling (Monte Carlo) is mostly a rescaled average
#   pooling that forgives shifts a little more.

# %% [markdown]
# ## For readers of chapter 4
#
# Chapter 4.2 of the textbook states some of this differently. Each correction below names its entry in the
# errata.
#
# <details><summary>A7 · the CNTK Gram matrix is not Toeplitz</summary>
#
# **The text says:** a CNN's NTK Gram matrix over data is circulant / block-Toeplitz, and $\Theta(x_i, x_j)$
# depends on the "relative position" of $x_i$ and $x_j$.
#
# **What is true:** the data index $i$ is not a pixel index. The equivariance lives in the pixel-pair kernel
# (4.2.1, "Invariance needs pooling"); the $n \times n$ Gram matrix over data is an ordinary dense Gram matrix,
# with no Toeplitz structure (the check cell below: the first off-diagonal of the Gram matrix of 8 noise
# signals varies by about 34 % of its mean). With GAP the output is shift invariant,
# $\Theta(T_s x, x') = \Theta(x, x')$; with flatten only joint shifts leave it unchanged.
# [errata A7](../ERRATA.md#a7)
#
# </details>
#
# <details><summary>A8 · non-overlapping receptive fields do not make the NTK sparse</summary>
#
# **The text says:** non-overlapping receptive fields give zero terms, so the NTK is sparse.
#
# **What is true:** the Gram matrix is dense (below: its smallest entry is about 20 % of its largest).
# Locality makes the kernel a sum of local patch kernels, and a receptive field limits which pixels can
# *influence* a unit, not whether two units are correlated: with ReLU, units with disjoint receptive fields
# correlate about 0.5 (4.2.3). [errata A8](../ERRATA.md#a8)
#
# </details>
#
# <details><summary>A9 · spatial averaging does not make the kernel deterministic</summary>
#
# **The text says:** spatial averaging makes the kernel of a finite image deterministic.
#
# **What is true:** the number of channels does. One network's NTK spread falls like $C^{-1/2}$ with the
# channels and barely changes with the number of pixels (4.2.2), because a channel uses the same random filter
# at every pixel. Without pooling, only same-position pairs reach the output, and the kernel equals a locally
# connected network's (Novak et al. 2019). [errata A9](../ERRATA.md#a9)
#
# </details>
#
# <details><summary>A10 · stride and dilation</summary>
#
# **The text says:** stride makes the kernel relate only features at fixed intervals, which changes its
# smoothness; dilation lets the kernel capture correlations between more distant pixels and may raise its
# effective dimension.
#
# **What is true:** stride subsamples the output positions and dilation spaces the filter taps; both enlarge
# the receptive field, the set of input pixels that can influence a unit (4.2.3). Distant pixels are
# correlated at any dilation (the activation's mean alone does it), and no result ties stride to smoothness
# or dilation to effective dimension. [errata A10](../ERRATA.md#a10)
#
# </details>
#
# <details><summary>A12 · max pooling's kernel</summary>
#
# **The text says:** max pooling has no simple analytic form.
#
# **What is true:** right, with a detail: its infinite-width limit exists (Yang 2019), and its kernel is a
# Gaussian expectation over the windows with no known closed form, which we estimate by Monte Carlo. Whether it is
# "sharper" is not established; measured here, with the scale divided out, it is close to average pooling's
# and forgives small shifts more. [errata A12](../ERRATA.md#a12)
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
# **Exercises:** 4.2 (which shift symmetries, which readout) and 4.6 (alternatives to max pooling).
#
# **Next:** [04 · Residual networks](04_resnet.ipynb)
