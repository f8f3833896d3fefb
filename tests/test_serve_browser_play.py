"""A card player at the browser table (issue 60), clicking as a person does in headless Chromium
(the fixtures and helpers of tests/test_serve_browser.py): the cards selected are the cards played."""

from __future__ import annotations

import pytest

from tests.test_serve_browser import WAIT, body, browser, no_console_errors, settled  # noqa: F401  (browser: the fixture)

webdriver = pytest.importorskip("selenium.webdriver")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from tests.serve_helpers import LiveServer  # noqa: E402


def deal(browser, server, game, players, seed):
    """The lobby's form: game, player count, seed (you at seat 0, bots elsewhere), Deal."""
    browser.get(server.url + "/?pace=0")
    WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
    Select(browser.find_element(By.ID, "game")).select_by_value(game)
    Select(browser.find_element(By.ID, "players")).select_by_value(str(players))
    browser.find_element(By.ID, "seed").send_keys(str(seed))
    browser.find_element(By.ID, "deal").click()
    WebDriverWait(browser, WAIT).until(lambda d: settled(d) and body(d, "turn") == "you")


def select(browser, *cards):
    """Click these hand cards, each looked up again if the page redrew the hand under the click."""
    for card in cards:

        def click(d, card=card):
            try:
                d.find_element(By.CSS_SELECTOR, f"#hand .card[data-id='{card}']").click()
                return True
            except StaleElementReferenceException:
                return False

        WebDriverWait(browser, WAIT).until(click)


def hand(browser):
    return [c.get_attribute("data-id") for c in browser.find_elements(By.CSS_SELECTOR, "#hand .card")]


def move_buttons(browser):
    return [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#moves button.move:not(.cardless)")]


def test_siantappo_plays_the_cards_you_selected_not_the_lowest_suits(browser):
    """As found: leading with 10♦ 10♥ in hand, selecting 9♦ 10♥ J♦ offered "9♦ 10♦ J♦" and Enter
    played 10♦ (the action keeps only the top card). Seed 42: you lead first, holding 8♥ 9♦ 10♦
    10♥ J♦."""
    with LiveServer() as server:
        deal(browser, server, "siantappo", 4, 42)
        assert {"9♦", "10♦", "10♥", "J♦", "8♥"} <= set(hand(browser))
        select(browser, "10♥")  # one card: every move offered for it uses it
        offered = move_buttons(browser)
        assert offered and all("10♥" in text for text in offered), offered
        assert "8♥ 9♦ 10♥" in offered and "9♦ 10♥ J♦" in offered
        select(browser, "9♦", "J♦")
        exact = browser.find_elements(By.CSS_SELECTOR, "#moves button.move.exact")
        assert [b.text for b in exact] == ["9♦ 10♥ J♦"]
        version = body(browser, "version")
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ENTER)
        WebDriverWait(browser, WAIT).until(lambda d: body(d, "version") != version)
        WebDriverWait(browser, WAIT).until(lambda d: "you: 9♦ 10♥ J♦" in d.find_element(By.ID, "log").text)
        left = hand(browser)
        assert "10♦" in left and not {"9♦", "10♥", "J♦"} & set(left)
    no_console_errors(browser)


