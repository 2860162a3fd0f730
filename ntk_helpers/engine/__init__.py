"""The engine: layers that hold both worlds, a finite torch module and an infinite-width kernel rule.

- :mod:`.kernel`: the ``Kernel`` a layer maps (NNGP, NTK and self covariances), ``NoClosedForm``;
- :mod:`.layer`: the ``Layer`` base with ``kernel()`` and ``network()``; :mod:`.combinators`: ``serial``,
  ``residual``; :mod:`.blocks`: blocked evaluation with bounded memory;
- one file per layer family: :mod:`.dense`, :mod:`.activations` (with :mod:`.quadrature` for activations
  without a closed form), :mod:`.conv` and :mod:`.pooling` (on pixel-pair tensors, :mod:`.spatial`),
  :mod:`.normalization`; :mod:`.architectures`: ``mlp`` and ``resnet``.
"""
