"""Every private scikit-learn name kgfs uses, imported here and nowhere else.

scikit-learn's parameter validation (``sklearn.utils._param_validation``) is how kgfs's estimators
declare their parameters (``_parameter_constraints``) and how :mod:`selection.params` reads them
back into words and checks a user's values. The module is private: scikit-learn may move or rename
it in any release. Importing it in this one module means that such a release breaks one file, and
that a reader sees at once what kgfs borrows (``tests/test_layers.py`` checks that no other module
of ``kg/``, ``selection/`` or ``flows/`` imports a private scikit-learn name).

The constraint classes that scikit-learn itself keeps private (``_Booleans``, ``_InstancesOf``, ...)
are exported without their underscore; :func:`selection.params.constraint_text` tells them apart.

Examples
--------
>>> from numbers import Real
>>> Interval(Real, 0, 1, closed="both").is_satisfied_by(0.5), StrOptions({"a"}).is_satisfied_by("b")
(True, False)
>>> isinstance(make_constraint("boolean"), Booleans)
True
"""

from __future__ import annotations

from sklearn.utils._param_validation import (
    HasMethods,
    Hidden,
    Interval,
    InvalidParameterError,
    Options,
    RealNotInt,
    StrOptions,
    make_constraint,
    validate_parameter_constraints,
)
from sklearn.utils._param_validation import _ArrayLikes as ArrayLikes
from sklearn.utils._param_validation import _Booleans as Booleans
from sklearn.utils._param_validation import _Callables as Callables
from sklearn.utils._param_validation import _InstancesOf as InstancesOf
from sklearn.utils._param_validation import _IterablesNotString as IterablesNotString
from sklearn.utils._param_validation import _NoneConstraint as NoneConstraint
from sklearn.utils._param_validation import _RandomStates as RandomStates
from sklearn.utils._param_validation import _SparseMatrices as SparseMatrices

__all__ = [
    "ArrayLikes",
    "Booleans",
    "Callables",
    "HasMethods",
    "Hidden",
    "InstancesOf",
    "Interval",
    "InvalidParameterError",
    "IterablesNotString",
    "NoneConstraint",
    "Options",
    "RandomStates",
    "RealNotInt",
    "SparseMatrices",
    "StrOptions",
    "make_constraint",
    "tree_class",
    "validate_parameter_constraints",
]


def tree_class() -> type:
    """``sklearn.tree._tree.Tree``, the nodes of a fitted decision tree (:mod:`selection.encoding` rebuilds one
    from its arrays); imported when asked for."""
    from sklearn.tree._tree import Tree

    return Tree
