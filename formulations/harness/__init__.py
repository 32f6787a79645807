"""The comparison harness: jobs and their rows, the one executor that runs them and every
study's tasks (a local pool of killable worker processes, or a Dask cluster), the one record
format and its file (:mod:`~formulations.harness.recordfile`), and the sweep that ties them
together. Its command line is :mod:`formulations.compare`."""
from .jobs import Job, PuzzleRef, Variant, load_puzzles, plan_jobs, resolve_backends
from .recordfile import RecordFile, envelope
from .records import (FIELDS, RUN_COLUMNS, TIMING_FIELDS, RunRecord, Table, format_table, read_results,
                      summarize, variant_label)
from .frames import as_frame, load_results
from .sweep import compare

__all__ = ["Job", "PuzzleRef", "Variant", "load_puzzles", "plan_jobs", "resolve_backends",
           "FIELDS", "TIMING_FIELDS", "RunRecord", "Table", "format_table", "read_results",
           "summarize", "variant_label", "compare", "as_frame", "load_results", "RecordFile",
           "envelope", "RUN_COLUMNS"]
