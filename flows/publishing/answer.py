"""The answer every report opens with: per dataset, one sentence on the best method against the majority class.

The numbers are :class:`selection.evaluation.verdict.Verdict` s (``answer.json`` of an evaluation); this module
only words them, the same way for ``report.md``, ``report.html``, the console and the Prefect report artifact:

- :func:`sentence`: one dataset's sentence; :func:`answer_sentences`: every dataset's (what
  :class:`selection.evaluation.report.ReportSettings` ``answer`` takes);
- :func:`read_answer`: the verdicts of an ``answer.json``;
- :func:`with_answer`: a ``report.md`` with the sentences under its title (a run's stored report, published).

"Beats" means *significantly better* (the paired test against the baseline, Holm-adjusted, as in ``stats.md``);
a best method above the baseline but not significantly is said to be above it, not to beat it.

Examples
--------
>>> from selection.evaluation.verdict import Verdict
>>> v = Verdict("bundled/DM-BP", "accuracy", "shsel-ig-prune", "nb", 0.709, 0.717, -0.008, -0.133, 0.116, 0.95,
...             0.883, 1.0, 3, 10, "no significant difference", "corrected resampled t-test", 2)
>>> print(sentence(v))
No method beats the majority class on accuracy (0.717): the best, shsel-ig-prune + nb, is 0.008 below it, \
95% interval [-0.133, +0.116] (corrected resampled t-test over 10 folds: no significant difference, Holm p = 1.000).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # importing selection.evaluation imports scikit-learn: only when an answer is read
    from selection.evaluation.verdict import Verdict

__all__ = ["answer_sentences", "measure_word", "read_answer", "sentence", "with_answer"]

_WORDS = {"accuracy": "accuracy", "gm": "GM", "auroc": "AUROC", "aucpr": "AUCPR", "harmonic_mean": "harmonic mean"}


def measure_word(v: Verdict) -> str:
    """The measure as the sentence names it: a multi-class task's averaging said (``macro AUROC``, ``GM over the
    classes``), no positive class.

    Examples
    --------
    >>> from selection.evaluation.verdict import Verdict
    >>> v = Verdict.from_dict({"dataset": "d", "measure": "auroc", "n_classes": 4, "averaging": "macro"})
    >>> measure_word(v), measure_word(Verdict.from_dict({"dataset": "d", "measure": "gm", "n_classes": 4,
    ...                                                   "averaging": "macro"}))
    ('macro one-vs-rest AUROC', 'GM over the 4 classes')
    """
    word = _WORDS.get(v.measure, v.measure)
    if v.averaging and v.measure in ("auroc", "aucpr"):
        return f"{'macro' if v.averaging == 'macro' else 'class-weighted'} one-vs-rest {word}"
    if v.averaging and v.measure == "gm":
        return f"GM over the {v.n_classes} classes" if v.n_classes else "GM over the classes"
    return word


def _p(v: float) -> str:
    return f"{v:.1E}" if v < 0.001 else f"{v:.3f}"


def sentence(v: Verdict, *, with_dataset: bool = False) -> str:
    """One dataset's answer in one sentence (see the module).

    Parameters
    ----------
    v : Verdict
    with_dataset : bool
        Start with the dataset's name (several datasets).

    Returns
    -------
    str

    Examples
    --------
    >>> from selection.evaluation.verdict import Verdict
    >>> v = Verdict("d", "accuracy", "sig", "nb", 0.9, 0.7, 0.2, 0.1, 0.3, 0.95, 0.001, 0.004, 3, 10, "better",
    ...             "corrected resampled t-test", 2)
    >>> print(sentence(v, with_dataset=True))
    d: sig + nb beats the majority class on accuracy (0.700): 0.900, 0.200 above it, 95% interval [+0.100, +0.300] \
(corrected resampled t-test over 10 folds: significant, Holm p = 0.004).
    """
    head = f"{v.dataset}: " if with_dataset else ""
    word = measure_word(v)
    if v.selector is None:
        return f"{head}No method has a complete {word} score: there is no answer."
    method = f"{v.selector} + {v.classifier}" + (" (a degenerate selection)" if v.degenerate else "")
    if v.baseline != v.baseline:
        return f"{head}The best on {word} is {method} ({v.value:.3f}); there is no majority-class baseline beside it."
    d = v.difference
    where = "level with" if abs(d) < 5e-4 else f"{abs(d):.3f} {'above' if d > 0 else 'below'}"
    gap = f"{where} it"
    base = f"the majority class on {word} ({v.baseline:.3f})"
    if v.outcome == "untested":
        why = "no paired test: fewer than two folds" if v.n_folds < 2 else "no paired test"
        if v.above:
            return f"{head}The best on {word}, {method} ({v.value:.3f}), is {where} the majority class " \
                   f"({v.baseline:.3f}) ({why})."
        return f"{head}No method beats {base}: the best, {method}, is {gap} ({why})."
    interval = f"{100 * v.confidence:.0f}% interval [{v.ci_low:+.3f}, {v.ci_high:+.3f}]"
    test = f"corrected resampled t-test over {v.n_folds} folds"
    if v.outcome == "better":
        return f"{head}{method} beats {base}: {v.value:.3f}, {gap}, {interval} ({test}: significant, " \
               f"Holm p = {_p(v.p_holm)})."
    if v.outcome == "worse":
        return f"{head}No method beats {base}: the best, {method}, is {gap}, {interval} ({test}: significantly " \
               f"worse, Holm p = {_p(v.p_holm)})."
    if v.above:
        return f"{head}No method beats {base} significantly: the best, {method}, is {gap}, {interval} ({test}: " \
               f"no significant difference, Holm p = {_p(v.p_holm)})."
    return f"{head}No method beats {base}: the best, {method}, is {gap}, {interval} ({test}: no significant " \
           f"difference, Holm p = {_p(v.p_holm)})."


def answer_sentences(verdicts: Sequence[Verdict]) -> list[str]:
    """Every dataset's sentence (its name first when there are several).

    Examples
    --------
    >>> answer_sentences([])
    []
    """
    several = len({v.dataset for v in verdicts}) > 1
    return [sentence(v, with_dataset=several) for v in verdicts]


def read_answer(path) -> list[Verdict]:
    """The verdicts of an ``answer.json`` (:func:`selection.evaluation.report.write_outputs`); ``[]`` when missing.

    Examples
    --------
    >>> read_answer("/nonexistent/answer.json")
    []
    """
    from selection.evaluation.verdict import Verdict

    p = Path(path)
    if not p.is_file():
        return []
    return [Verdict.from_dict(d) for d in json.loads(p.read_text(encoding="utf-8")).get("datasets") or []]


def with_answer(markdown: str, sentences: Sequence[str]) -> str:
    """``markdown`` (a report starting with its ``# title``) with the sentences in bold right under the title.

    A report that holds them already is returned unchanged.

    Examples
    --------
    >>> print(with_answer("# T\\n\\n- a note\\n", ["No method beats the majority class."]))
    # T
    <BLANKLINE>
    **No method beats the majority class.**
    <BLANKLINE>
    - a note
    <BLANKLINE>
    """
    if not sentences or all(f"**{s}**" in markdown for s in sentences):
        return markdown
    title, _, rest = markdown.partition("\n")
    if not title.startswith("# "):
        title, rest = "", markdown
    block = "\n\n".join(f"**{s}**" for s in sentences)
    return (f"{title}\n\n" if title else "") + block + "\n\n" + rest.lstrip("\n")
