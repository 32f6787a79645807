"""The project's own fuzzing: a seeded generator of malformed and adversarial files in every
format, run on every reader and through the command line.

Every file is a valid puzzle file turned bad in one way (cut short, a byte flipped, a line
dropped or doubled, a number made huge, negative, zero or a word, a BOM, CRLF line ends, NUL
bytes), or an adversarial one (entity expansion, deep nesting, a very long line, huge
dimensions). Reading it must give a puzzle or one PuzzleError line that names the file, never
another exception; through the command line, one line on stderr, exit 2 (or 0/1 when the file
happens to stay a valid puzzle), never a traceback, and one JSON object with ``--json``.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from formulations.io import read_puzzle
from formulations.io.writers import write_non, write_text
from formulations.puzzle import Puzzle, PuzzleError, puzzle_from_grid

from helpers import ROOT
SEED = 20261201
PER_FORMAT = 45


# -- valid files, one per format --------------------------------------------------------------

def _puzzle(seed: int, h: int = 6, w: int = 7) -> Puzzle:
    rng = random.Random(seed)
    return puzzle_from_grid(tuple(tuple(int(rng.random() < 0.5) for _ in range(w))
                                  for _ in range(h)), f"fuzz{seed}")


def _lines_of(clues) -> list[str]:
    return [" ".join(str(b.length) for b in c) or "0" for c in clues]


def valid_files(p: Puzzle) -> dict[str, str]:
    """The same puzzle in every format the readers take: file name -> text."""
    rows, cols = _lines_of(p.rows), _lines_of(p.columns)
    xml_lines = lambda clues: "".join(  # noqa: E731
        "<line>" + "".join(f"<count>{b.length}</count>" for b in c) + "</line>" for c in clues)
    janko = {"data": {"1_x": {"problem": f"{p.height} {p.width}\n" + "\n".join(cols + rows),
                              "solution": ""}}}
    colour = "COLOUR r red #ff0000\nROWS\n1r 1\n2r\nCOLUMNS\n2r\n1r\n0\n1\n"
    return {
        "a.txt": write_text(p),
        "colour.txt": colour,
        "a.non": write_non(p),
        "a.xml": ('<?xml version="1.0"?>\n<puzzleset><puzzle type="grid">'
                  f'<clues type="columns">{xml_lines(p.columns)}</clues>'
                  f'<clues type="rows">{xml_lines(p.rows)}</clues></puzzle></puzzleset>\n'),
        "a.json": json.dumps(janko),
        "a.nin": f"{p.width} {p.height}\n" + "\n".join(rows + cols) + "\n",
        "pyno.txt": ("[colors]\nb = (blue) *\n[clues]\ncolumns =\n    " + ", ".join(cols)
                     + "\nrows =\n    " + ", ".join(rows) + "\n"),
        "a.toml": ('[clues]\ncolumns = """\n' + "\n".join(cols) + '\n"""\nrows = """\n'
                   + "\n".join(rows) + '\n"""\n'),
        "jcross.txt": (f"1\n{p.height} {p.width}\n" + "\n".join(f"{r} 0" if r != "0" else "0" for r in rows)
                       + "\n" + "\n".join(f"{c} 0" if c != "0" else "0" for c in cols) + "\n"),
        "keen.txt": "\n".join(rows) + "\n\n" + "\n".join(cols) + "\n",
        "dejoue.txt": ("GRID fuzz\nROWS\n" + "\n".join(f"[ {r} ]" for r in rows) + "\nCOLUMNS\n"
                       + "\n".join(f"[ {c} ]" for c in cols) + "\n"),
    }


# -- turning them bad ---------------------------------------------------------------------------

