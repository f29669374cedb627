import Export
import Foundation
import Outputs
import SensorCore
import Workouts
import Zones

/// The web page: server-rendered HTML with a little plain JavaScript and no outside files (it
/// works with no internet), readable on a phone. Pages are built from the CLI's own JSON (what the
/// API serves), so the page and the API never disagree. Zone colours are `ZonePalette`'s, as in the SVG chart.
enum WebPages {
    /// `1:02:03` or `4:05` for seconds.
    static func clock(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite else { return "--" }
        return Duration.seconds(seconds.rounded()).clockText
    }

    static func number(_ value: Double?, digits: Int = 0) -> String {
        guard let value, value.isFinite else { return "--" }
        return String(format: "%.\(digits)f", value)
    }

    static let style = """
        *{box-sizing:border-box} body{font-family:system-ui,sans-serif;margin:0;background:#111;color:#eee;line-height:1.35}
        header{display:flex;gap:1rem;align-items:center;padding:.6rem 1rem;background:#1b1b1b;flex-wrap:wrap}
        header b{margin-right:auto} header a{color:#ccc;text-decoration:none} header a.here{color:#fff;font-weight:bold}
        main{padding:1rem;max-width:60rem;margin:auto} h1{font-size:1.3rem;margin:.2rem 0 1rem} h2{font-size:1.05rem;margin:1.5rem 0 .5rem}
        .tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:.6rem}
        .tile{background:#222;border-radius:.5rem;padding:.6rem .8rem}
        .tile b{display:block;font-size:2.6rem;font-variant-numeric:tabular-nums} .tile span{color:#aaa;font-size:.8rem}
        .tile.begun{outline:.25rem solid #ffb300}
        .riders{display:grid;grid-template-columns:repeat(auto-fill,minmax(16rem,1fr));gap:.8rem}
        .rider{display:block;background:#333;color:#fff;text-decoration:none;border-radius:.6rem;padding:.6rem .9rem;text-shadow:0 1px 2px #000}
        .rider .name{font-size:1.6rem;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
        .rider .heartRate{font-size:5rem;font-weight:700;line-height:1;font-variant-numeric:tabular-nums}
        .rider .line{font-size:1.2rem} .rider .small{font-size:1rem;opacity:.9}
        .zone{color:#111} .zone span{color:#222}
        button{font-size:1rem;padding:.7rem 1.1rem;margin:.2rem;border-radius:.4rem;border:0;background:#ddd}
        button.danger{background:#ef5350;color:#fff}
        table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums} td,th{padding:.35rem;border-bottom:1px solid #333;text-align:left}
        a{color:#8cf} .muted{color:#999} .error{color:#ff8a80} .ok{color:#b9f6ca}
        .bar{height:1.1rem;border-radius:.2rem;min-width:1px} .bars td{border:0;padding:.15rem .35rem}
        .chart svg{width:100%;height:auto;background:#fff;border-radius:.4rem}
        input,select{font-size:1rem;padding:.4rem;border-radius:.3rem;border:1px solid #555;background:#222;color:#eee;max-width:100%}
        form{margin:.5rem 0} label{display:inline-block;margin:.2rem .6rem .2rem 0} fieldset{border:0;padding:0;margin:0}
        header button{margin-left:auto;padding:.3rem .7rem}
        """

    /// Who a page is for: what it may offer, and what its script needs.
    struct Viewer: Sendable {
        /// What the page sends with a change or a logout (`X-CSRF-Token`).
        var csrfToken: String?
        /// Whether it offers changes (the change level).
        var canChange: Bool
        /// The nonce of the page's one script (`Content-Security-Policy: script-src 'nonce-...'`).
        var nonce: String
        /// Whether it came with a session it can end (the page then offers "Log out").
        var canLogOut = false
    }

    /// The frame of every page: the navigation, the CSRF token, `body`, then `script` (the page's
    /// only script, allowed by its nonce).
    static func page(title: String, here: String, viewer: Viewer, live: Bool, body: String, script: String = "") -> String {
        let links = (live ? [("/", "Live")] : []) + [("/workouts", "Workouts"), ("/zones", "Zones"), ("/best", "Best")]
        let nav = links.map { path, name in "<a href=\"\(path)\"\(path == here ? " class=\"here\"" : "")>\(name)</a>" }.joined()
            + (viewer.canLogOut ? "<button id=\"logout\">Log out</button>" : "")
        let csrf = viewer.csrfToken.map { "<meta name=\"csrf-token\" content=\"\(XMLText.escaped($0))\">\n" } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            \(csrf)<title>\(XMLText.escaped(title)) · SensorBridge</title>
            <style>\(style)</style></head><body>
            <header><b>SensorBridge</b>\(nav)</header>
            <main>
            \(body)
            </main>
            <script nonce="\(XMLText.escaped(viewer.nonce))">
            const csrf = document.querySelector('meta[name=csrf-token]')?.content;
            async function post(path, body) {
              const r = await fetch(path, {method: 'POST', headers: {'X-CSRF-Token': csrf, 'Content-Type': 'application/json'},
                                           body: body === undefined ? undefined : JSON.stringify(body)});
              if (r.ok) return null;
              try { return (await r.json()).error; } catch (e) { return r.status + ' ' + r.statusText; }
            }
            const logout = document.getElementById('logout');
            if (logout) logout.onclick = async () => { await post('/logout'); location.href = '/login'; };
            \(script)
            </script></body></html>
            """
    }

    /// The login page: one field for the token, sent with `next`, the page to go back to.
    static func login(next: String, message: String?, nonce: String) -> String {
        let note = message.map { "<p class=\"error\">\(XMLText.escaped($0))</p>" } ?? ""
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Log in · SensorBridge</title>
            <style>\(style)</style></head><body>
            <header><b>SensorBridge</b></header>
            <main>
            <h1>Log in</h1>
            \(note)
            <form method="post" action="/login">
            <label>Token <input type="password" name="token" autocomplete="current-password" autofocus required size="32"></label>
            <input type="hidden" name="next" value="\(XMLText.escaped(next))">
            <button>Log in</button></form>
            <p class="muted">The token is the one line of the file given to --http-token-file (or --http-read-only-token-file).</p>
            </main></body></html>
            """
    }

