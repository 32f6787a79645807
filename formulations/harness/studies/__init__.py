"""The studies behind the commands of ``bench/``: one module per study, holding what its command
and the tests and notebooks share (its puzzles, its plan of tasks, its summaries and tables). The
command in ``bench/`` parses arguments and calls these; the runner is :mod:`..study`."""
