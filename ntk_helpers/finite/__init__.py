"""Finite networks: the empirical NTK of any module, Monte Carlo kernels, training with per-layer learning
rates, width sweeps, and the NTK / standard / muP parameterizations of an MLP (lessons 01, 05, 07)."""
