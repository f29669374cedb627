#!/usr/bin/python3
"""A mock org.bluez for SensorBridge's tests and benchmark, built on python-dbusmock.

Owns org.bluez on the bus in DBUS_SYSTEM_BUS_ADDRESS with dbusmock's bluez5 template, adds one
adapter (hci0), one LE device per device of a JSONL trace's header, and under each device the GATT
service and characteristic objects real BlueZ exports (/org/bluez/hci0/dev_XX/serviceNNNN/charNNNN,
org.bluez.GattCharacteristic1 with UUID, Value, Notifying, Flags, StartNotify, StopNotify,
ReadValue). Once every measurement characteristic notifies, it plays the trace's notifications
as PropertiesChanged on Value (--speed: a factor on the trace's pace, or 0 for as fast as
possible), then prints "played N"; a silence in the trace is a silence in the notifications. A
trace "disconnected"/"connected" event drops or restores the device's link (Connected false, and
the app must Connect again). A dropped device is out of range until the "connected" line brings it
back in range (it prints "link KEY in range again at NS", NS its CLOCK_BOOTTIME time in
nanoseconds): a Connect meanwhile completes if it comes back in time, and fails after
--connect-timeout S (2 by default; about 20 on real controllers) otherwise, without holding the
mock's loop ("connect KEY failed after S s (absent)"). A device in range and not connected advertises, which a client
sees only while the adapter discovers, as with BlueZ: an RSSI change on the device every 100 ms
while some client's discovery filter matches it. At --speed 0 the trace then waits until the app
has reconnected and restarted notifications; at a real pace it plays on (what the device would
send before the app subscribes again is not sent, and not counted as played).

Discovery is per client, as in BlueZ: SetDiscoveryFilter (UUIDs, Transport; other keys are
InvalidArguments) and StartDiscovery start a client's session (a second StartDiscovery answers
InProgress), StopDiscovery or the client leaving the bus ends it (StopDiscovery without one answers
Failed), and the adapter is Discovering while any client discovers. It prints "discovery started:
TRANSPORT UUID..." (16-bit UUIDs) and "discovery stopped", or "discovery stopped (client gone)".

--paired makes the sensors paired already. --stamp appends the send
time to each notification, for the benchmark's latency. A --bonding device's Pair asks the agent
registered with AgentManager1 (RequestAuthorization) and fails without one. An --acquire-notify
device's measurements offer AcquireNotify: the notifications then go through a socket instead.
A --notify-in-progress device answers the first
StartNotify of each measurement with org.bluez.Error.InProgress and does not notify; a --silent
device's first subscription succeeds but nothing is sent until the app subscribes again
(StopNotify, StartNotify); a --notify-fails device's StartNotify fails with org.bluez.Error.NotPermitted.
Values a device does not send are not counted as played.

The adapter is also a peripheral, and the mock plays the centrals connected to it: GattManager1
RegisterApplication reads the application through its ObjectManager (GetManagedObjects) as
bluetoothd does (prints "application registered: UUID... (N characteristics)"), reads each read
characteristic ("relay read UUID HEX"), then --centrals N (default 1) centrals connect (each a
device under the adapter, C0:FF:EE:00:00:0I, whose Connected turns true) and subscribe to each
notify characteristic ("relay subscribed UUID N"): with AcquireNotify when the characteristic has
NotifyAcquired, as the --bluez-version does (before 5.69 one socket for the first central, from 5.69
one per central; before 5.76 a packet on any socket reaches every central, from 5.76 only that
socket's), else, or with --relay-start-notify (bluetoothd's fallback), with StartNotify (each value a
PropertiesChanged on Value, reaching every subscribed central once). Each value a
central receives is printed as "relayed CENTRAL UUID HEX"; each central reads its sockets on a
thread of its own (with --quiet-relay, one process counts them all, as bluetoothd reads them),
as a device of its own would.
--centrals-stall: they never read them. --central-leaves-after K: once the
last central has received K values it leaves as bluetoothd has a central leave (its sockets
closed, or StopNotify when it was the last subscribed; Connected false) and prints "central I
left". LEAdvertisingManager1 RegisterAdvertisement reads the advertisement's properties
("advertising NAME: UUID..."); Unregister... print "application unregistered" (after printing
what the sockets still held) and "advertisement unregistered".

An application's objects with org.bluez.GattProfile1 register their UUIDs as auto-connect
profiles, as bluetoothd's profile_add does ("profile registered: UUID..."; the application may hold
services too, read as above). bluetoothd reconnects no sensor by itself otherwise, whatever its
cache setting. A device that comes back in range ("connected" line) is then connected by the mock
itself, as the kernel's passive-scan auto-connect does, when it is known (connected before, or
paired) and offers a profile's UUID: "link KEY back by auto-connect after N played". Its StartNotify
subscriptions come back notifying with no new StartNotify; its AcquireNotify sockets do not (the
app must AcquireNotify again). UnregisterApplication drops the profile and calls its Release
("profile unregistered: UUID...", then "profile released" or "profile release failed: ERROR"), and
so does its application leaving the bus ("profile dropped (application gone): UUID...", no
Release) or the adapter being unplugged. A --private-address device (a resolvable private address
BlueZ holds no key for) is never made auto-connect, as bluetoothd's device_set_auto_connect skips
private addresses: it comes back only by the app's Connect.

--no-peripheral leaves
"peripheral" out of the adapter's Roles; --advertising-slots N sets SupportedInstances (default
5); --advertising-fails N refuses the first N RegisterAdvertisement calls ("advertisement refused").
--hangup-first MS: a link that drops hangs up its AcquireNotify sockets MS ms before Connected
turns false (bluetoothd sends the two from separate paths, in either order).
--temporary-timeout S: a device never connected nor paired is removed S seconds after it was last
seen ("removed ADDRESS (temporary)") and added again when a discovery sees it ("found ADDRESS").
--gatt-fails DEVICE: its first connection resolves services without any GATT object, as
bluetoothd does when discovery failed ("services resolved without GATT objects ADDRESS").
--bluez-version V (default 5.66) plays that release's own behaviours: from 5.84 the devices carry
org.bluez.Bearer.LE1 (empty, as without bluetoothd's --experimental); the relay's sockets as above;
5.87 crashes on a discovery filter naming UUIDs ("bluetoothd crashed").
--drop-during-subscribe DEVICE: the device's link drops while its first measurement's first
subscription is set up (it stays in range). StartNotify then fails ("Operation failed with ATT error:
0x0e"), and so does AcquireNotify from 5.84; before 5.84 AcquireNotify is never answered and the
characteristic is stuck: AcquireNotify and StartNotify answer NotPermitted "Notify acquired", it
never notifies again, and a StopNotify on it crashes bluetoothd ("bluetoothd crashed"). --late-adapter S takes the name S seconds before the adapter appears (then LEAdvertisingManager1
0.2 s later), as bluetoothd starting does, on every start ("adapter added").

SIGUSR1 unplugs the adapter (its objects vanish, the links are gone; prints "unplugged"), SIGUSR2
plugs it back (the objects return, disconnected; the trace plays again and "played N" is printed
again).

Prints "ready" once the objects exist. Reads nothing; stop it with SIGTERM.
"""
import argparse
import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import dbus
import dbus.lowlevel
import dbus.mainloop.glib
import dbus.service
import dbusmock
import dbusmock.mockobject
from gi.repository import GLib

_output = threading.Lock()


