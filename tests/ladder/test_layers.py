"""The import-linter contracts in pyproject.toml name ratings' modules one by one (the
engine and the lab may import none of the site's): a module added to ratings must be
added there too, or the contracts silently stop covering it."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def site_modules() -> set[str]:
    """Every top-level module and package of ``ratings`` except the engine and the lab."""
    found = set()
    for path in (ROOT / "ratings").iterdir():
        name = path.stem if path.suffix == ".py" else path.name
        if name.startswith("_") or name in {"engine", "lab"}:
            continue
        if path.suffix == ".py" or (path / "__init__.py").exists():
            found.add(f"ratings.{name}")
    return found


def test_the_pure_contracts_forbid_every_site_module_of_ratings():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
        "contracts"
    ]
    pure = {
        c["source_modules"][0]: set(c["forbidden_modules"])
        for c in contracts
        if c["type"] == "forbidden"
    }
    expected = site_modules()
    assert {"ratings.leaderboards", "ratings.models", "ratings.views"} <= expected
    for source in ("ratings.engine", "ratings.lab"):
        assert expected - pure[source] == set(), source


def contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def layers() -> list[list[str]]:
    """The layers contract's layers, lowest first, each a list of its modules."""
    (contract,) = [c for c in contracts() if c["type"] == "layers"]
    return [[name.strip() for name in layer.split(":")] for layer in reversed(contract["layers"])]


def layer_picture() -> str:
    """ARCHITECTURE.md's picture, made from the layers contract: a line per layer, highest
    first, each importing only the lines below it; the engine and the lab, which every
    layer may use, at the foot."""
    lines = []
    for layer in reversed(layers()):
        if (
            all(name.count(".") == 1 and name.startswith("ladder.") for name in layer)
            and len(layer) > 2
        ):
            lines.append(
                "ladder (the project): " + ", ".join(n.removeprefix("ladder.") for n in layer)
            )
        else:
            lines.append(", ".join(layer))
    lines.append("ratings.engine, ratings.lab (pure Python, no Django: every layer may use them)")
    return "\n".join(lines)


def test_architecture_picture_is_made_from_the_layers_contract():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    picture = layer_picture()
    assert f"```\n{picture}\n```" in text, f"docs/ARCHITECTURE.md's picture should read:\n{picture}"


def project_modules() -> set[str]:
    """Every module and package directly in ``ladder/`` (the project and its apps)."""
    found = set()
    for path in (ROOT / "ladder").iterdir():
        name = path.stem if path.suffix == ".py" else path.name
        if name.startswith("_"):
            continue
        if path.suffix == ".py" or (path / "__init__.py").exists():
            found.add(f"ladder.{name}")
    return found


def test_every_module_of_ladder_is_in_a_contract():
    """A module added to ``ladder/`` must take its place: in a layer of the one-way contract,
    or among the plumbing that imports no app. Outside both, nothing would check its imports."""
    in_layers = {name for layer in layers() for name in layer}
    (plumbing,) = [c for c in contracts() if c["name"].startswith("The project's plumbing")]
    placed = in_layers | set(plumbing["source_modules"])
    assert {"ladder.clubs", "ladder.urls", "ladder.settings"} <= project_modules()
    assert project_modules() - placed == set()


def test_the_shared_room_is_the_lowest_layer_and_accounts_builds_on_it():
    assert layers()[0] == ["core"]
    assert layers()[1] == ["accounts"]
    for path in (ROOT / "accounts").rglob("*.py"):
        text = path.read_text()
        assert "from ladder" not in text and "import ladder" not in text, path