def test_undo_stops_at_a_sam_sip_draw_from_the_stock(browser):
    """As found: after drawing from the stock, Undo took the draw back and the discard could be
    taken instead, the stock's top card seen. Seed 0, three players: the J♦ lies in front of you."""
    with LiveServer() as server:
        deal(browser, server, "samsip", 3, 0)
        buttons = {b.text: b for b in browser.find_elements(By.CSS_SELECTOR, "#moves button.move")}
        assert {"draw stock", "take J♦"} <= set(buttons)
        version = body(browser, "version")
        buttons["draw stock"].click()
        WebDriverWait(browser, WAIT).until(lambda d: body(d, "version") != version and settled(d))
        drawn = hand(browser)
        undo = browser.find_element(By.ID, "undo")
        assert undo.get_attribute("disabled") and undo.get_attribute("title").startswith("undo stops here")
        select(browser, drawn[0])
        version = body(browser, "version")
        browser.find_element(By.CSS_SELECTOR, "#moves button.move.exact").click()
        WebDriverWait(browser, WAIT).until(
            lambda d: int(body(d, "version")) > int(version) + 1 and settled(d) and body(d, "turn") == "you"
        )
        version = body(browser, "version")
        browser.find_element(By.ID, "undo").click()  # takes back the discard, not the draw
        WebDriverWait(browser, WAIT).until(lambda d: body(d, "version") != version and settled(d))
        assert hand(browser) == drawn
        assert [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#moves button.move.cardless")] == []
        assert browser.find_element(By.ID, "undo").get_attribute("disabled")
    no_console_errors(browser)


def test_a_locked_suipi_build_shows_its_groups_and_the_log_wraps(browser, tmp_path):
    """As found: a locked build of 9 read as one row of cards 2♠ 7♣ 9♠ (18 = 9?) and a long build
    overflowed the log. A record of seed 1 (two rule bots), opened from the lobby and stepped with
    the arrow key to move 21, where player_1's locked build of 9 lies on the floor."""
    import json

    from cardzoo.scripts.serve.match import Match

    match = Match.create("suipi", ["rules", "rules"], {"match_deals": 1}, 1)
    while not match.over:
        match.play_bot_move()
    record = tmp_path / "suipi.jsonl"
    record.write_text(json.dumps(match.record(), ensure_ascii=False) + "\n", encoding="utf-8")
    with LiveServer() as server:
        browser.get(server.url + "/?pace=0")
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        browser.find_element(By.ID, "replay-file").send_keys(str(record))
        browser.find_element(By.CSS_SELECTOR, "#replay-form button[type=submit]").click()
        WebDriverWait(browser, WAIT).until(
            lambda d: body(d, "mode") == "replay" and d.find_element(By.ID, "replay-pos").text
        )
        for k in range(1, 22):
            browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_RIGHT)
            WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay-pos").text.startswith(f"{k} /"))
        item = "//div[contains(concat(' ', @class, ' '), ' item ')]"
        build = browser.find_element(By.XPATH, f"{item}[div[@class='caption'][contains(., 'locked')]]")
        assert build.find_element(By.CLASS_NAME, "caption").text == "player_1's build of 9, locked: 2 groups of 9"
        assert len(build.find_elements(By.CLASS_NAME, "group-gap")) == 1
        for width, height in ((1280, 900), (390, 844)):
            browser.set_window_size(width, height)
            wide = browser.execute_script(
                "return [...document.querySelectorAll('#log li')].filter((li) => li.scrollWidth > li.clientWidth + 1)"
                ".map((li) => li.textContent)"
            )
            assert wide == [], (width, wide)
    no_console_errors(browser)


def test_a_refused_selection_names_the_rule(browser):
    """As found: `4 4 5 5 6 6` as a Siantappo lead gave "not a legal move now", and the page said
    only "No legal move uses these cards". Seed 83: you lead holding 6♣ 6♦ 7♠ 7♦ 8♠ 8♦."""
    with LiveServer() as server:
        deal(browser, server, "siantappo", 4, 83)
        select(browser, "6♣", "6♦", "7♠", "7♦", "8♠", "8♦")
        why = WebDriverWait(browser, WAIT, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda d: (lambda t: t if "rules" in t else None)(d.find_element(By.ID, "why").text)
        )  # redrawn as it comes
        assert why == (
            "6♣ 6♦ 7♠ 7♦ 8♠ 8♦ is a siantappo: it is played only as a bomb, on a single 2 (rules T8); "
            "it cannot lead (T4)"
        )
        assert not move_buttons(browser)
    no_console_errors(browser)


BROKEN_WORDS = """
    const broken = [];
    for (const cell of document.querySelectorAll('#scores th, #scores td, #summary-panel th, #summary-panel td')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      let node;
      while ((node = walker.nextNode())) {
        for (const m of node.data.matchAll(/\\S+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(m[0]);
        }
      }
    }
    return broken;
"""


def test_watching_suipi_4p_the_sides_table_names_every_seat_and_no_header_breaks_mid_word(browser):
    """As found: watching a 4-player Suipi match, the Sides table left out the seat whose hand was
    shown ("A (player_2)": the server's rewrite of "you, player_2"); headers read "plac e", "chip s",
    "player _1". Seed 5, four rule bots."""
    import json
    import urllib.request

    with LiveServer() as server:
        body_ = {"game": "suipi", "seats": ["rules"] * 4, "seed": 5, "pace": 0, "options": {}}
        req = urllib.request.Request(
            server.url + "/api/games", data=json.dumps(body_).encode(), headers={"Content-Type": "application/json"}
        )
        key = json.loads(urllib.request.urlopen(req, timeout=WAIT).read())["watch"]
        browser.get(server.url + f"/?pace=0#watch={key}")
        WebDriverWait(browser, WAIT).until(lambda d: "Sides" in d.find_element(By.ID, "scores").text)
        scores = browser.find_element(By.ID, "scores").text
        assert "A (player_0, player_2)" in " ".join(scores.split()) or (
            "player_0," in scores and "player_2)" in scores
        ), scores
        assert "you" not in scores
        for width, height in ((1280, 900), (390, 844)):
            browser.set_window_size(width, height)
            assert browser.execute_script(BROKEN_WORDS) == [], (width, height)
    no_console_errors(browser)


