/// The activities page's script: lists `GET /v1/activities?state=` and, on `/activities/{id}`, shows
/// `GET /v1/activities/{id}` as a timeline (devices, pushes with APNs status and device outcome, journal).
/// Times in the API are UNIX seconds. Plain ES2017, no libraries.
enum ActivitiesScript {
    static let js = #"""
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  async function api(path) {
    const response = await fetch(path, { credentials: "same-origin" });
    let data = null;
    try { data = await response.json(); } catch (_) { data = null; }
    return { status: response.status, data };
  }

  function time(unixSeconds) {
    if (unixSeconds === null || unixSeconds === undefined) return "";
    return new Date(unixSeconds * 1000).toLocaleString();
  }

  function why(result, what) {
    const error = result.data && result.data.error;
    if (result.status === 404 && !error) return what + ": this server has no activities API";
    return what + ": " + (error ? error.message + (error.fix ? " — " + error.fix : "") : "HTTP " + result.status);
  }

  function stateCell(state) { return el("td", { class: "state " + state, text: state }); }

  function empty(body, columns, text) {
    body.replaceChildren(el("tr", {}, el("td", { colspan: String(columns), class: "note", text })));
  }

  async function loadList() {
    const filter = $("state-filter").value;
    const result = await api("/v1/activities" + (filter ? "?state=" + encodeURIComponent(filter) : ""));
    const body = $("activities").querySelector("tbody");
    $("activities-note").textContent = "";
    if (result.status !== 200 || !result.data) {
      $("activities-note").textContent = why(result, "cannot list activities");
      empty(body, 7, "—");
      return;
    }
    const activities = result.data.activities || [];
    if (activities.length === 0) { empty(body, 7, "No activities" + (filter ? " in state " + filter : "") + "."); return; }
    body.replaceChildren();
    for (const activity of activities) {
      const link = el("a", { href: "/activities/" + encodeURIComponent(activity.activityID), text: activity.activityID });
      body.append(el("tr", { "data-activity-id": activity.activityID },
        el("td", { class: "mono" }, link), el("td", { text: activity.type }), stateCell(activity.state),
        el("td", { text: String(activity.deviceCount ?? 0) }),
        el("td", { text: String(activity.pushCount ?? 0) }),
        el("td", { text: time(activity.createdAt) }),
        el("td", { text: activity.endedAt ? time(activity.endedAt) + (activity.endReason ? " (" + activity.endReason + ")" : "") : "" })));
    }
  }

  async function loadTimeline(activityID) {
    $("timeline-section").classList.remove("hidden");
    $("timeline-id").textContent = activityID;
    const result = await api("/v1/activities/" + encodeURIComponent(activityID));
    const devices = $("timeline-devices").querySelector("tbody");
    const pushes = $("timeline-pushes").querySelector("tbody");
    const journal = $("timeline-journal").querySelector("tbody");
    const facts = $("timeline-facts");
    if (result.status !== 200 || !result.data) {
      $("timeline-state").textContent = "";
      facts.replaceChildren(el("div", {}, el("dt", { text: "error" }), el("dd", { text: why(result, "cannot read the activity") })));
      for (const body of [devices, pushes, journal]) empty(body, 11, "—");
      return;
    }
    const activity = result.data;
    $("timeline-state").textContent = activity.state;
    $("timeline-state").className = "state " + activity.state;
    const items = [["type", activity.type], ["environment", activity.environment], ["created", time(activity.createdAt)],
      ["ended", activity.endedAt ? time(activity.endedAt) : "—"], ["end reason", activity.endReason || "—"],
      ["last aps.timestamp", String(activity.lastTimestamp)],
      ["missing tokens", (activity.missingTokens || []).join(", ") || "none"]];
    facts.replaceChildren(...items.map(([key, value]) => el("div", {}, el("dt", { text: key }), el("dd", { text: value }))));

    devices.replaceChildren();
    for (const device of activity.devices || []) {
      devices.append(el("tr", { "data-device-id": device.deviceID },
        el("td", { class: "mono", text: device.deviceID }), stateCell(device.state),
        el("td", { class: "mono", text: device.pushToStartToken || "" }), el("td", { class: "mono", text: device.updateToken || "" }),
        el("td", { text: device.held || "" }), el("td", { text: device.tokenRetired || "" })));
    }
    if (!(activity.devices || []).length) empty(devices, 6, "No devices (a broadcast activity).");

    pushes.replaceChildren();
    for (const push of activity.pushes || []) {
      const answered = push.status !== null && push.status !== undefined;
      const ok = answered && push.status >= 200 && push.status < 300;
      pushes.append(el("tr", { "data-apns-id": push.apnsID, "data-event": push.event },
        el("td", { text: time(push.notBefore) }), el("td", { text: push.event }),
        el("td", { class: "mono", text: push.deviceID || "broadcast" }), el("td", { class: "mono", text: push.target }),
        el("td", { text: String(push.priority) }), el("td", { text: push.budget || "" }),
        el("td", { text: push.queueState }),
        el("td", { class: answered ? (ok ? "ok" : "bad") : "", text: answered ? String(push.status) : "—" }),
        el("td", { text: push.reason || "" }), el("td", { class: "device", text: push.deviceOutcome || "" }),
        el("td", { class: "mono", text: push.apnsID })));
    }
    if (!(activity.pushes || []).length) empty(pushes, 11, "Nothing queued yet.");

    journal.replaceChildren();
    for (const note of activity.journal || []) {
      journal.append(el("tr", {}, el("td", { text: time(note.at) }), el("td", { class: "mono", text: note.deviceID || "" }),
        el("td", { text: note.note })));
    }
    if (!(activity.journal || []).length) empty(journal, 3, "No notes.");
  }

  function start() {
    const prefix = "/activities/";
    const path = window.location.pathname;
    const activityID = path.startsWith(prefix) && path.length > prefix.length ? decodeURIComponent(path.slice(prefix.length)) : null;
    $("state-filter").addEventListener("change", loadList);
    $("activities-refresh").addEventListener("click", loadList);
    const loads = [loadList()];
    if (activityID) {
      $("timeline-refresh").addEventListener("click", () => loadTimeline(activityID));
      loads.push(loadTimeline(activityID));
    }
    Promise.all(loads).then(() => { document.body.dataset.ready = "true"; });
  }

  window.activityPushActivities = { loadList, loadTimeline };
  start();
})();
"""#
}
