"""A dimod-style sampler whose every call kills its own process, as the kernel's OOM killer
would: what a study's worker death looks like (``Task(sampler_class="dying_sampler:Dying")``)."""
import os
import signal


class Dying:
    parameters: dict = {}

    def sample(self, bqm, num_reads=1, seed=None, num_sweeps=1):
        os.kill(os.getpid(), signal.SIGKILL)
