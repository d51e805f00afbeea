"""Reads the shell examples out of the README and docs/ and runs them as a user would type them.

The documentation is Markdown. Every fenced block a user would type into a
shell is one of two kinds:

- a ``sh`` block: commands only (one a line, ``#`` comments allowed, a
  trailing ``\\`` continues a line); each must exit 0;
- a ``console`` block: ``$ COMMAND`` lines, each followed by exactly what
  it prints (standard output and standard error as a terminal shows them).
  A line ``...`` stands for any number of lines, ``...`` inside a line for
  any text on that line.

The examples of one file run in order, in one fresh folder holding
``scenarios`` and ``docs`` (links to the repository's) with the default
store (``referee.db`` there), so a tutorial is one session: a match made by
one example is the match the next one works on. Ids are examples too: the
first time a page writes an id such as ``m-3f9c2a1e`` or ``e-a21f75cb`` in
a command, it stands for the latest id the commands printed that no other
example id stands for; in shown output it stands for whatever id is printed
there, the same one each time after that.

An HTML comment right above a block says how it runs, for the reader of
the source (it is not rendered):

- ``<!-- test: not run: WHY -->``: the block is not run (a server that runs
  until stopped, a second machine); WHY is required;
- ``<!-- test: new store -->``: a fresh folder and store from this block on;
- ``<!-- test: first ... -->``: commands (one a line, after ``first``) run
  before the block and not shown, to bring the store where the example
  stands (a match started from a scenario's position, say); each must exit 0;
- ``<!-- test: file NAME -->`` above any block (a scenario, a CSV): the
  block is written to NAME in the folder, as the reader is asked to save it.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHELL_LANGUAGES = ("sh", "console")
# Fences that are not typed into a shell: they must say what they are.
OTHER_LANGUAGES = ("yaml", "json", "text", "csv", "python", "sql", "mermaid")
EXAMPLE_ID = re.compile(r"\b([me])-[0-9a-f]{8}\b")
FENCE = re.compile(r"^( {0,3})(`{3,})\s*([\w-]*)\s*$")
MARK = re.compile(r"<!--\s*test:\s*(.*?)\s*-->", re.DOTALL)
TIMEOUT = 180


def documents() -> list[Path]:
    """Every page a user reads: the README, docs/ (all folders) and the scenario library's README."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), ROOT / "scenarios" / "README.md"]


@dataclass
class Block:
    """One fenced block: where it is, its language, its text and the test marks above it."""

    path: Path
    line: int
    language: str
    text: str
    marks: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    def mark(self, name: str) -> str | None:
        for m in self.marks:
            if m == name or m.startswith(name + ":") or m.startswith(name + "\n") or m.startswith(name + " "):
                return m[len(name) :].lstrip(":").strip()
        return None


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, each with the ``test:`` marks of the comments right above it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    pending: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("<!--"):
            j = i
            while "-->" not in lines[j]:
                j += 1
            comment = "\n".join(lines[i : j + 1])
            pending += [m.group(1) for m in MARK.finditer(comment)]
            i = j + 1
            continue
        fence = FENCE.match(line)
        if fence:
            indent, ticks, language = fence.groups()
            body: list[str] = []
            j = i + 1
            while j < len(lines) and not re.match(rf"^ {{0,3}}{ticks}\s*$", lines[j]):
                text = lines[j]
                body.append(text[len(indent) :] if text.startswith(indent) else text.lstrip())
                j += 1
            out.append(Block(path, i + 1, language, "\n".join(body), pending))
            pending = []
            i = j + 1
            continue
        if line.strip():
            pending = []
        i += 1
    return out


@dataclass
class Command:
    line: int
    text: str
    expected: str | None  # None: not compared (a sh block), else the output shown


def commands(block: Block) -> list[Command]:
    """The commands of a shell block, with the output shown for each (console blocks)."""
    out: list[Command] = []
    lines = block.text.splitlines()
    if block.language == "console":
        current: Command | None = None
        shown: list[str] = []
        for n, line in enumerate(lines, start=block.line + 1):
            if line.startswith("$ "):
                if current is not None:
                    current.expected = "\n".join(shown)
                    out.append(current)
                current, shown = Command(n, line[2:], None), []
            elif current is None:
                raise ValueError(f"{block.path.relative_to(ROOT)}:{n}: a console block starts with '$ COMMAND'")
            else:
                shown.append(line)
        if current is not None:
            current.expected = "\n".join(shown)
            out.append(current)
        return out
    joined = ""
    start = block.line + 1
    for n, line in enumerate(lines, start=block.line + 1):
        if not joined:
            start = n
        if line.rstrip().endswith("\\"):
            joined += line.rstrip()[:-1] + " "
            continue
        joined += line
        if joined.strip() and not joined.strip().startswith("#"):
            out.append(Command(start, joined.strip(), None))
        joined = ""
    return out


