"""The majority-class (prior) baseline: what a classifier scores knowing nothing but the class sizes.

Every results table, plot and console summary of kgfs shows it beside the methods, because a
selection that keeps nothing useful (only the root of the hierarchy, only constant features)
makes any classifier predict the majority class, and its accuracy then *is* the majority rate:
on the bundled data 0.717 (91 of 127 genes are pro-longevity), more than the 0.701 of
classifying with all 699 features. A method is only worth its accuracy above this line.

:func:`majority_baseline` scores scikit-learn's ``DummyClassifier(strategy="prior")`` on the
same stratified folds as :func:`selection.evaluation.cv.evaluate_table` (``StratifiedKFold(n_splits,
shuffle=True, random_state)``): in every fold it predicts the training part's majority class
and gives every test instance the training class frequencies as scores. Its measures follow:
accuracy is the test part's share of the training majority class, AUROC is 0.5 (every score
tied), AUCPR is the share of the positive class, GM is 0 (one class is never predicted), and it
uses no feature (``n_selected`` 0, compression 1). Its rows have the columns of ``results.csv``
(:data:`selection.evaluation.cv.COLUMNS`) with ``selector`` :data:`BASELINE`, ``classifier``
:data:`BASELINE_CLASSIFIER` and ``kind`` ``"baseline"``.

Examples
--------
>>> import numpy as np
>>> y = np.array(["pro"] * 91 + ["anti"] * 36)
>>> rows = majority_baseline(y, dataset="DM-BP", n_splits=10, n_features=699, pos_label="anti")
>>> round(float(rows["accuracy"].mean()), 3), rows["auroc"].unique().tolist(), float(rows["gm"].max())
(0.717, [0.5], 0.0)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import StratifiedKFold

from selection.evaluation.cv import COLUMNS
from selection.evaluation.metrics import compression, fold_metrics, positive_label

__all__ = ["BASELINE", "BASELINE_CLASSIFIER", "BASELINE_KIND", "is_baseline", "majority_baseline"]

#: The baseline's name in the ``selector`` column.
BASELINE = "majority class"
#: Its ``classifier`` column: scikit-learn's ``DummyClassifier(strategy="prior")``.
BASELINE_CLASSIFIER = "prior"
#: Its ``kind`` column.
BASELINE_KIND = "baseline"


def is_baseline(frame: pd.DataFrame) -> pd.Series:
    """Which rows of a results or summary frame are the baseline's.

    Parameters
    ----------
    frame : pandas.DataFrame
        With ``selector`` and ``classifier`` columns.

    Returns
    -------
    pandas.Series of bool

    Examples
    --------
    >>> f = pd.DataFrame({"selector": ["complete", BASELINE], "classifier": ["nb", BASELINE_CLASSIFIER]})
    >>> is_baseline(f).tolist()
    [False, True]
    """
    if frame.empty or "selector" not in frame or "classifier" not in frame:
        return pd.Series(False, index=frame.index)
    return frame["selector"].eq(BASELINE) & frame["classifier"].eq(BASELINE_CLASSIFIER)


def majority_baseline(y, *, dataset: str, n_splits: int, n_features: int, random_state: int = 0,
                      pos_label=None, multiclass: str = "macro", folds=None) -> pd.DataFrame:
    """The majority-class baseline's rows on the folds of :func:`~selection.evaluation.cv.evaluate_table`.

    Parameters
    ----------
    y : array-like
        The table's class labels.
    dataset : str
        The ``dataset`` column.
    n_splits, random_state : int
        The stratified k-fold of the evaluation (the same folds as the methods').
    n_features : int
        The table's features (the ``n_features`` column; the baseline keeps none).
    pos_label : optional
        The positive class of AUROC, AUCPR and GM (default: the minority class), or its text form
        as ``results.csv`` writes it.
    multiclass : {"macro", "weighted"}
        Averaging over more than two classes, as the evaluation's.
    folds : sequence of (train, test) index arrays, optional
        The evaluation's own parts instead of the stratified k-fold (a fixed train/test split: one pair).

    Returns
    -------
    pandas.DataFrame
        One row per fold, the columns of :data:`selection.evaluation.cv.COLUMNS`.

    Examples
    --------
    >>> rows = majority_baseline([0, 0, 0, 1, 1, 0], dataset="d", n_splits=2, n_features=3)
    >>> rows[["accuracy", "auroc", "aucpr", "gm", "compression"]].round(3).values.tolist()
    [[0.667, 0.5, 0.333, 0.0, 1.0], [0.667, 0.5, 0.333, 0.0, 1.0]]
    >>> split = majority_baseline([0, 0, 1, 1, 1, 0], dataset="d", n_splits=2, n_features=3,
    ...                           folds=[([0, 1, 2], [3, 4, 5])])
    >>> split[["fold", "n_train", "n_test", "accuracy"]].round(3).values.tolist()
    [[0.0, 3.0, 3.0, 0.333]]
    """
    y = np.asarray(y)
    labels = np.unique(y)
    if pos_label is not None and pos_label not in labels.tolist():  # its text form (results.csv): the class it names
        named = [v for v in labels.tolist() if str(v) == str(pos_label)]
        pos_label = named[0] if named else None
    pos = positive_label(y, pos_label)
    rows = []
    if folds is None:
        folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state).split(np.zeros(len(y)), y)
    for k, (tr, te) in enumerate(folds):
        tr, te = np.asarray(tr, dtype=int), np.asarray(te, dtype=int)
        prior = DummyClassifier(strategy="prior").fit(np.zeros((len(tr), 1)), y[tr])
        none = np.zeros((len(te), 1))
        m = fold_metrics(y[te], prior.predict(none), prior.predict_proba(none), prior.classes_, pos_label=pos,
                         compression=compression(0, n_features), labels=labels, multiclass=multiclass)
        rows.append({"dataset": dataset, "selector": BASELINE, "params": "{}", "classifier": BASELINE_CLASSIFIER,
                     "fold": k, "n_features": int(n_features), "n_train": len(tr), "n_test": len(te),
                     "n_selected": 0, **m, "select_seconds": 0.0, "classify_seconds": 0.0, "threshold": np.nan,
                     "threshold_choice": "", "kind": BASELINE_KIND, "pos_label": str(pos) if len(labels) <= 2 else "",
                     "degenerate": "",
                     "status": "ok", "error": ""})
    return pd.DataFrame(rows, columns=COLUMNS)
