"""Take the screenshots of the browser table in docs/pictures.md:
``python scripts/make_web_png.py`` -> docs/web_table_start.png, docs/web_table.png and
docs/web_table_end.png.

Needs Pillow and selenium (the ``[render]`` extra). ``widderkopf-play --web``'s server plays a two-hand match, the deal of seed 2026, against
``heuristic``; the human's moves are the heuristic bot's choices, made as a person makes
them in headless Chromium (Debian's ``chromium`` and ``chromium-driver``, as the tests
drive it): a card by clicking it in the picture, any other move by its button. The
screenshots:

- ``web_table_start.png``: the hand's start, your first decision (naming trumps), with
  the rules panel opened by its button;
- ``web_table.png``: the middle of the first hand, after your tenth move;
- ``web_table_end.png``: the match over: its summary and the last hand's replay.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

import browser  # noqa: E402  (tests/browser.py: headless Chromium)
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from web_client import running_table  # noqa: E402  (tests/web_client.py)

from widderkopf_env import NUM_CARDS, card_name  # noqa: E402
from widderkopf_env.agents import HeuristicAgent  # noqa: E402
from widderkopf_env.agents.web_play import TableConfig  # noqa: E402
from widderkopf_env.agents.web_record import MatchRecord  # noqa: E402
from widderkopf_env.registry import load_agent  # noqa: E402

SEED, HANDS, WINDOW = 2026, 2, (1380, 880)
DOCS = ROOT / "docs"


def step(driver) -> int:
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-step"))


def wait(driver, condition, what: str) -> None:
    WebDriverWait(driver, 60, poll_frequency=0.05).until(lambda d: condition(d), what)


def shrink(path: Path) -> None:
    """The screenshot in 256 colours (the page has few): a third of the bytes."""
    from PIL import Image

    with Image.open(path) as image:
        small = image.convert("RGB").quantize(256, Image.Quantize.MEDIANCUT,
                                              dither=Image.Dither.NONE)
    small.save(path, optimize=True)


def settle(driver) -> None:
    """No hover or focus ring in the picture: the pointer on the heading, focus nowhere."""
    ActionChains(driver).move_to_element(driver.find_element(By.TAG_NAME, "h1")).perform()
    driver.execute_script("document.activeElement.blur()")


def play(driver, match, me) -> None:
    """The human's move (``me``'s choice): the card clicked in the picture if it is one
    there, else its button; waits until the server has taken it."""
    action = me.act(match.game.view(match.seat))
    before = step(driver)
    name = card_name(action) if action < NUM_CARDS else None
    cards = [c for c in driver.find_elements(By.CSS_SELECTOR, "#table use.playable")
             if c.get_attribute("data-card") == name]
    if cards:
        cards[0].click()
    else:
        driver.find_element(By.CSS_SELECTOR, f"#moves button[data-action='{action}']").click()
    wait(driver, lambda d: step(d) > before, "the move to be taken")


def main() -> None:
    config = TableConfig(opponent="heuristic", make_bot=lambda: load_agent("heuristic"),
                         seat=1, hands=HANDS, seed=SEED, record=MatchRecord(None))
    with browser.chromium(window=",".join(map(str, WINDOW))) as driver, \
            running_table(config) as server:
        driver.get(server.url)
        wait(driver, lambda d: step(d) >= 0, "the first state")
        [session] = server.sessions.values()
        match, me = session.match, HeuristicAgent()

        driver.find_element(By.ID, "rules-button").click()
        settle(driver)
        driver.save_screenshot(str(DOCS / "web_table_start.png"))
        driver.find_element(By.ID, "rules-close").click()

        for _ in range(10):
            play(driver, match, me)
        settle(driver)
        driver.save_screenshot(str(DOCS / "web_table.png"))

        while not driver.find_elements(By.CSS_SELECTOR, "[data-match-over]"):
            play(driver, match, me)
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".review")) == HANDS,
             "the hand reviews")
        driver.set_window_size(WINDOW[0], 1500)  # the summary and the last hand's replay
        settle(driver)
        driver.save_screenshot(str(DOCS / "web_table_end.png"))
    for name in ("web_table_start.png", "web_table.png", "web_table_end.png"):
        shrink(DOCS / name)
        print(f"wrote {DOCS / name}")


if __name__ == "__main__":
    main()