def print(*values, sep=' ', end='\n', flush=True):  # noqa: A001 -- one write per line: the centrals' threads print too
    with _output:
        sys.stdout.write(sep.join(str(value) for value in values) + end)
        if flush:
            sys.stdout.flush()


DEVICE = 'org.bluez.Device1'
ADAPTER = 'org.bluez.Adapter1'
CHAR = 'org.bluez.GattCharacteristic1'
SERVICE = 'org.bluez.GattService1'
PROPS = 'org.freedesktop.DBus.Properties'
BASE = '-0000-1000-8000-00805f9b34fb'

# Per measurement service: (service uuid, measurement uuid, read-once characteristics with their values).
PROFILES = {
    '2a37': ('180d', [('2a38', [1])]),  # Body Sensor Location: chest
    '2a63': ('1818', [('2a65', [0x0c, 0, 0, 0]), ('2a5d', [5])]),  # CP Feature; Sensor Location: left crank
    '2a5b': ('1816', [('2a5d', [6])]),
}


def full(short):
    return '0000' + short + BASE


def short(uuid):
    uuid = str(uuid).lower()
    return uuid[4:8] if len(uuid) == 36 and uuid.startswith('0000') and uuid.endswith(BASE) else uuid


class Discovery:
    """The adapter's discovery sessions, one per client (its unique bus name) as BlueZ keeps them,
    and the filters the clients set."""

    FILTER_KEYS = {'UUIDs', 'RSSI', 'Pathloss', 'Transport', 'DuplicateData', 'Discoverable', 'Pattern'}

    def __init__(self, adapter, version):
        self.adapter = adapter
        self.version = version
        self.filters = {}  # client -> filter dict (SetDiscoveryFilter)
        self.sessions = set()  # clients discovering

    def set_filter(self, client, discovery_filter):
        unknown = set(discovery_filter) - self.FILTER_KEYS
        transport = str(discovery_filter.get('Transport', 'auto'))
        if unknown or transport not in ('auto', 'bredr', 'le'):
            raise dbus.exceptions.DBusException('Invalid arguments in method call',
                                                name='org.bluez.Error.InvalidArguments')
        if self.version == (5, 87) and discovery_filter.get('UUIDs'):
            # bluetoothd 5.87 dies on a filter that names UUIDs (a regression fixed after 5.87):
            # its name goes, and every link with it.
            print('bluetoothd crashed: SetDiscoveryFilter with UUIDs', flush=True)
            os._exit(134)
        self.filters[client] = dict(discovery_filter)

    def start(self, client):
        if client in self.sessions:
            raise dbus.exceptions.DBusException('Operation already in progress', name='org.bluez.Error.InProgress')
        self.sessions.add(client)
        f = self.filters.get(client, {})
        uuids = ' '.join(short(u) for u in f.get('UUIDs', [])) or 'any'
        rssi = f" rssi {int(f['RSSI'])}" if 'RSSI' in f else ''
        print(f"discovery started: {f.get('Transport', 'auto')} {uuids}{rssi}", flush=True)
        self.update()

    def stop(self, client, gone=False):
        if gone:
            self.filters.pop(client, None)
        if client not in self.sessions:
            if gone:
                return
            raise dbus.exceptions.DBusException('No discovery started', name='org.bluez.Error.Failed')
        self.sessions.discard(client)
        print('discovery stopped' + (' (client gone)' if gone else ''), flush=True)
        self.update()

    def reset(self):
        """The adapter is gone: every session with it (no signal: its object is gone too)."""
        self.sessions.clear()
        self.filters.clear()
        self.adapter.props[ADAPTER]['Discovering'] = dbus.Boolean(False, variant_level=1)

    def update(self):
        discovering = bool(self.sessions)
        if bool(self.adapter.props[ADAPTER]['Discovering']) != discovering:
            self.adapter.UpdateProperties(ADAPTER, {'Discovering': dbus.Boolean(discovering)})

    def sees(self, device):
        """Whether some client's discovery reports this LE device: transport le or auto, and no
        UUIDs in its filter or one the device has."""
        uuids = {str(u).lower() for u in device.props[DEVICE]['UUIDs']}
        for client in self.sessions:
            f = self.filters.get(client, {})
            wanted = {str(u).lower() for u in f.get('UUIDs', [])}
            if str(f.get('Transport', 'auto')) in ('auto', 'le') and (not wanted or wanted & uuids):
                return True
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--trace', required=True)
    parser.add_argument('--speed', type=float, default=0)
    parser.add_argument('--adapter-off', action='store_true', help='the adapter starts powered off')
    parser.add_argument('--paired', action='store_true', help='the sensors are paired already')
    parser.add_argument('--bonding', action='append', default=[], metavar='DEVICE',
                        help='this trace device asks for bonding: Pair asks the default agent, and fails without one')
    parser.add_argument('--acquire-notify', action='append', default=[], metavar='DEVICE',
                        help="this trace device's measurements also offer AcquireNotify (a SOCK_SEQPACKET socket)")
    parser.add_argument('--private-address', action='append', default=[], metavar='DEVICE',
                        help='this trace device has a private address: a registered GattProfile1 does not auto-connect it')
    parser.add_argument('--notify-in-progress', action='append', default=[], metavar='DEVICE',
                        help="this trace device's first StartNotify answers InProgress and starts nothing")
    parser.add_argument('--silent', action='append', default=[], metavar='DEVICE',
                        help="this trace device's first subscription sends nothing until StopNotify and StartNotify")
    parser.add_argument('--notify-fails', action='append', default=[], metavar='DEVICE',
                        help="this trace device's StartNotify fails with NotPermitted")
    parser.add_argument('--close-socket-after', type=int, default=0, metavar='N',
                        help='close the AcquireNotify socket that carried the Nth value played, the device staying '
                             'connected, and play on once every measurement notifies again (StartNotify)')
    parser.add_argument('--centrals', type=int, default=1, help='centrals subscribing to a registered application')
    parser.add_argument('--relay-start-notify', action='store_true',
                        help='centrals subscribe with StartNotify even where AcquireNotify is offered')
    parser.add_argument('--central-leaves-after', type=int, default=0, metavar='K',
                        help='the last central leaves once it has received K values')
    parser.add_argument('--centrals-stall', action='store_true',
                        help='the centrals never read their AcquireNotify sockets (a bluetoothd stuck)')
    parser.add_argument('--no-peripheral', action='store_true', help="the adapter's Roles lack peripheral")
    parser.add_argument('--quiet-relay', action='store_true',
                        help='count the values relayed instead of printing each (the benchmark); SIGTERM prints the count')
    parser.add_argument('--advertising-slots', type=int, default=5, help='LEAdvertisingManager1.SupportedInstances')
    parser.add_argument('--hangup-first', type=int, default=0, metavar='MS',
                        help="a link that drops hangs up its AcquireNotify sockets MS ms before Connected turns false")
    parser.add_argument('--temporary-timeout', type=float, default=0, metavar='S',
                        help='forget a device never connected S seconds after it was last seen, as bluetoothd does (30)')
    parser.add_argument('--gatt-fails', action='append', default=[], metavar='DEVICE',
                        help="the device's first service discovery fails, yet ServicesResolved turns true")
    parser.add_argument('--bluez-version', default='5.66',
                        help="the bluetoothd release whose version-specific behaviours to play: before 5.84 an "
                             "AcquireNotify whose link drops is never answered and its characteristic stays stuck; "
                             "from 5.84 the devices carry org.bluez.Bearer.LE1; a relay's AcquireNotify sockets as "
                             "5.66-5.68, 5.69-5.75 and 5.76 and later; 5.87 crashes on a discovery filter naming UUIDs")
    parser.add_argument('--connect-timeout', type=float, default=2, metavar='S',
                        help="how long Connect to a device out of range takes to fail (the kernel's LE connection "
                             "timeout: about 20 s on real controllers)")
    parser.add_argument('--drop-during-subscribe', action='append', default=[], metavar='DEVICE',
                        help="the device's link drops while its first measurement's first subscription is set up")
    parser.add_argument('--late-adapter', type=float, default=0,
                        help='add the adapter this many seconds after taking the name, as bluetoothd does')
    parser.add_argument('--advertising-fails', type=int, default=0,
                        help='refuse the first N RegisterAdvertisement calls as a controller that refuses it does')
    parser.add_argument('--stamp', action='store_true',
                        help='append the CLOCK_MONOTONIC send time (ns, 8 bytes little-endian) to each notification')
    args = parser.parse_args()
    args.version = tuple(int(part) for part in args.bluez_version.split('.'))

    with open(args.trace) as f:
        header = json.loads(f.readline())
        lines = [json.loads(line) for line in f if line.strip()]

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ['DBUS_SYSTEM_BUS_ADDRESS'])
    name = dbus.service.BusName('org.bluez', bus, allow_replacement=True, replace_existing=True, do_not_queue=True)
    root = dbusmock.mockobject.DBusMockObject(name, '/', 'org.freedesktop.DBus.ObjectManager', {}, os.devnull, True)
    root.AddTemplate('bluez5', None)
    dbusmock.mockobject.objects['/'] = root
    # Agents by object path -> the bus name that registered them (the template keeps only paths).
    agents = {}
    # The sender of the method call being handled: the bus runs the filters, then the method.
    caller = {'sender': None}

    def watch_calls(_connection, message):
        if isinstance(message, dbus.lowlevel.MethodCallMessage):
            caller['sender'] = message.get_sender()
            char = dbusmock.mockobject.objects.get(message.get_path())
            if message.get_member() == 'AcquireNotify' and getattr(char, 'sb_drop', False) and args.version < (5, 84):
                # bluetoothd before 5.84: the CCC write fails with the link, and AcquireNotify is
                # never answered; the characteristic keeps a dead socket (src/gatt-client.c,
                # register_notify_io_cb).
                char.sb_drop, char.sb_stuck = False, True
                print(f'link {char.sb_key} dropped during AcquireNotify (unanswered, stuck)', flush=True)
                GLib.idle_add(lambda: link(char.sb_device, False) and False)
                return dbus.lowlevel.HANDLER_RESULT_HANDLED
            device = dbusmock.mockobject.objects.get(message.get_path())
            if message.get_interface() == DEVICE and message.get_member() == 'Connect' and getattr(device, 'sb_refuse', False):
                connect_absent(bus, message, device, args.connect_timeout)
                return dbus.lowlevel.HANDLER_RESULT_HANDLED
            if message.get_interface() == 'org.bluez.AgentManager1' and message.get_member() == 'RegisterAgent':
                agents[str(message.get_args_list()[0])] = message.get_sender()
        return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
    bus.add_message_filter(watch_calls)
    adapter = root.AddAdapter('hci0', 'sensorbridge-test')
    adapter_object = dbusmock.mockobject.objects[adapter]
    # What BlueZ 5.56 and later say an LE adapter can be (bleak picks an adapter with "central").
    roles = ['central'] if args.no_peripheral else ['central', 'peripheral']
    adapter_object.props[ADAPTER]['Roles'] = dbus.Array(roles, signature='s', variant_level=1)
    add_peripheral_side(bus, root, adapter_object, caller, args)
    if args.adapter_off:
        adapter_object.props[ADAPTER]['Powered'] = dbus.Boolean(False, variant_level=1)
    # The template's discovery is one switch for everybody; BlueZ keeps a session per client.
    discovery = Discovery(adapter_object, args.version)
    adapter_object.AddMethod(ADAPTER, 'SetDiscoveryFilter', 'a{sv}', '',
                             lambda _self, f: discovery.set_filter(caller['sender'], f))
    adapter_object.AddMethod(ADAPTER, 'StartDiscovery', '', '', lambda _self: discovery.start(caller['sender']))
    adapter_object.AddMethod(ADAPTER, 'StopDiscovery', '', '', lambda _self: discovery.stop(caller['sender']))
    bus.add_signal_receiver(
        lambda name, _old, new: discovery.stop(str(name), gone=True) if not new else None,
        'NameOwnerChanged', 'org.freedesktop.DBus', 'org.freedesktop.DBus', '/org/freedesktop/DBus')

    measurement = {}  # char path -> (device key, uuid)
    devices = {}  # device key -> device object
    uuids_by_device = {}
    for line in lines:
        if 'hex' in line:
            uuids_by_device.setdefault(line['device'], [])
            if line['uuid'] not in uuids_by_device[line['device']]:
                uuids_by_device[line['device']].append(line['uuid'])
    for key in sorted(header['devices']):
        info = header['devices'][key]
        path = root.AddDevice('hci0', info['address'], info.get('name') or key)
        device = dbusmock.mockobject.objects[path]
        devices[key] = device
        device.sb_key, device.sb_chars, device.sb_connecting = key, [], None
        if args.version >= (5, 84):
            # No properties without bluetoothd's --experimental, and listed all the same (src/bearer.c).
            device.props[BEARER_LE] = {}
        services = []
        handle = 0x000c
        for uuid in uuids_by_device.get(key, []):
            service_uuid, extras = PROFILES.get(uuid, ('180f', []))
            services.append(full(service_uuid))
            service_path = f'{path}/service{handle:04x}'
            root.AddObject(service_path, SERVICE, {
                'UUID': dbus.String(full(service_uuid), variant_level=1),
                'Primary': dbus.Boolean(True, variant_level=1),
                'Device': dbus.ObjectPath(path, variant_level=1),
            }, [])
            for char_uuid, value, flags in [(uuid, [], ['notify'])] + [(u, v, ['read']) for u, v in extras]:
                handle += 2
                char_path = f'{service_path}/char{handle:04x}'
                root.AddObject(char_path, CHAR, {
                    'UUID': dbus.String(full(char_uuid), variant_level=1),
                    'Service': dbus.ObjectPath(service_path, variant_level=1),
                    'Value': dbus.Array(value, signature='y', variant_level=1),
                    'Notifying': dbus.Boolean(False, variant_level=1),
                    'Flags': dbus.Array(flags, signature='s', variant_level=1),
                }, [
                    ('StartNotify', '', '', 'self.UpdateProperties("%s", {"Notifying": dbus.Boolean(True)})' % CHAR),
                    ('StopNotify', '', '', 'self.UpdateProperties("%s", {"Notifying": dbus.Boolean(False)})' % CHAR),
                    ('ReadValue', 'a{sv}', 'ay', 'ret = self.props["%s"]["Value"]' % CHAR),
                ])
                if 'notify' in flags:
                    measurement[char_path] = (key, uuid)
                    device.sb_chars.append(char_path)
                    char = dbusmock.mockobject.objects[char_path]
                    char.sb_socket = None
                    char.sb_key, char.sb_uuid = key, uuid
                    char.sb_starts, char.sb_dead = 0, False
                    char.sb_in_progress, char.sb_silent = key in args.notify_in_progress, key in args.silent
                    char.sb_fails = key in args.notify_fails
                    char.sb_device, char.sb_stuck = device, False
                    char.sb_drop = key in args.drop_during_subscribe and not device.sb_chars[:-1]
                    char.AddMethod(CHAR, 'StartNotify', '', '', start_notify)
                    char.AddMethod(CHAR, 'StopNotify', '', '', stop_notify)
                    if key in args.acquire_notify:
                        char.props[CHAR]['NotifyAcquired'] = dbus.Boolean(False, variant_level=1)
                        char.AddMethod(CHAR, 'AcquireNotify', 'a{sv}', 'hq', acquire_notify)
            handle += 0x10
        battery_path = f'{path}/service{handle:04x}'
        root.AddObject(battery_path, SERVICE, {
            'UUID': dbus.String(full('180f'), variant_level=1),
            'Primary': dbus.Boolean(True, variant_level=1),
            'Device': dbus.ObjectPath(path, variant_level=1),
        }, [])
        root.AddObject(f'{battery_path}/char{handle + 2:04x}', CHAR, {
            'UUID': dbus.String(full('2a19'), variant_level=1),
            'Service': dbus.ObjectPath(battery_path, variant_level=1),
            'Value': dbus.Array([87], signature='y', variant_level=1),
            'Notifying': dbus.Boolean(False, variant_level=1),
            'Flags': dbus.Array(['read'], signature='s', variant_level=1),
        }, [('ReadValue', 'a{sv}', 'ay', 'ret = self.props["%s"]["Value"]' % CHAR)])
        services.append(full('180f'))
        device.props[DEVICE]['UUIDs'] = dbus.Array(services, signature='s', variant_level=1)
        device.props[DEVICE]['RSSI'] = dbus.Int16(-60, variant_level=1)
        # Dictionaries, as BlueZ has them (dbusmock's template gives arrays of dictionaries, which bleak
        # cannot read).
        for prop, signature in (('ManufacturerData', 'qv'), ('ServiceData', 'sv'), ('AdvertisingData', 'yv')):
            device.props[DEVICE][prop] = dbus.Dictionary({}, signature=signature, variant_level=1)
        if args.paired:
            device.props[DEVICE]['Paired'] = dbus.Boolean(True, variant_level=1)
        device.AddMethod(DEVICE, 'Connect', '', '', connect)
        device.AddMethod(DEVICE, 'Disconnect', '', '', disconnect)
        # "Just works" bonding of a sensor (the template's Pair turns the device into a phone).
        device.sb_bonding = key in args.bonding
        device.sb_private = key in args.private_address
        device.sb_refuse = False
        device.AddMethod(DEVICE, 'Pair', '', '', lambda self: pair(self, bus, agents))

    char_objects = {path: dbusmock.mockobject.objects[path] for path in measurement}
    state = {'index': 0, 'start': None, 'played': 0, 'waiting': False}

    def value_changed(path, value):
        # Built by hand: dbusmock's EmitSignal parses the signature and logs every call, which holds
        # a flood to about 10,000 signals a second.
        message = dbus.lowlevel.SignalMessage(path, PROPS, 'PropertiesChanged')
        message.append(CHAR, {'Value': dbus.ByteArray(value)}, dbus.Array([], signature='s'), signature='sa{sv}as')
        return message

    # As fast as possible (the benchmark's flood): the messages are built before the clock starts.
    prebuilt = {}
    if args.speed == 0 and not args.stamp:
        for index, line in enumerate(lines):
            if 'hex' in line:
                path = next(p for p, (k, u) in measurement.items() if k == line['device'] and u == line['uuid'])
                prebuilt[index] = value_changed(path, bytes.fromhex(line['hex']))

    def all_notifying():
        # An application being registered is read and subscribed to first: its centrals see every value.
        # A characteristic left stuck (before 5.84) never notifies again: the others play.
        return PERIPHERAL['pending'] == 0 and all(obj.props[CHAR]['Notifying'] or obj.sb_socket or obj.sb_stuck
                                                  for obj in char_objects.values())

    def play():
        if state.get('held'):
            return True
        if state['start'] is None or state['waiting']:
            if not all_notifying():
                return True
            state['waiting'] = False
            if state['start'] is None:
                state['start'] = time.monotonic()
        while state['index'] < len(lines):
            line = lines[state['index']]
            if args.speed > 0 and line['t'] / args.speed > time.monotonic() - state['start']:
                return True
            state['index'] += 1
            if 'hex' in line:
                path = next(p for p, (k, u) in measurement.items() if k == line['device'] and u == line['uuid'])
                obj = char_objects[path]
                if obj.sb_dead or obj.sb_stuck or devices[line['device']].sb_refuse:
                    continue  # a silent subscription, or out of range: never sent
                value = bytes.fromhex(line['hex'])
                if args.stamp:
                    value += time.clock_gettime_ns(time.CLOCK_MONOTONIC).to_bytes(8, 'little')
                if obj.sb_socket:
                    try:
                        obj.sb_socket.send(value)
                        state['played'] += 1
                    except OSError:  # the app closed its end: released
                        release(obj)
                    if state['played'] == args.close_socket_after:
                        # The socket breaks (as when bluetoothd drops it) while the link stays up.
                        release(obj)
                        print(f"socket of {line['device']} closed after {state['played']} played", flush=True)
                        state['waiting'] = True
                        return True
                elif obj.props[CHAR]['Notifying']:
                    # A message is sent once: one built ahead is used on the first play only.
                    message = prebuilt.pop(state['index'] - 1, None)
                    if message is None:
                        message = value_changed(path, value)
                    bus.send_message(message)
                    state['played'] += 1
            elif line.get('event') == 'disconnected':
                # Out of range: the link drops and connecting fails until the "connected" line.
                device = devices[line['device']]
                if args.hangup_first > 0:
                    # The socket's hang-up and Connected=false come from two paths in bluetoothd
                    # (the ATT channel's, the kernel's disconnection event): here the hang-up first,
                    # the link's end hangup_first ms later, the play held meanwhile (the bus still
                    # answered: a client may call the device, still connected, in between).
                    for char_path in device.sb_chars:
                        release(dbusmock.mockobject.objects[char_path])
                    print(f"sockets of {line['device']} hung up", flush=True)
                    state['held'] = True

                    def drop(device=device, key=line['device']):
                        link(device, False)
                        device.sb_refuse = True
                        print(f"link {key} down after {state['played']} played", flush=True)
                        state['held'] = False
                        return False
                    GLib.timeout_add(args.hangup_first, drop)
                    return True
                link(device, False)
                device.sb_refuse = True
                print(f"link {line['device']} down after {state['played']} played", flush=True)
            elif line.get('event') == 'connected' and auto_connects(devices[line['device']]):
                # In range again, known and matching a registered GattProfile1: the kernel's passive
                # scan connects it, and bluetoothd restores its StartNotify sessions (not its sockets).
                device = devices[line['device']]
                device.sb_refuse = False
                link(device, True, restore=True)
                print(f"link {line['device']} back by auto-connect after {state['played']} played", flush=True)
                if args.speed == 0:
                    state['waiting'] = True  # until the app has acquired its sockets again
                    return True
            elif line.get('event') == 'connected':
                # In range again: it advertises until the app reconnects and restarts notifications.
                devices[line['device']].sb_refuse = False
                print(f"link {line['device']} in range again at {time.clock_gettime_ns(time.CLOCK_BOOTTIME)}",
                      flush=True)
                if args.speed == 0:
                    state['waiting'] = True
                    return True
        print(f"played {state['played']}", flush=True)
        return False

    ticks = {'count': 0}

    def advertise():
        # A device in range and not connected advertises; a client sees it (an RSSI change, as
        # BlueZ reports one) only while a discovery that matches it runs.
        ticks['count'] += 1
        for device in devices.values():
            if args.temporary_timeout > 0:
                forget_or_find(device)
            if device.sb_refuse or device.props[DEVICE]['Connected'] or not discovery.sees(device):
                continue
            if getattr(device, 'sb_forgotten', None) is None:
                device.UpdateProperties(DEVICE, {'RSSI': dbus.Int16(-55 - ticks['count'] % 7)})
        return True

    def forget_or_find(device):
        # --temporary-timeout: bluetoothd removes a device it found but never connected (nor paired)
        # TemporaryTimeout seconds (30 by default) after it last saw it, discovering or not
        # (src/device.c); a discovery that sees it advertise adds it again.
        address = device.props[DEVICE]['Address']
        now = time.monotonic()
        if not hasattr(device, 'sb_last_seen'):
            device.sb_last_seen = now  # found by an earlier discovery: the mock's start
        forgotten = getattr(device, 'sb_forgotten', None)
        seen = not device.sb_refuse and discovery.sees(device)
        if forgotten is not None:
            if seen:
                for path in sorted(forgotten):
                    dbusmock.mockobject.objects[path] = forgotten[path]
                    root.EmitSignal('org.freedesktop.DBus.ObjectManager', 'InterfacesAdded', 'oa{sa{sv}}',
                                    [path, forgotten[path].props])
                device.sb_forgotten = None
                device.sb_last_seen = now
                print(f"found {address}", flush=True)
            return
        if seen or device.props[DEVICE]['Connected']:
            device.sb_last_seen = now
            device.sb_ever_connected = getattr(device, 'sb_ever_connected', False) or bool(device.props[DEVICE]['Connected'])
        temporary = not getattr(device, 'sb_ever_connected', False) and not device.props[DEVICE].get('Paired', False)
        if temporary and now - device.sb_last_seen > args.temporary_timeout:
            paths = [p for p in dbusmock.mockobject.objects if p == device.path or p.startswith(device.path + '/')]
            device.sb_forgotten = {p: dbusmock.mockobject.objects.pop(p) for p in paths}
            for path in sorted(paths, reverse=True):
                root.EmitSignal('org.freedesktop.DBus.ObjectManager', 'InterfacesRemoved', 'oas',
                                [path, list(device.sb_forgotten[path].props)])
            print(f"removed {address} (temporary)", flush=True)

    def adapter_objects():
        return [p for p in dbusmock.mockobject.objects if p == adapter or p.startswith(adapter + '/')]

    def unplug():
        # SIGUSR1: the adapter is unplugged. Its objects vanish from the clients' view (InterfacesRemoved,
        # children first) with no word about the links, which are simply gone; the mock keeps them for SIGUSR2.
        discovery.reset()
        drop_profiles(lambda _sender: True, 'adapter gone')
        for device in devices.values():
            device.sb_refuse = True
            device.props[DEVICE]['Connected'] = dbus.Boolean(False, variant_level=1)
            device.props[DEVICE]['ServicesResolved'] = dbus.Boolean(False, variant_level=1)
            for path in device.sb_chars:
                dbusmock.mockobject.objects[path].props[CHAR]['Notifying'] = dbus.Boolean(False, variant_level=1)
                dbusmock.mockobject.objects[path].sb_session = False  # the device objects go, sessions with them
        for path in sorted(adapter_objects(), reverse=True):
            interfaces = list(dbusmock.mockobject.objects[path].props)
            root.EmitSignal('org.freedesktop.DBus.ObjectManager', 'InterfacesRemoved', 'oas', [path, interfaces])
        print('unplugged', flush=True)
        return True

    def replug():
        # SIGUSR2: the adapter is back with its sensors known and disconnected (InterfacesAdded, parents
        # first); the trace plays again once every measurement characteristic notifies.
        for path in sorted(adapter_objects()):
            props = dbusmock.mockobject.objects[path].props
            root.EmitSignal('org.freedesktop.DBus.ObjectManager', 'InterfacesAdded', 'oa{sa{sv}}', [path, props])
        for device in devices.values():
            device.sb_refuse = False
        state.update(index=0, start=None, played=0, waiting=False)
        GLib.timeout_add(2 if args.speed > 0 else 1, play)
        return True

    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGUSR1, unplug)
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGUSR2, replug)
    for key in args.gatt_fails:
        # Not yet discovered: no GATT objects until a connection's discovery succeeds.
        device = devices[key]
        device.sb_root = root
        device.sb_gatt_hidden = {p: dbusmock.mockobject.objects.pop(p)
                                 for p in list(dbusmock.mockobject.objects) if p.startswith(device.path + '/')}
    if args.late_adapter > 0:
        hide_adapter_until(args.late_adapter, root, adapter, adapter_objects())
    GLib.timeout_add(2 if args.speed > 0 else 1, play)
    GLib.timeout_add(100, advertise)
    print('ready', flush=True)
    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_HIGH, signal.SIGTERM, loop.quit)
    loop.run()


