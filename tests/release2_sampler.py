"""A small dimod sampler for tests/test_release2.py: single-flip Metropolis annealing in numpy,
seeded, ``num_sweeps`` long (a user's sampler as `bench/release.py sampler` takes it)."""
from __future__ import annotations

import dimod
import numpy as np


class TinyAnnealer(dimod.Sampler):
    """Metropolis single-flip annealing over a linear beta schedule from 0.1 to ``beta_max``."""

    parameters = {"num_reads": [], "num_sweeps": [], "seed": [], "beta_max": []}
    properties: dict = {}

    def sample(self, bqm, num_reads: int = 1, num_sweeps: int = 100, seed: int | None = None,
               beta_max: float = 5.0, **kw):
        bqm = bqm.change_vartype(dimod.BINARY, inplace=False)
        labels = list(bqm.variables)
        idx = {v: i for i, v in enumerate(labels)}
        n = len(labels)
        lin = np.array([bqm.linear[v] for v in labels], dtype=float)
        Q = np.zeros((n, n))
        for (u, v), b in bqm.quadratic.items():
            Q[idx[u], idx[v]] += b
            Q[idx[v], idx[u]] += b
        rng = np.random.default_rng(seed)
        out = np.empty((num_reads, n), dtype=np.int8)
        betas = np.linspace(0.1, float(beta_max), max(1, int(num_sweeps)))
        for r in range(num_reads):
            x = rng.integers(0, 2, n).astype(float)
            field = lin + Q @ x
            for beta in betas:
                for i in rng.permutation(n):
                    d = (1 - 2 * x[i]) * field[i]          # energy change of flipping i
                    if d <= 0 or rng.random() < np.exp(-beta * d):
                        step = 1 - 2 * x[i]
                        x[i] += step
                        field += step * Q[:, i]
            out[r] = x
        return dimod.SampleSet.from_samples_bqm((out, labels), bqm)