def test_the_lobby_speaks_to_players(browser):
    """As found: the seats' hint offered "a checkpoint path" (refused), and its error stayed after the
    seat was fixed; rule options were snake_case text boxes (`deal=all`, `swap_second_with=n-1`)
    with RL settings among them; `siantappo` sat beside "model (medium)" without saying what it is."""
    with LiveServer() as server:
        browser.get(server.url + "/?pace=0")
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        Select(browser.find_element(By.ID, "game")).select_by_value("siantappo")
        Select(browser.find_element(By.ID, "players")).select_by_value("4")
        assert "or a checkpoint path" not in browser.find_element(By.CSS_SELECTOR, "#seats + p, fieldset .hint").text
        seat = Select(browser.find_element(By.NAME, "seat-1"))
        assert 'siantappo: the model file "model" plays' in [o.text for o in seat.options]
        seat.select_by_value("other")
        browser.find_element(By.NAME, "seat-1-spec").send_keys("/etc/passwd")
        browser.find_element(By.ID, "deal").click()
        error = browser.find_element(By.ID, "form-error")
        WebDriverWait(browser, WAIT).until(lambda d: "not an agent this server offers" in error.text)
        seat.select_by_value("rules")  # fixed: the error goes
        assert error.text == ""
        browser.find_element(By.CSS_SELECTOR, "#new-game > details > summary").click()
        options = browser.find_element(By.ID, "options")
        shown = options.text
        assert "Deal" in shown and "How the cards are dealt (T3)." in shown
        assert "_" not in shown  # no snake_case
        deal = Select(browser.find_element(By.NAME, "opt-deal"))
        assert [o.text for o in deal.options] == ["all 52 cards", "13 each, the rest aside (up to 4 players)"]
        assert not browser.find_element(By.NAME, "opt-reward").is_displayed()  # under Advanced, closed
        assert not browser.find_element(By.NAME, "opt-trick_history").is_displayed()
        browser.find_element(By.CSS_SELECTOR, "#advanced > summary").click()
        for width, height in ((1280, 900), (390, 844)):  # the long choices never widen the form
            browser.set_window_size(width, height)
            assert browser.execute_script("return document.documentElement.scrollWidth") <= width
        browser.set_window_size(1280, 900)
        deal.select_by_value("13each")
        browser.find_element(By.ID, "deal").click()
        WebDriverWait(browser, 10).until(
            lambda d: body(d, "mode") == "play" or d.find_element(By.ID, "form-error").text not in ("", "Dealing…")
        )
        assert body(browser, "mode") == "play", browser.find_element(By.ID, "form-error").text
        WebDriverWait(browser, WAIT).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#hand .card")) == 13)
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert all("/api/games" in e["message"] and "400" in e["message"] for e in errors), errors  # the path refused


def test_out_of_a_siantappo_round_you_may_skip_to_its_end(browser):
    """As found: out 1st, the page played the rest of the round's bot moves one by one (~16 s) with
    no skip. Seed 37: playing the lowest card each time, you go out while three others play on."""
    from tests.test_serve_browser import play_one_move

    with LiveServer() as server:
        browser.get(server.url + "/?pace=400")  # the bots shown one by one, as a player has them
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        Select(browser.find_element(By.ID, "game")).select_by_value("siantappo")
        Select(browser.find_element(By.ID, "players")).select_by_value("4")
        browser.find_element(By.ID, "seed").send_keys("37")
        browser.find_element(By.ID, "deal").click()
        for _ in range(40):
            WebDriverWait(browser, WAIT, ignored_exceptions=[StaleElementReferenceException]).until(
                lambda d: d.find_elements(By.ID, "skip") or (settled(d) and body(d, "turn") == "you")
            )
            if browser.find_elements(By.ID, "skip"):
                break
            try:
                play_one_move(browser)
            except StaleElementReferenceException:
                continue
        assert "You are out of this round" in browser.find_element(By.ID, "moves").text
        browser.find_element(By.ID, "skip").click()  # some 40 bot moves, 400 ms each, are left
        WebDriverWait(browser, 10).until(
            lambda d: (
                not d.find_element(By.ID, "overlay").get_attribute("hidden")
                and d.find_element(By.ID, "overlay-title").text == "End of round 1"
            )
        )
    no_console_errors(browser)