    // MARK: Live

    /// What the live page's and the class screen's scripts share: `clock` (seconds as `1:02:03`)
    /// and `value` (a number whole, `--` for none).
    static let liveHelpers = """
            const clock = s => { s = Math.max(0, Math.floor(s)); const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60,
              x = String(s % 60).padStart(2, '0'); return h ? h + ':' + String(m).padStart(2, '0') + ':' + x : m + ':' + x; };
            const value = v => v == null ? '--' : String(Math.round(v));
        """ + "\n"

    /// The live page of the workout being recorded: the box's (`/`, its API under `/api`), or a
    /// rider's of a class (`/athletes/NAME/live`, `api` `/api/athletes/NAME`, `rider` their name).
    static func live(viewer: Viewer, api: String = "/api", rider: String? = nil) -> String {
        let title = rider.map { "Live: \(XMLText.escaped($0))" } ?? "Live"
        let body = """
            <h1>\(title) <span id="state" class="muted">connecting…</span></h1>
            <p class="muted">Started <span id="start">--</span></p>
            <div class="tiles">
              <div class="tile"><b id="heartRate">--</b><span>heart rate, bpm</span></div>
              <div class="tile"><b id="power">--</b><span>power, W</span></div>
              <div class="tile"><b id="power3s">--</b><span>3 s power, W</span></div>
              <div class="tile"><b id="power10s">--</b><span>10 s power, W</span></div>
              <div class="tile"><b id="percentOfFTP">--</b><span>% of FTP</span></div>
              <div class="tile"><b id="cadence">--</b><span>cadence, rpm</span></div>
              <div class="tile"><b id="dfaAlpha1">--</b><span>DFA α1 (2 min)</span></div>
              <div class="tile"><b id="elapsed">0:00</b><span>elapsed (active <span id="active">0:00</span>)</span></div>
              <div class="tile"><b id="lapTime">0:00</b><span>lap <span id="lap">1</span></span></div>
              <div class="tile" id="activityTile" hidden><b id="activityTime">0:00</b><span>activity <span id="activityNumber">1</span>:
                <span id="activityType"></span></span></div>
              <div class="tile" id="stepTile" hidden><b id="stepTime">0:00</b><span id="stepLabel"></span></div>
            </div>
            <p id="step" hidden></p>
            <table id="averages">
              <tr><th></th><th>avg HR, bpm</th><th>avg power, W</th><th>NP, W</th><th>IF</th><th>kJ</th></tr>
              <tr id="lapFigures"><td>Lap</td><td></td><td></td><td></td><td></td><td></td></tr>
              <tr id="ride"><td>Ride</td><td></td><td></td><td></td><td></td><td></td></tr>
            </table>
            <div id="targets"></div>
            <div id="zones"></div>
            \(viewer.canChange ? """
            <p><button data-action="pause">Pause</button><button data-action="resume">Resume</button>
            <button data-action="lap">Lap</button><button data-action="activity" id="nextActivity" hidden>Next activity</button>
            <button data-action="end" class="danger">End</button>
            <span id="result" class="error"></span></p>
            """ : "")
            <h2>Sensors</h2><table id="sensors"></table>
            <p id="relay" class="muted"></p>
            <p id="message" class="muted"></p>
            """
        let script = liveHelpers + """
            const show = (id, text) => { const e = document.getElementById(id); if (e) e.textContent = text; };
            const names = {heartRate: 'Heart-rate zone', cyclingPower: 'Power zone'};
            // An instant with its offset (2026-11-02T12:30:00-05:00) as every page shows times: 2026-11-02 12:30 -05:00.
            const localTime = t => { const zone = (t.match(/(Z|[+-][0-9][0-9]:[0-9][0-9])$/) || ['', ''])[1];
              return t.slice(0, 16).replace('T', ' ') + ' ' + (zone === 'Z' ? 'UTC' : zone); };
            const started = t => { if (t) show('start', localTime(t)); };
            function render(p) {
              if (!p) return;
              for (const k of ['heartRate', 'power', 'power3s', 'power10s', 'cadence']) show(k, value(p[k]));
              const ftp = p.functionalThresholdPower;
              show('percentOfFTP', ftp && p.power != null ? String(Math.round(100 * p.power / ftp)) : '--');
              show('dfaAlpha1', p.dfaAlpha1 != null ? p.dfaAlpha1.toFixed(2) : '--');
              for (const k of ['lapFigures', 'ride']) {
                const f = p[k] || {}, cells = document.getElementById(k).cells;
                cells[1].textContent = value(f.heartRate); cells[2].textContent = value(f.power);
                cells[3].textContent = value(f.normalizedPower);
                cells[4].textContent = ftp && f.normalizedPower != null ? (f.normalizedPower / ftp).toFixed(2) : '--';
                cells[5].textContent = value(f.energy);
              }
              const targets = document.getElementById('targets'); targets.textContent = '';
              for (const t of p.targets || []) {
                const line = document.createElement('p'); line.className = t.alert ? 'error' : 'muted';
                line.textContent = 'Target ' + t.label + ': ' + (t.paused ? 'paused' : t.currentZone == null ? 'no zone'
                  : t.outFor == null ? 'in (zone ' + (t.currentZone + 1) + ')' : 'out for ' + clock(t.outFor) + ' (zone ' + (t.currentZone + 1) + ')');
                targets.appendChild(line);
              }
              show('elapsed', clock(p.elapsed)); show('active', clock(p.active));
              show('lapTime', clock(p.lapElapsed)); show('lap', p.lap);
              // A multisport workout: the activity under way, and the button that begins the next.
              const a = p.activity;
              document.getElementById('activityTile').hidden = !a;
              if (a) { show('activityTime', clock(a.elapsed)); show('activityNumber', a.number); show('activityType', a.type); }
              const next = document.getElementById('nextActivity');
              if (next) { next.hidden = !(a && a.next); if (a && a.next) next.textContent = 'Next: ' + a.next; }
              // The plan's step: time left (or into an open one), its target, in or out, the next.
              const s = p.step;
              document.getElementById('stepTile').hidden = !s;
              document.getElementById('step').hidden = !s;
              if (s) {
                show('stepTime', clock(s.timeLeft != null ? s.timeLeft : s.elapsed));
                show('stepLabel', (s.timeLeft != null ? 'left of step ' : 'into step ') + s.number + '/' + s.of
                  + (s.name ? ' (' + s.name + ')' : '') + ': ' + s.target);
                const judged = !s.goal ? 'no target' : s.paused ? 'paused' : s.judgement == null ? 'no value'
                  : s.outFor != null ? 'OUT ' + clock(s.outFor) + ', ' + (s.judgement === 'below' ? 'too low' : 'too high') : 'in target';
                show('step', judged + (s.next ? ' · next: ' + s.next : ' · last step'));
                document.getElementById('step').className = s.alert ? 'error' : 'muted';
                // A step's beginning stands out for a few seconds.
                const tile = document.getElementById('stepTile');
                if (tile.dataset.number !== String(s.number)) {
                  if (tile.dataset.number) { tile.classList.add('begun'); setTimeout(() => tile.classList.remove('begun'), 5000); }
                  tile.dataset.number = String(s.number);
                }
              }
              show('message', p.message || '');
              if (p.paused) show('state', 'paused (' + p.paused + ')');
              const zones = document.getElementById('zones'); zones.textContent = '';
              for (const z of p.zones) {
                const total = z.durations.reduce((a, b) => a + b, 0) || 1;
                const h = document.createElement('h2');
                h.textContent = names[z.quantityType] || z.quantityType; zones.appendChild(h);
                const tile = document.createElement('div'); tile.className = 'tile zone'; tile.id = 'zone-' + z.quantityType;
                tile.style.background = z.current == null ? '#333' : z.colors[z.current];
                const b = document.createElement('b'); b.textContent = z.current == null ? '--' : 'Z' + (z.current + 1);
                const s = document.createElement('span'); s.textContent = z.current == null ? 'no zone' : 'for ' + clock(z.inZoneFor);
                tile.append(b, s); zones.appendChild(tile);
                const table = document.createElement('table'); table.className = 'bars';
                z.durations.forEach((d, i) => {
                  const row = table.insertRow();
                  row.insertCell().textContent = 'Z' + (i + 1);
                  const bar = document.createElement('div'); bar.className = 'bar';
                  bar.style.background = z.colors[i]; bar.style.width = (100 * d / total) + '%';
                  const cell = row.insertCell(); cell.style.width = '70%'; cell.appendChild(bar);
                  row.insertCell().textContent = clock(d);
                  // Of a multisport workout, the activity's own time in the zone.
                  if (z.activityDurations) row.insertCell().textContent = 'this activity ' + clock(z.activityDurations[i]);
                });
                zones.appendChild(table);
              }
              const sensors = document.getElementById('sensors'); sensors.textContent = '';
              for (const s of p.sensors) {
                const row = sensors.insertRow();
                row.insertCell().textContent = s.name;
                row.insertCell().textContent = s.link + (s.retryIn != null ? ' (retry in ' + s.retryIn + ' s)' : '');
                row.insertCell().textContent = s.battery != null ? s.battery + ' %' : '';
              }
            }
            const api = \(JSONValue.string(api).serialized.replacingOccurrences(of: "<", with: "\\u003c"));
            const source = new EventSource(api + '/live');
            const relay = r => show('relay', r ? r.summary : '');
            source.addEventListener('snapshot', e => { const s = JSON.parse(e.data); show('state', s.state); started(s.start); render(s.live); relay(s.relay); });
            source.addEventListener('relay', e => relay(JSON.parse(e.data)));
            source.addEventListener('live', e => render(JSON.parse(e.data)));
            source.addEventListener('state', e => { const s = JSON.parse(e.data); show('state', s.state); started(s.start); });
            source.addEventListener('ended', () => show('state', 'ended'));
            source.onerror = () => show('state', 'reconnecting…');
            for (const b of document.querySelectorAll('button[data-action]')) {
              b.onclick = async () => {
                if (b.dataset.action === 'end' && !confirm('End and save the workout?')) return;
                show('result', await post(api + '/session/' + b.dataset.action) || '');
              };
            }
            """
        return page(title: rider.map { "Live: \($0)" } ?? "Live", here: "/", viewer: viewer, live: true, body: body, script: script)
    }

