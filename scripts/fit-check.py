#!/usr/bin/env python3
"""Decodes a FIT file with Garmin's FIT SDK for Python (PyPI garmin-fit-sdk) and prints a JSON
summary for the export tests: {"integrity", "errors", "records", "recordFields", "sessions",
"laps", "timeInZone", "hrvIntervals", "events" ([timestamp, event, event_type, timer_trigger]),
"fileType", "workout", "workoutSteps", "sessionDeveloperFields" (each session's developer fields by their field_description's
field_name)}. Usage: fit-check.py FILE.fit"""
import json
import sys

from garmin_fit_sdk import Decoder, Stream


def summary_fields(message):
    keys = ["start_time", "timestamp", "total_elapsed_time", "total_timer_time", "avg_heart_rate",
            "max_heart_rate", "min_heart_rate", "avg_power", "max_power", "normalized_power", "total_work",
            "avg_cadence", "max_cadence", "sport", "message_index", "first_lap_index", "num_laps",
            "total_calories", "lap_trigger", "threshold_power", "training_stress_score", "intensity_factor",
            "wkt_step_index"]
    return {k: plain(message[k]) for k in keys if k in message}


def plain(value):
    if hasattr(value, "timestamp"):
        return int(value.timestamp())
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def main():
    integrity = Decoder(Stream.from_file(sys.argv[1])).check_integrity()
    # A decoder of its own: the integrity check leaves its stream at the end.
    messages, errors = Decoder(Stream.from_file(sys.argv[1])).read(convert_datetimes_to_dates=False)
    records = messages.get("record_mesgs", [])
    names = {d["key"]: d.get("field_name") for d in messages.get("field_description_mesgs", [])}
    fields = sorted({k for r in records for k in r})
    print(json.dumps({
        "integrity": integrity,
        "errors": [str(e) for e in errors],
        "fileType": plain(messages.get("file_id_mesgs", [{}])[0].get("type")),
        "records": len(records),
        "recordTimestamps": [r.get("timestamp") for r in records],
        "recordFields": fields,
        "recordValues": {k: [r.get(k) for r in records] for k in
                         ("heart_rate", "power", "cadence", "speed", "left_right_balance")},
        "events": [[e.get("timestamp"), e.get("event"), e.get("event_type"), e.get("timer_trigger")]
                   for e in messages.get("event_mesgs", [])],
        "devices": len(messages.get("device_info_mesgs", [])),
        "sessions": [summary_fields(s) for s in messages.get("session_mesgs", [])],
        "sessionDeveloperFields": [
            {names.get(k, str(k)): v for k, v in s.get("developer_fields", {}).items()}
            for s in messages.get("session_mesgs", [])],
        "laps": [summary_fields(l) for l in messages.get("lap_mesgs", [])],
        "activity": {k: plain(v) for k, v in messages.get("activity_mesgs", [{}])[0].items()},
        "timeInZone": [{k: plain(v) for k, v in t.items()} for t in messages.get("time_in_zone_mesgs", [])],
        "workout": {k: plain(v) for k, v in messages.get("workout_mesgs", [{}])[0].items()},
        "workoutSteps": [{k: plain(v) for k, v in w.items()} for w in messages.get("workout_step_mesgs", [])],
        "hrvIntervals": [v for h in messages.get("hrv_mesgs", []) for v in (h.get("time") if isinstance(h.get("time"), list) else [h.get("time")]) if v is not None],
    }))


main()
