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
# $a = b$, and 0 otherwise, which leaves
#
# $$\Sigma^{(l+1)}_{p,p'}(x,x') = \frac{\sigma_w^2}{|S|}\sum_{a\in S}
#   \mathbb E\bigl[\phi(z^{(l)}_{p+a}(x))\,\phi(z^{(l)}_{p'+a}(x'))\bigr] + \sigma_b^2 .$$
#
# Throughout this lesson $\sigma_b = 0$ (`nh.conv`'s default), so the $\sigma_b^2$ terms vanish.
#
# As the number of channels $C \to \infty$, the average over channels becomes this expectation and each
# channel's pre-activations become a Gaussian process over (image, pixel) pairs: the induction of lesson 02,
# with "unit" replaced by "channel". The expectation needs only three numbers: the entry
# $\Sigma^{(l)}_{p+a,p'+a}(x,x')$ and the two variances $\Sigma^{(l)}_{p+a,p+a}(x,x)$,
# $\Sigma^{(l)}_{p'+a,p'+a}(x',x')$, so it is lesson 02's activation map, applied entry by entry. The NTK
# follows the same pattern, with
# $\dot\Sigma^{(l)}_{p,p'} = \mathbb E[\phi'(z^{(l)}_p(x))\,\phi'(z^{(l)}_{p'}(x'))]$ (no $\sigma_w^2$ in it: the
# factor $\sigma_w^2/|S|$ stands in front):
#
# $$\Theta^{(l+1)}_{p,p'}(x,x') = \Sigma^{(l+1)}_{p,p'}(x,x') + \frac{\sigma_w^2}{|S|}\sum_{a\in S}
#   \dot\Sigma^{(l)}_{p+a,p'+a}(x,x')\,\Theta^{(l)}_{p+a,p'+a}(x,x') .$$
#
# The first layer reads the input itself: in its formula the expectation is the input kernel
# $\Sigma^{(0)}_{p+a,p'+a}(x,x')$, where $\Sigma^{(0)}_{p,p'}(x,x') = \frac1C\sum_c x_{c,p}\,x'_{c,p'}$. The input
# has no parameters, $\Theta^{(0)} = 0$, so the first layer's NTK is its NNGP: $\Theta^{(1)} = \Sigma^{(1)}$.
# These are theorems: Novak et al. (2019) and Garriga-Alonso et al. (2019) for the NNGP of CNNs with many
# channels; Arora et al. (2019) derive the convolutional NTK; Yang (2019) proves the NNGP limit and Yang
# (2020, Tensor Programs II) the NTK convergence for any architecture built from such layers.
#
# **An experiment.** Two signals of 16 pixels (images of height 1): $x$ is a single spike at pixel 3, $x'$ a
# spike at pixel 9, so $\Sigma^{(0)}$ is one dot at $(3, 9)$. Below, the pixel-pair kernel after one
# convolution with 3 taps, and after convolution, ReLU, convolution.

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
# **Explain, then predict.**
#
# 1. With the formula for $\Sigma^{(l+1)}$: which three entries does one convolution make nonzero, and how
#    large is each ($\sigma_w^2 = 2$, 3 taps)?
#
# <details><summary>Answer</summary>
#
# $(2, 8)$, $(3, 9)$ and $(4, 10)$, each $\sigma_w^2/3 = 2/3$. Entry $(p, p')$ collects the input kernel at
# $(p+a, p'+a)$, the same offset $a$ in both images, and the input kernel is 1 at $(3, 9)$ only: $a = 1, 0, -1$
# for the three entries.
#
# </details>
#
# 2. After convolution, ReLU, convolution the stroke is not only longer (5 pixels: two offsets add,
#    $a + b \in \{-2, \dots, 2\}$) but wider. Where does the width come from?
#
# <details><summary>Answer</summary>
#
# From the ReLU's positive mean. Take the pre-activations $u = z_p(x)$ and $v = z_{p'}(x')$ after the first
# convolution, with variances $q$ and $q'$. Where their covariance is 0 they are independent, and
# $\mathbb E[\phi(u)\,\phi(v)] = \mathbb E[\phi(u)]\,\mathbb E[\phi(v)] = \sqrt{q\,q'}/2\pi > 0$ for ReLU.
# So every pair $(p, p')$ with $p$ reached by the spike of $x$ and $p'$ by the spike of $x'$ (rows 2–4,
# columns 8–10) gets a positive entry: $1/3\pi \approx 0.106$ off the stroke, $q/2 = 1/3$ on it. The second
# convolution smears that $3\times 3$ block along the diagonal. The brightest entries stay on $p' - p = 6$,
# the distance between the spikes.
#
# </details>
#
# 3. Predict: a filter of 5 taps instead of 3. Where is the kernel nonzero after one convolution, and how large
#    is each entry? To check, run
#    `pixel_pairs(nh.conv(kernel_size=(1, 5), padding="circular", sigma_w=math.sqrt(2)), x, x_prime)` in a new
#    cell.
#
# <details><summary>Answer</summary>
#
# At $(1, 7), (2, 8), \dots, (5, 11)$, a stroke of 5, each entry $\sigma_w^2/5 = 0.4$. The weights are divided
# by $\sqrt{C\,|S|}$, so the entries of the stroke always add up to $\sigma_w^2 = 2$, whatever the filter size.
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
# Both networks below are conv, ReLU, conv, then **one more ReLU**, then the readout: the readout sees the
# kernel after that last ReLU. Where two pre-activations are uncorrelated, that ReLU leaves the product of
# their means, $\mathbb E[\phi(u)]\,\mathbb E[\phi(v)] > 0$ (as in question 2 above). Below, that kernel for the
# spikes as they are, shifted together by 4, and only $x$ shifted by 6 (its spike moves to pixel 9, where $x'$
# has its own).

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
# **Predict, then run the next cell.** Flatten reads the diagonal $p = p'$ of these pictures, GAP all entries.
#
# 1. For each of the three cases: is flatten's NTK zero or not? Does GAP's NTK change from case to case?
#
# <details><summary>Answer</summary>
#
# Flatten: 0, 0, then 0.188. In the first two pictures the diagonal is empty; the joint shift slides the picture
# along the diagonal, so what lies on it (nothing) stays. Shifting only $x$ moves the rows, here onto the
# diagonal. GAP: 0.019 all three times. It sums every entry, and moving rows or columns does not change the
# sum. Flatten compares the two images *at the same positions*, so it cares where the spikes are; GAP does not.
#
# </details>

