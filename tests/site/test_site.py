"""The built documentation site (``make docs`` builds it, then runs these tests).

A real headless Chromium reads the site over HTTP as a reader would: from the home page it
follows the navigation to a how-to page, uses the search box, sees a notebook's figure
decoded and the models' math typeset; every internal link of every page resolves to a file
and, where it names one, an anchor of that file.  Every public name has a reference page.
Marked ``site``: the fast suite skips them, since it does not build the site.
"""

import functools
import http.server
import re
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

import judgebayes as jb
from tests.browser import CHROMIUM, FLAGS, browser_or_skip

pytestmark = pytest.mark.site

HTML = Path(__file__).parents[2] / "docs" / "_build" / "html"
NAMESPACES = ("estimators", "plan", "io", "simulate", "datasets", "errors")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the requests are the test's, not news
        pass


@pytest.fixture(scope="module")
def site():
    if not (HTML / "index.html").exists():
        pytest.fail("the site is not built: run `make docs`")
    handler = functools.partial(_Quiet, directory=str(HTML))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()


@pytest.fixture(scope="module")
def page(site):
    sync_playwright = browser_or_skip()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield browser.new_page(viewport={"width": 1300, "height": 900})
        finally:
            browser.close()


def test_navigation_leads_from_home_to_a_how_to_page(site, page):
    page.goto(site)
    page.get_by_role("link", name="How-to guides", exact=False).first.click()
    page.wait_for_load_state()
    assert page.locator("h1").first.inner_text().startswith("How-to guides")
    # the question table's row for scores links to its page
    page.locator("table a", has_text="Scores").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("howto/scores.html")
    assert "Judges that give scores" in page.locator("h1").first.inner_text()
    assert page.locator("div.highlight-python pre").count() >= 1  # its code is shown


def test_search_box_finds_a_closed_form(site, page):
    page.goto(site)
    page.locator("button.search-button, .search-button__button").first.click()
    box = page.locator("input[name='q']:visible").first
    box.fill("rogan_gladen")
    box.press("Enter")
    page.wait_for_url(re.compile(r"search\.html"))
    results = page.locator("#search-results ul.search li")
    results.first.wait_for(timeout=20_000)
    assert results.count() >= 1
    assert "rogan_gladen" in page.locator("#search-results").inner_text()


def test_a_notebook_figure_is_decoded_and_the_math_typeset(site, page):
    page.goto(site + "gallery/01_accuracy.html")
    images = page.locator("div.cell_output img")
    assert images.count() >= 3
    width = images.first.evaluate("img => img.complete && img.naturalWidth")
    assert width > 100
    page.goto(site + "explanation/models.html")
    page.wait_for_function("document.querySelectorAll('.MathJax_Display').length > 5")


def _targets(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="([^"]+)"', html)


def test_every_internal_link_resolves():
    if not (HTML / "index.html").exists():
        pytest.fail("the site is not built: run `make docs`")
    ids: dict[Path, set[str]] = {}

    def anchors(path: Path) -> set[str]:
        if path not in ids:
            ids[path] = set(re.findall(r'id="([^"]+)"', path.read_text(errors="replace")))
        return ids[path]

    broken = []
    pages = sorted(p for p in HTML.rglob("*.html") if "_static" not in p.parts)
    assert len(pages) > 100
    for source in pages:
        for link in _targets(source.read_text(errors="replace")):
            parsed = urlparse(link)
            if parsed.scheme or link.startswith(("//", "mailto:", "javascript:")):
                continue
            path, fragment = parsed.path, parsed.fragment
            target = (source.parent / unquote(path)).resolve() if path else source
            if path and target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{source.relative_to(HTML)}: {link}")
            elif fragment and target.suffix == ".html" and fragment not in anchors(target):
                broken.append(f"{source.relative_to(HTML)}: {link} (no anchor)")
    assert not broken, "\n".join(broken[:20])


def test_every_public_name_has_a_reference_page():
    generated = HTML / "reference" / "generated"
    names = [f"judgebayes.{n}" for n in jb.__all__ if n not in NAMESPACES and n != "__version__"]
    for space in NAMESPACES:
        names += [f"judgebayes.{space}.{n}" for n in getattr(jb, space).__all__]
    missing = [n for n in names if not (generated / f"{n}.html").exists()]
    assert not missing, missing
