#!/usr/bin/env python3
"""Browser test of `activity-push serve`: headless Chromium fills the generated form for a push-to-start,
sees zero findings, sends it through the APNs client to `mock-apns --h2c` and sees 200 and the mock device's
`started`; then types an alert-like key into the attributes JSON and sees `unknown-attribute-key` with its fix.
Screenshots go to --out. Standard library only (the DevTools client is in cdp.py)."""
import argparse
import calendar
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import CDP  # noqa: E402

APPLE_EPOCH = 978307200
TEAM_ID = "TEAM123456"
KEY_ID = "CONSOLE001"
TOKEN = "a1b2c3d4" * 12  # 96 hex digits: a push-to-start token


def first_line(proc, timeout=20, prefix=None, stream="stdout"):
    """The first line of the process's stdout (or stderr) that starts with prefix."""
    f = getattr(proc, stream)
    deadline = time.time() + timeout
    buf = b""
    while time.time() < deadline:
        if proc.poll() is not None:
            rest = f.read() or b""
            raise RuntimeError(f"process exited ({proc.returncode}): {(buf + rest).decode(errors='replace')[-2000:]}")
        r, _, _ = select.select([f], [], [], 0.2)
        if not r:
            continue
        chunk = os.read(f.fileno(), 4096)
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            text = line.decode(errors="replace").strip()
            if prefix is None or text.startswith(prefix) or prefix in text:
                return text
    raise RuntimeError(f"no line {prefix!r} within {timeout}s")


