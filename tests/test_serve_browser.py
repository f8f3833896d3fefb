"""`cardzoo serve` in a real browser: headless Chromium (Debian's chromium + chromium-driver,
driven by Selenium; nothing is downloaded) loads the page, plays a whole Siantappo match by
clicking cards and move buttons, opens its replay, and saves screenshots."""

from __future__ import annotations

import os
import shutil

import pytest

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[dev]')")
pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e '.[web]')")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

from tests.serve_helpers import LiveServer  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage"]
WAIT = 60  # seconds any one step may take on a busy 2-core machine

if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
    pytest.skip(f"no Chromium: {CHROMIUM} and {CHROMEDRIVER} are needed "
                "(apt-get install chromium chromium-driver)", allow_module_level=True)


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


def test_a_whole_siantappo_match_by_clicking(browser, tmp_path):
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with LiveServer() as server:
        browser.get(server.url + "/?pace=0")
        WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
        Select(browser.find_element(By.ID, "game")).select_by_value("siantappo")
        Select(browser.find_element(By.ID, "players")).select_by_value("4")
        seats = [Select(s).first_selected_option.text for s in browser.find_elements(By.CSS_SELECTOR, "#seats select")]
        assert seats == ["human", "rules", "rules", "rules"]
        browser.find_element(By.CSS_SELECTOR, "#new-game details summary").click()
        rounds = browser.find_element(By.NAME, "opt-rounds")
        rounds.clear()
        rounds.send_keys("1")
        browser.find_element(By.ID, "seed").send_keys("7")
        browser.save_screenshot(str(shots / "1-lobby.png"))
        browser.find_element(By.ID, "deal").click()

        moves = 0
        while True:
            WebDriverWait(browser, WAIT).until(
                lambda d: settled(d) and (body(d, "turn") in ("you", "over") or overlay_open(d)))
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
        WebDriverWait(browser, WAIT).until(lambda d: body(d, "mode") == "replay" and d.find_element(By.ID, "replay-pos").text)
        total = int(browser.find_element(By.ID, "replay-pos").text.split("/")[1])
        for _ in range(3):
            browser.find_element(By.CSS_SELECTOR, "#replay-bar button[data-step=next]").click()
        WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.ID, "replay-pos").text == f"3 / {total}")
        assert len(browser.find_elements(By.CSS_SELECTOR, "#log li")) == 3
        assert len(browser.find_elements(By.CSS_SELECTOR, "#hand .card")) > 0
        browser.save_screenshot(str(shots / "6-replay.png"))

    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
    assert len(list(shots.glob("*.png"))) == 6
