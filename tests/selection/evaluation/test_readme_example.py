"""The Python API page's example: a user's own selectors evaluated by the rpv2020 and shsel2014 protocols.

:data:`EXAMPLE` is the code block of docs/python-api.md (once README's), read from the page and run as
written (on the bundled DM-BP table, in a temporary folder).
"""

import os
import re
from pathlib import Path

import pandas as pd
import pytest

PAGE = Path(__file__).resolve().parents[3] / "docs" / "python-api.md"


def readme_example() -> str:
    """The first Python block after the page's heading "Your own selectors beside the registered ones"."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## Your own selectors beside the registered ones"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


EXAMPLE = readme_example()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_readme_example_runs_as_written(tmp_path, capsys):
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(EXAMPLE, str(PAGE), "exec"), {"__name__": "readme_example"})
    finally:
        os.chdir(cwd)
    out = capsys.readouterr().out
    for label in ("SelectKBest[k=50,score_func=chi2]", "AsInformativeAsItsParents", "rpv", "shsel-ig-prune"):
        assert label in out
    rpv = pd.read_csv(tmp_path / "eval-rpv2020" / "results.csv")
    shsel = pd.read_csv(tmp_path / "eval-shsel2014" / "results.csv")
    assert (rpv["status"] == "ok").all() and (shsel["status"] == "ok").all()
    assert set(rpv["classifier"]) == {"nb", "1nn"} and set(shsel["classifier"]) == {"nb", "knn"}
    assert len(rpv) == 5 * 2 * 5 and len(shsel) == 4 * 2 * 5
    mine = shsel[shsel["selector"] == "AsInformativeAsItsParents"]
    assert mine["kind"].eq("eager").all() and mine["n_selected"].lt(table_width(rpv)).all()


def table_width(rows: pd.DataFrame) -> int:
    return int(rows["n_features"].iloc[0])