def _pattern(expected: str, bound: dict[str, str]) -> tuple[re.Pattern[str], dict[str, str]]:
    """A regular expression for the output shown: ``...`` lines and spans are
    wildcards, example ids already bound are literal, the others capture."""
    groups: dict[str, str] = {}
    parts: list[str] = []
    lines = expected.splitlines()
    for k, line in enumerate(lines):
        line = line.rstrip()
        end = "" if k == len(lines) - 1 else "\n"
        if line == "...":
            parts.append(r"(?:[^\n]*\n)*?" if end else r"(?:[^\n]*(?:\n|$))*")
            continue
        piece = []
        for token in re.split(r"(\.\.\.|\b[me]-[0-9a-f]{8}\b)", line):
            if token == "...":
                piece.append(r"[^\n]*?")
            elif EXAMPLE_ID.fullmatch(token):
                if token in bound:
                    piece.append(re.escape(bound[token]))
                elif token in groups:
                    piece.append(f"(?P={groups[token]})")
                else:
                    groups[token] = f"id{len(groups)}"
                    piece.append(rf"(?P<{groups[token]}>{token[0]}-[0-9a-f]{{8}})")
            else:
                piece.append(re.escape(token))
        parts.append("".join(piece) + re.escape(end))
    return re.compile("".join(parts)), groups


class Session:
    """One page's examples: a folder, its store, the environment and the example ids bound so far."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="referee-docs-")
        self.cwd = Path(self._tmp.name)
        for name in ("scenarios", "docs"):
            (self.cwd / name).symlink_to(ROOT / name)
        bin_dir = str(Path(sys.executable).parent)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_") and not k.startswith("PYTEST_")}
        self.env.update(
            PATH=bin_dir + os.pathsep + self.env.get("PATH", ""),
            PYTHONUNBUFFERED="1",
            COLUMNS="200",
            TZ="UTC",
        )
        self.bound: dict[str, str] = {}  # example id -> the real id it stands for
        self.seen: list[str] = []  # real ids printed so far, oldest first

    def close(self) -> None:
        self._tmp.cleanup()

    def _substitute(self, text: str, where: str) -> str:
        def real(m: re.Match[str]) -> str:
            example = m.group(0)
            if example not in self.bound:
                taken = set(self.bound.values())
                free = [r for r in self.seen if r[0] == example[0] and r not in taken]
                if not free:
                    raise AssertionError(f"{where}: {example} stands for no id any command printed before it")
                self.bound[example] = free[-1]
            return self.bound[example]

        return EXAMPLE_ID.sub(real, text)

    def run(self, command: Command, where: str) -> tuple[str, int]:
        """Run one command as bash would; its output (both streams, in order) and exit code."""
        text = self._substitute(command.text, where)
        if re.fullmatch(r"export\s+\w+=.*", text):
            name, _, value = text[len("export") :].strip().partition("=")
            self.env[name] = " ".join(shlex.split(value.split(" #")[0]))
            return "", 0
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", text],
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=TIMEOUT,
        )
        for m in EXAMPLE_ID.finditer(done.stdout):
            if m.group(0) not in self.seen:
                self.seen.append(m.group(0))
        return done.stdout, done.returncode

    def check(self, command: Command, where: str) -> None:
        """Run a command and compare its output with the one shown (or, shown none, want exit 0)."""
        output, code = self.run(command, where)
        if command.expected is None:
            if code != 0:
                raise AssertionError(f"{where}: `{command.text}` exited {code}:\n{output}")
            return
        actual = "\n".join(line.rstrip() for line in output.rstrip("\n").splitlines())
        pattern, groups = _pattern(command.expected.rstrip("\n"), self.bound)
        m = pattern.fullmatch(actual)
        if m is None:
            raise AssertionError(
                f"{where}: `{command.text}` printed what the page does not show.\n"
                f"--- shown:\n{command.expected}\n--- printed (exit {code}):\n{actual}"
            )
        for example, group in groups.items():
            self.bound[example] = m.group(group)


def run_page(path: Path) -> int:
    """Run every shell example of one page in order; how many commands ran."""
    session = Session()
    ran = 0
    try:
        for block in blocks(path):
            if block.mark("not run") is not None:
                continue
            if block.mark("new store") is not None:
                session.close()
                session = Session()
            name = block.mark("file")
            if name:
                (session.cwd / name).write_text(block.text + "\n", encoding="utf-8")
            if block.language not in SHELL_LANGUAGES:
                continue
            first = block.mark("first")
            if first:
                for n, line in enumerate(first.splitlines()):
                    if line.strip() and not line.strip().startswith("#"):
                        session.check(Command(block.line, line.strip(), None), f"{block.where} (first, {n + 1})")
            for command in commands(block):
                session.check(command, f"{block.path.relative_to(ROOT)}:{command.line}")
                ran += 1
    finally:
        session.close()
    return ran
