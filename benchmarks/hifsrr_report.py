"""Generate ``docs/hifsrr.md`` and its plots: HiFSRR on digits and on synthetic class trees.

Run by hand from the checkout (about 2-4 minutes on one core):

    python benchmarks/hifsrr_report.py [--out docs] [--quick]

Everything in the report is computed by this script; nothing is typed in by hand. ``--quick``
uses 3 folds and fewer synthetic seeds (for trying the script, not for the report).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sklearn.datasets import load_digits  # noqa: E402

from kg.files import atomic_write  # noqa: E402
from selection.class_hierarchy.evaluation import evaluate_class_hierarchy, summarize  # noqa: E402
from selection.class_hierarchy.hifsrr import HiFSRR  # noqa: E402
from selection.class_hierarchy.tree import ClassHierarchy  # noqa: E402
from selection.synthetic.class_tree import make_hierarchical_classification  # noqa: E402

#: the synthetic setting of the section 3.4 experiment (few samples, many noise features)
SYN = dict(n_samples=90, n_noise=1000, group_sep=1.0, class_sep=1.0)
REG = 100.0  # alpha = beta for the regularised run on the synthetic data


def _std(X):
    sd = X.std(0)
    sd[sd == 0] = 1
    return (X - X.mean(0)) / sd


def md_table(df: pd.DataFrame, fmt="{:.3f}", index_name="method") -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + index_name + " | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for idx, row in df.iterrows():
        cells = [fmt.format(v) if isinstance(v, (float, np.floating)) else str(v) for v in row.tolist()]
        lines.append(f"| {idx} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def convergence(out: Path, digits_X, digits_y, digits_tree):
    """Objective per iteration on digits, on the synthetic data and on the benchmark shape."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = {}
    Xd = _std(digits_X)
    runs["digits, paper params (10, 0.1, 0.1)"] = HiFSRR(digits_tree, k=None, random_state=0).fit(Xd, digits_y)
    runs[f"digits, alpha = beta = {REG:g}"] = HiFSRR(digits_tree, k=None, alpha=REG, beta=REG,
                                                     random_state=0).fit(Xd, digits_y)
    syn = make_hierarchical_classification(**SYN, random_state=0)
    runs[f"synthetic 3.4, alpha = beta = {REG:g}"] = HiFSRR(syn.tree, k=None, alpha=REG, beta=REG, random_state=0).fit(
        _std(syn.X), syn.y)
    runs["synthetic 3.4, alpha = beta = 0"] = HiFSRR(syn.tree, k=None, alpha=0, beta=0, random_state=0).fit(
        _std(syn.X), syn.y)
    big = make_hierarchical_classification(n_samples=10_000, n_groups=4, n_classes_per_group=5, n_noise=420,
                                           class_sep=1.0, group_sep=1.0, random_state=0)
    runs["10,000 x 500, 20 leaves (benchmark)"] = HiFSRR(big.tree, k=None, random_state=0).fit(_std(big.X), big.y)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    rows = []
    for name, sel in runs.items():
        J = sel.objective_
        it = np.arange(1, len(J) + 1)
        axes[0].plot(it, J / J[0], marker=".", label=name)
        gap = (J - J[-1]) / J[-1]
        axes[1].semilogy(it[:-1], np.maximum(gap[:-1], 1e-16), marker=".", label=name)
        rows.append((name, len(J), J[0], J[-1], bool(np.all(np.diff(J) <= 1e-10 * J[:-1])),
                     int(np.argmax(gap <= 1e-3)) + 1))
    axes[0].set(xlabel="iteration", ylabel="J / J(iteration 1)", title="HiFSRR objective per iteration")
    axes[1].set(xlabel="iteration", ylabel="(J - J_final) / J_final", title="distance to the final value")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    img = out / "img" / "hifsrr_objective.png"
    img.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(img, lambda p: fig.savefig(p, dpi=110, format="png"))
    plt.close(fig)
    table = pd.DataFrame(rows, columns=["run", "iterations (tol 1e-5)", "J after it. 1", "J final", "monotone",
                                       "it. to within 0.1%"]).set_index("run")
    return table, img