    /// The class screen (`/class`): a tile per rider who is recording, the zone's colour filling
    /// it, big enough to read across a room on a TV and still whole on a phone; from `/api/class`.
    static func classPage(viewer: Viewer) -> String {
        let body = """
            <h1>Class <span id="state" class="muted">connecting…</span></h1>
            <div id="riders" class="riders"></div>
            <p id="empty" class="muted">Nobody is riding yet: tiles come as straps connect.</p>
            """
        let script = liveHelpers + """
            function cell(parent, tag, className, text) {
              const e = document.createElement(tag); if (className) e.className = className; e.textContent = text; parent.appendChild(e); return e;
            }
            function render(c) {
              const riders = document.getElementById('riders'); riders.textContent = '';
              document.getElementById('empty').hidden = c.riders.length > 0;
              for (const r of c.riders) {
                const tile = cell(riders, 'a', 'rider', '');
                if (r.name != null) tile.href = '/athletes/' + encodeURIComponent(r.name) + '/live';
                tile.dataset.name = r.name == null ? '' : r.name;
                if (r.zone) tile.style.background = r.zone.color;
                cell(tile, 'div', 'name', r.name == null ? 'box' : r.name);
                cell(tile, 'div', 'heartRate', value(r.heartRate));
                const line = [];
                if (r.percentOfMaximum != null) line.push(r.percentOfMaximum + ' % max');
                if (r.power != null) line.push(value(r.power) + ' W' + (r.wattsPerKilogram != null ? ' ' + r.wattsPerKilogram.toFixed(1) + ' W/kg' : ''));
                if (r.zone) line.push('zone ' + r.zone.number + ' ' + clock(r.inZoneFor));
                cell(tile, 'div', 'line', line.join(' · ') || ' ');
                const more = [clock(r.active)];
                if (r.zonePoints != null) more.push(r.zonePoints + ' pts');
                if (r.calories != null) more.push(r.calories + ' kcal');
                if (r.timeInTarget != null) more.push('target ' + clock(r.timeInTarget));
                if (r.paused) more.push('paused');
                const lost = r.sensors.filter(s => s.link !== 'notifying').map(s => s.key + ' ' + s.link);
                cell(tile, 'div', 'line small', more.concat(lost).join(' · '));
              }
            }
            const source = new EventSource('/api/class');
            source.addEventListener('class', e => { document.getElementById('state').textContent = ''; render(JSON.parse(e.data)); });
            source.onerror = () => { document.getElementById('state').textContent = 'reconnecting…'; };
            """
        return page(title: "Class", here: "/", viewer: viewer, live: true, body: body, script: script)
    }

