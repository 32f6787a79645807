"""What a run needs whatever it solves: the one deadline its stages share (``clock``), the one CPU
clock of the statistics (``cputime``) and what every worker process needs (``workers``)."""
