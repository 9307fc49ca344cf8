"""The browser table in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by selenium plays whole matches at ``widderkopf-play --web``'s
page as a person does, clicking the legal cards in the picture (and the buttons for the
other moves) until ``data-match-over`` appears, against ``heuristic`` and against ``net``,
offline (the page fetches nothing from the network). Checked on the way: the header's
texts never overlap (their boxes as laid out), the rules panel opens from the table, the
log's numbers stay whole past 100, and a hand's replay keeps its place when the view
changes.

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


def play_match(driver, rng: random.Random) -> tuple[int, int]:
    """Play as a person until the match is over: a random legal card of the picture where
    one is outlined (clicked on the card), else a random legal move's button (trump,
    crack, pass); the clicks made and how many of them were on cards."""
    clicks = cards = 0
    while not driver.find_elements(By.CSS_SELECTOR, "[data-match-over]"):
        playable = driver.find_elements(By.CSS_SELECTOR, "#table use.playable")
        buttons = driver.find_elements(By.CSS_SELECTOR, "#moves button[data-action]")
        assert buttons, "no legal move offered, and the match is not over"
        before = step(driver)
        if playable and rng.random() < 0.9:
            rng.choice(playable).click()
            cards += 1
        else:
            rng.choice(buttons).click()
        clicks += 1
        wait_for(driver, lambda d, before=before: step(d) > before, "the move to be taken")
    return clicks, cards


_LOG = """
const log = document.getElementById("log"), box = log.getBoundingClientRect();
return [...log.querySelectorAll("li")].map((li) => {
  const n = li.querySelector(".n");
  if (!n) return null;
  const r = n.getBoundingClientRect();
  return [n.textContent, r.left >= box.left - 0.5 && n.scrollWidth <= n.clientWidth + 0.5];
});
"""


#: A user's own agent in a file (docs/bots.md, "Your own agent"): the lowest legal action.
USER_AGENT = """
class Lowest:
    def act(self, view):
        return min(view.legal_actions())
