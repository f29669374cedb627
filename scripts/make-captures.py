#!/usr/bin/env python3
"""Writes the synthetic traces in Captures/ (see Captures/README.md).

Deterministic (seeded); run it again and the files come out byte for byte the same. Payloads are
encoded by hand from the GATT Specification Supplement, independently of the Swift decoders.
Heart rate notifies at whole seconds, power at every quarter second; events sit on whole
seconds. Values carry small noise that never crosses a zone boundary of the profile the tests
use (age 40, resting HR 50 -> HR zones 128/141/154/167; FTP 250 -> power zones
138/188/225/263/300, rounded half away from zero), so the tests can work out time in zone from the schedules below.
"""
import json
import random
import struct
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "Captures"


def header(start, devices):
    return {"sensorbridge": "trace", "version": 1, "start": start, "devices": devices}


def hr_payload(bpm, rr_ticks, energy=None):
    flags = 0x06  # contact supported and detected, uint8 value
    body = struct.pack("<B", bpm)
    if energy is not None:
        flags |= 0x08
        body += struct.pack("<H", energy)
    if rr_ticks:
        flags |= 0x10
        body += b"".join(struct.pack("<H", r) for r in rr_ticks)
    return (struct.pack("<B", flags) + body).hex()


def cp_payload(watts, crank_revs, crank_time):
    # flags 0x0020: crank revolution data; sint16 power; uint16 revs; uint16 time (1/1024 s)
    return struct.pack("<HhHH", 0x0020, watts, crank_revs & 0xFFFF, crank_time & 0xFFFF).hex()


class Heart:
    """Beats at 60/bpm s with a little variability; each notification carries the RR intervals
    of the beats since the previous one."""

    def __init__(self, rng):
        self.rng = rng
        self.next_beat = 0.0
        self.last_beat = None

    def notify(self, t, bpm):
        rrs = []
        while self.next_beat <= t:
            interval = 60.0 / bpm * (1 + self.rng.uniform(-0.03, 0.03))
            if self.last_beat is not None:
                rrs.append(round((self.next_beat - self.last_beat) * 1024))
            self.last_beat = self.next_beat
            self.next_beat += interval
        return rrs[-4:]  # at most four per notification, as straps send


class Crank:
    """Cumulative crank revolutions (starting near the uint16 wrap) and last event times."""

    def __init__(self, revs=65000):
        self.revs = revs
        self.last_event = 0.0
        self.next_event = None

    def advance(self, t, rpm):
        if rpm <= 0:
            self.next_event = None
            return
        if self.next_event is None:
            self.next_event = t + 60.0 / rpm
        while self.next_event <= t:
            self.revs += 1
            self.last_event = self.next_event
            self.next_event += 60.0 / rpm

    def data(self):
        return self.revs, round(self.last_event * 1024)


class RampHeart:
    """A ramp's beats (DESIGN.md "DFA a1"): the rate climbs linearly from `low` to `high` bpm over
    `seconds`, plus an AR(1) fluctuation of 10 ms standard deviation whose coefficient falls from
    0.95 to -0.6, so the beats go from strongly correlated (DFA a1 about 1.3) to anticorrelated
    (below 0.5), as a rider's do from easy to hard."""

    def __init__(self, rng, seconds, low, high):
        self.rng = rng
        self.seconds = seconds
        self.low = low
        self.high = high
        self.fluctuation = 0.0
        self.next_beat = 0.0
        self.last_beat = None

    def bpm(self, t):
        return self.low + min(1.0, t / self.seconds) * (self.high - self.low)

    def notify(self, t):
        rrs = []
        while self.next_beat <= t:
            coefficient = 0.95 - 1.55 * min(1.0, self.next_beat / self.seconds)
            self.fluctuation = (coefficient * self.fluctuation
                                + 0.01 * (1 - coefficient * coefficient) ** 0.5 * self.rng.gauss(0, 1))
            interval = 60.0 / self.bpm(self.next_beat) + self.fluctuation
            if self.last_beat is not None:
                rrs.append(round((self.next_beat - self.last_beat) * 1024))
            self.last_beat = self.next_beat
            self.next_beat += interval
        return rrs[-4:]


def segment_value(schedule, t):
    for start, end, value in schedule:
        if start <= t < end:
            return value
    return schedule[-1][2]


def write(name, head, records):
    lines = [json.dumps(head, separators=(",", ":"))]
    records.sort(key=lambda r: (r["t"], 0 if "event" in r else 1))
    lines += [json.dumps(r, separators=(",", ":")) for r in records]
    (OUT / name).write_text("\n".join(lines) + "\n")
    notifications = sum(1 for r in records if "uuid" in r)
    print(f"{name}: {notifications} notifications, {len(records) - notifications} events", file=sys.stderr)


def t_json(t):
    return int(t) if float(t).is_integer() else t


