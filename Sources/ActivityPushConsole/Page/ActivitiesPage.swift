/// The activities page's HTML (`GET /activities` and `GET /activities/{id}`): the Live Activities the lifecycle
/// service manages with their state, and one activity's timeline — each device, each push and its outcome.
/// Static markup; ``ActivitiesScript`` fills it from `GET /v1/activities` and `GET /v1/activities/{id}`.
enum ActivitiesPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ActivityPush activities</title>
<link rel="stylesheet" href="/console.css">
</head>
<body>
<header>
  <h1>ActivityPush <span>activities</span></h1>
  <nav><a href="/">compose</a> · <a href="/activities">activities</a></nav>
</header>
<main>
  <section id="activities-section" class="panel wide" aria-label="Activities">
    <h2>Activities
      <select id="state-filter" aria-label="state">
        <option value="">every state</option><option value="starting">starting</option>
        <option value="active">active</option><option value="ended">ended</option>
      </select>
      <button id="activities-refresh" type="button" class="small">Refresh</button>
    </h2>
    <p id="activities-note" class="note"></p>
    <table id="activities">
      <thead><tr><th>activity</th><th>type</th><th>state</th><th>devices</th><th>pushes</th><th>created</th><th>ended</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>

  <section id="timeline-section" class="panel wide hidden" aria-label="Timeline">
    <h2>Activity <code id="timeline-id"></code> <span id="timeline-state" class="state"></span>
      <button id="timeline-refresh" type="button" class="small">Refresh</button></h2>
    <dl id="timeline-facts" class="facts"></dl>
    <h2>Devices</h2>
    <table id="timeline-devices">
      <thead><tr><th>device</th><th>state</th><th>push-to-start token</th><th>update token</th><th>held</th><th>retired</th></tr></thead>
      <tbody></tbody>
    </table>
    <h2>Pushes <small>oldest first; the outcome is what APNs and — with mock-apns — the device did</small></h2>
    <table id="timeline-pushes">
      <thead><tr><th>not before</th><th>event</th><th>device</th><th>target</th><th>priority</th><th>budget</th><th>queue</th><th>status</th><th>reason</th><th>device outcome</th><th>apns-id</th></tr></thead>
      <tbody></tbody>
    </table>
    <h2>Journal</h2>
    <table id="timeline-journal">
      <thead><tr><th>time</th><th>device</th><th>note</th></tr></thead>
      <tbody></tbody>
    </table>
  </section>
</main>
<script src="/activities.js"></script>
</body>
</html>
"""#
}