    // MARK: Workouts

    /// A JSON instant as the pages show times: local time in `zone` with its offset (`TimeText`).
    static func time(_ instant: JSONValue?, in zone: TimeZone) -> String {
        instant?.stringValue.flatMap { TimeText.local(instant: $0, in: zone) } ?? ""
    }

    /// The list, from `workouts list --json`; times in `timeZone`.
    static func workouts(_ list: JSONValue, viewer: Viewer, live: Bool, timeZone: TimeZone = .current) -> String {
        let rows = (list["workouts"]?.arrayValue ?? []).map { w -> String in
            let id = Int(w["id"]?.doubleValue ?? 0)
            let start = time(w["start"], in: timeZone)
            return """
                <tr><td><a href="/workouts/\(id)">\(id)</a></td><td>\(XMLText.escaped(String(start)))</td>\
                <td>\(XMLText.escaped(w["activityType"]?.stringValue ?? ""))</td><td>\(clock(w["duration"]?.doubleValue))</td>\
                <td>\(number(w["averageHeartRate"]?.doubleValue))</td><td>\(number(w["averagePower"]?.doubleValue))</td>\
                <td>\(XMLText.escaped(w["state"]?.stringValue ?? ""))</td></tr>
                """
        }
        let body = """
            <h1>Workouts</h1>
            \(rows.isEmpty ? "<p class=\"muted\">No workouts yet.</p>" : """
            <table><tr><th>Id</th><th>Start</th><th>Activity</th><th>Duration</th><th>Avg bpm</th><th>Avg W</th><th>State</th></tr>
            \(rows.joined(separator: "\n"))</table>
            """)
            """
        return page(title: "Workouts", here: "/workouts", viewer: viewer, live: live, body: body)
    }

