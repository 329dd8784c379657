"""README's Python API section opens with KGFeatures in a Pipeline, cross_val_score and GridSearchCV: run as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_example() -> str:
    """The first Python block of README's "## Python API" section."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Python API"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_python_api_section_opens_with_the_pipeline_example():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Python API"):]
    assert "KGFeatures" in section.split("```python", 1)[0]  # the section opens with it
    assert "GridSearchCV" in readme_example() and 'hierarchy="from_input"' in readme_example()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_readme_pipeline_example_runs_as_written(capsys):
    namespace = {"__name__": "readme_example"}
    exec(compile(readme_example(), "README.md", "exec"), namespace)
    out = capsys.readouterr().out.splitlines()
    assert 0.5 < float(out[0]) < 1.0  # a mean accuracy
    grid = namespace["grid"]
    assert set(grid.best_params_) == {"kg__min_support", "select__threshold"}
    best = grid.best_estimator_
    assert best["select"].hierarchy_ is best["kg"].hierarchy_
    assert out[1].endswith(repr(best["kg"].hierarchy_))
