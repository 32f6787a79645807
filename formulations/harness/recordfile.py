"""The one record format of the harness and the one file it is written to and resumed from.

Every measurement the package records is one flat JSON-able dict: a comparison's run
(:mod:`formulations.harness.records`, kind ``run``) or a study's task
(:mod:`formulations.harness.study`, kind ``study``). Each starts with the same **envelope**
(:data:`ENVELOPE`, read from any record, old or new, by :func:`envelope`):

========== ========================================================================================
``v``      the format's version (:data:`RECORD_VERSION`); 1 for a study record written before the
           envelope, and for every row of a comparison CSV (the CSV's header is its version)
``kind``   ``run`` or ``study`` (implied by an older record's fields: ``instance`` means a study)
``key``    what a resumed run skips: unique within a file
``puzzle`` what was measured: the puzzle's name (a study's ``instance``), ``source`` (where it is
           read from), ``size`` (``HxW``) and ``cells``
``backend`` who measured: the backend or sampler, ``options`` (canonical JSON text: a run's
           backend options, a study task's variant), ``seed``
``status`` a :class:`~formulations.results.Status` value: a study record is ``solved`` when a read
           (or the exact call) gave a verified grid, ``unknown`` when none did, ``error`` when the
           measurement failed, ``timeout`` when the executor killed it
``message`` the error message (or the solver's), ``""`` when none
``wall_s`` the wall seconds of what the record measured (None when it never ran)
========== ========================================================================================

The rest of a record is its kind's own part: a run's verified grid, energies, TTS99 and CPU
figures (:class:`~formulations.harness.records.RunRecord`); a study's reads, successes, energy
quantiles and per-call CPU (:func:`formulations.harness.study.measure`), with the names its
readers have always used (``instance``, ``sampler``, ``error`` beside the envelope's own).

:class:`RecordFile` holds records of either kind in one of two layouts, by the file's suffix:

* ``.csv``: records of one kind in typed columns (:class:`Columns`; a comparison's runs,
  :data:`~formulations.harness.records.RUN_COLUMNS`, the layout ``compare`` writes by default);
  a file written before some columns existed is read with those None and widened on resuming;
* anything else (``records.jsonl.gz``): gzip members of JSON lines, one member per record, each
  written with one ``write`` on a file opened for appending, so a kill leaves at most a torn
  last member, which :meth:`RecordFile.repair` cuts.

Both resume the same way (:meth:`RecordFile.resume`: cut the torn tail, read the records by
key); the executor (:class:`~formulations.harness.executors.Executor`) gives every item one
record, an error record included.
"""
from __future__ import annotations

import csv
import gzip
import json
import os
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..results import BackendError

RECORD_VERSION = 2
ENVELOPE = ("v", "kind", "key", "puzzle", "source", "size", "cells", "backend", "options", "seed",
            "status", "message", "wall_s")
KINDS = ("run", "study")


@dataclass(frozen=True)
class Envelope:
    """The common part of any record (see the module docstring), whatever its kind or age."""
    v: int
    kind: str
    key: str
    puzzle: str | None
    source: str | None
    size: str | None
    cells: int | None
    backend: str | None
    options: str
    seed: int | None
    status: str
    message: str
    wall_s: float | None


def kind_of(record: Mapping[str, Any]) -> str:
    """``run`` or ``study``: the record's ``kind``, else what its fields say (a study record
    written before the envelope has an ``instance``)."""
    kind = record.get("kind")
    if kind:
        return str(kind)
    return "study" if "instance" in record else "run"


def canonical(options: Mapping[str, Any] | None) -> str:
    """Options as canonical JSON text (sorted keys), the envelope's ``options``."""
    return json.dumps(dict(sorted((options or {}).items())), sort_keys=True, default=list)


def study_status(record: Mapping[str, Any]) -> str:
    """A study record's status: its own ``status`` (the exact baselines and budget runs carry
    the solve's), else ``error`` for a failed measurement, ``solved`` when a read gave a
    verified grid, ``infeasible`` when presolve proved the clues contradictory, ``unknown``."""
    if record.get("status"):
        return str(record["status"])
    if "error" in record:
        return "error"
    if record.get("verified"):
        return "solved"
    return "infeasible" if record.get("presolved") else "unknown"


