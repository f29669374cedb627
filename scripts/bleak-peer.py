#!/usr/bin/env python3
"""bleak beside `record` in `sensorbridge-bench bluez`: what a Python program that people would
write with bleak (the Python BLE library) spends on the same notifications.

Usage: bleak-peer.py [--acquire-notify] ADDRESS=UUID[,UUID...]...

Connects to each ADDRESS with bleak's BleakClient (which finds it by discovery, as bleak does
when given an address) on the bus in DBUS_SYSTEM_BUS_ADDRESS, and start_notify's each UUID
(2a37, 2a63), counting the notifications and doing nothing else with them; with --acquire-notify
through BlueZ's AcquireNotify socket (bleak's use_start_notify False), otherwise through
StartNotify (bleak's default). Prints "notifying" once every subscription is on, "first" at the
first notification, "received N" on SIGUSR1, and on SIGTERM or SIGINT "received N" and exits
after disconnecting. Runs in the virtual environment .build/venv (scripts/install-deps).
"""
import asyncio
import signal
import sys

from bleak import BleakClient


async def main(arguments):
    acquire = '--acquire-notify' in arguments
    subscriptions = [word.split('=', 1) for word in arguments if not word.startswith('--')]
    count = 0

    def received(_characteristic, _value):
        nonlocal count
        count += 1
        if count == 1:
            print('first', flush=True)

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    loop.add_signal_handler(signal.SIGUSR1, lambda: print(f'received {count}', flush=True))
    clients = []
    for address, uuids in subscriptions:
        client = BleakClient(address, timeout=20)
        await client.connect()
        clients.append(client)
        for uuid in uuids.split(','):
            await client.start_notify(uuid, received, bluez={'use_start_notify': not acquire})
    print('notifying', flush=True)
    await stop.wait()
    print(f'received {count}', flush=True)
    for client in clients:
        await client.disconnect()


if __name__ == '__main__':
    asyncio.run(main(sys.argv[1:]))
