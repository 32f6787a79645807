"""A colour keeps the letter its file gave it, on screen and when written back, and a colour
described in words is drawn as the words say."""
from __future__ import annotations

import formulations as nf
from formulations.io.colours import name_rgb
from formulations.show.text import colour_chars, grid_lines, legend

NAVY = """TITLE letters
COLOUR b navy
COLOUR y sunny yellow
COLOUR q mauve-ish thing
ROWS
1b 1y
1q 1b
COLUMNS
1b 1q
1y 1b
"""


def test_declared_letters_are_shown_and_written_back():
    p = nf.parse_puzzle(NAVY, "text")
    chars = colour_chars(p)
    assert [chars[c] for c in (2, 3, 4)] == ["b", "y", "q"]  # not n(avy), s(unny), m(auve)
    grid = nf.solve_puzzle(p, "lines").grid
    assert nf.check_grid(p, grid) == []
    assert grid_lines(p, grid) == ["by", "qb"]
    assert legend(p) == {".": "white", "b": "navy", "y": "sunny yellow", "q": "mauve-ish thing"}
    text = nf.write_text(p)
    assert "COLOUR b navy" in text and "1b 1y" in text
    again = nf.parse_puzzle(text, "text")
    assert again == p and again.letters == p.letters


def test_a_name_ending_in_a_css_name_gets_that_colour():
    p = nf.parse_puzzle(NAVY, "text")
    rgb = {idx: code for idx, _, code in p.palette}
    assert rgb[2] == "#000080" and rgb[3] == "#ffff00"  # sunny yellow is yellow, not red
    assert rgb[4] not in ("#000080", "#ffff00", "#ffffff", "#000000")  # generated, distinct
    assert name_rgb("very dark green") == name_rgb("darkgreen") != name_rgb("green")
    assert name_rgb("mauve-ish thing") is None


def test_webpbn_chars_that_are_letters_are_kept(tmp_path):
    xml = tmp_path / "c.xml"
    xml.write_text("""<?xml version="1.0"?>
<puzzleset><puzzle type="grid" defaultcolor="black">
<color name="white" char=".">FFFFFF</color><color name="black" char="X">000000</color>
<color name="navy" char="b">000080</color><color name="red" char="*">FF0000</color>
<clues type="columns"><line><count color="navy">1</count></line>
<line><count color="red">1</count></line></clues>
<clues type="rows"><line><count color="navy">1</count><count color="red">1</count></line></clues>
</puzzle></puzzleset>""")
    p = nf.read_puzzle(xml)
    grid = nf.solve_puzzle(p, "lines").grid
    line = grid_lines(p, grid)[0]
    assert line[0] == "b" and line[1] not in "b.#"


def test_pynogram_one_letter_names_are_kept():
    p = nf.parse_puzzle("[colors]\nz = (sunny yellow)\n[clues]\ncolumns = 1z\nrows = 1z\n")
    assert colour_chars(p)[2] == "z" and p.palette[2][2] == "#ffff00"
