"""`cardzoo serve` in a real browser: headless Chromium (Debian's chromium + chromium-driver,
driven by Selenium; nothing is downloaded) loads the page, plays a whole Siantappo match by
clicking cards and move buttons, opens its replay, and saves screenshots."""

from __future__ import annotations

import itertools
import os
import re
import shutil

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[dev]')")
pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e '.[web]')")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from tests.deals import dealt_by  # noqa: E402
from tests.serve_helpers import LiveServer  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
WAIT = 60  # seconds any one step may take on a busy 2-core machine

if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
    pytest.skip(
        f"no Chromium: {CHROMIUM} and {CHROMEDRIVER} are needed (apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )


@pytest.fixture
def browser(tmp_path):
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_window_size(1280, 900)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)


def body(driver, name):
    return driver.find_element(By.TAG_NAME, "body").get_attribute(f"data-{name}")


def settled(driver):
    """The page shows the newest table and waits for nothing."""
    return body(driver, "busy") == "0" and body(driver, "queue") == "0"


def overlay_open(driver):
    return not driver.find_element(By.ID, "overlay").get_attribute("hidden")


def click(driver, element_id):
    """Click the element with this id, looking it up again if the page redrew it under the click
    (the table is redrawn with every move, the *skip* button with it)."""

    def attempt(d):
        try:
            d.find_element(By.ID, element_id).click()
            return True
        except StaleElementReferenceException:
            return False

    WebDriverWait(driver, WAIT).until(attempt)


def play_one_move(driver):
    """Select the lowest card; play the first move the page offers for it, else pass."""
    version = body(driver, "version")
    driver.find_elements(By.CSS_SELECTOR, "#hand .card")[0].click()
    plays = driver.find_elements(By.CSS_SELECTOR, "#moves button.move:not(.cardless)")
    if plays:
        plays[0].click()
    else:
        driver.find_element(By.CSS_SELECTOR, "#moves button.move.cardless").click()
    WebDriverWait(driver, WAIT).until(lambda d: body(d, "version") != version)


def deal_from_the_form(browser, server, game, players, seed):
    """Open the lobby (no pause between bot moves), pick the game, player count and seed (the
    form's default seats: you and bots), and deal."""
    browser.get(server.url + "/?pace=0")
    WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
    Select(browser.find_element(By.ID, "game")).select_by_value(game)
    Select(browser.find_element(By.ID, "players")).select_by_value(str(players))
    browser.find_element(By.ID, "seed").send_keys(str(dealt_by(seed)))  # the deals found with ``seed``
    browser.find_element(By.ID, "deal").click()


def no_console_errors(browser):
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors


