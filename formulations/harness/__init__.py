"""The comparison harness: jobs and their rows, the executors that run them (a local pool of
worker processes, or a Dask cluster), and the sweep that ties them together. Its command line is
:mod:`formulations.compare`."""
from .jobs import Job, PuzzleRef, Variant, load_puzzles, plan_jobs, resolve_backends
from .records import (FIELDS, TIMING_FIELDS, RunRecord, Table, format_table, read_results,
                      summarize, variant_label)
from .frames import as_frame, load_results
from .sweep import compare

__all__ = ["Job", "PuzzleRef", "Variant", "load_puzzles", "plan_jobs", "resolve_backends",
           "FIELDS", "TIMING_FIELDS", "RunRecord", "Table", "format_table", "read_results",
           "summarize", "variant_label", "compare", "as_frame", "load_results"]