    /// One workout, from `workouts show ID --json` and its SVG chart; times in `timeZone`.
    static func workout(_ shown: JSONValue, chart: String, viewer: Viewer, live: Bool, timeZone: TimeZone = .current) -> String {
        let id = Int(shown["id"]?.doubleValue ?? 0)
        let w = shown["workout"] ?? .null
        let stats = w["statistics"] ?? .null
        var summary: [(String, String)] = [
            ("Start", time(w["start"], in: timeZone)),
            ("Activity", w["activityType"]?.stringValue ?? ""), ("Duration", clock(w["duration"]?.doubleValue)),
            ("Active", clock(w["activeDuration"]?.doubleValue)),
        ]
        if let hr = stats["heartRate"], hr != .null {
            summary.append(("Heart rate", "avg \(number(hr["average"]?.doubleValue)), max \(number(hr["maximum"]?.doubleValue)) bpm"))
        }
        if let p = stats["cyclingPower"], p != .null {
            summary.append(("Power", "avg \(number(p["average"]?.doubleValue)), NP \(number(p["normalized"]?.doubleValue)), max \(number(p["maximum"]?.doubleValue)) W"))
            if let energy = p["energy"]?.doubleValue { summary.append(("Work", "\(number(energy)) kJ")) }
        }
        if let c = stats["cadence"], c != .null { summary.append(("Cadence", "avg \(number(c["average"]?.doubleValue)) rpm")) }
        let summaryRows = summary.map { "<tr><th>\(XMLText.escaped($0.0))</th><td>\(XMLText.escaped($0.1))</td></tr>" }.joined()

        // The columns of the command line's lap table: active time (pauses left out), elapsed
        // time, heart rate, power and NP.
        let laps = (w["laps"]?.arrayValue ?? []).enumerated().map { index, lap -> String in
            let start = lap["start"]?.doubleValue ?? 0
            let end = lap["end"]?.doubleValue ?? 0
            let s = lap["statistics"] ?? .null
            let figures = [
                s["heartRate"]?["average"], s["heartRate"]?["maximum"], s["cyclingPower"]?["average"],
                s["cyclingPower"]?["normalized"],
            ].map { "<td>\(number($0?.doubleValue))</td>" }.joined()
            return "<tr><td>\(index + 1)</td><td>\(clock(start))</td><td>\(clock(lap["activeDuration"]?.doubleValue))</td>"
                + "<td>\(clock(end - start))</td>\(figures)</tr>"
        }
        // A plan's steps as ridden: the step, its lap, planned and ridden time, time and share in target.
        let planSteps = w["plan"]?["steps"]?.arrayValue ?? []
        let steps = (w["steps"]?.arrayValue ?? []).map { step -> String in
            let place = Int(step["step"]?.doubleValue ?? 0)
            let planned = place >= 1 && place <= planSteps.count ? planSteps[place - 1] : .null
            let share = step["share"]?.doubleValue.map { " (\(Int(($0 * 100).rounded())) %)" } ?? ""
            let inTarget = step["timeInTarget"]?.doubleValue.map { clock($0) + share } ?? "-"
            return "<tr><td>\(place)</td><td>\(number(step["lap"]?.doubleValue))</td>"
                + "<td>\(planned["duration"]?.doubleValue.map { clock($0) } ?? "open")</td><td>\(clock(step["activeDuration"]?.doubleValue))</td>"
                + "<td>\(inTarget)</td><td>\(XMLText.escaped(planned["text"]?.stringValue ?? ""))</td></tr>"
        }
        let stepTable = steps.isEmpty ? "" : """
            <h2>Steps of \(XMLText.escaped(w["plan"]?["name"]?.stringValue ?? "the plan"))</h2>
            <table id="steps"><tr><th>Step</th><th>Lap</th><th>Planned</th><th>Ridden</th><th>In target</th><th>Target</th></tr>\(steps.joined())</table>
            """
        let activities = (w["activities"]?.arrayValue ?? []).map { activity -> String in
            let groups = activity["zoneGroups"]?.objectValue?.pairs ?? []
            let tables = groups.map { zoneTable($0.key, $0.value) }.joined()
            return "<h2>\(XMLText.escaped((activity["activityType"]?.stringValue ?? "").capitalized))</h2>"
                + (tables.isEmpty ? "<p class=\"muted\">No zones.</p>" : tables)
        }
        let downloads = ["fit", "tcx", "csv", "svg"].map {
            "<a class=\"download\" data-format=\"\($0)\" href=\"/api/workouts/\(id).\($0)\" download>\($0.uppercased())</a>"
        }.joined(separator: " · ")
        let body = """
            <h1>Workout \(id)</h1>
            <table>\(summaryRows)</table>
            <p>Download: \(downloads)</p>
            <div class="chart" id="chart">\(chart)</div>
            \(dfaChart(stats["dfaAlpha1"], duration: w["duration"]?.doubleValue ?? 0))
            <h2>Laps</h2>
            \(stepTable)
            \(laps.isEmpty ? "<p class=\"muted\">One lap.</p>" : "<table id=\"laps\"><tr><th>Lap</th><th>Start</th><th>Active</th><th>Elapsed</th><th>Avg HR</th><th>Max HR</th><th>Avg W</th><th>NP W</th></tr>\(laps.joined())</table>")
            \(activities.joined())
            \(viewer.canChange ? "<p><button id=\"delete\" class=\"danger\">Delete this workout</button> <span id=\"result\" class=\"error\"></span></p>" : "")
            """
        let script = !viewer.canChange ? "" : """
            document.getElementById('delete').onclick = async () => {
              if (!confirm('Delete workout \(id)? This cannot be undone.')) return;
              const error = await post('/api/workouts/\(id)/delete');
              if (error) document.getElementById('result').textContent = error; else location.href = '/workouts';
            };
            """
        return page(title: "Workout \(id)", here: "/workouts", viewer: viewer, live: live, body: body, script: script)
    }