def test_a_whole_siantappo_match_by_clicking(browser, tmp_path):
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with LiveServer() as server:
        browser.get(server.url + "/?pace=0")
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        Select(browser.find_element(By.ID, "game")).select_by_value("siantappo")
        Select(browser.find_element(By.ID, "players")).select_by_value("4")
        seats = [Select(s).first_selected_option.text for s in browser.find_elements(By.CSS_SELECTOR, "#seats select")]
        assert seats == ["human", "rules (easy)", "rules (easy)", "rules (easy)"]  # the kinds with their levels
        levels = [o.text for o in Select(browser.find_elements(By.CSS_SELECTOR, "#seats select")[1]).options]
        assert {"model (medium)", "expert (hard)"} <= set(levels)
        browser.find_element(By.CSS_SELECTOR, "#new-game details summary").click()
        rounds = browser.find_element(By.NAME, "opt-rounds")
        rounds.clear()
        rounds.send_keys("1")
        browser.find_element(By.ID, "seed").send_keys(str(dealt_by(7)))
        browser.save_screenshot(str(shots / "1-lobby.png"))
        browser.find_element(By.ID, "deal").click()

        moves = 0
        while True:
            WebDriverWait(browser, WAIT).until(
                lambda d: settled(d) and (body(d, "turn") in ("you", "over") or overlay_open(d))
            )
            if body(browser, "turn") == "over":
                break
            if overlay_open(browser):  # an end-of-round summary
                browser.find_element(By.CSS_SELECTOR, "#overlay-actions button").click()
                continue
            if moves == 0:
                browser.find_elements(By.CSS_SELECTOR, "#hand .card")[0].click()
                assert browser.find_elements(By.CSS_SELECTOR, "#hand .card.selected")
                browser.save_screenshot(str(shots / "2-table-selected.png"))
                browser.set_window_size(390, 844)  # a phone
                browser.save_screenshot(str(shots / "3-phone.png"))
                assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
                browser.set_window_size(1280, 900)
                browser.find_element(By.CSS_SELECTOR, "#moves button:not(.move)").click()  # Clear
            try:
                play_one_move(browser)
            except StaleElementReferenceException:
                continue  # the table was redrawn under the click: look again
            moves += 1
            if moves == 8:
                browser.save_screenshot(str(shots / "4-mid-game.png"))

        WebDriverWait(browser, WAIT).until(overlay_open)
        assert browser.find_element(By.ID, "overlay-title").text == "Match over"
        assert "Most placement points" in browser.find_element(By.ID, "overlay-body").text
        browser.save_screenshot(str(shots / "5-result.png"))
        assert moves >= 5

        # the same match, replayed move by move in the same view
        browser.find_element(By.XPATH, "//button[text()='Replay this game']").click()
        WebDriverWait(browser, WAIT).until(
            lambda d: body(d, "mode") == "replay" and d.find_element(By.ID, "replay-pos").text
        )
        total = int(browser.find_element(By.ID, "replay-pos").text.split("/")[1])
        for _ in range(3):
            browser.find_element(By.CSS_SELECTOR, "#replay-bar button[data-step=next]").click()
        WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay-pos").text == f"3 / {total}")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#log li")) == 3
        assert len(browser.find_elements(By.CSS_SELECTOR, "#hand .card")) > 0
        browser.save_screenshot(str(shots / "6-replay.png"))

    no_console_errors(browser)
    assert len(list(shots.glob("*.png"))) == 6


def test_bot_moves_are_shown_one_at_a_time(browser):
    """The page paces bot moves itself: each shown at least PACE ms after the table before it,
    even when the server sends them all at once; the speed control is remembered."""
    pace = 300
    with LiveServer() as server:
        browser.get(server.url + f"/?pace={pace}")
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        assert body(browser, "pace") == str(pace)
        # every table that goes up: when, its version, who made its last move
        browser.execute_script("""
            window.shown = [];
            new MutationObserver(() => {
              const li = document.querySelector('#log li:last-child .who');
              window.shown.push([performance.now(), Number(document.body.dataset.version), li ? li.textContent : '']);
            }).observe(document.body, {attributes: true, attributeFilter: ['data-version']});
        """)
        Select(browser.find_element(By.ID, "game")).select_by_value("siantappo")
        Select(browser.find_element(By.ID, "players")).select_by_value("4")
        browser.find_element(By.ID, "seed").send_keys(str(dealt_by(7)))
        browser.find_element(By.ID, "deal").click()
        gaps = []
        for _ in range(6):
            WebDriverWait(browser, WAIT).until(
                lambda d: settled(d) and (body(d, "turn") in ("you", "over") or overlay_open(d))
            )
            shown = browser.execute_script("return window.shown")
            gaps = [
                t1 - t0 for (t0, v0, _), (t1, v1, who) in itertools.pairwise(shown) if v1 == v0 + 1 and who != "you: "
            ]
            if len(gaps) >= 3 or body(browser, "turn") == "over":
                break
            if overlay_open(browser):
                browser.find_element(By.CSS_SELECTOR, "#overlay-actions button").click()
                continue
            try:
                play_one_move(browser)
            except StaleElementReferenceException:
                continue
        assert len(gaps) >= 3, shown
        assert min(gaps) >= pace * 0.9, gaps
        # the speed control: instant, remembered for the next visit
        Select(browser.find_element(By.ID, "speed")).select_by_value("0")
        assert browser.execute_script("return localStorage.getItem('cardzoo.pace')") == "0"
        browser.get(server.url + "/")
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        assert Select(browser.find_element(By.ID, "speed")).first_selected_option.get_attribute("value") == "0"
    no_console_errors(browser)


