"""The browser table in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by selenium plays whole matches at ``widderkopf-play --web``'s
page by clicking the ``data-action`` buttons until ``data-match-over`` appears, against
``heuristic`` and against ``net``, offline (the page fetches nothing from the network).

Screenshots go to ``tests/artifacts/web_table/`` (ignored by git). Without the browser
the test is skipped; ``make test`` run as root installs it.
"""

from __future__ import annotations

import random
from pathlib import Path

import browser as chromium_browser
import pytest
from web_client import running_table

from widderkopf_env.agents.web_play import TableConfig
from widderkopf_env.agents.web_record import MatchRecord
from widderkopf_env.registry import load_agent

chromium_browser.require()
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ARTIFACTS = Path(__file__).parents[1] / "artifacts" / "web_table"


@pytest.fixture(scope="module")
def browser():
    with chromium_browser.chromium(window="1400,1100", offline=True) as driver:
        yield driver


def step(driver) -> int:
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-step"))


def wait_for(driver, condition, what: str):
    WebDriverWait(driver, 30, poll_frequency=0.02).until(lambda d: condition(d), what)


def play_match(driver, rng: random.Random) -> int:
    """Click a random legal move's button until the match is over; the clicks made."""
    clicks = 0
    while not driver.find_elements(By.CSS_SELECTOR, "[data-match-over]"):
        buttons = driver.find_elements(By.CSS_SELECTOR, "#moves button[data-action]")
        assert buttons, "no legal move offered, and the match is not over"
        before = step(driver)
        rng.choice(buttons).click()
        clicks += 1
        wait_for(driver, lambda d, before=before: step(d) > before, "the move to be taken")
    return clicks


@pytest.mark.parametrize("opponent, hands", [("heuristic", 2), ("net", 1)])
def test_a_whole_match_in_chromium(browser, tmp_path, opponent, hands):
    record = MatchRecord(tmp_path / "matches.json")
    config = TableConfig(opponent=opponent, make_bot=lambda: load_agent(opponent), seat=1,
                         hands=hands, seed=7, record=record)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with running_table(config) as server:
        browser.get(server.url)
        wait_for(browser, lambda d: step(d) >= 0, "the first state")
        # not clickable: the bot's cards, the trick, anything that is not a legal move
        legal = {b.get_attribute("data-action")
                 for b in browser.find_elements(By.CSS_SELECTOR, "#moves button")}
        assert legal and all(a.isdigit() for a in legal)
        assert not browser.find_elements(By.CSS_SELECTOR, "#table use.playable[data-role^=hand-0]")
        # the bot's hand is drawn as card backs: no face reaches the page (R8)
        bot_hand = browser.find_elements(By.CSS_SELECTOR, "#table use[data-role=hand-0]")
        assert bot_hand and all(e.get_attribute("href") == "#back" for e in bot_hand)
        assert all(e.get_attribute("data-card") is None for e in bot_hand)

        # keyboard play: the key shown on the first move plays it
        before = step(browser)
        browser.find_element(By.TAG_NAME, "body").send_keys("1")
        wait_for(browser, lambda d: step(d) > before, "the key press to play")

        # a legal card in the picture plays when clicked (once a card is a legal move)
        while not browser.find_elements(By.CSS_SELECTOR, "#table use.playable"):
            before = step(browser)
            browser.find_element(By.CSS_SELECTOR, "#moves button").click()
            wait_for(browser, lambda d, before=before: step(d) > before, "a move")
        before = step(browser)
        browser.find_element(By.CSS_SELECTOR, "#table use.playable").click()
        wait_for(browser, lambda d: step(d) > before, "the card click to play")

        # a typed move that is not legal is refused with a message and changes nothing
        before = step(browser)
        field = browser.find_element(By.ID, "typed-move")
        field.send_keys("no such move\n")
        wait_for(browser, lambda d: d.find_element(By.ID, "message").text, "a message")
        message = browser.find_element(By.ID, "message")
        assert message.get_attribute("data-kind") == "refused"
        assert message.text.startswith("Not accepted: ")
        assert step(browser) == before
        browser.save_screenshot(str(ARTIFACTS / f"{opponent}_table.png"))

        clicks = play_match(browser, random.Random(opponent))
        assert clicks >= 8 * hands
        over = browser.find_element(By.CSS_SELECTOR, "[data-match-over]")
        assert "Deal seed 7" in over.text
        if opponent == "heuristic":
            assert "Your rating: " in over.text and " Elo, 95% interval " in over.text
        else:
            assert "Not rated (no ladder rating): net." in over.text
        assert len(record.matches) == 1 and len(record.matches[0]["hands"]) >= hands

        # after each hand its replay and what the bot saw
        wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".review")) >= hands,
                 "the hand reviews")
        bot_view = browser.find_element(By.CSS_SELECTOR, ".review[open] [data-role=bot-view]")
        assert bot_view.find_elements(By.CSS_SELECTOR, "svg[data-view=player_0]")
        browser.save_screenshot(str(ARTIFACTS / f"{opponent}_over.png"))

        # a new match starts at step 0 of match 1
        over.find_element(By.TAG_NAME, "button").click()
        wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "body")
                 .get_attribute("data-match") == "1", "the new match")
        assert not browser.find_elements(By.CSS_SELECTOR, "[data-match-over]")
    # nothing failed but the refused typed move (no resource from the network, no script error)
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert len(errors) == 1 and "/api/move" in errors[0] and "422" in errors[0], errors