def _mutate(data: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(11)
    lines = data.split(b"\n")
    if kind == 0 and data:  # cut short
        return data[:rng.randrange(len(data))]
    if kind == 1 and data:  # a byte flipped
        i = rng.randrange(len(data))
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:]
    if kind == 2 and len(lines) > 1:  # a line dropped
        del lines[rng.randrange(len(lines))]
        return b"\n".join(lines)
    if kind == 3:  # a line doubled
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return b"\n".join(lines)
    digits = [i for i, ch in enumerate(data) if 48 <= ch <= 57]
    if kind in (4, 5, 6, 7) and digits:  # a number made huge, negative, zero or a word
        i = rng.choice(digits)
        new = [b"99999999999999999999", b"-3", b"0", b"x"][kind - 4]
        return data[:i] + new + data[i + 1:]
    if kind == 8:
        return b"\xef\xbb\xbf" + data  # a BOM
    if kind == 9:
        return data.replace(b"\n", b"\r\n")  # CRLF
    return data[: len(data) // 2] + b"\x00\x00" + data[len(data) // 2:]  # NUL bytes


def adversarial_files() -> dict[str, bytes]:
    laughs = ('<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
              + "".join(f'<!ENTITY {chr(98 + k)} "{("&" + chr(97 + k) + ";") * 10}">' for k in range(8))
              + ']><puzzleset><puzzle><title>&i;</title></puzzle></puzzleset>')
    return {
        "laughs.xml": laughs.encode(),
        "deep.xml": (b"<puzzleset>" + b"<a>" * 50000 + b"</a>" * 50000 + b"</puzzleset>"),
        "longline.txt": b"ROWS\n" + b"1 " * 500_000 + b"\nCOLUMNS\n1\n",
        "huge_dims.non": b"width 100000000\nheight 100000000\nrows\n1\ncolumns\n1\n",
        "huge_block.txt": b"ROWS\n" + b"9" * 5000 + b"\nCOLUMNS\n1\n",
        "deep.json": b"[" * 100000 + b"]" * 100000,
        "nested.toml": b"[clues]\nrows = " + b"[" * 5000 + b"]" * 5000 + b"\n",
        "binary.non": bytes(range(256)) * 40,
    }


def fuzz_files(folder: Path) -> list[Path]:
    rng = random.Random(SEED)
    out = []
    for name, text in valid_files(_puzzle(SEED)).items():
        data = text.encode()
        for j in range(PER_FORMAT):
            bad = data
            for _ in range(1 + rng.randrange(3)):
                bad = _mutate(bad, rng)
            path = folder / f"m{j:02d}_{name}"
            path.write_bytes(bad)
            out.append(path)
    for name, data in adversarial_files().items():
        path = folder / name
        path.write_bytes(data)
        out.append(path)
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> list[Path]:
    return fuzz_files(tmp_path_factory.mktemp("fuzz"))


def test_the_generator_makes_every_format_valid_first():
    for name, text in valid_files(_puzzle(3)).items():
        from formulations.io import parse_puzzle
        puzzle = parse_puzzle(text, path=name)
        assert puzzle.height and puzzle.width, name


def test_every_reader_gives_a_puzzle_or_one_line_naming_the_file(files):
    rejected = 0
    for path in files:
        try:
            puzzle = read_puzzle(path)
        except PuzzleError as exc:
            msg = str(exc)
            assert "\n" not in msg and msg.startswith(f"{path}:"), (path, msg)
            rejected += 1
        else:
            puzzle.validate()  # what was accepted is a well-formed puzzle
    assert rejected > len(files) // 2  # the mutations really do break files


def test_the_command_line_on_fuzzed_files_exits_cleanly(files):
    rng = random.Random(SEED + 1)
    sample = rng.sample(files[:-len(adversarial_files())], 16) + files[-len(adversarial_files()):]
    for path in sample:
        p = subprocess.run([sys.executable, "-m", "formulations.solve", str(path), "--json",
                            "--time-limit", "10"], cwd=ROOT, capture_output=True, text=True,
                           timeout=60)
        assert "Traceback" not in p.stderr, (path, p.stderr)
        record = json.loads(p.stdout)  # exactly one JSON object
        assert record["exit_code"] == p.returncode and record["puzzle"] == str(path)
        if p.returncode == 2:
            lines = p.stderr.strip().splitlines()
            assert len(lines) == 1 and str(path) in lines[0], (path, p.stderr)
        else:
            assert p.returncode in (0, 1) and record["status"] in ("solved", "infeasible", "unknown")
