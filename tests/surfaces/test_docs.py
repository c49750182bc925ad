"""The README and the documentation site (docs/, mkdocs.yml) cannot go stale.

The command-line reference (docs/cli.md) must be what scripts/make_cli_docs.py writes
from the parsers now; every terminal example must be what its command prints now
(scripts/make_docs_examples.py), and so must the numbers a page quotes in its prose;
the README keeps its two first-screen commands, stays
short and links only to files that exist; and `mkdocs build --strict` fails on a link
to a page or an anchor that does not exist. The build needs the docs extra; without it
those tests are skipped, and fail under CI (the environment variable CI set)."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

import pytest
from util import ROOT

sys.path.insert(0, str(ROOT / "scripts"))

import make_cli_docs  # noqa: E402
import make_docs_examples  # noqa: E402

README = ROOT / "README.md"
INSTALL_AND_RUN = (
    "python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/faircode profile --sample"
)


def test_spec_7s_option_table_is_the_option_records():
    """SPEC 7's table is written from faircode.options.OPTIONS: every record has its row
    (name, flag, default, range), and a changed record makes the check fail."""
    from faircode.options import OPTIONS

    spec = (ROOT / "SPEC.md").read_text(encoding="utf-8")
    assert make_cli_docs.spec_with_table(spec) == spec, (
        "SPEC.md's option table is stale: run scripts/make_cli_docs.py"
    )
    table = make_cli_docs.option_table()
    assert len(table.splitlines()) == len(OPTIONS) + 2
    assert "| `max_dimension_groups` | `--max-groups` | 50 | integer >= 2 |" in table
    # a record changed without rewriting the spec is caught
    changed = spec.replace(
        "| `min_share` | `--min-share` | 0.05 |", "| `min_share` | `--min-share` | 0.1 |"
    )
    assert changed != spec and make_cli_docs.spec_with_table(changed) != changed


def test_the_cli_reference_is_what_the_parsers_say_now():
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == make_cli_docs.render(), "docs/cli.md is stale: run scripts/make_cli_docs.py"
    # every command's section and every option of one, from the parser itself
    from faircode.cli import build_parser

    for path, parser, _ in make_cli_docs.walk(build_parser(), ("faircode",)):
        assert f"\n## {' '.join(path)}\n" in page
        for action in parser._actions:
            if action.dest == "help":
                continue
            for flag in action.option_strings:
                assert re.search(rf"<code>[^<]*{re.escape(flag)}\b", page), (path, flag)


def test_the_cli_reference_notices_a_new_option(monkeypatch):
    """The comparison above can fail: an option added to a parser changes the page."""
    from faircode import cli

    real = cli._build_serve

    def with_one_more(v):
        real(v)
        v.add_argument(
            "--brand-new", action="store_true", help="an option the page does not list yet"
        )

    monkeypatch.setitem(cli.BUILDERS, "serve", with_one_more)
    page = make_cli_docs.render()
    assert page != (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "| <code>--brand-new</code> | an option the page does not list yet |" in page


def test_every_terminal_example_is_a_fresh_run():
    examples = Counter()
    for path in make_docs_examples.documents():
        text = path.read_text(encoding="utf-8")
        examples[path.name] = len(make_docs_examples.MARKER.findall(text))
        stale = make_docs_examples.stale(path)
        assert not stale, f"{path.name}: stale examples {stale}; run scripts/make_docs_examples.py"
    assert examples["README.md"] == 1
    assert sum(examples.values()) >= 6


def test_the_readme_excerpt_counts_what_pandas_counts():
    """The README's sample report: the sex and race groups' counts and shares equal
    pandas' value_counts of the bundled sample (an independent count of the same file)."""
    import pandas as pd

    text = README.read_text(encoding="utf-8")
    frame = pd.read_csv(ROOT / "faircode" / "data" / "compas-scores-two-years.csv")
    assert f"{len(frame)} rows, {frame.shape[1]} columns" in text
    for column in ("sex", "race"):
        counts = frame[column].value_counts()
        for label, n in counts.items():
            share = n / len(frame) * 100
            row = re.search(rf"^  {re.escape(label)} +[^\d]*([\d.]+)%  \[.*\]  n=(\d+)", text, re.M)
            assert row, (column, label)
            assert int(row.group(2)) == n
            assert abs(float(row.group(1)) - share) <= 0.005 + 1e-9, (label, row.group(1), share)


def prose(page: str) -> str:
    """A docs page's text with its lines joined (a quote may wrap)."""
    return " ".join((ROOT / "docs" / page).read_text(encoding="utf-8").split())


def test_the_numbers_the_docs_quote_in_prose_are_a_fresh_runs():
    """Numbers quoted outside the generated examples: the notebook repr of the sample
    (docs/python-api.md) and the COMPAS label-gap finding (docs/profiling.md) are what a
    run gives now (they said 34 flags and 335 tests)."""
    import faircode

    sample = ROOT / "faircode" / "data" / "compas-scores-two-years.csv"
    assert f"`{faircode.profile(str(sample))!r}`" in prose("python-api.md")
    r = faircode.profile(str(sample), opts={"label": "two_year_recid"})
    (gap,) = [
        f
        for f in r["findings"]
        if f["kind"] == "label_gap" and f["groups"] == ["Other", "African-American"]
    ]
    rates = {
        g["label"]: g
        for d in r["label_rates"]["dimensions"]
        if d["name"] == "race"
        for g in d["groups"]
    }
    low, high = rates["Other"], rates["African-American"]
    quote = (
        f"African-American ({high['rate'] * 100:.2f}% of {high['n']:,}) and Other "
        f"({low['rate'] * 100:.2f}% of {low['n']:,}) is {gap['value'] * 100:.2f} points, "
        f"Newcombe interval {gap['ci_low'] * 100:.2f}-{gap['ci_high'] * 100:.2f}, "
        f"{gap['verdict']} against the 10-point `--label-gap` after Holm over "
        f"{r['evidence']['tests']} tests"
    )
    assert quote in prose("profiling.md")


