#!/usr/bin/python3
"""Calls org.bluez methods on the bus in DBUS_SYSTEM_BUS_ADDRESS and prints what the bus answered,
for the D-Bus policy test (DeploymentFilesTests), which runs it as an unprivileged user.

Argument: a JSON list of calls, each {"name", "path", "interface", "member", "signature", "args"}.
Prints one JSON line first, {"uid": ..., "gid": ..., "groups": [...]}, then one per call, in order:
{"call": NAME, "answer": "ok"} or the D-Bus error name (org.freedesktop.DBus.Error.AccessDenied when
the bus's policy refused the call; any other answer came from the service, so the policy let it
through).
Each call waits at most 5 seconds.
"""
import json
import os
import sys

import dbus


def main():
    calls = json.loads(sys.argv[1])
    bus = dbus.bus.BusConnection(os.environ['DBUS_SYSTEM_BUS_ADDRESS'])
    print(json.dumps({'uid': os.getuid(), 'gid': os.getgid(), 'groups': os.getgroups()}), flush=True)
    for call in calls:
        try:
            bus.call_blocking('org.bluez', call['path'], call['interface'], call['member'], call['signature'],
                              call['args'], timeout=5)
            answer = 'ok'
        except dbus.exceptions.DBusException as error:
            answer = error.get_dbus_name()
        print(json.dumps({'call': call['name'], 'answer': answer}), flush=True)


if __name__ == '__main__':
    sys.exit(main())
