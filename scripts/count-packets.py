#!/usr/bin/python3
"""Reads the SEQPACKET sockets whose descriptor numbers it is given, as bluetoothd reads the
sockets of an application's AcquireNotify (poll, one read a packet), and counts the packets.
Prints "ready", then the count once every socket has closed. The relay's centrals in the mock
(--quiet-relay) and the benchmark's relaying floor use it: a process of its own, so that what
it costs is nobody's CPU but its own."""
import os
import select
import sys

fds, count = {int(fd) for fd in sys.argv[1:]}, 0
# Holds nothing else it may have been handed: a pipe it kept would not end for its writer.
for fd in range(3, max(fds) + 1):
    if fd not in fds:
        try:
            os.close(fd)
        except OSError:
            pass
os.closerange(max(fds) + 1, os.sysconf('SC_OPEN_MAX'))
poller = select.poll()
for fd in fds:
    poller.register(fd, select.POLLIN)
print('ready', flush=True)
while fds:
    for fd, _ in poller.poll():
        try:
            packet = os.read(fd, 512)
        except OSError:
            packet = b''
        if packet:
            count += 1
        else:
            poller.unregister(fd)
            fds.discard(fd)
print(count, flush=True)
