"""The documents stay true to the repository: the README is short, nothing points outside
the repository, every link resolves, and every citation of the specifications
("RATINGS.md §3 step 9", 'RULES.md "Matches"', 'STYLE.md "Where logic lives"') names a
section that exists (docs/ARCHITECTURE.md). The rating parameters' table, the production
settings and the list of files over 600 lines are checked against what they describe."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import fields
from functools import cache
from pathlib import Path

import pytest

from ratings.engine.settings import settings_table
from ratings.engine.types import Params

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
README_MAX_LINES = 100
# Built, so that this file does not mention it itself.
OUTSIDE = "../" + "shared"
SKIPPED_DIRS = {".git", ".venv", "node_modules", "__pycache__", "build", "staticfiles"}
TEXT_SUFFIXES = {".py", ".md", ".html", ".txt", ".c", ".pyi", ".toml", ".cfg", ".ini", ".sh"}
TEXT_SUFFIXES |= {".js", ".css", ".json", ".yml", ".yaml", ".service", ".target", ".example"}

RATINGS_CITATION = re.compile(r"RATINGS\.md\s+§(\d+)((?:\s*(?:,|and|/)\s*§\d+)*)")
STEP_CITATION = re.compile(r"RATINGS\.md\s+§3\s+steps?\s+(\d+)(?:\s*(?:,|and)\s*(\d+))?")
RULES_CITATION = re.compile(r'RULES\.md "([^"\n]+)"')
# A section or bold item of the style guide; a docstring may wrap the name over two lines.
STYLE_CITATION = re.compile(r'STYLE\.md\s+"([^"]+)"')
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)|\bsrc=\"([^\"]+)\"")
DOC_MENTION = re.compile(r"\bdocs/[\w/-]+\.md\b")
LARGE_FILE = re.compile(r"^- `([\w/]+\.py)` \(~([\d,]+)\)", flags=re.MULTILINE)
LARGE_FILE_LINES = 600
LARGE_FILE_ROOTS = {"ladder", "ratings", "accounts"}
ENV_READ = re.compile(r"\benv(?:str|int|bool|list)\(\s*\"([A-Z][A-Z0-9_]*)\"")


def tracked_files() -> list[Path]:
    """The repository's files: git's list when this is a checkout, else the tree."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return [p for p in ROOT.rglob("*") if p.is_file() and not SKIPPED_DIRS & set(p.parts)]
    return [ROOT / name for name in out.decode().split("\0") if name and (ROOT / name).is_file()]


@cache
def text_files() -> tuple[Path, ...]:
    return tuple(
        p
        for p in tracked_files()
        if p.suffix in TEXT_SUFFIXES or p.name in {"Makefile", "Procfile", "run"}
    )


def documents() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


@cache
def ratings_sections() -> dict[int, str]:
    """Section number → its text, from the "## N. Title" headings of docs/RATINGS.md."""
    text = read(DOCS / "RATINGS.md")
    parts = re.split(r"^## (\d+)\. .*$", text, flags=re.MULTILINE)
    return {int(number): body for number, body in zip(parts[1::2], parts[2::2], strict=True)}


@cache
def rules_headings() -> set[str]:
    return set(re.findall(r"^##+ (.+?)\s*$", read(DOCS / "RULES.md"), flags=re.MULTILINE))


@cache
def style_items() -> set[str]:
    """The style guide's section headings and the items it names in bold ("- **Name**")."""
    text = read(DOCS / "STYLE.md")
    headings = re.findall(r"^##+ (.+?)\s*$", text, flags=re.MULTILINE)
    return {*headings, *re.findall(r"^- \*\*(.+?)\*\*", text, flags=re.MULTILINE)}


def citations(pattern: re.Pattern[str]) -> Iterator[tuple[str, re.Match[str]]]:
    for path in text_files():
        if path == DOCS / "RATINGS.md" or path == Path(__file__):
            continue
        for found in pattern.finditer(read(path)):
            yield str(path.relative_to(ROOT)), found


def test_the_readme_is_at_most_100_lines() -> None:
    lines = read(README).splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines; keep it to {README_MAX_LINES} and move detail "
        "into docs/"
    )


def test_the_readme_gives_the_two_commands() -> None:
    text = read(README)
    assert "make run" in text and "make test" in text


def test_no_file_points_outside_the_repository() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for p in tracked_files()
        if p != Path(__file__) and OUTSIDE.encode() in p.read_bytes()
    ]
    assert offenders == [], f"these files mention {OUTSIDE}: {offenders}"


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_of_a_document_resolves(doc: Path) -> None:
    text = read(doc)
    missing = []
    for found in MARKDOWN_LINK.finditer(text):
        target = (found.group(1) or found.group(2)).split("#", 1)[0]
        if not target or re.match(r"^[a-z]+:", target):
            continue  # an anchor in the page, or http:, mailto:
        if not (doc.parent / target).exists():
            missing.append(target)
    for mention in DOC_MENTION.findall(text):
        if not (ROOT / mention).exists():
            missing.append(mention)
    assert missing == [], f"{doc.relative_to(ROOT)} points to files that do not exist: {missing}"


def test_ratings_has_its_numbered_sections() -> None:
    assert sorted(ratings_sections()) == list(range(1, 10))
    steps = re.findall(r"^(\d+)\. ", ratings_sections()[3], flags=re.MULTILINE)
    assert steps == [str(n) for n in range(1, 10)]


