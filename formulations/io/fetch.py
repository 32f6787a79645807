"""Puzzles downloaded from nonograms.org / nonograms.ru (seed 003's crawler): the page is fetched
and its ``var d`` array decoded by :mod:`formulations.io.nonograms_org`.

``fetch_puzzle("nonograms.org:4353")`` (or ``nonograms.ru:ID``, or a page's URL) returns the
puzzle. An id is one puzzle on either path: black and white under ``/nonograms/i/ID``, colour under
``/nonograms2/i/ID``; the first answers 404 for a colour id, so both are tried. Without a
network (or when the site does not answer) the result is one :class:`FetchError` line saying
so, never a traceback; a page saved in a browser reads the same way offline
(``read_puzzle("page.html")``).

Only the standard library is used (``urllib``, imported when downloading). ``NONOGRAM_FETCH_BASE`` (or ``base_url=``)
points every site at another server: a mirror, or a test's local one.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from .nonograms_org import MAX_TEXT_CHARS, parse_nonograms_org
from ..puzzle import Grid, Puzzle, PuzzleError

SITES = {"nonograms.org": "https://www.nonograms.org", "nonograms.ru": "https://www.nonograms.ru"}
PATHS = ("nonograms", "nonograms2")   # black and white, colour
TIMEOUT_S = 20.0
USER_AGENT = "nonogram-formulations (research; +https://www.nonograms.org)"
_SPEC = re.compile(r"(nonograms\.(?:org|ru)):(\d+)")
_URL = re.compile(r"https?://(?:www\.)?(nonograms\.(?:org|ru))/(nonograms2?)/i/(\d+)/?")
_OFFLINE_HINT = ("without a network, save the page in a browser and read the file "
                 "(read_puzzle('page.html'), or solve page.html)")


class FetchError(PuzzleError):
    """A puzzle could not be downloaded (no network, no answer, no such puzzle, no array)."""


def parse_source(source: str) -> tuple[str, int, tuple[str, ...]]:
    """``(site, id, paths to try)`` for ``nonograms.org:ID``, ``nonograms.ru:ID`` or a page URL."""
    s = source.strip()
    m = _SPEC.fullmatch(s)
    if m:
        return m.group(1), int(m.group(2)), PATHS
    m = _URL.fullmatch(s)
    if m:
        return m.group(1), int(m.group(3)), (m.group(2),)
    raise FetchError("expected nonograms.org:ID, nonograms.ru:ID or a puzzle page's URL "
                     "(https://www.nonograms.org/nonograms/i/ID)", path=source)


def _why(exc: BaseException, timeout: float) -> str:
    """A download failure in words."""
    import socket

    reason = getattr(exc, "reason", exc)
    if isinstance(reason, socket.gaierror):
        return f"no network (the name does not resolve: {reason.strerror or reason})"
    if isinstance(reason, (TimeoutError, socket.timeout)) or "timed out" in str(reason):
        return f"no answer within {timeout:g} s"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror
    return " ".join(str(reason).split()) or type(reason).__name__


def fetch_page(source: str, *, timeout: float = TIMEOUT_S,
               base_url: str | None = None) -> tuple[str, str]:
    """The page text of ``source`` and the URL it came from (see :func:`parse_source`)."""
    import urllib.error  # imported here: urllib.request and http.client cost ~50 ms at start-up
    import urllib.request

    site, pid, paths = parse_source(source)
    base = (base_url or os.environ.get("NONOGRAM_FETCH_BASE") or SITES[site]).rstrip("/")
    missing = []
    for path in paths:
        url = f"{base}/{path}/i/{pid}"
        req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                data = resp.read(MAX_TEXT_CHARS + 1)
                charset = resp.headers.get_content_charset() or "utf-8"
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                missing.append(url)
                continue
            raise FetchError(f"cannot download {url}: HTTP {exc.code} {exc.reason}",
                             path=source) from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise FetchError(f"cannot download {url}: {_why(exc, timeout)}; {_OFFLINE_HINT}",
                             path=source) from None
        if len(data) > MAX_TEXT_CHARS:
            raise FetchError(f"{url} sent more than {MAX_TEXT_CHARS} bytes", path=source)
        return data.decode(charset, errors="replace"), url
    raise FetchError(f"no puzzle {pid} on {site} (HTTP 404 for {' and '.join(missing)})",
                     path=source)


def fetch_with_goal(source: str, *, timeout: float = TIMEOUT_S, save: str | Path | None = None,
                    base_url: str | None = None) -> tuple[Puzzle, Grid]:
    """The puzzle at ``source`` and its picture. ``save``: also write the page there, to read it
    again offline."""
    text, url = fetch_page(source, timeout=timeout, base_url=base_url)
    if save is not None:
        Path(save).write_text(text, encoding="utf-8")
    try:
        return parse_nonograms_org(text)
    except PuzzleError as exc:
        raise FetchError(f"the page {url} cannot be read: {exc.message} (a deleted puzzle, or "
                         "the site's layout changed)", path=source) from None


def fetch_puzzle(source: str, *, timeout: float = TIMEOUT_S, save: str | Path | None = None,
                 base_url: str | None = None) -> Puzzle:
    """The puzzle at ``source`` (``nonograms.org:ID``, ``nonograms.ru:ID`` or a page URL)."""
    return fetch_with_goal(source, timeout=timeout, save=save, base_url=base_url)[0]
