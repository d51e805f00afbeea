"""scripts/demo.sh, the first command of the README: it says once what to do
next, and where its demo match and sample record went."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_says_next_once_and_where_its_match_and_record_went(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'referee.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("REFEREE_")} | {"REFEREE_DB": url}
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "demo.sh"), "--no-setup"],  # the setup is this test run's own
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert out.count("Next:") == 1 and out.rstrip().splitlines()[-4] == "Next:", out
    said = re.search(r"The demo match is (m-\w+) and the sample record (m-\w+), stored in (\S+);", out)
    assert said is not None and said.group(3) == url, out
    assert "every run of this script adds new ones" in out
    listed = subprocess.run(
        [str(Path(sys.executable).parent / "referee"), "matches", "--json", "--db", url],
        capture_output=True,
        text=True,
        check=True,
    )
    titles = {m["id"]: m["name"] for m in json.loads(listed.stdout)["matches"]}
    assert titles == {said.group(1): "Demo match", said.group(2): "Sample record"}
