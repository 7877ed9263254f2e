#!/usr/bin/env python3
"""A bridge from reel's Swift tests to headless Chromium (selenium): one JSON command per
line on standard input, one JSON answer per line on standard output. The tests read the
browser viewer through its own test hook (window.reelViewer) and decide everything else
themselves (waits, proxies, the session's truth).

Commands:
  {"cmd": "open", "page": P, "url": U}        a new browser (its own cookies) at U
  {"cmd": "state", "page": P}                 window.reelViewer.state(), or null
  {"cmd": "run", "page": P, "script": S, "args": [...]}   execute_script, its result
  {"cmd": "keys", "page": P, "text": T}       typed into the page's keyboard; "\\n" is Enter
  {"cmd": "cdp", "page": P, "method": M, "params": {...}}  a DevTools command (real input events:
                                              Input.dispatchMouseEvent, Input.imeSetComposition…)
  {"cmd": "alert", "page": P, "accept": B}    answers the open dialog (waits up to 10 s); its text
  {"cmd": "click", "page": P, "id": I}        clicks the element with that id
  {"cmd": "screenshot", "page": P, "path": F} a PNG
  {"cmd": "close", "page": P} / {"cmd": "quit"}
Answers: {"ok": true, "result": ...} or {"ok": false, "error": "..."}.
"""
import json
import sys
import traceback

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.keys import Keys

pages = {}
QUIT = object()


def browser():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=900,640"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    # The page's test hook (window.reelViewer) is there only when asked for, before its scripts.
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "window.reelTestHook = true;"})
    return driver


def handle(command):
    name = command.get("cmd")
    if name == "quit":
        return QUIT
    if name == "open":
        driver = pages.get(command["page"]) or browser()
        pages[command["page"]] = driver
        driver.get(command["url"])
        return True
    driver = pages[command["page"]]
    if name == "state":
        return driver.execute_script("return window.reelViewer ? window.reelViewer.state() : null")
    if name == "run":
        return driver.execute_script(command["script"], *command.get("args", []))
    if name == "keys":
        screen = driver.find_element("id", "keyboard")
        screen.send_keys(command["text"].replace("\n", Keys.ENTER))
        return True
    if name == "cdp":
        return driver.execute_cdp_cmd(command["method"], command.get("params", {}))
    if name == "alert":
        from selenium.webdriver.support.ui import WebDriverWait
        from selenium.webdriver.support import expected_conditions
        alert = WebDriverWait(driver, 10).until(expected_conditions.alert_is_present())
        text = alert.text
        if command.get("accept"):
            alert.accept()
        else:
            alert.dismiss()
        return text
    if name == "click":
        driver.find_element("id", command["id"]).click()
        return True
    if name == "screenshot":
        return driver.save_screenshot(command["path"])
    if name == "close":
        pages.pop(command["page"]).quit()
        return True
    raise ValueError("unknown command %r" % name)


def main():
    try:
        for line in sys.stdin:
            command = json.loads(line)
            try:
                result = handle(command)
                if result is QUIT:
                    break
                answer = {"ok": True, "result": result}
            except Exception as error:  # the test reads the reason
                answer = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
            print(json.dumps(answer), flush=True)
    finally:
        for driver in pages.values():
            try:
                driver.quit()
            except Exception:
                traceback.print_exc()


if __name__ == "__main__":
    main()
