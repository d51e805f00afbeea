"""Fixtures for the board's browser tests: Debian's chromium driven by
Playwright, and `referee serve` running as a real process.

The browser is ``$REFEREE_CHROMIUM``, else ``/usr/bin/chromium`` (scripts/test.sh
installs it with .ci/chromium.sh); Playwright never downloads one. Without a
browser these tests FAIL and say how to get one, unless
``REFEREE_SKIP_BROWSER=1`` asks to skip them. Screenshots are kept in
``test-artifacts/`` at the top of the repository (``REFEREE_ARTIFACTS``
names another folder).
"""

from __future__ import annotations

import os
import queue
import re
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bench.figures import referee_command

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
NO_BROWSER = (
    "no chromium at {path}: run `.ci/chromium.sh` as root (Debian's chromium package) or set "
    "REFEREE_CHROMIUM to a Chromium binary (or REFEREE_SKIP_BROWSER=1 to skip the browser tests)"
)


def chromium_path() -> str:
    path = os.environ.get("REFEREE_CHROMIUM", "").strip() or "/usr/bin/chromium"
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    if os.environ.get("REFEREE_SKIP_BROWSER") == "1":
        pytest.skip("REFEREE_SKIP_BROWSER=1")
    pytest.fail(NO_BROWSER.format(path=path), pytrace=False)


@pytest.fixture(scope="session")
def playwright_chromium() -> Iterator[tuple[Any, str]]:
    """Playwright (one instance for the session) and the chromium binary."""
    path = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw, path


@pytest.fixture(scope="session")
def browser(playwright_chromium: tuple[Any, str]) -> Iterator[Any]:
    """One chromium for the session, with a fresh profile (--user-data-dir)."""
    pw, path = playwright_chromium
    with tempfile.TemporaryDirectory(prefix="referee-chromium-") as profile:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=path, headless=True, args=CHROMIUM_ARGS, viewport={"width": 1280, "height": 900}
        )
        context.set_default_timeout(15_000)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture(scope="session")
def chromium(playwright_chromium: tuple[Any, str]) -> Iterator[Any]:
    """A second chromium whose contexts are separate devices (a phone, a judge's laptop)."""
    pw, path = playwright_chromium
    launched = pw.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_ARGS)
    try:
        yield launched
    finally:
        launched.close()


PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 2}
TABLET = {"viewport": {"width": 820, "height": 1180}, "has_touch": True, "is_mobile": True, "device_scale_factor": 1}


@pytest.fixture
def device(chromium: Any) -> Iterator[Callable[..., Any]]:
    """``device(PHONE)``: a new page in a device of its own (own cookies), closed after the test."""
    opened: list[Any] = []

    def make(options: dict[str, Any] | None = None, **extra: Any) -> Any:
        context = chromium.new_context(**{**(options or PHONE), **extra})
        context.set_default_timeout(15_000)
        opened.append(context)
        return context.new_page()

    try:
        yield make
    finally:
        for context in opened:
            context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    tab = browser.new_page()
    try:
        yield tab
    finally:
        tab.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    folder = Path(os.environ.get("REFEREE_ARTIFACTS") or ROOT / "test-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def referee(db: str, *args: str) -> str:
    """`referee ARGS --db DB` in a fresh process, as a judge station runs it."""
    env = {k: v for k, v in os.environ.items() if k != "REFEREE_DB"}
    done = subprocess.run([*referee_command(), *args, "--db", db], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done.stdout


@contextmanager
def serving(db: str, *args: str, **env_extra: str) -> Iterator[str]:
    """`referee serve --port 0` in its own process; yields the URL it printed."""
    env = {k: v for k, v in os.environ.items() if k not in ("REFEREE_DB", "REFEREE_JUDGE_PASSWORD")}
    env.update(env_extra)
    proc = subprocess.Popen(
        [*referee_command(), "serve", "--db", db, "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    try:
        try:
            first = lines.get(timeout=60)
        except queue.Empty:
            first = ""
        found = re.search(r"https?://\S+/", first)
        assert found, (
            f"referee serve printed {first!r}; stderr: {proc.stderr.read() if proc.poll() is not None else ''}"
        )  # type: ignore[union-attr]
        yield found.group(0)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'board.db'}"


@pytest.fixture
def serve() -> Callable[..., Any]:
    """``with serve(db, REFEREE_JUDGE_PASSWORD=...) as url:`` a board server."""
    return serving


@pytest.fixture
def cli() -> Callable[..., str]:
    """``cli(db, "act", ...)``: the referee command in a fresh process."""
    return referee