"""


@pytest.mark.parametrize("opponent, hands", [("heuristic", 2), ("net", 1), ("FILE", 1)])
def test_a_whole_match_in_chromium(browser, tmp_path, opponent, hands):
    label = opponent
    if opponent == "FILE":  # played against a person's clicks, as any bot is
        (tmp_path / "mybot.py").write_text(USER_AGENT)
        opponent = f"{tmp_path / 'mybot.py'}:Lowest"
    record = MatchRecord(tmp_path / "matches.json")
    config = TableConfig(opponent=opponent, make_bot=lambda: load_agent(opponent), seat=1,
                         hands=hands, seed=7, record=record)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with running_table(config) as server:
        browser.get(server.url)
        wait_for(browser, lambda d: step(d) >= 0, "the first state")
        assert chromium_browser.header_overlaps(browser) == []
        title = browser.find_element(By.ID, "title").text
        assert title.startswith("you (player_1) against the bot (")  # the seat named once
        table_text = browser.find_element(By.ID, "table").text
        assert "player_" not in table_text and "you" in table_text and "bot" in table_text

        # the rules, one click from the table, and closed again
        rules = browser.find_element(By.ID, "rules")
        assert not rules.is_displayed()
        browser.find_element(By.ID, "rules-button").click()
        assert rules.is_displayed()
        for words in ("Q\u2663 Q\u2660 Q\u2665 Q\u2666 J\u2663 J\u2660 J\u2665 J\u2666",
                      "strawmen", "Recrack", "Spitzer", "Schneider", "Schwarz", "61 or more",
                      "gold outline", "gold band"):
            assert words in rules.text, words
        browser.find_element(By.ID, "rules-close").click()
        assert not rules.is_displayed()
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
        browser.save_screenshot(str(ARTIFACTS / f"{label}_table.png"))

        clicks, cards = play_match(browser, random.Random(label))
        assert clicks >= 8 * hands and cards >= 6 * hands  # most moves were cards clicked
        # the rules panel names this hand's trump order once trumps are named
        browser.find_element(By.ID, "rules-button").click()
        trumps = browser.find_element(By.ID, "rules-trumps").text
        assert trumps.startswith("This hand, ") and " named: Q\u2663 Q\u2660 " in trumps
        browser.find_element(By.ID, "rules-close").click()
        assert chromium_browser.header_overlaps(browser) == []
        # the log's numbers are whole, from 1, past 100 too
        log = browser.execute_script(_LOG)
        assert [n for n, _ in log] == [f"{i}." for i in range(1, len(log) + 1)]
        assert all(whole for _, whole in log), [n for n, whole in log if not whole]
        over = browser.find_element(By.CSS_SELECTOR, "[data-match-over]")
        assert "Deal seed 7" in over.text
        if opponent == "heuristic":
            # the pool is stated: every match of this data folder's record
            assert (f"Your rating over every match recorded in {record.path} (1 match, "
                    "from every session that recorded there") in over.text
            assert " Elo, 95% interval " in over.text
        else:
            assert f"Not rated (no ladder rating): {opponent}." in over.text
        assert len(record.matches) == 1 and len(record.matches[0]["hands"]) >= hands

        # after each hand its replay and what the bot saw
        wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".review")) >= hands,
                 "the hand reviews")
        bot_view = browser.find_element(By.CSS_SELECTOR, ".review[open] [data-role=bot-view]")
        assert bot_view.find_elements(By.CSS_SELECTOR, "svg[data-view=player_0]")
        # the hand's decisions counted from 1, in both panels
        assert bot_view.find_element(By.CSS_SELECTOR, ".counter").text.startswith(
            "before decision ")
        browser.save_screenshot(str(ARTIFACTS / f"{label}_over.png"))

        # the replay keeps its place when the view changes
        replay = browser.find_element(By.CSS_SELECTOR, ".review[open] [data-role=replay]")
        counter = replay.find_element(By.CSS_SELECTOR, ".counter")
        assert counter.text.startswith("before decision 1 of ") and "the deal" in counter.text
        forward = replay.find_element(By.XPATH, ".//button[contains(., 'next')]")
        for _ in range(5):
            forward.click()
        assert replay.get_attribute("data-at") == "5" and counter.text.startswith("decision 5 of ")
        for view in ("player_1", "player_0", "spectator"):
            replay.find_element(By.CSS_SELECTOR, f"button[data-view={view}]").click()
            assert replay.get_attribute("data-view") == view
            assert replay.get_attribute("data-at") == "5", view
            assert replay.find_elements(By.CSS_SELECTOR, f"svg[data-view={view}]")

        # a new match starts at step 0 of match 1
        over.find_element(By.TAG_NAME, "button").click()
        wait_for(browser, lambda d: d.find_element(By.TAG_NAME, "body")
                 .get_attribute("data-match") == "1", "the new match")
        assert not browser.find_elements(By.CSS_SELECTOR, "[data-match-over]")
    # nothing failed but the refused typed move (no resource from the network, no script error)
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert len(errors) == 1 and "/api/move" in errors[0] and "422" in errors[0], errors


def test_a_hands_start_keeps_the_header_texts_apart(browser):
    """At a hand's start, before trumps are named, "not named" ran into "No crack: x1"."""
    config = TableConfig(opponent="heuristic", make_bot=lambda: load_agent("heuristic"),
                         seat=0, seed=7, record=MatchRecord(None))
    with running_table(config) as server:
        browser.get(server.url)
        wait_for(browser, lambda d: step(d) >= 0, "the first state")
        header = browser.find_element(By.ID, "table").text
        assert "not named" in header and "No crack: x1" in header
        assert chromium_browser.header_overlaps(browser) == []
        browser.find_element(By.ID, "rules-button").click()
        assert browser.find_element(By.ID, "rules-trumps").text == \
            "This hand's trump suit is not named yet."
