# %% [markdown]
# # 05 · Normalization and parameterization: what stays fixed, what moves
#
# *Chapter 4.4.*
#
# **You will learn**
# - 4.4.1: the infinite-width kernel of **layer norm**, and why **batch norm** has none (the batch couples inputs);
# - 4.4.2: the NTK, standard and μP parameterizations side by side, measured: in which one the kernel and the
#   features stay put as the width grows ("lazy"), and in which they move ("feature learning");
# - what "lazy" really means: the *output* still moves by $O(1)$.
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
# ## 4.4.1 Layer norm
#
# Layer norm rescales each input's pre-activations by their own mean and spread over the units. At infinite
# width that spread is the kernel diagonal, so right after a dense (or conv) layer
#
# $$\Sigma \mapsto \frac{\Sigma(x,x')}{\sqrt{\Sigma(x,x)\,\Sigma(x',x')}}, \qquad \Theta \mapsto \frac{\Theta(x,x')}{\sqrt{\Sigma(x,x)\,\Sigma(x',x')}}$$
#
# (the Jacobian's projection terms are $O(1/\text{width})$). The kernel then depends on the inputs only through
# their directions. Experiment: scale one input by $a$ (the layer that feeds layer norm has no bias, so its
# output scales with $a$ too).

# %%
pair = nh.sphere(2, d=5, seed=0)
scales = np.geomspace(0.25, 4, 17)
nets = {
    "ReLU, no bias": nh.serial(nh.dense(sigma_w=1.4), nh.relu(), nh.dense(1)),
    "ReLU + bias": nh.serial(nh.dense(sigma_w=1.4, sigma_b=0.5), nh.relu(), nh.dense(1)),
    "dense → layer norm → ReLU": nh.serial(nh.dense(sigma_w=1.4), nh.layer_norm(), nh.relu(), nh.dense(1, sigma_b=0.5)),
}
ratios = {name: [float(net.kernel(a * pair[:1], pair[1:]).ntk / net.kernel(pair[:1], pair[1:]).ntk) for a in scales]
          for name, net in nets.items()}
fig, ax = plt.subplots()
for name, r in ratios.items():
    ax.loglog(scales, r, "o-", ms=4, label=name)
ax.set_xlabel("scale a of the first input")
ax.set_ylabel("Θ(a x, x′) / Θ(x, x′)")
ax.legend()
plt.show()

# %%
assert np.allclose(ratios["ReLU, no bias"], scales, rtol=1e-10)              # homogeneous: linear in a
assert np.ptp(ratios["dense → layer norm → ReLU"]) < 1e-4                    # invariant (up to eps = 1e-5)
assert not np.allclose(ratios["ReLU + bias"], scales, rtol=1e-2)
print("ReLU: linear in a; layer norm: independent of a; a bias breaks both")

# %% [markdown]
# Finite networks with layer norm converge to this kernel:

# %%
inputs = nh.sphere(8, d=5, seed=1) * 2
arch = nh.serial(nh.dense(sigma_w=1.4, sigma_b=0.3), nh.layer_norm(), nh.relu(), nh.dense(sigma_w=1.4), nh.layer_norm(),
                 nh.tanh(), nh.dense(1))
sweep = nh.width_sweep(arch, inputs, widths=[64, 256, 1024], seeds=4)
print("relative error per width:", sweep.errors.mean(1).round(3), f" slope {sweep.slope:.2f}")
assert sweep.slope < -0.35

# %% [markdown]
# ## Batch norm couples the batch
#
# > **The text says:** batch norm is "non-smooth when the statistics change"; layer norm "fits the NTK framework
# > better".  
# > **What is true:** batch norm is smooth. Its problem is that the statistics are taken over a **finite batch**,
# > which does not grow with the width: one input's output depends on which other inputs share its batch, and
# > there is no per-pair kernel (Yang et al. 2019). In eval mode with fixed statistics ("frozen") it is an affine
# > map, and the usual recursion applies exactly.
#
# Experiment: keep $x_1$ fixed, draw the other 7 members of its batch 200 times, and record $f(x_1)$.