def hide_adapter_until(seconds, root, adapter, paths):
    """As bluetoothd starts: it owns org.bluez before it has added any adapter (src/main.c, then
    src/adapter.c as the kernel's management interface reports each controller); the adapter comes
    with Adapter1 and GattManager1, and LEAdvertisingManager1 follows once the controller has told
    its advertising features (src/advertising.c). Prints "adapter added" and "advertising manager
    added"."""
    hidden = {path: dbusmock.mockobject.objects.pop(path) for path in paths}
    advertising = hidden[adapter].props.pop(ADVERTISING_MANAGER)
    manager = 'org.freedesktop.DBus.ObjectManager'

    def add_adapter():
        for path in sorted(hidden):
            dbusmock.mockobject.objects[path] = hidden[path]
            root.EmitSignal(manager, 'InterfacesAdded', 'oa{sa{sv}}', [path, hidden[path].props])
        print('adapter added', flush=True)
        GLib.timeout_add(200, add_advertising)
        return False

    def add_advertising():
        hidden[adapter].props[ADVERTISING_MANAGER] = advertising
        root.EmitSignal(manager, 'InterfacesAdded', 'oa{sa{sv}}', [adapter, {ADVERTISING_MANAGER: advertising}])
        print('advertising manager added', flush=True)
        return False

    GLib.timeout_add(int(seconds * 1000), add_adapter)