def test_every_hand_summary_opens_and_a_knocked_out_player_may_skip_to_the_end(browser):
    """Sam Sip, seed 3: the dealer wins hand 1 on the opening draw, before the table first shows,
    and its summary still opens; every later hand's does too, the one that knocks you out
    included; then the others play on (paced) with a *skip to the end* button."""
    with LiveServer() as server:
        browser.get(server.url + "/?pace=100")
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        Select(browser.find_element(By.ID, "game")).select_by_value("samsip")
        Select(browser.find_element(By.ID, "players")).select_by_value("3")
        for s, kind in enumerate(["human", "model", "rules"]):
            Select(browser.find_element(By.NAME, f"seat-{s}")).select_by_value(kind)
        browser.find_element(By.CSS_SELECTOR, "#new-game details summary").click()
        bankroll = browser.find_element(By.NAME, "opt-bankroll")
        bankroll.clear()
        bankroll.send_keys("6")
        browser.find_element(By.ID, "seed").send_keys(str(dealt_by(3)))
        browser.find_element(By.ID, "deal").click()
        titles, knocked_out = [], False
        for _ in range(400):
            WebDriverWait(browser, WAIT, ignored_exceptions=[StaleElementReferenceException]).until(
                lambda d: (
                    overlay_open(d)
                    or d.find_elements(By.ID, "skip")
                    or body(d, "turn") == "over"
                    or (settled(d) and body(d, "turn") == "you")
                )
            )
            try:
                if overlay_open(browser):
                    title = browser.find_element(By.ID, "overlay-title").text
                    text = browser.find_element(By.ID, "overlay-body").text
                    browser.find_element(By.CSS_SELECTOR, "#overlay-actions button").click()
                    titles.append(title)
                    knocked_out |= "you (knocked out)" in text
                    continue
                if browser.find_elements(By.ID, "skip") or body(browser, "turn") == "over":
                    break
                play_one_move(browser)
            except StaleElementReferenceException:
                continue  # the table was redrawn under the click: look again
        assert titles and titles[0].startswith("Hand 1:"), titles
        hands = [int(t.split()[1].rstrip(":")) for t in titles]
        assert hands == list(range(1, len(hands) + 1)), titles  # none skipped
        assert knocked_out, titles  # the summary of the hand that knocked you out opened
        assert body(browser, "turn") != "over"  # the others still play, at the watching pace
        version = int(body(browser, "version"))
        click(browser, "skip")
        WebDriverWait(browser, WAIT).until(lambda d: body(d, "turn") == "over" and overlay_open(d))
        assert int(body(browser, "version")) > version
        assert browser.find_element(By.ID, "overlay-title").text == "Match over"
    no_console_errors(browser)


def test_the_hint_button_shows_the_models_move_and_outlines_it(browser):
    """As found (issue 60): with more than ten moves the hint named a move but marked no card, its
    text squeezed the move buttons, and it spoke RL ("estimated reward to the end of the match
    -1.10"). Now: words (best, about as good, fine, risky), the move's cards marked where they
    lie, the words on a line of their own."""
    with LiveServer() as server:
        deal_from_the_form(browser, server, "suipi", 2, 11)
        WebDriverWait(browser, WAIT).until(lambda d: settled(d) and body(d, "turn") == "you")
        version = body(browser, "version")
        assert any(b.text == "Show all" for b in browser.find_elements(By.CSS_SELECTOR, "#moves button"))
        browser.find_element(By.CSS_SELECTOR, "#moves button.hint-button").click()
        WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "hint-line").is_displayed())
        line = browser.find_element(By.ID, "hint-line").text
        assert line.startswith("Hint: the model would play ") and "— its best" in line
        assert "reward" not in line and not re.search(r"[+−-]\d\.\d\d|\d%", line)  # no RL numbers
        assert re.search(r"\((about as good|fine|risky)\)", line)
        assert body(browser, "version") == version  # asking changes nothing
        assert browser.find_elements(By.CSS_SELECTOR, "#hand .card.hinted")  # the hinted card is marked
        assert not browser.find_elements(By.CSS_SELECTOR, "#moves .hint-line")  # not among the buttons
        for b in browser.find_elements(By.CSS_SELECTOR, "#moves button"):
            if b.text == "Show all":
                b.click()
                break
        hinted = browser.find_elements(By.CSS_SELECTOR, "#moves button.move.hinted")
        assert len(hinted) == 1 and hinted[0].text in line  # the suggested move's button is outlined
    no_console_errors(browser)


