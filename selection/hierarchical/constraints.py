"""Parameter constraints shared by the hierarchical selectors (scikit-learn's notation).

Each selector class declares ``_parameter_constraints`` (see :mod:`selection.params`); the
entries every selector over a feature DAG has are defined once here.

Examples
--------
>>> from sklearn.utils._param_validation import validate_parameter_constraints
>>> validate_parameter_constraints({"check_implication": CHECK_IMPLICATION},
...                                {"check_implication": "repair"}, caller_name="example")
"""

from __future__ import annotations

from numbers import Real

from sklearn.utils._param_validation import Interval, StrOptions

from kg.hierarchy import FeatureHierarchy

__all__ = ["HIERARCHY", "BINARIZE", "CHECK_IMPLICATION"]

#: ``hierarchy``: the DAG over the columns, or None (a flat one).
HIERARCHY = [FeatureHierarchy, None]
#: ``binarize``: None (values must be 0/1) or the threshold above which a value counts as 1.
BINARIZE = [Interval(Real, None, None, closed="neither"), None]
#: ``check_implication``: raise on violating rows, use them as they are, or close them upward.
CHECK_IMPLICATION = ["boolean", StrOptions({"repair"})]