GATT_MANAGER = 'org.bluez.GattManager1'
# The centrals' sockets read and their packets counted (--quiet-relay), in a process of its own.
COUNTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'count-packets.py')
# How long the mock, as bluetoothd, waits for an application's answer (the calls block its loop).
APP_TIMEOUT = 2
# How many registered applications are still being read and subscribed to.
PERIPHERAL = {'pending': 0}
PROFILE = 'org.bluez.GattProfile1'
# The registered GattProfile1 objects' UUIDs (16-bit where on the base), by (sender, application path).
AUTO_CONNECT = {}
# Their GattProfile1 object paths, for Release.
PROFILE_PATHS = {}
ADVERTISING_MANAGER = 'org.bluez.LEAdvertisingManager1'
BEARER_LE = 'org.bluez.Bearer.LE1'


def add_peripheral_side(bus, root, adapter_object, caller, args):
    """GattManager1 and LEAdvertisingManager1 on the adapter, and the centrals that use them."""
    adapter_object.props[GATT_MANAGER] = {}  # no properties, and listed all the same, as BlueZ lists it
    adapter_object.AddProperties(ADVERTISING_MANAGER, {
        'ActiveInstances': dbus.Byte(0, variant_level=1),
        'SupportedInstances': dbus.Byte(args.advertising_slots, variant_level=1),
        'SupportedIncludes': dbus.Array(['tx-power', 'appearance', 'local-name'], signature='s', variant_level=1),
    })
    # One registered application and its notify characteristics: path -> uuid; StartNotify
    # subscriptions by path (bluetoothd calls StopNotify when the last one goes).
    app = {'sender': None, 'path': None, 'notify': {}, 'started': {}, 'receiver': None, 'count': 0, 'counter': None}
    # The centrals: device path, AcquireNotify sockets (socket, uuid, watch), values received.
    centrals = [{'index': i, 'device': None, 'sockets': [], 'received': 0, 'gone': False} for i in range(args.centrals)]
    atexit.register(lambda: args.quiet_relay and print(f"relayed total {app['count']}", flush=True))
    # The count and each central's state, shared with the centrals' reader threads.
    lock = threading.Lock()

    def received(central, uuid, value):
        with lock:
            if central['gone']:
                return
            central['received'] += 1
            if args.quiet_relay:
                app['count'] += 1
            else:
                print(f"relayed {central['index']} {uuid} {value.hex()}")
            leaving = central is centrals[-1] and central['received'] == args.central_leaves_after
            if leaving:
                central['gone'] = True
        if leaving:
            GLib.idle_add(leave, central)

    def relayed(interface, changed, _invalidated, path=None, sender=None):
        if sender != app['sender'] or path not in app['notify'] or interface != CHAR or 'Value' not in changed:
            return
        for central in centrals:
            if path in app['started']:
                received(central, app['notify'][path], bytes(changed['Value']))

    def read_socket(central, sock, uuid):
        # A central is a device of its own: it reads its socket as the values come, whatever the mock
        # is busy with, until the application closes its end (or the central shuts its own).
        while True:
            try:
                value = sock.recv(512)
            except OSError:
                value = b''
            if not value:
                break
            # Before 5.76 bluetoothd sends what a socket carries to every subscribed central
            # (sock_io_read: send_notification_to_devices; a08ec1a4e), from 5.76 to its own.
            for reached in (centrals if args.version < (5, 76) else [central]):
                received(reached, uuid, value)
        sock.close()

    def close_sockets(central, wait=0):
        """Ends the central's subscriptions through sockets: after up to `wait` seconds for each reader
        to read what the application sent before it closed its end."""
        for sock, reader in central['sockets']:
            if reader.ident is None:  # never read (--centrals-stall), or read by the counter process
                if app['counter'] and wait:
                    counted(app['counter'], wait)
                else:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)  # closed for the counter and the app too
                    except OSError:
                        pass
                sock.close()
            else:
                reader.join(wait)
                if reader.is_alive():
                    sock.shutdown(socket.SHUT_RDWR)
                    reader.join()
        central['sockets'] = []

    def counted(counter, wait):
        """The counter's count, once the application has closed every socket (or after `wait` s)."""
        try:
            counter.wait(wait)
        except subprocess.TimeoutExpired:
            counter.kill()
        with lock:
            app['count'] += int((counter.communicate()[0].split() or ['0'])[-1])
        app['counter'] = None

    def leave(central):
        central['gone'] = True
        close_sockets(central)
        for path in list(app['started']):
            app['started'][path] -= 1
            if app['started'][path] == 0:
                del app['started'][path]
                bus.get_object(app['sender'], path, introspect=False).StopNotify(
                    dbus_interface=CHAR, reply_handler=lambda: None, error_handler=lambda _e: None)
        if central['device']:
            dbusmock.mockobject.objects[central['device']].UpdateProperties(DEVICE, {'Connected': dbus.Boolean(False)})
        print(f"central {central['index']} left", flush=True)
        return False

    def read_application(sender, path):
        try:
            objects = bus.get_object(sender, path, introspect=False).GetManagedObjects(
                dbus_interface='org.freedesktop.DBus.ObjectManager', timeout=APP_TIMEOUT)
            profiles = {str(p): props[PROFILE] for p, props in objects.items() if PROFILE in props}
            if profiles:
                # bluetoothd's create_profile/profile_add: one auto-connect profile per UUID.
                uuids = {short(str(u)) for props in profiles.values() for u in props.get('UUIDs', [])}
                AUTO_CONNECT[(sender, path)] = uuids
                PROFILE_PATHS[(sender, path)] = sorted(profiles)
                print(f"profile registered: {' '.join(sorted(uuids))}", flush=True)
            if any(SERVICE in props for props in objects.values()) or not profiles:
                read_and_subscribe(sender, path, objects)
        except Exception as error:  # noqa: BLE001 -- said, and the trace plays all the same
            print(f"application unreadable: {error}", flush=True)
        PERIPHERAL['pending'] -= 1
        return False

    def connect_central(central):
        address = f"C0:FF:EE:00:00:{central['index']:02X}"
        path = f"{adapter_object.path}/dev_{address.replace(':', '_')}"
        if path not in dbusmock.mockobject.objects:
            root.AddDevice('hci0', address, f"central {central['index']}")
        central['device'] = path
        dbusmock.mockobject.objects[path].UpdateProperties(DEVICE, {'Connected': dbus.Boolean(True)})

    def read_and_subscribe(sender, path, objects):
        app.update(sender=sender, path=path, notify={}, started={})
        if app['receiver'] is None:
            app['receiver'] = bus.add_signal_receiver(
                relayed, 'PropertiesChanged', PROPS, path_keyword='path', sender_keyword='sender')
        services = sorted(short(str(props[SERVICE]['UUID'])) for props in objects.values() if SERVICE in props)
        characteristics = {str(p): props[CHAR] for p, props in objects.items() if CHAR in props}
        print(f"application registered: {' '.join(services)} ({len(characteristics)} characteristics)", flush=True)
        for central in centrals:
            central['gone'] = False
            connect_central(central)
        for char_path, props in sorted(characteristics.items()):
            uuid = short(str(props['UUID']))
            characteristic = bus.get_object(sender, char_path, introspect=False)
            if 'read' in props['Flags']:
                value = bytes(characteristic.ReadValue(dbus.Dictionary({}, signature='sv'), dbus_interface=CHAR, timeout=APP_TIMEOUT)).hex()
                print(f"relay read {uuid} {value}", flush=True)
            if 'notify' in props['Flags']:
                app['notify'][char_path] = uuid
                for central in centrals:
                    subscribe(central, characteristic, char_path, uuid, 'NotifyAcquired' in props)
                print(f"relay subscribed {uuid} {args.centrals}", flush=True)
        sockets = [sock for central in centrals for sock, _ in central['sockets']]
        if args.quiet_relay and not args.centrals_stall and sockets:
            # The benchmark's centrals count in one process of their own, as bluetoothd reads every
            # socket in one: it shares no lock with the mock playing.
            fds = [sock.fileno() for sock in sockets]
            app['counter'] = subprocess.Popen([sys.executable, COUNTER] + [str(fd) for fd in fds], pass_fds=fds,
                                              stdout=subprocess.PIPE, text=True)
            app['counter'].stdout.readline()  # "ready"

    def subscribe(central, characteristic, char_path, uuid, acquire):
        if acquire and not args.relay_start_notify and args.version < (5, 69) and central is not centrals[0]:
            # Before 5.69 bluetoothd acquires one socket per characteristic, for the first central
            # subscribing, and counts the others (gatt-database.c, ccc_write_cb: notify_io).
            return
        if acquire and not args.relay_start_notify:
            options = dbus.Dictionary({'device': dbus.ObjectPath(central['device']), 'mtu': dbus.UInt16(247),
                                       'link': 'LE'}, signature='sv')
            fd, _mtu = characteristic.AcquireNotify(options, dbus_interface=CHAR, timeout=APP_TIMEOUT)
            print(f"relay socket {uuid} {central['index']}", flush=True)
            sock = socket.socket(fileno=fd.take())
            reader = threading.Thread(target=read_socket, args=(central, sock, uuid), daemon=True)
            # With --quiet-relay one process counts what every socket gets (started once all are acquired).
            if not args.centrals_stall and not args.quiet_relay:
                reader.start()
            central['sockets'].append((sock, reader))
        else:
            characteristic.StartNotify(dbus_interface=CHAR, timeout=APP_TIMEOUT)
            app['started'][char_path] = app['started'].get(char_path, 0) + 1

    def register_application(path, _options):
        sender = caller['sender']
        if (sender, str(path)) in AUTO_CONNECT:
            raise dbus.exceptions.DBusException('Already Exists', name='org.bluez.Error.AlreadyExists')
        registered.add((sender, str(path)))
        PERIPHERAL['pending'] += 1
        # Read after the reply, as the application serves its objects on the thread that waits for it.
        GLib.idle_add(read_application, sender, str(path))

    def unregister_profile(sender, path):
        """bluetoothd's app_free: the profiles go, and each GattProfile1 is told (Release, no reply awaited;
        bluetoothd's own bus policy, bluetooth.conf, does not let it through on a stock system)."""
        print(f"profile unregistered: {' '.join(sorted(AUTO_CONNECT.pop((sender, path))))}", flush=True)
        for profile_path in PROFILE_PATHS.pop((sender, path), []):
            bus.get_object(sender, profile_path, introspect=False).Release(
                dbus_interface=PROFILE, reply_handler=lambda: print('profile released', flush=True),
                error_handler=lambda e: print(f"profile release failed: {e.get_dbus_name()}", flush=True))

    def unregister_application(path):
        key = (caller['sender'], str(path))
        if key not in registered and str(path) != app['path']:
            raise dbus.exceptions.DBusException('no such application', name='org.bluez.Error.DoesNotExist')
        registered.discard(key)
        if key in AUTO_CONNECT:
            unregister_profile(*key)
            if str(path) != app['path']:
                return
        # What the application sent before unregistering (it closes its ends first) reaches the
        # centrals, then bluetoothd drops them.
        for central in centrals:
            close_sockets(central, wait=0 if args.centrals_stall else 2)
        app.update(sender=None, path=None, notify={}, started={})
        print('application unregistered', flush=True)

    def read_advertisement(sender, path):
        try:
            print_advertisement(sender, path)
        except Exception as error:  # noqa: BLE001 -- said; nothing else depends on it
            print(f"advertisement unreadable: {error}", flush=True)
        return False

    def print_advertisement(sender, path):
        props = bus.get_object(sender, path, introspect=False).GetAll('org.bluez.LEAdvertisement1', dbus_interface=PROPS, timeout=APP_TIMEOUT)
        uuids = ' '.join(short(str(u)) for u in props.get('ServiceUUIDs', []))
        # Without Discoverable, bluetoothd flags the advertisement general discoverable only while
        # the adapter itself is discoverable (advertising.c), which some phones need to list it.
        discoverable = ' (discoverable)' if props.get('Discoverable', False) else ''
        print(f"advertising {props.get('LocalName', '')}: {uuids}{discoverable}", flush=True)

    refusals = {'left': args.advertising_fails}

    def register_advertisement(path, _options):
        if args.advertising_slots == 0:
            raise dbus.exceptions.DBusException('Maximum advertisements reached', name='org.bluez.Error.NotPermitted')
        if refusals['left'] > 0:
            # What bluetoothd answers when the controller refuses the advertising instance (MGMT Add Advertising).
            refusals['left'] -= 1
            print('advertisement refused', flush=True)
            raise dbus.exceptions.DBusException('Failed to register advertisement', name='org.bluez.Error.Failed')
        GLib.idle_add(read_advertisement, caller['sender'], str(path))

    # The applications registered (sender, path), read or not.
    registered = set()

    def owner_changed(name, _old, new):
        if not new:
            registered.difference_update({key for key in registered if key[0] == str(name)})
            drop_profiles(lambda sender: sender == str(name), 'application gone')
    bus.add_signal_receiver(owner_changed, 'NameOwnerChanged', 'org.freedesktop.DBus', 'org.freedesktop.DBus',
                            '/org/freedesktop/DBus')
    adapter_object.AddMethod(GATT_MANAGER, 'RegisterApplication', 'oa{sv}', '', lambda _self, p, o: register_application(p, o))
    adapter_object.AddMethod(GATT_MANAGER, 'UnregisterApplication', 'o', '', lambda _self, p: unregister_application(p))
    adapter_object.AddMethod(ADVERTISING_MANAGER, 'RegisterAdvertisement', 'oa{sv}', '',
                             lambda _self, p, o: register_advertisement(p, o))
    adapter_object.AddMethod(ADVERTISING_MANAGER, 'UnregisterAdvertisement', 'o', '',
                             lambda _self, p: print('advertisement unregistered', flush=True))


