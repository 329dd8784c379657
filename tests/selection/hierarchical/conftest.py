"""Real tables shared by the slow tests of the path-based selectors (TSEL, GreedyTopDown)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp


@pytest.fixture(scope="session", params=[pytest.param(name, marks=pytest.mark.slow)
                                         for name in ("aire/DM-BP", "lod/SportsTweetsT")])
def closed_real_table(request, shared_data):
    """``(X, y, hierarchy)`` of a real GO / DBpedia dataset, closed upward (Sports Tweets T has
    6 cells that violate the implication)."""
    from kg.datasets import load_dataset

    t = load_dataset(request.param, mirror=shared_data)
    h = t.hierarchy
    return h.close(sp.csr_matrix(t.X)).astype(float), np.asarray(t.y), h
