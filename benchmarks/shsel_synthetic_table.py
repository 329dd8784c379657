"""Regenerate ``docs/shsel_synthetic.md``: the SHSEL paper's synthetic experiment (Table 4, NB).

Runs every registered eager selector of the paper (``complete``, ``shsel-*``, ``sig``, ``sc``,
``tsel-*``, ``greedy-top-down``, ``hill-climbing``; those that exist) with Naive Bayes (``nb``) in
stratified 10-fold cross-validation on the six synthetic datasets of Table 2
(``synthetic/S-D{2,4}-B{2,5,10}`` from the dataset registry), selection fitted per fold, and writes
the measured accuracy and feature-space compression next to the paper's Table 4 numbers.
Threshold methods follow the paper: thresholds 0..1 in steps of 0.01, the best one reported
(``threshold="best-on-test"``: chosen on the test folds, as the paper does).

The paper's numbers are typed in below (:data:`PAPER_TABLE4_NB`); every measured number is
computed by this script. The per-fold results go to ``docs/shsel_synthetic.csv``.

The three generator variants (``make_dataset(label="shared")``, the default, and the earlier
``label="feature"`` and ``label="polynomial"``) are measured by default, side by side;
``--labels shared`` runs one.

Run (12-25 minutes for the three variants with 2 processes, depending on the machine's load; hill
climbing takes most)::

    python benchmarks/shsel_synthetic_table.py [--jobs 2] [--labels shared feature polynomial] [--datasets S-D2-B2 ...]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from selection.synthetic.shsel import LABELS  # noqa: E402

DATASETS = ["S-D2-B2", "S-D2-B5", "S-D2-B10", "S-D4-B2", "S-D4-B5", "S-D4-B10"]
SELECTORS = [
    "complete", "shsel-ig", "shsel-c", "shsel-ig-prune", "shsel-c-prune", "sig", "sc",
    "tsel-lift", "tsel-ig", "hill-climbing", "greedy-top-down",
]
PAPER_NAMES = {
    "complete": "CompleteFS", "shsel-ig": "initialSHSEL IG", "shsel-c": "initialSHSEL C",
    "shsel-ig-prune": "pruneSHSEL IG", "shsel-c-prune": "pruneSHSEL C", "sig": "SIG", "sc": "SC",
    "tsel-lift": "TSEL Lift", "tsel-ig": "TSEL IG", "hill-climbing": "HillClimbing",
    "greedy-top-down": "GreedyTopDown",
}

#: Ristoski & Paulheim, "Feature Selection in Hierarchical Feature Spaces", Discovery Science 2014,
#: section 5.3, Table 4 ("Results on synthetic datasets"), the NB column of each dataset
#: (papers/000_a9d390c6707c9d0a.txt, lines 278-316). Order: S-D2-B2, S-D2-B5, S-D2-B10,
#: S-D4-B2, S-D4-B5, S-D4-B10. CompleteFS has compression 0 by definition (not printed).
PAPER_TABLE4_NB = {
    "accuracy": {
        "complete": [.565, .700, .600, .666, .566, .533],
        "shsel-ig": [1.0, 1.0, 1.0, 1.0, 1.0, .956],
        "shsel-c": [.666, .700, .666, .766, .600, .633],
        "shsel-ig-prune": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        "shsel-c-prune": [.866, .866, .800, .800, .933, .933],
        "sig": [.960, 1.0, .930, 1.0, 1.0, 1.0],
        "sc": [.700, .700, .730, .733, .700, .700],
        "tsel-lift": [.553, .633, .400, .566, .500, .466],
        "tsel-ig": [.866, .666, .733, .766, .533, .500],
        "hill-climbing": [.652, .633, .633, .676, .676, .689],
        "greedy-top-down": [.666, .703, .633, .703, .752, .833],
    },
    "compression": {
        "complete": [0.0] * 6,
        "shsel-ig": [.846, .948, .861, .914, .929, .912],
        "shsel-c": [.267, .104, .279, .441, .831, .627],
        "shsel-ig-prune": [.930, .925, .899, .956, .955, .956],
        "shsel-c-prune": [.697, .639, .781, .795, .692, .731],
        "sig": [.922, .842, .865, .886, .891, .900],
        "sc": [.717, .693, .750, .379, .628, .667],
        "tsel-lift": [.750, .706, .687, .857, .827, .814],
        "tsel-ig": [.836, .866, .856, .926, .965, .970],
        "hill-climbing": [.770, .751, .805, .792, .776, .795],
        "greedy-top-down": [.399, .370, .356, .470, .404, .438],
    },
}

GRID = tuple(round(i / 100, 2) for i in range(101))  # the paper: 0..1, step 0.01


def run_dataset(name: str, selectors: list[str], n_splits: int, random_state: int,
                label: str = "shared") -> pd.DataFrame:
    from kg.datasets import load_dataset
    from selection.evaluation.cv import CVOptions, evaluate_table

    table = load_dataset(f"synthetic/{name}", label=label)
    t0 = time.perf_counter()
    df = evaluate_table(
        table, selectors, ["nb"], dataset=name, n_splits=n_splits, random_state=random_state,
        options=CVOptions(threshold="best-on-test", thresholds=GRID),
    )
    df["wall_seconds"] = time.perf_counter() - t0
    df["label"] = label
    return df


def summarise(df: pd.DataFrame, datasets: list[str], selectors: list[str]) -> pd.DataFrame:
    g = df[df["status"] == "ok"].groupby(["selector", "dataset"])
    out = g.agg(
        accuracy=("accuracy", "mean"), accuracy_sd=("accuracy", "std"),
        compression=("compression", "mean"), n_selected=("n_selected", "mean"),
        threshold=("threshold", "first"), select_seconds=("select_seconds", "mean"),
    ).reset_index()
    rows = []
    for s in selectors:
        for d in datasets:
            i = DATASETS.index(d)
            r = out[(out.selector == s) & (out.dataset == d)]
            m = r.iloc[0] if len(r) else None
            rows.append({
                "selector": s, "dataset": d,
                "accuracy": np.nan if m is None else m.accuracy,
                "accuracy_sd": np.nan if m is None else m.accuracy_sd,
                "paper_accuracy": PAPER_TABLE4_NB["accuracy"][s][i],
                "compression": np.nan if m is None else m.compression,
                "paper_compression": PAPER_TABLE4_NB["compression"][s][i],
                "n_selected": np.nan if m is None else m.n_selected,
                "threshold": np.nan if m is None else m.threshold,
                "select_seconds": np.nan if m is None else m.select_seconds,
            })
    return pd.DataFrame(rows)


def _f(x, nd=3) -> str:
    return "–" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.{nd}f}"


VARIANT_TEXT = {
    "shared": (
        "every middle feature `mid.j` is the median split (\"Discretize by Frequency\", two bins) of a "
        "polynomial `f_j = a^3 + b^2 + c` (RapidMiner's *polynomial* function); `a` and `b` are two of 5 "
        "latent attributes `~ U[-10, 10]` shared by all middle features (5 is RapidMiner \"Generate "
        "Data\"'s default number of attributes), `c` is the feature's own; the class is the median split "
        "of one middle feature's polynomial, made of three attributes of its own: the class equals that "
        "feature exactly and is independent of every other feature, and the other features are strongly "
        "correlated with each other (those with the same cubed attribute are near copies); lower levels "
        "are ever higher frequency cuts of the same polynomial, upper levels unions"
    ),
    "feature": (
        "every middle feature `mid.j` is the median split (\"Discretize by Frequency\", two bins) of its "
        "own polynomial `f_j = a^3 + b^2 + c` (RapidMiner's *polynomial* function) of three latent "
        "attributes `~ U[-10, 10]`; the class is the same split of one of those polynomials, so it equals "
        "one middle feature exactly and is independent of every other middle feature; lower levels are "
        "ever higher frequency cuts of the same polynomial, upper levels unions"
    ),
    "polynomial": (
        "middle features are `[x_j > 0]` for latent `x_j ~ U[-10, 10]`; the class is RapidMiner's "
        "*polynomial classification* `a^3 + b^2 - c^2 + d > 0` on four of them (rows drawn until 500 "
        "of each class); lower levels are `[x_j > 10k/(D+1)]`, upper levels unions"
    ),
}


def best_single_feature(table) -> float:
    """Accuracy of the best one-feature rule (feature present -> one class, absent -> the other)."""
    pos = (table.y == "positive").astype(float)
    n1 = np.asarray(table.X.sum(axis=0)).ravel()
    both = table.X.T @ pos
    agree = (both + (table.n_instances - n1 - pos.sum() + both)) / table.n_instances
    return float(np.maximum(agree, 1 - agree).max())


def train_size_diagnostic(datasets, sizes=(30, 60, 100, 300, 900), repeats=10, seed=0) -> pd.DataFrame:
    """Complete-feature-set NB accuracy (label="feature") when trained on few instances.

    Stratified shuffle splits with 100 test instances; the classifier is the registry's ``nb``.
    """
    from sklearn.model_selection import StratifiedKFold, StratifiedShuffleSplit, cross_val_score
    from sklearn.naive_bayes import GaussianNB

    from kg.datasets import load_dataset
    from selection.registry import get_classifier

    rows = []
    for d in datasets:
        t = load_dataset(f"synthetic/{d}", label="feature")
        X = t.X.tocsr()
        for n in sizes:
            ss = StratifiedShuffleSplit(repeats, train_size=n, test_size=100, random_state=seed)
            acc = []
            for tr, te in ss.split(np.zeros(t.n_instances), t.y):
                clf = get_classifier("nb").fit(X[tr], t.y[tr])
                acc.append(float((clf.predict(X[te]) == t.y[te]).mean()))
            rows.append({"dataset": d, "n_train": str(n), "accuracy": float(np.mean(acc))})
        # Gaussian NB (what RapidMiner's NB does with numeric 0/1 attributes), 10-fold CV on all
        # features; dense only here, a 1,000-row diagnostic (GaussianNB takes no sparse input)
        cv = StratifiedKFold(10, shuffle=True, random_state=seed)
        acc = cross_val_score(GaussianNB(), X.toarray(), t.y, cv=cv)
        rows.append({"dataset": d, "n_train": "Gaussian NB, 10-fold CV", "accuracy": float(acc.mean())})
    return pd.DataFrame(rows)


def nested_prune(datasets, label, folds: int = 10, seed: int = 0) -> pd.Series:
    """shsel-ig-prune with NB, the threshold chosen by inner CV on each training part (honest)."""
    from kg.datasets import load_dataset
    from selection.evaluation.cv import CVOptions, evaluate_table

    acc = []
    for d in datasets:
        df = evaluate_table(load_dataset(f"synthetic/{d}", label=label), ["shsel-ig-prune"], ["nb"], dataset=d,
                            n_splits=folds, random_state=seed, options=CVOptions(threshold="nested", thresholds=GRID))
        acc.append(float(df["accuracy"].mean()))
    return pd.Series(acc, index=datasets)


def knn_complete(datasets, labels, folds: int = 10, seed: int = 0) -> dict:
    """k-NN (the registry's ``knn``, k = 3) on all features, stratified 10-fold CV, per variant."""
    from kg.datasets import load_dataset
    from selection.evaluation.cv import evaluate_table

    out = {}
    for v in labels:
        acc = []
        for d in datasets:
            df = evaluate_table(load_dataset(f"synthetic/{d}", label=v), ["complete"], ["knn"], dataset=d,
                                n_splits=folds, random_state=seed)
            acc.append(float(df["accuracy"].mean()))
        out[v] = pd.Series(acc, index=datasets)
    return out


def variant_tables(summary: pd.DataFrame, datasets, selectors) -> list[str]:
    L = []
    for what in ("accuracy", "compression"):
        L.append(f"#### {what.capitalize()}: measured (paper)")
        L.append("")
        L.append("| method | paper name | " + " | ".join(datasets) + " |")
        L.append("|---|---|" + "---|" * len(datasets))
        for s in selectors:
            cells = []
            for d in datasets:
                r = summary[(summary.selector == s) & (summary.dataset == d)].iloc[0]
                cells.append(f"{_f(r[what])} ({_f(r['paper_' + what])})")
            L.append(f"| `{s}` | {PAPER_NAMES[s]} | " + " | ".join(cells) + " |")
        L.append("")
    L.append("#### Chosen thresholds and selection time")
    L.append("")
    L.append("| method | " + " | ".join(datasets) + " | mean selection time per fold (s) |")
    L.append("|---|" + "---|" * (len(datasets) + 1))
    for s in selectors:
        sub = summary[summary.selector == s]
        th = [sub[sub.dataset == d].threshold.iloc[0] for d in datasets]
        L.append(f"| `{s}` | " + " | ".join(_f(t, 2) for t in th) + f" | {_f(sub.select_seconds.mean(), 3)} |")
    L.append("")
    return L


def markdown(summaries: dict, df: pd.DataFrame, datasets, selectors, elapsed: float, args) -> str:
    import sklearn

    from kg.datasets import load_dataset
    from selection.synthetic.shsel import PAPER_SETTINGS, expected_n_features

    labels = list(summaries)
    failed = df[df["status"] != "ok"]
    n_feat = {d: expected_n_features(int(d[3]), int(d.split("B")[1])) for d in datasets}
    L = []
    L.append("# SHSEL on the synthetic datasets (Ristoski & Paulheim 2014, Table 4, Naive Bayes)")
    L.append("")
    L.append("_Generated by `python benchmarks/shsel_synthetic_table.py` on "
             f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC (evaluation: {elapsed / 60:.1f} min) "
             f"(Python {platform.python_version()}, scikit-learn {sklearn.__version__}); do not edit by hand. "
             "Per-fold results: `docs/shsel_synthetic.csv` (column `label` = generator variant)._")
    L.append("")
    L.append("## Protocol")
    L.append("")
    L.append("- Data: `synthetic/S-D{2,4}-B{2,5,10}` from the dataset registry "
             "(`selection.synthetic.shsel.make_dataset`, seed 0): 1,000 instances (500 positive / 500 negative), "
             + ", ".join(f"{d} {n_feat[d]:,}" for d in datasets) + " features (Table 2's counts). "
             "Generator variants measured: " + ", ".join(f"`label=\"{v}\"`" for v in labels)
             + " (the registry entries use the default, `\"shared\"`).")
    L.append(f"- Stratified {args.folds}-fold cross-validation (`selection.evaluation.cv.evaluate_table`, "
             f"`random_state={args.seed}`), selection fitted on the training part of every fold, "
             "classifier `nb` (Bernoulli Naive Bayes, Laplace smoothing).")
    L.append("- Threshold methods (`shsel-*`, `sig`, `sc`): thresholds 0..1 in steps of 0.01, the "
             "threshold with the best mean accuracy over the test folds is reported, as in the paper "
             "(optimistic; `CVOptions(threshold=\"nested\")` in `evaluate_table` is the honest variant). "
             "Other methods run with their registry defaults (`hill-climbing`: k = 10, as in the paper).")
    L.append("- Accuracy and compression `1 - |selected| / |all|` are means over the folds; the paper's "
             "numbers are typed from its Table 4 (NB columns) in the script, everything else is measured.")
    L.append("")
    L.append("## How the datasets are built")
    L.append("")
    L.append("Table 2's counts are all `n + D*n + D*n/B + 1` with `n = 300` middle features: D levels of n "
             "refinements below the middle layer, D levels of n/B merged nodes above it (B neighbouring middle "
             "features merged once, then pairs of cyclic neighbours, which gives multiple inheritance), and one "
             "root. Subtracting the middle layer and the root leaves `D*n*(1 + 1/B)`, whose B-free part `D*n` "
             "and B-part `D*n/B` are forced by the six counts. The variants share this hierarchy and "
             "differ in how the middle layer and the class are made:")
    L.append("")
    for v in labels:
        L.append(f"- `label=\"{v}\"`{' (default)' if v == LABELS[0] else ''}: {VARIANT_TEXT[v]}.")
    L.append("")
    L.append("Why the default is `\"shared\"`: the paper states only that the middle features were "
             "\"generated using a polynomial function\" and discretised into binary ones. Its Table 4 "
             "constrains the rest, and each constraint rules out a simpler construction:")
    L.append("")
    L.append("1. SIG and pruneSHSEL IG reach 1.0 with NB on all six datasets: some feature of the hierarchy "
             "must determine the class exactly. The `\"polynomial\"` variant (RapidMiner's polynomial "
             "classification over four binarised attributes) fails this: no binary feature determines its "
             "class.")
    L.append("2. The classes are exactly 500/500: a median (frequency) split of the class polynomial gives "
             "that without resampling.")
    L.append("3. CompleteFS with k-NN is at chance (.433-.600): the features other than the class feature "
             "carry no class information, so the class polynomial shares no latent attribute with them.")
    L.append("4. CompleteFS with NB is far from 1.0 (.533-.700) although one feature equals the class: the "
             "class-free features must outvote it. Independent ones cannot (the `\"feature\"` variant: "
             "NB on all features stays above 0.95, measured below); mutually redundant ones can, because "
             "Naive Bayes counts a chance correlation with the class in the training folds once per "
             "near-copy. Hence the shared latent pool: the paper's \"polynomial function\" applied, "
             "RapidMiner-style, to a small set of generated attributes.")
    L.append("")
    L.append("Every choice is documented in the docstring of `selection/synthetic/shsel.py`.")
    L.append("")
    L.append("| dataset | D | B | middle | below (D*n) | above (D*n/B) | root | total | Table 2 | generated table |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    tables = {v: {d: load_dataset(f"synthetic/{d}", label=v) for d in datasets} for v in labels}
    for d in datasets:
        D, B, paper = PAPER_SETTINGS[d]
        gen = tables[labels[0]][d].n_features
        L.append(f"| {d} | {D} | {B} | 300 | {D * 300} | {D * -(-300 // B)} | 1 | {n_feat[d]:,} "
                 f"| {paper:,} | {gen:,} |")
    L.append("")

    # the claim, checked on the measured numbers
    L.append("## shsel-ig-prune vs complete")
    L.append("")
    headline = {}
    if {"shsel-ig-prune", "complete"} <= set(selectors):
        head = "| dataset | "
        for v in labels:
            head += f"`{v}`: complete | prune | difference | prune compression | "
        L.append(head + "paper: complete / prune acc. | paper prune compression |")
        L.append("|---|" + "---|" * (4 * len(labels) + 2))
        for v in labels:
            headline[v] = ([], [])
        for d in datasets:
            row = f"| {d} | "
            for v in labels:
                s = summaries[v]
                c = s[(s.selector == "complete") & (s.dataset == d)].iloc[0]
                p = s[(s.selector == "shsel-ig-prune") & (s.dataset == d)].iloc[0]
                headline[v][0].append(p.accuracy - c.accuracy)
                headline[v][1].append(p.compression)
                row += (f"{_f(c.accuracy)} | {_f(p.accuracy)} | {p.accuracy - c.accuracy:+.3f} | "
                        f"{_f(p.compression)} | ")
            L.append(row + f"{_f(c.paper_accuracy)} / {_f(p.paper_accuracy)} | {_f(p.paper_compression)} |")
        L.append("")
        for v in labels:
            diffs, comps = headline[v]
            L.append(f"- `label=\"{v}\"`: shsel-ig-prune is more accurate than complete on "
                     f"{sum(x > 0 for x in diffs)} of {len(diffs)} datasets "
                     f"(by {min(diffs):+.3f} to {max(diffs):+.3f}, mean {np.mean(diffs):+.3f}) and keeps "
                     f"{100 * (1 - max(comps)):.1f}-{100 * (1 - min(comps)):.1f}% of the features "
                     f"(compression {min(comps):.3f}-{max(comps):.3f}; > 0.80 on "
                     f"{sum(x > 0.8 for x in comps)} of {len(comps)}).")
        L.append("- The paper reports a gap of +0.30 to +0.47 (complete at 0.53-0.70, pruneSHSEL IG at 1.0) "
                 "and pruneSHSEL IG compression 0.90-0.96.")
        nested = nested_prune(datasets, labels[0])
        L.append(f"- The threshold above is chosen on the test folds, as the paper did. Chosen honestly instead "
                 f"(`threshold=\"nested\"`: inner 5-fold CV on each training part), shsel-ig-prune with "
                 f"`label=\"{labels[0]}\"` reaches {nested.min():.3f}-{nested.max():.3f}.")
        for v in labels:
            diffs, comps = headline[v]
            wide = min(diffs) >= 0.2 and min(comps) > 0.8
            L.append(f"- `label=\"{v}\"`: " + (
                f"the wide margin is reproduced (every gap at least +0.20, smallest {min(diffs):+.3f}) with "
                "more than 80% compression." if wide else
                f"the wide margin is not reproduced (smallest gap {min(diffs):+.3f}, largest "
                f"{max(diffs):+.3f})."))
        L.append("")

    for v in labels:
        L.append(f"## All methods, `label=\"{v}\"`")
        L.append("")
        L.extend(variant_tables(summaries[v], datasets, selectors))
    L.append("Selection time of a threshold method is the whole sweep over the 101 thresholds. Times are "
             f"wall-clock on {os.cpu_count()} cores with {args.jobs} parallel jobs, so only their ratios mean much.")
    L.append("")

    # facts for the discussion, computed here
    single = {v: [best_single_feature(tables[v][d]) for d in datasets] for v in labels}
    paper_acc = [v for s in selectors for v in PAPER_TABLE4_NB["accuracy"][s]]
    thirtieths = sum(abs(v * 30 - round(v * 30)) < 0.05 for v in paper_acc)
    L.append("## Reading the comparison")
    L.append("")
    L.append("- The structure is reproduced exactly (feature counts, implication, 500/500 classes); the "
             "accuracies cannot be matched number for number: the paper publishes neither its class "
             "function, discretisation nor seeds.")
    for v in labels:
        acc = summaries[v][summaries[v].selector == "complete"].accuracy
        L.append(f"- `label=\"{v}\"`: the best one-feature rule is right on "
                 f"{min(single[v]):.3f}-{max(single[v]):.3f} of the instances; Naive Bayes on all features "
                 f"reaches {acc.min():.3f}-{acc.max():.3f}.")
    if labels:
        kn = knn_complete(datasets, labels)
        L.append("- k-NN (k = 3, the paper's) on all features, same folds: " + "; ".join(
            f"`{v}` {kn[v].min():.3f}-{kn[v].max():.3f}" for v in labels)
            + " (paper: .433-.600, chance).")
    main_label = labels[0]
    if main_label != "polynomial":
        s = summaries[main_label]
        worst = s.groupby("selector").accuracy.min()
        perfect = [m for m in selectors if m != "complete" and worst.get(m, 0) >= 0.995]
        below = [f"`{m}` ({worst[m]:.3f})" for m in selectors if m != "complete" and m not in perfect]
        L.append(f"- With `\"{main_label}\"`, {len(perfect)} of {len(selectors) - 1} selectors reach at least "
                 "0.995 on every dataset (" + ", ".join(f"`{m}`" for m in perfect) + ")"
                 + (f"; below that somewhere (worst dataset): {', '.join(below)}" if below else "") + ".")
        paper_low = {m for m in selectors if m != "complete" and min(PAPER_TABLE4_NB["accuracy"][m]) < 0.9}
        ours_low = {m for m in selectors if m != "complete" and worst.get(m, 1.0) < 0.9}
        if paper_low:
            L.append(f"- Methods below 0.90 with NB on some dataset: paper {len(paper_low)} ("
                     + ", ".join(f"`{m}`" for m in selectors if m in paper_low) + "), measured "
                     f"{len(ours_low)} (" + (", ".join(f"`{m}`" for m in selectors if m in ours_low) or "none")
                     + f"); both: {len(paper_low & ours_low)}. "
                     + ("Most of the paper's weaker methods are weaker here too."
                        if len(paper_low & ours_low) >= len(paper_low) / 2 else
                        "The paper's spread between methods is partly reproduced." if paper_low & ours_low else
                        "The paper's spread between methods is not reproduced: once the class is a feature, any "
                        "method that keeps it and drops enough of the rest is (near) perfect; the paper does not "
                        "say what made its other methods miss the class feature."))
    if "feature" in labels:
        diag = train_size_diagnostic(datasets)
        piv = diag.pivot(index="n_train", columns="dataset", values="accuracy")[datasets]
        piv = piv.loc[list(dict.fromkeys(diag["n_train"]))]  # keep the sweep's order
        L.append("- Why independent middle features (`\"feature\"`) are not enough: the selectors reach the "
                 "paper's 1.0 (the class is a feature), but CompleteFS with NB is not near chance under 10-fold "
                 "CV: one perfect feature carries a log-likelihood ratio of about log(451) = 6.1 in Bernoulli "
                 "NB (Laplace smoothing, 450 training instances per class), more than the summed noise of the "
                 "other ~1,000-2,000 features, which are independent of each other except within a middle "
                 "feature's own chain of refinements. With independent features the paper's 0.53-0.70 appear "
                 "only when NB is trained on a few dozen instances (below: `nb` on all features, "
                 "`label=\"feature\"`, 10 stratified random splits with 100 test instances), which the paper "
                 "does not describe; the shared latent pool of the default reproduces them under the paper's "
                 "10-fold protocol. Gaussian NB (RapidMiner's NB for numeric 0/1 attributes; last row) does "
                 "not explain them either: the class feature has zero variance within each class, which "
                 "dominates its likelihood.")
        L.append("")
        L.append("| `nb` trained on | " + " | ".join(datasets) + " |")
        L.append("|---|" + "---|" * len(datasets))
        for n, r in piv.iterrows():
            L.append(f"| {n} | " + " | ".join(_f(x) for x in r) + " |")
        L.append("")
    L.append(f"- {thirtieths} of the paper's {len(paper_acc)} NB accuracies in Table 4 (the rows above) are "
             "multiples of 1/30 (.433, .466, .533, .566, .633, ...), which suggests test folds of about 30 "
             "instances (about 300 of the 1,000 instances evaluated) and a standard error near 0.08 per fold.")
    if len(failed):
        L.append("")
        L.append("## Failures")
        L.append("")
        for _, r in failed.drop_duplicates(["label", "selector", "dataset"]).iterrows():
            L.append(f"- `{r.selector}` on {r.dataset} (`label=\"{r.label}\"`): {r.error}")
    L.append("")
    return "\n".join(L)


def _render(df: pd.DataFrame, args, elapsed: float) -> str:
    if "label" not in df:
        df = df.assign(label="polynomial")  # CSVs written before the variants existed
    labels = [v for v in LABELS if v in set(df["label"])]
    datasets = [d for d in DATASETS if d in set(df["dataset"])]
    selectors = [s for s in SELECTORS if s in set(df["selector"])]
    summaries = {v: summarise(df[df["label"] == v], datasets, selectors) for v in labels}
    return markdown(summaries, df, datasets, selectors, elapsed, args)


def main() -> None:
    from kg.files import atomic_write
    from selection.registry import available_selectors

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="*", default=DATASETS, choices=DATASETS)
    ap.add_argument("--labels", nargs="+", default=list(LABELS), choices=LABELS,
                    help="generator variants (selection.synthetic.shsel.make_dataset(label=...))")
    ap.add_argument("--jobs", type=int, default=2, help="processes (one dataset and variant each)")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "shsel_synthetic.md")
    ap.add_argument("--csv", type=Path, default=ROOT / "docs" / "shsel_synthetic.csv")
    ap.add_argument("--from-csv", action="store_true", help="only re-render the markdown from --csv")
    args = ap.parse_args()
    if args.from_csv:
        df = pd.read_csv(args.csv)
        elapsed = float(df["run_seconds"].iloc[0]) if "run_seconds" in df else float(
            df.groupby("dataset")["wall_seconds"].first().sum()
        )
        text = _render(df, args, elapsed)
        atomic_write(args.out, lambda tmp: tmp.write_text(text, encoding="utf-8"))
        print(text)
        return

    known = available_selectors()
    selectors = [s for s in SELECTORS if s in known]
    missing = [s for s in SELECTORS if s not in known]
    if missing:
        print(f"not registered (skipped): {', '.join(missing)}", file=sys.stderr)
    cells = [(v, d) for v in args.labels for d in args.datasets]
    t0 = time.perf_counter()
    if args.jobs > 1 and len(cells) > 1:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=args.jobs)(
            delayed(run_dataset)(d, selectors, args.folds, args.seed, v) for v, d in cells
        )
    else:
        parts = [run_dataset(d, selectors, args.folds, args.seed, v) for v, d in cells]
    elapsed = time.perf_counter() - t0
    df = pd.concat(parts, ignore_index=True)
    df["run_seconds"] = elapsed

    atomic_write(args.csv, lambda tmp: df.to_csv(tmp, index=False))
    text = _render(df, args, elapsed)
    atomic_write(args.out, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    print(text)
    print(f"\nwrote {os.path.relpath(args.out)} and {os.path.relpath(args.csv)} in {elapsed:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
