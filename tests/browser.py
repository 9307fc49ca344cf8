"""Headless Chromium for the real-browser tests (Debian's ``chromium`` and
``chromium-driver``, driven by selenium): the replay page (tests/core/test_replay_browser.py)
and the documentation site (tests/project/test_docs_browser.py).

Without the browser or selenium, :func:`require` skips the calling test module with a
message saying how to get them; ``make test`` run as root installs them (``make browser``).
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile

import pytest

HOW = ("the real-browser tests need Debian's chromium and chromium-driver "
       "(sudo apt-get install chromium chromium-driver) and selenium "
       "(pip install 'widderkopf-env[render]'); `make test` installs them where apt-get may "
       "run as root")
CHROMIUM, CHROMEDRIVER = shutil.which("chromium"), shutil.which("chromedriver")


def require():
    """Skip the calling test module unless Chromium, its driver and selenium are there;
    returns ``selenium.webdriver``."""
    if CHROMIUM is None or CHROMEDRIVER is None:
        pytest.skip(f"no chromium/chromedriver on PATH: {HOW}", allow_module_level=True)
    return pytest.importorskip("selenium.webdriver", reason=f"no selenium: {HOW}")


@contextlib.contextmanager
def chromium(window: str = "1024,1000", offline: bool = False):
    """A headless Chromium WebDriver that keeps the page's console log (``get_log("browser")``)
    and downloads nothing (the driver and browser are given). ``offline``: every host but
    127.0.0.1 fails to resolve, so a page that fetches anything from the network logs an
    error."""
    webdriver = require()
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    profile = tempfile.mkdtemp(prefix="widderkopf-chromium-")
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", f"--window-size={window}",
                f"--user-data-dir={profile}"):
        options.add_argument(arg)
    if offline:
        options.add_argument("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
    with pytest.MonkeyPatch.context() as patch:
        # the driver and browser are given: Selenium Manager must not download anything
        patch.setenv("SE_OFFLINE", "true")
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER),
                                  options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


_OVERLAPS = """
const boxes = [...document.querySelectorAll(arguments[0] + " [data-role^=head-]")].map((e) => {
  const r = e.getBoundingClientRect();
  return {text: e.textContent || e.getAttribute("data-role"), l: r.left, t: r.top, r: r.right, b: r.bottom};
});
const hits = [];
boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
  if (a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b) hits.push([a.text, b.text]);
}));
return {texts: boxes.map((b) => b.text), overlaps: hits};
"""


def header_overlaps(driver, where: str = "#table") -> list:
    """The pairs of texts (and the trump sign) of the table picture's header under
    ``where`` whose boxes, as the browser laid them out, intersect."""
    out = driver.execute_script(_OVERLAPS, where)
    assert len(out["texts"]) >= 4, out  # hand, "Trump", the suit or "not named", the crack
    return out["overlaps"]