def envelope(record: Mapping[str, Any]) -> Envelope:
    """The envelope of any record: a comparison row (CSV or JSON), a study record of version 1
    (``instance``, ``sampler``, ``error``) or of this version."""
    kind = kind_of(record)
    study = kind == "study"
    options = record.get("options")
    if not isinstance(options, str):
        options = canonical(record.get("variant") if study else options)
    return Envelope(
        v=int(record.get("v", 1)), kind=kind, key=str(record["key"]),
        puzzle=record.get("puzzle", record.get("instance")), source=record.get("source"),
        size=record.get("size"), cells=record.get("cells"),
        backend=record.get("backend", record.get("sampler")), options=options,
        seed=record.get("seed"),
        status=study_status(record) if study else str(record.get("status", "error")),
        message=str(record.get("message") or record.get("error") or ""),
        wall_s=record.get("wall_s"))


@dataclass(frozen=True)
class Columns:
    """A CSV layout: the columns of one kind of record, in order, and each one's type as its
    annotation reads (``bool``, ``int | None``, ``float | None``, ``str``)."""
    names: tuple[str, ...]
    types: Mapping[str, str]
    kind: str = "run"

    def cell(self, v: Any) -> str:
        if v is None:
            return ""
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            return repr(v)
        return str(v)

    def value(self, name: str, s: str) -> Any:
        typ = self.types.get(name, "str")
        if s == "" and "None" in typ:
            return None
        if typ.startswith("bool"):
            return s == "true"
        if typ.startswith("int"):
            return int(s)
        if typ.startswith("float"):
            return float(s)
        return s


def read_csv(path: str | Path, columns: Columns) -> list[dict[str, Any]]:
    """The rows of a CSV with their types restored; a column the file lacks (written before it
    existed) is None in every row, a truncated line is left out."""
    out = []
    with Path(path).open(newline="") as f:
        reader = csv.DictReader(f)
        missing = [k for k in columns.names if k not in (reader.fieldnames or ())]
        for row in reader:
            if None in row or None in row.values():
                continue  # a line with more or fewer cells than the header: truncated
            got = {k: columns.value(k, v) for k, v in row.items()}
            for k in missing:
                got[k] = None
            out.append(got)
    return out


class ColumnsSink:
    """Appends rows to a CSV (header written once), flushing each so an interrupted run keeps
    every finished row; a partial last line left by a hard kill is cut before appending."""

    def __init__(self, path: str | Path, columns: Columns):
        self.path, self.columns = Path(path), columns
        names = columns.names
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists() and self.path.stat().st_size:
            data = self.path.read_bytes()
            if not data.endswith(b"\n"):
                self.path.write_bytes(data[:data.rfind(b"\n") + 1])
            with self.path.open(newline="") as f:
                header = next(csv.reader(f), None)
            if header and tuple(header) != names and set(header) < set(names):
                self._widen()  # written before some columns existed
            elif header and tuple(header) != names:
                raise BackendError(f"{self.path}: columns differ from this version's "
                                   f"({len(header)} vs {len(names)}); write to a new file")
        new = not self.path.exists() or self.path.stat().st_size == 0
        self.f = self.path.open("a", newline="")
        self.w = csv.writer(self.f)
        if new:
            self.w.writerow(names)
            self.f.flush()

    def _widen(self) -> None:
        """Rewrite a file written before some of the columns existed with every column (the
        new ones empty), atomically, so that a run can append to it."""
        rows = read_csv(self.path, self.columns)
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        with tmp.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(self.columns.names)
            for r in rows:
                w.writerow([self.columns.cell(r.get(k)) for k in self.columns.names])
        tmp.replace(self.path)

    def write(self, row: Mapping[str, Any]) -> None:
        self.w.writerow([self.columns.cell(row.get(k)) for k in self.columns.names])
        self.f.flush()

    def close(self) -> None:
        self.f.close()


