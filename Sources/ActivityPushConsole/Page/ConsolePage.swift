/// The console page's HTML: static markup; ``ConsoleScript`` fills it from `GET /v1/types` and keeps the
/// preview and findings current through `POST /v1/build` and `POST /v1/check`. No external resources.
enum ConsolePage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ActivityPush console</title>
<link rel="stylesheet" href="/console.css">
</head>
<body>
<header>
  <h1>ActivityPush <span>console</span></h1>
  <nav><a href="/">compose</a> · <a href="/activities">activities</a></nav>
  <dl id="server"></dl>
</header>
<main>
  <section id="compose" class="panel" aria-label="Compose a push">
    <div class="row">
      <label class="grow">ActivityAttributes type
        <select id="type"></select>
      </label>
      <fieldset id="event-choice" class="segmented">
        <legend>Event</legend>
        <label><input type="radio" name="event" value="start" checked> start</label>
        <label><input type="radio" name="event" value="update"> update</label>
        <label><input type="radio" name="event" value="end"> end</label>
      </fieldset>
    </div>
    <p id="type-note" class="note"></p>

    <fieldset id="attributes-section" class="part" data-part="attributes">
      <legend><code>aps.attributes</code> <small>stored properties, fixed for the activity's life</small></legend>
      <div id="attributes-fields" class="fields"></div>
      <label class="json-label">attributes JSON
        <textarea id="attributes-json" rows="5" spellcheck="false" autocomplete="off"></textarea>
      </label>
    </fieldset>

    <fieldset id="content-state-section" class="part" data-part="content-state">
      <legend><code>aps.content-state</code> <small>ContentState — Dates are seconds since 2001-01-01</small></legend>
      <div id="content-state-fields" class="fields"></div>
      <label class="json-label">content-state JSON
        <textarea id="content-state-json" rows="5" spellcheck="false" autocomplete="off"></textarea>
      </label>
    </fieldset>

    <fieldset id="alert-section" class="part">
      <legend><code>aps.alert</code> <small id="alert-note">required for start</small></legend>
      <div class="fields">
        <label>title <input id="alert-title" type="text" autocomplete="off"></label>
        <label>body <input id="alert-body" type="text" autocomplete="off"></label>
        <label>sound <small>optional</small> <input id="alert-sound" type="text" placeholder="default" autocomplete="off"></label>
      </div>
    </fieldset>

    <details id="options" class="part">
      <summary>More <code>aps</code> keys and APNs headers</summary>
      <div class="fields">
        <label>stale-date <small>UNIX seconds</small> <input id="stale-date" type="datetime-local" step="1"></label>
        <label class="end-only">dismissal-date <small>UNIX seconds, end only</small> <input id="dismissal-date" type="datetime-local" step="1"></label>
        <label>relevance-score <input id="relevance-score" type="number" step="any"></label>
        <label>apns-priority
          <select id="priority"><option value="10">10 — immediate</option><option value="5">5 — considerate</option></select>
        </label>
        <label>apns-expiration <small>UNIX seconds</small> <input id="expiration" type="datetime-local" step="1"></label>
        <label>apns-collapse-id <input id="collapse-id" type="text" maxlength="64" autocomplete="off"></label>
        <label>apns-id <small>UUID, optional</small> <input id="apns-id" type="text" autocomplete="off"></label>
        <label class="start-only check"><input id="request-update-token" type="checkbox"> input-push-token <small>iOS 18: ask for an update token</small></label>
      </div>
    </details>

    <fieldset id="target-section" class="part">
      <legend>Send to</legend>
      <div class="fields">
        <label class="wide-field">device token <small id="token-kind">push-to-start token (hex)</small>
          <input id="device-token" type="text" spellcheck="false" autocomplete="off" placeholder="hex token">
        </label>
        <label class="not-start">broadcast channel id <small>iOS 18; instead of a token</small>
          <input id="channel-id" type="text" spellcheck="false" autocomplete="off">
        </label>
      </div>
      <div class="actions">
        <button id="send" type="button" class="primary">Send now</button>
        <button id="enqueue" type="button">Enqueue</button>
        <span id="action-note" class="note"></span>
      </div>
    </fieldset>
  </section>

  <section id="review" class="panel" aria-label="Review">
    <h2>Findings <span id="verdict" class="verdict"></span></h2>
    <ul id="findings" aria-live="polite"></ul>
    <h2>Headers</h2>
    <pre id="headers-preview" class="code"></pre>
    <h2>Payload <small id="payload-size"></small></h2>
    <pre id="payload-preview" class="code"></pre>
    <h2>Last result</h2>
    <div id="result" class="result empty">Nothing sent yet.</div>
  </section>

  <section id="journal-section" class="panel wide" aria-label="Journal">
    <h2>Journal <small>recent sends of this console</small> <button id="journal-refresh" type="button" class="small">Refresh</button></h2>
    <table id="journal">
      <thead><tr><th>time</th><th>action</th><th>event</th><th>target</th><th>status</th><th>reason</th><th>apns-id</th><th>device</th><th>ms</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
</main>
<script src="/console.js"></script>
</body>
</html>
"""#
}