def start_watching(browser, server, game, seats, seed, options=None):
    """Start a bots-only match through the API (no pause between moves) and watch it: the deals
    and the bots' seeds of the match found with ``seed`` (tests/deals.py)."""
    import json
    import urllib.request

    seats = [f"{kind}@{seed + 1000 + s}" for s, kind in enumerate(seats)]
    body = {"game": game, "seats": seats, "seed": dealt_by(seed), "pace": 0, "options": options or {}}
    req = urllib.request.Request(
        server.url + "/api/games", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    key = json.loads(urllib.request.urlopen(req, timeout=WAIT).read())["watch"]
    browser.get(server.url + f"/?pace=0#watch={key}")
    return key


HIDDEN_COLUMNS = """
    return [...document.querySelectorAll('#scores, #summary-panel, #overlay .modal')]
      .flatMap((box) => [box, ...box.querySelectorAll('table')])
      .filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth)
      .map((e) => `${e.id || e.className || e.tagName}: ${e.scrollWidth} > ${e.clientWidth}`);
"""


@pytest.mark.parametrize("players", [2, 4])
def test_the_suipi_score_tables_fit_a_laptop_and_a_phone(browser, players):
    """At a deal summary every score table shows all its columns (nothing behind a scrollbar),
    at 1280×900 and on a phone (390×844): the 8-column side table is drawn turned."""
    with LiveServer() as server:
        start_watching(browser, server, "suipi", ["rules"] * players, seed=5)
        WebDriverWait(browser, WAIT).until(
            lambda d: overlay_open(d) and d.find_element(By.ID, "overlay-title").text.startswith("End of deal")
        )
        for width, height in ((1280, 900), (390, 844)):
            browser.set_window_size(width, height)
            assert browser.execute_script(HIDDEN_COLUMNS) == [], (width, height)
            assert browser.execute_script("return document.documentElement.scrollWidth") <= width
        scores = browser.find_element(By.ID, "scores").text
        for heading in ("captured", "spades", "aces", "10♦", "2♠", "suipis", "match score"):
            assert heading in scores
        summary = browser.find_element(By.ID, "summary-panel").text
        assert "match score" in summary and "deal score" in summary
    no_console_errors(browser)


def test_the_table_has_a_rules_panel_for_its_game(browser):
    with LiveServer() as server:
        start_watching(browser, server, "samsip", ["rules"] * 3, seed=0)
        WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "rules-panel").is_displayed())
        panel = browser.find_element(By.ID, "rules-panel")
        assert panel.find_element(By.TAG_NAME, "summary").text == "Rules of Sam Sip"
        browser.execute_script("arguments[0].open = true", panel)  # under the hand summaries' overlay
        points = [li.text for li in panel.find_elements(By.CSS_SELECTOR, "li")]
        assert len(points) >= 5 and any(p.startswith("You win the moment your 6 cards") for p in points), points
        assert "Input:" not in panel.text
    no_console_errors(browser)


def test_undo_takes_back_your_move_and_rematch_deals_again(browser):
    with LiveServer() as server:
        deal_from_the_form(browser, server, "siantappo", 4, 7)
        my_turn = lambda d: settled(d) and body(d, "turn") == "you"  # noqa: E731
        WebDriverWait(browser, WAIT).until(my_turn)
        assert not browser.find_elements(By.ID, "undo")  # nothing to take back yet
        version = body(browser, "version")
        table = [browser.find_element(By.ID, part).text for part in ("hand", "log", "felt")]
        play_one_move(browser)
        WebDriverWait(browser, WAIT).until(lambda d: my_turn(d) and int(body(d, "version")) > int(version) + 1)
        assert "you: " in browser.find_element(By.ID, "log").text
        moved = int(body(browser, "version"))
        click(browser, "undo")  # the table as before, at a new version (versions never repeat)
        WebDriverWait(browser, WAIT).until(lambda d: my_turn(d) and int(body(d, "version")) > moved)
        assert [browser.find_element(By.ID, part).text for part in ("hand", "log", "felt")] == table
        assert not browser.find_elements(By.ID, "undo")

        # a bots-only match to its end: Rematch deals a new match of the same seats
        start_watching(browser, server, "siantappo", ["rules"] * 3, seed=9, options={"rounds": 1})
        WebDriverWait(browser, WAIT).until(
            lambda d: overlay_open(d) and d.find_element(By.ID, "overlay-title").text == "Match over"
        )
        old = browser.current_url
        click(browser, "rematch")
        WebDriverWait(browser, WAIT).until(lambda d: d.current_url != old and "#watch=" in d.current_url)
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#opponents .seat"))
        assert len(browser.find_elements(By.CSS_SELECTOR, "#opponents .seat, #my-seat .name")) >= 3
    no_console_errors(browser)


