"""Every shell example a user would type, in the README and docs/, runs as
written and prints what the page shows (tests/docexamples.py says how a
page is read); the few that cannot run say why."""

from __future__ import annotations

import re
from pathlib import Path

import docexamples
import pytest
from docexamples import ROOT, Block, Command, Session, blocks, commands, documents, run_page


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _all_blocks() -> list[Block]:
    return [b for path in documents() for b in blocks(path)]


@pytest.mark.parametrize("page", documents(), ids=_name)
def test_the_shell_examples_of_a_page_run_and_print_what_it_shows(page: Path) -> None:
    run_page(page)


def test_every_fenced_block_says_what_it_is() -> None:
    """An untyped block could be a shell example nobody runs: each says its language."""
    known = docexamples.SHELL_LANGUAGES + docexamples.OTHER_LANGUAGES
    untyped = [b.where for b in _all_blocks() if b.language not in known]
    assert not untyped, f"fenced blocks without a known language (sh, console, yaml, ...): {untyped}"


def test_commands_with_their_output_are_console_blocks() -> None:
    """A `$ ` line is a command with output to compare: it belongs in a console block."""
    wrong = [b.where for b in _all_blocks() if b.language != "console" and re.search(r"^\$ ", b.text, re.M)]
    assert not wrong, wrong


def test_a_block_left_unrun_says_why_and_they_are_few() -> None:
    unrun = [b for b in _all_blocks() if b.language in docexamples.SHELL_LANGUAGES and b.mark("not run") is not None]
    assert all(len(b.mark("not run") or "") >= 20 for b in unrun), [
        b.where for b in unrun if len(b.mark("not run") or "") < 20
    ]
    runnable = [b for b in _all_blocks() if b.language in docexamples.SHELL_LANGUAGES and b.mark("not run") is None]
    assert len(unrun) * 2 < len(runnable), (len(unrun), len(runnable))


def test_every_test_mark_is_one_the_runner_knows() -> None:
    marks = [(b.where, m) for b in _all_blocks() for m in b.marks]
    unknown = [(w, m) for w, m in marks if not re.match(r"(not run:|new store$|first\n|file \S+$)", m)]
    assert not unknown, unknown


def test_the_shown_output_is_compared_line_by_line(tmp_path: Path) -> None:
    """The comparison itself: `...` lines and spans, example ids bound once."""
    session = Session()
    try:
        session.check(Command(1, "printf 'a\\nm-0123abcd b\\nc\\nd\\n'", "a\nm-3f9c2a1e ...\n...\nd"), "here")
        assert session.bound == {"m-3f9c2a1e": "m-0123abcd"}
        with pytest.raises(AssertionError, match="does not show"):
            session.check(Command(2, "printf 'm-%s' 99999999", "m-3f9c2a1e"), "here")  # bound to another id
        with pytest.raises(AssertionError, match="does not show"):
            session.check(Command(3, "printf 'a\\nb\\n'", "a"), "here")  # a line not shown
        with pytest.raises(AssertionError, match="exited 1"):
            session.check(Command(4, "false", None), "here")  # a sh line must succeed
        session.check(Command(5, "echo m-3f9c2a1e", "m-0123abcd"), "here")  # an example id is the id it stands for
    finally:
        session.close()


def test_an_example_id_stands_for_the_latest_id_printed(tmp_path: Path) -> None:
    session = Session()
    try:
        session.check(Command(1, "printf 'e-%s m-%s' 00000001 00000002", None), "here")
        session.check(Command(2, "echo m-3f9c2a1e e-a21f75cb", "m-00000002 e-00000001"), "here")
        with pytest.raises(AssertionError, match="stands for no id"):
            session.check(Command(3, "echo m-5b0d7c44", None), "here")
    finally:
        session.close()


def test_a_console_block_is_read_as_commands_and_their_output() -> None:
    block = Block(ROOT / "README.md", 10, "console", "$ referee a\none\n...\n$ referee b\n$ referee c  # note\nthree")
    assert [(c.line, c.text, c.expected) for c in commands(block)] == [
        (11, "referee a", "one\n..."),
        (14, "referee b", ""),
        (15, "referee c  # note", "three"),
    ]
    sh = Block(ROOT / "README.md", 1, "sh", "# a comment\nreferee a \\\n  --b\n\nreferee c   # what it does")
    assert [(c.line, c.text, c.expected) for c in commands(sh)] == [
        (3, "referee a    --b", None),
        (6, "referee c   # what it does", None),
    ]


def test_every_command_quoted_in_the_text_names_a_command_and_options_it_has() -> None:
    """Commands written in running text (`referee act ... --target X`) are not
    run, but each names a command that exists, with options it takes."""
    import click

    from referee.cli import cli

    fenced = re.compile(r"^ {0,3}(`{3,}).*?^ {0,3}\1\s*$", re.M | re.S)
    wrong = []
    for page in documents():
        text = fenced.sub("", page.read_text(encoding="utf-8"))
        for span in re.findall(r"`(referee [^`]+)`", text):
            words = span.split()[1:]
            command: click.Command = cli
            ctx = click.Context(cli)
            while isinstance(command, click.Group) and words and words[0] in command.list_commands(ctx):
                found = command.get_command(ctx, words.pop(0))
                assert found is not None
                command = found
            if isinstance(command, click.Group):
                if words and re.fullmatch(r"[a-z][a-z-]*", words[0]):
                    wrong.append(f"{_name(page)}: `{span}`: no command {words[0]}")
                continue
            options = {o for p in command.get_params(ctx) for o in (*p.opts, *p.secondary_opts)}
            for option in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", span):
                if option not in options:
                    wrong.append(f"{_name(page)}: `{span}`: no option {option}")
    assert not wrong, wrong