def test_the_match_result_has_places(browser):
    """As found: the browser's match result listed the players without their places. A bots-only
    Siantappo match of one round, watched to its end; then a Suipi one."""
    from tests.test_serve_browser import overlay_open, start_watching

    with LiveServer() as server:
        for game, seats, options in (
            ("siantappo", ["rules"] * 4, {"rounds": 1}),
            ("suipi", ["rules"] * 2, {"match_deals": 1}),
        ):
            start_watching(browser, server, game, seats, seed=9, options=options)
            WebDriverWait(browser, WAIT).until(
                lambda d: overlay_open(d) and d.find_element(By.ID, "overlay-title").text == "Match over"
            )
            header = browser.find_element(By.CSS_SELECTOR, "#overlay-body table tr").text.split()
            assert header[0] == "place", header
            first = browser.find_elements(By.CSS_SELECTOR, "#overlay-body table tr")[1].text
            assert first.startswith(("1st", "tied 1st")), first
    no_console_errors(browser)


def test_a_replay_shows_every_hand_and_jumps_to_a_round(browser, tmp_path):
    """As found: the browser's replay showed one hand (the others face down) where the terminal
    shows all, and could not jump to a round. A record of four rule bots, two rounds (seed 7)."""
    from cardzoo.scripts.cli import main

    record = tmp_path / "siantappo.jsonl"
    assert (
        main(
            [
                "play",
                "siantappo",
                "--seats",
                "rules,rules,rules,rules",
                "--seed",
                "7",
                "-o",
                "rounds=2",
                "--save",
                str(record),
            ]
        )
        == 0
    )
    with LiveServer() as server:
        browser.get(server.url + "/?pace=0")
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        browser.find_element(By.ID, "replay-file").send_keys(str(record))
        browser.find_element(By.CSS_SELECTOR, "#replay-form button[type=submit]").click()
        WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay-pos").text == "0 / 94")
        seats = browser.find_elements(By.CSS_SELECTOR, "#opponents .seat")
        assert len(seats) == 3 and all(len(s.find_elements(By.CSS_SELECTOR, ".open-hand .card")) == 13 for s in seats)
        jump = Select(browser.find_element(By.ID, "replay-jump"))
        assert [o.text for o in jump.options] == ["Round 1 of 2", "Round 2 of 2"]
        jump.select_by_visible_text("Round 2 of 2")
        WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay-pos").text == "52 / 94")
        assert "Round 2 of 2" in browser.find_element(By.ID, "info").text
        browser.save_screenshot(str(tmp_path / "replay.png"))
    no_console_errors(browser)


SEATS_AROUND = """
    const felt = document.getElementById('felt').getBoundingClientRect();
    const at = {};
    for (const s of document.querySelectorAll('#opponents .seat')) {
      const r = s.getBoundingClientRect();
      at[s.dataset.seat] = r.right <= felt.left ? 'left' : r.left >= felt.right ? 'right'
        : r.bottom <= felt.top ? 'across' : 'elsewhere';
    }
    return at;
"""


def test_the_others_sit_around_the_table_and_a_played_card_comes_from_its_seat(browser):
    """As found: opponents sat in a row above you. Siantappo 4 players (clockwise: the next on
    your left, across, the last on your right); Sam Sip 4 players plays anticlockwise (the next on
    your right). A phone seats them in a row above the table."""
    from tests.test_serve_browser import play_one_move

    with LiveServer() as server:
        deal(browser, server, "siantappo", 4, 42)
        assert browser.execute_script(SEATS_AROUND) == {"1": "left", "2": "across", "3": "right"}
        play_one_move(browser)
        WebDriverWait(browser, WAIT).until(lambda d: settled(d) and body(d, "turn") == "you")
        fresh = browser.find_elements(By.CSS_SELECTOR, "#felt .card.fresh")
        script = "return [...document.querySelectorAll('#felt .card.fresh')]"
        moved = browser.execute_script(script + ".map((c) => c.style.getPropertyValue('--from-x'))")
        assert fresh and all(moved), moved  # each comes from the seat that played it
        assert {c.value_of_css_property("animation-name") for c in fresh} == {"arrive"}
        browser.set_window_size(390, 844)
        assert set(browser.execute_script(SEATS_AROUND).values()) == {"across"}
        browser.set_window_size(1280, 900)
        deal(browser, server, "samsip", 4, 0)
        assert browser.execute_script(SEATS_AROUND) == {"1": "right", "2": "across", "3": "left"}
    no_console_errors(browser)


