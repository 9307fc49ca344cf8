"""The documentation site (mkdocs.yml, docs/) and README.md.

The site builds in strict mode (a broken link or anchor, a missing API object or any
warning fails) without the network; the API reference has an entry for every public name
of the packages; README.md stays short and its links resolve; and in a real browser
(headless Chromium, tests/browser.py) the built site's home page and every top-level page
load with their pictures and no console error, and the search box finds ``action_mask``.
The code blocks of the pages run in ``make test`` (``pytest --markdown-docs``).
"""

from __future__ import annotations

import functools
import http.server
import importlib
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import browser as chromium_browser
import pytest
from helpers import ROOT

DOCS = ROOT / "docs"
PACKAGES = ["widderkopf_env", "widderkopf_env.vector", "widderkopf_env.agents",
            "widderkopf_env.rllib"]
README_MAX_LINES = 150


def build(site_dir: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` into ``site_dir``, with every web proxy pointing nowhere so
    that a build step that reaches for the network fails."""
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", HTTP_PROXY="http://127.0.0.1:9",
               HTTPS_PROXY="http://127.0.0.1:9", http_proxy="http://127.0.0.1:9",
               https_proxy="http://127.0.0.1:9", NO_PROXY="", no_proxy="")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(site_dir)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs", reason="the docs build needs the [docs] extra")
    site_dir = tmp_path_factory.mktemp("site")
    done = build(site_dir)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    assert "WARNING" not in done.stderr, done.stderr
    return site_dir


def test_site_builds_strict_and_offline(site):
    pages = {p.relative_to(site).as_posix() for p in site.rglob("index.html")}
    for page in ("index.html", "quickstart/index.html", "rules/index.html",
                 "environments/index.html", "api/core/index.html", "changelog/index.html"):
        assert page in pages
    assert (site / "search" / "search_index.json").exists()
    assert not (site / "hooks.py").exists()
    # nothing is loaded from elsewhere: no web fonts, no CDN scripts or stylesheets
    remote = re.compile(r'<(?:script|link)[^>]+(?:src|href)="(?:https?:)?//', re.I)
    for page in site.rglob("*.html"):
        assert not remote.search(page.read_text(encoding="utf-8")), page
    for css in site.rglob("*.css"):
        assert "fonts.googleapis" not in css.read_text(encoding="utf-8"), css


def test_the_changelog_page_includes_the_changelog(site):
    html = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    first_entry = re.search(r"^## (.+)$", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"),
                            re.M).group(1)
    assert re.sub(r"\W", "", first_entry) in re.sub(r"\W", "", html)


def test_api_pages_show_names_without_sphinx_roles(site):
    html = (site / "api" / "core" / "index.html").read_text(encoding="utf-8")
    assert "<code>new</code>" in html  # the docstring of Game says :meth:`new`
    assert not re.search(r":(class|meth|func|attr|mod):<code>", html)


def test_the_observation_table_is_rendered(site):
    html = (site / "environments" / "index.html").read_text(encoding="utf-8")
    assert "<code>legal_cards</code>" in html and "<code>hands_left</code>" in html


# --- the API reference ------------------------------------------------------------------------

def api_entries() -> list[str]:
    """The ``::: identifier`` entries of docs/api/*.md."""
    return [m for page in sorted((DOCS / "api").glob("*.md"))
            for m in re.findall(r"^::: ([\w.]+)", page.read_text(encoding="utf-8"), re.M)]


def resolve(identifier: str):
    """The object an entry names (AttributeError if there is none), or None where its module
    needs an extra that is not installed."""
    parts = identifier.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name == name:
                continue  # not a module: an attribute of the one above
            return None
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise AssertionError(f"{identifier} names no module")


@pytest.mark.parametrize("package", PACKAGES)
def test_the_api_reference_documents_every_public_name(package):
    module = importlib.import_module(package)
    entries = api_entries()
    missing = []
    for name in module.__all__:
        candidates = [e for e in entries if e.rsplit(".", 1)[-1] == name]
        try:
            value = getattr(module, name)
        except ImportError:  # needs an extra that is not installed: the name must match
            if not candidates:
                missing.append(name)
            continue
        if not any(resolve(e) is value for e in candidates):
            missing.append(name)
    assert not missing, f"docs/api/ has no entry for {package}: {missing}"


def test_every_api_entry_names_an_object():
    for entry in api_entries():
        resolve(entry)  # raises for a name that does not exist


# --- README.md ---------------------------------------------------------------------------------

def test_readme_is_short_and_its_links_resolve():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        if "://" not in link:
            assert (ROOT / link).exists(), f"README.md links to {link}, which does not exist"


def test_every_docs_page_is_in_the_nav():
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(nav):
        for item in nav:
            value = item if isinstance(item, str) else next(iter(item.values()))
            yield from pages(value) if isinstance(value, list) else [value]

    in_nav = set(pages(config["nav"]))
    on_disk = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert on_disk == in_nav


def test_every_path_the_build_files_name_exists():
    """The paths mkdocs.yml excludes and the Makefile's docs run ignores are there: wiring
    left behind for a folder that is gone fails here."""
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    named = [DOCS / line.strip() for line in config["exclude_docs"].splitlines()
             if line.strip()]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    named += [ROOT / p for p in re.findall(r"--ignore=(\S+)", makefile)
              if not p.startswith("$(")]
    assert len(named) >= 3
    missing = [str(p.relative_to(ROOT)) for p in named if not p.exists()]
    assert not missing, f"named by mkdocs.yml or the Makefile, but absent: {missing}"


# --- in a real browser ----------------------------------------------------------------------

def site_path(page: str) -> str:
    """The site path of a docs page (``use_directory_urls``): ``a/index.md`` -> ``a/``."""
    path = page.removesuffix(".md")
    if path == "index" or path.endswith("/index"):
        return path.removesuffix("index")
    return path + "/"


def top_level_urls() -> list[str]:
    """The site paths of the nav's top-level pages (of a section: its first page)."""
    yaml = pytest.importorskip("yaml")
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    urls = []
    for item in nav:
        value = next(iter(item.values()))
        page = value[0] if isinstance(value, list) else value
        urls.append(site_path(page if isinstance(page, str) else next(iter(page.values()))))
    return urls


@pytest.fixture(scope="module")
def served(site):
    """The built site over http on 127.0.0.1 (the search index is fetched, not read from a
    file: URL); yields its base URL."""
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def chromium():
    chromium_browser.require()
    with chromium_browser.chromium(window="1280,1000", offline=True) as driver:
        yield driver


def console_errors(driver) -> list:
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_every_top_level_page_loads_in_chromium(chromium, served):
    from selenium.webdriver.common.by import By

    urls = top_level_urls()
    assert "" in urls and "quickstart/" in urls and "api/" in urls
    for url in urls:
        chromium.get(served + url)
        heading = chromium.find_element(By.CSS_SELECTOR, "article h1").text
        assert heading, url
        assert "widderkopf-env" in chromium.title, (url, chromium.title)
        broken = chromium.execute_script(
            "return [...document.images].filter(i => !i.complete || i.naturalWidth === 0)"
            ".map(i => i.src)")
        assert broken == [], (url, broken)
        assert console_errors(chromium) == [], url


def test_the_search_box_finds_action_mask(chromium, served):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    chromium.get(served)
    box = chromium.find_element(By.CSS_SELECTOR, "input.md-search__input")
    chromium.execute_script("arguments[0].focus()", box)
    box.send_keys("action_mask")

    def results(driver):
        found = driver.find_elements(By.CSS_SELECTOR, ".md-search-result__item")
        return found if found and "action_mask" in found[0].text else False

    found = WebDriverWait(chromium, 30).until(results)
    assert len(found) >= 2  # the quickstart, the environments, the clients page ...
    meta = chromium.find_element(By.CSS_SELECTOR, ".md-search-result__meta").text
    assert re.search(r"\d+ matching document", meta), meta
    assert console_errors(chromium) == []


#: A result: a mean with its 95% interval, in prose ("+0.561 [+0.512, +0.610]") or in two
#: table cells ("| **+0.561** | **[+0.512, +0.610]** |").
RESULT = re.compile(r"([+-]\d+\.\d+)\**(?: \| | )\**\[([+-]\d+\.\d+), ([+-]\d+\.\d+)\]")


def results_by_page() -> dict:
    """Each result (mean, interval) of the README and the docs pages, with the pages that
    state it (the changelog records history and is left out)."""
    where: dict = {}
    for page in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        text = " ".join(page.read_text(encoding="utf-8").split())
        for found in RESULT.finditer(text):
            where.setdefault(found.groups(), set()).add(page.relative_to(ROOT).as_posix())
    return where


def test_each_result_stands_on_one_page():
    """One page per result (Gymnasium's and pgx's docs): another page links to it."""
    assert RESULT.search("net: +0.561 [+0.512, +0.610] against")
    assert RESULT.search("| **+0.561** | **[+0.512, +0.610]** |")
    where = results_by_page()
    assert len(where) > 50
    twice = {" ".join(k): sorted(v) for k, v in where.items() if len(v) > 1}
    assert not twice, f"results stated on several pages (keep one, link to it): {twice}"


#: Pages written code first (Gymnasium's and pgx's pages): a code block before any prose,
#: then short sections, lists and tables.
CODE_FIRST = ("training.md", "pictures.md", "bots.md", "api/cli.md")


def long_paragraphs(text: str, most: int = 8) -> list[int]:
    """The first lines of the prose paragraphs of ``text`` longer than ``most`` lines (code
    blocks, tables, lists, headings and indented blocks are not prose)."""
    found, run, start, fence = [], 0, 0, False
    for number, line in enumerate([*text.split("\n"), ""], 1):
        if line.startswith("```"):
            fence = not fence
        prose = (not fence and line.strip() and not line.startswith(("|", "#", "    ", "!", "<"))
                 and not re.match(r"\s*([-*]|\d+\.) ", line) and not line.startswith("  "))
        if prose:
            start, run = (number, 1) if run == 0 else (start, run + 1)
        else:
            if run > most:
                found.append(start)
            run = 0
    return found


def test_the_check_finds_a_long_paragraph():
    assert long_paragraphs("\n".join(["word"] * 9)) == [1]
    assert long_paragraphs("\n".join(["word"] * 8 + ["", "- a list"] + ["  more"] * 9)) == []


@pytest.mark.parametrize("page", CODE_FIRST)
def test_a_code_first_page_opens_with_code_and_keeps_paragraphs_short(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    body = text.split("\n", 1)[1].lstrip("\n")
    assert body.startswith("```"), f"{page}: open with a code block (after the title)"
    assert long_paragraphs(text) == [], f"{page}: paragraphs over 8 lines (at these lines)"


#: Pages not held to short paragraphs: the experiments log.
LONG_PROSE_ALLOWED = {"EXPERIMENTS.md"}


@pytest.mark.parametrize("page", sorted(p.relative_to(DOCS).as_posix()
                                        for p in DOCS.rglob("*.md")))
def test_no_paragraph_is_longer_than_eight_lines(page):
    if page in LONG_PROSE_ALLOWED:
        pytest.skip("not yet rewritten")
    assert long_paragraphs((DOCS / page).read_text(encoding="utf-8")) == [], (
        f"{page}: a paragraph over 8 lines wants a table or a list")
