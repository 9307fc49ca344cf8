"""Take the screenshot of the browser table in docs/pictures.md:
``python scripts/make_web_png.py`` -> docs/web_table.png.

``widderkopf-play --web``'s server plays the deal of seed 2026 against ``heuristic``; the
human's moves, made by clicking the page's buttons in headless Chromium (Debian's
``chromium`` and ``chromium-driver``, as the tests drive it), are the heuristic bot's
choices; the screenshot is the page after the human's tenth move.
"""

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

import browser  # noqa: E402  (tests/browser.py: headless Chromium)
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from web_client import running_table  # noqa: E402  (tests/web_client.py)

from widderkopf_env.agents import HeuristicAgent  # noqa: E402
from widderkopf_env.agents.web_play import TableConfig  # noqa: E402
from widderkopf_env.agents.web_record import MatchRecord  # noqa: E402
from widderkopf_env.registry import load_agent  # noqa: E402

config = TableConfig(opponent="heuristic", make_bot=lambda: load_agent("heuristic"),
                     hands=4, seed=2026, record=MatchRecord(None))
out = ROOT / "docs" / "web_table.png"
with browser.chromium(window="1380,880") as driver, running_table(config) as server:
    driver.get(server.url)
    me = HeuristicAgent()
    for _ in range(10):
        time.sleep(0.3)
        [session] = server.sessions.values()
        action = me.act(session.match.game.view(0))
        driver.find_element(By.CSS_SELECTOR, f"#moves button[data-action='{action}']").click()
    time.sleep(0.5)
    ActionChains(driver).move_to_element(driver.find_element(By.TAG_NAME, "h1")).perform()
    driver.execute_script("document.activeElement.blur()")
    driver.save_screenshot(str(out))
print(f"wrote {out}")