def connect_absent(bus, message, device, timeout):
    """Device1.Connect to a device out of range, as bluetoothd and the kernel answer it, without
    holding the mock's loop: bluetoothd sets no timer of its own, and the kernel's LE connection
    attempt either completes once the device advertises again or fails after its timeout, which
    bluetoothd reports as Failed "le-connection-abort-by-local" (src/device.c, att_connect_cb).
    A second Connect meanwhile answers InProgress; Disconnect cancels it. Prints "connect KEY
    failed after S s (absent)"."""
    if device.sb_connecting is not None:
        bus.send_message(dbus.lowlevel.ErrorMessage(message, 'org.bluez.Error.InProgress', 'In Progress'))
        return
    device.sb_connecting = message
    started = time.monotonic()

    def wait():
        if device.sb_connecting is not message:  # cancelled by Disconnect
            return False
        if not device.sb_refuse:
            device.sb_connecting = None
            try:
                connect(device)
                reply = dbus.lowlevel.MethodReturnMessage(message)
            except dbus.exceptions.DBusException as error:
                reply = dbus.lowlevel.ErrorMessage(message, error.get_dbus_name(), error.get_dbus_message())
            bus.send_message(reply)
            return False
        if time.monotonic() - started < timeout:
            return True
        device.sb_connecting = None
        print(f"connect {device.sb_key} failed after {timeout:g} s (absent)", flush=True)
        bus.send_message(dbus.lowlevel.ErrorMessage(message, 'org.bluez.Error.Failed', 'le-connection-abort-by-local'))
        return False
    GLib.timeout_add(50, wait)


