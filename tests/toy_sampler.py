"""A named sampler added the way docs/layout.md says: one declaration (this module's BACKENDS)
plus one registry line (``formulations.backends.register("toy-sa", "toy_sampler")``, which a
package module would write in the registry's table). It is dwave-samplers' simulated annealing
with a short fixed schedule of its own."""
from formulations.backends.sampling import SA_OPTIONS, SamplerPlan, declare, make_sampler

BACKENDS = [
    declare(SamplerPlan("toy-sa", make_sampler("dwave.samplers", "SimulatedAnnealingSampler"),
                        50, "interrupt", scaled_beta=True, default_sweeps=300, threads=True,
                        cost=(2e-9, "terms", 1.0), zero_length="num_sweeps"),
            "a test's named sampler: simulated annealing, 50 reads of 300 sweeps",
            options=dict(SA_OPTIONS), requires=("dimod", "dwave.samplers"),
            install_hint='pip install -e ".[anneal]"', use_x=False),
]
