"""The replay page in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by selenium steps through a game with the arrow keys, and the
trick and scores it shows are checked against the game after each decision.

Screenshots are kept in ``tests/artifacts/replay_browser/`` (ignored by git) for CI to
upload. Without the browser the test is skipped; ``make test`` run as root installs it.
"""

from __future__ import annotations

from pathlib import Path

import browser as chromium_browser
import pytest

from widderkopf_env import Game, card_name
from widderkopf_env.agents import HeuristicAgent
from widderkopf_env.agents.arena import play_game
from widderkopf_env.replay import replay_html
from widderkopf_env.rules import deal_to_spec

chromium_browser.require()
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

ARTIFACTS = Path(__file__).parents[1] / "artifacts" / "replay_browser"  # tests/artifacts/


@pytest.fixture(scope="module")
def browser():
    with chromium_browser.chromium() as driver:
        yield driver


_SHOWN = """
const table = document.getElementById("table");
const text = (sel) => table.querySelector(sel).textContent;
return {step: Number(document.body.dataset.step),
        trick: [...table.querySelectorAll("[data-role=trick]")].map(
            (e) => [e.getAttribute("data-card"), Number(e.getAttribute("data-player"))]),
        points: [text("[data-role=points-0]"), text("[data-role=points-1]")],
        score: [text("[data-role=score-0]"), text("[data-role=score-1]")]};
"""


def shown(driver) -> dict:
    """What the page shows now: step, the trick's cards and the scores (one round trip)."""
    out = driver.execute_script(_SHOWN)
    return out | {"trick": {tuple(card) for card in out["trick"]}}


def expected(game: Game) -> dict:
    """The open trick (or the trick just completed) and the scores of ``game``."""
    if game.lead >= 0:
        trick = {(card_name(game.lead), game.leader)}
    elif game.tricks:
        leader, led, other, _ = game.tricks[-1]
        trick = {(card_name(led), leader), (card_name(other), 1 - leader)}
    else:
        trick = set()
    return {"trick": trick, "points": [f"{game.trick_points[p]} points" for p in (0, 1)],
            "score": [f"player_{p}: {game.scores[p]}" for p in (0, 1)]}


def fresh(game: Game) -> Game:
    """``game`` before its first decision."""
    return Game.from_deal(deal_to_spec(game.deals[0]), dealer=game.first_dealer,
                          seed=game.seed)


def test_replay_in_chromium_steps_with_the_arrow_keys(browser, tmp_path):
    game = play_game(Game.new(seed=2026), (HeuristicAgent(), HeuristicAgent()))
    page = tmp_path / "game.html"
    page.write_text(replay_html(game), encoding="utf-8")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    browser.get(page.as_uri())

    def press(key):  # a key press, as the WebDriver input API sends it
        ActionChains(browser).send_keys(key).perform()

    replay = fresh(game)
    assert shown(browser) == {"step": 0, **expected(replay)}
    # the deal: "not named" and "No crack: x1" stand apart, as laid out in the page
    assert "not named" in browser.find_element(By.ID, "table").text
    assert chromium_browser.header_overlaps(browser) == []
    browser.save_screenshot(str(ARTIFACTS / "step00_deal.png"))
    for step, action in enumerate(game.history, start=1):
        press(Keys.ARROW_RIGHT)
        replay.apply(action)
        assert shown(browser) == {"step": step, **expected(replay)}, step
        if replay.level or step < 4:  # a trump sign, each crack level: still apart
            assert chromium_browser.header_overlaps(browser) == [], step
        if step == 12:
            browser.save_screenshot(str(ARTIFACTS / "step12_spectator.png"))
    assert replay.state_dict() == game.state_dict()
    press(Keys.ARROW_RIGHT)  # the end: stays there
    assert shown(browser)["step"] == len(game.history)
    result = browser.find_element(By.CSS_SELECTOR, "#table [data-role=result]").text
    r = game.results[-1]
    assert f"player_{r.winner} won {r.card_points[r.winner]} to" in result
    browser.save_screenshot(str(ARTIFACTS / "end_spectator.png"))

    # back to decision 12 with the left arrow, then player_0's view: no hidden card shown
    for _ in range(len(game.history) - 12):
        press(Keys.ARROW_LEFT)
    browser.find_element(By.CSS_SELECTOR, "input[name=view][value=player_0]").click()
    at12 = fresh(game)
    for action in game.history[:12]:
        at12.apply(action)
    assert shown(browser) == {"step": 12, **expected(at12)}
    table = browser.find_element(By.ID, "table")
    own = {e.get_attribute("data-card")
           for e in table.find_elements(By.CSS_SELECTOR, "[data-role=hand-0]")}
    assert own == {card_name(c) for c in range(36) if at12.hand[0] >> c & 1}
    opponent = table.find_elements(By.CSS_SELECTOR, "[data-role=hand-1]")
    assert len(opponent) == at12.hand[1].bit_count()  # card backs: no face shown
    assert all(e.get_attribute("data-card") is None for e in opponent)
    browser.save_screenshot(str(ARTIFACTS / "step12_player_0.png"))

    # the slider jumps to any decision
    browser.execute_script("const s = document.getElementById('slider'); s.value = 3;"
                           "s.dispatchEvent(new Event('input'));")
    assert shown(browser)["step"] == 3
    for png in ARTIFACTS.glob("*.png"):
        assert png.stat().st_size > 10_000