class Test:
    def __init__(self, args):
        self.args = args
        self.procs = []
        self.tmp = tempfile.mkdtemp(prefix="console-test-")
        self.checks = 0

    def ok(self, cond, what):
        self.checks += 1
        if not cond:
            raise AssertionError(what)
        print(f"  ok  {what}")

    def start(self, argv, **kw):
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
        self.procs.append(p)
        return p

    def run(self):
        a = self.args
        key = os.path.join(self.tmp, f"AuthKey_{KEY_ID}.p8")
        subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        mock = self.start([a.cli, "mock-apns", "--h2c", "--port", "0", "--attributes", a.attributes,
                           "--auth-key", key, "--team-id", TEAM_ID, "--quiet"])
        mock_url = first_line(mock, prefix="mock-apns listening on").split()[-1]
        print(f"mock-apns: {mock_url}")

        serve = self.start([a.cli, "serve", "--port", "0", "--attributes", a.attributes, "--bundle-id", "com.example.pizza",
                            "--auth-key", key, "--team-id", TEAM_ID, "--url", mock_url])
        console_url = first_line(serve, prefix="http://")
        self.serve = serve
        print(f"console:   {console_url}")

        profile = os.path.join(self.tmp, "profile")
        chrome = self.start([a.chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                             "--remote-debugging-port=0", f"--user-data-dir={profile}", "--window-size=1440,1000",
                             "about:blank"], env=dict(os.environ, TZ="UTC"))
        ws_browser = first_line(chrome, timeout=60, prefix="DevTools listening on", stream="stderr").split()[-1]
        port = ws_browser.split(":")[2].split("/")[0]
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
        page = next(t for t in targets if t.get("type") == "page")
        cdp = CDP(page["webSocketDebuggerUrl"])
        self.cdp = cdp
        cdp.call("Page.enable")
        cdp.call("Runtime.enable")
        cdp.call("Emulation.setDeviceMetricsOverride", width=1440, height=1000, deviceScaleFactor=1, mobile=False)
        cdp.call("Page.navigate", url=console_url + "/")
        cdp.wait_for("document.body && document.body.dataset.ready === 'true'", what="the page to load its types")
        self.ok(cdp.evaluate("document.getElementById('type').value") == "PizzaDeliveryAttributes",
                "type picker lists PizzaDeliveryAttributes from the Swift source")
        kinds = cdp.evaluate("Object.fromEntries([...document.querySelectorAll('#content-state-fields > .field')]"
                             ".map(f => [f.dataset.key, f.querySelector('select, input, textarea').type]))")
        self.ok(kinds.get("vehicle") == "select-one", f"enum field is a select ({kinds})")
        self.ok(kinds.get("expectedAt") == "datetime-local", "Date field is a date-time picker")
        self.ok(cdp.evaluate("!!document.querySelector('#content-state-fields [data-key=note] .include-box')"),
                "optional field can be omitted")

        # Fill the form for a start, as a person would.
        self.type_into("#f-attributes_orderNumber", "A-1042")
        self.type_into("#f-attributes_restaurantName", "Luigi's")
        self.type_into("#f-attributes_itemCount", "3")
        self.set_date("#f-attributes_placedAt", "2026-01-02T03:04:05")
        self.type_into("#f-content-state_status", "In the oven")
        self.select("#f-content-state_vehicle", "cargo-bike")
        self.type_into("#f-content-state_etaMinutes", "25")
        future = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() + 1800))
        self.set_date("#f-content-state_expectedAt", future)
        self.type_into("#alert-title", "Order placed")
        self.type_into("#alert-body", "Luigi's is making your pizza")
        self.type_into("#device-token", TOKEN)

        attrs = json.loads(cdp.evaluate("document.getElementById('attributes-json').value"))
        expected_placed = calendar.timegm(time.strptime("2026-01-02T03:04:05", "%Y-%m-%dT%H:%M:%S")) - APPLE_EPOCH
        self.ok(attrs.get("placedAt") == expected_placed,
                f"date picker writes seconds since 2001-01-01 ({attrs.get('placedAt')} == {expected_placed})")
        state = json.loads(cdp.evaluate("document.getElementById('content-state-json').value"))
        self.ok(state.get("vehicle") == "cargo-bike" and "note" not in state, "enum raw value written; omitted optional absent")

        cdp.wait_for("document.getElementById('verdict').textContent === '0 findings'", what="zero findings")
        self.ok(cdp.evaluate("document.querySelectorAll('#findings li.none').length") == 1, "zero findings for the start")
        payload = json.loads(cdp.evaluate("document.getElementById('payload-preview').textContent"))
        self.ok(payload["aps"]["event"] == "start" and payload["aps"]["attributes-type"] == "PizzaDeliveryAttributes",
                "payload preview shows the builder's start")
        headers = json.loads(cdp.evaluate("document.getElementById('headers-preview').textContent"))
        self.ok(headers.get("apns-topic") == "com.example.pizza.push-type.liveactivity", "headers preview shows apns-topic")

        cdp.wait_for("!document.getElementById('send').disabled", what="the send button to enable")
        self.click("#send")
        cdp.wait_for("(document.getElementById('result-status') || {}).textContent === '200'", timeout=20,
                     what="APNs 200 in the result")
        device = cdp.wait_for("(document.querySelector('#result dd[data-field=device]') || {}).textContent",
                              what="the device outcome")
        self.ok(device.startswith("started"), f"mock device outcome is started ({device})")
        apns_id = cdp.evaluate("document.querySelector('#result dd[data-field=apns-id]').textContent")
        row = cdp.wait_for("(() => { const r = document.querySelector('#journal tbody tr[data-apns-id]'); "
                           "return r && r.dataset.apnsId ? [r.dataset.apnsId, r.querySelector('td.device').textContent, "
                           "r.children[4].textContent, r.children[3].textContent] : null; })()", what="the journal row")
        self.ok(row[0] == apns_id and row[1] == "started" and row[2] == "200",
                f"journal shows apns-id {apns_id}, 200, started")
        self.ok(TOKEN not in cdp.evaluate("document.body.innerText"), "the page never shows the full device token")
        self.ok(row[3].startswith(TOKEN[:4]) and row[3].endswith(TOKEN[-4:]), f"journal token redacted ({row[3]})")
        self.screenshot("screenshot-sent.png")

        # An alert-like key typed into the attributes JSON.
        cdp.evaluate("(() => { const t = document.getElementById('attributes-json'); t.focus(); "
                     "t.setSelectionRange(1, 1); })()")
        cdp.call("Input.insertText", text='\n  "alertTitle": "Your pizza is on its way",')
        finding = cdp.wait_for("(() => { const li = document.querySelector('#findings li[data-code=\"unknown-attribute-key\"]');"
                               " return li ? [li.querySelector('.where').textContent, (li.querySelector('.fix') || {}).textContent] : null; })()",
                               what="the unknown-attribute-key finding")
        self.ok("aps.attributes.alertTitle" in finding[0], f"finding points at aps.attributes.alertTitle ({finding[0]})")
        self.ok(bool(finding[1]) and len(finding[1]) > 10, f"finding shows its fix: {finding[1]}")
        self.ok(cdp.evaluate("document.getElementById('send').disabled"), "send is disabled while errors remain")
        self.screenshot("screenshot.png")

        # Clean shutdown on SIGTERM.
        serve.send_signal(signal.SIGTERM)
        try:
            code = serve.wait(timeout=15)
        except subprocess.TimeoutExpired:
            code = None
        self.ok(code == 0, f"serve stops cleanly on SIGTERM (exit {code})")

    # ---- helpers -------------------------------------------------------------------------------------------
    def focus(self, selector, clear=True):
        reset = "e.value = '';" if clear else ""
        js = (f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return false; "
              f"e.scrollIntoView({{block: 'center'}}); e.focus(); {reset} return true; }})()")
        if not self.cdp.evaluate(js):
            raise AssertionError(f"no element {selector}")

    def type_into(self, selector, text):
        self.focus(selector)
        self.cdp.call("Input.insertText", text=text)

    def set_date(self, selector, value):
        self.focus(selector, clear=False)
        self.cdp.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.value = {json.dumps(value)};"
                          " e.dispatchEvent(new Event('input', {bubbles: true})); })()")

    def select(self, selector, value):
        self.cdp.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.value = {json.dumps(value)};"
                          " e.dispatchEvent(new Event('change', {bubbles: true})); })()")

    def click(self, selector):
        box = self.cdp.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
                                "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
                                "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.cdp.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def screenshot(self, name):
        self.cdp.evaluate("window.scrollTo(0, 0)")
        metrics = self.cdp.call("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        shot = self.cdp.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                             clip={"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1})
        import base64
        path = os.path.join(self.args.out, name)
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        print(f"  screenshot: {path}")

    def cleanup(self):
        try:
            self.cdp.call("Browser.close")
        except Exception:
            pass
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(self.tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--attributes", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    t = Test(args)
    start = time.time()
    try:
        t.run()
    except Exception as e:  # noqa: BLE001
        print(f"console browser test: FAIL: {e}", file=sys.stderr)
        try:
            t.screenshot("failure.png")
        except Exception:
            pass
        return 1
    finally:
        t.cleanup()
    print(f"console browser test: PASS ({t.checks} checks, {time.time() - start:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