def disconnect(device):
    """Device1.Disconnect: the link goes down ("disconnected ADDRESS"); a pending Connect fails."""
    pending, device.sb_connecting = device.sb_connecting, None
    if pending is not None:
        dbusmock.mockobject.objects['/'].connection.send_message(
            dbus.lowlevel.ErrorMessage(pending, 'org.bluez.Error.Failed', 'br-connection-canceled'))
    link(device, False)
    print(f"disconnected {device.props[DEVICE]['Address']}", flush=True)


def link(device, connected, restore=False):
    """The link goes up or down. Down, each measurement's StartNotify session is remembered and its
    socket closed; up with `restore` (an auto-connect), the sessions notify again, as bluetoothd's
    btd_gatt_client_connected registers them (the app's own Connect is followed by its StartNotify)."""
    if connected and getattr(device, 'sb_refuse', False):
        raise dbus.exceptions.DBusException('Page Timeout', name='org.bluez.Error.Failed')
    device.connected = connected
    if connected:
        device.sb_ever_connected = True  # no longer temporary
    device.UpdateProperties(DEVICE, {
        'Connected': dbus.Boolean(connected),
        'ServicesResolved': dbus.Boolean(connected),
    })
    for path in device.sb_chars:
        char = dbusmock.mockobject.objects.get(path)
        if char is None:
            continue  # not exported (--gatt-fails: the first discovery failed)
        if not connected:
            char.sb_session = bool(char.props[CHAR]['Notifying'])
            char.UpdateProperties(CHAR, {'Notifying': dbus.Boolean(False)})
            release(char)
        elif restore and getattr(char, 'sb_session', False):
            char.UpdateProperties(CHAR, {'Notifying': dbus.Boolean(True)})


