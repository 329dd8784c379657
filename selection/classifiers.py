"""The classifiers of the papers' protocols, registered under short names.

Ristoski & Paulheim, *Feature Selection in Hierarchical Feature Spaces* (Discovery Science
2014, section 5.3) evaluate with Naive Bayes, k-NN (k=3) and an SVM; da Silva, Plastino &
Freitas, *Prioritizing Positive Feature Values* (Applied Intelligence 2020, section 5.2) with
Naive Bayes and 1-NN.

- ``nb``: Bernoulli Naive Bayes with Laplace smoothing (binary features).
- ``knn``: k-NN with k=3 (SHSEL paper); ``1nn``: k=1 (RPV paper). Euclidean distance.
- ``svm``: SVM with a polynomial kernel (SHSEL paper; scikit-learn's defaults otherwise).

Keyword arguments override the defaults.

Examples
--------
>>> from selection.registry import get_classifier
>>> get_classifier("knn")
KNeighborsClassifier(n_neighbors=3)
>>> get_classifier("svm", C=10.0)
SVC(C=10.0, kernel='poly')
"""

from __future__ import annotations

from sklearn.naive_bayes import BernoulliNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

from selection.registry import register_classifier

_SHSEL = "Ristoski & Paulheim, Feature Selection in Hierarchical Feature Spaces (Discovery Science 2014), s.5.3"
_RPV = "da Silva, Plastino & Freitas, Prioritizing Positive Feature Values (Applied Intelligence 2020), s.5.2"
register_classifier("nb", lambda **kw: BernoulliNB(**{"alpha": 1.0, **kw}),
                    description="Bernoulli Naive Bayes, Laplace smoothing", paper=f"{_SHSEL}; {_RPV}")
register_classifier("knn", lambda **kw: KNeighborsClassifier(**{"n_neighbors": 3, **kw}),
                    description="k-NN, k=3, Euclidean", paper=_SHSEL)
register_classifier("1nn", lambda **kw: KNeighborsClassifier(**{"n_neighbors": 1, **kw}),
                    description="1-NN, Euclidean", paper=_RPV)
register_classifier("svm", lambda **kw: SVC(**{"kernel": "poly", **kw}),
                    description="SVM, polynomial kernel", paper=_SHSEL)
