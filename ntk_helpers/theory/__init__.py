"""What the kernels imply: signal propagation through depth (lesson 02), training dynamics and kernel
regression (lesson 07), spectra, effective rank and its law (lessons 06, 08)."""
