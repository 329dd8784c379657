"""kgfs orchestration: the ``kgfs`` command line and the Prefect flows.

Thin wrappers over :mod:`kg` and :mod:`selection`. Importing ``flows`` (or ``flows.cli``) does
not import Prefect; :mod:`flows.pipeline` does, after :func:`flows.settings.configure` has
set up the offline environment.
"""
