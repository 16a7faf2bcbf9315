/// The console page's script: builds the form from `GET /v1/types` (Dates as date-time pickers writing
/// seconds since 2001-01-01, enums as selects, optionals omittable), previews every change through
/// `POST /v1/build` (the one builder) and lists `POST /v1/check` findings with their fixes; sends through
/// `POST /v1/send` / `POST /v1/enqueue` and shows `GET /v1/journal`. Plain ES2017, no libraries.
enum ConsoleScript {
    static let js = #"""
"use strict";
(function () {
  const APPLE_EPOCH = 978307200; // 2001-01-01T00:00:00Z in UNIX seconds
  const $ = (id) => document.getElementById(id);
  const state = { types: [], server: {}, seq: 0, timer: null, lastBuild: null, busy: false };
  const parts = {
    attributes: { fields: $("attributes-fields"), json: $("attributes-json"), controls: [] },
    "content-state": { fields: $("content-state-fields"), json: $("content-state-json"), controls: [] },
  };

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  async function api(method, path, body) {
    const init = { method, headers: {}, credentials: "same-origin" };
    if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
    const r = await fetch(path, init);
    let data = null;
    try { data = await r.json(); } catch (_) { data = null; }
    return { status: r.status, data };
  }

  // ---- dates -------------------------------------------------------------------------------------------
  function pad(n) { return String(n).padStart(2, "0"); }
  function localInputValue(unixSeconds) {
    const d = new Date(unixSeconds * 1000);
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + "T" + pad(d.getHours()) + ":" +
      pad(d.getMinutes()) + ":" + pad(d.getSeconds());
  }
  function unixFromInput(v) {
    if (!v) return null;
    const t = Date.parse(v);
    return isNaN(t) ? null : Math.round(t / 1000);
  }
  // A UNIX-seconds instant in a schema's date encoding, and back (null when the value is not one).
  function encodeDate(unixSeconds, encoding) {
    switch (encoding) {
      case "unix-seconds": return unixSeconds;
      case "unix-milliseconds": return unixSeconds * 1000;
      case "iso8601": return new Date(unixSeconds * 1000).toISOString().replace(".000Z", "Z");
      default: return unixSeconds - APPLE_EPOCH;   // reference-seconds: seconds since 2001-01-01
    }
  }
  function decodeDate(value, encoding) {
    if (encoding === "iso8601") { const t = typeof value === "string" ? Date.parse(value) : NaN; return isNaN(t) ? null : Math.round(t / 1000); }
    if (typeof value !== "number") return null;
    if (encoding === "unix-seconds") return value;
    if (encoding === "unix-milliseconds") return Math.round(value / 1000);
    return value + APPLE_EPOCH;
  }
  // The JSON key of a keyed enum case (CodingKeys may rename it).
  function caseKey(enumCase) { return enumCase.key !== undefined ? enumCase.key : enumCase.name; }

  // ---- form controls generated from a shape ----------------------------------------------------------
  // A control is { el, get() -> {present, value, error}, set(value) }.
  function defaultFor(shape) {
    switch (shape.kind) {
      case "string": return "";
      case "character": return "a";
      case "integer": return 0;
      case "number": return 0;
      case "bool": return false;
      case "date": return Math.round(Date.now() / 1000) - APPLE_EPOCH;
      case "custom-date": return encodeDate(Math.round(Date.now() / 1000), shape.encoding);
      case "url": return "https://example.com";
      case "uuid": return (crypto.randomUUID ? crypto.randomUUID() : "00000000-0000-4000-8000-000000000000").toUpperCase();
      case "data": return "";
      case "array": case "set": return [];
      case "dictionary": return {};
      case "optional": return undefined;
      case "object": {
        const o = {};
        for (const p of shape.properties) if (p.required) o[p.key] = defaultFor(p.shape);
        return o;
      }
      case "enum": {
        const c = shape.cases[0];
        if (!c) return null;
        if (c.rawValue !== undefined) return c.rawValue;
        return { [caseKey(c)]: {} };
      }
      default: return undefined;
    }
  }

  function inputControl(shape, onChange) {
    let input, get, set;
    switch (shape.kind) {
      case "string": case "character": case "url": case "uuid": case "data": {
        input = el("input", { type: "text", autocomplete: "off", spellcheck: "false",
          placeholder: shape.kind === "data" ? "base64" : shape.kind === "uuid" ? "8-4-4-4-12" : undefined });
        get = () => ({ present: true, value: input.value });
        set = (v) => { input.value = typeof v === "string" ? v : ""; };
        break;
      }
      case "integer": case "number": {
        input = el("input", { type: "number", step: shape.kind === "integer" ? "1" : "any",
          min: shape.kind === "integer" && shape.minimum !== undefined && shape.minimum > -1e15 ? shape.minimum : undefined });
        get = () => input.value === "" ? { present: false } : { present: true, value: Number(input.value) };
        set = (v) => { input.value = typeof v === "number" ? String(v) : ""; };
        break;
      }
      case "bool": {
        input = el("input", { type: "checkbox" });
        get = () => ({ present: true, value: input.checked });
        set = (v) => { input.checked = v === true; };
        break;
      }
      case "date": case "custom-date": {
        // "date": seconds since 2001-01-01 (Date's own Decodable); "custom-date": the app's own decoder, in the
        // encoding the schema names (unix-seconds, unix-milliseconds, reference-seconds, iso8601).
        const encoding = shape.kind === "date" ? "reference-seconds" : shape.encoding;
        const picker = el("input", { type: "datetime-local", step: "1", class: "date-picker" });
        const out = el("output");
        input = el("span", { class: "date" }, picker, out);
        const show = () => {
          const u = unixFromInput(picker.value);
          out.textContent = u === null ? "" : "= " + JSON.stringify(encodeDate(u, encoding)) + " (" + encoding + ")";
        };
        picker.addEventListener("input", show);
        get = () => {
          const u = unixFromInput(picker.value);
          return u === null ? { present: false } : { present: true, value: encodeDate(u, encoding) };
        };
        set = (v) => { const u = decodeDate(v, encoding); picker.value = u === null ? "" : localInputValue(u); show(); };
        break;
      }
      case "enum": {
        const keyed = shape.cases.length > 0 && shape.cases[0].rawValue === undefined;
        const simpleKeyed = keyed && shape.cases.every((c) => (c.associatedValues || []).length === 0);
        if (!keyed || simpleKeyed) {
          input = el("select");
          for (const c of shape.cases) {
            input.append(el("option", { value: keyed ? caseKey(c) : String(c.rawValue),
              text: keyed || String(c.rawValue) === c.name ? c.name : c.name + " (" + c.rawValue + ")" }));
          }
          const numeric = !keyed && shape.rawType !== "String";
          get = () => {
            if (keyed) return { present: true, value: { [input.value]: {} } };
            return { present: true, value: numeric ? Number(input.value) : input.value };
          };
          set = (v) => {
            if (keyed && v && typeof v === "object") { const k = Object.keys(v)[0]; if (k !== undefined) input.value = k; }
            else if (v !== undefined && v !== null) input.value = String(v);
          };
          break;
        }
      }
      // falls through: enums with associated values, collections and unresolved types are edited as JSON
      default: {
        input = el("textarea", { rows: "2", spellcheck: "false", class: "json-value" });
        get = () => {
          if (input.value.trim() === "") return { present: false };
          try { return { present: true, value: JSON.parse(input.value) }; }
          catch (e) { return { present: false, error: e.message }; }
        };
        set = (v) => { input.value = v === undefined ? "" : JSON.stringify(v); };
      }
    }
    const watched = input.tagName === "SPAN" ? input.querySelector("input") : input;
    watched.addEventListener("input", onChange);
    watched.addEventListener("change", onChange);
    return { el: input, get, set };
  }

  function propertyControl(prop, onChange, path) {
    let shape = prop.shape;
    const optional = shape.kind === "optional";
    if (optional) shape = shape.element;
    const id = "f-" + path.replace(/[^A-Za-z0-9_-]/g, "_");
    let inner;
    const wrap = el("div", { class: "field", "data-key": prop.key, "data-kind": shape.kind });
    let include = null;
    const head = el("div", { class: "field-head" },
      el("label", { for: id }, el("code", { text: prop.key })),
      el("span", { class: "type", text: prop.swiftType || shape.kind }));
    if (optional) {
      include = el("input", { type: "checkbox", class: "include-box", title: "include this optional key" });
      head.append(el("label", { class: "include" }, include, "include"));
      include.addEventListener("change", () => { wrap.classList.toggle("omitted", !include.checked); onChange(); });
    }
    if (shape.kind === "object") {
      const fs = el("fieldset", { class: "nested" }, el("legend", {}, el("code", { text: prop.key }), " ",
        el("small", { text: shape.swiftType || "" })));
      const kids = shape.properties.map((p) => {
        const c = propertyControl(p, onChange, path + "." + p.key);
        fs.append(c.el);
        return c;
      });
      inner = {
        get: () => {
          const o = {};
          for (const k of kids) { const r = k.get(); if (r.present) o[k.key] = r.value; }
          return { present: true, value: o };
        },
        set: (v) => { for (const k of kids) k.set(v && typeof v === "object" ? v[k.key] : undefined); },
      };
      if (optional) fs.querySelector("legend").append(" ", el("label", { class: "include" }, include, "include"));
      wrap.append(fs);
    } else {
      inner = inputControl(shape, onChange);
      const node = inner.el;
      if (node.tagName !== "SPAN") node.id = id; else node.querySelector("input").id = id;
      wrap.append(head, node);
    }
    return {
      key: prop.key, el: wrap,
      get: () => (include && !include.checked) ? { present: false } : inner.get(),
      set: (v) => {
        if (include) { include.checked = v !== undefined; wrap.classList.toggle("omitted", v === undefined); }
        inner.set(v === undefined ? (include ? undefined : defaultFor(shape)) : v);
      },
    };
  }

  function readJSON(text) {
    if (text.trim() === "") return {};
    try { const v = JSON.parse(text); return v && typeof v === "object" && !Array.isArray(v) ? v : null; }
    catch (_) { return null; }
  }

  function fieldsToJSON(name) {
    const part = parts[name];
    let obj = readJSON(part.json.value);
    if (obj === null) obj = {};
    for (const c of part.controls) {
      const r = c.get();
      if (r.present) obj[c.key] = r.value; else delete obj[c.key];
    }
    part.json.value = JSON.stringify(obj, null, 2);
  }

  function jsonToFields(name) {
    const part = parts[name];
    const obj = readJSON(part.json.value);
    if (obj === null) return;
    for (const c of part.controls) c.set(obj[c.key]);
  }

  function renderPart(name, shape) {
    const part = parts[name];
    part.fields.replaceChildren();
    part.controls = [];
    if (shape && shape.kind === "object") {
      for (const p of shape.properties) {
        const c = propertyControl(p, () => { fieldsToJSON(name); schedule(); }, name + "." + p.key);
        part.fields.append(c.el);
        part.controls.push(c);
      }
      const initial = defaultFor(shape);
      for (const c of part.controls) c.set(initial[c.key]);
      part.json.value = JSON.stringify(initial, null, 2);
      fieldsToJSON(name);
    } else {
      const why = shape && shape.kind === "unresolved" ? "not read from source (" + shape.reason + ")" : "no type given";
      part.fields.append(el("p", { class: "note", text: "Fields unavailable: " + why + ". Edit the JSON below." }));
      part.json.value = "{}";
    }
  }

  // ---- type and event ----------------------------------------------------------------------------------
  function currentType() { return state.types.find((t) => t.name === $("type").value) || null; }
  function currentEvent() { return document.querySelector("input[name=event]:checked").value; }

  function renderType() {
    const t = currentType();
    renderPart("attributes", t ? t.attributes : null);
    renderPart("content-state", t ? t["content-state"] : null);
    $("type-note").textContent = t ? "declared at " + t.location : "Start serve with --attributes PATH to get forms from your Swift types.";
    schedule();
  }

  function renderEvent() {
    const ev = currentEvent();
    $("attributes-section").classList.toggle("hidden", ev !== "start");
    for (const e of document.querySelectorAll(".start-only")) e.classList.toggle("hidden", ev !== "start");
    for (const e of document.querySelectorAll(".end-only")) e.classList.toggle("hidden", ev !== "end");
    for (const e of document.querySelectorAll(".not-start")) e.classList.toggle("hidden", ev === "start");
    $("alert-note").textContent = ev === "start" ? "required for start" : "optional: lights the screen";
    $("token-kind").textContent = ev === "start" ? "push-to-start token (hex)" : "the activity's update token (hex)";
    schedule();
  }

  // ---- build, preview, check ---------------------------------------------------------------------------
  function fields() {
    const ev = currentEvent();
    const f = { event: ev, contentState: parts["content-state"].json.value };
    if (ev === "start") {
      f.type = $("type").value || undefined;
      f.attributes = parts.attributes.json.value;
      if ($("request-update-token").checked) f.requestUpdateToken = true;
    }
    const title = $("alert-title").value, body = $("alert-body").value, sound = $("alert-sound").value;
    if (title || body) f.alert = { title, body, sound: sound || undefined };
    const stale = unixFromInput($("stale-date").value);
    if (stale !== null) f.staleDate = stale;
    if (ev === "end") { const d = unixFromInput($("dismissal-date").value); if (d !== null) f.dismissalDate = d; }
    if ($("relevance-score").value !== "") f.relevanceScore = Number($("relevance-score").value);
    f.priority = Number($("priority").value);
    const exp = unixFromInput($("expiration").value);
    if (exp !== null) f.expiration = exp;
    if ($("collapse-id").value) f.collapseID = $("collapse-id").value;
    if ($("apns-id").value.trim()) f.apnsID = $("apns-id").value.trim();
    if (ev !== "start" && $("channel-id").value.trim()) f.channelID = $("channel-id").value.trim();
    return f;
  }

  function schedule() {
    clearTimeout(state.timer);
    $("verdict").className = "verdict pending";
    $("verdict").textContent = "checking…";
    state.timer = setTimeout(update, 150);
  }

  async function update() {
    const seq = ++state.seq;
    const f = fields();
    const built = await api("POST", "/v1/build", f);
    if (seq !== state.seq) return;
    if (!built.data || built.data.error) {
      state.lastBuild = null;
      $("headers-preview").textContent = "";
      $("payload-preview").textContent = "";
      $("payload-size").textContent = "";
      showFindings(null, built.data && built.data.error ? built.data.error : { message: "HTTP " + built.status, code: "error" });
      refreshButtons();
      return;
    }
    if (!built.data.payload) {
      // A start without its parts: the builder answered with findings and no push to preview.
      state.lastBuild = null;
      $("headers-preview").textContent = "";
      $("payload-preview").textContent = "";
      $("payload-size").textContent = "";
      showFindings(built.data, null);
      refreshButtons();
      return;
    }
    state.lastBuild = built.data;
    $("headers-preview").textContent = JSON.stringify(built.data.headers, null, 2);
    $("payload-preview").textContent = JSON.stringify(built.data.payload, null, 2);
    $("payload-size").textContent = new TextEncoder().encode(built.data.body).length + " bytes";
    const checked = await api("POST", "/v1/check", { payload: built.data.payload, headers: built.data.headers });
    if (seq !== state.seq) return;
    if (checked.data && checked.data.error) showFindings(null, checked.data.error);
    else showFindings(checked.data, null);
    refreshButtons();
  }

  function showFindings(report, inputError) {
    const list = $("findings");
    list.replaceChildren();
    const v = $("verdict");
    if (inputError) {
      v.className = "verdict bad";
      v.textContent = "cannot build";
      list.append(el("li", { class: "error", "data-code": inputError.code || "error" },
        el("div", { class: "head" }, el("span", { class: "sev", text: "input" }),
          el("span", { class: "code-name", text: inputError.field || inputError.code || "" })),
        el("div", { class: "message", text: inputError.message || "" }),
        inputError.fix ? el("div", { class: "fix", text: inputError.fix }) : null));
      state.accept = false;
      return;
    }
    state.accept = report.accept;
    const errors = report.findings.filter((f) => f.severity === "error").length;
    const warnings = report.findings.filter((f) => f.severity === "warning").length;
    v.className = "verdict " + (report.accept ? "ok" : "bad");
    v.textContent = report.findings.length === 0 ? "0 findings" :
      (report.accept ? "accepted" : "rejected") + " — " + errors + " error" + (errors === 1 ? "" : "s") +
      ", " + warnings + " warning" + (warnings === 1 ? "" : "s");
    if (report.findings.length === 0) {
      list.append(el("li", { class: "none", text: "No findings: APNs and the device accept this push." }));
      return;
    }
    for (const f of report.findings) {
      const where = f.path + (f.line ? " · line " + f.line + ":" + f.column : "");
      list.append(el("li", { class: f.severity, "data-code": f.code },
        el("div", { class: "head" }, el("span", { class: "sev", text: f.severity }),
          el("span", { class: "code-name", text: f.code }), el("span", { class: "where", text: where })),
        el("div", { class: "message", text: f.message }),
        f.fix ? el("div", { class: "fix", text: f.fix }) : null));
    }
  }

  function refreshButtons() {
    const ok = !!state.lastBuild && state.accept === true && !state.busy;
    $("send").disabled = !ok || !state.server.canSend;
    $("enqueue").disabled = !ok || !state.server.canEnqueue;
    const notes = [];
    if (!state.server.canSend) notes.push("sending off (serve --auth-key …)");
    if (!state.server.canEnqueue) notes.push("queue off (serve --database …)");
    if (state.lastBuild && state.accept === false) notes.push("fix the errors to send");
    $("action-note").textContent = notes.join(" · ");
  }

  // ---- send, enqueue, journal --------------------------------------------------------------------------
  function showResult(kind, r) {
    const box = $("result");
    box.replaceChildren();
    const d = r.data || {};
    if (d.error && !d.findings) {
      box.className = "result bad";
      box.append(el("div", {}, el("span", { class: "status", text: "HTTP " + r.status }), " " + d.error.message),
        d.error.fix ? el("div", { class: "note", text: "fix: " + d.error.fix }) : null);
      return;
    }
    if (r.status === 422) {
      box.className = "result bad";
      box.append(el("div", { text: "Not " + (kind === "send" ? "sent" : "enqueued") + ": the push has error findings." }));
      showFindings({ accept: false, findings: d.findings }, null);
      return;
    }
    const good = kind === "send" ? (d.status >= 200 && d.status < 300) : r.status === 202;
    box.className = "result " + (good ? "ok" : "bad");
    const rows = [];
    if (kind === "send") {
      rows.push(["APNs status", String(d.status === null || d.status === undefined ? "no answer" : d.status)]);
      if (d.reason) rows.push(["reason", d.reason]);
      if (d.error) rows.push(["error", d.error]);
      rows.push(["apns-id", d.apnsID || "—"]);
      rows.push(["target", d.target]);
      if (d.device) rows.push(["device", d.device.outcome + (d.device.causes && d.device.causes.length ? " (" + d.device.causes.join(", ") + ")" : "")]);
      if (d.device && d.device.log) rows.push(["device log", d.device.log]);
      if (d.latencyMs !== null && d.latencyMs !== undefined) rows.push(["latency", d.latencyMs + " ms"]);
      box.append(el("div", {}, el("span", { class: "status", id: "result-status", text: String(d.status) }),
        " " + (good ? "accepted by APNs" : "not accepted")));
    } else {
      rows.push(["queued", String(d.enqueued)], ["row ids", (d.ids || []).join(", ")], ["environment", d.environment]);
      box.append(el("div", {}, el("span", { class: "status", id: "result-status", text: String(r.status) }), " enqueued"));
    }
    const dl = el("dl");
    for (const [k, v] of rows) {
      dl.append(el("dt", { text: k }), el("dd", { text: v, "data-field": k.replace(/[^a-z]+/g, "-") }));
    }
    box.append(dl);
  }

  async function act(kind) {
    if (state.busy) return;
    state.busy = true;
    refreshButtons();
    const f = fields();
    const token = $("device-token").value.trim();
    if (kind === "send") { if (token) f.deviceToken = token; }
    else if (token) f.deviceTokens = token.split(/[\s,]+/).filter(Boolean);
    try {
      const r = await api("POST", kind === "send" ? "/v1/send" : "/v1/enqueue", f);
      showResult(kind, r);
    } catch (e) {
      showResult(kind, { status: 0, data: { error: { message: String(e) } } });
    }
    state.busy = false;
    refreshButtons();
    loadJournal();
  }

  async function loadJournal() {
    const r = await api("GET", "/v1/journal?limit=50");
    const body = $("journal").querySelector("tbody");
    body.replaceChildren();
    const entries = (r.data && r.data.entries) || [];
    if (entries.length === 0) {
      body.append(el("tr", {}, el("td", { colspan: "9", class: "note", text: "No sends yet." })));
      return;
    }
    for (const e of entries) {
      const ok = e.status >= 200 && e.status < 300;
      body.append(el("tr", { "data-apns-id": e.apnsID || "" },
        el("td", { text: new Date(e.time).toLocaleTimeString() }),
        el("td", { text: e.action }), el("td", { text: e.event }),
        el("td", { class: "mono", text: e.target }),
        el("td", { class: e.status ? (ok ? "ok" : "bad") : "", text: e.status === null ? (e.error ? "failed" : "—") : String(e.status) }),
        el("td", { text: e.reason || (e.error || "") }),
        el("td", { class: "mono", text: e.apnsID || "" }),
        el("td", { class: "device", text: e.device ? e.device.outcome : "" }),
        el("td", { text: e.latencyMs === null || e.latencyMs === undefined ? "" : String(e.latencyMs) })));
    }
  }

  function renderServer() {
    const s = state.server;
    const items = [["bundle", s.bundleID], ["APNs", s.environment + (s.sendsTo ? " (" + s.sendsTo + ")" : "")],
      ["send", s.canSend ? "on" : "off"], ["queue", s.canEnqueue ? "on" : "off"]];
    const dl = $("server");
    dl.replaceChildren();
    for (const [k, v] of items) dl.append(el("div", {}, el("dt", { text: k }), el("dd", { text: v, class: v === "off" ? "off" : "" })));
  }

  async function load() {
    const r = await api("GET", "/v1/types");
    if (!r.data || r.data.error) {
      showFindings(null, r.data && r.data.error ? r.data.error : { message: "cannot load /v1/types (HTTP " + r.status + ")" });
      return;
    }
    state.types = r.data.types || [];
    state.server = r.data.server || {};
    renderServer();
    const select = $("type");
    select.replaceChildren();
    for (const t of state.types) select.append(el("option", { value: t.name, text: t.name }));
    if (state.types.length === 0) select.append(el("option", { value: "", text: "(no --attributes given)" }));
    select.addEventListener("change", renderType);
    for (const radio of document.querySelectorAll("input[name=event]")) radio.addEventListener("change", renderEvent);
    for (const name of Object.keys(parts)) {
      parts[name].json.addEventListener("input", () => { jsonToFields(name); schedule(); });
    }
    for (const id of ["alert-title", "alert-body", "alert-sound", "stale-date", "dismissal-date", "relevance-score",
      "priority", "expiration", "collapse-id", "apns-id", "request-update-token", "channel-id"]) {
      $(id).addEventListener("input", schedule);
      $(id).addEventListener("change", schedule);
    }
    $("send").addEventListener("click", () => act("send"));
    $("enqueue").addEventListener("click", () => act("enqueue"));
    $("journal-refresh").addEventListener("click", loadJournal);
    renderType();
    renderEvent();
    loadJournal();
    document.body.dataset.ready = "true";
  }

  window.activityPushConsole = { update, fields, state };
  load();
})();
"""#
}