def auto_connects(device):
    """Whether bluetoothd made the device auto-connect: known (connected once, or paired: not
    temporary), its address not private, and offering a service a registered GattProfile1 names
    (src/device.c probe_service, device_set_auto_connect)."""
    known = getattr(device, 'sb_ever_connected', False) or bool(device.props[DEVICE].get('Paired', False))
    uuids = {short(u) for u in device.props[DEVICE]['UUIDs']}
    return known and not device.sb_private and any(uuids & profile for profile in AUTO_CONNECT.values())


def drop_profiles(gone, why):
    """Forgets the profiles of the applications whose sender `gone` says (their owner left the bus,
    or the adapter went with its database)."""
    for key in [key for key in AUTO_CONNECT if gone(key[0])]:
        PROFILE_PATHS.pop(key, None)
        print(f"profile dropped ({why}): {' '.join(sorted(AUTO_CONNECT.pop(key)))}", flush=True)


def drop_during(char, method):
    """--drop-during-subscribe: the link drops while `method` writes the CCC, and bluetoothd
    answers with the ATT error (register_notify_cb; register_notify_io_cb from 5.84)."""
    char.sb_drop = False
    link(char.sb_device, False)
    print(f'link {char.sb_key} dropped during {method}', flush=True)
    raise dbus.exceptions.DBusException('Operation failed with ATT error: 0x0e', name='org.bluez.Error.Failed')