def run_30min():
    rng = random.Random(30)
    heart = Heart(rng)
    schedule = [(0, 300, 115), (300, 600, 135), (600, 1200, 148), (1200, 1500, 160), (1500, 1620, 172), (1620, 1800, 125)]
    records = [{"t": 0, "event": "activity", "activityType": "running"}]
    energy = 0.0
    for t in range(0, 1800):
        bpm = segment_value(schedule, t) + rng.randint(-2, 2)
        energy += bpm * 0.0035
        e = round(energy) if t % 10 == 0 else None
        records.append({"t": t, "device": "hr", "uuid": "2a37", "hex": hr_payload(bpm, heart.notify(t, bpm), e)})
    records.append({"t": 1800, "event": "end"})
    write("run-30min-hr.jsonl",
          header("2026-11-01T07:00:00Z", {"hr": {"name": "HRM-Pro", "address": "C4:7E:11:22:33:44"}}), records)


def ride(name, start, power_schedule, hr_schedule, events, end, power_gaps, cadence=90, pause_spans=()):
    rng = random.Random(name)
    heart = Heart(rng)
    crank = Crank()
    records = [dict(e) for e in events]

    def paused(t):
        return any(a <= t < b for a, b in pause_spans)

    for t in range(0, end):
        bpm = (110 if paused(t) else segment_value(hr_schedule, t)) + rng.randint(-2, 2)
        records.append({"t": t, "device": "hr", "uuid": "2a37", "hex": hr_payload(bpm, heart.notify(t, bpm))})
    for k in range(0, end * 4):
        t = k / 4
        if any(a <= t < b for a, b in power_gaps):
            continue
        target = segment_value(power_schedule, t)
        if target is None:
            continue
        still = paused(t)
        watts = 0 if still else target + rng.randint(-3, 3)
        crank.advance(t, 0 if still else cadence)
        revs, time = crank.data()
        records.append({"t": t_json(t), "device": "power", "uuid": "2a63", "hex": cp_payload(watts, revs, time)})
    records.append({"t": end, "event": "end"})
    devices = {"hr": {"name": "HRM-Pro", "address": "C4:7E:11:22:33:44"},
               "power": {"name": "Assioma", "address": "E8:FE:6E:91:9F:16"}}
    write(name, header(start, devices), records)


def ride_60min():
    power = [(0, 600, 120), (600, 1200, 165), (1200, 1320, 0), (1320, 1800, 205), (1800, 2200, 245),
             (2200, 2400, 280), (2400, 2460, 0), (2460, 2700, 320), (2700, 3780, 150)]
    hr = [(0, 600, 120), (600, 1200, 135), (1200, 1320, 110), (1320, 1800, 148), (1800, 2200, 158),
          (2200, 2400, 162), (2400, 2460, 110), (2460, 2700, 172), (2700, 3780, 132)]
    events = [{"t": 0, "event": "activity", "activityType": "cycling"},
              {"t": 600, "event": "lap"}, {"t": 1200, "event": "pause"}, {"t": 1320, "event": "resume"},
              {"t": 1320, "event": "lap"}, {"t": 1800, "event": "lap"},
              {"t": 2000, "event": "disconnected", "device": "power"},
              {"t": 2040, "event": "connected", "device": "power"},
              {"t": 2200, "event": "lap"}, {"t": 2400, "event": "pause"}, {"t": 2460, "event": "resume"},
              {"t": 2460, "event": "lap"}, {"t": 2700, "event": "lap"}]
    ride("ride-60min-hr-power.jsonl", "2026-11-02T17:30:00Z", power, hr, events, 3780,
         power_gaps=[(2000, 2040)], pause_spans=[(1200, 1320), (2400, 2460)])


def multisport():
    power = [(0, 300, 200), (300, 590, 255), (590, 1080, None)]
    hr = [(0, 300, 135), (300, 600, 150), (600, 1080, 160)]
    events = [{"t": 0, "event": "activity", "activityType": "cycling"},
              {"t": 600, "event": "activity", "activityType": "running"}]
    ride("multisport-bike-run.jsonl", "2026-11-03T09:00:00Z", power, hr, events, 1080, power_gaps=[])


def ramp_25min():
    rng = random.Random("ramp")
    seconds = 1500
    heart = RampHeart(rng, seconds, 100, 185)
    crank = Crank()
    records = [{"t": 0, "event": "activity", "activityType": "cycling"}]
    for t in range(0, seconds):
        records.append({"t": t, "device": "hr", "uuid": "2a37", "hex": hr_payload(round(heart.bpm(t)), heart.notify(t))})
    for k in range(0, seconds * 4):
        t = k / 4
        crank.advance(t, 90)
        revs, time = crank.data()
        watts = round(100 + 250 * t / seconds) + rng.randint(-3, 3)
        records.append({"t": t_json(t), "device": "power", "uuid": "2a63", "hex": cp_payload(watts, revs, time)})
    records.append({"t": seconds, "event": "end"})
    devices = {"hr": {"name": "HRM-Pro", "address": "C4:7E:11:22:33:44"},
               "power": {"name": "Assioma", "address": "E8:FE:6E:91:9F:16"}}
    write("ramp-25min-hr-power.jsonl", header("2026-11-04T18:00:00Z", devices), records)


if __name__ == "__main__":
    run_30min()
    ride_60min()
    multisport()
    ramp_25min()
