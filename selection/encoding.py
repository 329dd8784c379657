"""A fitted estimator as JSON values and named NumPy arrays, and back: no pickle, only trusted classes built.

:class:`Encoder` turns an estimator into a tree of JSON values: an estimator is its class (``module:qualname``)
and its attributes (``vars()``), an array a reference to an entry of :attr:`Encoder.arrays` (to be written with
``allow_pickle=False``), a sparse matrix its CSR arrays, a :class:`~kg.hierarchy.FeatureHierarchy` its nodes and
edges (once, however many estimators share it), a tuple, a dict with keys that are not strings, a NumPy scalar or
dtype a tagged object, and a fitted decision tree's nodes (scikit-learn's private ``Tree``) its constructor's
arguments and state. Anything else (a function, an object of another class) is refused, named.
:class:`Decoder` builds the tree back; only the classes of :func:`trusted_classes` are built (the estimators
:mod:`selection.registry` registers, the ones they build, ``Pipeline``, :class:`~selection.lazy.LazySelectionClassifier`
and :class:`~kg.features.KGFeatures`). A :class:`~kg.features.KGFeatures` is encoded without its ``source``,
``annotator`` and ``memory`` (:data:`SUPPLIED`: handles on a graph, not values), which the decoder is given again.

The model folder that keeps these (JSON, arrays, manifest) is :mod:`selection.model`.

Examples
--------
>>> import json
>>> from sklearn.naive_bayes import BernoulliNB
>>> nb = BernoulliNB().fit(np.eye(3), ["a", "b", "b"])
>>> enc = Encoder(trusted_classes())
>>> tree = json.loads(json.dumps(enc.value(nb, "nb")))  # plain JSON
>>> tree["class"], sorted(enc.arrays)[:2]
('sklearn.naive_bayes:BernoulliNB', ['a0', 'a1'])
>>> again = Decoder(enc.arrays, trusted_classes()).value(tree)
>>> bool((again.predict_proba(np.eye(3)) == nb.predict_proba(np.eye(3))).all())
True
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from kg.errors import InputFormatError, KgfsError
from kg.hierarchy import FeatureHierarchy

__all__ = ["SUPPLIED", "Decoder", "Encoder", "trusted_classes"]

#: The parameters of :class:`~kg.features.KGFeatures` not saved: handles on a graph, passed again on load.
SUPPLIED = ("source", "annotator", "memory")
_TAG = "__kgfs__"
_TREE = "sklearn.tree._tree:Tree"  # not an estimator: the nodes of a fitted decision tree (arrays)


# --------------------------------------------------------------------------- trusted classes
def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _nested_classes(est, seen: dict[str, type]) -> None:
    if not hasattr(est, "get_params"):
        return
    seen.setdefault(_name(type(est)), type(est))
    for value in est.get_params(deep=False).values():
        if isinstance(value, list | tuple):  # a Pipeline's steps
            for item in value:
                _nested_classes(item[-1] if isinstance(item, tuple) else item, seen)
        else:
            _nested_classes(value, seen)


def trusted_classes() -> dict[str, type]:
    """The classes a model may be built of, by ``module:qualname``: those of :mod:`selection.registry` (a class
    it registers, or the classes of what a registered function builds), ``Pipeline``,
    :class:`~selection.lazy.LazySelectionClassifier`, the lazy classifiers and :class:`~kg.features.KGFeatures`.

    Returns
    -------
    dict of str -> type

    Examples
    --------
    >>> names = trusted_classes()
    >>> "sklearn.naive_bayes:BernoulliNB" in names, "selection.hierarchical.shsel:SHSEL" in names
    (True, True)
    >>> "builtins:eval" in names
    False
    """
    from sklearn.pipeline import Pipeline

    from kg.features import KGFeatures
    from selection.lazy import LazyKNN, LazyNaiveBayes, LazySelectionClassifier
    from selection.registry import available_classifiers, available_selectors

    seen: dict[str, type] = {}
    for entry in [*available_selectors().values(), *available_classifiers().values()]:
        if isinstance(entry.factory, type):
            seen.setdefault(_name(entry.factory), entry.factory)
        else:  # a function that builds the estimator (svm-linear: a Pipeline; tree): the classes it builds
            try:
                _nested_classes(entry.factory(), seen)
            except TypeError:  # it needs arguments: only its declared classes
                continue
    for cls in (Pipeline, KGFeatures, LazySelectionClassifier, LazyNaiveBayes, LazyKNN):
        seen.setdefault(_name(cls), cls)
    return seen


# --------------------------------------------------------------------------- the estimator as JSON + arrays
class Encoder:
    """Values to JSON, their arrays collected in :attr:`arrays` (by name); ``where`` names a value in a refusal."""

    def __init__(self, trusted: Mapping[str, type]):
        self.trusted, self.arrays, self.hierarchies = trusted, {}, {}

    def array(self, a: np.ndarray, where: str) -> dict:
        kind = "array"
        if a.dtype.kind == "O":
            if not all(isinstance(v, str) for v in a.ravel().tolist()):
                raise KgfsError(f"cannot save {where}: an array of Python objects that are not all strings")
            a, kind = a.astype(str), "object-strings"
        elif a.dtype.hasobject:
            raise KgfsError(f"cannot save {where}: an array of Python objects")
        ref = f"a{len(self.arrays)}"
        self.arrays[ref] = a
        return {_TAG: kind, "ref": ref}

    def hierarchy(self, h: FeatureHierarchy) -> dict:
        ref = self.hierarchies.get(id(h), (None,))[0]
        if ref is None:
            ref = f"h{len(self.hierarchies)}"
            self.hierarchies[id(h)] = (ref, h)
            c, p = h.edges
            self.arrays.update({f"{ref}.nodes": h.node_ids.astype(str), f"{ref}.child": c, f"{ref}.parent": p,
                                f"{ref}.removed": np.array(h.removed_edges, dtype=str).reshape(-1, 2)})
            if h.merged:  # the members of each merged cycle (node, member) pairs
                self.arrays[f"{ref}.merged"] = np.array([[k, m] for k, ms in h.merged.items() for m in ms], dtype=str)
        return {_TAG: "hierarchy", "ref": ref}

    def value(self, v: Any, where: str) -> Any:
        if v is None or isinstance(v, bool | str):
            return v
        if isinstance(v, int | float) and type(v) in (int, float):
            return v
        if isinstance(v, np.generic):
            if v.dtype.kind not in "biufcUS":
                raise KgfsError(f"cannot save {where}: a NumPy scalar of dtype {v.dtype}")
            return {_TAG: "scalar", "dtype": v.dtype.str, "value": v.item()}
        if isinstance(v, np.dtype):
            return {_TAG: "dtype", "value": v.str}
        if isinstance(v, np.ndarray):
            return self.array(v, where)
        if sp.issparse(v):
            m = sp.csr_matrix(v)
            return {_TAG: "csr", "data": self.array(m.data, where), "indices": self.array(m.indices, where),
                    "indptr": self.array(m.indptr, where), "shape": list(m.shape),
                    "matrix": not isinstance(v, sp.sparray)}
        if isinstance(v, FeatureHierarchy):
            return self.hierarchy(v)
        if isinstance(v, tuple):
            return {_TAG: "tuple", "items": [self.value(x, f"{where}[{i}]") for i, x in enumerate(v)]}
        if isinstance(v, list):
            return [self.value(x, f"{where}[{i}]") for i, x in enumerate(v)]
        if isinstance(v, dict):
            if all(isinstance(k, str) for k in v) and _TAG not in v:
                return {k: self.value(x, f"{where}[{k!r}]") for k, x in v.items()}
            return {_TAG: "dict", "items": [[self.value(k, where), self.value(x, f"{where}[{k!r}]")]
                                            for k, x in v.items()]}
        if hasattr(v, "get_params"):
            return self.estimator(v, where)
        if _name(type(v)) == _TREE:  # a fitted decision tree's nodes: its constructor's arguments and its arrays
            cls, args, state = v.__reduce__()
            return {_TAG: "tree", "args": self.value(tuple(args), where), "state": self.value(state, where)}
        raise KgfsError(f"cannot save {where}: a {type(v).__module__}.{type(v).__qualname__} (a model holds "
                        "estimators of the registry's classes, arrays and plain values)")

    def estimator(self, est, where: str) -> dict:
        from kg.features import KGFeatures

        name = _name(type(est))
        if name not in self.trusted:
            raise KgfsError(f"cannot save {where}: {name} is not one of the estimator classes a model may hold "
                            "(selection.encoding.trusted_classes)")
        state = {}
        for k, v in vars(est).items():
            if isinstance(est, KGFeatures) and k in SUPPLIED:
                state[k] = {_TAG: "supplied", "name": k}
            elif isinstance(est, KGFeatures) and k.startswith("_") and k != "_sklearn_output_config":
                continue  # its look-up caches, made again from the source
            else:
                state[k] = self.value(v, f"{where}.{k}")
        return {_TAG: "estimator", "class": name, "state": state}


class Decoder:
    """JSON values (an :class:`Encoder`'s) back to values, over its ``arrays``; ``supplied``: the values of
    :data:`SUPPLIED`; ``path`` (the JSON file) and ``arrays_file`` are named in a refusal."""

    def __init__(self, arrays: Mapping[str, np.ndarray], trusted: Mapping[str, type],
                 supplied: Mapping[str, Any] | None = None, path: str | Path | None = None,
                 arrays_file: str = "arrays.npz"):
        self.arrays, self.trusted, self.supplied, self.path = arrays, trusted, dict(supplied or {}), path
        self.arrays_file = arrays_file
        self.hierarchies: dict[str, FeatureHierarchy] = {}

    def array(self, ref: str) -> np.ndarray:
        try:
            return self.arrays[ref]
        except KeyError:
            raise InputFormatError(f"the model names an array {ref!r} that {self.arrays_file} does not hold",
                                   self.path) from None

    def value(self, v: Any) -> Any:
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if not isinstance(v, dict):
            return v
        tag = v.get(_TAG)
        if tag is None:
            return {k: self.value(x) for k, x in v.items()}
        if tag == "array":
            return self.array(v["ref"])
        if tag == "object-strings":
            return self.array(v["ref"]).astype(object)
        if tag == "scalar":
            return np.dtype(v["dtype"]).type(v["value"])
        if tag == "dtype":
            return np.dtype(v["value"])
        if tag == "csr":
            shape = tuple(v["shape"])
            parts = (self.value(v["data"]), self.value(v["indices"]), self.value(v["indptr"]))
            return sp.csr_matrix(parts, shape=shape) if v.get("matrix", True) else sp.csr_array(parts, shape=shape)
        if tag == "hierarchy":
            ref = v["ref"]
            if ref not in self.hierarchies:
                removed = [tuple(r) for r in self.array(f"{ref}.removed").tolist()]
                merged: dict[str, list[str]] = {}
                if f"{ref}.merged" in self.arrays:
                    for node, member in self.array(f"{ref}.merged").tolist():
                        merged.setdefault(node, []).append(member)
                self.hierarchies[ref] = FeatureHierarchy(self.array(f"{ref}.nodes"), self.array(f"{ref}.child"),
                                                         self.array(f"{ref}.parent"), removed_edges=removed,
                                                         merged=merged)
            return self.hierarchies[ref]
        if tag == "tuple":
            return tuple(self.value(x) for x in v["items"])
        if tag == "dict":
            return {self.value(k): self.value(x) for k, x in v["items"]}
        if tag == "tree":
            from kg.sklearn_compat import tree_class

            args, state = self.value(v["args"]), self.value(v["state"])
            tree = tree_class()(int(args[0]), np.asarray(args[1], dtype=np.intp), int(args[2]))
            tree.__setstate__(state)
            return tree
        if tag == "supplied":
            return self.supplied.get(v["name"])
        if tag == "estimator":
            cls = self.trusted.get(v["class"])
            if cls is None:
                raise InputFormatError(f"the model holds a {v['class']}, not one of the classes a model may hold",
                                       self.path)
            est = cls.__new__(cls)
            est.__dict__.update({k: self.value(x) for k, x in v["state"].items()})
            return est
        raise InputFormatError(f"unknown value tag {tag!r} in the model", self.path)


