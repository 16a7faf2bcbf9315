/// The console page's stylesheet (no external fonts or frameworks).
enum ConsoleStyle {
    static let css = #"""
:root {
  --bg: #f4f5f7; --panel: #fff; --ink: #1d2330; --muted: #667085; --line: #d9dde5;
  --accent: #2f5fd0; --error: #c62828; --warning: #b26a00; --info: #46607a; --ok: #1b7f3b;
  --mono: ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
header { display: flex; align-items: center; justify-content: space-between; gap: 1rem;
  padding: .6rem 1.2rem; background: #1d2330; color: #fff; }
header h1 { font-size: 1.1rem; margin: 0; font-weight: 600; }
header h1 span { color: #9fb4ff; font-weight: 400; }
#server { display: flex; flex-wrap: wrap; gap: .3rem 1.2rem; margin: 0; font-size: .8rem; }
#server div { display: flex; gap: .35rem; }
#server dt { color: #aab3c5; }
#server dd { margin: 0; font-family: var(--mono); }
#server dd.off { color: #ffb4a8; }
main { display: grid; grid-template-columns: minmax(420px, 1fr) minmax(380px, 1fr); gap: 1rem; padding: 1rem 1.2rem; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; padding: .9rem 1rem; min-width: 0; }
.panel.wide { grid-column: 1 / -1; }
h2 { font-size: .95rem; margin: .9rem 0 .4rem; display: flex; align-items: center; gap: .5rem; }
h2:first-child { margin-top: 0; }
h2 small, legend small, label small { color: var(--muted); font-weight: 400; }
.row { display: flex; gap: 1rem; align-items: flex-end; flex-wrap: wrap; }
.grow { flex: 1; }
label { display: flex; flex-direction: column; gap: .2rem; font-size: .82rem; color: #344054; }
label.check { flex-direction: row; align-items: center; gap: .4rem; }
input[type=text], input[type=number], input[type=datetime-local], select, textarea {
  font: inherit; padding: .35rem .45rem; border: 1px solid var(--line); border-radius: 5px; background: #fff; color: var(--ink); width: 100%; }
textarea { font-family: var(--mono); font-size: .8rem; resize: vertical; }
input:focus, select:focus, textarea:focus { outline: 2px solid #b8c8f5; border-color: var(--accent); }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: .7rem 0 0; padding: .5rem .75rem .7rem; }
legend { font-size: .85rem; font-weight: 600; padding: 0 .3rem; }
.segmented { border: 0; padding: 0; margin: 0; display: flex; gap: 0; }
.segmented legend { font-size: .82rem; font-weight: 400; color: #344054; padding: 0 0 .2rem; }
.segmented label { flex-direction: row; align-items: center; gap: .25rem; border: 1px solid var(--line); padding: .32rem .7rem; margin-left: -1px; cursor: pointer; background: #fff; }
.segmented label:first-of-type { border-radius: 5px 0 0 5px; }
.segmented label:last-of-type { border-radius: 0 5px 5px 0; }
.segmented label:has(input:checked) { background: #e8eefc; border-color: var(--accent); color: var(--accent); z-index: 1; }
.fields { display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: .55rem .8rem; margin-bottom: .5rem; }
.fields fieldset { grid-column: 1 / -1; margin: 0; }
.field-head { display: flex; align-items: center; gap: .35rem; }
.field-head code { font-size: .8rem; color: var(--ink); }
.field-head .type { color: var(--muted); font-family: var(--mono); font-size: .72rem; }
.include { font-size: .72rem; color: var(--muted); display: inline-flex; flex-direction: row; gap: .2rem; align-items: center; margin-left: auto; font-weight: 400; }
.wide-field { grid-column: 1 / -1; }
.field.omitted input:not(.include-box), .field.omitted select, .field.omitted textarea { opacity: .45; }
.field output { font-family: var(--mono); font-size: .72rem; color: var(--muted); }
.json-label { margin-top: .2rem; }
details.part { border: 1px solid var(--line); border-radius: 6px; margin-top: .7rem; padding: .45rem .75rem; }
details.part summary { cursor: pointer; font-weight: 600; font-size: .85rem; }
details.part[open] summary { margin-bottom: .5rem; }
.actions { display: flex; gap: .6rem; align-items: center; }
button { font: inherit; padding: .42rem 1rem; border-radius: 5px; border: 1px solid var(--line); background: #fff; cursor: pointer; }
button.primary { background: var(--accent); border-color: var(--accent); color: #fff; font-weight: 600; }
button:disabled { opacity: .5; cursor: not-allowed; }
button.small { padding: .1rem .5rem; font-size: .75rem; font-weight: 400; }
.note { color: var(--muted); font-size: .8rem; margin: .3rem 0 0; }
.code { font-family: var(--mono); font-size: .78rem; background: #f7f8fa; border: 1px solid var(--line); border-radius: 6px;
  padding: .55rem .7rem; margin: 0; white-space: pre-wrap; word-break: break-all; max-height: 22rem; overflow: auto; }
.verdict { font-size: .75rem; font-weight: 600; padding: .1rem .5rem; border-radius: 999px; }
.verdict.ok { background: #e3f4e8; color: var(--ok); }
.verdict.bad { background: #fdeaea; color: var(--error); }
.verdict.pending { background: #eef0f4; color: var(--muted); }
#findings { list-style: none; padding: 0; margin: 0; display: flex; flex-direction: column; gap: .4rem; }
#findings li { border-left: 4px solid var(--info); background: #f7f8fa; padding: .4rem .6rem; border-radius: 0 6px 6px 0; }
#findings li.error { border-color: var(--error); background: #fdf3f3; }
#findings li.warning { border-color: var(--warning); background: #fff8ec; }
#findings li.none { border-color: var(--ok); background: #f1faf4; color: var(--ok); }
#findings .head { display: flex; gap: .5rem; align-items: baseline; flex-wrap: wrap; }
#findings .sev { text-transform: uppercase; font-size: .65rem; font-weight: 700; letter-spacing: .04em; }
#findings li.error .sev { color: var(--error); } #findings li.warning .sev { color: var(--warning); }
#findings .code-name { font-family: var(--mono); font-size: .78rem; font-weight: 600; }
#findings .where { font-family: var(--mono); font-size: .72rem; color: var(--muted); }
#findings .message { margin-top: .15rem; }
#findings .fix { margin-top: .2rem; font-size: .82rem; }
#findings .fix::before { content: "fix: "; font-weight: 600; color: var(--ok); }
.result { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .7rem; font-size: .85rem; }
.result.empty { color: var(--muted); }
.result.ok { border-color: #a8d5b5; background: #f1faf4; }
.result.bad { border-color: #f0b4b4; background: #fdf3f3; }
.result .status { font-weight: 700; font-family: var(--mono); }
.result dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .8rem; margin: .3rem 0 0; }
.result dt { color: var(--muted); } .result dd { margin: 0; font-family: var(--mono); word-break: break-all; }
table { width: 100%; border-collapse: collapse; font-size: .8rem; }
th, td { text-align: left; padding: .3rem .45rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.mono { font-family: var(--mono); font-size: .75rem; word-break: break-all; }
td.ok { color: var(--ok); font-weight: 600; } td.bad { color: var(--error); font-weight: 600; }
.hidden { display: none !important; }
header nav { font-size: .85rem; } header nav a { color: #cfd9ff; }
h2 select { width: auto; font-size: .8rem; font-weight: 400; }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: .3rem 1rem; margin: 0 0 .4rem; font-size: .8rem; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; font-family: var(--mono); word-break: break-all; }
.state { font-size: .75rem; font-weight: 600; }
td.state.active, td.state.started, span.state.active { color: var(--ok); }
td.state.ended, span.state.ended { color: var(--muted); }
td.state.token-retired, td.state.no-token { color: var(--error); }
@media (max-width: 900px) { main { grid-template-columns: 1fr; } }
"""#
}
