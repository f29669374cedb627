#!/usr/bin/env python3
"""Live web clients for `sensorbridge-bench web`: COUNT browsers following `GET /api/live`, in a
process of their own so their CPU is not the recording's.

Usage: sse-clients.py PORT COUNT

Opens COUNT HTTP/1.1 connections to 127.0.0.1:PORT, each from a loopback address of its own
(127.0.1.1, 127.0.1.2, ...: as many browsers on as many machines; the server takes at most 32
connections from one address), asks each for /api/live as a browser's EventSource does, and reads
them all on one thread: it undoes the chunked transfer coding and counts each client's bytes on the
wire and its events by name. Prints "connected COUNT" once every client has its first event (the
snapshot), then on SIGUSR1 one line "stats JSON" (a list, one object per client: {"bytes",
"events": {NAME: COUNT}, "status"}) and on SIGTERM or SIGINT the same and exits. Standard library
only.
"""
import json
import selectors
import signal
import socket
import sys


class Client:
    def __init__(self, index, port):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.socket.bind(('127.0.1.%d' % (index + 1), 0))
        self.socket.connect(('127.0.0.1', port))
        self.socket.sendall((
            'GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAccept: text/event-stream\r\n'
            'Cache-Control: no-cache\r\n\r\n' % port).encode())
        self.socket.setblocking(False)
        self.wire = 0
        self.status = None
        self.head = b''
        self.chunked = False
        self.raw = b''      # received, not yet de-chunked
        self.body = b''     # de-chunked, not yet split into events
        self.events = {}
        self.closed = False

    def read(self):
        try:
            data = self.socket.recv(65536)
        except BlockingIOError:
            return
        if not data:
            self.closed = True
            return
        self.wire += len(data)
        if self.status is None:
            self.head += data
            end = self.head.find(b'\r\n\r\n')
            if end < 0:
                return
            lines = self.head[:end].decode('latin-1').split('\r\n')
            self.status = int(lines[0].split(' ')[1])
            self.chunked = any(line.lower().replace(' ', '') == 'transfer-encoding:chunked' for line in lines[1:])
            data = self.head[end + 4:]
            self.head = b''
        if self.chunked:
            self.raw += data
            self.dechunk()
        else:
            self.body += data
        self.split()

    def dechunk(self):
        while True:
            line_end = self.raw.find(b'\r\n')
            if line_end < 0:
                return
            size = int(self.raw[:line_end].split(b';')[0], 16)
            if len(self.raw) < line_end + 2 + size + 2:
                return
            self.body += self.raw[line_end + 2:line_end + 2 + size]
            self.raw = self.raw[line_end + 2 + size + 2:]

    def split(self):
        while True:
            end = self.body.find(b'\n\n')
            if end < 0:
                return
            block = self.body[:end]
            self.body = self.body[end + 2:]
            name = 'comment'
            for line in block.split(b'\n'):
                if line.startswith(b'event: '):
                    name = line[len(b'event: '):].decode()
            self.events[name] = self.events.get(name, 0) + 1

    def stats(self):
        return {'bytes': self.wire, 'events': self.events, 'status': self.status, 'closed': self.closed}


def main(arguments):
    port, count = int(arguments[0]), int(arguments[1])
    selector = selectors.DefaultSelector()
    clients = [Client(index, port) for index in range(count)]
    for client in clients:
        selector.register(client.socket, selectors.EVENT_READ, client)
    flags = {'report': False, 'stop': False}
    signal.signal(signal.SIGUSR1, lambda *_: flags.__setitem__('report', True))
    signal.signal(signal.SIGTERM, lambda *_: flags.__setitem__('stop', True))
    signal.signal(signal.SIGINT, lambda *_: flags.__setitem__('stop', True))
    announced = False
    while True:
        for key, _ in selector.select(timeout=1):
            key.data.read()
            if key.data.closed:
                selector.unregister(key.data.socket)
        if not announced and all(client.events for client in clients):
            announced = True
            print('connected %d' % count, flush=True)
        if flags['report'] or flags['stop']:
            flags['report'] = False
            print('stats ' + json.dumps([client.stats() for client in clients], separators=(',', ':')), flush=True)
            if flags['stop']:
                return


if __name__ == '__main__':
    main(sys.argv[1:])