@pytest.mark.parametrize(
    ("text", "sections"),
    [
        ("(RATINGS.md §3 step 9)", ["3"]),
        ("RATINGS.md §2 and §5 (the one place)", ["2", "5"]),
        ("RATINGS.md §2, §5) as the engine", ["2", "5"]),
        ("Everything RATINGS.md §2/§5 says", ["2", "5"]),
        ("RATINGS.md §12", ["12"]),
    ],
)
def test_a_citation_is_read_with_every_section_it_names(text: str, sections: list[str]) -> None:
    found = RATINGS_CITATION.search(text)
    assert found is not None
    assert [found.group(1), *re.findall(r"§(\d+)", found.group(2))] == sections


def test_every_ratings_citation_names_a_section_that_exists() -> None:
    sections = ratings_sections()
    wrong = []
    seen = 0
    for where, found in citations(RATINGS_CITATION):
        numbers = [int(found.group(1)), *map(int, re.findall(r"§(\d+)", found.group(2)))]
        seen += 1
        wrong += [f"{where}: {found.group(0)}" for n in numbers if n not in sections]
    assert seen > 150, "the citations were not found: has the search stopped working?"
    assert wrong == [], f"citations of sections docs/RATINGS.md does not have: {wrong}"


def test_every_citation_of_a_step_names_a_step_of_section_3() -> None:
    steps = {int(n) for n in re.findall(r"^(\d+)\. ", ratings_sections()[3], flags=re.MULTILINE)}
    wrong = [
        f"{where}: {found.group(0)}"
        for where, found in citations(STEP_CITATION)
        for n in found.groups()
        if n is not None and int(n) not in steps
    ]
    assert wrong == []


def test_every_rules_citation_names_a_heading_of_rules() -> None:
    headings = rules_headings()
    cited = list(citations(RULES_CITATION))
    assert len(cited) > 15
    wrong = [f"{where}: {found.group(0)}" for where, found in cited if found[1] not in headings]
    assert wrong == [], f"docs/RULES.md has no such section: {wrong}"


def test_the_style_guide_the_code_cites_is_in_docs() -> None:
    citing = [p for p in text_files() if p != Path(__file__) and "STYLE.md" in read(p)]
    assert citing, "nothing cites STYLE.md: has the search stopped working?"
    assert (DOCS / "STYLE.md").is_file(), f"{citing[0].relative_to(ROOT)} cites a STYLE.md"


def test_every_style_citation_names_a_section_or_item_of_the_style_guide() -> None:
    items = style_items()
    cited = list(citations(STYLE_CITATION))
    assert len(cited) >= 2
    wrong = [
        f"{where}: {found.group(0)}"
        for where, found in cited
        if " ".join(found[1].split()) not in items
    ]
    assert wrong == [], f"docs/STYLE.md has no such section or item: {wrong}"


def test_the_list_of_files_over_600_lines_is_the_trees() -> None:
    """docs/ARCHITECTURE.md "Files over 600 lines" names every Python file of the apps over
    600 lines (migrations aside), and no other, each with its count to within 10%."""
    text = read(DOCS / "ARCHITECTURE.md")
    section = text.split("## Files over 600 lines", 1)[1].split("\n## ", 1)[0]
    listed = {name: int(count.replace(",", "")) for name, count in LARGE_FILE.findall(section)}
    actual = {
        str(p.relative_to(ROOT)): len(read(p).splitlines())
        for p in text_files()
        if p.suffix == ".py"
        and p.relative_to(ROOT).parts[0] in LARGE_FILE_ROOTS
        and "migrations" not in p.parts
    }
    large = {name for name, lines in actual.items() if lines > LARGE_FILE_LINES}
    assert sorted(listed) == sorted(large), "docs/ARCHITECTURE.md's files over 600 lines"
    off = {
        name: (count, actual[name])
        for name, count in listed.items()
        if abs(count - actual[name]) > actual[name] / 10
    }
    assert off == {}, f"listed (~lines, lines today) more than 10% off: {off}"


def test_the_parameter_table_gives_the_engines_defaults() -> None:
    rows = re.findall(r"^\| (\w+) \| ([^|]+?) \|", ratings_sections()[2], flags=re.MULTILINE)
    table = {name: value for name, value in rows if name != "name"}
    defaults = Params()
    plain = {
        f.name for f in fields(Params) if isinstance(getattr(defaults, f.name), int | float | str)
    }
    assert plain - set(table) == {
        "perf_alpha",
        "perf_weight_min",
        "perf_weight_max",
        "g1_scale",
        "g1_rd_max",
        "g1_initial_rd",
        "g1_boost",
    }, "every plain parameter but section 5's method options has a row"
    for name, shown in table.items():
        value = getattr(defaults, name)
        if isinstance(value, bool):
            assert shown == ("on" if value else "off"), name
        elif isinstance(value, int | float):
            assert float(shown) == value, f"docs/RATINGS.md §2 says {name} {shown}, Params {value}"
        else:
            assert shown == value, f"docs/RATINGS.md §2 says {name} {shown}, Params {value}"


def test_the_parameter_table_is_the_engines_list_of_settings() -> None:
    """RATINGS.md §2's table is made from the one list of settings (ratings/engine/settings.py):
    a setting added, moved or reworded there shows here. To write it again:
    python -c "from ratings.engine.settings import settings_table; print(settings_table())"."""
    assert settings_table() in ratings_sections()[2]


def test_every_setting_read_from_the_environment_is_in_deploy() -> None:
    deploy = read(DOCS / "DEPLOY.md")
    read_by_code = {
        name
        for path in text_files()
        if path.suffix == ".py" and path.parts[len(ROOT.parts)] in {"ladder", "ratings", "accounts"}
        for name in ENV_READ.findall(read(path))
    }
    assert {"SECRET_KEY", "DATABASE_URL", "TIME_ZONE"} <= read_by_code
    undocumented = sorted(name for name in read_by_code if f"`{name}`" not in deploy)
    assert undocumented == [], f"settings missing from docs/DEPLOY.md: {undocumented}"
