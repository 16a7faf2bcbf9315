#!/usr/bin/env python3
"""Browser test of `activity-push serve`: headless Chromium fills the generated form for a push-to-start,
sees zero findings, sends it through the APNs client to `mock-apns --h2c` and sees 200 and the mock device's
`started`; then types an alert-like key into the attributes JSON and sees `unknown-attribute-key` with its fix.
Then one Live Activity through the lifecycle API and a worker: the activities page lists it with its state and
its timeline shows each device, the start push with APNs 200 and the mock device's `started`.
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
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import CDP  # noqa: E402

APPLE_EPOCH = 978307200
TEAM_ID = "TEAM123456"
KEY_ID = "CONSOLE001"
TOKEN = "a1b2c3d4" * 12  # 96 hex digits: a push-to-start token
ACTIVITY_TOKEN = "0f1e2d3c" * 12  # the activity device's push-to-start token
UPDATE_TOKEN = "9a8b7c6d" * 8  # the update token the app reports once the activity runs


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

        self.key, self.mock_url = key, mock_url
        self.database = os.path.join(self.tmp, "queue.sqlite")
        serve = self.start([a.cli, "serve", "--port", "0", "--attributes", a.attributes, "--bundle-id", "com.example.pizza",
                            "--auth-key", key, "--team-id", TEAM_ID, "--url", mock_url, "--database", self.database])
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

        self.activities(console_url)

        # Clean shutdown on SIGTERM.
        serve.send_signal(signal.SIGTERM)
        try:
            code = serve.wait(timeout=15)
        except subprocess.TimeoutExpired:
            code = None
        self.ok(code == 0, f"serve stops cleanly on SIGTERM (exit {code})")

    def activities(self, console_url):
        """One activity on two devices (one without a token) through the lifecycle API; a worker sends the start
        to the mock; the app reports the update token; the pages show the list and the timeline."""
        a, cdp = self.args, self.cdp

        def api(method, path, body=None):
            data = None if body is None else json.dumps(body).encode()
            request = urllib.request.Request(console_url + path, data=data, method=method,
                                             headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=15) as response:
                    return response.status, json.loads(response.read() or b"null")
            except urllib.error.HTTPError as error:
                return error.code, json.loads(error.read() or b"null")

        status, _ = api("POST", "/v1/tokens", {"kind": "push-to-start", "deviceID": "ipad-1",
                                               "attributesType": "PizzaDeliveryAttributes", "token": ACTIVITY_TOKEN})
        self.ok(status in (200, 202), f"POST /v1/tokens takes the push-to-start token ({status})")
        placed = int(time.time()) - APPLE_EPOCH
        status, started = api("POST", "/v1/activities", {
            "activityID": "order-1042", "type": "PizzaDeliveryAttributes",
            "attributes": {"orderNumber": "A-1042", "restaurantName": "Luigi's", "itemCount": 3, "placedAt": placed},
            "contentState": {"status": "In the oven", "vehicle": "cargo-bike", "etaMinutes": 25, "expectedAt": placed + 1500},
            "alert": {"title": "Order placed", "body": "Luigi's is making your pizza"},
            "deviceIDs": ["ipad-1", "phone-2"]})
        self.ok(status == 202, f"POST /v1/activities starts order-1042 ({status}: {json.dumps(started)[:300]})")
        worker = subprocess.run([a.cli, "worker", "--database", self.database, "--url", self.mock_url, "--auth-key", self.key,
                                 "--team-id", TEAM_ID, "--drain"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.ok(worker.returncode == 0, f"worker --drain sends the start (exit {worker.returncode}: {worker.stderr.decode()[-300:]})")
        status, _ = api("POST", "/v1/tokens", {"kind": "update", "deviceID": "ipad-1", "activityID": "order-1042",
                                               "token": UPDATE_TOKEN})
        self.ok(status in (200, 202), f"the app's update token is taken ({status})")

        cdp.call("Page.navigate", url=console_url + "/activities")
        cdp.wait_for("document.body && document.body.dataset.ready === 'true'", what="the activities page to load")
        row = cdp.wait_for("(() => { const r = document.querySelector('#activities tr[data-activity-id=\"order-1042\"]'); "
                           "return r ? [...r.children].map(c => c.textContent) : null; })()", what="the activity's row")
        self.ok(row[2] == "active" and row[3] == "2", f"the list shows order-1042 active on 2 devices ({row})")
        self.click("#activities tr[data-activity-id=\"order-1042\"] a")
        cdp.wait_for("location.pathname === '/activities/order-1042' && !!document.body && document.body.dataset.ready === 'true'",
                     what="the timeline page")
        devices = cdp.wait_for("(() => { const rows = [...document.querySelectorAll('#timeline-devices tr[data-device-id]')]; "
                               "return rows.length === 2 ? Object.fromEntries(rows.map(r => [r.dataset.deviceId, "
                               "[...r.children].map(c => c.textContent)])) : null; })()", what="both devices")
        self.ok(devices["ipad-1"][1] == "started" and devices["phone-2"][1] == "no-token",
                f"the timeline shows ipad-1 started and phone-2 without a token ({devices})")
        self.ok(ACTIVITY_TOKEN not in cdp.evaluate("document.body.innerText")
                and devices["ipad-1"][2].startswith(ACTIVITY_TOKEN[:4]), "tokens are shown redacted")
        push = cdp.wait_for("(() => { const r = document.querySelector('#timeline-pushes tr[data-event=start]'); "
                            "return r ? [...r.children].map(c => c.textContent) : null; })()", what="the start push")
        self.ok(push[1] == "start" and push[2] == "ipad-1" and push[6] == "sent" and push[7] == "200",
                f"the start push went to ipad-1: sent, APNs 200 ({push})")
        self.ok(push[9] == "started", f"the mock device started the activity ({push[9]})")
        self.ok(cdp.evaluate("document.getElementById('timeline-state').textContent") == "active", "the activity is active")
        self.screenshot("screenshot-activity.png")

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
