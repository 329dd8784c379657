"""kgfs orchestration: the ``kgfs`` command line and the Prefect flows, wiring :mod:`kg` and :mod:`selection`.

Importing any ``flows`` module changes nothing and imports no Prefect: the entry points
(:func:`flows.cli`, :func:`flows.pipeline.run_pipeline`) configure Prefect for offline use
(:func:`flows.settings.configure`) and the tasks and flows are built on first use.
"""
