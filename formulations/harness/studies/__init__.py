"""The studies behind the commands of ``bench/``: one module per study, holding what its command,
the tests and the notebooks share (its puzzles, its plan of tasks or runs, its summaries and
tables). The command in ``bench/`` parses arguments and calls these; the sampler studies run on
:mod:`formulations.harness.study` (the release is :mod:`formulations.harness.release`)."""