def test_a_siantappo_is_announced_with_a_banner_and_a_squeal_only_with_sound_on(browser):
    """Seed 5 (four rule bots, one round): player_3 plays a siantappo at move 12."""
    with LiveServer() as server:
        start_watching(browser, server, "siantappo", ["rules"] * 4, seed=5, options={"rounds": 1})
        WebDriverWait(browser, WAIT).until(lambda d: body(d, "turn") == "over")
        assert not browser.find_element(By.ID, "sound").is_selected()  # muted by default
        assert body(browser, "sounds") is None  # so nothing was played
        # with sound on (remembered), the squeal is played with the banner
        browser.get(server.url + "/")
        browser.find_element(By.ID, "sound").click()
        assert browser.execute_script("return localStorage.getItem('cardzoo.sound')") == "1"
        start_watching(browser, server, "siantappo", ["rules"] * 4, seed=5, options={"rounds": 1})
        WebDriverWait(browser, WAIT).until(lambda d: body(d, "last-sound") == "squeal")
        banner = browser.find_element(By.ID, "banner")
        assert banner.get_attribute("textContent") == " SQUEEEEAL! player_3 plays a siantappo"
        assert banner.find_element(By.CSS_SELECTOR, ".pig svg")  # the pig drawn: no emoji font is needed
    no_console_errors(browser)


ANIMATIONS = """
    return [...document.querySelectorAll('#felt .card.fresh')].map((c) => getComputedStyle(c).animationName);
"""


def test_your_turn_is_in_the_title_with_an_optional_chime_and_cards_arrive_unless_motion_is_reduced(browser):
    with LiveServer() as server:
        browser.get(server.url + "/")
        browser.find_element(By.ID, "sound").click()  # remembered for the next page
        deal_from_the_form(browser, server, "siantappo", 4, 7)
        WebDriverWait(browser, WAIT).until(lambda d: settled(d) and body(d, "turn") == "you")
        assert browser.title == "▶ your move · Siantappo · cardzoo"
        assert body(browser, "last-sound") == "turn"
        chimes = int(body(browser, "sounds"))
        play_one_move(browser)
        WebDriverWait(browser, WAIT).until(
            lambda d: settled(d) and body(d, "turn") == "you" and int(body(d, "sounds")) > chimes
        )
        # the cards the bots put down since came onto the table animated
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#felt .card.fresh"))
        assert set(browser.execute_script(ANIMATIONS)) == {"arrive"}
        browser.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}
        )
        assert set(browser.execute_script(ANIMATIONS)) == {"none"}
        prompt = browser.find_element(By.ID, "prompt")
        assert browser.execute_script("return getComputedStyle(arguments[0]).animationName", prompt) == "none"
    no_console_errors(browser)


def test_a_look_at_the_last_trick(browser):
    with LiveServer() as server:
        start_watching(browser, server, "siantappo", ["rules"] * 4, seed=3, options={"rounds": 1})
        WebDriverWait(browser, WAIT).until(lambda d: body(d, "turn") == "over" and overlay_open(d))
        browser.find_element(By.XPATH, "//button[text()='Look at the table']").click()
        while overlay_open(browser):  # the round's summary, queued behind the result
            browser.find_element(By.CSS_SELECTOR, "#overlay-actions button:last-child").click()
        assert not browser.find_elements(By.CSS_SELECTOR, "#felt .last-look")
        click(browser, "last-look")
        zone = browser.find_element(By.CSS_SELECTOR, "#felt .zone.last-look")
        assert zone.find_element(By.CLASS_NAME, "label").text.lower() == "last trick"
        assert zone.find_elements(By.CSS_SELECTOR, ".card") and "player_" in zone.text
        assert browser.find_element(By.ID, "last-look").text == "Hide the last trick"
        click(browser, "last-look")
        assert not browser.find_elements(By.CSS_SELECTOR, "#felt .last-look")
    no_console_errors(browser)
