"""The package reads one way: no import circles, reports never reach into the trainer, short functions and
small per-paper modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules() -> dict[str, ast.Module]:
    """noneuclid's modules by dotted name (a package by its own name), parsed."""
    found = {}
    for path in (SRC / "noneuclid").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = ast.parse(path.read_text())
    return found


def _imports(tree: ast.Module, modules: set[str]) -> set[str]:
    """The noneuclid modules a module imports anywhere in it (`from a import b` counts a.b when b is a
    module, else a)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in modules)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module in modules:
            subs = {f"{node.module}.{a.name}" for a in node.names} & modules
            out.update(subs or {node.module})
    return out


def test_no_import_circles():
    modules = _modules()
    graph = {name: _imports(tree, set(modules)) - {name} for name, tree in modules.items()}
    circles, state = [], {}

    def visit(name, path):
        state[name] = "open"
        for other in sorted(graph[name]):
            if state.get(other) == "open":
                circles.append(" -> ".join([*path[path.index(other) :], other]))
            elif other not in state:
                visit(other, [*path, other])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not circles, "\n".join(circles)


def test_reports_do_not_import_the_trainer():
    modules = _modules()
    reaching = {
        name: sorted(m for m in _imports(tree, set(modules)) if m.startswith("noneuclid.train"))
        for name, tree in modules.items()
        if name.startswith(("noneuclid.report", "noneuclid.figures"))
    }
    assert not any(reaching.values()), {k: v for k, v in reaching.items() if v}


def test_no_function_longer_than_60_lines():
    long = [
        f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines"
        for name, tree in _modules().items()
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60
    ]
    assert not long, long


def test_no_module_of_a_papers_report_longer_than_150_lines():
    """A paper's part of the report layer (report/, figures/ and runs/ modules named <paper>[_part].py) is small;
    what all papers share goes to the engines."""
    from noneuclid.papers import PAPERS

    long = {
        str(path.relative_to(SRC)): lines
        for folder in ("report", "figures", "runs")
        for path in (SRC / "noneuclid" / folder).glob("*.py")
        if path.stem.split("_")[0] in PAPERS and (lines := len(path.read_text().splitlines())) > 150
    }
    assert long == {}


@pytest.mark.parametrize("package", ["noneuclid.figures", "noneuclid.evaluate"])
def test_figures_and_evaluations_do_not_import_the_reports(package):
    modules = _modules()
    reaching = {
        name: sorted(m for m in _imports(tree, set(modules)) if m.startswith("noneuclid.report"))
        for name, tree in modules.items()
        if name.startswith(package)
    }
    assert reaching and not any(reaching.values()), {k: v for k, v in reaching.items() if v}


@pytest.mark.parametrize("package", ["noneuclid.figures", "noneuclid.report"])
def test_figures_and_reports_read_data_and_run_no_model(package):
    """What runs a model (a classifier on a grid, a network on data) is an evaluation's: noneuclid.evaluate."""
    modules = _modules()
    running = ("noneuclid.models", "noneuclid.nn")
    reaching = {
        name: sorted(m for m in _imports(tree, set(modules)) if m.startswith(running))
        for name, tree in modules.items()
        if name.startswith(package)
    }
    assert reaching and not any(reaching.values()), {k: v for k, v in reaching.items() if v}
