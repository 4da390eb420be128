// The console's stylesheet and client script, served from this process (no CDN, no build step). The
// script turns `data-action` buttons into POSTs with the token header, follows redrive jobs, and shows a
// revealed payload as JSON, text or hex. It writes inbox data with textContent only, never as HTML.

export const STYLES = `
:root { --fg:#1f2328; --dim:#656d76; --line:#d0d7de; --bg:#fff; --head:#f6f8fa; --accent:#0969da;
  --green:#1a7f37; --green-bg:#dafbe1; --cyan:#0a6b7c; --cyan-bg:#d5f3f7; --yellow:#7d5c00; --yellow-bg:#fff1c2;
  --red:#b3261e; --red-bg:#ffe1de; --dim-bg:#eaeef2; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
header { display:flex; gap:24px; align-items:center; padding:10px 24px; border-bottom:1px solid var(--line); background:var(--head); }
.brand { font-weight:700; }
nav a { margin-right:16px; color:var(--fg); text-decoration:none; padding:4px 0; }
nav a.active { border-bottom:2px solid var(--accent); font-weight:600; }
.target { margin-left:auto; color:var(--dim); font-size:13px; }
main { padding:16px 24px 48px; max-width:1400px; }
h1 { font-size:20px; margin:4px 0 12px; } h2 { font-size:15px; margin:20px 0 8px; }
a { color:var(--accent); }
table { border-collapse:collapse; width:100%; margin:4px 0 8px; }
th, td { text-align:left; padding:6px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
td time, td .age { white-space:nowrap; }
th { background:var(--head); font-weight:600; font-size:13px; white-space:nowrap; }
tbody tr:hover { background:#f6f8fa; }
.mono, code, pre { font-family:ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size:12.5px; }
.num { font-variant-numeric:tabular-nums; }
.dim, .empty { color:var(--dim); }
.badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px; font-weight:600; white-space:nowrap; }
.badge-green { color:var(--green); background:var(--green-bg); }
.badge-cyan { color:var(--cyan); background:var(--cyan-bg); }
.badge-yellow { color:var(--yellow); background:var(--yellow-bg); }
.badge-red { color:var(--red); background:var(--red-bg); }
.badge-dim, .badge-plain { color:var(--dim); background:var(--dim-bg); }
form.filters { display:flex; flex-wrap:wrap; gap:10px 14px; align-items:end; margin-bottom:12px; padding:10px 12px; background:var(--head); border:1px solid var(--line); border-radius:6px; }
form.filters label { display:flex; flex-direction:column; font-size:12px; color:var(--dim); gap:2px; }
form.filters label.grow { flex:1; min-width:220px; }
input, select { font:inherit; padding:4px 6px; border:1px solid var(--line); border-radius:4px; background:#fff; }
button, .button { font:inherit; font-weight:600; padding:5px 12px; border-radius:5px; border:1px solid #1f6feb; background:#1f6feb; color:#fff; cursor:pointer; text-decoration:none; display:inline-block; }
button.secondary, .button.secondary, .tabs button { background:#fff; color:var(--fg); border-color:var(--line); }
.tabs button.active { background:var(--dim-bg); }
button.small { padding:2px 8px; font-size:12px; }
button.destructive { background:var(--red); border-color:var(--red); }
button:disabled { opacity:.45; cursor:not-allowed; }
.actions { display:flex; gap:10px; align-items:center; margin:8px 0 12px; }
.pager { display:flex; gap:12px; align-items:center; justify-content:flex-end; }
.subtitle { color:var(--dim); margin-top:-6px; }
.columns { display:grid; grid-template-columns:minmax(0, 1fr) minmax(0, 1fr); gap:24px; }
/* A note may hold an error detail: a URL or a code with no space in it. */
#timeline td:last-child { overflow-wrap:anywhere; }
/* A sender chooses the event type (up to 246 characters) and the dedup key (up to 255), with no space in
   either: where one is shown whole it must be allowed to break anywhere, or the page scrolls sideways. In a
   table only \`anywhere\` helps: a cell is never narrower than its longest unbreakable run. Only these
   values get it, so a provider id or an error code in a narrow column still breaks between its parts. */
.long-value, .subtitle, dialog p { overflow-wrap:anywhere; }
dl.details { display:grid; grid-template-columns:max-content 1fr; gap:4px 16px; margin:0; }
dl.details dt { color:var(--dim); } dl.details dd { margin:0; overflow-wrap:anywhere; }
.masked { padding:10px 12px; border:1px dashed var(--line); border-radius:6px; color:var(--dim); display:flex; gap:12px; align-items:center; }
pre { background:var(--head); border:1px solid var(--line); border-radius:6px; padding:10px 12px; overflow:auto; max-height:480px; }
.card { border:1px solid var(--line); border-radius:8px; padding:4px 16px 12px; margin-bottom:16px; }
.danger { border:1px solid var(--red-bg); border-radius:8px; padding:4px 16px 12px; margin-top:24px; }
form.purge, form.rotate { display:flex; gap:8px; margin-top:8px; }
#notice { padding:8px 12px; border-radius:6px; margin:0 0 12px; background:var(--cyan-bg); }
#notice.error, p.error { background:var(--red-bg); color:var(--red); padding:8px 12px; border-radius:6px; }
progress { width:160px; }
/* The hidden attribute wins over a class that sets display (.masked is a flex box). */
[hidden] { display:none !important; }
.small { font-size:12.5px; }
.error-text { color:var(--red); }
code.copy { overflow-wrap:anywhere; }
dialog { border:1px solid var(--line); border-radius:8px; padding:4px 20px 12px; max-width:min(560px, calc(100vw - 32px)); color:var(--fg); }
dialog::backdrop { background:rgba(31,35,40,.35); }
.result { padding:8px 12px; border-radius:6px; margin:0 0 12px; background:var(--green-bg); overflow-wrap:anywhere; }
.result.error { background:var(--red-bg); color:var(--red); }
#providers td:first-child { white-space:nowrap; }
#providers form.rotate { margin-top:0; flex-wrap:wrap; }
/* Wide enough for the longest placeholder, "the secret the provider issued". */
#providers form.rotate input { width:18em; max-width:100%; }
/* An 800 px window: columns stack, headers and long values wrap, tables marked .stack become one block a row. */
@media (max-width: 900px) {
  .columns { grid-template-columns:1fr; }
  header { flex-wrap:wrap; gap:4px 16px; padding:8px 12px; }
  main { padding:12px 12px 32px; }
  th { white-space:normal; }
  th, td { padding:6px 6px; }
  td .mono, td code { overflow-wrap:anywhere; }
  /* A key in a list is a link to its page: the start of it is enough to tell rows apart. */
  td a.mono { display:inline-block; max-width:13ch; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; vertical-align:bottom; }
  /* Secondary: the Last error column says a delivery failed, its page says how often. */
  #deliveries th:nth-child(5), #deliveries td:nth-child(5) { display:none; }
  table.stack thead { display:none; }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display:block; }
  table.stack tr { border-bottom:1px solid var(--line); padding:6px 0; }
  table.stack td { border-bottom:0; padding:2px 6px; }
}

/* Trends (trends-section.ts): the charts are inline SVG with their colours in attributes. */
.trends { margin:4px 0 20px; }
.trend-switch { font-weight:400; font-size:13px; margin-left:12px; }
.trend-charts { display:grid; grid-template-columns:repeat(auto-fit, minmax(520px, 1fr)); gap:12px 16px; margin:8px 0; }
figure.trend { margin:0; border:1px solid var(--line); border-radius:6px; padding:8px 10px; min-width:0; }
figure.trend figcaption { font-size:13px; font-weight:600; margin-bottom:4px; }
svg.chart { display:block; width:100%; height:auto; }
svg.chart rect.bar:hover { opacity:.8; }
table.trend-table th, table.trend-table td { padding:5px 8px; }
table.trend-table th { white-space:normal; }
p.note { background:var(--yellow-bg); color:var(--yellow); padding:6px 10px; border-radius:6px; }
@media (max-width: 900px) { .trend-charts { grid-template-columns:1fr; } }
`;