def test_a_hint_marks_the_moves_the_rules_treat_alike_with_one_label(browser):
    """As found: two moves the rules treat alike got different hint labels. Suipi seed 11: you
    hold 4♣ and 4♥ and a 4♦ lies on the floor; the hint names both builds of 4 as one entry
    (alike), outlines both buttons and marks both cards."""
    import re

    with LiveServer() as server:
        deal(browser, server, "suipi", 2, 11)
        assert {"4♣", "4♥"} <= set(hand(browser))
        browser.find_element(By.CSS_SELECTOR, "#moves button.hint-button").click()
        WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "hint-line").is_displayed())
        line = browser.find_element(By.ID, "hint-line").text
        best = line.split(" — its best")[0]
        assert re.fullmatch(r"Hint: the model would play 4(♣|♥) build 4 on 4♦ or 4(♣|♥) build 4 on 4♦ \(alike\)", best)
        assert "4♣ build 4" in best and "4♥ build 4" in best and line.count("4♣ build 4 on 4♦") == 1
        marked = {c.get_attribute("data-id") for c in browser.find_elements(By.CSS_SELECTOR, "#hand .card.hinted")}
        assert {"4♣", "4♥"} <= marked
        for b in browser.find_elements(By.CSS_SELECTOR, "#moves button"):
            if b.text == "Show all":
                b.click()
                break
        hinted = sorted(b.text for b in browser.find_elements(By.CSS_SELECTOR, "#moves button.move.hinted"))
        assert hinted == ["4♣ build 4 on 4♦", "4♥ build 4 on 4♦"]
    no_console_errors(browser)


# Where each card that just came onto the felt starts its travel (its animation held at time 0),
# and the centre of the seat that played it (the hand for your own cards): both in page pixels.
TRAVEL_START = """
    const centre = (r) => [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)];
    return [...document.querySelectorAll('#felt .card.fresh')].map((c) => {
      const a = c.getAnimations()[0];
      if (!a) return null;
      a.pause();
      a.currentTime = 0;
      return centre(c.getBoundingClientRect());
    });
"""
SEAT_CENTRE = """
    const s = document.querySelector(arguments[0]);
    const r = s.getBoundingClientRect();
    return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)];
"""


def slow_arrivals(browser):
    """Every animation at a thousandth of its speed (the DevTools protocol: the page's policy
    allows no inline style), so a card's travel can be looked at."""
    browser.execute_cdp_cmd("Animation.enable", {})
    browser.execute_cdp_cmd("Animation.setPlaybackRate", {"playbackRate": 0.001})


@pytest.mark.parametrize("size", [(390, 844), (1280, 900)])
def test_a_played_card_starts_its_travel_at_the_seat_that_played_it(browser, size):
    """As found: on a phone (390x844) a played card did not travel from its seat; the offset was
    measured while the animation's first frame had already moved the card (22px off, at every
    size). Siantappo seed 42: you play 3♣ (it comes from your hand), player_3's J♠ from its seat;
    with reduced motion nothing moves."""
    browser.set_window_size(*size)
    with LiveServer() as server:
        deal(browser, server, "siantappo", 4, 42)
        browser.execute_script("localStorage.setItem('cardzoo.pace', '1500')")
        browser.get(browser.current_url.replace("?pace=0", ""))  # the bots' moves shown 1.5 s apart
        WebDriverWait(browser, WAIT).until(lambda d: settled(d) and body(d, "turn") == "you")
        slow_arrivals(browser)
        version = int(body(browser, "version"))
        select(browser, "3♣")
        browser.find_element(By.CSS_SELECTOR, "#moves button.move.exact").click()
        WebDriverWait(browser, WAIT).until(lambda d: int(body(d, "version")) == version + 1)
        [(x, y)] = browser.execute_script(TRAVEL_START)  # from its place in your hand, the lowest card's
        hand = browser.find_element(By.ID, "hand").rect
        first = browser.find_element(By.CSS_SELECTOR, "#hand .card").rect  # 3♦, beside where 3♣ was
        assert hand["x"] <= x <= first["x"] + 2 * first["width"] and hand["y"] <= y <= hand["y"] + hand["height"]
        WebDriverWait(browser, WAIT).until(lambda d: settled(d) and body(d, "turn") == "you")
        assert browser.find_element(By.ID, "log").text.splitlines()[-1].startswith("player_3: J♠")
        assert browser.execute_script(TRAVEL_START) == [
            browser.execute_script(SEAT_CENTRE, "#opponents .seat[data-seat='3']")
        ]
        browser.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}
        )
        assert browser.execute_script(TRAVEL_START) == [None]  # reduced motion: nothing moves
    no_console_errors(browser)
