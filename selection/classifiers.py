"""The classifiers of the papers' protocols, registered under short names.

- ``nb``: Bernoulli Naive Bayes with Laplace smoothing (binary features).
- ``knn``: k-NN with k=3 (SHSEL paper); ``1nn``: k=1 (RPV paper). Euclidean distance.
- ``svm``: SVM with a polynomial kernel (SHSEL paper; scikit-learn's defaults otherwise).
"""

from __future__ import annotations

from sklearn.naive_bayes import BernoulliNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC

from selection.registry import register_classifier

register_classifier("nb", lambda **kw: BernoulliNB(**{"alpha": 1.0, **kw}),
                    description="Bernoulli Naive Bayes, Laplace smoothing")
register_classifier("knn", lambda **kw: KNeighborsClassifier(**{"n_neighbors": 3, **kw}),
                    description="k-NN, k=3, Euclidean")
register_classifier("1nn", lambda **kw: KNeighborsClassifier(**{"n_neighbors": 1, **kw}),
                    description="1-NN, Euclidean")
register_classifier("svm", lambda **kw: SVC(**{"kernel": "poly", **kw}),
                    description="SVM, polynomial kernel")