export const CLIENT_SCRIPT = `'use strict';
(() => {
  const token = document.querySelector('meta[name="console-token"]').content;
  const notice = document.getElementById('notice');
  const say = (text, isError) => {
    notice.textContent = text;
    notice.className = isError ? 'error' : '';
    notice.hidden = false;
  };
  const call = async (method, path, body) => {
    const response = await fetch(path, {
      method,
      headers: body === undefined ? { 'x-console-token': token } : { 'x-console-token': token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
    let answer = {};
    try { answer = await response.json(); } catch { answer = {}; }
    if (!response.ok && answer.kind !== 'refused') throw new Error(answer.error || 'HTTP ' + response.status);
    return answer;
  };
  // A result in its own box under the actions, with a link to load the page again when it changed something.
  const report = (box, text, isError, reload) => {
    box.replaceChildren(document.createTextNode(text));
    if (reload) {
      const link = document.createElement('a');
      link.href = location.href;
      link.textContent = 'Reload';
      box.append(' ', link);
    }
    box.className = isError ? 'result error' : 'result';
    box.hidden = false;
  };
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  const follow = async (job, button) => {
    const box = (button.closest('.actions') || document).querySelector('.job');
    if (box) box.hidden = false;
    const bar = box && box.querySelector('progress');
    const label = box && box.querySelector('.job-text');
    for (;;) {
      if (bar) { bar.max = Math.max(job.total || 1, 1); bar.value = job.done; }
      if (label) label.textContent = job.state === 'running' ? 'moved ' + job.done + ' of ' + (job.total ?? '?') : job.message || '';
      if (job.state !== 'running') break;
      await sleep(400);
      job = await call('GET', 'api/jobs/' + encodeURIComponent(job.id));
    }
    say(job.state === 'done' ? 'Redrive: ' + job.message : 'Redrive failed: ' + job.message, job.state !== 'done');
    document.body.dataset.job = job.state;
  };

  const showPayload = (base64, bytes) => {
    const raw = atob(base64);
    const data = Uint8Array.from(raw, (c) => c.charCodeAt(0));
    let text;
    try { text = new TextDecoder('utf-8', { fatal: true }).decode(data); } catch { text = undefined; }
    let pretty;
    if (text !== undefined) { try { pretty = JSON.stringify(JSON.parse(text), null, 2); } catch { pretty = undefined; } }
    const hex = Array.from(data.slice(0, 65536), (b, i) => (i % 16 === 0 ? (i ? '\\n' : '') + i.toString(16).padStart(8, '0') + '  ' : '') + b.toString(16).padStart(2, '0') + ' ').join('');
    const views = { json: pretty, text, hex };
    const body = document.getElementById('payload-body');
    const pick = (name) => {
      body.textContent = views[name];
      for (const tab of document.querySelectorAll('.tabs button')) tab.classList.toggle('active', tab.dataset.view === name);
    };
    for (const tab of document.querySelectorAll('.tabs button')) {
      tab.disabled = views[tab.dataset.view] === undefined;
      tab.addEventListener('click', () => pick(tab.dataset.view));
    }
    document.querySelector('.payload-size').textContent = bytes + ' bytes';
    document.getElementById('payload-masked').hidden = true;
    document.getElementById('payload-shown').hidden = false;
    pick(pretty !== undefined ? 'json' : text !== undefined ? 'text' : 'hex');
  };

  const picked = () => Array.from(document.querySelectorAll('input.pick:checked'), (box) => box.value);
  const selectedButton = document.querySelector('[data-action="redrive-selected"]');
  const refreshSelection = () => {
    if (selectedButton) {
      const n = picked().length;
      selectedButton.disabled = n === 0;
      selectedButton.textContent = n === 0 ? 'Redrive selected' : 'Redrive ' + n + ' selected';
    }
  };
  document.addEventListener('change', (event) => {
    const box = event.target;
    if (box.classList && box.classList.contains('pick-all')) {
      for (const one of document.querySelectorAll('input.pick')) one.checked = box.checked;
    }
    refreshSelection();
  });
  const purgeInput = document.querySelector('form.purge input');
  if (purgeInput) {
    purgeInput.addEventListener('input', () => {
      const value = purgeInput.value.trim();
      document.querySelector('[data-action="purge"]').disabled = value !== purgeInput.dataset.expect && value !== 'purge';
    });
  }

  const actions = {
    reveal: async () => {
      const section = document.querySelector('section.payload');
      const query = '?provider=' + encodeURIComponent(section.dataset.provider) + '&key=' + encodeURIComponent(section.dataset.key);
      const answer = await call('GET', 'api/payload' + query);
      showPayload(answer.base64, answer.bytes);
    },
    // Asks first (the page's dialog says where the delivery goes), then says what happened on the page.
    replay: async (button) => {
      const dialog = document.getElementById('replay-confirm');
      const result = document.getElementById('replay-result');
      dialog.returnValue = '';
      const closed = new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue), { once: true }));
      dialog.showModal();
      if ((await closed) !== 'confirm') { report(result, 'Replay cancelled: nothing was sent.', false); return; }
      report(result, 'Replaying…', false);
      let answer;
      try {
        answer = await call('POST', 'api/replay', { provider: button.dataset.provider, key: button.dataset.key });
      } catch (error) {
        report(result, 'Replay failed: ' + error.message, true);
        return;
      }
      if (answer.kind === 'replayed') {
        const to = answer.destinations && answer.destinations.length > 0
          ? 'the processor sends it to ' + answer.destinations.join(', ')
          : "no destination's filter matches it: the processor sends it nowhere";
        report(result, 'Replayed ' + button.dataset.provider + ' delivery ' + button.dataset.key + ': message ' + answer.messageId + ' is on the main queue; ' + to + '. The timeline shows the replay once the processor has taken it.', false, true);
      } else {
        report(result, 'Replay refused (' + answer.reason + '): ' + answer.message, true);
      }
    },
    redrive: async (button) => follow(await call('POST', 'api/redrive', { scope: 'selection', keys: [button.dataset.keys] }), button),
    'redrive-group': async (button) => follow(await call('POST', 'api/redrive', { scope: 'group', provider: button.dataset.provider, errorCode: button.dataset.errorCode }), button),
    'redrive-selected': async (button) => follow(await call('POST', 'api/redrive', { scope: 'selection', keys: picked() }), button),
    'redrive-all': async (button) => {
      if (!confirm('Move every message in the DLQ back to the main queue?')) return;
      await follow(await call('POST', 'api/redrive', { scope: 'all' }), button);
    },
    purge: async () => {
      const answer = await call('POST', 'api/purge', { confirm: purgeInput.value.trim() });
      say(answer.message);
    },
    rotate: async (button) => {
      const form = button.closest('form');
      const answer = await call('POST', 'api/rotate', { provider: form.dataset.provider, value: form.elements.value.value });
      form.elements.value.value = '';
      say(answer.message + '. Reloading…');
      await sleep(1500);
      location.reload();
    },
  };
  document.addEventListener('click', async (event) => {
    const closer = event.target.closest && event.target.closest('dialog button[data-close]');
    if (closer) { closer.closest('dialog').close(closer.dataset.close); return; }
    const button = event.target.closest && event.target.closest('button[data-action]');
    if (!button) return;
    const run = actions[button.dataset.action];
    if (!run) return;
    event.preventDefault();
    button.disabled = true;
    try { await run(button); } catch (error) { say(error.message, true); } finally { button.disabled = false; refreshSelection(); }
  });
})();
`;
