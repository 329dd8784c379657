"""README's Python API example: a user's own selectors evaluated by the rpv2020 and shsel2014 protocols.

:data:`EXAMPLE` is the README's code block, run here as written (on the bundled DM-BP table, in a
temporary folder); keep the two the same.
"""

import os

import pandas as pd
import pytest

EXAMPLE = '''
import numpy as np
from sklearn.feature_selection import SelectKBest, chi2

from kg.datasets import load_dataset
from selection.base import HierarchicalSelector
from selection.evaluation import plan_evaluation, run_grid
from selection.measures import information_gain


class AsInformativeAsItsParents(HierarchicalSelector):
    """Keep a feature whose information gain reaches that of each of its parents."""

    def __init__(self, hierarchy=None):  # None: the evaluation gives it the table's hierarchy
        self.hierarchy = hierarchy

    def _fit(self, X, y, hierarchy):  # X binary csr, y labels, hierarchy the DAG over X's columns
        self.scores_ = information_gain(X, y)
        child, parent = hierarchy.edges
        below = np.zeros(X.shape[1], dtype=bool)
        np.logical_or.at(below, child, self.scores_[child] < self.scores_[parent])
        self.support_ = ~below


table = load_dataset("bundled/DM-BP")
mine = [SelectKBest(chi2, k=50), AsInformativeAsItsParents()]  # not registered; cloned for every fit
for protocol, theirs, classifiers in (("rpv2020", ["rpv", "hip", "complete"], None),  # None: lazy NB and 1-NN
                                     ("shsel2014", ["shsel-ig-prune", "complete"], ["nb", "knn"])):
    plan = plan_evaluation(protocol, theirs + mine, classifiers, n_splits=5)  # names resolved once, all checked
    result = run_grid({"DM-BP": table}, plan, out_dir=f"eval-{protocol}")
    print(result.frame().groupby(["classifier", "selector"], sort=False)[list(plan.protocol.rank_metrics)].mean())
'''


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_readme_example_runs_as_written(tmp_path, capsys):
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(EXAMPLE, "README.md", "exec"), {"__name__": "readme_example"})
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