def synthetic_34(n_seeds: int, n_splits: int):
    ks = [24, 16, 8, 4, 2]
    res = []
    recov = {"alpha = beta = 0": [], f"alpha = beta = {REG:g}": []}
    for seed in range(n_seeds):
        d = make_hierarchical_classification(**SYN, random_state=seed)
        r = evaluate_class_hierarchy(d.X, d.y, d.tree, n_features=ks, n_splits=n_splits, random_state=seed,
                                     methods=[("hifsrr", {"alpha": REG, "beta": REG}), "hifsrr-flat"])
        r["seed"] = seed
        res.append(r)
        X = _std(d.X)
        for name, a in ((f"alpha = beta = {REG:g}", REG), ("alpha = beta = 0", 0.0)):
            sel = HiFSRR(d.tree, k=2, alpha=a, beta=a, random_state=0).fit(X, d.y)
            recov[name].append(np.mean([np.isin(np.flatnonzero(sel.node_support_[g]), d.relevant[g]).mean()
                                        for g in ("g0", "g1", "g2")]))
    res = pd.concat(res)
    label = {"hifsrr": f"alpha = beta = {REG:g}", "hifsrr-flat": "alpha = beta = 0"}
    res["method"] = res["method"].map(label)
    node = summarize(res)
    td = summarize(res, "top-down")
    # per dataset: how often the regularised version wins at each k
    per_seed = res[res.node == "mean"].groupby(["seed", "method", "k"]).accuracy.mean().unstack("method")
    wins = (per_seed[label["hifsrr"]] > per_seed[label["hifsrr-flat"]]).groupby("k").sum()
    ties = (per_seed[label["hifsrr"]] == per_seed[label["hifsrr-flat"]]).groupby("k").sum()
    diff = per_seed[label["hifsrr"]] - per_seed[label["hifsrr-flat"]]
    g = diff.groupby("k")
    se = g.std(ddof=1) / np.sqrt(g.count())
    wl = pd.DataFrame({"mean gain": g.mean().map("{:+.3f}".format), "standard error": se.map("{:.3f}".format),
                       "wins (reg. > flat)": wins.astype(int).astype(str), "ties": ties.astype(int).astype(str)}
                      ).T[sorted(wins.index, reverse=True)]
    rec = pd.DataFrame({k: [float(np.mean(v))] for k, v in recov.items()}, index=["planted features in top 2"]).T
    return node, td, wl, rec, g.mean(), se