# %%
gap_net = nh.serial(body, nh.relu(), nh.global_avg_pool(), nh.dense(1))
flat_net = nh.serial(body, nh.relu(), nh.flatten(), nh.dense(1))
for name, (a, b) in zip([nh._("as they are"), nh._("both shifted"), nh._("x shifted")], cases.values()):
    print(nh._("{case}: NTK with flatten {flat:.3f}, with GAP {gap:.3f}").format(
        case=name, flat=float(flat_net.kernel(a, b).ntk[0, 0]), gap=float(gap_net.kernel(a, b).ntk[0, 0])))

# %% [markdown]
# **Predict.**
#
# 2. Keep $x$ at pixel 3 and move the spike of $x'$ from pixel 9 to pixel 6, then to pixel 8. For each, predict
#    both NTKs: zero or not, changed or not? To check, run `float(flat_net.kernel(x, spike(6)).ntk[0, 0])`,
#    and the same with `gap_net` and `spike(8)`.
#
# <details><summary>Answer</summary>
#
# GAP gives 0.019 both times: moving $x'$ alone is a shift of one image. Flatten gives 0.006 for the spike at
# 6 and exactly 0 for the spike at 8. After conv, ReLU, conv a spike reaches only the pixels at most 2 away
# from it (two filters of 3 taps). Before the last ReLU the diagonal is empty even for spikes 3 apart (the
# stroke lies on $p' - p \in \{1, \dots, 5\}$). The last ReLU fills in the products of the means where both
# spikes reach: pixels 4 and 5 for spikes at 3 and 6 (0.050 each), none for spikes 5 apart. Flatten sees the
# pair only when the spikes are at most 4 pixels apart.
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
# ### Flatten forgets weight sharing
#
# Flatten reads only the pairs $p = p'$, and on those the recursion needs only the pairs
# $(p+a, p+a)$: it never leaves the diagonal. Now picture a **locally connected** network, which has a
# different filter at every position. Its weights at $p$ and $p' \neq p$ are independent, so in the average
# over weights only $p = p'$ survives: its recursion *is* this diagonal recursion. With flatten, a CNN and
# the locally connected network therefore have the same infinite-width NNGP (Novak et al. 2019), and the same
# NTK, since the $\Theta$ recursion of 4.2.1 reads the same pairs $(p+a, p'+a)$ as the $\Sigma$ recursion.
# Without pooling, weight sharing does not change the infinite-width kernel with a flatten readout at all.
#
# An experiment on the two noise signals: the locally connected network's kernel next to the CNN's, with each
# readout. `cnn.locally_connected_kernel` runs the same recursion and, after every convolution, sets the pairs
# $p \neq p'$ to zero (between $x$ and $x'$, and of each image with itself); the ReLUs after it then fill them
# with the products of the means.