def test_the_python_api_page_names_every_result_that_displays_itself():
    """docs/python-api.md names each result class a public function returns, and shows
    none as its Markdown report when the command has an HTML one (it said so of
    ScanResult, which shows its HTML report, and left out the audit packs' results)."""
    import faircode.audit.art10  # noqa: F401  (imported for their result classes)
    import faircode.audit.datasheet  # noqa: F401
    import faircode.audit.ll144  # noqa: F401
    import faircode.scan  # noqa: F401
    from faircode.renderers import RENDERERS
    from faircode.results import Result

    def classes(cls: type) -> list[type]:
        return [c for sub in cls.__subclasses__() for c in (sub, *classes(sub))]

    page = prose("python-api.md")
    shown = [c for c in classes(Result) if c.command]
    assert len(shown) >= 7  # profile, compare, evaluate, scan and the three audit packs
    for cls in shown:
        assert "html" in RENDERERS[cls.command], cls.__name__
        assert f"`{cls.__name__}`" in page, cls.__name__
        assert f"`{cls.__name__}`, shown in a notebook as its Markdown" not in page


def test_the_python_api_pages_provenance_recipe_records_the_results_options(tmp_path):
    """docs/python-api.md's `provenance_for` line, run after a profile made with options,
    records those options, so the saved profile is compared under them and refused under
    others (SPEC 6.2, 10; the page gave `provenance_for("data.csv")`: the defaults)."""
    import json

    import faircode

    sample = str(ROOT / "faircode" / "data" / "compas-scores-two-years.csv")
    page = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8").splitlines()
    (line,) = [x for x in page if x.startswith('result["provenance"] = ')]
    overrides, opts = {"sex": "sex"}, {"min_share": 0.1}
    space = {"faircode": faircode, "overrides": overrides, "opts": opts}
    space["result"] = faircode.profile(sample, overrides=overrides, opts=opts)
    exec(line.replace('"data.csv"', repr(sample)), space)
    saved = tmp_path / "profile.json"
    saved.write_text(json.dumps(space["result"]), encoding="utf-8")
    again = faircode.compare(str(saved), sample, overrides=overrides, opts=opts)
    assert all(d["drift_level"] == "none" for d in again["dimensions"])
    with pytest.raises(faircode.InputError, match="profiled with other options"):
        faircode.compare(str(saved), sample)


def test_the_readme_is_short_and_starts_with_the_two_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250
    first_screen = lines[:25]
    assert INSTALL_AND_RUN in first_screen
    assert "./scripts/check" in first_screen
    # .ci/run runs exactly that test command
    assert "exec ./scripts/check" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readmes_links_lead_somewhere():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)]+)\)", text) + re.findall(r'src="([^"]+)"', text)
    local = [t for t in targets if not re.match(r"[a-z]+:", t)]
    assert len(local) >= 15
    for target in local:
        path = target.split("#")[0]
        assert (ROOT / path).is_file(), f"README.md links to {target}, which does not exist"
    # the five most common tasks each lead to a docs page
    pages = {t.split("#")[0] for t in local if t.startswith("docs/") and t.endswith(".md")}
    assert {"docs/profiling.md", "docs/fairness.md", "docs/python-api.md"} <= pages


def _mkdocs():
    """scripts/check's `mkdocs build` with its flags (up to --site-dir), run by this
    interpreter: the test shows that exactly that command fails on a broken link."""
    if importlib.util.find_spec("mkdocs") is None:
        if os.environ.get("CI"):
            raise RuntimeError("tests/surfaces/test_docs.py needs the docs extra (mkdocs) under CI")
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    check = (ROOT / "scripts" / "check").read_text(encoding="utf-8")
    (line,) = [x for x in check.splitlines() if x.startswith(".venv/bin/mkdocs build ")]
    flags = line.split()[2 : line.split().index("--site-dir")]
    assert "--strict" in flags
    return [sys.executable, "-m", "mkdocs", "build", *flags]


@pytest.fixture()
def site_copy(tmp_path):
    """docs/ and mkdocs.yml, copied where a test may break them."""
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    return tmp_path


def _build(root):
    return subprocess.run(
        [*_mkdocs(), "--site-dir", str(root / "site")],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_docs_build_and_a_broken_link_fails_it(site_copy):
    built = _build(site_copy)
    assert built.returncode == 0, built.stderr
    assert (site_copy / "site" / "cli" / "index.html").is_file()
    page = site_copy / "docs" / "scan.md"
    original = page.read_text(encoding="utf-8")
    broken = {
        "a missing page": ("[there](no-such-page.md)", "no-such-page.md"),
        "a missing anchor": ("[there](cli.md#faircode-no-such-command)", "#faircode-no-such"),
        "a file outside docs/": ("[the spec](../SPEC.md)", "../SPEC.md"),
    }
    for what, (link, named) in broken.items():
        page.write_text(f"{original}\nSee {link}.\n", encoding="utf-8")
        run = _build(site_copy)
        assert run.returncode != 0, f"{what}: the strict build passed"
        assert named in run.stderr, (what, run.stderr)
    page.write_text(original, encoding="utf-8")
