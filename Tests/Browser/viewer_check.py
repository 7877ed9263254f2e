#!/usr/bin/env python3
"""Drives reel's browser viewer in headless Chromium through its test hook
(window.reelViewer), for BrowserViewerTests.swift. Prints one JSON object per step to
stdout; exits non-zero (with the reason on stderr) when a step fails.

usage: viewer_check.py BASE_URL TOKEN SESSION SCREENSHOT_DIR
"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.keys import Keys


def main():
    base, token, session, shots = sys.argv[1:5]
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=900,640"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        run(driver, base, token, session, shots)
    finally:
        driver.quit()


def state(driver):
    return driver.execute_script("return window.reelViewer ? window.reelViewer.state() : null")


def wait(driver, what, check, timeout=20):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = state(driver)
        if last is not None and check(last):
            return last
        time.sleep(0.05)
    sys.stderr.write("timed out waiting for %s; the page's state: %s\n" % (what, json.dumps(last)))
    sys.exit(1)


def step(name, **fields):
    fields["step"] = name
    print(json.dumps(fields), flush=True)


def run(driver, base, token, session, shots):
    driver.get(base + "/login#" + token)
    s = wait(driver, "the session list", lambda s: session in s["available"])
    step("listed", available=s["available"], url=driver.current_url)

    driver.execute_script("window.reelViewer.attach(arguments[0])", session)
    s = wait(driver, "the attached screen", lambda s: s["connection"].startswith("connected") and s["rows"])
    screen = driver.find_element("id", "screen")
    screen.send_keys("echo hello-from-the-browser" + Keys.ENTER)
    s = wait(driver, "the echo", lambda s: sum(r["text"] == "hello-from-the-browser" for r in s["rows"]) >= 1)
    driver.save_screenshot(shots + "/viewer-bash.png")
    step("typed", rows=s["rows"], cursor=s["cursor"], screenshot=shots + "/viewer-bash.png")

    # Hostile output is text: markup printed by a program never becomes elements or runs.
    screen.send_keys("printf '<img src=x onerror=window.pwned=1><b>bold</b>\\n'" + Keys.ENTER)
    s = wait(driver, "the markup as text", lambda s: any(r["text"] == "<img src=x onerror=window.pwned=1><b>bold</b>" for r in s["rows"]))
    elements = driver.execute_script("return document.querySelectorAll('#screen img, #screen b, #screen script').length")
    pwned = driver.execute_script("return window.pwned === 1")
    step("hostile", images=elements, pwned=pwned, rows=s["rows"])


if __name__ == "__main__":
    main()
