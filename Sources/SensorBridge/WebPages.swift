/// The web page: server-rendered HTML with a little plain JavaScript and no outside files (it
/// works with no internet), readable on a phone. The live part follows `/api/live`; the buttons
/// post to `/api/session/...` with the page's CSRF token; the workouts come from `/api/workouts`.
enum WebPages {
    static func home(csrfToken: String, live: Bool) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="csrf-token" content="\(csrfToken)">
        <title>SensorBridge</title>
        <style>
        body{font-family:system-ui,sans-serif;margin:0;padding:1rem;background:#111;color:#eee}
        h1{font-size:1.2rem;margin:0 0 1rem} h2{font-size:1rem;margin:1.5rem 0 .5rem}
        .big{display:flex;flex-wrap:wrap;gap:1rem}
        .tile{background:#222;border-radius:.5rem;padding:.75rem 1rem;min-width:7rem}
        .tile b{display:block;font-size:2.4rem} .tile span{color:#aaa;font-size:.8rem}
        button{font-size:1rem;padding:.6rem 1rem;margin:.25rem;border-radius:.4rem;border:0}
        table{border-collapse:collapse;width:100%} td,th{padding:.3rem;border-bottom:1px solid #333;text-align:left}
        a{color:#8cf} #status{color:#aaa}
        </style></head><body>
        <h1>SensorBridge</h1>
        \(live ? liveSection : "")
        <h2>Workouts</h2>
        <table id="workouts"><tr><th>Id</th><th>Start</th><th>Activity</th><th>Duration</th><th>Files</th></tr></table>
        <script>
        const csrf = document.querySelector('meta[name=csrf-token]').content;
        fetch('/api/workouts').then(r => r.json()).then(list => {
          const table = document.getElementById('workouts');
          for (const w of list.workouts) {
            const row = table.insertRow();
            row.insertCell().textContent = w.id;
            row.insertCell().textContent = w.start.replace('T', ' ').slice(0, 16);
            row.insertCell().textContent = w.activityType;
            row.insertCell().textContent = w.duration != null ? Math.round(w.duration / 60) + ' min' : '';
            const files = row.insertCell();
            for (const f of ['fit', 'tcx', 'csv', 'svg']) {
              const a = document.createElement('a'); a.href = '/api/workouts/' + w.id + '.' + f; a.textContent = f + ' ';
              files.appendChild(a);
            }
          }
        });
        \(live ? liveScript : "")
        </script></body></html>
        """
    }

    static let liveSection = """
        <div id="status">connecting…</div>
        <div class="big">
          <div class="tile"><b id="heartRate">--</b><span>heart rate, bpm</span></div>
          <div class="tile"><b id="cyclingPower">--</b><span>power, W</span></div>
          <div class="tile"><b id="cyclingCadence">--</b><span>cadence, rpm</span></div>
          <div class="tile"><b id="zone-heartRate">--</b><span>heart-rate zone</span></div>
          <div class="tile"><b id="zone-cyclingPower">--</b><span>power zone</span></div>
          <div class="tile"><b id="elapsed">0:00</b><span>elapsed</span></div>
        </div>
        <p><button data-action="pause">Pause</button><button data-action="resume">Resume</button>
        <button data-action="lap">Lap</button><button data-action="end">End</button></p>
        """

    static let liveScript = """
        const show = (id, text) => { const e = document.getElementById(id); if (e) e.textContent = text; };
        const clock = s => Math.floor(s / 60) + ':' + String(Math.floor(s % 60)).padStart(2, '0');
        const values = v => { for (const k in v) show(k, Math.round(v[k])); };
        const zone = z => show('zone-' + z.quantityType, z.current == null ? '--' : 'Z' + (z.current + 1));
        const source = new EventSource('/api/live');
        source.addEventListener('snapshot', e => {
          const s = JSON.parse(e.data); show('status', s.state); values(s.values); show('elapsed', clock(s.t));
          for (const k in s.zones) zone(s.zones[k]);
        });
        source.addEventListener('values', e => values(JSON.parse(e.data)));
        source.addEventListener('zone', e => zone(JSON.parse(e.data)));
        source.addEventListener('state', e => show('status', JSON.parse(e.data).state));
        source.addEventListener('statistics', e => show('elapsed', clock(JSON.parse(e.data).t)));
        source.addEventListener('ended', () => show('status', 'ended'));
        for (const b of document.querySelectorAll('button[data-action]')) {
          b.onclick = () => fetch('/api/session/' + b.dataset.action, {method: 'POST', headers: {'X-CSRF-Token': csrf}});
        }
        """
}
