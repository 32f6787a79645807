"""Shared fixtures (shared values and functions are in helpers.py)."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from helpers import CORPUS_DIR

CHROMIUM = "/usr/bin/chromium"  # Debian's (apt-get install chromium); Playwright's own download
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """Path of the shared puzzle corpus; skips the test when it is not there."""
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"puzzle corpus not found at {CORPUS_DIR}")
    return CORPUS_DIR


@pytest.fixture(scope="module")
def browser(request):
    """Headless Chromium with a fresh profile, for a module's page tests (skips without it); a
    module's ``VIEWPORT_HEIGHT`` sets the window's height (default 800)."""
    sync_api = pytest.importorskip("playwright.sync_api",
                                   reason="the page tests need playwright (the test extra)")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"no browser: {CHROMIUM} is missing (apt-get install chromium)")
    height = getattr(request.module, "VIEWPORT_HEIGHT", 800)
    profile = tempfile.mkdtemp(prefix="nonogram-chromium-")
    with sync_api.sync_playwright() as pw:
        try:
            context = pw.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
                viewport={"width": 1366, "height": height})
        except Exception as exc:  # noqa: BLE001 - a browser that cannot start here
            shutil.rmtree(profile, ignore_errors=True)
            pytest.skip(f"chromium does not start: {str(exc).splitlines()[0]}")
        yield context
        context.close()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture()
def page(browser, server):
    """The page of the module's ``server``, loaded and ready; no script error may happen on it."""
    p = browser.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.goto(server.url + "/")
    p.wait_for_selector("body[data-ready='1']")
    p.wait_for_selector("#parse-status.ok")
    yield p
    p.close()
    assert not errors, errors