    /// A workout's DFA α1 over time (`statistics.dfaAlpha1`), a point per window, on an axis from 0
    /// to 1.5 with the thresholds' lines at 0.75 and 0.5 and HRVT1 and HRVT2 (heart rate and
    /// power) below; nothing when the workout has no window.
    static func dfaChart(_ dfa: JSONValue?, duration: Double) -> String {
        let series = dfa?["series"]?.arrayValue ?? []
        guard !series.isEmpty, duration > 0 else { return "" }
        let (width, height, left, top) = (960.0, 160.0, 70.0, 10.0)
        let plot = width - left - 24
        func x(_ offset: Double) -> String { String(format: "%.1f", left + min(max(offset / duration, 0), 1) * plot) }
        func y(_ alpha1: Double) -> String { String(format: "%.1f", top + (1 - min(max(alpha1, 0), 1.5) / 1.5) * height) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height + 40))\" role=\"img\" "
            + "aria-label=\"DFA alpha 1 over time\">"
        for (value, label) in [(0.75, "0.75 HRVT1"), (0.5, "0.5 HRVT2")] {
            svg += "<line x1=\"\(Int(left))\" x2=\"\(Int(left + plot))\" y1=\"\(y(value))\" y2=\"\(y(value))\" stroke=\"#9e9e9e\" stroke-dasharray=\"4 4\"/>"
            svg += "<text x=\"4\" y=\"\(y(value))\" font-size=\"12\" font-family=\"sans-serif\">\(label)</text>"
        }
        let points = series.compactMap { point -> String? in
            guard let offset = point["offset"]?.doubleValue, let alpha1 = point["alpha1"]?.doubleValue else { return nil }
            return "\(x(offset)),\(y(alpha1))"
        }
        svg += "<polyline id=\"dfa-line\" fill=\"none\" stroke=\"#6a1b9a\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>"
        svg += "<rect x=\"\(Int(left))\" y=\"\(Int(top))\" width=\"\(Int(plot))\" height=\"\(Int(height))\" fill=\"none\" stroke=\"#424242\"/></svg>"
        func threshold(_ name: String, _ key: String) -> String {
            let t = dfa?["thresholds"]?[key]
            guard let heartRate = t?["heartRate"]?.doubleValue else { return "\(name): not crossed" }
            return "\(name) \(number(heartRate)) bpm" + (t?["power"]?.doubleValue.map { ", \(number($0)) W" } ?? "")
        }
        let mean = dfa?["mean"]?.doubleValue.map { String(format: "%.2f", $0) } ?? "--"
        return "<h2>DFA α1</h2><div class=\"chart\" id=\"dfa\">\(svg)</div>"
            + "<p class=\"muted\">Mean \(mean) over \(series.count) windows; \(threshold("HRVT1", "hrvt1")); \(threshold("HRVT2", "hrvt2")).</p>"
    }

    /// A zone group (`{"configuration", "zoneDurations"}`) as a table with bars in the zones' colours.
    static func zoneTable(_ type: String, _ group: JSONValue) -> String {
        let zones = group["configuration"]?["zones"]?.arrayValue ?? []
        let durations = (group["zoneDurations"]?.arrayValue ?? []).map { $0["duration"]?.doubleValue ?? 0 }
        let total = max(durations.reduce(0, +), 1)
        let colors = ZonePalette.hexColors(count: zones.count)
        let unit = group["configuration"]?["unit"]?.stringValue == "W" ? "W" : "bpm"
        let rows = zones.enumerated().map { index, zone -> String in
            let low = zone["minimum"]?.doubleValue.map { number($0) }
            let high = zone["maximum"]?.doubleValue.map { number($0) }
            let range = low.map { l in high.map { "\(l)–\($0)" } ?? "≥ \(l)" } ?? high.map { "< \($0)" } ?? ""
            let duration = index < durations.count ? durations[index] : 0
            return """
                <tr><td>Z\(index + 1)</td><td>\(range) \(unit)</td><td style="width:50%"><div class="bar" \
                style="background:\(colors[index]);width:\(String(format: "%.1f", 100 * duration / total))%"></div></td>\
                <td>\(clock(duration))</td></tr>
                """
        }
        let name = type == "heartRate" ? "Heart rate" : type == "cyclingPower" ? "Power" : type
        return "<h2>\(XMLText.escaped(name)) zones</h2><table class=\"bars\">\(rows.joined())</table>"
    }

    // MARK: Zones

    /// Time in zone by period (from `workouts zones --json`), and the profile and preferred zones.
    /// Best efforts across the workouts: a choice of grouping and days, the power-duration curve
    /// and, over all the workouts, a table of the best power and heart rate of each duration with
    /// a link to the workout it came from.
    static func best(_ report: BestEffortsReport?, error: String?, query: [String: String], viewer: Viewer, live: Bool) -> String {
        let by = query["by"] ?? ""
        func option(_ value: String, _ name: String) -> String {
            "<option value=\"\(value)\"\(value == by ? " selected" : "")>\(name)</option>"
        }
        func field(_ name: String, _ label: String) -> String {
            "<label>\(label) <input type=\"date\" name=\"\(name)\" value=\"\(XMLText.escaped(query[name] ?? ""))\"></label>"
        }
        var body = "<h1>Best efforts</h1><form method=\"get\" action=\"/best\"><label>Group <select name=\"by\">"
            + option("", "all workouts") + option("week", "by week") + option("month", "by month") + "</select></label> "
            + field("from", "From") + " " + field("to", "To") + " <button>Show</button></form>"
        if let error { body += "<p class=\"error\">\(XMLText.escaped(error))</p>" }
        if let report {
            let curves = report.periods.map { (name: $0.name ?? "all workouts", efforts: $0.power.map(\.effort)) }
            var chart = PowerCurveChart.render(curves, title: "Power-duration curve", unit: "W")
            if chart.hasSuffix("\n") { chart.removeLast() }
            body += "<figure id=\"curve\">\(chart)</figure>"
            if report.periods.count == 1, let all = report.periods.first, all.name == nil {
                func cell(_ entry: BestEffortsReport.Entry?, _ unit: String) -> String {
                    guard let entry else { return "<td>-</td><td></td>" }
                    return "<td>\(number(entry.effort.value)) \(unit)</td>"
                        + "<td><a href=\"/workouts/\(entry.workout.rawValue)\">\(entry.day)</a></td>"
                }
                var rows = ""
                for seconds in BestEfforts.durations {
                    let power = all.power.first { $0.effort.seconds == seconds }
                    let heart = all.heartRate.first { $0.effort.seconds == seconds }
                    guard power != nil || heart != nil else { continue }
                    rows += "<tr><td>\(BestEfforts.durationText(seconds))</td>\(cell(power, "W"))\(cell(heart, "bpm"))</tr>"
                }
                body += "<table id=\"bests\"><tr><th>Time</th><th>Power</th><th>Workout</th><th>Heart rate</th><th>Workout</th></tr>"
                    + rows + "</table><p>Of \(all.workouts) workout\(all.workouts == 1 ? "" : "s"). "
                    + "<code>sensorbridge profile suggest</code> proposes an FTP and heart rates from them.</p>"
            }
        }
        return page(title: "Best efforts", here: "/best", viewer: viewer, live: live, body: body)
    }

    static func zones(
        totals: JSONValue?, error: String?, query: [String: String], profile: JSONValue, preferred: JSONValue, viewer: Viewer,
        live: Bool
    ) -> String {
        let quantity = query["quantity"] ?? "heart-rate"
        let by = query["by"] ?? "week"
        func option(_ value: String, _ name: String, _ selected: String) -> String {
            "<option value=\"\(value)\"\(value == selected ? " selected" : "")>\(name)</option>"
        }
        let normalize = query["normalize"] ?? ""
        var chart = ""
        if let totals {
            chart = periodChart(totals)
        } else if let error {
            chart = "<p class=\"error\">\(XMLText.escaped(error))</p>"
        }
        let profileFields: [(String, String, String)] = [
            ("age", "Age", "age"), ("birth-date", "Birth date", "birthDate"), ("resting-hr", "Resting HR", "restingHeartRate"),
            ("max-hr", "Max HR", "maximumHeartRate"), ("lthr", "Threshold HR (LTHR)", "lactateThresholdHeartRate"),
            ("hr-model", "HR zones (reserve, max or lthr)", "heartRateZoneModel"), ("ftp", "FTP (W)", "functionalThresholdPower"),
            ("power-model", "Power zones (6 or 7)", "powerZoneModel"), ("sex", "Sex (female or male)", "sex"),
            ("weight", "Weight (kg)", "weight"),
        ]
        let inputs = profileFields.map { option, label, key -> String in
            let value = profile[key].flatMap { $0 == .null ? nil : ($0.stringValue ?? $0.doubleValue.map { number($0) }) } ?? ""
            return "<label>\(label) <input name=\"\(option)\" value=\"\(XMLText.escaped(value))\" size=\"10\"></label>"
        }.joined()
        /// The boundaries field of a quantity: the rider's preferred zones (source `user`, as `zones
        /// show --json` says) as its value; otherwise empty, the zones in effect (the system zones
        /// the profile gives) only as its placeholder.
        func boundaries(_ key: String) -> String {
            let zones = preferred[key]?["zones"]?.arrayValue ?? []
            let list = zones.compactMap { $0["maximum"]?.doubleValue.map { number($0) } }.joined(separator: ",")
            guard preferred[key]?["source"]?.stringValue != "user" else { return "value=\"\(XMLText.escaped(list))\"" }
            return "value=\"\"" + (list.isEmpty ? "" : " placeholder=\"\(XMLText.escaped(list)) (from your profile)\"")
        }
        let body = """
            <h1>Time in zone</h1>
            <form method="get" action="/zones">
            <label>Quantity <select name="quantity">\(option("heart-rate", "Heart rate", quantity))\(option("power", "Power", quantity))</select></label>
            <label>By <select name="by">\(option("day", "day", by))\(option("week", "week", by))\(option("month", "month", by))</select></label>
            <label>Zones <select name="normalize">\(option("", "as stored", normalize))\((3...9).map { option("\($0)", "\($0)", normalize) }.joined())</select></label>
            <button>Show</button></form>
            <div id="totals">\(chart)</div>
            <fieldset\(viewer.canChange ? "" : " disabled")>
            <h2>Profile</h2>
            <form id="profile">\(inputs)<button>Save</button> <span class="result"></span></form>
            <h2>Preferred zones</h2>
            <p class="muted">Upper boundaries of every zone but the last, low to high (3 to 9 zones): for example 120,140,155,170. \
            A field left empty has no preferred zones: the zones your profile gives (greyed in it) are used.</p>
            <form class="zones" data-quantity="heart-rate"><label>Heart rate <input name="boundaries" \(boundaries("heartRate")) size="32"></label><button>Save</button> <span class="result"></span></form>
            <form class="zones" data-quantity="power"><label>Power <input name="boundaries" \(boundaries("cyclingPower")) size="32"></label><button>Save</button> <span class="result"></span></form>
            </fieldset>
            """
        let script = """
            function report(form, error) {
              const r = form.querySelector('.result'); r.className = 'result ' + (error ? 'error' : 'ok');
              r.textContent = error || 'saved';
            }
            document.getElementById('profile').onsubmit = async e => {
              e.preventDefault();
              const body = {};
              for (const input of e.target.querySelectorAll('input')) if (input.value.trim()) body[input.name] = input.value.trim();
              report(e.target, await post('/api/profile', body));
            };
            for (const form of document.querySelectorAll('form.zones')) form.onsubmit = async e => {
              e.preventDefault();
              report(form, await post('/api/zones/' + form.dataset.quantity, {boundaries: form.querySelector('input').value.trim()}));
            };
            """
        return page(title: "Zones", here: "/zones", viewer: viewer, live: live, body: body, script: script)
    }

    /// Stacked bars of time in each zone per period, as SVG, in the zones' colours.
    static func periodChart(_ totals: JSONValue) -> String {
        let periods = totals["periods"]?.arrayValue ?? []
        guard !periods.isEmpty else { return "<p class=\"muted\">No workouts in these periods.</p>" }
        let zoneCount = totals["configuration"]?["zones"]?.arrayValue?.count ?? 0
        let colors = ZonePalette.hexColors(count: zoneCount)
        let longest = max(periods.map { $0["totalDuration"]?.doubleValue ?? 0 }.max() ?? 1, 1)
        let rowHeight = 26.0
        let width = 640.0
        let left = 110.0
        let right = 70.0
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(Double(periods.count) * rowHeight + 40))\" role=\"img\" aria-label=\"time in zone by period\">"
        for (row, period) in periods.enumerated() {
            let y = 10 + Double(row) * rowHeight
            svg += "<text x=\"4\" y=\"\(y + 16)\" font-size=\"13\" font-family=\"sans-serif\">\(XMLText.escaped(period["period"]?.stringValue ?? ""))</text>"
            var x = left
            for zone in period["zoneDurations"]?.arrayValue ?? [] {
                let index = Int(zone["index"]?.doubleValue ?? 0)
                let duration = zone["duration"]?.doubleValue ?? 0
                let w = (width - left - right) * duration / longest
                guard w > 0, index < colors.count else { continue }
                svg += "<rect x=\"\(String(format: "%.1f", x))\" y=\"\(y)\" width=\"\(String(format: "%.1f", w))\" height=\"\(rowHeight - 6)\" fill=\"\(colors[index])\"><title>Z\(index + 1): \(clock(duration))</title></rect>"
                x += w
            }
            svg += "<text x=\"\(String(format: "%.1f", x + 6))\" y=\"\(y + 16)\" font-size=\"13\" font-family=\"sans-serif\">\(clock(period["totalDuration"]?.doubleValue))</text>"
        }
        let legendY = 10 + Double(periods.count) * rowHeight + 16
        for index in 0..<zoneCount {
            let x = left + Double(index) * 56
            svg += "<rect x=\"\(x)\" y=\"\(legendY - 11)\" width=\"12\" height=\"12\" fill=\"\(colors[index])\"/><text x=\"\(x + 16)\" y=\"\(legendY)\" font-size=\"12\" font-family=\"sans-serif\">Z\(index + 1)</text>"
        }
        return "<div class=\"chart\">" + svg + "</svg></div>"
    }
}