def start_notify(char):
    if char.sb_stuck:
        print(f'refused StartNotify {char.sb_key} {char.sb_uuid} (stuck)', flush=True)
        raise dbus.exceptions.DBusException('Notify acquired', name='org.bluez.Error.NotPermitted')
    if char.sb_drop:
        drop_during(char, 'StartNotify')
    if char.sb_fails:
        raise dbus.exceptions.DBusException('Notify not permitted', name='org.bluez.Error.NotPermitted')
    char.sb_starts += 1
    if char.sb_in_progress and char.sb_starts == 1:
        print(f'in progress {char.sb_key} {char.sb_uuid}', flush=True)
        raise dbus.exceptions.DBusException('Operation already in progress', name='org.bluez.Error.InProgress')
    char.sb_dead = char.sb_silent and char.sb_starts == 1
    print(f'notifying {char.sb_key} {char.sb_uuid} ({char.sb_starts})', flush=True)
    char.UpdateProperties(CHAR, {'Notifying': dbus.Boolean(True)})


def stop_notify(char):
    if char.sb_stuck:
        # Before 5.84, StopNotify frees what the failed AcquireNotify left behind a second time
        # (notify_io_destroy): bluetoothd dies, and every link with it.
        print('bluetoothd crashed: StopNotify on a characteristic a failed AcquireNotify left stuck', flush=True)
        os._exit(134)
    char.sb_dead = False
    char.sb_session = False
    char.UpdateProperties(CHAR, {'Notifying': dbus.Boolean(False)})


def acquire_notify(char, _options):
    """AcquireNotify as BlueZ answers it: one end of a SOCK_SEQPACKET pair (one value per packet)
    and the MTU; NotifyAcquired turns true until the socket closes."""
    if char.props[CHAR]['Notifying'] or char.sb_socket or char.sb_stuck:
        raise dbus.exceptions.DBusException('Notify acquired', name='org.bluez.Error.NotPermitted')
    if char.sb_drop:
        # 5.84 and later (the earlier ones never answer: watch_calls); the characteristic is
        # usable again (476ae809a).
        drop_during(char, 'AcquireNotify')
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    char.sb_socket = ours
    char.UpdateProperties(CHAR, {'NotifyAcquired': dbus.Boolean(True)})
    fd = dbus.types.UnixFd(theirs)
    theirs.close()
    print(f'acquired {char.sb_key} {char.sb_uuid}', flush=True)
    return (fd, dbus.UInt16(247))


def release(char):
    if char.sb_socket:
        char.sb_socket.close()
        char.sb_socket = None
        char.UpdateProperties(CHAR, {'NotifyAcquired': dbus.Boolean(False)})


def pair(device, bus, agents):
    """A device that asks for bonding has BlueZ ask the default agent (RequestAuthorization, as for
    "just works"); without an agent, or when it refuses, pairing fails as BlueZ's does."""
    if device.sb_bonding:
        agent = dbusmock.mockobject.objects['/org/bluez'].default_agent
        if not agent or str(agent) not in agents:
            raise dbus.exceptions.DBusException('Authentication Failed: no agent',
                                                name='org.bluez.Error.AuthenticationFailed')
        try:
            bus.call_blocking(agents[str(agent)], agent, 'org.bluez.Agent1', 'RequestAuthorization', 'o',
                              [dbus.ObjectPath(device.path)], timeout=10)
        except dbus.exceptions.DBusException as e:
            raise dbus.exceptions.DBusException(f'Authentication Rejected: {e.get_dbus_name()}: {e.get_dbus_message()}',
                                                name='org.bluez.Error.AuthenticationRejected')
        print(f'bonded {device.path}', flush=True)
    device.UpdateProperties(DEVICE, {'Paired': dbus.Boolean(True)})


def connect(self):
    hidden = getattr(self, 'sb_gatt_hidden', None)
    if hidden and not getattr(self, 'sb_gatt_failed', False):
        # --gatt-fails: bluetoothd's service discovery failed on this link, and it sets
        # ServicesResolved all the same (src/device.c); nothing of the device's GATT is exported.
        self.sb_gatt_failed = True
        print(f"services resolved without GATT objects {self.props[DEVICE]['Address']}", flush=True)
    elif hidden:
        for path in sorted(hidden):
            dbusmock.mockobject.objects[path] = hidden[path]
            self.sb_root.EmitSignal('org.freedesktop.DBus.ObjectManager', 'InterfacesAdded', 'oa{sa{sv}}',
                                    [path, hidden[path].props])
        self.sb_gatt_hidden = None
    link(self, True)


if __name__ == '__main__':
    sys.exit(main())