# %%
x1 = nh.sphere(1, d=5, seed=2)
outputs = {}
for name, norm in [("batch norm (batch statistics)", nh.batch_norm()), ("frozen batch norm", nh.batch_norm(frozen=True))]:
    model = nh.serial(nh.dense(sigma_w=1.4), norm, nh.relu(), nh.dense(1)).network(5, width=512, seed=0)
    with torch.no_grad():
        outputs[name] = torch.stack([model(torch.cat([x1, nh.sphere(7, d=5, seed=100 + b)]))[0, 0] for b in range(200)])
fig, ax = plt.subplots()
for name, values in outputs.items():
    ax.hist(values.numpy(), bins=30, alpha=0.7, label=f"{name}: std {float(values.std()):.3f}")
ax.set_xlabel("f(x₁) for 200 different batch mates")
ax.set_ylabel("count")
ax.legend()
plt.show()

# %%
assert outputs["batch norm (batch statistics)"].std() > 0.05 and outputs["frozen batch norm"].std() < 1e-12
bn = nh.serial(nh.dense(sigma_w=1.4), nh.batch_norm(), nh.relu(), nh.dense(1))
try:
    bn.kernel(x1)
except NotImplementedError as error:
    print("bn.kernel(...):", str(error)[:80], "…")

# %% [markdown]
# Its kernels can still be *estimated* from an ensemble of finite networks, with error bars:

# %%
batch = nh.sphere(6, d=5, seed=3)
estimate = nh.monte_carlo_kernel(bn, batch, width=256, n_networks=16)
print("Monte Carlo NTK, first row:", estimate.ntk[0].numpy().round(3))
print("standard errors:          ", estimate.ntk_sem[0].numpy().round(3))

# %% [markdown]
# ## 4.4.2 Three parameterizations of one network
#
# Every trainable weight is $\mathcal N(0,1)$; layer $l$ computes $\text{mult}_l \cdot h\,w_l^\top$ and learns with rate
# $\eta\cdot\text{lr}_l$ (Yang et al. 2022, Table 3; width $m$, input dimension $d$):
#
# | | input layer | hidden layers | output layer | width → ∞ |
# |---|---|---|---|---|
# | **NTK** | mult $1/\sqrt d$, lr 1 | mult $1/\sqrt m$, lr 1 | mult $1/\sqrt m$, lr 1 | fixed kernel: *lazy* |
# | **standard** (PyTorch-like) | mult $1/\sqrt d$, lr $d$ | mult $1/\sqrt m$, lr $m$ | mult $1/\sqrt m$, lr $m$ | unstable at fixed $\eta$ |
# | **μP** | mult $1/\sqrt d$, lr $md$ | mult $1/\sqrt m$, lr $m$ | mult $\mathbf{1/m}$, lr $m$ | features move: *feature learning* |
#
# > **The text says:** NTK initialization has variance $1/(n_\text{in} m)$; μP means "scale each layer's output by
# > $1/\sqrt m$"; its `MuPLinear` code implements μP; in the lazy regime "the output changes by $O(t/\sqrt m)$".  
# > **What is true:** the NTK parameterization has the same effective variance $\sigma_w^2/n_\text{in}$ as LeCun/He
# > initialization (only the gradient scales differ); "scale by $1/\sqrt m$" *is* the NTK parameterization; μP needs
# > the output multiplier $1/m$ and per-layer learning rates, which a bare $1/\sqrt{m}$ initialization does not
# > have. And in the lazy regime the output moves by $O(1)$ (it fits the data): what vanishes with width is the
# > change of the **kernel** and of the **features**.
#
# Experiment (AUDIT E8): one hidden layer, 16 training points, 50 steps of gradient descent, widths 256 … 4096,
# 3 seeds. We record the relative change of the learning-rate-weighted NTK and of the hidden feature kernel.

# %%
x_train = nh.sphere(16, d=8, seed=0)
y_train = torch.sin(2 * x_train[:, 0])
widths = [256, 1024, 4096]
learning_rate = {"ntk": 0.5, "mup": 0.02}

def movement(parameterization, width, seed):
    model = nh.parameterized_mlp(8, width=width, parameterization=parameterization, seed=seed)
    record = nh.train(model, x_train, y_train, lr=learning_rate[parameterization], steps=50)
    output_change = float((record.outputs[-1] - record.outputs[0]).norm() / y_train.norm())
    return record.ntk_change, record.feature_change, output_change