class RecordFile:
    """Records appended to a file, one layout by suffix (see the module docstring): a torn last
    record is cut on resuming, and a run skips the keys already present."""

    def __init__(self, path: str | Path, columns: Columns | None = None):
        self.path = Path(path)
        self.csv = self.path.suffix.lower() == ".csv"
        if self.csv and columns is None:
            raise ValueError(f"{self.path}: a CSV needs its columns (e.g. "
                             "formulations.harness.records.RUN_COLUMNS)")
        self.columns = columns
        self._sink: ColumnsSink | None = None  # the CSV layout's open writer

    # -- reading --------------------------------------------------------------------------------

    def read(self) -> list[dict]:
        """Every intact record, in the order written, as stored (a CSV's rows typed)."""
        if self.csv:
            assert self.columns is not None
            return read_csv(self.path, self.columns) if self.path.exists() else []
        return list(self._members()[0])

    def resume(self) -> dict[str, dict]:
        """Ready to append: a torn last record cut (a CSV written before some columns existed
        widened; one with other columns refused), then the records by key (a later record of
        a key wins)."""
        if self.csv:
            self._open_csv()
        else:
            self.repair()
        return {r["key"]: r for r in self.read()}

    def _members(self) -> tuple[list[dict], int]:
        """The records and the byte offset where the intact members end."""
        if not self.path.exists():
            return [], 0
        data = self.path.read_bytes()
        out, pos = [], 0
        while pos < len(data):
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                text = d.decompress(data[pos:])
                if not d.eof:
                    break  # torn
                for line in text.decode().splitlines():
                    if line.strip():
                        out.append(json.loads(line))
            except (zlib.error, ValueError):
                break
            pos = len(data) - len(d.unused_data)
        return out, pos

    def repair(self) -> int:
        """Cut a torn last record (a gzip member; a CSV's partial last line); returns the bytes
        removed."""
        if not self.path.exists():
            return 0
        size = self.path.stat().st_size
        if self.csv:
            data = self.path.read_bytes()
            good = data.rfind(b"\n") + 1 if data and not data.endswith(b"\n") else size
        else:
            _, good = self._members()
        if good < size:
            with self.path.open("r+b") as f:
                f.truncate(good)
        return size - good

    # -- writing --------------------------------------------------------------------------------

    def _open_csv(self) -> ColumnsSink:
        if self._sink is None:
            assert self.columns is not None
            self._sink = ColumnsSink(self.path, self.columns)  # cuts, widens, or refuses
        return self._sink

    def append(self, record: Mapping[str, Any]) -> None:
        """One record, durably (a CSV row flushed; a gzip member written in one ``write`` and
        fsynced). A comparison row gets the envelope's ``v`` and ``kind`` in the JSON layout
        (a CSV's header says them)."""
        kind = kind_of(record)
        if self.csv:
            assert self.columns is not None
            if kind != self.columns.kind:
                raise ValueError(f"{self.path}: this CSV holds {self.columns.kind} records; "
                                 f"write {kind} records to a .jsonl.gz file")
            self._open_csv().write(record)
            return
        if "kind" not in record:
            record = {"v": RECORD_VERSION, "kind": kind, **record}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        blob = gzip.compress((json.dumps(record, separators=(",", ":")) + "\n").encode(),
                             compresslevel=9, mtime=0)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, blob)
            os.fsync(fd)
        finally:
            os.close(fd)

    def close(self) -> None:
        if self._sink is not None:
            self._sink.close()
            self._sink = None

    def compact(self) -> None:
        """Rewrite the JSON layout as one gzip member (smaller), atomically (temporary file,
        then rename)."""
        if self.csv:
            raise ValueError(f"{self.path}: a CSV is not compacted")
        records = self.read()
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        with gzip.open(tmp, "wt", compresslevel=9) as f:
            for r in records:
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
        os.replace(tmp, self.path)


__all__ = ["ENVELOPE", "KINDS", "RECORD_VERSION", "Columns", "ColumnsSink", "Envelope",
           "RecordFile", "canonical", "envelope", "kind_of", "read_csv", "study_status"]