def digits(n_splits: int):
    X, y = load_digits(return_X_y=True)
    tree = ClassHierarchy.from_data(X, y, n_groups=3)
    methods = ["hifsrr", ("hifsrr", {"alpha": REG, "beta": REG}), "hifsrr-flat", "fsnm", "fisher", "mrmr", "relieff"]
    t0 = time.perf_counter()
    res = evaluate_class_hierarchy(X, y, tree, n_features=[32, 16, 8, 4], methods=methods, n_splits=n_splits,
                                   random_state=0)
    secs = time.perf_counter() - t0
    res["method"] = np.where(res["params"] != "{}", res["method"] + f" (alpha = beta = {REG:g})", res["method"])
    times = res.groupby("method").select_seconds.mean().to_frame("selection seconds per fold")
    return X, y, tree, summarize(res), summarize(res, "top-down"), times, secs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs"))
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args(argv)
    out = Path(a.out)
    n_splits = 3 if a.quick else 10
    n_seeds = 2 if a.quick else 8
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        t0 = time.perf_counter()
        dX, dy, dtree, d_node, d_td, d_times, d_secs = digits(n_splits)
        conv, img = convergence(out, dX, dy, dtree)
        s_node, s_td, s_wl, s_rec, s_gain, s_se = synthetic_34(n_seeds, n_splits)
        import contextlib
        import io

        import bench_hifsrr

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            bench_hifsrr.run(10_000, 500, 1)
            bench_hifsrr.run_wide()
        bench_out = buf.getvalue().strip()
        total = time.perf_counter() - t0
    # ---- sentences computed from the numbers above
    mono = bool(conv["monotone"].all())
    conv_text = (
        f"The objective decreased monotonically in {'every run' if mono else 'NOT every run'}. It came within "
        f"0.1% of its final value after {conv['it. to within 0.1%'].min()}-{conv['it. to within 0.1%'].max()} "
        f"iterations, and the stopping rule (relative change < 1e-5) ended the runs after "
        f"{conv['iterations (tol 1e-5)'].min()}-{conv['iterations (tol 1e-5)'].max()} iterations. The paper reports "
        f"convergence within ten iterations on its data sets; the slowest run here is "
        f"\"{conv['iterations (tol 1e-5)'].idxmax()}\". Weight rows of irrelevant features shrink towards zero "
        "only geometrically under the reweighting, which gives the long tail in the right-hand plot."
    )
    same = np.allclose(d_node.loc["hifsrr"].values, d_node.loc["hifsrr-flat"].values)
    digits_same = ("on digits the paper's parameters give the same accuracies as `alpha = beta = 0` at every k"
                   if same else "on digits the paper's parameters and `alpha = beta = 0` differ little")
    best = d_node.idxmax(axis=0)
    hif = [m for m in d_node.index if m.startswith("hifsrr")]
    lines = []
    for k in d_node.columns:
        b = d_node[k].max()
        h = d_node.loc[hif, k].max()
        lines.append(f"k = {k}: best {best[k]} ({b:.3f}), best HiFSRR variant {h:.3f}")
    hwins = [str(k) for k in d_node.columns if best[k].startswith("hifsrr")]
    kmin = min(d_node.columns)
    digits_text = ("Per number of features, the best method and the best HiFSRR variant (mean node accuracy): "
                   + "; ".join(lines) + ". A HiFSRR variant is the best method at "
                   + (f"k = {', '.join(hwins)}." if hwins else "no k.")
                   + (f" At the smallest k ({kmin}) a filter ({best[kmin]}) beats HiFSRR, unlike on the paper's "
                      "data sets. Pixels are strongly correlated with their neighbours, and a least-squares weight "
                      "matrix may spread its weight over correlated pixels where a filter with a redundancy term "
                      "(mRMR) does not; that explanation is not verified."
                      if not best[kmin].startswith("hifsrr") else ""))
    gain, se = s_gain, s_se
    kbest = gain.idxmax()
    clear = [k for k in gain.index if gain[k] > 2 * se[k]]
    level = [k for k in gain.index if abs(gain[k]) <= 2 * se[k]]
    worse = [k for k in gain.index if gain[k] < -2 * se[k]]

    def ks(v):
        return ", ".join(str(k) for k in sorted(v, reverse=True)) or "none"

    syn_text = (
        "Gain of the regularised version in mean node accuracy (mean over datasets): "
        + ", ".join(f"k = {k}: {gain[k]:+.3f}" for k in sorted(gain.index, reverse=True))
        + f". It is largest at k = {kbest}. More than two standard errors above zero at k = {ks(clear)}; "
        f"within two standard errors of zero at k = {ks(level)}; more than two below at k = {ks(worse)}. "
        "The paper's section 3.4 finds the two terms help most when few features are selected; "
        + ("here the gain is largest in the middle of the grid, near the number of planted features of a group "
           "node (12). At the smallest k both versions do poorly (see the accuracy table): three children are "
           "hard to tell apart with so few features at this separation. "
           if kbest not in (min(gain.index), max(gain.index)) else
           f"here the gain is largest at k = {kbest}. ")
        + "The recovery table shows "
        "why the terms help: a group node has few samples and many noise features. Pulling its weights towards "
        "the root's (the root sees every sample) and away from its siblings' puts the group's own features on top."
    )
    groups = "; ".join(
        f"`{dtree.node_ids[i]}` = {{{', '.join(dtree.children_of(dtree.node_ids[i]))}}}" for i in dtree.internal
    )
    text = f"""# HiFSRR: feature selection over a hierarchy of classes

*Generated by `python benchmarks/hifsrr_report.py` ({n_splits}-fold CV; {total:.0f} s on one core). \
Do not edit by hand.*

Zhao et al. (IJCAI 2017) select a **different feature subset for every internal node of a class
tree**: node `i` is the classification task "which of my children does this sample belong to",
trained on the samples of its subtree. HiFSRR fits a weight matrix `W_i` per node with an l2,1
penalty (row sparsity: a feature is used by a node or not), a parent-child term
`alpha ||W_i - W_parent||^2` (a node and its parent share features) and an HSIC term
`beta tr(W_i W_i' H W_l W_l' H)` between siblings (siblings use different features), and ranks
node `i`'s features by the row norms of `W_i`.

## Use

```python
from selection.class_hierarchy.tree import ClassHierarchy, HierarchicalClassifier
from selection.class_hierarchy.hifsrr import HiFSRR

tree = ClassHierarchy.read("classes.tsv")            # child<TAB>parent per line
# or: tree = ClassHierarchy.from_data(X, y, n_groups=3)   (agglomerative clustering of class means)
sel = HiFSRR(tree, lam=10, alpha=0.1, beta=0.1, k=20).fit(X, y)
sel.node_support_["animals"]                          # bool mask of the node's 20 features
sel.objective_                                        # J per iteration (decreasing)
clf = HierarchicalClassifier(tree, node_features=sel.node_support_).fit(X, y)   # top-down, linear SVM per node
```

The paper's evaluation (section 3.3) is `selection.class_hierarchy.evaluation.evaluate_class_hierarchy`
and the protocol `hifsrr2017` (`kgfs evaluate --protocol hifsrr2017`): for each number `k` of
features per node, 10-fold stratified CV, the mean accuracy of the per-node linear SVMs over the
internal nodes, plus the accuracy of the whole top-down classifier. Baselines per node: FSNM
(Nie et al. 2010), Fisher score, mRMR and ReliefF (the measures of `selection.flat`, which the
registry's flat selectors apply to binary tables, here on the real values of each node).
Features are standardised inside each fold.

HiFSRR is **not** in the selector registry: registry selectors (`HierarchicalSelector`) take a
hierarchy over binary *features* and select one global subset; HiFSRR takes a tree over the
*classes*, works on real values and selects per class node. `HiFSRR` is still a scikit-learn
selector (its `support_`/`transform` give the union of the node subsets; `node_support_` the
per-node ones) and passes `parametrize_with_checks`.

## How Algorithm 1 is implemented (and where the paper was read)

- Each node update is the closed form of Eq. 9 (root) / Eq. 11 (others), solved by Cholesky
  factorisation, never by an inverse; `X_i'X_i` is computed once. When a node has fewer
  samples (plus `d_max` per sibling) than features, the system is solved in sample space via the
  Woodbury identity (timings in the Speed section).
- Nodes are updated one after another (root first), each with its neighbours' newest weights
  (Gauss-Seidel). Algorithm 1 literally uses the previous iterate for all neighbours (Jacobi,
  `update="jacobi"`), which does not guarantee the monotone decrease of section 2.4; with
  Gauss-Seidel every node step exactly minimises a majoriser of J, so J never increases (tested).
- For trees deeper than the paper's (height > 3), Eq. 11 misses the parent-child terms of a
  node's own internal children; we keep them (tested: the fixed point is a stationary point of
  Eq. 4 by finite differences on a height-4 tree). On height-3 trees the update is exactly the
  paper's (tested against Algorithm 1 with explicit inverses and an explicit `H`).
- `D_jj = 1 / (2 sqrt(||w_j||^2 + eps))`, and the recorded objective uses the same smoothed
  norm (`eps = 1e-12`). Weights start random (seeded), as in Algorithm 1.
- Scale of `alpha`, `beta`: the loss grows with the number of samples (no `1/m` in Eq. 4), so the
  paper's `alpha = beta = 0.1` can be negligible on a thousand samples of standardised
  features ({digits_same}). The tables below also show `alpha = beta = {REG:g}`.

## Convergence (the paper's Fig. 2)

![objective per iteration]({img.relative_to(out).as_posix()})

{md_table(conv, fmt="{:.6g}", index_name="run")}

{conv_text}

## Real data offline: scikit-learn's digits with a class tree built from the data

`load_digits` (1,797 images of 8 x 8 pixels, 64 features, 10 classes) has no class tree, so one
is built by `ClassHierarchy.from_data(X, y, n_groups=3)`: the ten class means (features
standardised) are clustered by Ward linkage and the dendrogram is cut into 3 clusters; a
one-class cluster hangs from the root directly. The tree: {groups}.

Mean accuracy over the internal nodes (per-node linear SVMs, {n_splits}-fold CV), by number of
features per node:

{md_table(d_node)}

Top-down classifier (leaf accuracy of the whole tree of SVMs):

{md_table(d_td)}

{md_table(d_times, fmt="{:.3f}")}

{digits_text}

## The hierarchy terms with few features (the paper's section 3.4), on synthetic data

`make_hierarchical_classification(n_samples=90, n_noise=1000, group_sep=1.0, class_sep=1.0)`:
3 groups x 3 classes; every class owns 4 features (disjoint between siblings) shifted for the
class and, less, for its whole group, so a group node and the root share features and sibling
groups do not; 1,000 noise features. {n_seeds} datasets (seeds 0..{n_seeds - 1}), {n_splits}-fold CV each,
`lam = 10`; `alpha = beta = {REG:g}` against `alpha = beta = 0` (the flat l2,1 method per node).

Mean accuracy over the internal nodes:

{md_table(s_node)}

Top-down accuracy:

{md_table(s_td)}

Per dataset, the regularised minus the flat mean node accuracy: its mean and standard error over the
{n_seeds} datasets, and on how many datasets the regularised version is higher (wins) or equal (ties):

{md_table(s_wl, fmt="{:.0f}", index_name="")}

Fraction of the planted features among each group node's top 2 (HiFSRR on all samples, mean over
datasets and group nodes):

{md_table(s_rec, index_name="run")}

{syn_text}

## Speed (`benchmarks/bench_hifsrr.py`, one BLAS thread)

```
{bench_out}
```
"""
    atomic_write(out / "hifsrr.md", lambda p: p.write_text(text, encoding="utf-8"))
    print(text)


if __name__ == "__main__":
    main()