results = {p: np.array([[movement(p, m, s) for s in range(3)] for m in widths]).mean(1) for p in learning_rate}
for p, r in results.items():
    print(f"{p:>4}: NTK change {r[:, 0].round(4)}, feature change {r[:, 1].round(4)}, output change {r[:, 2].round(2)}")

# %%
fig, ax = plt.subplots()
slopes = {}
for p, r in results.items():
    slopes[p, "NTK"] = nh.plotting.loglog_fit(ax, widths, r[:, 0], label=f"{p}: NTK change")
    slopes[p, "features"] = nh.plotting.loglog_fit(ax, widths, r[:, 1], label=f"{p}: feature change")
ax.set_xlabel("width m")
ax.set_ylabel("relative change after 50 steps")
plt.show()

# %%
print({f"{p} {what}": round(float(v), 2) for (p, what), v in slopes.items()})
assert slopes["ntk", "NTK"] <= -0.4 and slopes["ntk", "features"] <= -0.7
assert abs(slopes["mup", "NTK"]) <= 0.2 and abs(slopes["mup", "features"]) <= 0.15
assert (results["ntk"][:, 2] > 0.5).all()          # lazy, yet the outputs moved by O(1)

# %% [markdown]
# **Lazy** therefore means: the network fits the data while its kernel and features stay (almost) where they
# started, and the remaining movement vanishes as $m^{-1/2}$ to $m^{-1}$ (the $m^{-1/2}$ of Lee et al. 2019 is an
# upper bound). Under μP the features move by the same $O(1)$ amount at every width.
#
# Two more consequences of the table: μP's output at initialization shrinks like $m^{-1/2}$ (the $1/m$ multiplier),
# and the standard parameterization at a fixed learning rate takes steps that grow with the width.

# %%
with torch.no_grad():
    rms = [float(torch.stack([nh.parameterized_mlp(8, width=m, parameterization="mup", seed=s)(x_train)
                              for s in range(20)]).pow(2).mean().sqrt()) for m in widths]
one_step = [float(nh.train(nh.parameterized_mlp(8, width=m, parameterization="standard", seed=0), x_train, y_train,
                           lr=1.0, steps=1).loss[-1]) for m in widths]
print(f"μP output at init (RMS): {np.round(rms, 4)}, slope {nh.loglog_slope(widths, rms):.2f}")
print(f"standard parameterization, loss after one step at lr 1: {np.round(one_step, 1)}")
assert abs(nh.loglog_slope(widths, rms) + 0.5) < 0.15 and one_step[0] < one_step[1] < one_step[2]

# %% [markdown]
# ## Explore
#
# Train one network and compare its feature kernel before and after (left) and its loss (right).

# %%
def draw_training(parameterization, width):
    lr = {"ntk": 0.5, "mup": 0.02, "standard": 0.5 / width}[parameterization]
    model = nh.parameterized_mlp(8, width=width, parameterization=parameterization, seed=0)
    record = nh.train(model, x_train, y_train, lr=lr, steps=50)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.5, 3.8))
    left.scatter(record.features_start.flatten(), record.features_end.flatten(), s=8)
    lims = [float(record.features_start.min()), float(record.features_start.max())]
    left.plot(lims, lims, "k--", lw=1)
    left.set_xlabel("feature kernel before")
    left.set_ylabel("after 50 steps")
    right.semilogy(record.loss)
    right.set_xlabel("step")
    right.set_ylabel("training loss")
    print(f"{parameterization}, width {width}: NTK change {record.ntk_change:.4f}, feature change {record.feature_change:.4f}")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_training,
                       parameterization=nh.widgets.dropdown("parameterization", "ntk", options=["ntk", "mup", "standard"]),
                       width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)))

# %% [markdown]
# ## Summary
#
# - Layer norm after a dense/conv layer divides the kernel by its diagonal: the kernel sees only directions.
# - Batch norm with batch statistics couples the inputs of a batch; it has Monte Carlo kernels, not a closed form.
#   Frozen batch norm is affine.
# - NTK parameterization: kernel and features freeze as width grows (slopes measured above), while the output fits
#   the data. μP: features move by $O(1)$ at every width. Standard parameterization at fixed $\eta$: unstable.
#
# **Exercise:** 4.5 (how μP breaks the kernel limit).