# %%
inputs = nh.Kernel.from_inputs(noise, noise_prime)
for name, net in [("flatten", flat_net), ("GAP", gap_net)]:
    shared = float(net.transform(inputs).ntk[0, 0])
    local = float(cnn.locally_connected_kernel(net, inputs).ntk[0, 0])
    print(nh._("{name:>7}: NTK of the CNN {cnn:.4f}, of the locally connected network {lcn:.4f}").format(
        name=name, cnn=shared, lcn=local))

# %% [markdown]
# **Explain.** With GAP the locally connected network's NTK is about a third of the CNN's. Which pixel pairs
# make the difference, and what fills them in each network?
#
# <details><summary>Answer</summary>
#
# The pairs $p \neq p'$, which only GAP reads (flatten gives 0.4585 for both networks). In the CNN the same
# filter serves $p$ and $p'$, so two units are correlated as much as their input patches are alike. In the
# locally connected network their filters are independent: after each convolution those pairs are 0, and the
# ReLU leaves only the product of the means. Here that gives 0.311 against the CNN's 0.900.
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
# ## 4.2.2 Many channels, not many pixels
#
# ### What makes one network's kernel deterministic?
#
# The kernels above are limits. One finite CNN has its own empirical NTK (lesson 01), which differs from
# initialization to initialization. An MLP's becomes deterministic as the width grows; a CNN's width is its
# number of **channels** $C$. But an image also has many pixels, and global average pooling averages over
# them.
#
# One fixed noise signal, a CNN (conv, ReLU, conv, ReLU, GAP, dense) and 64 random initializations: the
# spread of $\Theta(x, x)$ (`cnn.ntk_spread`: its standard deviation over the seeds, divided by the
# infinite-width NTK $\Theta_\infty$ of 4.2.1), first as the channels grow
# (32 pixels), then as the signal grows (16 channels).

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
# **Explain, then predict.**
#
# 1. The channels cut the spread from 0.52 to 0.11 (slope $-0.50$, the $C^{-1/2}$ of lesson 01's width). From
#    16 to 256 pixels it only goes from 0.54 to 0.43 (slope $-0.09$), although averaging 16 times as many
#    independent numbers would have cut it by 4 (the dotted line). Why does GAP's average over the pixels not
#    do that?
#
# <details><summary>Answer</summary>
#
# Each channel's filter is drawn **once** and used at every pixel. Averaging a channel over the positions
# averages over the image's patches with the *same* weights, so a channel's pooled feature tends to a number
# that still depends on its random filter, not to a constant. What removes the randomness is the average over
# many independent channels, the law of large numbers with its $C^{-1/2}$ error.
#
# </details>
#
# 2. Predict the spread for a signal of 1024 pixels, at 16 channels: will it keep falling along the fitted
#    slope $-0.09$ (that would give about 0.38), or not? To check, run
#    `cnn.ntk_spread(spread_net, noise_of_length(1024), width=16, seeds=64).relative_std` in a new cell.
#
# <details><summary>Answer</summary>
#
# 0.43, as at 256 pixels, not 0.38: the slope is no law. On a long signal a channel's pooled feature is
# already its filter's average response over many patches, and more pixels only sharpen that average.
# Averaging over independent pixels would have given $0.54/8 \approx 0.07$.
#
# </details>
#
# That is why the theorems of 4.2.1 take the channels to infinity with the image fixed.

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
# ### Does it matter? Two tasks
#
# **A shift-invariant task.** Noise signals of length 16; the positive ones carry the motif (2, −2, 2)
# somewhere. Kernel regression with the NTK on 80 training signals, $\Theta(x, X)\,\Theta(X, X)^{-1} y$. That
# is the **mean** prediction of infinitely wide networks trained to convergence (gradient flow, squared loss),
# averaged over their random initializations. One trained network adds its own random initial function $f_0$
# (a Gaussian process with the NNGP kernel and mean 0): infinitely wide (for a finite width, approximately),
# trained by gradient flow to convergence, in the NTK parameterization, it predicts
# $f_0(x) + \Theta(x, X)\,\Theta(X,X)^{-1}\bigl(y - f_0(X)\bigr)$ (Lee et al. 2019), which equals kernel
# regression only when $f_0 = 0$.
#
# Three kernels: an MLP with two hidden layers on the flattened signal (as deep as the CNN, which has two
# convolutions), the CNN with flatten, the CNN with GAP. One split into 80 training and 200 test signals
# measures an accuracy only to about $\pm 0.03$ (its standard error), so we draw 280 signals once and split
# them at random 5 times: each dot is one split, each bar their mean.

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
# **Explain.** The MLP and the CNN with flatten score about the same, the CNN with GAP far better. Why?
#
# <details><summary>Answer</summary>
#
# The flatten kernel, like the MLP's, compares the signals position by position, and a motif at another
# position is a different pattern to it. GAP's kernel compares every position of one signal with every
# position of the other, so the motif counts wherever it sits. CNN + GAP's accuracy is 0.846 on average over
# the splits, against 0.656 (MLP) and 0.665 (CNN + flatten), and it leads both on every split, by at least
# 0.15.
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
# **Real images.** scikit-learn ships 1797 handwritten digits of 8 × 8 pixels (nothing is downloaded). We take
# 300 of them and split them at random 5 times into 100 for training and 200 for testing; 10 classes (one-hot
# targets). The CNNs have two $3\times3$ convolutions, the MLP two hidden layers. The next cell computes the
# three kernels over the 300 images, a few seconds; a progress bar counts the pairs of images done.

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
# **Explain.** The CNN with flatten is built from local patches, yet it scores about the MLP's accuracy; only
# pooling adds to it. Why?
#
# <details><summary>Answer</summary>
#
# With flatten the kernel compares each patch of one digit only with the patch *at the same place* in the
# other, as the MLP's compares pixel with pixel: to both, a stroke one pixel to the right is a different
# pattern. GAP compares every patch of one digit with every patch of the other, so a shifted stroke still
# matches. Averaged over the 5 splits: MLP 0.887, CNN + flatten 0.884, CNN + GAP 0.945; GAP is ahead of
# flatten on every split, by 0.035 to 0.085.
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
# ### Correlation does not measure the receptive field
#
# A tempting test: two units should be correlated only if their receptive fields overlap. The kernel gives the
# correlation over random networks of the unit at pixel $p$ and the unit at pixel $p'$ for the same input,
# $\Sigma_{pp'}(x,x)/\sqrt{\Sigma_{pp}(x,x)\,\Sigma_{p'p'}(x,x)}$. We average it over 64 noise signals,
# after three convolutions: receptive fields of 7 pixels, disjoint for units more than 6 pixels apart (grey:
# they overlap).

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
# **Explain, then predict.**
#
# 1. Units whose receptive fields share no pixel: why are they correlated with ReLU, about 0.5 on average, and
#    not with erf?
#
# <details><summary>Answer</summary>
#
# Because of the activation's **mean**: every ReLU feature is positive on average,
# $\mathbb E[\phi(u)] = \sqrt{q/2\pi}$, and the next layer's shared weights pass these means to units
# everywhere. Two pre-activations with correlation $c = 0$ leave one ReLU with correlation
# $\mathbb E[\phi]^2/\mathbb E[\phi^2] = 1/\pi \approx 0.32$ (for $c < 0$ it is less, down to 0 at
# $c = -1$). The second ReLU takes 0.32 to 0.49 (the correlation map of lesson 02); the measured mean, 0.50,
# is a little higher because $c$ is 0 only on average over the noise. Erf has mean 0, so it adds no such floor.
#
# </details>
#
# 2. Add GELU (`"GELU": nh.gelu`) to `activations` in the cell above and re-run it. Will distant GELU units be
#    correlated like ReLU's, or not, like erf's?
#
# <details><summary>Answer</summary>
#
# Correlated, about 0.35 on average (ReLU: 0.50): $\mathrm{GELU}(u) = u\,\Phi(u)$ has a positive mean too,
# smaller next to its size than ReLU's.
#
# </details>
#
# Nor do overlapping receptive fields add anything here: shared filters correlate two units as much as their
# input patches are alike (the input's autocorrelation at lag $p'-p$), and white noise has none. On one noise
# signal distant patches are alike by chance; the average over 64 signals mostly removes that. So the
# correlation between distant pixels is not zero, and it says nothing about the receptive field.

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
# the span follows the formula: linear in depth at stride 1; dilation 2 doubles the part beyond the centre
# pixel (span − 1: 4 → 8 at depth 2, 8 → 16 at depth 4); geometric in depth at stride 2. With dilation 2 in
# *every* layer the span has holes: all taps sit at even offsets, so only every second pixel is connected
# (the "gridding" effect of stacked dilated convolutions; mix dilations to avoid it).
#
# ### Inside the receptive field: the effective receptive field
#
# Pixels inside the receptive field do not influence a unit equally. For ReLU with $\sigma_w^2 = 2$ and no
# bias, the mean over random weights of $(\partial f_p/\partial x_q)^2$ is exactly $2\,N_{pq}/3^{L}$
# at **any** width, where $N_{pq}$ is the number of weight paths from $q$ to $p$ (the count `receptive_field`
# returns) and 3 the taps per filter. Why: along one path, each layer multiplies the mean square by
# $\sigma_w^2/3 = 2/3$ (its weight's variance, summed over the channels), and each ReLU between two layers
# multiplies it by $\tfrac12$. A ReLU passes the derivative ($\phi'(u) = 1$) where its unit is open, $u > 0$,
# and blocks it ($\phi'(u) = 0$) where it is closed; with no bias and weights symmetric about 0, flipping the
# signs of a unit's incoming weights flips $u$, so the unit is open for exactly half of the weight draws. A
# path thus contributes $(2/3)^L (1/2)^{L-1} = 2/3^L$. (That these halves multiply exactly, at any width, is
# shown for dense ReLU networks by Hanin 2018; the argument goes through path by path.) Two consequences:
#
# - the total influence $\sum_q \mathbb E(\partial f_p/\partial x_q)^2 = 2$ does not change with depth (away
#   from the borders there are $3^L$ paths);
# - it spreads like a random walk with steps $-1, 0, 1$: a bell of width $\sqrt{2L/3}$, narrower than the
#   receptive field's half-width $L$, and ever more so with depth: $\sqrt L$ against $L$ (the "effective
#   receptive field", Luo et al. 2016).
#
# Measured for the middle unit over 64 networks of width 32 (left: linear axis, the dotted lines at
# $\pm\sqrt{2L/3}$; right: the same on a log axis, where the bell's tails show):

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
# ### Explore
#
# One network with one output channel on a 64-pixel signal. Top: $|\partial f_p/\partial x_q|$ for every
# output unit $p$ (rows) and input pixel $q$ (columns), on a log scale relative to the largest entry; blank
# means exactly zero. Bottom: the row of the middle unit (framed above), relative to that row's largest entry,
# with the root-mean-square over random networks, $\sqrt{2N_{pq}/3^L}$, relative to its own largest value
# (line). Before you move a slider, read the questions below the explorer and write down your predictions.

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
# $1 + 2\,(1 + 2 + 4 + 8) = 31$, no holes. At depth 5 two units remain; their receptive fields would span 63
# pixels, and the borders cut them off: unit 0 is influenced by pixels 0–31, unit 1 by pixels 1–63. At depth
# 6 the one unit left is influenced by all 64 pixels.
#
# </details>
#
# 3. Depth 6, dilation 1, stride 1: the 13 pixels of the receptive field all influence unit 32. Count the
#    weight paths: how much smaller is an edge pixel's root-mean-square influence than the middle pixel's?
#
# <details><summary>Answer</summary>
#
# On average over networks (the line), 141 weight paths lead from the middle pixel 32 to the unit and
# one from each edge pixel, 26 and 38, so an edge pixel's root-mean-square influence is
# $1/\sqrt{141} \approx 1/12$ of the middle's ($10^{-1.07}$): the bell of the previous section, of width
# $\sqrt{2\cdot 6/3} = 2$ pixels. This one network (the dots) scatters around the bell: its strongest pixel is 30, not 32, the edge
# pixels are $10^{-1.6}$ and $10^{-3.1}$ of it, and pixel 27 ($10^{-2.5}$) sits next to pixel 28
# ($10^{-0.7}$).
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
# ### Max pooling vs average pooling
#
# Average pooling is a fixed linear map $A$ (the mean over each window), so it acts on the pixel-pair kernel
# exactly: $\Sigma \mapsto A\,\Sigma\,A^\top$, the kernel averaged over the windows' pixel pairs. Max pooling
# is not linear: each channel keeps its largest value in the window, whichever pixel holds it. Its
# infinite-width limit exists (Yang 2019), but its kernel is an expectation of
# $\max_{p\in w}\phi(z_p(x))\,\max_{p'\in w'}\phi(z_{p'}(x'))$ over a Gaussian vector with one entry per pixel
# of both windows, with no known closed form; we estimate it from finite networks (Monte Carlo).
#
# On 12 digits: one $3\times3$ convolution, ReLU, pooling over $2\times2$ windows, flatten. The maximum of a
# window of nonnegative ReLU features is at least their mean, so max pooling's kernel is the larger one (here
# 2.5–3.3 times average pooling's on the diagonal). To compare the two, divide the scale out: the
# cosine $K(x,x')/\sqrt{K(x,x)\,K(x',x')}$, here of a digit and its own copy shifted right by 0–3 pixels (the
# columns it leaves are filled with zeros). Max
# pooling's is measured on 8 networks of 128 channels (error bars: 2 standard errors), the others are exact.

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
# **Explain.** At 1 pixel the two poolings agree; at 2 and 3 pixels max pooling keeps the copy closer to the
# digit. Why does the maximum of a window forgive a shift that its average does not?
#
# <details><summary>Answer</summary>
#
# A shift moves part of a stroke's response into the neighbouring window. The average of a window changes with
# every pixel that moves in or out; the maximum stays as long as the strongest response is still inside. So
# at 2 pixels the cosine is 0.63 with average pooling and 0.67 with max pooling, at 3 pixels 0.45 against
# 0.51 (at 1 pixel both 0.86). Global average pooling, one window over the whole image, is the extreme: it
# forgives every shift shown here, 0–3 pixels (cosine above 0.99).
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
# ## Check your understanding
#
# 1. One convolution with 3 taps and dilation 2 (offsets $a \in \{-2, 0, 2\}$). The input kernel is nonzero
#    at a single pixel pair $(i, j)$. Which entries of $\Sigma^{(1)}$ are nonzero, and why not a $3\times3$
#    block?
#
# <details><summary>Answer</summary>
#
# $(i-2, j-2)$, $(i, j)$ and $(i+2, j+2)$, each $\sigma_w^2/3$: entry $(p, p')$ sums the previous kernel at
# $(p+a, p'+a)$, one offset for both images, so the stroke runs along the diagonal with gaps of one pixel.
# The pairs $(p+a, p'+b)$ with $a \neq b$ are multiplied by two independent weights $w_a w_b$, which average
# to 0. (After a ReLU the mean fills in a block, as in 4.2.1, but the convolution itself only sums along
# diagonals.)
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
# agree, for the NNGP (Novak et al. 2019) and, by the same argument, for the NTK. With GAP they differ,
# because GAP also reads the pairs $p \neq p'$: there the CNN's pre-activations are correlated (the same
# filter serves $p$ and $p'$), while the locally connected network's are independent (covariance 0; after a
# ReLU only the product of the means is left): 0.900 against 0.311 on the noise signals of 4.2.1.
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
# with disjoint receptive fields correlate about 0.5 after three layers ($1/\pi$ after one ReLU, for
# uncorrelated pre-activations). The receptive field limits *influence*, $\partial f_p/\partial x_q = 0$
# outside it, not correlation.
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
# ## Summary
#
# - A wide CNN's kernel is a matrix over **pixel pairs**; each convolution sums it over the filter's
#   offsets, the same offset in both images (weight sharing), so it smears the kernel along the diagonal.
# - Shifting one image moves the rows (or columns) of that matrix. **Global average pooling** sums every
#   entry, so its kernel is shift **invariant**; **flatten** reads only the diagonal $p = p'$, sees only joint
#   shifts, and gives the kernel of a locally connected network: weight sharing matters only with pooling.
# - One network's kernel becomes deterministic as the **channels** grow, its spread falling like $C^{-1/2}$; a
#   larger image does not help, since the filters are shared across its pixels.
# - Pooling is what pays off, on a motif that moves and on real digits (0.945 against 0.884 with flatten,
#   on average over 5 splits); locality alone does about as well as an MLP. Kernel regression is the
#   mean of infinitely wide trained networks; a single one adds its initial function.
# - The receptive field limits **influence**: outside it, $\partial f_p/\partial x_q = 0$ exactly. It spans
#   $1 + (k-1)\,\delta\,(1 + s + \dots + s^{L-1})$ pixels, and inside it the influence is a bell of width
#   $\sim\sqrt L$. Average pooling acts on the kernel exactly and linearly; max pooling has no closed form
#   (Monte Carlo), and with the scale divided out it forgives small shifts more.

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
# with no Toeplitz structure (an illustration in the check cell below: the first off-diagonal of the Gram
# matrix of 8 noise signals is not constant, it varies by about 34 % of its mean). With GAP the output is
# shift invariant,
# $\Theta(T_s x, x') = \Theta(x, x')$; with flatten only joint shifts leave it unchanged.
# [errata A7](../ERRATA.md#a7)
#
# </details>
#
# <details><summary>A8 · non-overlapping receptive fields do not make the NTK sparse</summary>
#
# **The text says:** non-overlapping receptive fields give zero terms, so the NTK is sparse.
#
# **What is true:** disjoint receptive fields do not force zero terms: an entry is 0 only when the input
# makes it so. Locality makes the kernel a sum of local
# patch kernels, and a receptive field limits which pixels can *influence* a unit, not whether two units are
# correlated: the pixel-pair kernel of two units whose receptive fields share no pixel is not zero, and with
# ReLU their correlation is about 0.5 (4.2.3, "Correlation does not measure the receptive field").
# [errata A8](../ERRATA.md#a8)
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
# connected network's (Novak et al. 2019 for the NNGP; the NTK's recursion reads the same pairs).
# [errata A9](../ERRATA.md#a9)
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
# the receptive field, the set of input pixels that can influence a unit (4.2.3). With an activation of
# nonzero mean, distant pixels are correlated at any dilation (ReLU: about 0.5; erf, of mean 0: about 0, in
# 4.2.3). The textbook cites no result that ties stride to smoothness or dilation to effective dimension,
# and this lesson shows none. [errata A10](../ERRATA.md#a10)
#
# </details>
#
# <details><summary>A12 · max pooling's kernel</summary>
#
# **The text says:** max pooling has no simple analytic form.
#
# **What is true:** right, with a detail: its infinite-width limit exists (Yang 2019), and its kernel is a
# Gaussian expectation over the windows with no known closed form, which we estimate by Monte Carlo. Whether it
# is "sharper" is not established. Measured here, with the scale divided out, it ranks pairs of different
# digits almost as average pooling does (rank correlation 0.96, in the check cell of 4.2.3) and forgives
# small shifts more. [errata A12](../ERRATA.md#a12)
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
# **Exercises:** 4.2 (which shift symmetries, which readout) and 4.6 (alternatives to max pooling).
#
# **Next:** [04 · Residual networks](04_resnet.ipynb)
